"""Game review and the analysis board, as the arcade serves them (:mod:`flipgames.lab.review`
does the valuing; nothing here knows a game).

* ``GET /api/matches/{id}/review``: a finished match's review. The first request starts it
  as a background job (one at a time per server process, on a thread: the solvers and the
  compiled searches do the work) and answers ``{"status": "running", "done", "total"}``;
  later requests get the progress, then ``{"status": "done", "review": {...}}``. A finished
  review is stored in the database per match and revision (web/review_store.py), so it is
  made once for every server process and restart, and kept in memory too (the :data:`KEPT`
  most recent); while one process makes it, the others asked answer with its progress (its
  claim in the database). A failed one is made again after :data:`RETRY_SECONDS`. An unfinished
  match has no review (409 ``unavailable``): a review values positions with everything the
  game's end made public, so none exists before it.
* ``GET /api/analysis/{game}?position=TEXT&moves=A+B&options=JSON``: one position set up by
  the position notation and/or moves from it, with its value, best moves and (where exact)
  every legal action's value. A malformed position or move is 422 naming what is wrong.
* Pages: ``/analysis/{game}`` (the analysis board); the review is drawn on the replay page.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final

from flipgames.core.errors import FlipgamesError, PositionError, quote
from flipgames.core.game import Game, State
from flipgames.core.manifest import manifest_of
from flipgames.core.position import has_position_notation
from flipgames.lab.review import Evaluator, review_game
from flipgames.web.errors import ApiError
from flipgames.web.matches import Played
from flipgames.web.review_store import PROGRESS_SECONDS, Key, ReviewStore

log = logging.getLogger(__name__)

#: Finished reviews kept in memory (each a few kilobytes), the most recently asked last.
KEPT: Final = 128
#: Reviews waiting for the one worker thread; more are refused for now (503 ``busy``).
WAITING: Final = 8
#: The most actions the analysis board replays.
MAX_MOVES: Final = 1000
#: How long a failed review is answered as failed before the next request makes it again
#: (a fault that passes, such as a busy database, should not leave it failed for good).
RETRY_SECONDS: Final = 60.0
#: How long stopping the server waits for the review being made to notice; it stops at the
#: next position, so this only bounds a single slow one.
CLOSE_SECONDS: Final = 2.0


@dataclass
class Job:
    """One review being made or made: positions done of total, then the review or an error
    (and when it failed, by :func:`time.monotonic`)."""

    done: int = 0
    total: int = 0
    review: dict[str, Any] | None = None
    error: str | None = None
    failed_at: float = 0.0
    #: Made by another server process (its progress as last read from its claim).
    elsewhere: bool = False

    @property
    def making(self) -> bool:
        """Being made here, or waiting to be."""
        return self.review is None and self.error is None and not self.elsewhere

    def answer(self) -> dict[str, Any]:
        if self.review is not None:
            return {
                "status": "done",
                "done": self.total,
                "total": self.total,
                "review": self.review,
            }
        if self.error is not None:
            return {"status": "failed", "done": self.done, "total": self.total, "error": self.error}
        return {"status": "running", "done": self.done, "total": self.total}


class _Stopped(Exception):
    """The server is stopping: the review being made is dropped between two positions."""


class Reviews:
    """The review jobs of one server process: one worker thread, bounded memory, finished
    reviews read from and written to ``store`` (None: memory only).

    The app's lifespan closes it (:meth:`close`): the review being made stops at its next
    position, and the thread is a daemon, so no review holds up the server's exit.
    """

    def __init__(self, store: ReviewStore | None = None, origin: str = "") -> None:
        self.store = store
        #: This server process, as its claims name it (the match service's origin).
        self.origin = origin
        #: How long a failure is the answer before the next request tries again.
        self.retry_seconds = RETRY_SECONDS
        self._jobs: OrderedDict[Key, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[Key, Job, State, int] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    def job(self, key: Key, final: State, seed: int) -> Job:
        """The job for ``key`` (a match id and revision): kept here, else stored, else being
        made by another process (its progress), else started here (a failed one is started
        again once it has been failed for :attr:`retry_seconds`)."""
        with self._lock:
            found = self._current(key)
        if found is not None and not found.elsewhere:
            return found
        if self.store is None:
            with self._lock:
                return self._keep(key, self._current(key) or self._start(key, final, seed))
        claim = self.store.claim(key, self.origin, total=len(final.history) + 1)
        with self._lock:
            found = self._current(key)  # another request got here meanwhile
            if found is not None and not found.elsewhere:
                return found
            if claim.review is not None:
                job = Job(done=claim.done, total=claim.total, review=claim.review)
            elif not claim.mine:
                job = Job(done=claim.done, total=claim.total, elsewhere=True)
            else:
                try:
                    job = self._start(key, final, seed)
                except ApiError:
                    self._give_up(key)
                    raise
            return self._keep(key, job)

    def _keep(self, key: Key, job: Job) -> Job:
        self._jobs[key] = job
        self._jobs.move_to_end(key)
        while len(self._jobs) > KEPT:
            self._jobs.popitem(last=False)
        return job

    def _current(self, key: Key) -> Job | None:
        """The job kept for ``key``, unless it failed long enough ago to be tried again."""
        if self._stopping.is_set():
            raise ApiError(503, "busy", "the server is stopping: try again soon")
        found = self._jobs.get(key)
        if found is None:
            return None
        if found.error is not None and time.monotonic() - found.failed_at >= self.retry_seconds:
            return None
        self._jobs.move_to_end(key)
        return found

    def _start(self, key: Key, final: State, seed: int) -> Job:
        waiting = sum(1 for j in self._jobs.values() if j.making)
        if waiting >= WAITING:
            raise ApiError(503, "busy", "too many reviews are being made: try again soon")
        job = Job(total=len(final.history) + 1)
        self._queue.put((key, job, final, seed))
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="review", daemon=True)
            self._thread.start()
        return job

    def _work(self) -> None:
        while (item := self._queue.get()) is not None and not self._stopping.is_set():
            self._run(*item)

    def _run(self, key: Key, job: Job, final: State, seed: int) -> None:
        told = time.monotonic()

        def progress(done: int, total: int) -> None:
            nonlocal told
            if self._stopping.is_set():
                raise _Stopped
            job.done, job.total = done, total
            if self.store is not None and time.monotonic() - told >= PROGRESS_SECONDS:
                told = time.monotonic()
                self._tell(key, done, total)

        try:
            made = review_game(final, progress, seed).to_json()
        except _Stopped:
            self._give_up(key)
            return
        except Exception as exc:  # the job's failure is its answer; the server goes on
            log.error("the review of match %s failed", key[0], exc_info=True)
            job.failed_at = time.monotonic()
            job.error = f"the review could not be made ({type(exc).__name__})"
            self._give_up(key)  # another process asked makes it at once
            return
        job.review = made
        if self.store is None:
            return
        try:
            self.store.save(key, made)
        except Exception:  # kept in memory all the same; another process makes its own
            log.error("the review of match %s could not be stored", key[0], exc_info=True)
            self._give_up(key)

    def _tell(self, key: Key, done: int, total: int) -> None:
        """Write how far the review has got to its claim (a failed write only delays that)."""
        assert self.store is not None
        try:
            self.store.progress(key, self.origin, done, total)
        except Exception:
            log.warning("the progress of the review of match %s was not stored", key[0])

    def _give_up(self, key: Key) -> None:
        """End this process's claim on ``key`` (if it has one and a store)."""
        if self.store is None:
            return
        try:
            self.store.release(key, self.origin)
        except Exception:  # the claim goes stale instead, and is taken over then
            log.warning("the claim on the review of match %s stays until it is stale", key[0])

    def close(self, seconds: float = CLOSE_SECONDS) -> None:
        """Stop: refuse new reviews, drop the waiting ones (their claims given up), and wait
        up to ``seconds`` for the one being made to stop at its next position."""
        self._stopping.set()
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(seconds)
        with self._lock:
            unfinished = [key for key, job in self._jobs.items() if job.making]
        for key in unfinished:
            self._give_up(key)


def options_of(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        options = json.loads(text)
    except ValueError:
        options = None
    if not isinstance(options, dict):
        raise ApiError(422, "bad_option", f"options must be a JSON object, not {quote(text)}")
    return options


def set_up(game: Game, position: str | None, moves: str | None) -> State:
    """The state ``position`` (default: the start) and then ``moves`` name; 422 naming the
    fault otherwise."""
    state = game.new_initial_state()
    if position:
        if not has_position_notation(game):
            raise ApiError(
                422,
                "bad_position",
                f"{game.title} has no position notation (chance decides its positions): "
                "set it up by moves from the start",
            )
        try:
            state = game.from_position(position)
        except PositionError as exc:
            raise ApiError(422, "bad_position", f"position {quote(position)}: {exc}") from None
    texts = (moves or "").split()
    if len(texts) > MAX_MOVES:
        raise ApiError(422, "bad_request", f"at most {MAX_MOVES} moves, got {len(texts)}")
    for index, text in enumerate(texts):
        try:
            state = state.apply(state.parse_action(text))
        except FlipgamesError as exc:
            raise ApiError(
                422, "illegal_action", f"move {index + 1} ({quote(text)}): {exc}"
            ) from None
    return state


def board_view(state: State) -> dict[str, Any]:
    """What a board module needs to draw ``state`` (a match view's drawing fields)."""
    game = state.game
    mover = state.current_player
    live = mover >= 0 and not state.is_terminal()
    played = Played.of(state)
    return {
        "game": game.name,
        "title": game.title,
        "board": manifest_of(game).board,
        "options": dict(game.options),
        "mode": "analysis",
        "seat": mover if live else None,
        "seats": [mover] if live else [],
        "players": [name[:1].upper() + name[1:] for name in game.player_names],
        "ply": len(state.history),
        "current_player": mover,
        "status": "finished" if state.is_terminal() else "playing",
        "result": state.result(),
        "observation": state.observation(mover if live else None),
        "legal": [state.action_to_string(a) for a in state.legal_actions()] if live else [],
        "legal_actions": state.legal_actions_info() if live else [],
        "history": list(played.history),
        "moves": list(played.moves),
        "actors": list(played.actors),
        "last": {"action": played.history[-1], "by": played.actors[-1]} if played.history else None,
        "text": state.render(),
    }


# One analysis at a time per process: each is up to a second of CPU on a 2-core machine.
_analysis_lock = threading.Lock()


def analyse(state: State) -> dict[str, Any]:
    """``state`` with its value for the first player, its best moves and, where exact, each
    legal action's value."""
    with _analysis_lock:
        found = Evaluator(state.game).assess(state)
    actions = [
        {"action": state.action_to_string(action), "value": round(value, 4)}
        for action, value in sorted((found.actions or {}).items())
    ]
    return {
        "game": state.game.name,
        "options": dict(state.game.options),
        "position": state.position() if has_position_notation(state.game) else None,
        "moves": state.history_notation(),
        "to_move": state.current_player,
        "value": None if found.value is None else round(found.value, 4),
        "source": found.source,
        "exact": found.exact,
        "best": [state.action_to_string(a) for a in found.best],
        "actions": actions,
        # At a chance node the board has nothing to click: the outcomes are chosen from a list.
        "outcomes": [
            {"action": state.action_to_string(a), "probability": float(p)}
            for a, p in (state.chance_outcomes() if state.is_chance_node() else ())
        ],
        "view": board_view(state),
    }
