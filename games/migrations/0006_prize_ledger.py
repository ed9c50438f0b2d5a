"""The prize ledger's models move to the ledger app (state only; see ledger 0004)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_ledger_projection"),
    ]

    # The prize ledger moved to the ledger app (ledger.models), where every money table lives.
    # Only Django's model state moves here; the tables stay, and ledger 0004 renames them.
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="prizeleg",
                    name="account",
                ),
                migrations.RemoveField(
                    model_name="prizeleg",
                    name="posting",
                ),
                migrations.RemoveField(
                    model_name="prizeposting",
                    name="created_by",
                ),
                migrations.RemoveField(
                    model_name="prizeposting",
                    name="player",
                ),
                migrations.RemoveField(
                    model_name="prizeposting",
                    name="tournament",
                ),
                migrations.DeleteModel(
                    name="PrizeAccount",
                ),
                migrations.DeleteModel(
                    name="PrizeLeg",
                ),
                migrations.DeleteModel(
                    name="PrizePosting",
                ),
            ],
            database_operations=[],
        ),
    ]
