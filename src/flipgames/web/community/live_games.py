"""The games in progress between two people, for the lobby's "watch" list: the most recent
online matches whose two seats are held by players, not finished, with the moves made so far
(chance outcomes not counted) and how many spectators watch them now."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, func, select

from flipgames.web.community.identity import shown_name
from flipgames.web.community.lobby_schemas import LiveGame
from flipgames.web.db import matches, players, seats
from flipgames.web.matches import MatchService

#: At most this many of the newest candidate matches are looked at.
CANDIDATES = 100


def _candidates(connection: Connection) -> dict[str, list[str]]:
    """Online matches not ended outside the rules with both seats held: id -> names by seat."""
    held = (
        select(seats.c.match_id)
        .where(seats.c.player_id.isnot(None))
        .group_by(seats.c.match_id)
        .having(func.count() == 2)
    )
    recent = list(
        connection.execute(
            select(matches.c.id)
            .where(matches.c.mode == "online", matches.c.ending.is_(None))
            .where(matches.c.id.in_(held))
            .order_by(matches.c.created_at.desc())
            .limit(CANDIDATES)
        ).scalars()
    )
    names: dict[str, list[str]] = {match_id: ["", ""] for match_id in recent}
    rows = connection.execute(
        select(seats.c.match_id, seats.c.seat, players.c.name, players.c.deleted)
        .join(players, players.c.id == seats.c.player_id)
        .where(seats.c.match_id.in_(recent))
    )
    for row in rows:
        names[row.match_id][row.seat] = shown_name(row.name, row.deleted)
    return names


def live_games(
    service: MatchService, spectators: Callable[[str], int], limit: int = 50
) -> list[LiveGame]:
    """Up to ``limit`` games in progress, newest first."""
    found = service.transactions.run(_candidates, read_only=True)
    games: list[LiveGame] = []
    for match_id, names in found.items():
        loaded = service.load(match_id)
        if loaded.over:
            continue
        moves = sum(1 for by in loaded.record.actors if by >= 0)
        games.append(
            LiveGame(
                id=match_id,
                game=loaded.match.game.name,
                title=loaded.match.game.title,
                players=names,
                moves=moves,
                clock=None if loaded.clock is None else loaded.clock.control.label,
                rated=loaded.match.rated,
                spectators=spectators(match_id),
                watch=f"/watch/{match_id}",
            )
        )
        if len(games) >= limit:
            break
    return games
