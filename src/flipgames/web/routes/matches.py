"""The matches' HTTP API: create, read, act, undo, resign, draw, take back, abort, rematch,
help, positions, records and replays. Each change is committed by the service before it is
answered and broadcast."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from starlette.concurrency import run_in_threadpool

from flipgames.web import clocks, schemas
from flipgames.web.aimoves import AiMoves
from flipgames.web.community.identity import CurrentPlayer
from flipgames.web.matches import CreatedMatch, SeatPlayer
from flipgames.web.routes.common import (
    ActionLimit,
    ReadLimit,
    Service,
    Token,
    broadcast,
    limit_matches,
    responses,
    taken_back,
    think,
)
from flipgames.web.routes.players import take_seats

#: The longest a ``wait=true`` read waits for the computer's move.
WAIT_SECONDS = 30.0

router = APIRouter()


def _created(created: CreatedMatch) -> schemas.Created:
    """The answer for a new match: the creator's token and links (the invite, online)."""
    match_id = created.match_id
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


@router.post(
    "/api/matches",
    status_code=201,
    responses=responses(404, 409, 413, 422, 429),
    dependencies=[Depends(limit_matches)],
)
async def create_match(
    body: schemas.CreateMatch, service: Service, request: Request, player: CurrentPlayer
) -> schemas.Created:
    """Create a match; the answer holds the creator's seat token and links. A signed-in
    creator's seat (both, on one screen) is theirs."""
    creator = None if player is None else SeatPlayer(player.id, player.name)
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
            creator=creator,
        )
    )
    think(request, created.view)
    return _created(created)


@router.get(
    "/api/matches/{match_id}", responses=responses(403, 404, 409, 429), dependencies=[ReadLimit]
)
async def get_match(
    match_id: str,
    service: Service,
    request: Request,
    player: CurrentPlayer,
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
    ``wait=true``. A signed-in player's token takes its seat if no player holds it."""
    loaded = await run_in_threadpool(service.load, match_id)
    viewer = service.viewer(loaded, token)
    taken = await take_seats(request, loaded, viewer, player)
    if taken is not None:
        loaded = taken
        await broadcast(request, match_id, loaded)
    view = service.view(loaded, viewer)
    think(request, view)
    if wait and view.thinking:
        ai_moves: AiMoves = request.app.state.ai_moves
        await ai_moves.wait(match_id, WAIT_SECONDS)
        loaded = await run_in_threadpool(service.load, match_id)
        view = service.view(loaded, service.viewer(loaded, token))
    return view


@router.post(
    "/api/matches/{match_id}/actions",
    responses=responses(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def post_action(
    match_id: str,
    body: schemas.ActionRequest,
    service: Service,
    request: Request,
    player: CurrentPlayer,
) -> schemas.View:
    """Play an action; it is committed (with any chance outcome that follows) before the
    answer and before it is broadcast. Against the AI the answer says ``thinking``: the
    computer's reply comes later, as a broadcast."""
    loaded, viewer = await run_in_threadpool(
        service.play, match_id, body.token, body.action, body.ply
    )
    loaded = await take_seats(request, loaded, viewer, player) or loaded
    await broadcast(request, match_id, loaded)
    view = service.view(loaded, viewer)
    think(request, view)
    return view


@router.post(
    "/api/matches/{match_id}/undo",
    responses=responses(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def undo(
    match_id: str, body: schemas.TokenRequest, service: Service, request: Request
) -> schemas.View:
    """Against the AI: back to your previous decision."""
    view = await run_in_threadpool(service.undo, match_id, body.token)
    await taken_back(request, match_id)
    return view


@router.post(
    "/api/matches/{match_id}/resign",
    responses=responses(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def resign(
    match_id: str, body: schemas.TokenRequest, service: Service, request: Request
) -> schemas.View:
    """Give up: the other player wins (on a shared screen, the player to move resigns)."""
    view = await run_in_threadpool(service.resign, match_id, body.token)
    await taken_back(request, match_id)
    return view


@router.post(
    "/api/matches/{match_id}/draw",
    responses=responses(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def draw(
    match_id: str, body: schemas.DrawRequest, service: Service, request: Request
) -> schemas.View:
    """Online: offer a draw, or accept or decline the other player's offer."""
    view = await run_in_threadpool(service.draw, match_id, body.token, body.answer)
    await broadcast(request, match_id)
    return view


@router.post(
    "/api/matches/{match_id}/takeback",
    responses=responses(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def takeback(
    match_id: str, body: schemas.TakebackRequest, service: Service, request: Request
) -> schemas.View:
    """Online: ask to take back your last move, or accept or decline the other player's
    request (never past a chance outcome)."""
    view = await run_in_threadpool(service.takeback, match_id, body.token, body.answer)
    await broadcast(request, match_id)
    return view


@router.post(
    "/api/matches/{match_id}/abort",
    responses=responses(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def abort(
    match_id: str, body: schemas.TokenRequest, service: Service, request: Request
) -> schemas.View:
    """Online, before both players have moved: end the match with no result and no rating."""
    view = await run_in_threadpool(service.abort, match_id, body.token)
    await broadcast(request, match_id)
    return view


@router.post(
    "/api/matches/{match_id}/rematch",
    status_code=201,
    responses=responses(403, 404, 409, 413, 422, 429),
    dependencies=[ActionLimit],
)
async def rematch(
    match_id: str, body: schemas.TokenRequest, service: Service, request: Request
) -> schemas.Created:
    """A finished match: the same game again, seats swapped. The first player to ask creates
    it, the other joins it by asking too; each gets their own seat's token."""
    created = await run_in_threadpool(service.rematch, match_id, body.token)
    await broadcast(request, match_id)  # the other player's page offers to join
    think(request, created.view)
    return _created(created)


@router.get(
    "/api/matches/{match_id}/hint",
    responses=responses(403, 404, 409, 429),
    dependencies=[ActionLimit],
)
def hint(match_id: str, service: Service, token: Token = None) -> schemas.Hint:
    """The best action for your seat, with the level that chose it."""
    return service.hint(match_id, token)


@router.get(
    "/api/matches/{match_id}/analysis",
    responses=responses(403, 404, 409, 429),
    dependencies=[ActionLimit],
)
def analysis(match_id: str, service: Service, token: Token = None) -> schemas.Analysis:
    """Solved games: every legal action's perfect-play value for the player to move."""
    return service.analysis(match_id, token)


@router.get(
    "/api/matches/{match_id}/position",
    responses=responses(404, 409, 422, 429),
    dependencies=[ReadLimit],
)
def position(match_id: str, service: Service, ply: Annotated[int, Query(ge=0)]) -> schemas.Frame:
    """An earlier position of the match (after ``ply`` actions), as spectators saw it: to look
    back during play."""
    return service.position(match_id, ply)


@router.get(
    "/api/matches/{match_id}/record", responses=responses(404, 429), dependencies=[ReadLimit]
)
def record(match_id: str, service: Service) -> schemas.Record:
    """The engine's JSON game record (``flipgames replay`` reads it)."""
    return service.record(match_id)


@router.get(
    "/api/matches/{match_id}/replay", responses=responses(404, 409, 429), dependencies=[ReadLimit]
)
def replay(match_id: str, service: Service) -> schemas.Replay:
    """A finished match, frame by frame, as a spectator saw it."""
    return service.replay(match_id)
