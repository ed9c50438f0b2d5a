"""The prize ledger joins the ledger app.

The tables already exist (games 0004); this takes over their model state from the games app
(games 0006) and renames them to ledger_*. No row is touched."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_prize_ledger"),
        ("ledger", "0003_settlement_mark"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="PrizeAccount",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("entrant", "Entrant"),
                                    ("pool", "Prize pool"),
                                    ("house", "House (fees)"),
                                ],
                                max_length=8,
                            ),
                        ),
                        (
                            "player",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to="games.player",
                            ),
                        ),
                        (
                            "tournament",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="prize_accounts",
                                to="games.tournament",
                            ),
                        ),
                    ],
                    options={"db_table": "games_prizeaccount"},
                ),
                migrations.CreateModel(
                    name="PrizePosting",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("buy_in", "Buy-in"),
                                    ("fee", "Fee"),
                                    ("refund", "Refund (withdrawn)"),
                                    ("prize", "Prize"),
                                ],
                                max_length=8,
                            ),
                        ),
                        ("memo", models.CharField(blank=True, default="", max_length=200)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "player",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to="games.player",
                            ),
                        ),
                        (
                            "tournament",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="prize_postings",
                                to="games.tournament",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_prizeposting",
                        "ordering": ["id"],
                    },
                ),
                migrations.CreateModel(
                    name="PrizeLeg",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("amount", models.BigIntegerField()),
                        (
                            "account",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="legs",
                                to="ledger.prizeaccount",
                            ),
                        ),
                        (
                            "posting",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="legs",
                                to="ledger.prizeposting",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_prizeleg",
                        "ordering": ["posting", "id"],
                    },
                ),
                migrations.AddConstraint(
                    model_name="prizeaccount",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(("kind", "entrant")),
                        fields=("tournament", "player"),
                        name="one_prize_account_per_entrant",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="prizeaccount",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(("kind__in", ["pool", "house"])),
                        fields=("tournament", "kind"),
                        name="one_pool_and_house_per_tournament",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="prizeaccount",
                    constraint=models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("kind", "entrant"), ("player__isnull", False)),
                            models.Q(
                                models.Q(("kind", "entrant"), _negated=True),
                                ("player__isnull", True),
                            ),
                            _connector="OR",
                        ),
                        name="prize_account_player_iff_entrant",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="prizeleg",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("amount", 0), _negated=True), name="prize_leg_nonzero"
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterModelTable(name="prizeaccount", table=None),
        migrations.AlterModelTable(name="prizeposting", table=None),
        migrations.AlterModelTable(name="prizeleg", table=None),
    ]
