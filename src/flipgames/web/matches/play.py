"""Play: a match as committed now (pending chance outcomes drawn, a due loss on time
committed), and an action checked and committed before it is acknowledged, then the chance
outcomes that follow it, each committed on its own.

Chance outcomes are drawn only when the game reaches them, from a generator of the match's
seed and the ply, so a server killed before drawing one draws the same outcome on the next
load, and nothing sent earlier could have revealed it.
"""

from __future__ import annotations

import functools
import random
from contextlib import suppress
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, insert
from sqlalchemy.exc import IntegrityError

from flipgames.core.errors import IllegalActionError, NotationError
from flipgames.core.game import sample_chance
from flipgames.web import clocks, schemas
from flipgames.web.community.ratings import RatingChange
from flipgames.web.db import actions
from flipgames.web.errors import ApiError
from flipgames.web.matches.data import (
    Loaded,
    StaleRevision,
    Viewer,
    computer_to_move,
    game_over,
)
from flipgames.web.matches.live import LiveStore, bump, settle
from flipgames.web.matches.views import view, viewer


def chance_rng(seed: int, ply: int) -> random.Random:
    # One generator per ply: a chance outcome depends only on the seed and when it happens,
    # so re-drawing after a crash gives the same outcome and no draw happens early. (Undo
    # never goes back past a chance outcome, so it cannot re-draw one: see undo_target.)
    return random.Random(f"{seed}:{ply}")


def _flag_due(loaded: Loaded) -> bool:
    """Whether the player to move in ``loaded`` has run out of time (never without a clock)."""
    clock = loaded.clock
    return clock is not None and clocks.flag_due(
        clock, loaded.state, over=loaded.over, now_ms=clocks.now_ms()
    )


def write_end(
    connection: Connection, loaded: Loaded, origin: str, **values: Any
) -> tuple[RatingChange, ...]:
    """Write the end of ``loaded``'s match outside the rules (``values`` hold its ending and
    result) with its revision, and rate it in the same transaction; its rating changes."""
    bump(connection, loaded, origin, **values)
    return settle(connection, loaded, values["ending_result"])


class Playing(LiveStore):
    """Load a match as committed now; check and commit actions and their chance outcomes."""

    def load(self, match_id: str) -> Loaded:
        """The match as committed, after drawing any pending chance outcome (left by a server
        stopped between an action and its follow-ups)."""
        with self._lock(match_id):
            return self._current(match_id)

    def _current(self, match_id: str) -> Loaded:
        """The match as committed now: pending chance outcomes drawn, a due loss on time
        committed, and its clock's deadline told to the flag timers."""
        return self._watch(self._flag(self._chance(self._read(match_id))))

    def _watch(self, loaded: Loaded) -> Loaded:
        if loaded.clock is not None and self.watch_clock is not None:
            deadline = clocks.deadline_ms(loaded.clock, loaded.state, over=loaded.over)
            self.watch_clock(loaded.match.id, deadline)
        return loaded

    def _flag(self, loaded: Loaded) -> Loaded:
        """Commit the loss on time of the player to move if their time is up. Of several
        processes seeing the same flag, one commits it (the revision decides); the others
        read the match again and find it finished."""
        for _ in range(5):
            clock = loaded.clock
            if clock is None or not _flag_due(loaded):
                return loaded
            loser = loaded.state.current_player
            values: dict[str, Any] = {
                "ending": "timeout",
                "ending_result": "0-1" if loser == 0 else "1-0",
                "draw_offer": None,
                "takeback_offer": None,
            }
            stopped = clocks.flagged(clock, loaded.state)
            write = functools.partial(
                write_end, loaded=loaded, origin=self.origin, **values, **clocks.columns(stopped)
            )
            try:
                changes = self._tx.run(write)
            except StaleRevision:
                loaded = self._read(loaded.match.id)
                continue
            loaded = replace(
                loaded,
                revision=loaded.revision + 1,
                clock=stopped,
                rating_changes=changes,
                **values,
            )
            self.live.put(loaded.match.id, loaded)
            return loaded
        return loaded

    def act(self, match_id: str, token: str | None, text: str, ply: int | None) -> schemas.View:
        """Check and commit one action, then its follow-ups; return the actor's view."""
        return view(*self.play(match_id, token, text, ply))

    def play(
        self, match_id: str, token: str | None, text: str, ply: int | None
    ) -> tuple[Loaded, Viewer]:
        """Check and commit one action, then its follow-ups; the match after them and the
        actor's seats.

        The action is checked against the live state without asking the database first:
        the write names the revision that state was read at, so if another process changed
        the match meanwhile nothing is written, and the action is checked again against the
        match as the database has it. Only then is a refusal final.
        """
        with self._lock(match_id):
            played: tuple[Loaded, Viewer] | None = None
            cached: Loaded | None = self.live.get(match_id)
            if cached is not None and not cached.state.is_chance_node() and not _flag_due(cached):
                # A refusal may only mean that the live state is old: checked again below.
                with suppress(ApiError, IntegrityError, StaleRevision):
                    played = self._play(cached, token, text, ply)
            if played is None:
                loaded = self._flag(self._chance(self._read(match_id)))
                try:
                    played = self._play(loaded, token, text, ply)
                except (IntegrityError, StaleRevision):
                    raise ApiError(
                        409, "stale", "another action was accepted first: reload the match"
                    ) from None
            loaded, seats = played
            return self._watch(self._chance(loaded)), seats

    def _play(
        self, loaded: Loaded, token: str | None, text: str, ply: int | None
    ) -> tuple[Loaded, Viewer]:
        state = loaded.state
        seats = viewer(loaded, token, required=True)
        if loaded.over:
            raise game_over(loaded)
        current_ply = len(loaded.record.history)
        if ply is not None and ply != current_ply:
            raise ApiError(409, "stale", f"the match is at ply {current_ply}, not {ply}: reload it")
        if state.current_player not in seats:
            if computer_to_move(loaded):
                raise ApiError(409, "not_your_turn", "the computer is thinking")
            raise ApiError(409, "not_your_turn", "it is not your turn")
        try:
            action = state.parse_action(text)
        except NotationError as exc:
            raise ApiError(422, "malformed_action", str(exc)) from None
        except IllegalActionError as exc:
            raise ApiError(422, "illegal_action", str(exc)) from None
        return self._commit(loaded, action), seats

    def _commit(self, loaded: Loaded, action: int) -> Loaded:
        """Commit ``action`` as the next ply of ``loaded``; the new live state."""
        state = loaded.state
        ply = len(state.history)
        text = state.action_to_string(action)

        # A move by the other player declines a draw offer.
        offer = loaded.draw_offer if loaded.draw_offer == state.current_player else None
        new_state = state.apply(action)
        clock = loaded.clock
        if clock is not None:
            clock = clocks.after_action(clock, state, new_state, now_ms=clocks.now_ms())

        # The engine's end is kept in the row too (ending_result; ending stays null), so
        # profiles read results without replaying matches; a rated match is rated with it.
        ended = {"ending_result": new_state.result()} if new_state.is_terminal() else {}

        def write(connection: Connection) -> tuple[RatingChange, ...]:
            # Any action cancels a takeback offer: the move it asked about is no longer last.
            bump(
                connection,
                loaded,
                self.origin,
                draw_offer=offer,
                takeback_offer=None,
                **ended,
                **clocks.columns(clock),
            )
            connection.execute(
                insert(actions).values(match_id=loaded.match.id, ply=ply, action=text)
            )
            return settle(connection, loaded, ended["ending_result"]) if ended else ()

        changes = self._tx.run(write)
        after = replace(
            loaded,
            state=new_state,
            revision=loaded.revision + 1,
            draw_offer=offer,
            takeback_offer=None,
            clock=clock,
            played=loaded.record.then(state, action),
            rating_changes=changes,
        )
        self.live.put(loaded.match.id, after)
        return after

    def _chance(self, loaded: Loaded) -> Loaded:
        """Draw and commit, one by one, the chance outcomes due in ``loaded`` (they are
        cheap: a draw from the seed, never a search)."""
        while loaded.state.is_chance_node():
            state = loaded.state
            action = sample_chance(state, chance_rng(loaded.match.seed, len(state.history)))
            loaded = self._commit(loaded, action)
        return loaded
