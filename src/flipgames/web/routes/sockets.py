"""The matches' WebSocket: live views of a match for every seat and spectator; seats may
send actions, and with ``?chat=true`` a socket reads and writes its chat room (routes/chat.py).
Opened only to this site's pages (the handshake's ``Origin`` is checked)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import APIRouter, WebSocket
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocketDisconnect

from flipgames.web.aimoves import AiMoves
from flipgames.web.community.chat import ChatRequest
from flipgames.web.community.identity import Session, current_player, current_session
from flipgames.web.errors import ApiError
from flipgames.web.matches import MatchService, Viewer, computer_to_move
from flipgames.web.presence import Presence
from flipgames.web.routes import chat as chat_routes
from flipgames.web.routes.common import (
    as_api_error,
    describe_errors,
    limit_actions,
    limit_reads,
    loader,
    snapshot,
)
from flipgames.web.routes.players import take_seats
from flipgames.web.settings import Settings
from flipgames.web.ws import Connection, Hub

log = logging.getLogger(__name__)

router = APIRouter()


class _SocketAction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: str = Field(pattern="^action$")
    action: str = Field(max_length=64)
    ply: StrictInt | None = None


def _socket_action(message: Mapping[str, Any], limit: int) -> _SocketAction | ChatRequest:
    text = message.get("text")
    if text is None:
        raise ApiError(422, "bad_request", "send text frames of JSON")
    if len(text.encode()) > limit:
        raise ApiError(413, "too_large", f"messages are limited to {limit} bytes")
    try:
        if _is_chat(text):
            return ChatRequest.model_validate_json(text)
        return _SocketAction.model_validate_json(text)
    except ValidationError as exc:
        raise ApiError(422, "bad_request", describe_errors(exc.errors())) from None


def _is_chat(text: str) -> bool:
    """The message is a chat line (``"type": "chat"``), not an action."""
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("type") == "chat"


async def accept_same_origin(websocket: WebSocket, what: str) -> bool:
    """Accept ``websocket`` if its page is this arcade's (or an allowed origin's); else close
    it before it is accepted, so the handshake is refused with 403 (a page of another site
    could otherwise act, in its visitor's browser, with a seat link or the session cookie it
    sends). ``what`` names the socket in the log line of a refusal."""
    settings: Settings = websocket.app.state.settings
    if not origin_allowed(websocket, settings.allowed_origins):
        log.info("refusing %s from origin %r", what, websocket.headers.get("origin"))
        await websocket.close(code=1008)
        return False
    await websocket.accept()
    return True


@router.websocket("/ws/matches/{match_id}")
async def match_socket(
    websocket: WebSocket,
    match_id: str,
    token: str | None = None,
    presence: bool = False,
    chat: bool = False,
) -> None:
    """Live views of a match; seats may send actions, and with ``chat`` the socket's chat
    room comes too (see docs/web-api.md)."""
    service: MatchService = websocket.app.state.service
    hub: Hub = websocket.app.state.hub
    ai_moves: AiMoves = websocket.app.state.ai_moves
    if not await accept_same_origin(websocket, "a WebSocket"):
        return
    try:
        limit_reads(websocket)
        loaded = await run_in_threadpool(service.load, match_id)
        viewer = service.viewer(loaded, token)
        # A signed-in player's token takes its seat if no player holds it (its cookie came
        # with the handshake).
        session = await run_in_threadpool(current_session, websocket)
        player = current_player(session)
        taken = await take_seats(websocket, loaded, viewer, player)
        if taken is not None:
            loaded = taken
            await hub.broadcast(match_id, snapshot(service, taken))
        thinking = service.ai_job(loaded) is not None
    except Exception as exc:
        error = as_api_error(exc)
        await websocket.send_json({"type": "error", **error.body()})
        # Refusals close with 4xxx (the page stops retrying); server trouble with 1011, after
        # which the page reconnects with its backoff.
        await websocket.close(code=4000 + error.status if error.status < 500 else 1011)
        return
    connection = Connection(websocket, viewer, presence, chat)
    try:
        await hub.join(match_id, connection, loader(service, match_id))
        if connection.chat:
            await chat_routes.send_history(websocket, loaded, viewer)
        await hub.announce_presence(match_id)
        await _tell_other_processes(websocket, match_id)
        if thinking:
            ai_moves.start(match_id)
        await _serve_actions(websocket, match_id, token, viewer, session)
    except WebSocketDisconnect:
        pass
    finally:
        if hub.leave(match_id, connection):
            ai_moves.cancel(match_id)  # nobody is watching: free the worker
        else:
            await hub.announce_presence(match_id)
        await _tell_other_processes(websocket, match_id)


async def _serve_actions(
    websocket: WebSocket,
    match_id: str,
    token: str | None,
    viewer: Viewer,
    session: Session | None,
) -> None:
    """Play each action the socket sends until it disconnects; every change is broadcast.
    A chat line goes to its room instead (routes/chat.py)."""
    service: MatchService = websocket.app.state.service
    hub: Hub = websocket.app.state.hub
    ai_moves: AiMoves = websocket.app.state.ai_moves
    settings: Settings = websocket.app.state.settings
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        try:
            request = _socket_action(message, settings.max_body_bytes)
            if isinstance(request, ChatRequest):
                await chat_routes.say(websocket, match_id, viewer, session, request)
                continue
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
