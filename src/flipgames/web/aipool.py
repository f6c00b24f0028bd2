"""A bounded pool of worker processes that choose the AI's moves, off the server's event loop.

An AI move can take seconds of CPU (``hard``, ``perfect`` on a cold cache); computed in the
server process it would hold the GIL and stall every other request. Here each move is a job
for one of at most ``size`` worker processes: the server sends the match's game, options,
actions and level down a pipe and awaits the answer without blocking its loop (the pipe is
watched by the loop itself). More jobs than workers wait their turn.

A job that is cancelled while a worker runs it (nobody is watching the match any more) kills
that worker, so its CPU is freed at once; the next job starts a fresh one. Workers are forked
from a small server process that has already imported flipgames (``forkserver``), so starting
one costs milliseconds, not an interpreter's start-up. A worker whose server dies (even by
``kill -9``) ends with it, whether idle or in the middle of a move (web/lifeline.py); the
fork server ends when its last worker has.

>>> import asyncio
>>> async def demo() -> str:
...     pool = AiPool(1)
...     try:
...         return await pool.choose(AiJob("flipflop-3x3", {}, ("b1xb3",), "easy", 7))
...     finally:
...         pool.close()
>>> from flipgames import make
>>> state = make("flipflop-3x3").state_from_actions(["b1xb3"])
>>> from concurrent.futures import ThreadPoolExecutor
>>> with ThreadPoolExecutor(1) as thread:  # a loop of its own, whatever runs in this thread
...     move = thread.submit(asyncio.run, demo()).result()
>>> move in [state.action_to_string(a) for a in state.legal_actions()]
True
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any

log = logging.getLogger(__name__)

#: Imported once by the fork server, so every worker starts with them loaded.
_PRELOAD = ["flipgames.web.aipool", "flipgames.web.ai", "flipgames.core.registry"]


class AiError(RuntimeError):
    """A worker failed to choose a move (its message says why) or died."""


@dataclass(frozen=True)
class AiJob:
    """Everything a worker needs to choose the move at the end of ``actions``."""

    game: str
    options: dict[str, Any]
    actions: tuple[str, ...]
    level: str
    seed: int
    #: An outside engine's level (``engine:NAME``): the command the operator registered for
    #: it (None: not offered by this server), and how long it may take to answer.
    engine: str | None = None
    engine_seconds: float = 30.0

    def choose(self, solutions: Any) -> str:
        """The move, chosen as the server always has: the level's agent seeded by the match's
        seed and the ply, so a move recomputed after a restart is the same move. An outside
        engine is asked instead (web/engines.py)."""
        from flipgames.core.registry import make
        from flipgames.web import engines

        if engines.engine_name(self.level) is not None:
            return engines.choose_with_engine(self)

        state = make(self.game, self.options).state_from_actions(list(self.actions))
        rng = random.Random(f"{self.seed}:{len(self.actions)}:ai")
        action = solutions.agent(state.game, self.level, rng).choose(state)
        return state.action_to_string(action)


def _worker_main(connection: Connection) -> None:
    """A worker's life: answer jobs until the pipe closes (the server went away); a worker
    in the middle of a move notices it too, and ends at once."""
    from flipgames.web.ai import Solutions
    from flipgames.web.lifeline import die_with_peer

    die_with_peer(connection.fileno())

    solutions = Solutions()  # a solved game is loaded once per worker, then kept
    while True:
        try:
            job: AiJob = connection.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[str, str] = ("ok", job.choose(solutions))
        except Exception as exc:  # the server logs it; the worker stays usable
            answer = ("error", f"{type(exc).__name__}: {exc}")
        try:
            connection.send(answer)
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, context: BaseContext) -> None:
        ours, theirs = multiprocessing.Pipe()
        self.connection = ours
        self.process: BaseProcess = context.Process(  # type: ignore[attr-defined]
            target=_worker_main, args=(theirs,), daemon=True, name="flipgames-ai"
        )
        self.process.start()
        theirs.close()

    async def run(self, job: AiJob) -> str:
        loop = asyncio.get_running_loop()
        readable: asyncio.Future[None] = loop.create_future()
        fd = self.connection.fileno()
        self.connection.send(job)

        def on_readable() -> None:
            if not readable.done():
                readable.set_result(None)

        loop.add_reader(fd, on_readable)
        try:
            await readable
        finally:
            loop.remove_reader(fd)
        try:
            kind, value = self.connection.recv()
        except (EOFError, OSError):
            raise AiError("an AI worker died while choosing a move") from None
        if kind != "ok":
            raise AiError(value)
        return str(value)

    def kill(self) -> None:
        self.connection.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)


class AiPool:
    """At most ``size`` worker processes choosing AI moves; :meth:`choose` awaits one.

    Use it from one event loop (the server's); :meth:`close` kills every worker.
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"an AI pool needs at least one worker, not {size}")
        self.size = size
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(_PRELOAD)
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._slots: asyncio.Semaphore | None = None

    async def choose(self, job: AiJob) -> str:
        """The move ``job`` asks for. Cancelling the caller kills the worker running it."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.size)
        async with self._slots:
            worker = self._idle.pop() if self._idle else await self._start()
            try:
                move = await worker.run(job)
            except BaseException:
                # Cancelled (nobody is watching), or the worker is broken: never reuse it.
                self._all.discard(worker)
                worker.kill()
                raise
            self._idle.append(worker)
            return move

    async def _start(self) -> _Worker:
        worker = await asyncio.to_thread(_Worker, self._context)
        self._all.add(worker)
        return worker

    @property
    def pids(self) -> list[int]:
        """The process ids of the workers alive now."""
        return [w.process.pid for w in self._all if w.process.pid is not None]

    @property
    def busy(self) -> int:
        """How many workers are choosing a move now."""
        return len(self._all) - len(self._idle)

    def close(self) -> None:
        for worker in self._all:
            worker.kill()
        self._all.clear()
        self._idle.clear()
