"""The players' API: guests, accounts and sessions (docs/web-api.md, "Players and
sessions"). Each answer that signs a client in sets the session cookie and gives the same
session id as ``token`` for ``Authorization: Bearer``; nothing here logs a name's password,
a session id or a token. :func:`take_seats` binds a seat to the signed-in player who uses its
token (the matches' routes and socket call it)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from flipgames.web.community import schemas
from flipgames.web.community.identity import (
    Identity,
    Player,
    SignedIn,
    clear_session_cookie,
    current_session,
    session_token,
    set_session_cookie,
)
from flipgames.web.limits import RateLimit
from flipgames.web.matches import Loaded, MatchService, SeatPlayer, Viewer
from flipgames.web.routes.common import client_address, responses
from flipgames.web.settings import Settings

router = APIRouter()


def limit_sign_ins(connection: HTTPConnection) -> None:
    """Count one sign-in, sign-up, new guest or password check against the client's limit."""
    limit: RateLimit = connection.app.state.sign_in_limit
    limit.check(client_address(connection), "sign-ins and password checks")


SignInLimit = Depends(limit_sign_ins)


def _identity(request: Request) -> Identity:
    identity: Identity = request.app.state.identity
    return identity


def _secure(request: Request) -> bool:
    settings: Settings = request.app.state.settings
    return settings.secure_cookies


def _signed_in(
    request: Request, response: Response, player: Player, token: str
) -> schemas.SignedIn:
    set_session_cookie(response, request, token, secure=_secure(request))
    return schemas.SignedIn(name=player.name, token=token)


@router.post(
    "/api/players",
    status_code=201,
    responses=responses(403, 409, 413, 422, 429),
    dependencies=[SignInLimit],
)
async def new_guest(
    body: schemas.GuestRequest, request: Request, response: Response
) -> schemas.SignedIn:
    """Play as a guest called ``name``: a session with no password (it ends when you sign
    out, and then the name is free again)."""
    player, token = await run_in_threadpool(_identity(request).guest, body.name)
    return _signed_in(request, response, player, token)


@router.post(
    "/api/accounts",
    status_code=201,
    responses=responses(403, 409, 413, 422, 429),
    dependencies=[SignInLimit],
)
async def sign_up(
    body: schemas.Credentials, request: Request, response: Response
) -> schemas.SignedIn:
    """Make an account and sign in to it. Signed in as a guest, the guest becomes the
    account (its games stay its own)."""
    current = await run_in_threadpool(current_session, request)
    player, token = await run_in_threadpool(
        _identity(request).sign_up, body.name, body.password, current
    )
    return _signed_in(request, response, player, token)


@router.post(
    "/api/session", responses=responses(401, 403, 413, 422, 429), dependencies=[SignInLimit]
)
async def log_in(
    body: schemas.Credentials, request: Request, response: Response
) -> schemas.SignedIn:
    """Sign in to an account; a wrong password and a name with no account get the same
    answer."""
    player, token = await run_in_threadpool(_identity(request).log_in, body.name, body.password)
    return _signed_in(request, response, player, token)


@router.get("/api/session", responses=responses(401, 403))
def who_am_i(session: SignedIn) -> schemas.Me:
    """Who the session belongs to."""
    return schemas.Me(name=session.player.name, account=session.player.is_account)


@router.delete("/api/session", status_code=204, responses=responses(403))
async def log_out(request: Request, response: Response) -> None:
    """Sign out: the session ends (a client with none is answered the same)."""
    token = session_token(request)
    if token is not None:
        await run_in_threadpool(_identity(request).log_out, token)
    clear_session_cookie(response, request, secure=_secure(request))


@router.post(
    "/api/account/password",
    status_code=204,
    responses=responses(401, 403, 409, 413, 422, 429),
    dependencies=[SignInLimit],
)
async def change_password(
    body: schemas.PasswordChange, session: SignedIn, request: Request
) -> None:
    """Change the account's password (the present one is needed); every other session of
    the account ends, this one goes on."""
    await run_in_threadpool(
        _identity(request).change_password, session, body.password, body.new_password
    )


@router.delete(
    "/api/account",
    status_code=204,
    responses=responses(401, 403, 409, 413, 422, 429),
    dependencies=[SignInLimit],
)
async def delete_account(
    body: schemas.PasswordRequest, session: SignedIn, request: Request, response: Response
) -> None:
    """Delete the account (its password is needed). Its games stay, showing "deleted
    player"; its name is free for others."""
    await run_in_threadpool(_identity(request).delete_account, session, body.password)
    clear_session_cookie(response, request, secure=_secure(request))


async def take_seats(
    connection: HTTPConnection, loaded: Loaded, viewer: Viewer, player: Player | None
) -> Loaded | None:
    """A signed-in ``player`` using a seat's token takes the seats of ``viewer`` that no
    player holds (matches/seating.py): the match after that, or None when nothing changed
    (no player, a spectator, or every seat held already). The caller broadcasts it."""
    if player is None or all(seat in loaded.players for seat in viewer):
        return None
    service: MatchService = connection.app.state.service
    holder = SeatPlayer(player.id, player.name)
    taken: Loaded | None = await run_in_threadpool(service.take_seats, loaded, viewer, holder)
    return taken
