"""The game review's and the analysis board's routes (web/review.py does the work; the API
is in docs/web-api.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from flipgames.core.registry import game_names
from flipgames.web.errors import unavailable
from flipgames.web.matches.create import make_game
from flipgames.web.review import Reviews, analyse, options_of, set_up
from flipgames.web.routes.common import ActionLimit, ReadLimit, Service, responses
from flipgames.web.routes.pages import missing, page

router = APIRouter()


@router.get(
    "/api/matches/{match_id}/review",
    responses=responses(404, 409, 429, 503),
    dependencies=[ReadLimit],
)
def match_review(match_id: str, service: Service, request: Request) -> dict[str, Any]:
    """A finished match's review: each position's value for the first player, the best moves
    and the marked mistakes (a background job: poll until ``status`` is ``done``)."""
    loaded = service.load(match_id)
    if not loaded.over:
        raise unavailable("a match can be reviewed once it is finished")
    key = (match_id, loaded.revision)
    reviews: Reviews = request.app.state.reviews  # made by the app, closed by its lifespan
    return reviews.job(key, loaded.state, loaded.match.seed).answer()


@router.get("/api/analysis/{game}", responses=responses(404, 422, 429), dependencies=[ActionLimit])
async def analysis_board(
    game: str,
    position: Annotated[str | None, Query(max_length=200)] = None,
    moves: Annotated[str | None, Query(max_length=20_000)] = None,
    options: Annotated[str | None, Query(max_length=2_000)] = None,
) -> dict[str, Any]:
    """One position (the position notation, then moves from it) with its value for the first
    player, its best moves and, where exact, every legal action's value."""
    made = make_game(game, options_of(options))
    state = set_up(made, position, moves)
    return await run_in_threadpool(analyse, state)


@router.get("/analysis/{game}", include_in_schema=False)
def analysis_page(request: Request, game: str) -> HTMLResponse:
    if game not in game_names():
        return missing("there is no such game")
    return page(request, "analysis.html")
