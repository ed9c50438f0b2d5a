from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_i18_tournament_round2"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="corrections",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
