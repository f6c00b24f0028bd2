"""The public lobby in the database: seeks, accepting one (exactly one acceptor wins, across
server processes too), quick pairing, and the live games between people. No HTTP and no
sockets here (``routes/lobby.py`` and :mod:`.lobby_hub` hold those).

A *seek* is a row of ``seeks`` (kind ``seek``): a signed-in player's offer of a game (its
options, a time control or none, rated or casual). Anyone else signed in may accept it; a
rated seek needs an account on both sides. A player has at most one open seek per game and
time control: a second one replaces the first (the lobby shows the latest wish, never two
copies of one).

Accepting writes the new match and claims the seek in one transaction: the claim is
``UPDATE seeks SET match_id = ... WHERE id = ... AND match_id IS NULL``; of two acceptors
racing (threads or processes) one updates the row and commits, the other updates nothing and
its whole transaction (its match included) is rolled back: 409 ``seek_taken``. Seat colours
are drawn per match with :mod:`secrets`.

Seat tokens are never stored: the acceptor's token goes back in the answer (only its hash is
written). The seeker's seat is bound to the seeker's player and written with no usable hash
(:data:`UNISSUED`, which no token's sha256 equals); the seeker's first read of the seek
(:meth:`Lobby.seeker_token`, signed in) issues the token then: it is an HMAC of the match
under the seeker's session id, so the same session reading again gets the same token, and its
hash replaces :data:`UNISSUED` (once: the update names it). Another session of the same
player gets another HMAC, which the seat refuses (409 ``issued``): one seat, one link.

*Quick pairing* keeps a pool in the same table (kind ``pool``, the game's default options): a
player waits for one game and time control, rated or casual; two waiting players whose
ratings differ by at most both of their ranges are paired (:mod:`.pairing` has the rule).
The pair is claimed as a seek is, both rows in one conditional update, so two processes
pairing at once cannot pair a player twice.

>>> from flipgames.web.ai import Solutions
>>> from flipgames.web.community.identity import Identity
>>> from flipgames.web.db import Transactions, make_engine, migrate
>>> from flipgames.web.matches import MatchService
>>> engine = make_engine("sqlite://")
>>> _ = migrate(engine)
>>> service = MatchService(engine, Solutions())
>>> identity = Identity(service.transactions)
>>> (ada, ada_session), (bob, _) = identity.guest("Ada"), identity.guest("Bob")
>>> lobby = Lobby(service)
>>> seek, _ = lobby.create_seek(ada, "flipflop-3x3", {}, None, rated=False)
>>> [(s.seeker, s.game) for s in lobby.open_seeks()]
[('Ada', 'flipflop-3x3')]
>>> accepted = lobby.accept(bob, seek.id)
>>> lobby.open_seeks()
[]
>>> mine = lobby.seeker_token(ada, ada_session, seek.id)
>>> mine.match == accepted.match_id, {mine.seat, accepted.seat} == {0, 1}
(True, True)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Connection, delete, insert, select, text, update

from flipgames.core.game import Game
from flipgames.web import clocks, schemas
from flipgames.web.community.glicko2 import PROVISIONAL_RD, START_RATING, START_RD
from flipgames.web.community.identity import Player
from flipgames.web.community.lobby_schemas import Event, SeekView, announcement
from flipgames.web.community.pairing import fits
from flipgames.web.community.ratings import require_accounts
from flipgames.web.db import matches, players, ratings, seats, seeks
from flipgames.web.errors import ApiError, not_found
from flipgames.web.matches import CreatedMatch, Match, MatchService
from flipgames.web.matches.create import insert_match, make_game
from flipgames.web.matches.data import hash_token

#: The PostgreSQL channel the lobby's changes are announced on (payload
#: ``origin:event|seek|player|match``; see :func:`announcement`).
CHANNEL = "flipgames_lobby"
#: The token hash a seat is written with until its player reads its token (no sha256 hex
#: digest equals it, so no token opens the seat before then).
UNISSUED = "unissued"

Kind = Literal["seek", "pool"]


@dataclass(frozen=True)
class Accepted:
    """A seek accepted and committed: the new match, the acceptor's seat and token, the
    seeker's name and the lobby's events (:meth:`Lobby.created` builds the match's view)."""

    match_id: str
    seat: int
    token: str
    seeker: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class SeekerSeat:
    """What the seeker reads of its seek: the match once accepted, its seat and token."""

    match: str | None
    seat: int | None
    token: str | None


def _now() -> datetime:
    return datetime.now(UTC)


def taken() -> ApiError:
    return ApiError(409, "seek_taken", "someone else took this seek")


class Lobby:
    """Seeks, their acceptance, the pairing pool and the live games (``app.state.lobby``).

    ``now`` gives the time (tests move it on to widen the pairing ranges).
    """

    def __init__(self, service: MatchService, now: Callable[[], datetime] = _now) -> None:
        self.service = service
        self._tx = service.transactions
        self.now = now
        self.channel = CHANNEL  # what other processes hear; app.py scopes it to the schema

    # --- seeks ---------------------------------------------------------------------------

    def create_seek(
        self,
        player: Player,
        game_name: str,
        options: Mapping[str, object],
        clock: clocks.TimeControl | None,
        *,
        rated: bool,
        kind: Kind = "seek",
    ) -> tuple[SeekView, list[Event]]:
        """A new open seek (or pool entry), replacing the player's open one for the same game
        and time control (a pool entry: any open pool entry of the player's); the events."""
        game = make_game(game_name, options)
        if rated and not player.is_account:
            raise ApiError(
                409,
                "not_an_account",
                "rated games are between accounts: sign up (your guest name can be kept) "
                "or ask for a casual game",
            )
        seek_id = secrets.token_urlsafe(9)
        row = {
            "id": seek_id,
            "player_id": player.id,
            "game": game.name,
            "options": json.dumps(game.options),
            "clock_initial_ms": None if clock is None else clock.initial_ms,
            "clock_increment_ms": None if clock is None else clock.increment_ms,
            "rated": rated,
            "created_at": self.now(),
            "kind": kind,
        }

        def write(connection: Connection) -> tuple[SeekView, list[Event]]:
            # On PostgreSQL the player's row is locked, so two requests of one player replace
            # one another in turn (SQLite's write lock serialises them anyway).
            connection.execute(
                select(players.c.id).where(players.c.id == player.id).with_for_update()
            )
            same = seeks.c.kind == kind
            if kind == "seek":
                same = same & (seeks.c.game == game.name) & _same_clock(clock)
            replaced = list(
                connection.execute(
                    select(seeks.c.id).where(
                        seeks.c.player_id == player.id, seeks.c.match_id.is_(None), same
                    )
                ).scalars()
            )
            if replaced:
                connection.execute(delete(seeks).where(seeks.c.id.in_(replaced)))
            connection.execute(insert(seeks).values(row))
            view = self._view(_seek_row(connection, seek_id))
            new = Event("new", seek_id, view=view.model_dump_json() if kind == "seek" else "")
            events = [*(Event("gone", r, player.id) for r in replaced), new]
            self._announce(connection, events)
            return view, events

        return self._tx.run(write)

    def open_seeks(self, kind: Kind = "seek") -> list[SeekView]:
        """The open seeks, oldest first."""

        def read(connection: Connection) -> list[Any]:
            return list(
                connection.execute(
                    _seek_query()
                    .where(seeks.c.match_id.is_(None), seeks.c.kind == kind)
                    .order_by(seeks.c.created_at, seeks.c.id)
                )
            )

        return [self._view(row) for row in self._tx.run(read, read_only=True)]

    def seek(self, seek_id: str) -> SeekView | None:
        """One open seek, or None (also for a place in the pairing pool: it is not listed)."""
        row = self._tx.run(lambda c: _seek_row(c, seek_id), read_only=True)
        listed = row is not None and row.match_id is None and row.kind == "seek"
        return self._view(row) if listed else None

    def waiting_players(self) -> list[str]:
        """The players with an open seek or a place in the pool."""
        query = select(seeks.c.player_id).where(seeks.c.match_id.is_(None)).distinct()
        return list(self._tx.run(lambda c: c.execute(query).scalars().all(), read_only=True))

    def cancel(self, player: Player, seek_id: str) -> list[Event]:
        """Withdraw ``player``'s open seek (404 for no such open seek, 403 for another's)."""

        def write(connection: Connection) -> list[Event]:
            row = _seek_row(connection, seek_id)
            if row is None or row.match_id is not None:
                raise not_found(f"no open seek {seek_id!r}")
            if row.player_id != player.id:
                raise ApiError(403, "not_yours", "only the seeker may withdraw a seek")
            connection.execute(
                delete(seeks).where(seeks.c.id == seek_id, seeks.c.match_id.is_(None))
            )
            events = [Event("gone", seek_id, player.id)]
            self._announce(connection, events)
            return events

        return self._tx.run(write)

    def remove_player(self, player_id: str) -> list[Event]:
        """Remove every open seek and pool entry of a player (who left the lobby)."""

        def write(connection: Connection) -> list[Event]:
            gone = list(
                connection.execute(
                    select(seeks.c.id).where(
                        seeks.c.player_id == player_id, seeks.c.match_id.is_(None)
                    )
                ).scalars()
            )
            if gone:
                connection.execute(
                    delete(seeks).where(seeks.c.id.in_(gone), seeks.c.match_id.is_(None))
                )
            events = [Event("gone", g, player_id) for g in gone]
            self._announce(connection, events)
            return events

        return self._tx.run(write)

    def accept(self, player: Player, seek_id: str) -> Accepted:
        """Accept an open seek: the new match, with ``player``'s seat and token."""
        row = self._tx.run(lambda c: _seek_row(c, seek_id), read_only=True)
        if row is None or row.kind != "seek":
            raise not_found(f"no seek {seek_id!r}")
        if row.match_id is not None:
            raise taken()
        if row.player_id == player.id:
            raise ApiError(409, "own_seek", "this is your own seek: wait for someone to take it")
        if row.rated and not player.is_account:
            raise ApiError(
                409, "not_an_account", "this seek is rated: rated games are between accounts"
            )
        seeker_seat = secrets.randbelow(2)
        ids = [player.id, player.id]
        ids[seeker_seat] = row.player_id
        token = secrets.token_urlsafe(24)
        hashes = {seeker_seat: UNISSUED, 1 - seeker_seat: hash_token(token)}
        match = self._match(row)
        claims = {seek_id: row.player_id}
        self._tx.run(lambda c: self._write_match(c, match, row, ids, hashes, claims))
        events = (Event("gone", seek_id), Event("accepted", seek_id, row.player_id, match.id))
        return Accepted(match.id, 1 - seeker_seat, token, row.player_name, events)

    def created(self, accepted: Accepted) -> CreatedMatch:
        """The accepted match loaded (its first chance outcomes drawn, if any) and its view
        for the acceptor. Apart from :meth:`accept` so that the route can tell the lobby the
        seek is gone first: loading and viewing a match is the slow part of an acceptance."""
        loaded = self.service.load(accepted.match_id)
        view = self.service.view(loaded, self.service.viewer(loaded, accepted.token))
        return CreatedMatch(accepted.match_id, accepted.seat, accepted.token, None, view)

    def seeker_token(self, player: Player, session_id: str, seek_id: str) -> SeekerSeat:
        """The seeker's view of its seek (or pool entry): no match yet, or the match with the
        seeker's seat and token (issued on the first read, see the module's docstring)."""
        row = self._tx.run(lambda c: _seek_row(c, seek_id), read_only=True)
        if row is None:
            raise not_found(f"no seek {seek_id!r}")
        if row.player_id != player.id:
            raise ApiError(403, "not_yours", "only the seeker may read its seek")
        if row.match_id is None:
            return SeekerSeat(None, None, None)
        match_id = str(row.match_id)
        token = _seat_token(session_id, match_id)

        def issue(connection: Connection) -> int:
            seat = connection.execute(
                select(seats.c.seat, seats.c.token_hash).where(
                    seats.c.match_id == match_id, seats.c.player_id == player.id
                )
            ).one()
            if seat.token_hash == UNISSUED:
                connection.execute(
                    update(seats)
                    .where(
                        seats.c.match_id == match_id,
                        seats.c.seat == seat.seat,
                        seats.c.token_hash == UNISSUED,
                    )
                    .values(token_hash=hash_token(token))
                )
                # Views hold the seats' hashes: every process reads the match again.
                connection.execute(
                    update(matches)
                    .where(matches.c.id == match_id)
                    .values(revision=matches.c.revision + 1)
                )
            elif not hmac.compare_digest(seat.token_hash, hash_token(token)):
                raise ApiError(
                    409,
                    "issued",
                    "this seat's link was given to another of your sign-ins: open the game "
                    "there (or from your profile's games)",
                )
            return int(seat.seat)

        seat = self._tx.run(issue)
        return SeekerSeat(match_id, seat, token)

    # --- quick pairing ---------------------------------------------------------------------

    def join_pool(
        self, player: Player, game_name: str, clock: clocks.TimeControl | None, *, rated: bool
    ) -> tuple[SeekView, list[Event]]:
        """Wait in the pool for a game and time control (replacing the player's place in it)."""
        return self.create_seek(player, game_name, {}, clock, rated=rated, kind="pool")

    def leave_pool(self, player: Player) -> list[Event]:
        """Leave the pool (nothing to do when the player is not in it)."""

        def write(connection: Connection) -> list[Event]:
            gone = list(
                connection.execute(
                    select(seeks.c.id).where(
                        seeks.c.player_id == player.id,
                        seeks.c.kind == "pool",
                        seeks.c.match_id.is_(None),
                    )
                ).scalars()
            )
            connection.execute(
                delete(seeks).where(seeks.c.id.in_(gone), seeks.c.match_id.is_(None))
            )
            events = [Event("gone", g, player.id) for g in gone]
            self._announce(connection, events)
            return events

        return self._tx.run(write)

    def pair(self) -> list[Event]:
        """Pair every two waiting players who fit each other's ranges now (the longest
        waiting first); the events for the matches made."""
        events: list[Event] = []
        waiting = self._tx.run(_pool, read_only=True)
        now = self.now()
        used: set[str] = set()
        for i, first in enumerate(waiting):
            if first.id in used:
                continue
            for second in waiting[i + 1 :]:
                if second.id in used or not fits(first, second, now):
                    continue
                made = self._pair(first, second)
                if made:
                    used.update((first.id, second.id))
                    events.extend(made)
                    break
        return events

    def _pair(self, first: Any, second: Any) -> list[Event]:
        """A match for two pool entries, claimed together; no events when either went."""
        first_seat = secrets.randbelow(2)
        ids = [second.player_id, second.player_id]
        ids[first_seat] = first.player_id
        hashes = {0: UNISSUED, 1: UNISSUED}
        match = self._match(first)
        claims = {first.id: first.player_id, second.id: second.player_id}
        try:
            self._tx.run(lambda c: self._write_match(c, match, first, ids, hashes, claims))
        except ApiError:
            return []  # taken or left meanwhile (another process paired one of them)
        self.service.load(match.id)  # draws its first chance outcomes, if any
        return [
            *(Event("gone", seek_id) for seek_id in claims),
            *(Event("accepted", s, p, match.id) for s, p in claims.items()),
        ]

    # --- shared -----------------------------------------------------------------------------

    def _match(self, row: Any) -> Match:
        game = make_game(row.game, json.loads(row.options))
        return Match(
            id=secrets.token_urlsafe(9),
            game=game,
            seed=secrets.randbelow(schemas.MAX_SEED + 1),
            mode="online",
            level=None,
            human_seat=None,
            assist=False,
            rated=bool(row.rated),
        )

    def _write_match(
        self,
        connection: Connection,
        match: Match,
        row: Any,
        ids: Sequence[str],
        hashes: Mapping[int, str],
        claims: Mapping[str, str],
    ) -> None:
        """In one transaction: the match, its seats (bound to ``ids``) and the claim of every
        seek in ``claims`` (seek id -> its player), or nothing at all."""
        if match.rated:
            require_accounts(connection, list(ids))
        control = _control(row)
        clock = None if control is None else clocks.start(control, match.game.num_players)
        insert_match(connection, match, clock)
        connection.execute(
            insert(seats),
            [
                {"match_id": match.id, "seat": s, "token_hash": h, "player_id": ids[s]}
                for s, h in hashes.items()
            ],
        )
        claimed = connection.execute(
            update(seeks)
            .where(seeks.c.id.in_(list(claims)), seeks.c.match_id.is_(None))
            .values(match_id=match.id)
        )
        if claimed.rowcount != len(claims):
            raise taken()  # the transaction rolls back: no match, no seat, no claim
        self._announce(
            connection,
            [
                *(Event("gone", seek_id) for seek_id in claims),
                *(Event("accepted", s, p, match.id) for s, p in claims.items()),
            ],
        )

    def _announce(self, connection: Connection, events: Sequence[Event]) -> None:
        """On PostgreSQL, tell the other server processes (when the transaction commits)."""
        if connection.dialect.name != "postgresql":
            return
        for event in events:
            connection.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": self.channel, "payload": announcement(self.service.origin, event)},
            )

    def _view(self, row: Any) -> SeekView:
        game = make_game(row.game, json.loads(row.options))
        control = _control(row)
        rating, rd = _rating_of(row)
        return SeekView(
            id=row.id,
            game=game.name,
            title=game.title,
            options=dict(game.options),
            words=option_words(game),
            clock=None if control is None else control.label,
            rated=bool(row.rated),
            seeker=row.player_name,
            rating=rating,
            provisional=rating is not None and rd > PROVISIONAL_RD,
        )


def option_words(game: Game) -> list[str]:
    """The game's options that differ from their defaults, in players' words.

    >>> from flipgames.web.matches.create import make_game
    >>> option_words(make_game("flipflop-3x3"))
    []
    """
    return [
        f"{o.title()}: {o.words(game.options[o.name])}"
        for o in game.option_spec
        if game.options[o.name] != o.default
    ]


def _same_clock(clock: clocks.TimeControl | None) -> Any:
    if clock is None:
        return seeks.c.clock_initial_ms.is_(None)
    return (seeks.c.clock_initial_ms == clock.initial_ms) & (
        seeks.c.clock_increment_ms == clock.increment_ms
    )


def _control(row: Any) -> clocks.TimeControl | None:
    if row.clock_initial_ms is None:
        return None
    return clocks.TimeControl(int(row.clock_initial_ms), int(row.clock_increment_ms or 0))


def _seek_query() -> Any:
    return (
        select(
            seeks,
            players.c.name.label("player_name"),
            players.c.password_hash.isnot(None).label("is_account"),
            ratings.c.rating,
            ratings.c.rd,
        )
        .join(players, players.c.id == seeks.c.player_id)
        .outerjoin(
            ratings, (ratings.c.player_id == seeks.c.player_id) & (ratings.c.game == seeks.c.game)
        )
    )


def _seek_row(connection: Connection, seek_id: str) -> Any:
    return connection.execute(_seek_query().where(seeks.c.id == seek_id)).one_or_none()


def _pool(connection: Connection) -> list[Any]:
    return list(
        connection.execute(
            _seek_query()
            .where(seeks.c.kind == "pool", seeks.c.match_id.is_(None))
            .order_by(seeks.c.created_at, seeks.c.id)
        )
    )


def _rating_of(row: Any) -> tuple[int | None, float]:
    """A seeker's rating for the game (a new account's is the start rating) and its
    deviation; no rating for a guest."""
    if not row.is_account:
        return None, START_RD
    if row.rating is None:
        return round(START_RATING), START_RD
    return round(row.rating), float(row.rd)


def _seat_token(session_id: str, match_id: str) -> str:
    """The seeker's seat token for ``match_id``: an HMAC of it under the seeker's session id
    (which only the client holds: the database has its sha256 alone)."""
    digest = hmac.new(session_id.encode(), f"seat:{match_id}".encode(), hashlib.sha256)
    return digest.hexdigest()
