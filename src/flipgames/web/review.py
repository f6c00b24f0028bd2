"""Game review and the analysis board, as the arcade serves them (:mod:`flipgames.lab.review`
does the valuing; nothing here knows a game).

* ``GET /api/matches/{id}/review``: a finished match's review. The first request starts it
  as a background job (one at a time per server process, on a thread: the solvers and the
  compiled searches do the work) and answers ``{"status": "running", "done", "total"}``;
  later requests get the progress, then ``{"status": "done", "review": {...}}``. Reviews are
  kept in memory per match and revision (the :data:`KEPT` most recent), so a match reviewed
  once is answered at once. An unfinished match has no review (409 ``unavailable``): a review
  values positions with everything the game's end made public, so none exists before it.
* ``GET /api/analysis/{game}?position=TEXT&moves=A+B&options=JSON``: one position set up by
  the position notation and/or moves from it, with its value, best moves and (where exact)
  every legal action's value. A malformed position or move is 422 naming what is wrong.
* Pages: ``/analysis/{game}`` (the analysis board); the review is drawn on the replay page.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from flipgames.core.errors import FlipgamesError, PositionError, quote
from flipgames.core.game import Game, State
from flipgames.core.manifest import manifest_of
from flipgames.core.position import has_position_notation
from flipgames.lab.review import Evaluator, review_game
from flipgames.web.errors import ApiError
from flipgames.web.matches import Played

#: Finished reviews kept in memory (each a few kilobytes), the most recently asked last.
KEPT: Final = 128
#: Reviews waiting for the one worker thread; more are refused for now (503 ``busy``).
WAITING: Final = 8
#: The most actions the analysis board replays.
MAX_MOVES: Final = 1000


@dataclass
class Job:
    """One review being made or made: positions done of total, then the review or an error."""

    done: int = 0
    total: int = 0
    review: dict[str, Any] | None = None
    error: str | None = None

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


class Reviews:
    """The review jobs of one server process: one worker thread, bounded memory."""

    def __init__(self) -> None:
        self._jobs: OrderedDict[tuple[str, int], Job] = OrderedDict()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="review")

    def job(self, key: tuple[str, int], final: State, seed: int) -> Job:
        """The job for ``key`` (a match id and revision), started if it is new."""
        with self._lock:
            found = self._jobs.get(key)
            if found is not None:
                self._jobs.move_to_end(key)
                return found
            waiting = sum(1 for j in self._jobs.values() if j.review is None and j.error is None)
            if waiting >= WAITING:
                raise ApiError(503, "busy", "too many reviews are being made: try again soon")
            job = self._jobs[key] = Job(total=len(final.history) + 1)
            while len(self._jobs) > KEPT:
                self._jobs.popitem(last=False)
        self._pool.submit(self._run, job, final, seed)
        return job

    @staticmethod
    def _run(job: Job, final: State, seed: int) -> None:
        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        try:
            job.review = review_game(final, progress, seed).to_json()
        except Exception as exc:  # the job's failure is its answer; the server goes on
            job.error = f"the review could not be made ({type(exc).__name__})"

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


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
