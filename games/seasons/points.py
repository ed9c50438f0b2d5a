"""A season's points for one finish in one tournament (pure: standard library only).

The published default is the square-root formula many home poker leagues use:

    points = round_half_up(10 × √field ÷ √place)

where ``field`` is how many players took part in the tournament (every entry that
played: the ones with a finishing place) and ``place`` is the player's finishing place
(1 for the winner; players who share a place get the same points). Rounded half up to a
whole number.

Why this one:
- a bigger field is worth more, but with diminishing returns: a 40-player event gives its
  winner twice the points of a 10-player one, not four times, so one big night does not
  decide a season;
- every finisher earns something, and the top places earn clearly more (1st ≈ 1.41 × 2nd
  ≈ 1.73 × 3rd) without the steep cliff of "points only for the paid places";
- it needs nothing but place and field: buy-ins (charity nights, free rolls) and prize
  pools do not tilt the season.

Each season may change it through four parameters, never free code:

    points = round_half_up(scale × field ** field_exponent ÷ place ** place_exponent)
             + points_for_playing

with ``scale`` and ``points_for_playing`` whole numbers from 0 to 1000 and the exponents
decimals from 0 to 2 in steps of 0.01 (the default: 10, 0.50, 0.50, 0). A field exponent
of 0 makes every event worth the same; a place exponent of 1 makes 2nd place worth half
of 1st.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

__all__ = ["DEFAULT", "LIMITS", "Formula", "points"]


@dataclass(frozen=True)
class Formula:
    scale: int = 10
    field_exponent: Decimal = Decimal("0.50")
    place_exponent: Decimal = Decimal("0.50")
    points_for_playing: int = 0


DEFAULT = Formula()

# The bounds the season form holds each parameter to (inclusive).
LIMITS: dict[str, tuple[Decimal, Decimal]] = {
    "points_scale": (Decimal(0), Decimal(1000)),
    "field_exponent": (Decimal(0), Decimal(2)),
    "place_exponent": (Decimal(0), Decimal(2)),
    "points_for_playing": (Decimal(0), Decimal(1000)),
}


def points(formula: Formula, place: int, field: int) -> int:
    """The points of finishing ``place`` out of ``field`` players (both at least 1)."""
    if place < 1 or field < 1:
        raise ValueError(f"place {place} of a field of {field}")
    raw = (
        formula.scale
        * math.pow(field, float(formula.field_exponent))
        / math.pow(place, float(formula.place_exponent))
    )
    # Half up, not Python's round() (half to even): 2.5 is 3, as a person rounds.
    rounded = Decimal(repr(raw)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(rounded) + formula.points_for_playing
