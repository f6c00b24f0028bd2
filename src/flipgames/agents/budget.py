"""Move budgets in CPU seconds with a wall-clock cap: the clock ``hard`` thinks by.

A budget in wall-clock seconds gives a move whatever CPU the machine spares: on a busy server
``hard`` searched a tenth of what it does on a quiet core. :class:`MoveClock` counts the CPU
seconds of the *thinking thread* instead (``time.thread_time``: the search runs in the thread
that calls ``choose``, in one thread, with no helper threads of its own; a web AI worker is a
process whose other thread only watches its lifeline, and ``process_time`` would count that
too), so every move gets the same search on any machine and under any load. So that a player
still gets a move in bounded time when the process gets almost no CPU, wall-clock time counts
too, scaled so that the budget is also spent after :func:`wall_cap` wall seconds (three times
the budget and half a second more): whichever comes first ends the move.

The search drivers read a clock as a plain ``() -> float`` and subtract readings; a
:class:`MoveClock` reading is the larger of the CPU seconds and the scaled wall seconds since
the move began, so the clock must know when a move begins: an agent's ``choose`` runs inside
:func:`timing` of its clock, which starts the move unless one is running already (an agent
calling another agent's search inside its own move keeps the one move).

>>> clock = MoveClock(0.9)
>>> wall_cap(0.9)
3.2
>>> with timing(clock):
...     0 <= clock() < 0.9
True
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Final

#: The wall-clock cap of a move: ``WALL_FACTOR`` times its CPU budget plus ``WALL_EXTRA`` s.
WALL_FACTOR: Final = 3.0
WALL_EXTRA: Final = 0.5


def wall_cap(seconds: float) -> float:
    """The wall-clock seconds after which a move of ``seconds`` CPU seconds ends anyway."""
    return round(WALL_FACTOR * seconds + WALL_EXTRA, 6)


class MoveClock:
    """CPU seconds of the calling thread since the move began, or the wall seconds since then
    scaled by ``seconds / wall_cap(seconds)`` where that is more (see the module docstring).
    ``cpu`` and ``wall`` are the clocks read (tests give their own)."""

    def __init__(
        self,
        seconds: float,
        cpu: Callable[[], float] = time.thread_time,
        wall: Callable[[], float] = time.perf_counter,
    ) -> None:
        if seconds <= 0:
            raise ValueError(f"a move budget needs a positive number of seconds, got {seconds}")
        self.seconds = seconds
        self.cpu, self.wall = cpu, wall
        self._scale = seconds / wall_cap(seconds)
        self._cpu_start, self._wall_start = cpu(), wall()
        self._depth = 0

    def __call__(self) -> float:
        cpu = self.cpu() - self._cpu_start
        wall = self.wall() - self._wall_start
        return max(cpu, wall * self._scale)

    @contextlib.contextmanager
    def move(self) -> Iterator[None]:
        """One move: the clock reads from zero at its start (an enclosing move goes on)."""
        if self._depth == 0:
            self._cpu_start, self._wall_start = self.cpu(), self.wall()
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1


def timing(clock: Callable[[], float]) -> AbstractContextManager[None]:
    """A move of ``clock`` where it is a :class:`MoveClock`; nothing for a plain clock (a
    match at equal CPU time may pass ``time.process_time``, a test its own)."""
    return clock.move() if isinstance(clock, MoveClock) else contextlib.nullcontext()
