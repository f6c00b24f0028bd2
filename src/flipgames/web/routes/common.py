"""What the routes share: the match service, the rate limits, the error entries of the
OpenAPI document, and sending a match to its sockets."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from starlette.requests import HTTPConnection

from flipgames.web import errors, schemas
from flipgames.web.aimoves import AiMoves
from flipgames.web.db import DatabaseBusy
from flipgames.web.errors import ApiError, CorruptMatchError
from flipgames.web.limits import RateLimit
from flipgames.web.matches import Loaded, MatchService
from flipgames.web.ws import Hub, Snapshot

log = logging.getLogger(__name__)


def _service(request: Request) -> MatchService:
    service: MatchService = request.app.state.service
    return service


Service = Annotated[MatchService, Depends(_service)]


def client_address(connection: HTTPConnection) -> str:
    """The address rate limits count against: the peer's (behind a reverse proxy every
    client shares the proxy's unless ``serve --proxy-headers`` trusts it: docs/web-operations.md,
    "What the server protects")."""
    return connection.client.host if connection.client else "unknown"


def limit_actions(connection: HTTPConnection) -> None:
    """Count one action (or undo, hint, analysis) against the client's rate limit."""
    limit: RateLimit = connection.app.state.action_limit
    limit.check(client_address(connection), "actions")


def limit_matches(request: Request) -> None:
    """Count one new match against the client's rate limit."""
    limit: RateLimit = request.app.state.match_limit
    limit.check(client_address(request), "new matches")


def limit_reads(connection: HTTPConnection) -> None:
    """Count one read of a match (or WebSocket open) against the client's rate limit."""
    limit: RateLimit = connection.app.state.read_limit
    limit.check(client_address(connection), "reads of matches")


ActionLimit = Depends(limit_actions)
ReadLimit = Depends(limit_reads)
Token = Annotated[str | None, Query(max_length=128, description="the seat token")]


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error responses an endpoint can give."""
    return {status: {"model": schemas.ErrorResponse} for status in statuses}


def snapshot(service: MatchService, loaded: Loaded) -> Snapshot:
    """``loaded`` as every viewer's view."""
    return Snapshot(loaded.revision, lambda viewer: service.view(loaded, viewer))


def loader(service: MatchService, match_id: str) -> Callable[[], Snapshot]:
    def load() -> Snapshot:
        return snapshot(service, service.load(match_id))

    return load


async def broadcast(request: Request, match_id: str, loaded: Loaded | None = None) -> None:
    """Send the match to its sockets: ``loaded`` when the route just committed it, else as
    the database has it."""
    hub: Hub = request.app.state.hub
    service = _service(request)
    await hub.broadcast(
        match_id, loader(service, match_id) if loaded is None else snapshot(service, loaded)
    )


async def taken_back(request: Request, match_id: str) -> None:
    """After an undo or a resignation: the move the computer was working out belongs to a
    position that is gone, so it is cancelled; then the match goes to its sockets."""
    ai_moves: AiMoves = request.app.state.ai_moves
    ai_moves.cancel(match_id)
    await broadcast(request, match_id)


def think(connection: HTTPConnection, view: schemas.View) -> None:
    """Have the computer work out its move if ``view`` says it is to move."""
    if view.thinking:
        ai_moves: AiMoves = connection.app.state.ai_moves
        ai_moves.start(view.id)


def as_api_error(exc: Exception) -> ApiError:
    """The API error a socket client gets for ``exc`` (what the HTTP handlers would answer)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, DatabaseBusy):
        log.error("refusing a socket request: %s", exc)
        return errors.busy()
    if isinstance(exc, CorruptMatchError):
        return errors.internal(corrupt=True)  # logged where it was found
    log.error("a socket request failed", exc_info=exc)
    return errors.internal()


def describe_errors(errors: Any) -> str:
    """One line naming each bad field, e.g. ``action: Field required``."""
    parts = []
    for error in errors:
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        parts.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    return "; ".join(parts) or "the request is not valid"
