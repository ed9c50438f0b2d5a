"""The games' models. Their words people read (choices' labels, help texts, verbose
names) are marked with gettext_lazy, or pgettext_lazy where a short word needs its context
("session status", "tournament status"...): a page shows a label (``get_status_display``,
a form's choices) in the reader's language, while the stored value, the CSVs and the API
keep the code. Marking a text needs no migration (its English stays the same); changing
its English, or adding a verbose name, does (migration 0018 named the ``name`` fields).
"""

from .api import IdempotencyRecord, WebhookDelivery, WebhookEndpoint, WebhookEvent
from .club import Club, Invite, Membership, Player, Role
from .coach import CoachReview
from .counter import RateCounter
from .payment import PaymentHandles
from .preference import LanguagePreference
from .season import Season
from .session import GameSession, Hand, HandAction, Seat, SessionEvent
from .share import ShareLink
from .tokens import ApiToken
from .tournament import (
    Entry,
    Round,
    SeatMove,
    Tournament,
    TournamentTable,
)

__all__ = [
    "ApiToken",
    "Club",
    "CoachReview",
    "Entry",
    "GameSession",
    "Hand",
    "HandAction",
    "IdempotencyRecord",
    "Invite",
    "LanguagePreference",
    "Membership",
    "PaymentHandles",
    "Player",
    "RateCounter",
    "Role",
    "Round",
    "Seat",
    "Season",
    "SeatMove",
    "SessionEvent",
    "ShareLink",
    "Tournament",
    "TournamentTable",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEvent",
]
