"""The computer's moves, made in the background: a human move is answered and broadcast at
once, and the AI's reply follows as its own broadcast when a worker has chosen it.

:class:`AiMoves` keeps at most one task per match. A task asks the service what the computer
must decide (:meth:`MatchService.ai_job`), awaits a worker of the :class:`AiPool`, commits the
answer (:meth:`MatchService.commit_ai`, which drops it if the match moved on meanwhile) and
broadcasts; it repeats while the computer is to move (a chance outcome may give it the move
again). When the last WebSocket of a match closes, its task is cancelled and the worker's CPU
freed; whoever next opens or reads the match starts it again (:meth:`AiMoves.start`), as
does a server restarted between a human move and the reply. With several server processes
on one database, a task first claims the move in the database (:meth:`MatchService.claim_ai`),
so it is worked out once.

A move that fails never leaves the match thinking: the claim is released at once, a built-in
level is tried once more (a worker killed under it succeeds the second time), and then the
computer forfeits (``ending`` "forfeit", the human wins, ``ending_detail`` says why in words);
an outside engine forfeits at its first failure.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from starlette.concurrency import run_in_threadpool

from flipgames.core.errors import FlipgamesError
from flipgames.web import engines
from flipgames.web.aipool import AiError, AiJob, AiPool
from flipgames.web.matches import MatchService

log = logging.getLogger(__name__)

#: How often a built-in level's failed move is tried again before the computer forfeits.
BUILT_IN_RETRIES = 1


class AiMoves:
    """One background task per match whose computer is to move."""

    def __init__(
        self,
        service: MatchService,
        pool: AiPool,
        broadcast: Callable[[str], Awaitable[None]],
    ) -> None:
        self._service = service
        self._pool = pool
        self._broadcast = broadcast
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def start(self, match_id: str) -> None:
        """Make the computer's moves in ``match_id`` while it is to move (unless a task for
        that match is running already). Call it when a view says ``thinking``."""
        if match_id in self._tasks:
            return
        task = asyncio.get_running_loop().create_task(self._run(match_id))
        self._tasks[match_id] = task

        def forget(_: object) -> None:
            if self._tasks.get(match_id) is task:
                del self._tasks[match_id]

        task.add_done_callback(forget)

    def cancel(self, match_id: str) -> None:
        """Nobody watches ``match_id`` any more: stop working out its move."""
        task = self._tasks.pop(match_id, None)
        if task is not None:
            task.cancel()

    async def wait(self, match_id: str, seconds: float) -> None:
        """Wait (at most ``seconds``) for the computer's moves in ``match_id`` to be made
        (here, or by another server process: then the match is read again every 0.1 s)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            task = self._tasks.get(match_id)
            if task is not None:
                await asyncio.wait({task}, timeout=deadline - loop.time())
            loaded = await run_in_threadpool(self._service.load, match_id)
            if self._service.ai_job(loaded) is None:
                return
            await asyncio.sleep(0.1)

    @property
    def running(self) -> int:
        """How many matches have a move being worked out."""
        return len(self._tasks)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, match_id: str) -> None:
        service = self._service
        failures = 0
        try:
            while True:
                loaded = await run_in_threadpool(service.load, match_id)
                job = service.ai_job(loaded)
                if job is None:
                    return
                if not await run_in_threadpool(service.claim_ai, loaded):
                    return  # another server process is working it out
                try:
                    move = await self._pool.choose(job)
                    committed = await run_in_threadpool(service.commit_ai, match_id, job, move)
                except asyncio.CancelledError:
                    # Free the claim so a process where someone watches can take it at once.
                    await asyncio.shield(run_in_threadpool(service.release_ai, loaded))
                    raise
                except (AiError, FlipgamesError) as exc:
                    # The worker failed or died, or chose a move the rules refuse. The claim
                    # is freed either way: held, it would leave the match thinking for its
                    # two minutes, and then fail the same way again.
                    await run_in_threadpool(service.release_ai, loaded)
                    failures += 1
                    log.error("the computer's move in match %s failed: %s", match_id, exc)
                    if failures <= self._retries(job):
                        continue  # a killed worker, say: a fresh one tries again
                    await self._forfeit(match_id, job, exc)
                    return
                if committed is None:
                    return  # the match moved on (an undo): the move is not wanted
                failures = 0
                await self._broadcast(match_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            # Not the computer's fault (the database, say): the next read of the match starts
            # its move again, and the server goes on.
            log.exception("the computer's move in match %s failed", match_id)

    @staticmethod
    def _retries(job: AiJob) -> int:
        """How often a failed move is tried again before the computer forfeits: a built-in
        level once (a worker killed under it, say, succeeds the second time); an outside
        engine never (it has had its time, and a broken program stays broken)."""
        return 0 if engines.engine_name(job.level) is not None else BUILT_IN_RETRIES

    async def _forfeit(self, match_id: str, job: AiJob, exc: Exception) -> None:
        """End the match, won by the human, with the reason in words."""
        if engines.engine_name(job.level) is not None:
            detail = str(exc).removeprefix("EngineError: ")
        else:
            # The worker's own message (a Python exception) is for the log, not for players.
            detail = f"the {job.level} level could not choose a move, twice"
        if await run_in_threadpool(self._service.forfeit, match_id, job, detail):
            await self._broadcast(match_id)
