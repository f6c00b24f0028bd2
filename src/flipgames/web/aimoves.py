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
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from starlette.concurrency import run_in_threadpool

from flipgames.web import engines
from flipgames.web.aipool import AiError, AiPool
from flipgames.web.service import MatchService

log = logging.getLogger(__name__)


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
        job = None
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
                except asyncio.CancelledError:
                    # Free the claim so a process where someone watches can take it at once.
                    await asyncio.shield(run_in_threadpool(service.release_ai, loaded))
                    raise
                if await run_in_threadpool(service.commit_ai, match_id, job, move) is None:
                    return  # the match moved on (an undo): the move is not wanted
                await self._broadcast(match_id)
        except asyncio.CancelledError:
            raise
        except AiError as exc:
            log.error("the computer's move in match %s failed: %s", match_id, exc)
            if job is not None and engines.engine_name(job.level) is not None:
                # An outside engine that fails loses the match rather than hang it.
                detail = str(exc).removeprefix("EngineError: ")
                if await run_in_threadpool(service.forfeit, match_id, job, detail):
                    await self._broadcast(match_id)
        except Exception:
            # The next load of the match tries again; the server goes on.
            log.exception("the computer's move in match %s failed", match_id)
