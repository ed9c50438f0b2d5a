"""Club.has_webhooks goes (issue #31): the ledger stopped reading it (its saving was about
1 % of a record POST, within the machine's noise), so the flag that
0016_i20_club_webhook_flag added and endpoint writes kept is no longer kept."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("games", "0019_i20_no_duplicate_indexes")]

    operations = [migrations.RemoveField(model_name="club", name="has_webhooks")]
