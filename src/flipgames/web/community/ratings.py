"""Ratings at a rated match's end: both players' Glicko-2 ratings for the game read, updated
by the one result (each game its own rating period) and written, with one ``rating_changes``
row per player, in the transaction that writes the match's end.

Exactly once: every ending is written with the match's revision (``live.bump``), so of two
endings racing (two processes, a flag and a resignation) one commits; and the
``rating_changes`` primary key (match, player) refuses a second settling of the same match
even so. On PostgreSQL both ratings rows are read ``FOR UPDATE``, so two matches of the same
player ending at once update their rating one after the other; SQLite's write lock (every
write transaction begins ``IMMEDIATE``) serialises them anyway.

Only a match between two accounts is rated: a seat without a player, a guest (no password
hash) or a deleted account leaves the ratings alone.

>>> from datetime import UTC, datetime
>>> from sqlalchemy import insert
>>> from flipgames.web.db import make_engine, matches, migrate, players, seats
>>> engine = make_engine("sqlite://")
>>> _ = migrate(engine)
>>> now = datetime.now(UTC)
>>> with engine.begin() as c:
...     _ = c.execute(insert(players), [
...         {"id": p, "name": p, "name_key": p, "password_hash": "h", "created_at": now}
...         for p in ("ada", "bob")
...     ])
...     _ = c.execute(insert(matches).values(
...         id="m", game="flipflop-3x3", options="{}", seed=1, mode="online",
...         created_at=now, rated=True))
...     _ = c.execute(insert(seats), [
...         {"match_id": "m", "seat": s, "token_hash": "x", "player_id": p}
...         for s, p in enumerate(("ada", "bob"))
...     ])
...     changes = settle(c, "m", "flipflop-3x3", "1-0")
>>> [(c.name, round(c.before), round(c.after, 1), round(c.rd, 1)) for c in changes]
[('ada', 1500, 1662.3, 290.3), ('bob', 1500, 1337.7, 290.3)]
>>> with engine.begin() as c:
...     [change.after for change in changes_of(c, "m")] == [change.after for change in changes]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, insert, select, update

from flipgames.web.community.glicko2 import PROVISIONAL_RD, Rating, game
from flipgames.web.community.identity import shown_name
from flipgames.web.db import players, rating_changes, ratings, seats
from flipgames.web.errors import unavailable

#: The first seat's score for each result a match can end with.
SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


@dataclass(frozen=True)
class RatingChange:
    """One player's rating change from one rated match."""

    seat: int
    name: str
    before: float
    after: float
    #: The rating deviation after the match.
    rd: float

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


def accounts(connection: Connection, match_id: str) -> dict[int, tuple[str, str]]:
    """The match's seats held by accounts (a password, not deleted): seat -> (player id,
    name)."""
    rows = connection.execute(
        select(seats.c.seat, players.c.id, players.c.name)
        .join(players, players.c.id == seats.c.player_id)
        .where(
            seats.c.match_id == match_id,
            players.c.password_hash.is_not(None),
            players.c.deleted.is_(False),
        )
    )
    return {row.seat: (row.id, row.name) for row in rows}


def require_accounts(connection: Connection, ids: Sequence[str]) -> None:
    """Refuse (409 ``unavailable``) a rated match between ``ids`` unless they are two
    different accounts (a password, not deleted, not disabled)."""
    if len(ids) != 2 or ids[0] == ids[1]:
        raise unavailable("a rated match is between two different accounts")
    rows = {
        row.id: row
        for row in connection.execute(select(players).where(players.c.id.in_(list(ids))))
    }
    for player_id in ids:
        row = rows.get(player_id)
        if row is None or row.deleted:
            raise unavailable("a rated match is between two accounts: a player is unknown")
        if row.password_hash is None:
            raise unavailable(f"a rated match is between two accounts: {row.name} plays as a guest")
        if row.disabled:
            raise unavailable(f"{row.name} cannot play: the account is disabled")


def settle(
    connection: Connection, match_id: str, game_name: str, result: str
) -> tuple[RatingChange, ...]:
    """Rate the end of the rated match ``match_id`` with ``result`` (``1-0``, ``0-1`` or
    ``1/2-1/2``) inside the caller's transaction: both ratings updated and a change row for
    each player written. Nothing (an empty tuple) when either seat is not an account, or for
    a result that is no result (an abort)."""
    score = SCORES.get(result)
    if score is None:
        return ()
    held = accounts(connection, match_id)
    if sorted(held) != [0, 1]:
        return ()
    ids = [held[0][0], held[1][0]]
    stored = {
        row.player_id: row
        for row in connection.execute(
            select(ratings)
            .where(ratings.c.player_id.in_(ids), ratings.c.game == game_name)
            .with_for_update()
        )
    }
    before = [
        Rating(stored[p].rating, stored[p].rd, stored[p].volatility) if p in stored else Rating()
        for p in ids
    ]
    after = game(before[0], before[1], score)
    now = datetime.now(UTC)
    changes = []
    for seat, player_id in enumerate(ids):
        old, new = before[seat], after[seat]
        values = {
            "rating": new.rating,
            "rd": new.rd,
            "volatility": new.volatility,
            "updated_at": now,
        }
        if player_id in stored:
            connection.execute(
                update(ratings)
                .where(ratings.c.player_id == player_id, ratings.c.game == game_name)
                .values(games=ratings.c.games + 1, **values)
            )
        else:
            connection.execute(
                insert(ratings).values(player_id=player_id, game=game_name, games=1, **values)
            )
        connection.execute(
            insert(rating_changes).values(
                match_id=match_id,
                player_id=player_id,
                game=game_name,
                rating_before=old.rating,
                rating_after=new.rating,
                rd_before=old.rd,
                rd_after=new.rd,
                at=now,
            )
        )
        changes.append(RatingChange(seat, held[seat][1], old.rating, new.rating, new.rd))
    return tuple(changes)


def changes_of(connection: Connection, match_id: str) -> tuple[RatingChange, ...]:
    """The rating changes a match made, by seat (empty when it made none)."""
    rows = connection.execute(
        select(
            seats.c.seat,
            players.c.name,
            players.c.deleted,
            rating_changes.c.rating_before,
            rating_changes.c.rating_after,
            rating_changes.c.rd_after,
        )
        .join(players, players.c.id == rating_changes.c.player_id)
        .join(
            seats,
            (seats.c.match_id == rating_changes.c.match_id)
            & (seats.c.player_id == rating_changes.c.player_id),
        )
        .where(rating_changes.c.match_id == match_id)
        .order_by(seats.c.seat)
    )
    return tuple(
        RatingChange(
            r.seat,
            shown_name(r.name, r.deleted),
            r.rating_before,
            r.rating_after,
            r.rd_after,
        )
        for r in rows
    )
