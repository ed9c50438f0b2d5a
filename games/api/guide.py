"""What a newcomer to the API reads first, on /api/v1/docs/ (the schema's description and
its tags' descriptions) and, in the same words, in README.md ("The API"): getting an
account and a token, the public read-only data, webhooks (the retry schedule, testing on
your own machine) and the tournament as a state machine.

Every number here is read from the code that acts on it (the webhook outbox's
`MAX_ATTEMPTS`, `BACKOFF` and `MAX_BACKOFF`, the rates in settings, the URLs from the
URL configuration), so the docs cannot drift from it; tests/api/test_guide.py checks the
README's copy against the same constants. `add_guide` is a drf-spectacular
postprocessing hook (settings.SPECTACULAR_SETTINGS).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.urls import reverse

from games.api import outbox

if TYPE_CHECKING:
    from drf_spectacular.generators import SchemaGenerator
    from rest_framework.request import Request


def duration(delta: timedelta) -> str:
    """30 s, 1 min, 32 min, 6 h: the largest whole unit."""
    seconds = int(delta.total_seconds())
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def retry_waits() -> list[timedelta]:
    """The wait before each retry of a webhook delivery, from the outbox's own rule: one
    after each failed attempt but the last."""
    return [outbox.backoff(n) for n in range(1, outbox.MAX_ATTEMPTS)]


def retry_schedule() -> str:
    waits = retry_waits()
    total = sum(waits, timedelta())
    minutes = total.total_seconds() / 60
    return (
        f"A delivery is tried at most {outbox.MAX_ATTEMPTS} times in all. After the n-th "
        f"failed attempt the next waits {duration(outbox.BACKOFF)}·2ⁿ⁻¹ "
        f"({', '.join(duration(w) for w in waits)}), never more than "
        f"{duration(outbox.MAX_BACKOFF)} (a cap these {outbox.MAX_ATTEMPTS} attempts do "
        f"not reach: the last comes about {minutes:g} minutes after the first); then the "
        "delivery is `failed`. A timeout, a refused connection, a redirect or any answer "
        "but 2xx counts as a failure. Per endpoint, events go out in order: a later one "
        "waits while an earlier one is pending. `GET /api/v1/webhooks/{id}/deliveries/` "
        "shows each delivery's attempts, last status and error."
    )


def account_and_token() -> str:
    return (
        "### Getting an account and a token\n\n"
        f"1. Sign up on the web site at `{reverse('signup')}` (sign-up is web-only), then "
        "create a club or accept an invite to one.\n"
        "2. Get a token: `POST /api/v1/auth/tokens/` with `username`, `password` and a "
        "`name` (no token needed for this call), or on the web site's token page "
        f"`{reverse('token_list')}`. The key (`brt_…`) is shown once; send it as "
        "`Authorization: Bearer brt_…`.\n"
        '3. Choose its scope: `"scope": "read"` makes a token that reads only (every write '
        "with it is 403 `read_only_token`): the one to keep in a league website or a "
        'spreadsheet. The default, `"write"`, does everything your account may.\n\n'
        "A token stops working when revoked (`DELETE /api/v1/auth/tokens/{id}/`, or the "
        "token page), when it expires (`expires_in_days`) and when your password changes. "
        "What it may reach is your account's: another club's objects are 404, reading "
        "needs membership, writing the scorekeeper role."
    )


def public_data() -> str:
    return (
        "### Public data (no login, any origin)\n\n"
        "What the public pages show, as JSON, by the same unguessable tokens (nothing "
        "else opens them: a wrong or revoked token is 404):\n\n"
        "- `GET /api/v1/public/tournaments/{token}/` — a published tournament: status, "
        "field, prize pool and links; `…/standings/`, `…/bracket/`, `…/clock/`. The token "
        "is the one in the tournament's public links (`/t/{token}/`, its wall screen and "
        "print view); `GET /api/v1/tournaments/{id}/` gives it as `public_url`.\n"
        "- `GET /api/v1/public/sessions/{token}/` — a session's scoreboard by its share "
        "link (`/share/{token}/`, made on the session's Share page); revoking the link "
        "closes this too.\n"
        "- `GET /api/v1/public/seasons/{token}/standings/` — a season's standings by its "
        "public link (`/season/{token}/`, made with Share on the season's page; revoking "
        "the link closes this too): rank, name, tournament points, tournaments played and "
        "best place, never home-session money, with the season's dates and points formula; "
        "a cursor page like every list (`cursor`, `page_size`, the `Link` header).\n\n"
        "Names and numbers only: no ids, e-mails or tokens, and each answer's schema lists "
        "every key it has (`additionalProperties: false`). No authentication is read. "
        "CORS allows `GET` from any origin on `/api/v1/public/` only (never with "
        "credentials), so a league website's own pages can `fetch()` them; every other "
        "path sends no CORS header, and a browser on another origin cannot read it. Each "
        "answer has an `ETag`: send it back in `If-None-Match` and the answer is 304 "
        "while nothing changed (the clock's ETag is weak: its `server_time` moves). Rate "
        "limited per client address (the `public` rate), with the RateLimit-* headers."
    )


def webhooks() -> str:
    return (
        "### Webhooks\n\n"
        "A club owner registers endpoints (`POST /api/v1/clubs/{id}/webhooks/`); each event "
        f"({', '.join(f'`{kind}`' for kind in outbox.EVENT_TYPES)}) is POSTed as JSON with "
        "`Bourre-Signature: t=<unix>,v1=<hex>`, the HMAC-SHA256 of `<t>.<body>` with the "
        "endpoint's secret. The server sends them with `manage.py deliver_webhooks` "
        "(`--loop` keeps it running). Redirects are not followed: answer the POST "
        "with a 2xx at the registered address.\n\n"
        f"**Retries**: {retry_schedule()}\n\n"
        "**Testing on your own machine**: endpoints must be `https://` on a public address "
        "and the default port. On a development server, `BOURRE_WEBHOOK_ALLOW_HTTP=1` "
        "(on by default with `DJANGO_DEBUG=1`) allows `http://`, and "
        "`BOURRE_WEBHOOK_ALLOW_PRIVATE=1` allows loopback and private addresses and other "
        "ports (`games/api/egress.py`; cloud metadata addresses stay refused). Then "
        "register e.g. `http://127.0.0.1:9000/hook`, run a receiver there that answers "
        "2xx, record a hand and run `manage.py deliver_webhooks` (it sends what is due "
        "and stops)."
    )


TOURNAMENT_DIAGRAM = """\
```
POST /tournaments/                                  create: status "registration"
  │   POST …/entries/                   register players (optionally checked in)
  │   POST …/entries/{entry}/check-in/  (withdraw, re-enter, rebuy, add-on)
  ▼
POST …/start/        ≥ 2 checked in: draw round 1, reveal the seed ──▶ "running"
  │
  │  ┌──────────── each round ─────────────────────────────────────────┐
  │  │ POST …/tables/{n}/hands/  (= /sessions/{session}/hands/)        │
  │  │    each hand moves the tournament on by itself: antes,          │
  │  │    eliminations, tables that end, balancing (freeze-out)        │
  │  │ POST …/balance/    the same catch-up, on request (idempotent)   │
  │  │ POST …/end-round/  end every table once its pot is won          │
  │  │                    ({"now": true}: at once, the pot stays dead) │
  │  └──────────── all tables ended: the round is "finished" ──────────┘
  │      table rounds: POST …/next-round/  draw the next round from those
  │                    who advanced (with byes) ──▶ the next round
  ▼
the final table ends (one player holds every chip, or `final_hands` are
played), or POST …/deal/ (every remaining player agreed) ──▶ "finished":
prizes paid from the pool, webhook `tournament.finished`
```"""


def tournaments() -> str:
    return (
        "### Tournaments: registration → running → rounds → finished\n\n"
        f"{TOURNAMENT_DIAGRAM}\n\n"
        "**When to call `balance`**: you rarely must. Every hand recorded at a table "
        "(through the table's hands or its session's) runs the same update after it is "
        "saved: the ante level, who is out, a table that ends, moving players between "
        "freeze-out tables. That update runs after the hand's transaction, and a failure "
        "there is logged, not returned: the hand stays recorded. Call `balance` when the "
        "bracket has not moved after a hand that should have moved it, before "
        "`next-round` if the last table's end did not finish the round, or whenever you "
        "want to be sure; when nothing is due it changes nothing (the same `version`). "
        "Every call answers the tournament with its `ETag`; the clock "
        "(`POST …/clock/`: start, pause, resume, adjust) only matters with "
        "`level_minutes`."
    )


def guide() -> str:
    """The newcomer's part of the API description (Markdown), as README.md has it."""
    return "\n\n".join([account_and_token(), public_data(), webhooks(), tournaments()])


TAGS = {
    "auth": "Tokens: get one with your username and password, list, revoke. Scopes: "
    "`read` or `write`.",
    "account": "Your own account's data.",
    "clubs": "Clubs you belong to.",
    "members": "A club's members, their roles and invites.",
    "players": "A club's roster (players need no account).",
    "sessions": "Cash sessions: seats, rules, buy-ins, cash-outs, closing.",
    "hands": "Recording, correcting and voiding hands; the public verifier.",
    "ledger": "Postings, balances, statistics and settlement.",
    "tab": "The club's tab: balances, the transfers that clear them, payments (record, "
    "confirm, reverse) and its history.",
    "webhooks": "Signed event deliveries to a club's own endpoints, with retries.",
    "tournaments": "Tournaments from registration to payouts (see the state machine above).",
    "seasons": "A club's seasons and their standings (tournament points, session nets).",
    "public": "Read-only data by the public pages' tokens: no login, CORS for any origin.",
}


def add_guide(
    result: dict[str, Any], generator: SchemaGenerator, request: Request | None, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the description with the account and token
    first (after its opening paragraph) and the other sections last, and a description
    for every tag the operations use (in the order above)."""
    info = result.setdefault("info", {})
    opening, _, conventions = info.get("description", "").strip().partition("\n\n")
    parts = [opening, account_and_token(), conventions, public_data(), webhooks(), tournaments()]
    info["description"] = "\n\n".join(part for part in parts if part)
    used = {
        tag
        for operations in result.get("paths", {}).values()
        for op in operations.values()
        if isinstance(op, dict)
        for tag in op.get("tags", [])
    }
    known = [{"name": name, "description": text} for name, text in TAGS.items() if name in used]
    rest = [{"name": name} for name in sorted(used - set(TAGS))]
    result["tags"] = known + rest
    return result
