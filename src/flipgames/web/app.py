"""The app factory: ``create_app(settings)`` wires the database, the match service, the
WebSocket hub, the routes and the error handlers. Nothing is created at import time.

>>> from fastapi.testclient import TestClient
>>> from flipgames.web.settings import Settings
>>> with TestClient(create_app(Settings(database_url="sqlite://"))) as client:
...     client.get("/healthz").text
'ok'
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from flipgames import __version__
from flipgames.web import errors, lab, lessons, puzzles, routes
from flipgames.web.ai import Solutions
from flipgames.web.aimoves import AiMoves
from flipgames.web.aipool import AiPool
from flipgames.web.clocks import FlagTimers
from flipgames.web.community import lobby_hub
from flipgames.web.community.chat import CHANNEL as CHAT_CHANNEL
from flipgames.web.community.chat import Chat
from flipgames.web.community.csrf import CsrfGuard
from flipgames.web.community.identity import Identity
from flipgames.web.community.lobby import CHANNEL as LOBBY_CHANNEL
from flipgames.web.community.lobby import Lobby
from flipgames.web.db import DatabaseBusy, Transactions, make_engine, migrate
from flipgames.web.engines import register as register_engines
from flipgames.web.errors import ApiError, CorruptMatchError
from flipgames.web.fanout import listen, listen_url, read_notes, scoped_channel
from flipgames.web.lifeline import die_with_parent
from flipgames.web.limits import RateLimit
from flipgames.web.logs import redact_server_logs
from flipgames.web.matches import CHANNEL as MATCHES_CHANNEL
from flipgames.web.matches import LiveMatches, MatchService
from flipgames.web.presence import CHANNEL as PRESENCE_CHANNEL
from flipgames.web.presence import Presence
from flipgames.web.review import Reviews
from flipgames.web.review_store import ReviewStore
from flipgames.web.routes import chat as chat_routes
from flipgames.web.routes import lobby as lobby_routes
from flipgames.web.settings import Settings
from flipgames.web.ws import Hub

log = logging.getLogger(__name__)

# Starlette's own refusals in the API's codes: a body it cannot even parse (JSON nested too
# deep for the parser, a number too long to convert) is a bad request like any other.
_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}
_HTTP_STATUS = {400: 422}

#: Sent with every HTTP response. The pages load nothing from elsewhere and use no inline
#: script or style; no page may be framed (a framed lobby could be clicked through); and no
#: address (play links carry seat tokens) leaves in a Referer header.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def create_app(
    settings: Settings, *, solutions: Solutions | None = None, ai_pool: AiPool | None = None
) -> FastAPI:
    """Build the arcade for ``settings``; the database is migrated to the current schema.

    ``solutions`` lets several apps (tests) share solved games instead of solving again;
    ``ai_pool`` replaces the worker processes that choose the computer's moves (the app
    closes it when it stops).
    """
    engine = make_engine(settings.database_url, busy_timeout=min(5.0, settings.lock_wait_seconds))
    migrate(engine)
    redact_server_logs()
    app = FastAPI(
        title="flipgames arcade",
        version=__version__,
        description="Play the flip games against the AI or a friend (see docs/web-api.md).",
        lifespan=_lifespan,
        # The interactive /docs and /redoc pages load their scripts from a public CDN; on the
        # origin whose pages hold seat links that is not acceptable. /openapi.json stays.
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.engine = engine
    _wire(app, settings, engine, solutions or Solutions(), ai_pool)
    _handle_errors(app)
    for router in (
        *routes.routers,
        lobby_routes.router,
        puzzles.router,
        lessons.router,
        lab.router,
    ):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=settings.static_dir, check_dir=False), "static")
    app.add_middleware(CsrfGuard, allowed=settings.allowed_origins)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(HeadAsGet)
    return app


def _wire(
    app: FastAPI, settings: Settings, engine: Engine, solutions: Solutions, pool: AiPool | None
) -> None:
    """Put the match service, the players' identity, the WebSocket hub, the computer's moves,
    the game reviews, the flag timers and the rate limits in ``app.state`` (the routes find
    them there)."""
    transactions = Transactions(engine, wait_seconds=settings.lock_wait_seconds)
    live = LiveMatches(settings.live_matches, settings.live_idle_seconds)
    service = MatchService(engine, solutions, transactions, live)
    service.engines = register_engines(settings.engines, timeout=settings.engine_seconds)
    service.engine_seconds = settings.engine_seconds
    app.state.service = service
    app.state.identity = Identity(transactions, engines=service.engines)
    app.state.chat = Chat(transactions, service.origin)
    hub = app.state.hub = Hub()
    app.state.lobby = lobby = Lobby(service)
    app.state.lobby_hub = lobby_hub.LobbyHub(lobby, settings.lobby_grace_seconds)
    app.state.presence = None  # set when the server starts, on PostgreSQL
    app.state.ai_pool = pool = pool or AiPool(max(1, settings.ai_workers))
    broadcast = _broadcaster(service, hub)
    app.state.ai_moves = AiMoves(service, pool, broadcast)
    app.state.reviews = Reviews(ReviewStore(transactions), service.origin)
    app.state.flag_timers = flag_timers = FlagTimers(service.load, broadcast)
    service.watch_clock = flag_timers.watch
    app.state.action_limit = RateLimit(settings.actions_per_minute, settings.actions_burst)
    app.state.match_limit = RateLimit(settings.matches_per_minute, settings.matches_burst)
    app.state.read_limit = RateLimit(settings.reads_per_minute, settings.reads_burst)
    app.state.puzzle_limit = RateLimit(settings.puzzles_per_minute, settings.puzzles_burst)
    app.state.sign_in_limit = RateLimit(settings.sign_ins_per_minute, settings.sign_ins_burst)


def _broadcaster(service: MatchService, hub: Hub) -> Callable[[str], Awaitable[None]]:
    """Send a match, as the database has it, to its sockets."""

    async def broadcast(match_id: str) -> None:
        await hub.broadcast(match_id, routes.loader(service, match_id))

    return broadcast


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """While the server runs: the flag timers and, on PostgreSQL, the listener for other
    processes' changes and the presence; on stop, every task, worker and review ended."""
    state = app.state
    service: MatchService = state.service
    lobby: lobby_hub.LobbyHub = state.lobby_hub
    url = listen_url(state.settings.database_url)
    tasks = [asyncio.create_task(lobby.pair_forever())]
    if url is not None:
        tasks.extend(_matches_across_processes(app, url))
        tasks.extend(_lobby_across_processes(lobby, service.origin, state.engine, url))
        state.chat.channel = chat = scoped_channel(CHAT_CHANNEL, state.engine)
        heard = chat_routes.heard(app)
        tasks.append(asyncio.create_task(listen(url, service.origin, heard, channel=chat)))
    else:  # the operator's commands write notes instead
        tasks.append(asyncio.create_task(_operator_notes(app)))
    # Seeks left by players who went while the server was down go after the grace period.
    await lobby.expect_waiting()
    state.flag_timers.attach(asyncio.get_running_loop())
    yield
    # First, so the review being made stops at its next position while the rest closes.
    stopping_reviews = asyncio.create_task(asyncio.to_thread(state.reviews.close))
    await state.flag_timers.close()
    await lobby.close()
    for task in tasks:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    await state.ai_moves.close()
    state.ai_pool.close()
    await stopping_reviews  # before the engine goes: a finished review may be being stored
    state.engine.dispose()


def _matches_across_processes(app: FastAPI, url: str) -> list[asyncio.Task[None]]:
    """On PostgreSQL: the matches' changes made by other processes, and who is connected to
    them there (seats and spectators), each on its channel scoped to the arcade's schema."""
    state = app.state
    service: MatchService = state.service
    hub: Hub = state.hub
    changes = scoped_channel(MATCHES_CHANNEL, state.engine)
    presence = Presence(
        service.origin,
        state.engine,
        hub.here,
        hub.rooms,
        hub.announce_presence,
        channel=scoped_channel(PRESENCE_CHANNEL, state.engine),
        watching=hub.watching_here,
    )
    hub.elsewhere = presence.elsewhere
    hub.watching_elsewhere = presence.spectators
    state.presence = presence
    return [
        asyncio.create_task(
            listen(url, service.origin, _broadcaster(service, hub), channel=changes)
        ),
        asyncio.create_task(presence.run(url)),
    ]


def _operator_notes(app: FastAPI) -> Coroutine[Any, Any, None]:
    """On SQLite: what ``flipgames admin`` tells the server, as a PostgreSQL server hears it."""
    state = app.state
    service: MatchService = state.service
    heard = {
        MATCHES_CHANNEL: _broadcaster(service, state.hub),
        LOBBY_CHANNEL: state.lobby_hub.heard,
        CHAT_CHANNEL: chat_routes.heard(app),
    }
    return read_notes(service.transactions, service.origin, heard)


def _lobby_across_processes(
    lobby: lobby_hub.LobbyHub, origin: str, engine: Engine, url: str
) -> list[asyncio.Task[None]]:
    """On PostgreSQL: the lobby's changes made by other processes, and which players have
    a lobby socket open on them."""

    async def nothing(_key: str) -> None:
        return None  # a player's coming and going elsewhere is looked up, not pushed

    present = scoped_channel(lobby_hub.PRESENCE_CHANNEL, engine)
    presence = Presence(origin, engine, lobby.here, lobby.rooms, nothing, channel=present)
    lobby.elsewhere = lambda key: bool(presence.elsewhere(key))
    lobby.announce = presence.announce
    lobby.lobby.channel = channel = scoped_channel(LOBBY_CHANNEL, engine)
    return [
        asyncio.create_task(listen(url, origin, lobby.heard, channel=channel)),
        asyncio.create_task(presence.run(url)),
    ]


def _handle_errors(app: FastAPI) -> None:
    """Every error in the API's JSON format, whoever raises it."""

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(ApiError(422, "bad_request", routes.describe_errors(exc.errors())))

    @app.exception_handler(HTTPException)
    async def _http(_request: Request, exc: HTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
        status = _HTTP_STATUS.get(exc.status_code, exc.status_code)
        return error_response(ApiError(status, code, str(exc.detail), dict(exc.headers or {})))

    @app.exception_handler(CorruptMatchError)
    async def _corrupt(_request: Request, exc: CorruptMatchError) -> JSONResponse:
        return error_response(errors.internal(corrupt=True))

    @app.exception_handler(DatabaseBusy)
    async def _busy(_request: Request, exc: DatabaseBusy) -> JSONResponse:
        log.error("refusing a request: %s", exc)
        return error_response(errors.busy())

    @app.exception_handler(Exception)
    async def _internal(_request: Request, exc: Exception) -> JSONResponse:
        # Starlette logs the traceback after this answer; the client gets the usual format.
        return error_response(errors.internal())


def app_from_environment() -> FastAPI:
    """The app for ``flipgames serve --workers N``: uvicorn starts each worker process from
    this factory, so the settings come from the environment ``serve`` sets
    (``FLIPGAMES_DATABASE_URL``, the outside engines as JSON in ``FLIPGAMES_ENGINES``, the
    allowed WebSocket origins in ``FLIPGAMES_ALLOWED_ORIGINS``), and ``FLIPGAMES_SERVER_PID``
    names the parent each worker ends with."""
    server = int(os.environ.get("FLIPGAMES_SERVER_PID", "0"))
    if server and server != os.getpid():
        # A worker whose parent is killed (kill -9 runs no clean-up) must not go on serving
        # on the port it inherited: it ends with its parent.
        die_with_parent(server)
    registered = json.loads(os.environ.get("FLIPGAMES_ENGINES", "[]"))
    return create_app(
        Settings(
            database_url=os.environ["FLIPGAMES_DATABASE_URL"],
            engines=tuple((name, command) for name, command in registered),
        )
    )


def error_response(error: ApiError) -> JSONResponse:
    """The JSON answer for a refusal (its Retry-After and other headers included)."""
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers or None)


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every HTTP response (errors and static files too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HeadAsGet:
    """Answer ``HEAD`` as ``GET`` without the body (HTTP requires it of every resource that
    answers GET; FastAPI's routes would refuse it with 405): the status and headers,
    ``Content-Length`` included, are the GET's."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the rest of a body nobody asked for
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_headers_only)


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413 before anything parses them.

    A declared Content-Length over the limit is refused unread; otherwise the body is read
    (at most ``limit`` + 1 bytes) and handed on, so a chunked body cannot slip past.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await self._refuse(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if len(body) > self.limit:
                await self._refuse(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        error = ApiError(413, "too_large", f"request bodies are limited to {self.limit} bytes")
        await error_response(error)(scope, receive, send)
