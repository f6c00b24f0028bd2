"""The HTML pages: each a file under ``templates/`` filled into the one base template
(``web/templating.py``) and otherwise served as it is (the pages' scripts read the match id
and token from the address). A match's page is answered 404 when there is no such match."""

from __future__ import annotations

import html

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from flipgames.core.registry import game_names
from flipgames.web import templating
from flipgames.web.errors import ApiError
from flipgames.web.matches import MatchService
from flipgames.web.settings import Settings

router = APIRouter(include_in_schema=False)


def page(request: Request, name: str) -> HTMLResponse:
    settings: Settings = request.app.state.settings
    try:
        return HTMLResponse(templating.render(settings.templates_dir, name))
    except FileNotFoundError:
        return missing(f"the page {name} is not installed")


def missing(message: str, *, status: int = 404, title: str = "Not found") -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{html.escape(message)}</p>"
        '<p><a href="/">Back to the arcade</a></p>',
        status_code=status,
    )


@router.get("/")
def lobby(request: Request) -> HTMLResponse:
    return page(request, "lobby.html")


def _match_page(request: Request, match_id: str, name: str) -> HTMLResponse:
    service: MatchService = request.app.state.service
    try:
        service.load(match_id)
    except ApiError as exc:
        if exc.code == "rules_changed":
            return missing(exc.message, status=409, title="Played under other rules")
        return missing("there is no such match")
    return page(request, name)


@router.get("/play/{match_id}")
def play_page(request: Request, match_id: str) -> HTMLResponse:
    return _match_page(request, match_id, "game.html")


@router.get("/watch/{match_id}")
def watch_page(request: Request, match_id: str) -> HTMLResponse:
    return _match_page(request, match_id, "game.html")


@router.get("/replay/{match_id}")
def replay_page(request: Request, match_id: str) -> HTMLResponse:
    return _match_page(request, match_id, "replay.html")


@router.get("/account")
def account_page(request: Request) -> HTMLResponse:
    """Who is signed in: sign out, change the password, delete the account."""
    return page(request, "account.html")


@router.get("/rules")
def rules_index() -> RedirectResponse:
    """The site's "Rules" link: the first game's rules, whose page lists every game's."""
    return RedirectResponse(f"/rules/{game_names()[0]}", status_code=307)


@router.get("/rules/{game}")
def rules_page(request: Request, game: str) -> HTMLResponse:
    if game not in game_names():
        return missing("there is no such game")
    return page(request, "rules.html")
