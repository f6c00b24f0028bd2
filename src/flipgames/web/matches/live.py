"""The live matches: a bounded cache of loaded states, and its reconciliation with the
database (a live state is used only while its revision is the database's; else the match is
caught up from the stored actions, or replayed from them).

The database alone is enough to rebuild every match: the cache only saves the replays.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, cast

from sqlalchemy import Connection, Engine, select, update

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import State
from flipgames.core.registry import make
from flipgames.web import clocks, engines, schemas
from flipgames.web.ai import Solutions
from flipgames.web.community import ratings
from flipgames.web.community.identity import shown_name
from flipgames.web.community.ratings import RatingChange
from flipgames.web.db import Transactions, actions, matches, players, seats
from flipgames.web.errors import ApiError, CorruptMatchError, not_found
from flipgames.web.fanout import notify
from flipgames.web.matches.data import (
    Loaded,
    Match,
    Played,
    SeatPlayer,
    StaleRevision,
    rules_version,
)

log = logging.getLogger(__name__)

#: The PostgreSQL channel on which every change of a match is announced (payload
#: ``origin:match_id``, scoped to the arcade's schema), for the other server processes'
#: WebSockets (see web/fanout.py).
CHANNEL = "flipgames_matches"


class LiveMatches:
    """The states of recently used matches, so a request does not replay its match.

    Bounded: at most ``capacity`` matches, and a match unused for ``idle_seconds`` is
    dropped. An entry is only a cache: it is used only while its revision is the database's
    (checked on every use), and the database alone is enough to rebuild it.

    >>> live = LiveMatches(capacity=1, idle_seconds=60, clock=lambda: 0.0)
    >>> live.put("a", "state a")
    >>> live.put("b", "state b")  # over capacity: the least recently used goes
    >>> live.get("a"), live.get("b")
    (None, 'state b')
    """

    def __init__(
        self,
        capacity: int = 1000,
        idle_seconds: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = capacity
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._entries: OrderedDict[str, tuple[Any, float]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> Any:
        with self._lock:
            entry = self._entries.get(match_id)
            if entry is None:
                return None
            self._entries[match_id] = (entry[0], self._clock())
            self._entries.move_to_end(match_id)
            return entry[0]

    def put(self, match_id: str, value: Any) -> None:
        with self._lock:
            now = self._clock()
            self._entries[match_id] = (value, now)
            self._entries.move_to_end(match_id)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
            # The least recently used come first: drop the idle ones from the front.
            while self._entries:
                _, (_, used) = next(iter(self._entries.items()))
                if now - used <= self.idle_seconds:
                    break
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


class LiveStore:
    """The shared footing of the match service: the database, the live states, the locks
    that serialise actions on one match in this process, and reading a match as committed.

    Across processes the match's revision serialises: a write names the revision it read and
    fails if it has moved on (see :func:`bump`), so a match never forks.
    """

    def __init__(
        self,
        engine: Engine,
        solutions: Solutions,
        transactions: Transactions | None = None,
        live: LiveMatches | None = None,
    ) -> None:
        self._tx = transactions or Transactions(engine)
        self.solutions = solutions
        self.live = live or LiveMatches()
        self._locks = tuple(threading.Lock() for _ in range(64))
        #: How many times a match was rebuilt from the database (tests read it).
        self.replays = 0
        #: This process's name in change announcements, so it skips its own.
        self.origin = secrets.token_hex(6)
        #: Told each clocked match's flag deadline whenever it is loaded (web/clocks.py).
        self.watch_clock: Callable[[str, int | None], None] | None = None
        #: The outside engines the operator registered, by name, and how long one may take
        #: to answer (web/engines.py).
        self.engines: Mapping[str, engines.Engine] = {}
        self.engine_seconds = 30.0

    @property
    def transactions(self) -> Transactions:
        """The transactions the service writes in (the community's reads use them too)."""
        return self._tx

    def _lock(self, match_id: str) -> threading.Lock:
        return self._locks[hash(match_id) % len(self._locks)]

    def _read(self, match_id: str) -> Loaded:
        """The live state when it is the database's revision, else the match as the database
        has it (kept live). One read transaction either way."""
        cached: Loaded | None = self.live.get(match_id)
        stored = self._tx.run(lambda c: _read_stored(c, match_id, cached), read_only=True)
        if stored is None:
            assert cached is not None  # _read_stored answers None only for a current cache
            return cached
        loaded = self._rebuild(match_id, *stored, cached=cached)
        self.live.put(match_id, loaded)
        return loaded

    def _rebuild(
        self,
        match_id: str,
        row: Any,
        hashes: dict[int, str],
        rows: list[Any],
        changes: tuple[RatingChange, ...],
        holders: dict[int, SeatPlayer],
        *,
        cached: Loaded | None,
    ) -> Loaded:
        """The match as stored (``row``, its seats' ``hashes``, action ``rows`` and rating
        ``changes``). From
        ``cached`` (an older live state of it) when the stored actions continue its own
        (another server process played on): only the new actions are applied. Anything else
        (an undo elsewhere, no live state) replays every action."""
        if cached is not None:
            caught_up = _catch_up(cached, [r.action for r in rows])
            if caught_up is not None:
                state, played = caught_up
                return replace(
                    cached,
                    state=state,
                    played=played,
                    token_hashes=hashes,
                    rating_changes=changes,
                    players=holders,
                    **_stored(row),
                )
        self.replays += 1
        state = _replay(match_id, row, rows)
        mode = cast(schemas.Mode, row.mode)  # written from a validated request
        match = Match(
            row.id,
            state.game,
            row.seed,
            mode,
            row.level,
            row.human_seat,
            bool(row.assist),
            bool(row.rated),
        )
        return Loaded(
            match,
            state,
            hashes,
            played=Played.of(state),
            rating_changes=changes,
            players=holders,
            **_stored(row),
        )


def _replay(match_id: str, row: Any, rows: list[Any]) -> State:
    """The match's state, every stored action replayed through the engine: refused when its
    rules changed since, an error (logged, never patched) when it does not replay."""
    try:
        game = make(row.game, json.loads(row.options))
    except (FlipgamesError, ValueError) as exc:
        log.error("match %s does not replay from the database: %s", match_id, exc)
        raise CorruptMatchError(f"match {match_id!r} does not replay: {exc}") from exc
    if row.rules_version != rules_version(game):
        raise ApiError(
            409,
            "rules_changed",
            f"match {match_id!r} was played under version {row.rules_version} of the "
            f"{game.title} rules; this server plays version {rules_version(game)}, so it "
            "cannot be replayed here",
        )
    try:
        if [r.ply for r in rows] != list(range(len(rows))):
            raise ValueError(f"its plies are not 0..{len(rows) - 1}")
        return game.state_from_actions([r.action for r in rows])
    except (FlipgamesError, ValueError) as exc:
        log.error("match %s does not replay from the database: %s", match_id, exc)
        raise CorruptMatchError(f"match {match_id!r} does not replay: {exc}") from exc


def _catch_up(cached: Loaded, stored: list[str]) -> tuple[State, Played] | None:
    """``cached`` moved on by the stored actions after its own, or None when the stored
    actions do not begin with its own (then the match must be replayed)."""
    played = cached.record
    if stored[: len(played.history)] != list(played.history):
        return None
    state = cached.state
    try:
        for notation in stored[len(played.history) :]:
            action = state.parse_action(notation)
            played = played.then(state, action)
            state = state.apply(action)
    except FlipgamesError:
        return None  # the full replay says what is wrong
    return state, played


#: What :func:`_read_stored` reads of a match: its row, its seats' token hashes, its actions,
#: its rating changes and its seats' players.
_Stored = tuple[Any, dict[int, str], list[Any], tuple[RatingChange, ...], dict[int, SeatPlayer]]


def _read_stored(connection: Connection, match_id: str, cached: Loaded | None) -> _Stored | None:
    """The match's row, its seats' token hashes, its actions and (rated) its rating
    changes, or None when ``cached`` is at the stored revision already (then only the row
    was read)."""
    row = connection.execute(select(matches).where(matches.c.id == match_id)).one_or_none()
    if row is None:
        raise not_found(match_id)
    if cached is not None and row.revision == cached.revision:
        return None
    seated = _seats(connection, match_id)
    hashes = {row.seat: row.token_hash for row in seated}
    rows = connection.execute(
        select(actions.c.ply, actions.c.action)
        .where(actions.c.match_id == match_id)
        .order_by(actions.c.ply)
    ).all()
    changes = ratings.changes_of(connection, match_id) if row.rated else ()
    return row, hashes, list(rows), changes, _holders(seated)


def _seats(connection: Connection, match_id: str) -> list[Any]:
    """The match's seats: token hash, player id, name and whether it is a deleted or a
    disabled player."""
    query = (
        select(
            seats.c.seat,
            seats.c.token_hash,
            seats.c.player_id,
            players.c.name,
            players.c.deleted,
            players.c.disabled,
        )
        .outerjoin(players, players.c.id == seats.c.player_id)
        .where(seats.c.match_id == match_id)
    )
    return list(connection.execute(query))


def _holders(seated: list[Any]) -> dict[int, SeatPlayer]:
    return {
        row.seat: SeatPlayer(row.player_id, shown_name(row.name, row.deleted), bool(row.disabled))
        for row in seated
        if row.player_id is not None
    }


def seat_holders(connection: Connection, match_id: str) -> dict[int, SeatPlayer]:
    """The players holding the match's seats, by seat."""
    return _holders(_seats(connection, match_id))


def _stored(row: Any) -> dict[str, Any]:
    """What a match's row holds besides its game and actions, as :class:`Loaded` fields (one
    list, so a new column reaches both a replay and a catch-up)."""
    return {
        "revision": row.revision,
        "ending": row.ending,
        "ending_result": row.ending_result,
        "draw_offer": row.draw_offer,
        "rematch_id": row.rematch_id,
        "clock": clocks.from_row(row),
        "ending_detail": row.ending_detail,
        "takeback_offer": row.takeback_offer,
    }


def settle(connection: Connection, loaded: Loaded, result: str) -> tuple[RatingChange, ...]:
    """In the transaction that ends ``loaded``'s match with ``result``: a rated match's
    rating changes, written (see web/community/ratings.py); nothing for an unrated one."""
    match = loaded.match
    if not match.rated:
        return ()
    return ratings.settle(connection, match.id, match.game.name, result)


def bump(connection: Connection, loaded: Loaded, origin: str = "", **values: Any) -> None:
    """Move the match's revision on from the one ``loaded`` was read at (setting ``values``
    of the match's row with it), or fail. On PostgreSQL the change is announced to the other
    server processes when the transaction commits."""
    changed = connection.execute(
        update(matches)
        .where(matches.c.id == loaded.match.id, matches.c.revision == loaded.revision)
        .values(revision=loaded.revision + 1, ai_claim_revision=None, **values)
    )
    if changed.rowcount != 1:
        raise StaleRevision(loaded.match.id)
    if connection.dialect.name == "postgresql":
        notify(connection, CHANNEL, f"{origin}:{loaded.match.id}")
