from .api import IdempotencyRecord, WebhookDelivery, WebhookEndpoint, WebhookEvent
from .club import Club, Invite, Membership, Player, Role
from .preference import LanguagePreference
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
    "Entry",
    "GameSession",
    "Hand",
    "HandAction",
    "IdempotencyRecord",
    "Invite",
    "LanguagePreference",
    "Membership",
    "Player",
    "Role",
    "Round",
    "Seat",
    "SeatMove",
    "SessionEvent",
    "ShareLink",
    "Tournament",
    "TournamentTable",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEvent",
]
