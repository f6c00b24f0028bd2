"""Who plays: guests and accounts, their sessions, and the dependencies routes use to know
who is asking.

A *guest* is a name and nothing else (no password): it exists while one of its sessions
does. An *account* has a password (an Argon2id hash, :mod:`.passwords`) and can sign in from
any browser. Both are rows of ``players``; a guest who signs up keeps its row, so its games
stay its own. A deleted account keeps its row too (its games stay, anonymised): the name
becomes :data:`DELETED_PLAYER`, the password and sessions go, and every view shows that name
(:func:`shown_name`).

A session is a random 32-byte id (:func:`secrets.token_urlsafe`) handed to the client as the
``flipgames_session`` cookie and as the ``token`` of the answer (for ``Authorization: Bearer``);
only its sha256 is stored. It lasts :data:`SESSION_DAYS` days from sign-in and ends sooner
when unused for :data:`IDLE_DAYS` days; its ``seen_at`` is written at most every
:data:`SEEN_EVERY` (a request does not cost a write).

No answer tells whether a name has an account, except signing up with it ("that name is
taken"): signing in with an unknown name verifies the password against a dummy hash and
fails as a wrong password does.

>>> from flipgames.web.db import Transactions, make_engine, migrate
>>> engine = make_engine("sqlite://")
>>> _ = migrate(engine)
>>> identity = Identity(Transactions(engine))
>>> grace, token = identity.sign_up("Grace", "a long password", None)
>>> grace.name, grace.is_account
('Grace', True)
>>> identity.session(token).player == grace
True
>>> identity.log_in("grace", "not the password")
Traceback (most recent call last):
...
flipgames.web.errors.ApiError: wrong name or password
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import Depends, Response
from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from starlette.requests import HTTPConnection

from flipgames.web.community.names import check_name, name_key
from flipgames.web.community.passwords import (
    check_password,
    dummy_hash,
    hash_password,
    needs_rehash,
    verify_password,
)
from flipgames.web.db import Transactions, aware, matches, players, seats, seeks, sessions
from flipgames.web.errors import ApiError

#: The session cookie's name.
SESSION_COOKIE = "flipgames_session"
#: A session ends this many days after sign-in (the cookie's Max-Age)...
SESSION_DAYS = 30
#: ...or sooner, when unused for this many days.
IDLE_DAYS = 14
#: ``sessions.seen_at`` is written at most this often.
SEEN_EVERY = timedelta(minutes=5)
#: A deleted account's name, stored and shown alike: one text wherever its games appear
#: (no player can be called it: names have no spaces).
DELETED_PLAYER = "deleted player"
#: The longest session token looked up (they are 43 characters).
MAX_TOKEN = 128


@dataclass(frozen=True)
class Player:
    """A player as the routes see one: a guest (``is_account`` false) or an account."""

    id: str
    name: str
    is_account: bool
    disabled: bool


@dataclass(frozen=True)
class Session:
    """A signed-in client: its player and the stored form of its session id."""

    player: Player
    id_hash: str


def hash_session(token: str) -> str:
    """The stored form of a session id.

    >>> len(hash_session("secret"))
    64
    """
    return hashlib.sha256(token.encode()).hexdigest()


def shown_name(name: str, deleted: bool) -> str:
    """A player's name as every view shows it: :data:`DELETED_PLAYER` for a deleted account
    (whatever its row holds: accounts deleted before that name was stored kept "deleted").

    >>> shown_name("Ada", False), shown_name("deleted", True)
    ('Ada', 'deleted player')
    """
    return DELETED_PLAYER if deleted else name


def _now() -> datetime:
    return datetime.now(UTC)


def _player(row: Any) -> Player:
    return Player(row.id, row.name, row.password_hash is not None, bool(row.disabled))


def taken() -> ApiError:
    return ApiError(409, "name_taken", "that name is taken: choose another")


def wrong_password() -> ApiError:
    return ApiError(401, "wrong_password", "wrong name or password")


def disabled() -> ApiError:
    return ApiError(403, "disabled", "this account is disabled by the arcade's operator")


class Identity:
    """Guests, accounts and sessions in the database (``app.state.identity``).

    Password hashes are made and checked outside any transaction (each takes tens of
    milliseconds), and a change made after a check names what was checked (the stored hash),
    so two requests racing cannot both win.
    """

    def __init__(self, transactions: Transactions, engines: Iterable[str] = ()) -> None:
        self._tx = transactions
        #: Outside engines' names: reserved, like the computer's levels.
        self.engines = tuple(engines)

    def check_name(self, text: str) -> str:
        return check_name(text, engines=self.engines)

    def guest(self, name: str) -> tuple[Player, str]:
        """A new guest called ``name`` and its session token."""
        self.check_name(name)
        player_id = secrets.token_urlsafe(12)

        def write(connection: Connection) -> str:
            _require_free(connection, name)
            connection.execute(
                insert(players).values(
                    id=player_id, name=name, name_key=name_key(name), created_at=_now()
                )
            )
            return _new_session(connection, player_id)

        token = self._unique(write)
        return Player(player_id, name, False, False), token

    def sign_up(self, name: str, password: str, current: Session | None) -> tuple[Player, str]:
        """A new account and its session token. A guest signing up (``current``) keeps its
        player (its games stay its own) and its old session ends."""
        self.check_name(name)
        stored = hash_password(check_password(password))
        guest = current.player if current and not current.player.is_account else None
        player_id = guest.id if guest else secrets.token_urlsafe(12)

        def write(connection: Connection) -> str:
            _require_free(connection, name, but=player_id)
            values = {"name": name, "name_key": name_key(name), "password_hash": stored}
            if guest is None:
                connection.execute(
                    insert(players).values(id=player_id, created_at=_now(), **values)
                )
            else:
                connection.execute(update(players).where(players.c.id == guest.id).values(values))
                assert current is not None
                connection.execute(delete(sessions).where(sessions.c.id_hash == current.id_hash))
            return _new_session(connection, player_id)

        token = self._unique(write)
        return Player(player_id, name, True, False), token

    def log_in(self, name: str, password: str) -> tuple[Player, str]:
        """The account called ``name`` (any case) and a new session token, if ``password``
        is its password; else ``wrong_password``, the same answer for a name with no account."""
        key = name_key(name)
        row = self._tx.run(
            lambda c: c.execute(select(players).where(players.c.name_key == key)).one_or_none(),
            read_only=True,
        )
        stored = row.password_hash if row is not None else None
        if not verify_password(stored or dummy_hash(), password) or row is None or not stored:
            raise wrong_password()
        player = _player(row)
        if player.disabled:
            raise disabled()
        rehashed = hash_password(password) if needs_rehash(stored) else stored

        def write(connection: Connection) -> str:
            connection.execute(
                update(players)
                .where(players.c.id == player.id, players.c.password_hash == stored)
                .values(password_hash=rehashed)
            )
            return _new_session(connection, player.id)

        return player, self._tx.run(write)

    def session(self, token: str) -> Session | None:
        """The session ``token`` is the id of, or None (unknown, ended or expired)."""
        if not token or len(token) > MAX_TOKEN:
            return None
        digest = hash_session(token)
        query = (
            select(players, sessions.c.created_at.label("since"), sessions.c.seen_at)
            .join(sessions, sessions.c.player_id == players.c.id)
            .where(sessions.c.id_hash == digest)
        )
        row = self._tx.run(lambda c: c.execute(query).one_or_none(), read_only=True)
        if row is None:
            return None
        now = _now()
        since, seen = aware(row.since), aware(row.seen_at)
        if now - since > timedelta(days=SESSION_DAYS) or now - seen > timedelta(days=IDLE_DAYS):
            self._tx.run(lambda c: _end_session(c, digest, row.id))
            return None
        if now - seen > SEEN_EVERY:
            self._tx.run(
                lambda c: c.execute(
                    update(sessions).where(sessions.c.id_hash == digest).values(seen_at=now)
                )
            )
        return Session(_player(row), digest)

    def log_out(self, token: str) -> None:
        """End the session ``token`` (nothing if there is none). A guest whose last session
        ends can never sign in again, so its name is free for others from then on (its games
        keep showing it)."""
        found = self.session(token)
        if found is not None:
            self._tx.run(lambda c: _end_session(c, found.id_hash, found.player.id))

    def change_password(self, current: Session, old: str, new: str) -> None:
        """Set a new password (the old one is needed); every other session of the player ends."""
        stored = self._verified(current, old)
        fresh = hash_password(check_password(new))

        def write(connection: Connection) -> None:
            changed = connection.execute(
                update(players)
                .where(players.c.id == current.player.id, players.c.password_hash == stored)
                .values(password_hash=fresh)
            )
            if changed.rowcount != 1:
                raise wrong_password()  # changed meanwhile by another request
            connection.execute(
                delete(sessions).where(
                    sessions.c.player_id == current.player.id,
                    sessions.c.id_hash != current.id_hash,
                )
            )

        self._tx.run(write)

    def delete_account(self, current: Session, password: str) -> None:
        """Delete the account (the password is needed): its row stays, anonymised, so its
        games stay; its sessions and open seeks go."""
        stored = self._verified(current, password)
        player_id = current.player.id

        def write(connection: Connection) -> None:
            changed = connection.execute(
                update(players)
                .where(players.c.id == player_id, players.c.password_hash == stored)
                .values(name=DELETED_PLAYER, name_key=None, password_hash=None, deleted=True)
            )
            if changed.rowcount != 1:
                raise wrong_password()
            connection.execute(delete(sessions).where(sessions.c.player_id == player_id))
            connection.execute(
                delete(seeks).where(seeks.c.player_id == player_id, seeks.c.match_id.is_(None))
            )
            # Its matches' views name it differently now: moving their revisions on makes
            # every server process load them again instead of serving its live copy.
            seated = select(seats.c.match_id).where(seats.c.player_id == player_id)
            connection.execute(
                update(matches)
                .where(matches.c.id.in_(seated))
                .values(revision=matches.c.revision + 1, ai_claim_revision=None)
            )

        self._tx.run(write)

    def _verified(self, current: Session, password: str) -> str:
        """The player's stored hash, once ``password`` is checked against it."""
        if not current.player.is_account:
            raise ApiError(
                409,
                "not_an_account",
                "a guest has no account or password: sign up to make one, or sign out",
            )
        player_id = current.player.id
        stored = self._tx.run(
            lambda c: c.execute(
                select(players.c.password_hash).where(players.c.id == player_id)
            ).scalar_one_or_none(),
            read_only=True,
        )
        if not stored or not verify_password(stored, password):
            raise ApiError(401, "wrong_password", "wrong password")
        return str(stored)

    def _unique(self, write: Any) -> str:
        """Run ``write``; a name taken by a racing request (the unique key) is ``name_taken``."""
        try:
            token: str = self._tx.run(write)
        except IntegrityError:
            raise taken() from None
        return token


def _require_free(connection: Connection, name: str, but: str | None = None) -> None:
    """Refuse ``name`` when a player (guest or account, other than ``but``) has it."""
    query = select(players.c.id).where(players.c.name_key == name_key(name))
    holder = connection.execute(query).scalar_one_or_none()
    if holder is not None and holder != but:
        raise taken()


def _new_session(connection: Connection, player_id: str) -> str:
    token = secrets.token_urlsafe(32)
    now = _now()
    connection.execute(
        insert(sessions).values(
            id_hash=hash_session(token), player_id=player_id, created_at=now, seen_at=now
        )
    )
    return token


def _end_session(connection: Connection, digest: str, player_id: str) -> None:
    connection.execute(delete(sessions).where(sessions.c.id_hash == digest))
    left = connection.execute(
        select(func.count()).select_from(sessions).where(sessions.c.player_id == player_id)
    ).scalar_one()
    if left == 0:
        connection.execute(
            update(players)
            .where(players.c.id == player_id, players.c.password_hash.is_(None))
            .where(players.c.deleted.is_(False))
            .values(name_key=None)
        )


# --- what routes use ---------------------------------------------------------------------------


def session_token(connection: HTTPConnection) -> str | None:
    """The session id a request carries: its ``Authorization: Bearer`` token, else its
    session cookie. A bearer token wins: a client that sends one means that session."""
    scheme, _, value = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return connection.cookies.get(SESSION_COOKIE) or None


def current_session(connection: HTTPConnection) -> Session | None:
    """The request's session, or None (no token, or one that is unknown or expired)."""
    token = session_token(connection)
    if token is None:
        return None
    identity: Identity = connection.app.state.identity
    return identity.session(token)


def current_player(
    session: Annotated[Session | None, Depends(current_session)],
) -> Player | None:
    """The signed-in player, or None; a disabled player counts as signed out."""
    return None if session is None or session.player.disabled else session.player


def signed_in(session: Annotated[Session | None, Depends(current_session)]) -> Session:
    """The request's session, or 401 ``not_signed_in``; a disabled player gets 403."""
    if session is None:
        raise ApiError(
            401,
            "not_signed_in",
            "sign in first: this needs a session (the session cookie, or the token as "
            "Authorization: Bearer)",
        )
    if session.player.disabled:
        raise disabled()
    return session


#: A route's parameter ``player: CurrentPlayer`` is the signed-in player or None.
CurrentPlayer = Annotated[Player | None, Depends(current_player)]
#: A route's parameter ``session: SignedIn`` refuses requests with no session (401) or a
#: disabled player's (403).
SignedIn = Annotated[Session, Depends(signed_in)]


def set_session_cookie(
    response: Response, connection: HTTPConnection, token: str, *, secure: bool
) -> None:
    """Hand ``token`` to the browser: ``HttpOnly`` (no script reads it), ``SameSite=Lax``
    (other sites' forms and scripts do not send it), ``Secure`` over HTTPS or when the
    settings say so."""
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_DAYS * 24 * 60 * 60,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure or connection.url.scheme == "https",
    )


def clear_session_cookie(response: Response, connection: HTTPConnection, *, secure: bool) -> None:
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure or connection.url.scheme == "https",
    )
