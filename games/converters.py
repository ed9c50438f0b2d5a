"""URL converter for database ids: digits that fit a 64-bit primary key.

Django's `int` converter accepts any length, and an id past 2**63 − 1 then overflows the
database lookup (a 500). With `<id:...>` such a URL simply does not match: a 404.
"""


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(int(value))
