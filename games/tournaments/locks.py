"""The tournament row lock every tournament write starts with (see ``service``), and
the entry lookup the writes share."""

from games.engine.tournament import TournamentError
from games.models import Entry, Tournament


def locked(tournament_id: int) -> Tournament:
    # The row lock serialises every change to one tournament (see games.tournaments.service).
    # Only this row (of=self): locking the joined club row too would block every insert
    # that references the club (a hand's postings at another table) until we commit,
    # while we may be waiting for that table's session lock — a deadlock. NO KEY UPDATE,
    # because the key never changes and inserts that reference the row may go on.
    return (
        Tournament.objects.select_for_update(no_key=True, of=("self",))
        .select_related("club")
        .get(pk=tournament_id)
    )


def entry_of(t: Tournament, entry_id: int) -> Entry:
    entry = Entry.objects.select_related("player").filter(pk=entry_id, tournament=t).first()
    if entry is None:
        raise TournamentError(
            "No such entry in this tournament.", code="not_found", message_id="no_entry"
        )
    return entry
