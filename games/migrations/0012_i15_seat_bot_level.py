"""A bot seat's level: easy, normal (the heuristic bot) or expert (the search bot)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0011_i16_api"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="bot_level",
            field=models.CharField(
                choices=[("easy", "Easy"), ("normal", "Normal"), ("expert", "Expert")],
                default="normal",
                help_text="How well the bot plays this seat (games.engine.expert.make_bot).",
                max_length=8,
            ),
        ),
    ]
