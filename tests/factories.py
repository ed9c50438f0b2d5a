import factory
from django.contrib.auth import get_user_model

from games.models import Club, GameSession, Membership, Player, Role, Seat
from games.money import Currency

# Most tests count in whole units: their amounts are the engine's integers as written
# ("ante 1" is $1). A club of real stakes (cents) is made with an explicit
# ``currency=CURRENCIES["USD"]`` (tests/games/test_real_stakes.py).
WHOLE_DOLLARS = Currency("USD", 0, "$")

PASSWORD = "correct-horse-battery"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    name = factory.Sequence(lambda n: f"Club {n}")
    currency = WHOLE_DOLLARS


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    club = factory.SubFactory(ClubFactory)
    user = factory.SubFactory(UserFactory)
    role = Role.MEMBER


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    club = factory.SubFactory(ClubFactory)
    name = factory.Sequence(lambda n: f"player{n}")


class GameSessionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GameSession

    club = factory.SubFactory(ClubFactory)
    name = factory.Sequence(lambda n: f"Session {n}")
    rules = factory.LazyFunction(dict)


class SeatFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Seat

    session = factory.SubFactory(GameSessionFactory)
    player = factory.SubFactory(PlayerFactory, club=factory.SelfAttribute("..session.club"))
    position = factory.Sequence(lambda n: n)


def seeded(tournament_id: int, seed: str) -> int:
    """A tournament created with this draw seed (as if made at creation, before anyone
    registered): tests that replay a known draw use it. Returns the id."""
    from games.engine.tournament import commitment
    from games.models import Tournament

    Tournament.objects.filter(pk=tournament_id).update(seed=seed, seed_commitment=commitment(seed))
    return tournament_id
