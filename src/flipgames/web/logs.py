"""Keep seat tokens out of the server's log.

A seat token in a link (``/play/{id}?token=...``), an API query (``?token=...``) or a
WebSocket address is the seat itself: whoever reads a log line with one could play it. uvicorn
logs request lines on two loggers, ``uvicorn.access`` (HTTP) and ``uvicorn.error`` (WebSocket
handshakes, ``"WebSocket /ws/matches/...?token=..." [accepted]``), so :func:`redact_server_logs`
puts :class:`RedactTokens` on both (this package logs match ids, never tokens).

A parameter is redacted by its *decoded* name, the name the server reads the seat from:
``?to%6Ben=...`` is ``token`` to Starlette, so it is redacted like ``?token=...``.

>>> record = logging.LogRecord("a", 20, "", 0, "%s", ("/play/x?token=secret&a=1",), None)
>>> RedactTokens().filter(record), record.getMessage()
(True, '/play/x?token=***&a=1')
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote_plus

#: One ``name=value`` pair of a query string as it appears in a logged request line.
_PAIR = re.compile(r"(?<=[?&;])([^=&;\s\"'#?]+)=([^&;\s\"'#]*)")

#: The loggers that may carry a request's address.
LOGGERS = ("uvicorn.access", "uvicorn.error")


def redact(text: str) -> str:
    """``text`` with the value of every query parameter named ``token`` (once decoded, in any
    case) replaced by ``***``.

    >>> redact('127.0.0.1:5 - "WebSocket /ws/matches/m?token=abc" [accepted]')
    '127.0.0.1:5 - "WebSocket /ws/matches/m?token=***" [accepted]'
    >>> redact("GET /api/matches/m?wait=true&to%6Ben=abc HTTP/1.1")
    'GET /api/matches/m?wait=true&to%6Ben=*** HTTP/1.1'
    """

    def hide(pair: re.Match[str]) -> str:
        if unquote_plus(pair.group(1)).strip().lower() != "token":
            return pair.group(0)
        return f"{pair.group(1)}=***"

    return _PAIR.sub(hide, text)


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
