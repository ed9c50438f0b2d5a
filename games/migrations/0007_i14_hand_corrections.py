from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_prize_ledger"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="corrections",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
