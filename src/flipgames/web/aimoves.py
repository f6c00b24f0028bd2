"""The computer's moves, made in the background: a human move is answered and broadcast at
once, and the AI's reply follows as its own broadcast when a worker has chosen it.

:class:`AiMoves` keeps at most one task per match. A task asks the service what the computer
must decide (:meth:`MatchService.ai_job`), awaits a worker of the :class:`AiPool`, commits the
answer (:meth:`MatchService.commit_ai`, which drops it if the match moved on meanwhile) and
broadcasts; it repeats while the computer is to move (a chance outcome may give it the move
again). When the last WebSocket of a match closes, its task is cancelled and the worker's CPU
freed; whoever next opens or reads the match starts it again (:meth:`AiMoves.start`), as
does a server restarted between a human move and the reply.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from starlette.concurrency import run_in_threadpool

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
        """Wait (at most ``seconds``) for the computer's moves in ``match_id`` to be made."""
        task = self._tasks.get(match_id)
        if task is not None:
            await asyncio.wait({task}, timeout=seconds)

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
        try:
            while True:
                loaded = await run_in_threadpool(service.load, match_id)
                job = service.ai_job(loaded)
                if job is None:
                    return
                move = await self._pool.choose(job)
                if await run_in_threadpool(service.commit_ai, match_id, job, move) is None:
                    return  # the match moved on (an undo): the move is not wanted
                await self._broadcast(match_id)
        except asyncio.CancelledError:
            raise
        except AiError as exc:
            log.error("the computer's move in match %s failed: %s", match_id, exc)
        except Exception:
            # The next load of the match tries again; the server goes on.
            log.exception("the computer's move in match %s failed", match_id)
