"""Clocks for online matches: time per player plus an increment (e.g. 5+3), decided by the
server.

A clocked match stores, with the match's row, its time control, each player's remaining time
and the moment the running clock started (``clock_since_ms``, milliseconds since the epoch;
null while no clock runs). Every committed action moves the clock on (:func:`after_action`):
the player who acted is charged the time since their clock started and given the increment,
and the clock of the player to move starts. Rules:

- Each player's first decision is free: the clocks run once both players have made one (so
  an invited friend who has not opened the link yet does not lose on time).
- Nobody's clock runs at a chance node: chance outcomes are drawn by the server and never
  cost a player time.
- A player whose remaining time is used up loses on time (``ending`` "timeout", the other
  player wins). The server decides: whenever a match is read or acted on, and by a timer
  (:class:`FlagTimers`) when nobody moves. The flag is committed like any change, with the
  match's revision, so when several server processes see the same flag one commits it and
  the others find the match finished.

>>> from flipgames import make
>>> control = TimeControl(initial_ms=60_000, increment_ms=2_000)
>>> clock = start(control)
>>> game = make("flipflop-3x3")
>>> s0 = game.new_initial_state()
>>> s1 = s0.apply(s0.parse_action("b1xb3"))
>>> clock = after_action(clock, s0, s1, now_ms=1_000)  # White's first move: free
>>> clock.remaining_ms, clock.since_ms
((62000, 60000), None)
>>> s2 = s1.apply(s1.parse_action("a3xb3"))
>>> clock = after_action(clock, s1, s2, now_ms=5_000)  # Black's first move: free too
>>> clock.remaining_ms, clock.since_ms  # now White's clock runs
((62000, 62000), 5000)
>>> flag_due(clock, s2, over=False, now_ms=67_000)
True
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from flipgames.core.game import State
from flipgames.web import schemas

log = logging.getLogger(__name__)

#: Limits of a time control, in seconds: up to three hours a player, a minute's increment.
MAX_INITIAL_SECONDS = 3 * 60 * 60
MAX_INCREMENT_SECONDS = 60


@dataclass(frozen=True)
class TimeControl:
    """Time per player and the increment added after each of their moves (milliseconds)."""

    initial_ms: int
    increment_ms: int

    @property
    def label(self) -> str:
        """``5+3`` (minutes + seconds), or ``45s+0`` below a minute.

        >>> TimeControl(300_000, 3_000).label, TimeControl(5_000, 0).label
        ('5+3', '5s+0')
        """
        seconds, increment = self.initial_ms // 1000, self.increment_ms // 1000
        if seconds % 60 == 0:
            return f"{seconds // 60}+{increment}"
        return f"{seconds}s+{increment}"


@dataclass(frozen=True)
class Clock:
    """A match's clocks: the control, each player's time left when their clock last stopped,
    and when the running clock started (None: no clock runs)."""

    control: TimeControl
    remaining_ms: tuple[int, ...]
    since_ms: int | None


def control_from_request(request: schemas.ClockRequest | None) -> TimeControl | None:
    """The time control asked for when creating a match (seconds in the API)."""
    if request is None:
        return None
    return TimeControl(request.initial * 1000, request.increment * 1000)


def start(control: TimeControl, players: int = 2) -> Clock:
    """A new match's clocks: everyone has the initial time; none runs yet."""
    return Clock(control, (control.initial_ms,) * players, None)


def _runs(state: State, over: bool) -> bool:
    """Whether the clock of the player to move runs in ``state``: a decision (not chance),
    the match not over, and every player has made a decision already."""
    if over or state.is_chance_node() or state.current_player < 0:
        return False
    decided: set[int] = set()
    node: State | None = state.parent
    while node is not None and len(decided) < state.game.num_players:
        if not node.is_chance_node():
            decided.add(node.current_player)
        node = node.parent
    return len(decided) >= state.game.num_players


def after_action(clock: Clock, before: State, after: State, *, now_ms: int) -> Clock:
    """The clocks once the action leading from ``before`` to ``after`` is committed at
    ``now_ms``: the mover is charged the time their clock ran and given the increment (a
    chance outcome charges nobody); the clock of the player to move in ``after`` starts."""
    remaining = list(clock.remaining_ms)
    mover = before.current_player
    if not before.is_chance_node() and mover >= 0:
        if clock.since_ms is not None:
            remaining[mover] = max(0, remaining[mover] - (now_ms - clock.since_ms))
        remaining[mover] += clock.control.increment_ms
    over = after.is_terminal()
    return replace(
        clock, remaining_ms=tuple(remaining), since_ms=now_ms if _runs(after, over) else None
    )


def deadline_ms(clock: Clock, state: State, *, over: bool) -> int | None:
    """When the player to move runs out of time (epoch ms), or None when no clock runs."""
    if over or clock.since_ms is None or state.current_player < 0:
        return None
    return clock.since_ms + clock.remaining_ms[state.current_player]


def flag_due(clock: Clock, state: State, *, over: bool, now_ms: int) -> bool:
    """The player to move has used up their time."""
    deadline = deadline_ms(clock, state, over=over)
    return deadline is not None and now_ms >= deadline


def stop(clock: Clock, state: State, *, now_ms: int) -> Clock:
    """The clocks when the match ends otherwise (a resignation, an agreed draw) at
    ``now_ms``: the running one charged up to then, none running."""
    if clock.since_ms is None or state.current_player < 0:
        return replace(clock, since_ms=None)
    remaining = list(clock.remaining_ms)
    player = state.current_player
    remaining[player] = max(0, remaining[player] - (now_ms - clock.since_ms))
    return replace(clock, remaining_ms=tuple(remaining), since_ms=None)


def taken_back(clock: Clock, now: State, back: State, *, now_ms: int) -> Clock:
    """The clocks once the moves from ``back`` to ``now`` are taken back at ``now_ms``: the
    running clock charged up to then, and the clock of the player to move in ``back`` started
    (when clocks run there). Increments already given stay: a takeback is agreed by both."""
    return replace(stop(clock, now, now_ms=now_ms), since_ms=now_ms if _runs(back, False) else None)


def flagged(clock: Clock, state: State) -> Clock:
    """The clocks once the player to move has lost on time: their time is 0, none runs."""
    remaining = list(clock.remaining_ms)
    remaining[state.current_player] = 0
    return replace(clock, remaining_ms=tuple(remaining), since_ms=None)


def view(clock: Clock | None, state: State, *, over: bool, now_ms: int) -> schemas.ClockView | None:
    """The clocks as the page shows them at ``now_ms``: the running one counted down."""
    if clock is None:
        return None
    remaining = list(clock.remaining_ms)
    running = None
    if not over and clock.since_ms is not None and state.current_player >= 0:
        running = state.current_player
        remaining[running] = max(0, remaining[running] - (now_ms - clock.since_ms))
    return schemas.ClockView(
        initial_ms=clock.control.initial_ms,
        increment_ms=clock.control.increment_ms,
        label=clock.control.label,
        remaining_ms=remaining,
        running=running,
    )


def columns(clock: Clock | None) -> dict[str, Any]:
    """The match row's clock columns for ``clock`` (all null without one)."""
    if clock is None:
        return {}
    return {
        "clock_initial_ms": clock.control.initial_ms,
        "clock_increment_ms": clock.control.increment_ms,
        "clock_ms_0": clock.remaining_ms[0],
        "clock_ms_1": clock.remaining_ms[1],
        "clock_since_ms": clock.since_ms,
    }


def from_row(row: Any) -> Clock | None:
    """The clocks stored in a match row, or None for a match without clocks."""
    if row.clock_initial_ms is None:
        return None
    control = TimeControl(row.clock_initial_ms, row.clock_increment_ms)
    return Clock(control, (row.clock_ms_0, row.clock_ms_1), row.clock_since_ms)


def record_entry(clock: Clock | None) -> Mapping[str, object] | None:
    """What a match's record says about its clocks."""
    if clock is None:
        return None
    return {
        "control": clock.control.label,
        "initial_ms": clock.control.initial_ms,
        "increment_ms": clock.control.increment_ms,
        "remaining_ms": list(clock.remaining_ms),
    }


class FlagTimers:
    """One timer per match whose clock runs in this process, so a player who does not move
    loses on time when their time is up, not when someone next looks.

    :meth:`watch` is called (from any thread) with every match the service loads or changes;
    it (re)sets the match's timer to its flag deadline. When a timer fires, ``check`` (the
    service's load, which commits a due flag) runs in a thread and the match is broadcast.
    Several processes may each set a timer for one match: the flag is committed once (see
    the module's doc), the others find it done.
    """

    #: Fire this long after the deadline, so the flag is due when it is checked.
    MARGIN_SECONDS = 0.05

    def __init__(
        self,
        check: Callable[[str], Any],
        broadcast: Callable[[str], Awaitable[None]],
    ) -> None:
        self._check = check
        self._broadcast = broadcast
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timers: dict[str, tuple[int, asyncio.TimerHandle]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start setting timers on ``loop`` (the server's, once it runs)."""
        self._loop = loop

    def watch(self, match_id: str, deadline: int | None) -> None:
        """Set ``match_id``'s timer for ``deadline`` (epoch ms), or clear it (None)."""
        loop = self._loop
        if loop is None:
            return
        # A closed loop (the server is stopping) needs no timer.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._set, match_id, deadline)

    @property
    def pending(self) -> int:
        """How many matches have a timer set."""
        return len(self._timers)

    def _set(self, match_id: str, deadline: int | None) -> None:
        current = self._timers.get(match_id)
        if current is not None and current[0] == deadline:
            return
        if current is not None:
            current[1].cancel()
            del self._timers[match_id]
        if deadline is None or self._loop is None:
            return
        delay = max(0.0, (deadline - now_ms()) / 1000) + self.MARGIN_SECONDS
        handle = self._loop.call_later(delay, self._fire, match_id)
        self._timers[match_id] = (deadline, handle)

    def _fire(self, match_id: str) -> None:
        self._timers.pop(match_id, None)
        task = asyncio.get_running_loop().create_task(self._flag(match_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _flag(self, match_id: str) -> None:
        try:
            await asyncio.to_thread(self._check, match_id)  # commits the flag when due
            await self._broadcast(match_id)
        except Exception:
            # The next read of the match decides the flag instead; the server goes on.
            log.exception("checking the clock of match %s failed", match_id)

    async def close(self) -> None:
        for _, handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def now_ms() -> int:
    """Wall-clock time in milliseconds since the epoch: clocks are stored as such, so server
    processes on several hosts must keep their clocks in step (NTP). Tests replace it."""
    return time.time_ns() // 1_000_000
