"""URL converter for database ids: digits that fit a 64-bit primary key; ``parse_id`` reads
a posted one the same way.

Django's `int` converter accepts any length, and an id past 2**63 − 1 then overflows the
database lookup (a 500). With `<id:...>` such a URL simply does not match: a 404.
"""


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(int(value))


def parse_id(text: object) -> int | None:
    """A posted id, version or hand number read as the converter reads one in a URL: up
    to 18 ASCII digits, else None. ``str.isdigit()`` is not enough: it takes "²" and "③"
    (which ``int()`` refuses: a 500) and any length (which overflows the lookup)."""
    if isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= 18:
        return int(text)
    return None
