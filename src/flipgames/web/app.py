"""The app factory: ``create_app(settings)`` wires the database, the match service, the
WebSocket hub, the routes and the error handlers. Nothing is created at import time.

>>> from fastapi.testclient import TestClient
>>> from flipgames.web.settings import Settings
>>> with TestClient(create_app(Settings(database_url="sqlite://"))) as client:
...     client.get("/healthz").text
'ok'
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from flipgames import __version__
from flipgames.web import routes
from flipgames.web.ai import Solutions
from flipgames.web.db import make_engine, migrate
from flipgames.web.errors import ApiError, CorruptMatchError
from flipgames.web.service import MatchService
from flipgames.web.settings import Settings
from flipgames.web.ws import Hub

log = logging.getLogger(__name__)

_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def create_app(settings: Settings, *, solutions: Solutions | None = None) -> FastAPI:
    """Build the arcade for ``settings``; the database is migrated to the current schema.

    ``solutions`` lets several apps (tests) share solved games instead of solving again.
    """
    engine = make_engine(settings.database_url)
    migrate(engine)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        engine.dispose()

    app = FastAPI(
        title="flipgames arcade",
        version=__version__,
        description="Play the flip games against the AI or a friend (see docs/web-api.md).",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.service = MatchService(engine, solutions or Solutions())
    app.state.hub = Hub()

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        error = ApiError(422, "bad_request", routes.describe_errors(exc.errors()))
        return JSONResponse(error.body(), status_code=422)

    @app.exception_handler(HTTPException)
    async def _http(_request: Request, exc: HTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
        error = ApiError(exc.status_code, code, str(exc.detail))
        return JSONResponse(error.body(), status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(CorruptMatchError)
    async def _corrupt(_request: Request, exc: CorruptMatchError) -> JSONResponse:
        error = ApiError(500, "internal", "this match cannot be loaded; the error is logged")
        return JSONResponse(error.body(), status_code=500)

    app.include_router(routes.api)
    app.include_router(routes.pages)
    app.mount("/static", StaticFiles(directory=settings.static_dir, check_dir=False), "static")
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    return app


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
        await JSONResponse(error.body(), status_code=413)(scope, receive, send)
