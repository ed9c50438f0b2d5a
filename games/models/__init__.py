from .club import Club, Invite, Membership, Player, Role
from .session import GameSession, Hand, HandAction, Seat, SessionEvent
from .tokens import ApiToken

__all__ = [
    "ApiToken",
    "Club",
    "GameSession",
    "Hand",
    "HandAction",
    "Invite",
    "Membership",
    "Player",
    "Role",
    "Seat",
    "SessionEvent",
]
