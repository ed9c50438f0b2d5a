"""The payment hand-off's links (issue #34 item 3), from games.clubs.payment_links.

Each expected URL is written out from the app's format (the module docstring cites where
each comes from), not computed by the code under test."""

import subprocess
import sys

import pytest

from games.clubs.payment_links import (
    CopyText,
    HandleRefused,
    Handles,
    PayLink,
    Skipped,
    build,
    check,
    major_amount,
)

NOTE = "Bourré — Saturday 5 December"
NOTE_Q = "Bourr%C3%A9%20%E2%80%94%20Saturday%205%20December"
ALL = Handles(venmo="ann-smith", paypal="AnnSmith", cashtag="Ann7", revolut="ann.s", other="")


def test_usd_links_carry_amount_and_note_in_each_apps_format():
    pay = build(ALL, 1450, "USD", 2, NOTE)
    assert pay.links == (
        PayLink(
            "venmo",
            "Venmo",
            f"https://venmo.com/u/ann-smith?txn=pay&amount=14.50&note={NOTE_Q}",
            True,
        ),
        PayLink("paypal", "PayPal", "https://paypal.me/AnnSmith/14.50USD", True),
        PayLink("cashtag", "Cash App", "https://cash.app/$Ann7/14.50", True),
        # Revolut documents no amount for revolut.me: the payer types it.
        PayLink("revolut", "Revolut", "https://revolut.me/ann.s", False),
    )
    assert pay.copy is None and pay.skipped == ()


def test_venmo_and_cash_app_are_usd_only_and_say_so():
    pay = build(ALL, 1450, "EUR", 2, NOTE)
    assert [link.url for link in pay.links] == [
        "https://paypal.me/AnnSmith/14.50EUR",
        "https://revolut.me/ann.s",
    ]
    assert pay.skipped == (
        Skipped("venmo", "Venmo", "usd_only"),
        Skipped("cashtag", "Cash App", "usd_only"),
    )


@pytest.mark.parametrize(
    ("amount", "code", "exponent", "url"),
    [
        (1400, "GBP", 2, "https://paypal.me/AnnSmith/14.00GBP"),
        (5, "USD", 2, "https://paypal.me/AnnSmith/0.05USD"),
        (1500, "JPY", 0, "https://paypal.me/AnnSmith/1500JPY"),
        # HUF takes no decimals at PayPal: whole forints only, else no amount.
        (150000, "HUF", 2, "https://paypal.me/AnnSmith/1500HUF"),
        (150050, "HUF", 2, "https://paypal.me/AnnSmith"),
        # A currency PayPal does not take: the page without an amount.
        (1400, "KRW", 0, "https://paypal.me/AnnSmith"),
    ],
)
def test_paypal_amounts_per_currency(amount, code, exponent, url):
    (link,) = build(Handles(paypal="AnnSmith"), amount, code, exponent, NOTE).links
    assert link.url == url
    assert link.prefilled == (url != "https://paypal.me/AnnSmith")


def test_whole_dollar_club_and_free_text():
    pay = build(Handles(cashtag="Ann7", other="IBAN DE89 3704 0044"), 14, "USD", 0, NOTE)
    assert [link.url for link in pay.links] == ["https://cash.app/$Ann7/14"]
    assert pay.copy == CopyText("IBAN DE89 3704 0044")


def test_chips_nothing_and_no_amount_nothing():
    assert not build(ALL, 14, "XXX", 0, NOTE)
    assert not build(ALL, 0, "USD", 2, NOTE)
    assert not build(Handles(), 1400, "USD", 2, NOTE)


def test_major_amount():
    assert major_amount(1450, 2) == "14.50"
    assert major_amount(7, 2) == "0.07"
    assert major_amount(14, 0) == "14"
    with pytest.raises(ValueError):
        major_amount(-1, 2)


@pytest.mark.parametrize(
    ("app", "typed", "stored"),
    [
        ("venmo", "@Ann-Smith", "Ann-Smith"),
        ("venmo", "https://venmo.com/u/ann_smith", "ann_smith"),
        ("paypal", "www.paypal.me/AnnSmith/", "AnnSmith"),
        ("paypal", "https://www.paypal.com/paypalme/AnnSmith", "AnnSmith"),
        ("cashtag", "$Ann7", "Ann7"),
        ("cashtag", "cash.app/$Ann7", "Ann7"),
        ("revolut", "@ann.s", "ann.s"),
        ("revolut", "revolut.me/ann.s", "ann.s"),
        ("other", "  IBAN  DE89\t3704 ", "IBAN DE89 3704"),
        ("venmo", "   ", ""),
    ],
)
def test_check_keeps_the_handle(app, typed, stored):
    assert check(app, typed) == stored


@pytest.mark.parametrize(
    ("app", "typed", "code"),
    [
        ("venmo", "ann", "length"),  # 5 at least
        ("venmo", "a" * 31, "length"),
        ("venmo", "ann smith", "characters"),
        ("venmo", "ann.smith", "characters"),
        ("venmo", "ännsmith", "characters"),
        ("paypal", "Ann_Smith", "characters"),
        ("paypal", "A" * 21, "length"),
        ("cashtag", "12345", "letter"),
        ("cashtag", "$Ann-7", "characters"),
        ("revolut", "an", "length"),
        ("revolut", "ann/../evil", "characters"),
        ("other", "x" * 141, "length"),
        ("other", "DE89\u202e3704", "invisible"),  # a right-to-left override
        ("other", "DE89\u200b3704", "invisible"),  # a zero-width space
        ("other", "a\x00b", "invisible"),
    ],
)
def test_check_refuses(app, typed, code):
    with pytest.raises(HandleRefused) as refused:
        check(app, typed)
    assert refused.value.code == code


@pytest.mark.parametrize(
    "hostile",
    [
        "evil.com/x",
        "ann?amount=9999",
        "ann#frag",
        "javascript:alert(1)",
        "ann\r\nSet-Cookie:x",
        "ann%2F..",
        '"><script>',
        "ann@evil.com",
    ],
)
def test_hostile_stored_handles_make_no_link(hostile):
    """A row written around the form (the admin, an old value) never reaches a URL."""
    pay = build(Handles(hostile, hostile, hostile, hostile, ""), 1400, "USD", 2, NOTE)
    assert pay.links == ()


def test_hostile_note_is_encoded_and_stays_in_its_parameter():
    note = "x&amount=99999&txn=charge#y ?/"
    (link,) = build(Handles(venmo="ann-smith"), 100, "USD", 2, note).links
    assert link.url == (
        "https://venmo.com/u/ann-smith?txn=pay&amount=1.00"
        "&note=x%26amount%3D99999%26txn%3Dcharge%23y%20%3F%2F"
    )


def test_every_link_goes_to_its_apps_host():
    hosts = {"venmo": "venmo.com", "paypal": "paypal.me", "cashtag": "cash.app"}
    hosts["revolut"] = "revolut.me"
    for link in build(ALL, 100, "USD", 2, NOTE).links:
        assert link.url.startswith(f"https://{hosts[link.app]}/")


def test_the_module_is_pure():
    """Importing it loads no Django module (it is the engine's kind of code)."""
    code = (
        "import sys, games.clubs.payment_links; "
        "print(any(m.startswith('django') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
