"""Issue #33: a webhook delivery's `last_error` is a category (WebhookDelivery.Error),
never the network's own text; the texts stored before are turned into categories."""

from django.db import migrations, models


def _categories(apps, schema_editor):
    delivery = apps.get_model("games", "WebhookDelivery")
    kept = ("", "timeout", "refused", "tls", "address", "redirect", "status", "dns", "connection")
    stale = delivery.objects.exclude(last_error__in=kept)
    # "HTTP 500" was an answer's status (its code is in last_status_code); anything else was
    # an exception's text: "Connection refused", "WRONG_VERSION_NUMBER", timeouts…
    stale.filter(last_error__startswith="HTTP ").update(last_error="status")
    stale.update(last_error="connection")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0020_i31_no_webhook_flag"),
    ]

    operations = [
        migrations.AlterField(
            model_name="webhookdelivery",
            name="last_error",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "none"),
                    ("timeout", "no answer in time"),
                    ("refused", "connection refused"),
                    ("tls", "TLS or certificate failure"),
                    ("address", "address not allowed"),
                    ("redirect", "redirect (not followed)"),
                    ("status", "HTTP error status"),
                    ("dns", "host name not found"),
                    ("connection", "connection failed"),
                ],
                default="",
                max_length=300,
            ),
        ),
        migrations.RunPython(_categories, migrations.RunPython.noop),
    ]
