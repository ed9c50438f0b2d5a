"""Demo data for `manage.py seed_demo`: one played session, "Demo night".

Twelve hands recorded through the real recording path (ledger.postings.record_hand),
so the demo shows what a real evening looks like: wins, a bourré, a split pot, an
uncontested hand, reneges, a carried pot. Running it again changes nothing.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import NoReverseMatch

from games.models import Club, GameSession, Player
from games.money import Currency, format_money
from ledger import postings

DEMO_SESSION = "Demo night"


def demo_rules(currency: Currency) -> dict:
    """A quarter ante with bourrés capped at ten antes ($0.25 and $2.50: the stored
    amounts are cents, games.money); a chip club antes 1 chip, capped at 10."""
    ante = currency.minor // 4 or 1
    return {"ante": ante, "pot_limit": 10 * ante}


# (what happened, the table's part of the record). Names are seat positions 0..n-1 of the
# seated players, so the script works with any five roster names.
HANDS: list[tuple[str, dict]] = [
    ("a win and a bourré", {"up_card": "QH", "passed": [4], "tricks": {0: 3, 1: 1, 2: 1, 3: 0}}),
    ("a plain win", {"trump": "S", "passed": [1, 3], "tricks": {0: 1, 2: 3, 4: 1}}),
    ("a split pot", {"trump": "D", "passed": [0], "tricks": {1: 2, 2: 2, 3: 1, 4: 0}}),
    ("two take 2-1-1-1", {"trump": "C", "tricks": {0: 1, 1: 2, 2: 1, 3: 1, 4: 0}}),
    ("uncontested", {"trump": "H", "passed": [0, 1, 2, 3]}),
    ("a win on three tricks", {"up_card": "7S", "passed": [2], "tricks": {0: 1, 1: 1, 3: 3, 4: 0}}),
    (
        "a renege (not corrected)",
        {
            "trump": "D",
            "passed": [3],
            "tricks": {0: 2, 1: 1, 2: 2, 4: 0},
            "reneges": [{"player": 0, "corrected": False}],
        },
    ),
    ("a clean sweep", {"trump": "C", "passed": [1, 2], "tricks": {0: 0, 3: 0, 4: 5}}),
    ("another split", {"trump": "H", "passed": [4], "tricks": {0: 2, 1: 1, 2: 2, 3: 0}}),
    (
        "a corrected renege",
        {
            "trump": "S",
            "tricks": {0: 1, 1: 3, 2: 1, 3: 0, 4: 0},
            "reneges": [{"player": 2, "corrected": True}],
        },
    ),
    ("a win with the ace up", {"up_card": "AD", "passed": [0, 3], "tricks": {1: 3, 2: 1, 4: 1}}),
    ("the last hand", {"trump": "C", "passed": [2], "tricks": {0: 3, 1: 0, 3: 1, 4: 1}}),
]


def _entry(raw: dict, names: list[str]) -> dict:
    entry = dict(raw)
    if "passed" in entry:
        entry["passed"] = [names[i] for i in entry["passed"]]
    if "tricks" in entry:
        entry["tricks"] = {names[i]: t for i, t in entry["tricks"].items()}
    if "reneges" in entry:
        entry["reneges"] = [{**r, "player": names[r["player"]]} for r in entry["reneges"]]
    return entry


def seed_sessions(club: Club, user: User, players: list[Player]) -> list[str]:
    """Create "Demo night" with twelve recorded hands unless the club already has it."""
    existing = GameSession.objects.filter(club=club, name=DEMO_SESSION).first()
    if existing is not None:
        return [f"Demo session {DEMO_SESSION!r} already there ({existing.hands_count} hands)."]
    seated = list(players)[:5]
    if len(seated) < 5:
        return [f"Demo session {DEMO_SESSION!r} needs five players; skipped."]
    with transaction.atomic():
        session = postings.start_session(
            club=club,
            name=DEMO_SESSION,
            players=seated,
            dealer=seated[-1],
            rules=demo_rules(club.currency),
            currency=club.currency,
            user=user,
        )
        names = [p.name for p in seated]
        for number, (_, raw) in enumerate(HANDS, start=1):
            postings.record_hand(
                session_id=session.pk,
                entry=_entry(raw, names),
                idempotency_key=f"demo-night-{number}",
                expected_version=None,
                user=user,
            )
        session.refresh_from_db()
    try:
        where = f" at {session.get_absolute_url()}"
    except NoReverseMatch:
        where = ""
    return [
        f"Demo session {DEMO_SESSION!r}: {session.hands_count} hands recorded, "
        f"{format_money(session.carry, session.currency)} in the pot{where}."
    ]
