"""HTTP and WebSocket routes: parse, call the match service, answer, broadcast. No rules here.

The API is described in docs/web-api.md; pages are the files under ``templates/``, each filled
into the one base template (``web/templating.py``) and otherwise served as they are (their
scripts read the match id and token from the address).
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, WebSocket
from fastapi.responses import HTMLResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocketDisconnect

from flipgames.core.manifest import manifest_for
from flipgames.core.registry import game_names
from flipgames.web import clocks, errors, schemas, templating
from flipgames.web.aimoves import AiMoves
from flipgames.web.db import DatabaseBusy
from flipgames.web.errors import ApiError, CorruptMatchError
from flipgames.web.limits import RateLimit
from flipgames.web.matches import Loaded, MatchService, computer_to_move
from flipgames.web.presence import Presence
from flipgames.web.settings import Settings
from flipgames.web.ws import Connection, Hub, Snapshot

log = logging.getLogger(__name__)

#: The longest a ``wait=true`` read waits for the computer's move.
WAIT_SECONDS = 30.0

api = APIRouter()
pages = APIRouter(include_in_schema=False)


def _service(request: Request) -> MatchService:
    service: MatchService = request.app.state.service
    return service


Service = Annotated[MatchService, Depends(_service)]


def client_address(connection: HTTPConnection) -> str:
    """The address rate limits count against: the peer's (behind a reverse proxy every
    client shares the proxy's unless ``serve --proxy-headers`` trusts it: docs/web.md, "Rate
    limits")."""
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


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error responses an endpoint can give."""
    return {status: {"model": schemas.ErrorResponse} for status in statuses}


def snapshot(service: MatchService, loaded: Loaded) -> Snapshot:
    """``loaded`` as every viewer's view."""
    return Snapshot(loaded.revision, lambda viewer: service.view(loaded, viewer))


def loader(service: MatchService, match_id: str) -> Callable[[], Snapshot]:
    def load() -> Snapshot:
        return snapshot(service, service.load(match_id))

    return load


async def _broadcast(request: Request, match_id: str, loaded: Loaded | None = None) -> None:
    """Send the match to its sockets: ``loaded`` when the route just committed it, else as
    the database has it."""
    hub: Hub = request.app.state.hub
    service = _service(request)
    await hub.broadcast(
        match_id, loader(service, match_id) if loaded is None else snapshot(service, loaded)
    )


async def _taken_back(request: Request, match_id: str) -> None:
    """After an undo or a resignation: the move the computer was working out belongs to a
    position that is gone, so it is cancelled; then the match goes to its sockets."""
    ai_moves: AiMoves = request.app.state.ai_moves
    ai_moves.cancel(match_id)
    await _broadcast(request, match_id)


def _think(connection: HTTPConnection, view: schemas.View) -> None:
    """Have the computer work out its move if ``view`` says it is to move."""
    if view.thinking:
        ai_moves: AiMoves = connection.app.state.ai_moves
        ai_moves.start(view.id)


# --- games ------------------------------------------------------------------------------------


@api.get("/healthz", response_class=PlainTextResponse)
def healthz() -> str:
    """Liveness: answers ``ok``."""
    return "ok"


@api.get("/api/games")
def list_games(service: Service) -> list[schemas.GameInfo]:
    """Every game with its players, options, AI levels and whether it is solved."""
    games = []
    for name in game_names():
        game = service.game(name)
        manifest = manifest_for(name)
        options = [
            schemas.OptionInfo(
                name=o.name,
                default=o.default,
                choices=list(o.choices) if o.choices is not None else None,
                minimum=o.minimum,
                maximum=o.maximum,
                help=o.help,
                label=o.title(),
                choice_words=[o.words(c) for c in o.choices] if o.choices is not None else None,
            )
            for o in game.option_spec
        ]
        games.append(
            schemas.GameInfo(
                name=name,
                title=game.title,
                board=manifest.board,
                pitch=manifest.pitch,
                art=manifest.art,
                players=list(game.player_names),
                has_chance=game.has_chance,
                options=options,
                levels=service.solutions.levels(game),
                solved=service.solutions.ready(game),
                engines=[e.name for e in service.engines.values() if name in e.games],
            )
        )
    return games


@api.get("/api/games/{name}/rules", responses=_errors(404))
def game_rules(name: str, service: Service) -> schemas.RulesInfo:
    """The rules as flipgames plays them (default options)."""
    game = service.game(name)
    return schemas.RulesInfo(name=game.name, title=game.title, text=game.rules_summary())


# --- matches ----------------------------------------------------------------------------------


@api.post(
    "/api/matches",
    status_code=201,
    responses=_errors(404, 409, 413, 422, 429),
    dependencies=[Depends(limit_matches)],
)
async def create_match(
    body: schemas.CreateMatch, service: Service, request: Request
) -> schemas.Created:
    """Create a match; the answer holds the creator's seat token and links."""
    created = await run_in_threadpool(
        lambda: service.create(
            body.game,
            body.options,
            mode=body.mode,
            level=body.level,
            seat=body.seat,
            seed=body.seed,
            assist=body.assist,
            clock=clocks.control_from_request(body.clock),
        )
    )
    match_id = created.match_id
    _think(request, created.view)
    invite = f"/play/{match_id}?token={created.invite_token}" if created.invite_token else None
    return schemas.Created(
        id=match_id,
        seat=created.seat,
        token=created.token,
        links=schemas.Links(
            play=f"/play/{match_id}?token={created.token}",
            invite=invite,
            watch=f"/watch/{match_id}",
        ),
        match=created.view,
    )


@api.get("/api/matches/{match_id}", responses=_errors(403, 404, 409, 429), dependencies=[ReadLimit])
async def get_match(
    match_id: str,
    service: Service,
    request: Request,
    token: Token = None,
    wait: Annotated[
        bool,
        Query(
            description="while the computer is thinking, answer once it has moved (or after "
            f"{WAIT_SECONDS:.0f} s, still thinking)"
        ),
    ] = False,
) -> schemas.View:
    """The match as the token's seat sees it; without a token, as a spectator. While the
    computer is to move (``thinking``) its move comes over the WebSocket, or ask with
    ``wait=true``."""
    loaded = await run_in_threadpool(service.load, match_id)
    view = service.view(loaded, service.viewer(loaded, token))
    _think(request, view)
    if wait and view.thinking:
        ai_moves: AiMoves = request.app.state.ai_moves
        await ai_moves.wait(match_id, WAIT_SECONDS)
        loaded = await run_in_threadpool(service.load, match_id)
        view = service.view(loaded, service.viewer(loaded, token))
    return view


@api.post(
    "/api/matches/{match_id}/actions",
    responses=_errors(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def post_action(
    match_id: str, body: schemas.ActionRequest, service: Service, request: Request
) -> schemas.View:
    """Play an action; it is committed (with any chance outcome that follows) before the
    answer and before it is broadcast. Against the AI the answer says ``thinking``: the
    computer's reply comes later, as a broadcast."""
    loaded, viewer = await run_in_threadpool(
        service.play, match_id, body.token, body.action, body.ply
    )
    await _broadcast(request, match_id, loaded)
    view = service.view(loaded, viewer)
    _think(request, view)
    return view


@api.post(
    "/api/matches/{match_id}/undo",
    responses=_errors(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def undo(
    match_id: str, body: schemas.TokenRequest, service: Service, request: Request
) -> schemas.View:
    """Against the AI: back to your previous decision."""
    view = await run_in_threadpool(service.undo, match_id, body.token)
    await _taken_back(request, match_id)
    return view


@api.post(
    "/api/matches/{match_id}/resign",
    responses=_errors(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def resign(
    match_id: str, body: schemas.TokenRequest, service: Service, request: Request
) -> schemas.View:
    """Give up: the other player wins (on a shared screen, the player to move resigns)."""
    view = await run_in_threadpool(service.resign, match_id, body.token)
    await _taken_back(request, match_id)
    return view


@api.post(
    "/api/matches/{match_id}/draw",
    responses=_errors(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def draw(
    match_id: str, body: schemas.DrawRequest, service: Service, request: Request
) -> schemas.View:
    """Online: offer a draw, or accept or decline the other player's offer."""
    view = await run_in_threadpool(service.draw, match_id, body.token, body.answer)
    await _broadcast(request, match_id)
    return view


@api.post(
    "/api/matches/{match_id}/rematch",
    status_code=201,
    responses=_errors(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def rematch(
    match_id: str, body: schemas.TokenRequest, service: Service, request: Request
) -> schemas.Created:
    """A finished match: the same game again, seats swapped. The first player to ask creates
    it, the other joins it by asking too; each gets their own seat's token."""
    created = await run_in_threadpool(service.rematch, match_id, body.token)
    await _broadcast(request, match_id)  # the other player's page offers to join
    _think(request, created.view)
    new_id = created.match_id
    return schemas.Created(
        id=new_id,
        seat=created.seat,
        token=created.token,
        links=schemas.Links(
            play=f"/play/{new_id}?token={created.token}", invite=None, watch=f"/watch/{new_id}"
        ),
        match=created.view,
    )


@api.get(
    "/api/matches/{match_id}/hint",
    responses=_errors(403, 404, 409, 429),
    dependencies=[ActionLimit],
)
def hint(match_id: str, service: Service, token: Token = None) -> schemas.Hint:
    """The best action for your seat, with the level that chose it."""
    return service.hint(match_id, token)


@api.get(
    "/api/matches/{match_id}/analysis",
    responses=_errors(403, 404, 409, 429),
    dependencies=[ActionLimit],
)
def analysis(match_id: str, service: Service, token: Token = None) -> schemas.Analysis:
    """Solved games: every legal action's perfect-play value for the player to move."""
    return service.analysis(match_id, token)


@api.get(
    "/api/matches/{match_id}/position",
    responses=_errors(404, 409, 422, 429),
    dependencies=[ReadLimit],
)
def position(match_id: str, service: Service, ply: Annotated[int, Query(ge=0)]) -> schemas.Frame:
    """An earlier position of the match (after ``ply`` actions), as spectators saw it: to look
    back during play."""
    return service.position(match_id, ply)


@api.get("/api/matches/{match_id}/record", responses=_errors(404, 429), dependencies=[ReadLimit])
def record(match_id: str, service: Service) -> schemas.Record:
    """The engine's JSON game record (``flipgames replay`` reads it)."""
    return service.record(match_id)


@api.get(
    "/api/matches/{match_id}/replay", responses=_errors(404, 409, 429), dependencies=[ReadLimit]
)
def replay(match_id: str, service: Service) -> schemas.Replay:
    """A finished match, frame by frame, as a spectator saw it."""
    return service.replay(match_id)


# --- WebSocket --------------------------------------------------------------------------------


class _SocketAction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: str = Field(pattern="^action$")
    action: str = Field(max_length=64)
    ply: StrictInt | None = None


def _socket_action(message: Mapping[str, Any], limit: int) -> _SocketAction:
    text = message.get("text")
    if text is None:
        raise ApiError(422, "bad_request", "send text frames of JSON")
    if len(text.encode()) > limit:
        raise ApiError(413, "too_large", f"messages are limited to {limit} bytes")
    try:
        return _SocketAction.model_validate_json(text)
    except ValidationError as exc:
        raise ApiError(422, "bad_request", describe_errors(exc.errors())) from None


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


@api.websocket("/ws/matches/{match_id}")
async def match_socket(
    websocket: WebSocket, match_id: str, token: str | None = None, presence: bool = False
) -> None:
    """Live views of a match; seats may send actions (see docs/web-api.md)."""
    service: MatchService = websocket.app.state.service
    hub: Hub = websocket.app.state.hub
    ai_moves: AiMoves = websocket.app.state.ai_moves
    settings: Settings = websocket.app.state.settings
    if not origin_allowed(websocket, settings.allowed_origins):
        # Closed before it is accepted: the handshake is refused with 403 (a page of another
        # site could otherwise act with a seat link it got hold of, in its visitor's browser).
        log.info("refusing a WebSocket from origin %r", websocket.headers.get("origin"))
        await websocket.close(code=1008)
        return
    await websocket.accept()
    try:
        limit_reads(websocket)
        loaded = await run_in_threadpool(service.load, match_id)
        viewer = service.viewer(loaded, token)
        thinking = service.ai_job(loaded) is not None
    except Exception as exc:
        error = as_api_error(exc)
        await websocket.send_json({"type": "error", **error.body()})
        # Refusals close with 4xxx (the page stops retrying); server trouble with 1011, after
        # which the page reconnects with its backoff.
        await websocket.close(code=4000 + error.status if error.status < 500 else 1011)
        return
    connection = Connection(websocket, viewer, presence)
    try:
        await hub.join(match_id, connection, loader(service, match_id))
        await hub.announce_presence(match_id)
        await _tell_other_processes(websocket, match_id)
        if thinking:
            ai_moves.start(match_id)
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            try:
                request = _socket_action(message, settings.max_body_bytes)
                limit_actions(websocket)
                loaded, _ = await run_in_threadpool(
                    service.play, match_id, token, request.action, request.ply
                )
            except Exception as exc:
                # Refusals and failures alike reach the client in the API's error format.
                await websocket.send_json({"type": "error", **as_api_error(exc).body()})
                continue
            await hub.broadcast(match_id, snapshot(service, loaded))
            if computer_to_move(loaded):
                ai_moves.start(match_id)
    except WebSocketDisconnect:
        pass
    finally:
        if hub.leave(match_id, connection):
            ai_moves.cancel(match_id)  # nobody is watching: free the worker
        else:
            await hub.announce_presence(match_id)
        await _tell_other_processes(websocket, match_id)


def origin_allowed(connection: HTTPConnection, allowed: Sequence[str] = ()) -> bool:
    """True when the connection's ``Origin`` is this server (the address its Host header
    names, in any scheme) or one of ``allowed``; a client that sends no Origin (not a
    browser, which always sends one) is allowed.

    >>> from starlette.requests import Request
    >>> def asking(origin: str) -> Request:
    ...     headers = [(b"host", b"127.0.0.1:8000"), (b"origin", origin.encode())]
    ...     return Request({"type": "http", "headers": headers})
    >>> origin_allowed(asking("http://127.0.0.1:8000")), origin_allowed(asking("https://x.org"))
    (True, False)
    >>> origin_allowed(asking("https://x.org"), ["https://x.org"])
    True
    """
    origin = connection.headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    if origin in {o.rstrip("/").lower() for o in allowed}:
        return True
    host = connection.headers.get("host", "").strip().lower()
    scheme, _, address = origin.partition("://")
    return bool(host) and scheme in ("http", "https") and address == host


async def _tell_other_processes(websocket: WebSocket, match_id: str) -> None:
    """Announce who is connected here to the other server processes (PostgreSQL)."""
    presence: Presence | None = websocket.app.state.presence
    if presence is not None:
        await presence.announce(match_id)


# --- pages ------------------------------------------------------------------------------------


def _page(request: Request, name: str) -> HTMLResponse:
    settings: Settings = request.app.state.settings
    try:
        return HTMLResponse(templating.render(settings.templates_dir, name))
    except FileNotFoundError:
        return _missing(f"the page {name} is not installed")


def _missing(message: str, *, status: int = 404, title: str = "Not found") -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{html.escape(message)}</p>"
        '<p><a href="/">Back to the arcade</a></p>',
        status_code=status,
    )


@pages.get("/")
def lobby(request: Request) -> HTMLResponse:
    return _page(request, "lobby.html")


def _match_page(request: Request, match_id: str, name: str) -> HTMLResponse:
    try:
        _service(request).load(match_id)
    except ApiError as exc:
        if exc.code == "rules_changed":
            return _missing(exc.message, status=409, title="Played under other rules")
        return _missing("there is no such match")
    return _page(request, name)


@pages.get("/play/{match_id}")
def play_page(request: Request, match_id: str) -> HTMLResponse:
    return _match_page(request, match_id, "game.html")


@pages.get("/watch/{match_id}")
def watch_page(request: Request, match_id: str) -> HTMLResponse:
    return _match_page(request, match_id, "game.html")


@pages.get("/replay/{match_id}")
def replay_page(request: Request, match_id: str) -> HTMLResponse:
    return _match_page(request, match_id, "replay.html")


@pages.get("/rules/{game}")
def rules_page(request: Request, game: str) -> HTMLResponse:
    if game not in game_names():
        return _missing("there is no such game")
    return _page(request, "rules.html")
