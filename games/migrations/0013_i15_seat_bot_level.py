"""A bot seat's level: easy, normal (the heuristic bot) or expert (the search bot)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0012_i20_hand_in_progress_index"),
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
