"""Club.archived_at (issue #33 item 6): a club whose last owner deleted their account and
the club with it, when its books had to stay (ledger rows are never deleted)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0021_i33_hooks")]

    operations = [
        migrations.AddField(
            model_name="club",
            name="archived_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
    ]
