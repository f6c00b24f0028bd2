"""Profiles and leaderboards, read from the database: a player's ratings per game, their
rating history, wins, draws and losses per game, their finished games (newest first, a page
at a time), and a game's best established ratings.

A match counts once it is finished: ``matches.ending_result`` holds its result (the rules'
end as well as a resignation, a draw, a loss on time or an abort, ``*``). A deleted account
has no profile (its games stay in its opponents' lists, as "deleted player").

>>> from datetime import UTC, datetime
>>> from sqlalchemy import insert
>>> from flipgames.web.db import make_engine, matches, migrate, players, seats
>>> engine = make_engine("sqlite://")
>>> _ = migrate(engine)
>>> now = datetime.now(UTC)
>>> with engine.begin() as c:
...     _ = c.execute(insert(players), [
...         {"id": p, "name": p, "name_key": p.lower(), "created_at": now} for p in ("Ada", "Bob")
...     ])
...     _ = c.execute(insert(matches).values(
...         id="m", game="flipflop-3x3", options="{}", seed=1, mode="online",
...         created_at=now, ending_result="1-0"))
...     _ = c.execute(insert(seats), [
...         {"match_id": "m", "seat": s, "token_hash": "x", "player_id": p}
...         for s, p in enumerate(("Ada", "Bob"))
...     ])
...     ada = profile(c, "ada", page=1)
>>> ada.name, ada.results["flipflop-3x3"].wins, [(g.opponent, g.result) for g in ada.games]
('Ada', 1, [('Bob', 'win')])
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Literal

from sqlalchemy import Connection, select
from sqlalchemy.sql.functions import count

from flipgames.web import schemas
from flipgames.web.community.glicko2 import PROVISIONAL_RD
from flipgames.web.community.identity import shown_name
from flipgames.web.community.names import name_key
from flipgames.web.db import matches, players, rating_changes, ratings, seats
from flipgames.web.errors import ApiError

Outcome = Literal["win", "draw", "loss", "aborted"]

#: Games in a page of a profile's list, and players on a leaderboard.
PAGE_SIZE = 20
LEADERBOARD_SIZE = 50
#: What a result means for the seat that played it (``*``: aborted, no result).
OUTCOMES: dict[tuple[str, int], Outcome] = {
    ("1-0", 0): "win",
    ("1-0", 1): "loss",
    ("0-1", 0): "loss",
    ("0-1", 1): "win",
    ("1/2-1/2", 0): "draw",
    ("1/2-1/2", 1): "draw",
}


def unknown_player(name: str) -> ApiError:
    return ApiError(404, "unknown_player", f"there is no player called {name!r}")


def find(connection: Connection, name: str) -> Any:
    """The row of the player called ``name`` (ignoring case), not deleted; None if none."""
    return connection.execute(
        select(players).where(players.c.name_key == name_key(name), players.c.deleted.is_(False))
    ).one_or_none()


def profile(connection: Connection, name: str, *, page: int) -> schemas.Profile:
    """The profile of the player called ``name`` with page ``page`` (from 1) of their games;
    404 ``unknown_player`` for a name no player has (or a deleted account's)."""
    row = find(connection, name)
    if row is None:
        raise unknown_player(name)
    total = connection.execute(
        select(count()).select_from(_finished(row.id).subquery())
    ).scalar_one()
    return schemas.Profile(
        name=row.name,
        account=row.password_hash is not None,
        ratings=_ratings(connection, row.id),
        results=_results(connection, row.id),
        history=_history(connection, row.id),
        games=_games(connection, row.id, page),
        page=page,
        pages=max(1, -(-int(total) // PAGE_SIZE)),
    )


def leaderboard(connection: Connection, game: str) -> list[schemas.Leader]:
    """The ``game``'s best established ratings (RD at most 110) of accounts that can play,
    highest first, at most :data:`LEADERBOARD_SIZE`."""
    rows = connection.execute(
        select(players.c.name, ratings.c.rating, ratings.c.rd, ratings.c.games)
        .join(players, players.c.id == ratings.c.player_id)
        .where(
            ratings.c.game == game,
            ratings.c.rd <= PROVISIONAL_RD,
            players.c.password_hash.is_not(None),
            players.c.deleted.is_(False),
            players.c.disabled.is_(False),
        )
        .order_by(ratings.c.rating.desc(), players.c.name_key)
        .limit(LEADERBOARD_SIZE)
    )
    return [
        schemas.Leader(rank=rank, name=r.name, rating=r.rating, rd=r.rd, games=r.games)
        for rank, r in enumerate(rows, start=1)
    ]


def _ratings(connection: Connection, player_id: str) -> dict[str, schemas.GameRating]:
    rows = connection.execute(select(ratings).where(ratings.c.player_id == player_id))
    return {
        r.game: schemas.GameRating(
            rating=r.rating, rd=r.rd, games=r.games, provisional=r.rd > PROVISIONAL_RD
        )
        for r in rows
    }


def _results(connection: Connection, player_id: str) -> dict[str, schemas.Results]:
    rows = connection.execute(
        select(matches.c.game, seats.c.seat, matches.c.ending_result, count())
        .join(seats, seats.c.match_id == matches.c.id)
        .where(seats.c.player_id == player_id, matches.c.ending_result.is_not(None))
        .group_by(matches.c.game, seats.c.seat, matches.c.ending_result)
    )
    tally: dict[str, dict[str, int]] = defaultdict(lambda: {"win": 0, "draw": 0, "loss": 0})
    for game, seat, result, number in rows:
        outcome = OUTCOMES.get((result, seat))
        if outcome is not None:
            tally[game][outcome] += int(number)
    return {
        game: schemas.Results(wins=t["win"], draws=t["draw"], losses=t["loss"])
        for game, t in tally.items()
    }


def _history(connection: Connection, player_id: str) -> dict[str, list[schemas.RatingPoint]]:
    rows = connection.execute(
        select(rating_changes)
        .where(rating_changes.c.player_id == player_id)
        .order_by(rating_changes.c.at, rating_changes.c.match_id)
    )
    history: dict[str, list[schemas.RatingPoint]] = defaultdict(list)
    for r in rows:
        history[r.game].append(
            schemas.RatingPoint(
                match=r.match_id, rating=r.rating_after, rd=r.rd_after, date=r.at.isoformat()
            )
        )
    return dict(history)


def _finished(player_id: str) -> Any:
    """The finished matches a player had a seat in, with that seat."""
    return (
        select(
            matches.c.id,
            matches.c.game,
            matches.c.ending,
            matches.c.ending_result,
            matches.c.created_at,
            matches.c.rated,
            seats.c.seat,
        )
        .join(seats, seats.c.match_id == matches.c.id)
        .where(seats.c.player_id == player_id, matches.c.ending_result.is_not(None))
    )


def _games(connection: Connection, player_id: str, page: int) -> list[schemas.PlayedGame]:
    rows = connection.execute(
        _finished(player_id)
        .order_by(matches.c.created_at.desc(), matches.c.id)
        .limit(PAGE_SIZE)
        .offset((page - 1) * PAGE_SIZE)
    ).all()
    opponents = _opponents(connection, [(r.id, 1 - r.seat) for r in rows])
    return [
        schemas.PlayedGame(
            match=r.id,
            game=r.game,
            opponent=opponents.get((r.id, 1 - r.seat)),
            result=OUTCOMES.get((r.ending_result, r.seat), "aborted"),
            ending=r.ending,
            date=r.created_at.isoformat(),
            rated=bool(r.rated),
        )
        for r in rows
    ]


def _opponents(connection: Connection, wanted: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """The names at the ``wanted`` (match, seat) pairs that a player holds."""
    if not wanted:
        return {}
    ids = sorted({match_id for match_id, _ in wanted})
    rows = connection.execute(
        select(seats.c.match_id, seats.c.seat, players.c.name, players.c.deleted)
        .join(players, players.c.id == seats.c.player_id)
        .where(seats.c.match_id.in_(ids))
    )
    return {(r.match_id, r.seat): shown_name(r.name, r.deleted) for r in rows}
