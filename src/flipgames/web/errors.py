"""API errors: each refusal has an HTTP status and a stable code (see docs/web-api.md).

>>> error = ApiError(409, "game_over", "the match is finished")
>>> error.body()
{'error': {'code': 'game_over', 'message': 'the match is finished'}}
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A refused request: nothing was changed. Routes turn it into a JSON error response."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        #: Extra response headers (e.g. Retry-After).
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        """The JSON body sent to the client (HTTP response or WebSocket message)."""
        return {"error": {"code": self.code, "message": self.message}}


class CorruptMatchError(Exception):
    """A stored match that no longer replays: an internal error, logged and answered with 500."""


def not_found(match_id: str) -> ApiError:
    return ApiError(404, "not_found", f"no match {match_id!r}")


def bad_token(message: str = "a valid seat token is required for this") -> ApiError:
    return ApiError(403, "bad_token", message)


def unavailable(message: str) -> ApiError:
    return ApiError(409, "unavailable", message)


def busy() -> ApiError:
    """The database stayed locked for the whole wait: try again later."""
    return ApiError(
        503,
        "busy",
        "the server is too busy to store this right now: try again",
        {"Retry-After": "5"},
    )


def internal(corrupt: bool = False) -> ApiError:
    """A failure of the server (logged there); the client learns no details."""
    if corrupt:
        return ApiError(500, "internal", "this match cannot be loaded; the error is logged")
    return ApiError(500, "internal", "the server failed on this request; the error is logged")
