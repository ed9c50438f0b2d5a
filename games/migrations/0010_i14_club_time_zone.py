from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_i14_hand_corrections"),
    ]

    operations = [
        migrations.AddField(
            model_name="club",
            name="time_zone",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
