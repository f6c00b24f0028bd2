"""Seats taken by players: a signed-in player who uses a seat's token on a seat no player
holds yet takes that seat (``seats.player_id``), so the match is theirs (their history, their
name in every view). A seat-token link keeps working without any session: a seat nobody
signed in has used simply has no player.

Taking a seat moves the match's revision on, as every change of what its views show does, so
the other server processes load it again and its sockets can be sent the new names.
"""

from __future__ import annotations

import functools
from dataclasses import replace

from sqlalchemy import Connection, update

from flipgames.web.db import seats
from flipgames.web.matches.data import Loaded, SeatPlayer, StaleRevision, Viewer
from flipgames.web.matches.live import bump, seat_holders
from flipgames.web.matches.play import Playing


class Seating(Playing):
    """Bind seats to the players who use them."""

    def take_seats(self, loaded: Loaded, viewer: Viewer, player: SeatPlayer) -> Loaded | None:
        """Give ``player`` the seats of ``viewer`` (the seats a token controls) that no
        player holds: the match after that, or None when every one was held already (then
        nothing is written)."""
        match_id = loaded.match.id
        with self._lock(match_id):
            for _ in range(5):
                free = sorted(seat for seat in viewer if seat not in loaded.players)
                if not free:
                    return None
                take = functools.partial(
                    _take, loaded=loaded, free=free, player_id=player.id, origin=self.origin
                )
                try:
                    holders = self._tx.run(take)
                except StaleRevision:
                    loaded = self._read(match_id)  # changed meanwhile: look again
                    continue
                after = replace(loaded, revision=loaded.revision + 1, players=holders)
                self.live.put(match_id, after)
                return after
        return None


def _take(
    connection: Connection, loaded: Loaded, free: list[int], player_id: str, origin: str
) -> dict[int, SeatPlayer]:
    connection.execute(
        update(seats)
        .where(
            seats.c.match_id == loaded.match.id,
            seats.c.seat.in_(free),
            seats.c.player_id.is_(None),
        )
        .values(player_id=player_id)
    )
    bump(connection, loaded, origin)
    return seat_holders(connection, loaded.match.id)
