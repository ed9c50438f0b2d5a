"""``{% pay_links %}``: the payment hand-off under one transfer (issue #34 item 3).

A page that lists what players owe reads the payees' handles once
(``games.clubs.handles.for_players``) and renders, for each transfer::

    {% load pay %}
    {% pay_links handles=pay_handles payee=payee_player_id amount=amount currency=cur note=pay_note %}

``handles`` is that mapping (player id → Handles); a payee that is not a player (the
club kitty) or saved nothing gets nothing. The links come from the pure
``games.clubs.payment_links.build``; the sentences, in the reader's language, from
``templates/games/_pay_links.html``. The page says once, near them, that the app never
moves money (``templates/games/_pay_safety.html``).

``{% form_token %}``: a fresh one-time token for a payment form (double-tap guard).
"""

from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.clubs import tab_forms
from games.clubs.payment_links import Handles, build
from games.models.currency import Currency
from games.money import format_money

register = template.Library()


@register.inclusion_tag("games/_pay_links.html")
def pay_links(
    *, handles: Mapping[Any, Handles] | None, payee: Any, amount: int, currency: Currency, note: str
) -> dict[str, Any]:
    saved = (handles or {}).get(payee)
    if not saved:
        return {"pay": None}
    pay = build(saved, amount, currency.code, currency.exponent, note)
    skipped = ""
    if pay.skipped:
        apps = [s.name for s in pay.skipped]
        joined = (
            apps[0]
            if len(apps) == 1
            else _("%(names)s and %(last)s") % {"names": ", ".join(apps[:-1]), "last": apps[-1]}
        )
        skipped = ngettext(
            "%(apps)s takes US dollars only, so it is not offered here.",
            "%(apps)s take US dollars only, so they are not offered here.",
            len(apps),
        ) % {"apps": joined}
    return {"pay": pay, "amount": format_money(amount, currency), "skipped": skipped}


@register.simple_tag
def form_token() -> str:
    """A fresh one-time token for a payment form's hidden ``once`` field (the Tab page's
    "Paid in full"): the same form submitted twice records one payment."""
    return tab_forms.form_token()
