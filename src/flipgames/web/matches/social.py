"""The social actions: undo (against the computer), resignation, draws and takebacks offered
and answered between two people, aborts before both have moved, and rematches with the seats
swapped.

Each is committed with the match's revision, like an action, before it is acknowledged.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from flipgames.core.game import State
from flipgames.web import clocks, schemas
from flipgames.web.community.ratings import RatingChange
from flipgames.web.db import actions, matches, seats
from flipgames.web.errors import ApiError, unavailable
from flipgames.web.matches.create import insert_match
from flipgames.web.matches.data import (
    CreatedMatch,
    Loaded,
    StaleRevision,
    Viewer,
    game_over,
    hash_token,
    path,
    undo_target,
)
from flipgames.web.matches.live import bump
from flipgames.web.matches.play import Playing, write_end
from flipgames.web.matches.views import view, viewer


def rematch_token(token: str, rematch_id: str) -> str:
    """A player's token for a rematch: derived from their token for the match before, so
    only they can have it and it need not be stored.

    >>> rematch_token("secret", "m2") == rematch_token("secret", "m2") != rematch_token("x", "m2")
    True
    """
    digest = hmac.new(token.encode(), f"rematch:{rematch_id}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()[:24]).decode()


class Social(Playing):
    """Undo, resign, draw and rematch."""

    def undo(self, match_id: str, token: str | None) -> schemas.View:
        """Against the AI: take back the human's last decision and everything after it, unless
        a chance outcome came after it (see :func:`undo_target`)."""
        with self._lock(match_id):
            loaded = self._read(match_id)
            seats_of = viewer(loaded, token, required=True)
            steps = path(loaded.state)
            target = _undo_target(loaded, steps)

            def delete_from_target(connection: Connection) -> None:
                # A game over by the rules and undone is not over: its result goes.
                bump(connection, loaded, self.origin, ending_result=None)
                connection.execute(
                    delete(actions).where(actions.c.match_id == match_id, actions.c.ply >= target)
                )

            try:
                self._tx.run(delete_from_target)
            except StaleRevision:
                raise ApiError(
                    409, "stale", "the match changed meanwhile: reload it and undo again"
                ) from None
            back = replace(
                loaded,
                state=steps[target],
                revision=loaded.revision + 1,
                ending_result=None,
                played=loaded.record.upto(target),
            )
            self.live.put(match_id, back)
            return view(back, seats_of)

    def resign(self, match_id: str, token: str | None) -> schemas.View:
        """The token's player gives up: the other wins. (On a shared screen, the player to
        move resigns.)"""
        with self._lock(match_id):
            loaded = self._current(match_id)
            seats_of = viewer(loaded, token, required=True)
            if loaded.over:
                raise game_over(loaded)
            current = loaded.state.current_player
            seat = current if current in seats_of else min(seats_of)
            result = "0-1" if seat == 0 else "1-0"
            loaded = self._set(loaded, ending="resignation", ending_result=result, draw_offer=None)
            return view(loaded, seats_of)

    def draw(self, match_id: str, token: str | None, answer: str) -> schemas.View:
        """Between two people online: ``offer`` a draw, or ``accept`` or ``decline`` the other
        player's offer. Offering when the other has offered already accepts it; a move by the
        other player declines it."""
        with self._lock(match_id):
            loaded = self._current(match_id)
            seats_of = online_seats(
                loaded, token, "draws are offered only between two people online"
            )
            (seat,) = seats_of  # online: one seat per token
            offer = loaded.draw_offer
            if answer == "offer" and offer == seat:
                raise unavailable("you have offered a draw already: it is up to your opponent")
            if answer in ("accept", "decline") and offer != 1 - seat:
                raise unavailable(f"there is no draw offer to {answer}")
            if answer == "decline":
                loaded = self._set(loaded, draw_offer=None)
            elif answer == "accept" or offer == 1 - seat:
                loaded = self._set(
                    loaded, ending="agreement", ending_result="1/2-1/2", draw_offer=None
                )
            else:
                loaded = self._set(loaded, draw_offer=seat)
            return view(loaded, seats_of)

    def rematch(self, match_id: str, token: str | None) -> CreatedMatch:
        """A new match with the same game, options, mode, level and assistance, seats swapped.

        The first player to ask creates it; the other joins it by asking too. Each player's
        token for the rematch is derived from their token for this match, so asking again
        (another tab) gives the same seat, and no token is ever stored.
        """
        with self._lock(match_id):
            loaded = self._read(match_id)
            seats_of = viewer(loaded, token, required=True)
            assert token is not None  # required above
            if not loaded.over:
                raise unavailable("a rematch can be asked for once the match is finished")
            new_id = loaded.rematch_id
            if new_id is None:
                new_id = secrets.token_urlsafe(9)
                self._create_rematch(loaded, new_id)
            new_token = rematch_token(token, new_id)
            seats_wanted = {1 - s for s in seats_of}
            self._tx.run(
                lambda connection: _join(connection, match_id, new_id, new_token, seats_wanted)
            )
        rematch = self.load(new_id)
        rematch_view = view(rematch, viewer(rematch, new_token))
        return CreatedMatch(new_id, min(seats_wanted), new_token, None, rematch_view)

    def _create_rematch(self, loaded: Loaded, new_id: str) -> None:
        old = loaded.match
        match = replace(
            old,
            id=new_id,
            seed=secrets.randbelow(schemas.MAX_SEED + 1),
            human_seat=None if old.human_seat is None else 1 - old.human_seat,
        )
        clock = (
            None
            if loaded.clock is None
            else clocks.start(loaded.clock.control, match.game.num_players)
        )

        def write(connection: Connection) -> None:
            bump(connection, loaded, self.origin, rematch_id=new_id)
            insert_match(connection, match, clock)

        try:
            self._tx.run(write)
        except StaleRevision:
            raise ApiError(409, "stale", "the match changed meanwhile: ask again") from None
        self.live.put(old.id, replace(loaded, revision=loaded.revision + 1, rematch_id=new_id))

    def _set(self, loaded: Loaded, **values: Any) -> Loaded:
        """Change the match's row (ending, draw or takeback offer) with its revision; the new
        live state. An ending is rated (a rated match) in the same transaction."""
        clock = loaded.clock
        ending = values.get("ending")
        if ending:
            values["takeback_offer"] = None
            if clock is not None:
                # The match ends: the running clock stops, charged up to now.
                clock = clocks.stop(clock, loaded.state, now_ms=clocks.now_ms())
        columns = clocks.columns(clock) if clock is not loaded.clock else {}

        def write(connection: Connection) -> tuple[RatingChange, ...]:
            if ending:
                return write_end(connection, loaded, self.origin, **values, **columns)
            bump(connection, loaded, self.origin, **values, **columns)
            return ()

        try:
            changes = self._tx.run(write)
        except StaleRevision:
            raise ApiError(409, "stale", "the match changed meanwhile: reload it") from None
        after = replace(
            loaded, revision=loaded.revision + 1, clock=clock, rating_changes=changes, **values
        )
        self.live.put(loaded.match.id, after)
        return after


def online_seats(loaded: Loaded, token: str | None, refusal: str) -> Viewer:
    """The seats ``token`` holds in ``loaded`` when it is a match between two people online
    still being played: the start of every offer between them (draws, takebacks, aborts).
    Otherwise refused with ``refusal`` (409), or as over."""
    seats_of = viewer(loaded, token, required=True)
    if loaded.match.mode != "online":
        raise unavailable(refusal)
    if loaded.over:
        raise game_over(loaded)
    return seats_of


def _undo_target(loaded: Loaded, steps: list[State]) -> int:
    """The ply an undo of ``loaded`` goes back to, or the reason there is none."""
    match = loaded.match
    if match.mode != "ai":
        raise unavailable("undo exists only in matches against the AI")
    if loaded.ending is not None:
        raise unavailable(f"the match ended by {loaded.ending}: it cannot be undone")
    if not any(s.current_player == match.human_seat for s in steps[:-1]):
        raise unavailable("nothing to undo: you have not moved yet")
    target = undo_target(steps, match.human_seat)
    if target is None:
        raise unavailable(
            "undo cannot take back a move once a chance outcome (a tile's shape, a "
            "spin) has followed it: that outcome stays as it fell"
        )
    return target


def _join(connection: Connection, old_id: str, new_id: str, token: str, wanted: set[int]) -> None:
    """Seat ``token`` in the rematch ``new_id`` of ``old_id`` at the ``wanted`` seats not
    taken yet, each bound to the player who had the other seat before (so a rated match's
    rematch is between the same two accounts)."""
    have = {
        seat
        for (seat,) in connection.execute(select(seats.c.seat).where(seats.c.match_id == new_id))
    }
    before = {
        row.seat: row.player_id
        for row in connection.execute(
            select(seats.c.seat, seats.c.player_id).where(seats.c.match_id == old_id)
        )
    }
    rows = [
        {
            "match_id": new_id,
            "seat": s,
            "token_hash": hash_token(token),
            "player_id": before.get(1 - s),
        }
        for s in sorted(wanted - have)
    ]
    if rows:
        connection.execute(insert(seats), rows)
        connection.execute(
            update(matches).where(matches.c.id == new_id).values(revision=matches.c.revision + 1)
        )
