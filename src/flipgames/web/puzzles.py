"""The arcade's puzzle page and its API: a puzzle to solve by clicking the board, checked by
the server against the exact solvers (:mod:`flipgames.lab.puzzles`).

Puzzle ``n`` of a game is :func:`~flipgames.lab.puzzles.make_puzzles` with seed ``n`` (so the
page's puzzle 7 is ``flipgames puzzle GAME --seed 7``). Until the player answers, nothing the
server sends reveals the answer or any move's value: the puzzle's view is the position as the
player to move sees it in a match. The answer endpoint takes one legal action and says whether
it is the answer, with every first move's value.

* ``GET /api/puzzles``: the games with puzzles (name, title, kind of puzzle).
* ``GET /api/puzzles/{game}/{n}``: the puzzle's question, its ``position`` in the game's
  position notation (null for a game without one), and a match-like ``view`` that the game's
  board module draws (``observation``, ``legal``, ``legal_actions``, ``history``, ...).
* ``POST /api/puzzles/{game}/{n}/answer`` with ``{"action": "c1-b2"}``: ``correct``, the
  ``answer``, the chosen move's value, the ``explanation``, every move's ``values`` and the
  ``next`` puzzle's number. An action that is not legal there is refused (422), like any
  other bad input, and reveals nothing.
* Puzzles asked for are rate-limited per client (``FLIPGAMES_PUZZLES_PER_MINUTE``), answers
  share the actions' limit.
* Pages: ``/puzzles`` (FlipFlop 3x3) and ``/puzzles/{game}``; ``?n=7`` picks the puzzle.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from flipgames.core.errors import FlipgamesError
from flipgames.core.manifest import manifest_for
from flipgames.core.registry import make
from flipgames.lab.puzzles import PUZZLE_GAMES, Puzzle, make_puzzles
from flipgames.web.boardview import board_view
from flipgames.web.errors import ApiError
from flipgames.web.limits import RateLimit
from flipgames.web.routes.common import ActionLimit, client_address
from flipgames.web.routes.pages import missing, page

router = APIRouter()

#: Puzzle numbers run from 1 to this (each is a seed).
MAX_NUMBER = 1_000_000
#: Puzzles kept in memory (each is a few kilobytes), most recently used last.
CACHE_SIZE = 256

_cache: OrderedDict[tuple[str, int], Puzzle] = OrderedDict()
# One puzzle is made at a time: the Rubik's Flip search shares one transposition table, and a
# second request for the same puzzle should find it made rather than make it again.
_lock = threading.Lock()

Number = Annotated[int, Path(ge=1, le=MAX_NUMBER, description="the puzzle's number (its seed)")]


class AnswerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str = Field(max_length=64, description="the answer in the game's notation")


def puzzle(game: str, number: int) -> Puzzle:
    """Puzzle ``number`` of ``game`` (made once, then kept), or a 404 ApiError."""
    if game not in PUZZLE_GAMES:
        raise ApiError(
            404,
            "not_found",
            f"no puzzles for {game!r}: puzzles exist for {', '.join(PUZZLE_GAMES)}",
        )
    key = (game, number)
    with _lock:
        found = _cache.get(key)
        if found is None:
            try:
                (found,) = make_puzzles(make(game), 1, number)
            except FlipgamesError as exc:
                raise ApiError(409, "unavailable", str(exc)) from None
            _cache[key] = found
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
        _cache.move_to_end(key)
        return found


def view(found: Puzzle, number: int) -> dict[str, Any]:
    """What the page needs to draw and ask the puzzle: no answer, no values."""
    game = make(found.game, found.options)
    return {
        **found.public_json(),
        "number": number,
        "title": game.title,
        "view": board_view(found.state(game), "puzzle", found.to_move),
    }


def check(found: Puzzle, action: str) -> dict[str, Any]:
    """The verdict on ``action`` (a legal action of the puzzle's position, in notation)."""
    state = found.state(make(found.game, found.options))
    try:
        text = state.action_to_string(state.parse_action(action))
    except FlipgamesError as exc:
        raise ApiError(422, "bad_request", f"{action!r} is not a move here: {exc}") from None
    chosen = next(v for v in found.values if v.action == text)
    return {
        "correct": text == found.answer,
        "action": text,
        "answer": found.answer,
        "value": chosen.describe(),
        "explanation": found.explanation(),
        "values": [v.to_json() for v in found.values],
    }


@router.get("/api/puzzles")
def list_puzzle_games() -> list[dict[str, str]]:
    """The games with puzzles, in order, with the lobby's picture of each."""
    return [
        {
            "name": name,
            "title": make(name).title,
            "kind": _label(name),
            "art": manifest_for(name).art,
        }
        for name in PUZZLE_GAMES
    ]


def _label(name: str) -> str:
    """The kind of puzzle ``name`` has, in the list's words (its manifest's label)."""
    spec = manifest_for(name).puzzles
    assert spec is not None  # PUZZLE_GAMES lists only games with puzzles
    return spec.label


def limit_puzzles(request: Request) -> None:
    """Count one puzzle asked for against the client's rate limit: a puzzle not in the cache
    is a solver search, so a client must not ask for thousands."""
    limit: RateLimit = request.app.state.puzzle_limit
    limit.check(client_address(request), "puzzles")


@router.get("/api/puzzles/{game}/{number}", dependencies=[Depends(limit_puzzles)])
async def get_puzzle(game: str, number: Number) -> dict[str, Any]:
    """Puzzle ``number`` of ``game``: the question and the position, never the answer."""
    found = await run_in_threadpool(puzzle, game, number)
    shown = view(found, number)
    shown["next"] = number + 1 if number < MAX_NUMBER else 1
    return shown


@router.post("/api/puzzles/{game}/{number}/answer", dependencies=[ActionLimit])
async def answer_puzzle(game: str, number: Number, body: AnswerRequest) -> dict[str, Any]:
    """Check an answer: right or wrong, with every first move's exact value."""
    found = await run_in_threadpool(puzzle, game, number)
    verdict = check(found, body.action)
    verdict["next"] = number + 1 if number < MAX_NUMBER else 1
    return verdict


@router.get("/puzzles", include_in_schema=False)
def puzzles_page(request: Request) -> HTMLResponse:
    return page(request, "puzzle.html")


@router.get("/puzzles/{game}", include_in_schema=False)
def game_puzzles_page(request: Request, game: str) -> HTMLResponse:
    if game not in PUZZLE_GAMES:
        return missing(f"there are no puzzles for {game!r}")
    return page(request, "puzzle.html")
