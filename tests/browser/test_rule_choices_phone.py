"""A new user's finding: on the new-session form the "Cinch" select showed "On: a sure
majority leads its top tr" at 390 px. The house-rule values are sentences, so every
choice a rules form offers must be readable in full at a phone's width, on the
new-session form and on a session's rules page."""

import pytest

from ledger import postings

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Each control of a choice switch and whether its chosen (or offered) text fits: a
# select's chosen option against the select's inner width (its arrow takes ~24 px), a
# radio's label by its own overflow.
CUT = """
(names) => {
  const out = [];
  const ctx = document.createElement('canvas').getContext('2d');
  for (const name of names) {
    document.querySelectorAll(`select[name=${name}]`).forEach((el) => {
      const s = getComputedStyle(el);
      ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      const text = el.options[el.selectedIndex].text;
      const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 24;
      if (ctx.measureText(text).width > room) out.push(`${name}: "${text}" cut`);
    });
    document.querySelectorAll(`input[name=${name}]`).forEach((el) => {
      const label = el.closest('label');
      if (!label || label.scrollWidth > label.clientWidth + 1) out.push(`${name}: label overflows`);
    });
    if (!document.querySelector(`[name=${name}]`)) out.push(`${name}: missing`);
  }
  return out;
}
"""
CHOICES = [
    "cinch", "cinch_equivalence", "declaration", "split_pot", "ineligible_winner",
    "stock_refill",
]  # fmt: skip


def test_rule_choices_read_in_full_at_390px(
    live_server, phone, login, club, players, bob, password
):
    session = postings.start_session(
        club=club, name="Friday", players=players, dealer=players[-1], rules={},
        currency=club.currency, user=bob,
    )  # fmt: skip
    login(phone, "bob", password)
    cut = []
    for path in (f"/clubs/{club.pk}/sessions/new/", f"/sessions/{session.pk}/rules/"):
        phone.goto(live_server.url + path)
        phone.evaluate(
            "document.querySelectorAll('details.house-rules').forEach(d => d.open = true)"
        )
        cut += [f"{path}: {c}" for c in phone.evaluate(CUT, CHOICES)]
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390, path
    assert not cut, cut
    chosen = phone.locator("input[name=cinch]:checked").locator("xpath=..")
    assert chosen.inner_text().strip() == "On: a sure majority leads its top trump"
    chosen.scroll_into_view_if_needed()
    phone.screenshot(path="/tmp/polish-cinch-choice.png")
