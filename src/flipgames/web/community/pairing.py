"""Quick pairing's rule: which two players waiting in the pool may be paired now. The pool
itself (its rows, claiming a pair in one transaction) is :mod:`.lobby`'s.

Each waiting player accepts a rating difference of :data:`RANGE_START` points, widened by
:data:`RANGE_STEP` every :data:`RANGE_EVERY` seconds of waiting; two players fit when they
want the same game, time control and kind of game (rated or casual) and their ratings differ
by at most both of their ranges. A player with no rating for the game counts as the start
rating."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flipgames.web.community.glicko2 import START_RATING
from flipgames.web.db import aware

#: The rating range a player accepts, widened with waiting time.
RANGE_START = 100
RANGE_STEP = 50
RANGE_EVERY = 5.0


def pairing_range(waited_seconds: float) -> int:
    """The rating difference a player accepts after waiting this long in the pool.

    >>> pairing_range(0), pairing_range(4.9), pairing_range(5), pairing_range(30)
    (100, 100, 150, 400)
    """
    return RANGE_START + RANGE_STEP * int(max(0.0, waited_seconds) // RANGE_EVERY)


def fits(first: Any, second: Any, now: datetime) -> bool:
    """Two pool rows (``player_id``, ``game``, ``rated``, the clock's ``clock_initial_ms`` and
    ``clock_increment_ms``, ``rating`` or None, ``created_at``) can be paired at ``now``."""
    if first.player_id == second.player_id or (first.game, first.rated) != (
        second.game,
        second.rated,
    ):
        return False
    if (first.clock_initial_ms, first.clock_increment_ms) != (
        second.clock_initial_ms,
        second.clock_increment_ms,
    ):
        return False
    gap = abs(_rating(first) - _rating(second))
    ranges = [
        pairing_range((now - aware(entry.created_at)).total_seconds()) for entry in (first, second)
    ]
    return gap <= min(ranges)


def _rating(row: Any) -> float:
    return START_RATING if row.rating is None else float(row.rating)
