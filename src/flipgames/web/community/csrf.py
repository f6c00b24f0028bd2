"""Cross-site request forgery: a page of another site must not change anything here with
its visitor's session cookie (or seat links it got hold of).

Every state-changing HTTP request (``POST``, ``PUT``, ``PATCH``, ``DELETE``) is refused with
403 ``foreign_origin`` when

- its ``Origin`` is neither this server (the address its ``Host`` names) nor one of the
  allowed origins (``serve --allowed-origin``); ``Origin: null`` (a sandboxed or opaque
  page) is foreign too; or
- it sends no ``Origin`` but carries the session cookie, unless the browser says it comes
  from this site (``Sec-Fetch-Site: same-origin``). Browsers send ``Origin`` with every such
  request, so a cookie without one did not come from one of this site's pages.

A request with ``Authorization: Bearer`` needs no ``Origin``: no other site's page can make
a browser send that header here, and the session cookie is not used then. Clients that are
not browsers (no cookie, no Origin) are not refused. The session cookie is also
``SameSite=Lax``, so browsers do not send it with other sites' requests in the first place.
The matches' WebSocket checks its handshake's ``Origin`` the same way (routes/sockets.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from flipgames.web.community.identity import SESSION_COOKIE
from flipgames.web.errors import ApiError
from flipgames.web.routes.sockets import origin_allowed

#: The methods that may change something.
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def refusal(connection: HTTPConnection, allowed: Sequence[str] = ()) -> ApiError | None:
    """Why ``connection`` is refused as a cross-site request, or None.

    >>> from starlette.requests import Request
    >>> def asking(*headers: tuple[str, str]) -> Request:
    ...     raw = [(b"host", b"arcade.test"), *((k.encode(), v.encode()) for k, v in headers)]
    ...     return Request({"type": "http", "method": "POST", "headers": raw})
    >>> refusal(asking(("origin", "http://arcade.test"))) is None
    True
    >>> refusal(asking(("origin", "https://evil.example"))).code
    'foreign_origin'
    >>> refusal(asking(("cookie", "flipgames_session=s"))).code  # a cookie, no Origin
    'foreign_origin'
    >>> refusal(asking(("cookie", "flipgames_session=s"), ("authorization", "Bearer s"))) is None
    True
    """
    if connection.scope.get("method") not in UNSAFE:
        return None
    origin = connection.headers.get("origin")
    if origin is not None:
        if origin.strip().lower() != "null" and origin_allowed(connection, allowed):
            return None
        return ApiError(
            403,
            "foreign_origin",
            "refused: this request comes from a page of another site "
            f"(Origin {origin[:100]!r}); only this arcade's own pages may change things here",
        )
    bearer = connection.headers.get("authorization", "").lower().startswith("bearer ")
    cookie = SESSION_COOKIE in connection.cookies
    same_site = connection.headers.get("sec-fetch-site", "").lower() == "same-origin"
    if cookie and not bearer and not same_site:
        return ApiError(
            403,
            "foreign_origin",
            "refused: a request with the session cookie must say where it comes from (the "
            "Origin header browsers send); API clients send Authorization: Bearer TOKEN instead",
        )
    return None


class CsrfGuard:
    """ASGI middleware answering :func:`refusal`'s 403 before any route runs."""

    def __init__(self, app: ASGIApp, allowed: Sequence[str] = ()) -> None:
        self.app = app
        self.allowed = tuple(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            error = refusal(HTTPConnection(scope), self.allowed)
            if error is not None:
                response = JSONResponse(error.body(), status_code=error.status)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
