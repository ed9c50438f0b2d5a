"""HandForm builds its fields once per players, hand size and language (issue #20) and
hands each form its own copies: what one form sets on a field never reaches another, and
the built fields keep the app's own messages and the per-name labels."""

from __future__ import annotations

from games.sessions.forms import HandForm

NAMES = ["ann", "ben", "cal"]


def _state(version: int, players=NAMES, hand_size: int = 5) -> dict:
    return {"rules": {"hand_size": hand_size}, "version": version, "players": list(players),
            "dealer": players[-1], "excused": []}  # fmt: skip


def test_each_form_has_its_own_field_objects_and_version():
    first, second = HandForm(state=_state(3)), HandForm(state=_state(7))
    assert list(first.fields) == list(second.fields)
    assert all(first.fields[n] is not second.fields[n] for n in first.fields)
    assert first.fields["version"].initial == 3 and second.fields["version"].initial == 7
    first.fields["tricks_0"].initial = 4
    first.fields["play_1"].required = True
    fresh = HandForm(state=_state(9))
    assert fresh.fields["tricks_0"].initial == 0 and not fresh.fields["play_1"].required


def test_labels_and_messages_follow_the_names_and_hand_size():
    form = HandForm(state=_state(1, ["dee", "eve"], hand_size=4))
    assert form.fields["tricks_1"].label == "Tricks eve took"
    assert form.fields["renege_who"].choices == [("", "nobody"), ("dee", "dee"), ("eve", "eve")]
    assert "player_2" not in form.fields
    bound = HandForm(
        {"idempotency_key": "k", "player_0": "dee", "player_1": "eve", "tricks_0": "5",
         "tricks_1": "x", "play_0": "play", "play_1": "play", "trump": "S"},
        state=_state(1, ["dee", "eve"], hand_size=4),
    )  # fmt: skip
    assert not bound.is_valid()
    assert bound.errors["tricks_0"] == ["dee cannot take more than 4 tricks"]
    assert bound.errors["tricks_1"] == ["Tricks for eve are a whole number, like 2"]
    # A hidden field's own words (games.formtext), not Django's default.
    missing = HandForm({"player_0": "dee", "player_1": "eve"}, state=_state(1, ["dee", "eve"]))
    assert not missing.is_valid()
    assert missing.errors["idempotency_key"] == [
        "This page is out of date: reload it and try again."
    ]
