"""What two people online may do besides playing, resigning and offering draws: abort a
match before both have moved, and ask to take back their last move. (A rated match between
two accounts is created by ``Creation.create_rated``.)

A takeback goes back exactly as far as undo would for the asking player (their last move
and any reply after it) and never past a chance outcome (see ``data.undo_target``); a move
made while it is asked for cancels the request (``Playing._commit``). An abort ends the
match with no result and no rating change (ending ``aborted``, result ``*``).

>>> from flipgames.web.ai import Solutions
>>> from flipgames.web.db import make_engine, migrate
>>> from flipgames.web.matches import MatchService
>>> service = MatchService(make_engine("sqlite://"), Solutions())
>>> _ = migrate(service._tx.engine)
>>> created = service.create(
...     "flipflop-3x3", {}, mode="online", level=None, seat=0, seed=None, assist=None
... )
>>> white, black = created.token, created.invite_token
>>> _ = service.act(created.match_id, white, "b1xb3", ply=0)
>>> service.takeback(created.match_id, white, "offer").takeback_offer
0
>>> service.takeback(created.match_id, black, "accept").history
[]
>>> service.abort(created.match_id, black).ending
'aborted'
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import Connection, delete

from flipgames.web import clocks, schemas
from flipgames.web.db import actions
from flipgames.web.errors import ApiError, unavailable
from flipgames.web.matches.data import (
    Loaded,
    StaleRevision,
    path,
    undo_target,
)
from flipgames.web.matches.live import bump
from flipgames.web.matches.social import Social, online_seats
from flipgames.web.matches.views import can_abort, view


def takeback_target(loaded: Loaded, seat: int) -> int:
    """The ply a takeback of ``seat``'s last move goes back to, or the reason there is none."""
    steps = path(loaded.state)
    if not any(s.current_player == seat for s in steps[:-1]):
        raise unavailable("nothing to take back: you have not moved yet")
    target = undo_target(steps, seat)
    if target is None:
        raise unavailable(
            "a move cannot be taken back once a chance outcome (a tile's shape, a spin) has "
            "followed it: that outcome stays as it fell"
        )
    return target


class Online(Social):
    """Aborts and takebacks between two people online."""

    def abort(self, match_id: str, token: str | None) -> schemas.View:
        """Either player ends an online match before both have moved: no result, no rating."""
        with self._lock(match_id):
            loaded = self._current(match_id)
            seats_of = online_seats(
                loaded, token, "only a match between two people online can be aborted"
            )
            if not can_abort(loaded):
                raise unavailable(
                    "both players have moved: the match can no longer be aborted (resign, or "
                    "offer a draw)"
                )
            loaded = self._set(loaded, ending="aborted", ending_result="*", draw_offer=None)
            return view(loaded, seats_of)

    def takeback(self, match_id: str, token: str | None, answer: str) -> schemas.View:
        """Online: ``offer`` to take back your last move, or ``accept`` or ``decline`` the
        other player's request. Accepting takes the match back to before the asking player's
        last move (with any reply to it)."""
        with self._lock(match_id):
            loaded = self._current(match_id)
            seats_of = online_seats(
                loaded,
                token,
                "takebacks are asked for only between two people online (against the "
                "computer, use undo)",
            )
            (seat,) = seats_of  # online: one seat per token
            offer = loaded.takeback_offer
            if answer == "offer":
                if offer == seat:
                    raise unavailable(
                        "you have asked for a takeback already: it is up to your opponent"
                    )
                if offer is not None:
                    raise unavailable(
                        "your opponent has asked to take back their move: accept or decline "
                        "that first"
                    )
                takeback_target(loaded, seat)
                loaded = self._set(loaded, takeback_offer=seat)
            elif offer is None or offer == seat:
                raise unavailable(f"there is no takeback request to {answer}")
            elif answer == "decline":
                loaded = self._set(loaded, takeback_offer=None)
            else:
                loaded = self._take_back(loaded, offer)
            return view(loaded, seats_of)

    def _take_back(self, loaded: Loaded, seat: int) -> Loaded:
        """Take ``seat``'s last move back (and any reply to it), committed with the revision."""
        target = takeback_target(loaded, seat)
        back = path(loaded.state)[target]
        clock = loaded.clock
        if clock is not None:
            clock = clocks.taken_back(clock, loaded.state, back, now_ms=clocks.now_ms())
        match_id = loaded.match.id

        def write(connection: Connection) -> None:
            bump(
                connection,
                loaded,
                self.origin,
                takeback_offer=None,
                draw_offer=None,
                **clocks.columns(clock),
            )
            connection.execute(
                delete(actions).where(actions.c.match_id == match_id, actions.c.ply >= target)
            )

        try:
            self._tx.run(write)
        except StaleRevision:
            raise ApiError(409, "stale", "the match changed meanwhile: reload it") from None
        after = replace(
            loaded,
            state=back,
            revision=loaded.revision + 1,
            takeback_offer=None,
            draw_offer=None,
            clock=clock,
            played=loaded.record.upto(target),
        )
        self.live.put(match_id, after)
        return after
