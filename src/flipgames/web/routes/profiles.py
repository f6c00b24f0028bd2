"""Profiles and leaderboards: the API (``GET /api/players/{name}``, ``GET
/api/leaderboard/{game}``) and their pages (``/players/{name}``, ``/leaderboard``). The
queries are web/community/profiles.py's; nothing here writes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from flipgames.core.errors import UnknownGameError
from flipgames.core.registry import game_class
from flipgames.web import schemas
from flipgames.web.community import profiles
from flipgames.web.errors import ApiError
from flipgames.web.routes.common import ReadLimit, Service, responses
from flipgames.web.routes.pages import page

router = APIRouter()

#: A player's name as an address part (names are 3-20 characters; longer is no name).
Name = Annotated[str, Path(max_length=32)]


@router.get("/api/players/{name}", responses=responses(404, 422, 429), dependencies=[ReadLimit])
async def player_profile(
    name: Name,
    service: Service,
    page_number: Annotated[int, Query(alias="page", ge=1, le=10_000)] = 1,
) -> schemas.Profile:
    """A player's ratings per game, rating history, wins/draws/losses per game and finished
    games (20 a page, newest first); 404 ``unknown_player`` for no such (or a deleted)
    player."""
    return await run_in_threadpool(
        service.transactions.run,
        lambda connection: profiles.profile(connection, name, page=page_number),
        read_only=True,
    )


@router.get("/api/leaderboard/{game}", responses=responses(404, 429), dependencies=[ReadLimit])
async def game_leaderboard(game: str, service: Service) -> schemas.Leaderboard:
    """The game's 50 best established ratings (rating deviation at most 110) of accounts."""
    try:
        name = game_class(game).name
    except UnknownGameError as exc:
        raise ApiError(404, "unknown_game", str(exc)) from None
    leaders = await run_in_threadpool(
        service.transactions.run,
        lambda connection: profiles.leaderboard(connection, name),
        read_only=True,
    )
    return schemas.Leaderboard(game=name, players=leaders)


@router.get("/players/{name}", include_in_schema=False)
def profile_page(request: Request, name: Name) -> HTMLResponse:
    """The profile page (its script reads the profile from the API: an unknown name is said
    there)."""
    return page(request, "profile.html")


@router.get("/leaderboard", include_in_schema=False)
def leaderboard_page(request: Request) -> HTMLResponse:
    return page(request, "leaderboard.html")
