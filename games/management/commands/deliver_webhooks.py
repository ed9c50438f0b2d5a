"""Deliver the webhook outbox: `manage.py deliver_webhooks` once, or `--loop` forever."""

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.api import outbox


class Command(BaseCommand):
    help = "Send due webhook deliveries (signed POSTs, retried with exponential backoff)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loop", action="store_true", help="Keep running.")
        parser.add_argument(
            "--interval", type=float, default=2.0, help="Seconds between rounds with --loop."
        )
        parser.add_argument("--batch", type=int, default=100, help="Deliveries per round.")

    def handle(self, *args: Any, loop: bool, interval: float, batch: int, **options: Any) -> None:
        while True:
            sent = 0
            while True:  # drain what is due now (an endpoint's next event becomes due
                # as soon as the one before it is delivered)
                done = outbox.deliver_due(limit=batch)
                sent += done
                if not done:
                    break
            if sent or not loop:
                self.stdout.write(f"{sent} deliveries attempted")
            if not loop:
                return
            time.sleep(interval)
