"""Keep seat tokens out of the server's log.

A seat token in a link (``/play/{id}?token=...``), an API query (``?token=...``) or a
WebSocket address is the seat itself: whoever reads a log line with one could play it. uvicorn
logs request lines on two loggers, ``uvicorn.access`` (HTTP) and ``uvicorn.error`` (WebSocket
handshakes, ``"WebSocket /ws/matches/...?token=..." [accepted]``), so :func:`redact_server_logs`
puts :class:`RedactTokens` on both (this package logs match ids, never tokens).

>>> record = logging.LogRecord("a", 20, "", 0, "%s", ("/play/x?token=secret&a=1",), None)
>>> RedactTokens().filter(record), record.getMessage()
(True, '/play/x?token=***&a=1')
"""

from __future__ import annotations

import logging
import re

_TOKEN = re.compile(r"(token=)[^&\s\"'#]+", re.IGNORECASE)

#: The loggers that may carry a request's address.
LOGGERS = ("uvicorn.access", "uvicorn.error")


def redact(text: str) -> str:
    """``text`` with every ``token=...`` value replaced by ``***``.

    >>> redact('127.0.0.1:5 - "WebSocket /ws/matches/m?token=abc" [accepted]')
    '127.0.0.1:5 - "WebSocket /ws/matches/m?token=***" [accepted]'
    """
    return _TOKEN.sub(r"\1***", text)


class RedactTokens(logging.Filter):
    """Rewrite a record's message and arguments so no seat token survives formatting."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            args = record.args.items()
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in args}
        return True


def redact_server_logs() -> None:
    """Put one :class:`RedactTokens` on each of :data:`LOGGERS` (again is a no-op)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
