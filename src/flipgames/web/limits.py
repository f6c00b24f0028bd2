"""Per-client rate limits: token buckets keyed by the client's address.

Each bucket holds up to ``burst`` tokens and refills at ``per_minute`` tokens a minute; a
request takes one token or is refused with 429 ``rate_limited`` and how long to wait. The
arcade keeps four: match creation; everything that makes the server work for a seat (actions
over HTTP or the WebSocket, undo, hints, analysis, puzzle answers); reads of a match and
WebSocket opens; and puzzles asked for (each new one is a solver search). ``per_minute=0``
turns a limit off.

The client is the address the connection comes from. uvicorn would take it from an
``X-Forwarded-For`` header sent from a trusted address (by default 127.0.0.1), so any local
client could pose as any number of others; ``flipgames serve`` trusts such headers only with
``--proxy-headers`` (docs/web-operations.md, "What the server protects").

>>> now = [0.0]
>>> limit = RateLimit(per_minute=60, burst=2, clock=lambda: now[0])
>>> limit.take("10.0.0.1"), limit.take("10.0.0.1"), limit.take("10.0.0.1")
(0.0, 0.0, 1.0)
>>> limit.take("10.0.0.2")  # another client has its own bucket
0.0
>>> now[0] = 1.0  # a second later one token is back
>>> limit.take("10.0.0.1")
0.0
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from flipgames.web.errors import ApiError

#: Buckets kept at most; past this, full (idle) buckets are forgotten first.
MAX_CLIENTS = 10_000


class RateLimit:
    """Token buckets per client: ``take(client)`` is 0.0 when allowed, else seconds to wait."""

    def __init__(
        self, per_minute: int, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_minute = per_minute
        self.burst = max(1, burst)
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, when)
        self._lock = threading.Lock()

    def take(self, client: str) -> float:
        if self.per_minute <= 0:
            return 0.0
        rate = self.per_minute / 60.0
        now = self.clock()
        with self._lock:
            tokens, when = self._buckets.get(client, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - when) * rate)
            if tokens >= 1.0:
                self._buckets[client] = (tokens - 1.0, now)
                if len(self._buckets) > MAX_CLIENTS:
                    self._forget_idle(now, rate)
                return 0.0
            self._buckets[client] = (tokens, now)
            return (1.0 - tokens) / rate

    def check(self, client: str, what: str) -> None:
        """Take a token for ``client`` or raise 429 ``rate_limited`` naming ``what``."""
        wait = self.take(client)
        if wait > 0:
            seconds = max(1, round(wait + 0.5))
            raise ApiError(
                429,
                "rate_limited",
                f"too many {what} from your address: at most {self.per_minute} a minute; "
                f"try again in {seconds} s",
                headers={"Retry-After": str(seconds)},
            )

    def _forget_idle(self, now: float, rate: float) -> None:
        for client, (tokens, when) in list(self._buckets.items()):
            if tokens + (now - when) * rate >= self.burst:
                del self._buckets[client]
