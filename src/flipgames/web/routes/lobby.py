"""The lobby's API and socket: seeks (create, list, withdraw, accept, the seeker's read),
quick pairing, the live games to watch, and ``/ws/lobby`` (docs/web-api.md, "The lobby").
The rules are in web/community/lobby.py; the sockets in web/community/lobby_hub.py."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from flipgames.web import clocks
from flipgames.web.community import lobby_schemas as schemas
from flipgames.web.community.identity import (
    SignedIn,
    current_player,
    current_session,
    session_token,
)
from flipgames.web.community.live_games import live_games
from flipgames.web.community.lobby import Lobby
from flipgames.web.community.lobby_hub import LobbyHub
from flipgames.web.errors import ApiError
from flipgames.web.routes.common import limit_matches, limit_reads, responses
from flipgames.web.routes.sockets import accept_same_origin
from flipgames.web.ws import Hub

router = APIRouter()


def _lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def _hub(request: Request) -> LobbyHub:
    hub: LobbyHub = request.app.state.lobby_hub
    return hub


def _session_id(request: Request) -> str:
    """The raw session id of a signed-in request (the cookie or the bearer token)."""
    token = session_token(request)
    assert token is not None  # SignedIn let the request through
    return token


@router.post(
    "/api/seeks",
    status_code=201,
    responses=responses(401, 403, 404, 409, 413, 422, 429),
    dependencies=[Depends(limit_matches)],
)
async def create_seek(
    body: schemas.SeekRequest, session: SignedIn, request: Request
) -> schemas.SeekCreated:
    """Offer a game in the lobby (a second seek for the same game and time control
    replaces the first). Rated seeks need an account."""
    player = session.player
    view, events = await run_in_threadpool(
        lambda: _lobby(request).create_seek(
            player,
            body.game,
            body.options,
            clocks.control_from_request(body.clock),
            rated=body.rated,
        )
    )
    hub = _hub(request)
    await hub.publish(events)
    hub.expect(player.id)
    return schemas.SeekCreated(id=view.id)


@router.get("/api/seeks")
async def list_seeks(request: Request) -> list[schemas.SeekView]:
    """The open seeks, oldest first."""
    return await run_in_threadpool(_lobby(request).open_seeks)


@router.get("/api/seeks/{seek_id}", responses=responses(401, 403, 404, 409))
async def read_seek(seek_id: str, session: SignedIn, request: Request) -> schemas.SeekState:
    """For the seeker: the match the seek became, with the seeker's seat and token."""
    seat = await run_in_threadpool(
        _lobby(request).seeker_token, session.player, _session_id(request), seek_id
    )
    return schemas.SeekState(match=seat.match, seat=seat.seat, token=seat.token)


@router.delete("/api/seeks/{seek_id}", status_code=204, responses=responses(401, 403, 404))
async def cancel_seek(seek_id: str, session: SignedIn, request: Request) -> None:
    """Withdraw your seek."""
    events = await run_in_threadpool(_lobby(request).cancel, session.player, seek_id)
    await _hub(request).publish(events)


@router.post(
    "/api/seeks/{seek_id}/accept",
    status_code=201,
    responses=responses(401, 403, 404, 409, 429),
    dependencies=[Depends(limit_matches)],
)
async def accept_seek(seek_id: str, session: SignedIn, request: Request) -> schemas.AcceptedMatch:
    """Take a seek: the new match with your seat and token. Of several players taking one
    seek, one gets it; the others get 409 ``seek_taken``."""
    lobby = _lobby(request)
    accepted = await run_in_threadpool(lobby.accept, session.player, seek_id)
    # Every lobby page hears the seek is gone before the acceptor's view is built.
    await _hub(request).publish(accepted.events)
    created = await run_in_threadpool(lobby.created, accepted)
    return schemas.AcceptedMatch(
        id=created.match_id,
        seat=created.seat,
        token=created.token,
        play=f"/play/{created.match_id}?token={created.token}",
        match=created.view,
    )


@router.post(
    "/api/pairing",
    status_code=201,
    responses=responses(401, 403, 404, 409, 413, 422, 429),
    dependencies=[Depends(limit_matches)],
)
async def join_pairing(
    body: schemas.PairingRequest, session: SignedIn, request: Request
) -> schemas.SeekCreated:
    """Wait for an opponent of about your rating (the lobby socket says when one is found);
    ``id`` is your place, read like a seek's once paired."""
    view, events = await run_in_threadpool(
        lambda: _lobby(request).join_pool(
            session.player, body.game, clocks.control_from_request(body.clock), rated=body.rated
        )
    )
    hub = _hub(request)
    # No view: the pool is not listed, so a place in it is no "seek" message on the sockets.
    await hub.publish(events)
    hub.expect(session.player.id)
    await hub.pair_now()
    return schemas.SeekCreated(id=view.id)


@router.delete("/api/pairing", status_code=204, responses=responses(401, 403))
async def leave_pairing(session: SignedIn, request: Request) -> None:
    """Stop waiting for an opponent."""
    events = await run_in_threadpool(_lobby(request).leave_pool, session.player)
    await _hub(request).publish(events)


@router.get("/api/live", dependencies=[Depends(limit_reads)], responses=responses(429))
async def live(request: Request) -> list[schemas.LiveGame]:
    """Games in progress between two people, newest first, with spectator counts."""
    hub: Hub = request.app.state.hub
    service = request.app.state.service
    return await run_in_threadpool(live_games, service, hub.spectators)


@router.websocket("/ws/lobby")
async def lobby_socket(websocket: WebSocket) -> None:
    """The lobby's changes, live (see web/community/lobby_hub.py and docs/web-api.md)."""
    hub: LobbyHub = websocket.app.state.lobby_hub
    if not await accept_same_origin(websocket, "a lobby WebSocket"):
        return
    try:
        limit_reads(websocket)
        player = await run_in_threadpool(lambda: current_player(current_session(websocket)))
    except ApiError as error:
        await websocket.send_json({"type": "error", **error.body()})
        await websocket.close(code=4000 + error.status)
        return
    player_id = "" if player is None else player.id
    try:
        await hub.join(player_id, websocket)
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
    except WebSocketDisconnect:
        pass
    finally:
        await hub.leave(player_id, websocket)
