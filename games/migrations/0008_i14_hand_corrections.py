from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_i12_share_links_seat_claims"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="corrections",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
