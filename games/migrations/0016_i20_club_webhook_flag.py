"""Club.has_webhooks (issue #20): whether the club has an active webhook endpoint, so
recording a hand in a club without endpoints asks for none. Set here from the endpoints
that exist; WebhookEndpoint.save/delete keep it from then on."""

from django.db import migrations, models
from django.db.models import Exists, OuterRef


def set_flags(apps, schema_editor):
    Club = apps.get_model("games", "Club")
    WebhookEndpoint = apps.get_model("games", "WebhookEndpoint")
    Club.objects.update(
        has_webhooks=Exists(WebhookEndpoint.objects.filter(club_id=OuterRef("pk"), active=True))
    )


class Migration(migrations.Migration):
    dependencies = [("games", "0015_i14_real_stakes")]

    operations = [
        migrations.AddField(
            model_name="club",
            name="has_webhooks",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(set_flags, migrations.RunPython.noop),
    ]
