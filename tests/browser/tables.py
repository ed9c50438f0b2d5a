"""Tables the browser tests set up the same way in several files."""

from games.models import Player, Role
from ledger import postings
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory


def digital_table():
    """A scorekeeper and a digital session of ann, ben, cal and dee (dee deals); the
    caller decides which seats are bots."""
    keeper = UserFactory(username="keeper")
    club = ClubFactory(name="Phone Club")
    MembershipFactory(club=club, user=keeper, role=Role.SCOREKEEPER)
    players = [Player.objects.create(club=club, name=n) for n in ("ann", "ben", "cal", "dee")]
    session = postings.start_session(
        club=club, name="Phones", players=players, dealer=players[3], rules={},
        currency=club.currency, user=keeper, mode="digital",
    )  # fmt: skip
    return keeper, session


def six_handed(club, players, user, rules):
    """The four seated players plus eve and fay, fay dealing: six seats on the record form."""
    six = [*players, PlayerFactory(club=club, name="eve"), PlayerFactory(club=club, name="fay")]
    return postings.start_session(
        club=club,
        name="Six-handed",
        players=six,
        dealer=six[-1],
        rules=rules,
        currency=club.currency,
        user=user,
    )
