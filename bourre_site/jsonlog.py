"""One JSON object per log line (``DJANGO_LOG_FORMAT=json``), for log collectors."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        for key, value in vars(record).items():
            # Extras a caller passed (logger.info(..., extra={...})), and Django's
            # status_code; the request object itself is not serialisable.
            if key not in _STANDARD and key != "request":
                data[key] = value if isinstance(value, str | int | float | bool) else repr(value)
        return json.dumps(data, ensure_ascii=False)
