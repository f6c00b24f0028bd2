"""The chat's part of the matches' WebSocket (web/community/chat.py has the rules): a joining
socket's history, a line a socket writes, and lines written on other server processes.

Messages (server to client, on a socket opened with ``?chat=true``): ``{"type": "chat",
"history": true, "lines": [ChatLine, ...]}``, the room's history (on joining, and again
whenever the operator removes lines: it replaces what the client shows), then ``{"type":
"chat", "history": false, "lines": [ChatLine]}`` for each new line of the socket's room; a
refused line is answered
``{"type": "error", "error": {"code", "message"}}`` as a refused action is.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket

from flipgames.web.community.chat import HISTORY, Chat, ChatLine, ChatRequest, Room, writer
from flipgames.web.community.identity import Session
from flipgames.web.errors import ApiError
from flipgames.web.matches import Loaded, MatchService, Viewer
from flipgames.web.ws import Connection, Hub

log = logging.getLogger(__name__)


def room_of(viewer: Viewer) -> Room:
    """The room a socket reads: the players' for a seat, the spectators' otherwise."""
    return "players" if viewer else "spectators"


def has_chat(loaded: Loaded) -> bool:
    """Chat is between the two people of an online match (and their spectators)."""
    return loaded.match.mode == "online"


async def send_history(websocket: WebSocket, loaded: Loaded, viewer: Viewer) -> None:
    """Send a joining socket its room's lines so far (nothing for a match with no chat)."""
    if not has_chat(loaded):
        return
    chat: Chat = websocket.app.state.chat
    lines = await run_in_threadpool(chat.history, loaded.match.id, room_of(viewer))
    await websocket.send_text(_message(lines, history=True))


async def say(
    websocket: WebSocket,
    match_id: str,
    viewer: Viewer,
    session: Session | None,
    request: ChatRequest,
) -> None:
    """Commit the socket's line and send it to its room here (other processes hear of it
    from the database); a refusal raises :class:`ApiError`."""
    service: MatchService = websocket.app.state.service
    chat: Chat = websocket.app.state.chat
    loaded = await run_in_threadpool(service.load, match_id)
    if not has_chat(loaded):
        raise ApiError(
            409, "no_chat", "chat is between the two people of an online match (and its spectators)"
        )
    holders = {seat: (p.id, p.name) for seat, p in loaded.players.items()}
    who = writer(viewer, holders, session, request.room)
    line = await run_in_threadpool(chat.post, match_id, who, request.text)
    await deliver(websocket.app.state.hub, match_id, line)


async def deliver(hub: Hub, match_id: str, line: ChatLine) -> None:
    """Send ``line`` to the sockets of its room on this process."""
    await hub.send_where(match_id, _message([line]), _reads(line.room))


def heard(app: FastAPI) -> Callable[[str], Awaitable[None]]:
    """What the chat channel's listener calls for a line written on another process."""
    chat: Chat = app.state.chat
    hub: Hub = app.state.hub

    async def announced(payload: str) -> None:
        match_id, _, number = payload.rpartition("/")
        if match_id and number == HISTORY:
            await _send_histories(chat, hub, match_id)
        elif match_id and number.isdigit():
            line = await run_in_threadpool(chat.line, match_id, int(number))
            if line is not None:
                await deliver(hub, match_id, line)

    return announced


async def _send_histories(chat: Chat, hub: Hub, match_id: str) -> None:
    """Send each room's history again to its sockets here (lines were removed)."""
    for room in ("players", "spectators"):
        lines = await run_in_threadpool(chat.history, match_id, room)
        await hub.send_where(match_id, _message(lines, history=True), _reads(room))


def _reads(room: Room) -> Callable[[Connection], bool]:
    """Whether a connection reads ``room``'s lines."""
    players = room == "players"
    return lambda connection: connection.chat and bool(connection.viewer) == players


def _message(lines: list[ChatLine], *, history: bool = False) -> str:
    body = {"type": "chat", "history": history, "lines": [line.model_dump() for line in lines]}
    return json.dumps(body)
