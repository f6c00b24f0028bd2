"""The match service: every rule of the arcade that is not HTTP.

A request is served from the match's live state (kept in memory, see :class:`LiveMatches`,
and checked against the database's revision of the match), checked against that state, and
the accepted action committed before the answer (the routes broadcast after the service
returns). Chance outcomes that follow an action are drawn and committed at once, each on its
own, so nothing is ever decided before the game reaches it. The AI's moves are not made here:
:meth:`MatchService.ai_job` says what the computer must decide, a worker process decides it
(:mod:`flipgames.web.aimoves`), and :meth:`MatchService.commit_ai` commits the answer if the
match is still where it was.

>>> from flipgames.web.ai import Solutions
>>> from flipgames.web.db import make_engine, migrate
>>> engine = make_engine("sqlite://")
>>> _ = migrate(engine)
>>> service = MatchService(engine, Solutions())
>>> created = service.create(
...     "flipflop-3x3", {}, mode="ai", level="easy", seat=0, seed=1, assist=None
... )
>>> view = service.act(created.match_id, created.token, "b1xb3", ply=0)
>>> view.history, view.current_player, view.thinking
(['b1xb3'], 1, True)
>>> job = service.ai_job(service.load(created.match_id))
>>> job.actions, job.level
(('b1xb3',), 'easy')
>>> after = service.commit_ai(created.match_id, job, "a3xb3")
>>> after is not None and after.state.history_notation()
['b1xb3', 'a3xb3']
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import logging
import random
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Any, cast

from sqlalchemy import Connection, Engine, delete, insert, or_, select, text, update
from sqlalchemy.exc import IntegrityError

from flipgames.core.errors import (
    FlipgamesError,
    IllegalActionError,
    NotationError,
    UnknownGameError,
)
from flipgames.core.game import Game, State, sample_chance
from flipgames.core.manifest import manifest_of
from flipgames.core.record import make_record
from flipgames.core.registry import game_class, make
from flipgames.web import clocks, engines, schemas
from flipgames.web.ai import Solutions
from flipgames.web.aipool import AiJob
from flipgames.web.db import Transactions, actions, matches, seats
from flipgames.web.errors import ApiError, CorruptMatchError, bad_token, not_found, unavailable

log = logging.getLogger(__name__)

Viewer = frozenset[int]
SPECTATOR: Viewer = frozenset()

# Option values from the web are names, never paths: some options (a Checkered Flag track)
# also accept a file path, and a browser must not make the server read its files.
_OPTION_TEXT = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The most characters of a forfeit's reason kept: an outside engine's own words are copied
#: into it, and a program may print kilobytes that every view would then carry.
MAX_DETAIL = 200


def capped(text: str, limit: int = MAX_DETAIL) -> str:
    """``text`` on one line, cut to at most ``limit`` characters with an ellipsis.

    >>> capped("engine toy said: " + "x" * 500)[-5:], len(capped("x" * 500))
    ('xxxx…', 200)
    >>> capped("engine toy   exited:  status 1")  # lines and runs of spaces become one space
    'engine toy exited: status 1'
    """
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class Match:
    """A match's fixed facts, as stored."""

    id: str
    game: Game
    seed: int
    mode: schemas.Mode
    level: str | None
    human_seat: int | None
    #: Hints and analysis are offered (to every seat alike).
    assist: bool


@dataclass(frozen=True)
class Played:
    """What every view shows of a match's past: each action in notation, as structured data
    (``State.action_info`` with ``by``) and who made it. Extended by one entry per committed
    action, so a view costs no replay of the history's notation.

    >>> from flipgames import make
    >>> state = make("flipflop-3x3").new_initial_state()
    >>> played = Played().then(state, state.parse_action("b1xb3"))
    >>> played.history, played.actors, played.moves[0]["kind"]
    (('b1xb3',), (0,), 'capture')
    """

    history: tuple[str, ...] = ()
    moves: tuple[dict[str, Any], ...] = ()
    actors: tuple[int, ...] = ()

    def then(self, before: State, action: int) -> Played:
        """This record followed by ``action``, played in ``before``."""
        info = before.action_info(action)
        by = before.current_player
        return Played(
            (*self.history, str(info["text"])),
            (*self.moves, {**info, "by": by}),
            (*self.actors, by),
        )

    def upto(self, ply: int) -> Played:
        """The record of the first ``ply`` actions (after an undo)."""
        return Played(self.history[:ply], self.moves[:ply], self.actors[:ply])

    @staticmethod
    def of(state: State) -> Played:
        """The record of every action that led to ``state``."""
        played = Played()
        path = _path(state)
        for before, action in zip(path[:-1], state.history, strict=True):
            played = played.then(before, action)
        return played


@dataclass(frozen=True)
class Loaded:
    """A match with its current state, rebuilt from the committed actions.

    Immutable: a change makes a new one (see :meth:`MatchService._commit`), so what a view
    needs from the state alone (its text picture, its legal actions) is worked out once per
    ``Loaded`` and shared by every viewer's view.
    """

    match: Match
    state: State
    token_hashes: Mapping[int, str]
    #: The database's revision of the match this state is (see ``matches.revision``).
    revision: int
    #: How the match ended outside the engine ("resignation", "agreement"), and its result.
    ending: str | None = None
    ending_result: str | None = None
    #: The seat offering a draw now, if any.
    draw_offer: int | None = None
    #: The match that followed this one (a rematch), if any.
    rematch_id: str | None = None
    #: The clocks of a clocked match (see web/clocks.py).
    clock: clocks.Clock | None = None
    #: A forfeit's reason in words.
    ending_detail: str | None = None

    #: The public record of ``state``'s actions; None: work it out when first needed.
    played: Played | None = None

    @cached_property
    def record(self) -> Played:
        """``played``, worked out from the state when it was not given."""
        return self.played if self.played is not None else Played.of(self.state)

    @cached_property
    def text(self) -> str:
        """The state's text picture (the same for every viewer)."""
        return self.state.render()

    @cached_property
    def legal(self) -> tuple[list[str], list[dict[str, Any]]]:
        """The legal actions in notation and as structured actions (for the seat to move)."""
        state = self.state
        info = state.legal_actions_info()
        return [str(i["text"]) for i in info], info

    @property
    def over(self) -> bool:
        """Finished: by the rules, by a resignation or by an agreed draw."""
        return self.ending is not None or self.state.is_terminal()

    @property
    def result(self) -> str:
        return self.ending_result or self.state.result()


class StaleRevision(Exception):
    """Another writer changed the match since it was read (another process, or a race)."""


def rules_version(game: Game) -> int:
    """The version of ``game``'s rules: a game class whose rules change (so that recorded
    actions would replay differently) raises its ``rules_version``; 1 when it has none.

    >>> from flipgames import make
    >>> rules_version(make("flipflop-3x3"))
    1
    """
    version = getattr(type(game), "rules_version", 1)
    return version if isinstance(version, int) else 1


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


@dataclass(frozen=True)
class CreatedMatch:
    match_id: str
    seat: int
    token: str
    invite_token: str | None
    view: schemas.View


def hash_token(token: str) -> str:
    """The stored form of a seat token.

    >>> len(hash_token("secret"))
    64
    """
    return hashlib.sha256(token.encode()).hexdigest()


def _chance_rng(seed: int, ply: int) -> random.Random:
    # One generator per ply: a chance outcome depends only on the seed and when it happens,
    # so re-drawing after a crash gives the same outcome and no draw happens early. (Undo
    # never goes back past a chance outcome, so it cannot re-draw one: see undo_target.)
    return random.Random(f"{seed}:{ply}")


class MatchService:
    """Create, load, act, undo, hint and analyse matches stored in ``engine``'s database.

    Actions on one match are serialised by an in-process lock, and across processes by the
    match's revision: a write names the revision it read and fails if it has moved on (and the
    (match, ply) primary key refuses a second writer for the same ply), so a match never forks.
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

    def _lock(self, match_id: str) -> threading.Lock:
        return self._locks[hash(match_id) % len(self._locks)]

    # --- games ------------------------------------------------------------------------------

    @staticmethod
    def game(name: str, options: Mapping[str, object] | None = None) -> Game:
        """Make a game from web input: ``unknown_game`` or ``bad_option`` when it cannot be."""
        try:
            cls = game_class(name)
        except UnknownGameError as exc:
            raise ApiError(404, "unknown_game", str(exc)) from None
        declared = {option.name: option for option in cls.option_spec}
        for key, value in (options or {}).items():
            option = declared.get(key)
            if option is not None and isinstance(option.default, int) and isinstance(value, str):
                # The API is strict about types (docs/web-api.md): "2" is not a number.
                raise ApiError(
                    422,
                    "bad_option",
                    f"bad value {value!r} for option {key!r}: it is a number, so send it as "
                    f"a JSON number, not a string ({option.allowed()})",
                )
            if isinstance(value, str) and not _OPTION_TEXT.fullmatch(value):
                raise ApiError(
                    422,
                    "bad_option",
                    f"bad value {value!r} for option {key!r}: the web takes names made of "
                    "letters, digits, '_' and '-' (no file paths)",
                )
        try:
            return cls(options)
        except FlipgamesError as exc:
            raise ApiError(422, "bad_option", str(exc)) from None

    # --- create -----------------------------------------------------------------------------

    def create(
        self,
        game_name: str,
        options: Mapping[str, object],
        *,
        mode: schemas.Mode,
        level: str | None,
        seat: int,
        seed: int | None,
        assist: bool | None,
        clock: clocks.TimeControl | None = None,
    ) -> CreatedMatch:
        """Create a match and return the creator's token (and the invitee's, online).

        ``assist`` (hints and analysis, for both seats) defaults to on against the AI and off
        between two people.
        """
        game = self.game(game_name, options)
        if not 0 <= seat < game.num_players:
            raise ApiError(422, "bad_request", f"seat must be 0..{game.num_players - 1}: {seat}")
        if mode == "ai":
            level = level or "easy"
            levels = self.solutions.levels(game) + engines.levels_for(self.engines, game)
            if level not in levels:
                if level == "perfect":
                    raise unavailable(
                        f"no perfect level for {game.title} with these options: it is not "
                        "solved, or its solution is not cached (flipgames solve)"
                    )
                raise ApiError(
                    422,
                    "bad_option",
                    f"unknown level {level!r} for {game.title}: levels are {', '.join(levels)}",
                )
        elif level is not None:
            raise ApiError(
                422,
                "bad_request",
                f"a level is for matches against the computer (mode ai), not {mode} ones",
            )
        if mode == "online" and seed is not None:
            raise ApiError(
                422,
                "bad_request",
                "an online match cannot be given a seed: its creator could foresee every "
                "chance outcome (tiles, spinners)",
            )
        if clock is not None and mode != "online":
            raise ApiError(
                422,
                "bad_request",
                "clocks are for online matches between two people (the computer takes no "
                "time, and one screen has one player to move)",
            )
        if seed is None:
            seed = secrets.randbelow(schemas.MAX_SEED + 1)
        token = secrets.token_urlsafe(24)
        invite = secrets.token_urlsafe(24) if mode == "online" else None
        tokens = {seat: token}
        if invite is not None:
            tokens[1 - seat] = invite
        elif mode == "local":
            tokens[1 - seat] = token  # one screen, one token for both seats
        match = Match(
            id=secrets.token_urlsafe(9),
            game=game,
            seed=seed,
            mode=mode,
            level=level,
            human_seat=seat if mode == "ai" else None,
            assist=mode == "ai" if assist is None else assist,
        )

        clock_state = None if clock is None else clocks.start(clock, game.num_players)

        def insert_match(connection: Connection) -> None:
            connection.execute(
                insert(matches).values(
                    id=match.id,
                    game=game.name,
                    options=json.dumps(game.options),
                    seed=seed,
                    mode=mode,
                    level=level,
                    human_seat=match.human_seat,
                    created_at=datetime.now(UTC),
                    assist=match.assist,
                    rules_version=rules_version(game),
                    revision=0,
                    **clocks.columns(clock_state),
                )
            )
            connection.execute(
                insert(seats),
                [
                    {"match_id": match.id, "seat": s, "token_hash": hash_token(t)}
                    for s, t in tokens.items()
                ],
            )

        self._tx.run(insert_match)
        hashes = {s: hash_token(t) for s, t in tokens.items()}
        with self._lock(match.id):
            loaded = Loaded(
                match, game.new_initial_state(), hashes, 0, clock=clock_state, played=Played()
            )
            self.live.put(match.id, loaded)
            loaded = self._chance(loaded)
        view = self.view(loaded, self.viewer(loaded, token))
        return CreatedMatch(match.id, seat, token, invite, view)

    # --- load and view ----------------------------------------------------------------------

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
            now = clocks.now_ms()
            if clock is None or not clocks.flag_due(
                clock, loaded.state, over=loaded.over, now_ms=now
            ):
                return loaded
            loser = loaded.state.current_player
            values: dict[str, Any] = {
                "ending": "timeout",
                "ending_result": "0-1" if loser == 0 else "1-0",
                "draw_offer": None,
            }
            stopped = clocks.flagged(clock, loaded.state)
            write = functools.partial(
                _bump, loaded=loaded, origin=self.origin, **values, **clocks.columns(stopped)
            )
            try:
                self._tx.run(write)
            except StaleRevision:
                loaded = self._read(loaded.match.id)
                continue
            loaded = replace(
                loaded,
                revision=loaded.revision + 1,
                clock=stopped,
                ending="timeout",
                ending_result=values["ending_result"],
                draw_offer=None,
            )
            self.live.put(loaded.match.id, loaded)
            return loaded
        return loaded

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
        *,
        cached: Loaded | None,
    ) -> Loaded:
        """The match as stored (``row``, its seats' ``hashes`` and action ``rows``). From
        ``cached`` (an older live state of it) when the stored actions continue its own
        (another server process played on): only the new actions are applied. Anything else
        (an undo elsewhere, no live state) replays every action."""
        if cached is not None:
            caught_up = self._catch_up(cached, [r.action for r in rows])
            if caught_up is not None:
                state, played = caught_up
                return replace(
                    cached, state=state, played=played, token_hashes=hashes, **_stored(row)
                )
        self.replays += 1
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
            state = game.state_from_actions([r.action for r in rows])
        except (FlipgamesError, ValueError) as exc:
            log.error("match %s does not replay from the database: %s", match_id, exc)
            raise CorruptMatchError(f"match {match_id!r} does not replay: {exc}") from exc
        mode = cast(schemas.Mode, row.mode)  # written from a validated request
        match = Match(row.id, game, row.seed, mode, row.level, row.human_seat, bool(row.assist))
        return Loaded(match, state, hashes, played=Played.of(state), **_stored(row))

    @staticmethod
    def _catch_up(cached: Loaded, stored: list[str]) -> tuple[State, Played] | None:
        """``cached`` moved on by the stored actions after its own, or None when the stored
        actions do not begin with its own (then the match must be replayed)."""
        played = cached.record
        if stored[: len(played.history)] != list(played.history):
            return None
        state = cached.state
        try:
            for text in stored[len(played.history) :]:
                action = state.parse_action(text)
                played = played.then(state, action)
                state = state.apply(action)
        except FlipgamesError:
            return None  # the full replay says what is wrong
        return state, played

    @staticmethod
    def viewer(loaded: Loaded, token: str | None, *, required: bool = False) -> Viewer:
        """The seats ``token`` controls (empty for a spectator: no token).

        A token that is given but wrong is refused, as is a missing one when ``required``.
        """
        if not token:
            if required:
                raise bad_token("this needs your seat token")
            return SPECTATOR
        digest = hash_token(token)
        matched = [
            seat
            for seat, stored in sorted(loaded.token_hashes.items())
            if hmac.compare_digest(stored, digest)
        ]
        if not matched:
            raise bad_token("the token is not a seat of this match")
        return frozenset(matched)

    @staticmethod
    def view(loaded: Loaded, viewer: Viewer) -> schemas.View:
        """The match as ``viewer`` may see it: their observation, their legal actions."""
        state = loaded.state
        match = loaded.match
        current = state.current_player
        seat = None if not viewer else current if current in viewer else min(viewer)
        played = loaded.record
        last = None
        if played.history:
            last = schemas.LastAction(action=played.history[-1], by=played.actors[-1])
        undo = (
            match.mode == "ai"
            and loaded.ending is None
            and match.human_seat in viewer
            and undo_target(_path(state), match.human_seat) is not None
        )
        over = loaded.over
        # An ending outside the engine (resignation, agreement) leaves no one to move.
        legal, legal_info = loaded.legal if current in viewer and not over else ([], [])
        return schemas.View(
            id=match.id,
            game=match.game.name,
            title=match.game.title,
            board=manifest_of(match.game).board,
            options=dict(match.game.options),
            mode=match.mode,
            level=match.level,
            seat=seat,
            seats=sorted(viewer),
            players=list(match.game.player_names),
            ply=len(played.history),
            current_player=current,
            status="finished" if over else "playing",
            result=loaded.result,
            returns=_returns(loaded.result) if loaded.ending else list(state.returns()),
            observation=state.observation(seat),
            legal=legal,
            legal_actions=legal_info,
            history=list(played.history),
            moves=list(played.moves),
            actors=list(played.actors),
            last=last,
            assist=match.assist,
            undo=undo,
            thinking=computer_to_move(loaded),
            ending=cast(schemas.Ending | None, loaded.ending),
            ending_detail=loaded.ending_detail,
            clock=clocks.view(loaded.clock, state, over=over, now_ms=clocks.now_ms()),
            draw_offer=loaded.draw_offer,
            rematch=loaded.rematch_id,
            text=loaded.text,
        )

    # --- act and undo -----------------------------------------------------------------------

    def act(self, match_id: str, token: str | None, text: str, ply: int | None) -> schemas.View:
        """Check and commit one action, then its follow-ups; return the actor's view."""
        return self.view(*self.play(match_id, token, text, ply))

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
            loaded, viewer = played
            return self._watch(self._chance(loaded)), viewer

    def _play(
        self, loaded: Loaded, token: str | None, text: str, ply: int | None
    ) -> tuple[Loaded, Viewer]:
        state = loaded.state
        viewer = self.viewer(loaded, token, required=True)
        if loaded.over:
            raise game_over(loaded)
        current_ply = len(loaded.record.history)
        if ply is not None and ply != current_ply:
            raise ApiError(409, "stale", f"the match is at ply {current_ply}, not {ply}: reload it")
        if state.current_player not in viewer:
            if computer_to_move(loaded):
                raise ApiError(409, "not_your_turn", "the computer is thinking")
            raise ApiError(409, "not_your_turn", "it is not your turn")
        try:
            action = state.parse_action(text)
        except NotationError as exc:
            raise ApiError(422, "malformed_action", str(exc)) from None
        except IllegalActionError as exc:
            raise ApiError(422, "illegal_action", str(exc)) from None
        return self._commit(loaded, action), viewer

    def undo(self, match_id: str, token: str | None) -> schemas.View:
        """Against the AI: take back the human's last decision and everything after it, unless
        a chance outcome came after it (see :func:`undo_target`)."""
        with self._lock(match_id):
            loaded = self._read(match_id)
            viewer = self.viewer(loaded, token, required=True)
            match = loaded.match
            if match.mode != "ai":
                raise unavailable("undo exists only in matches against the AI")
            if loaded.ending is not None:
                raise unavailable(f"the match ended by {loaded.ending}: it cannot be undone")
            path = _path(loaded.state)
            if not any(s.current_player == match.human_seat for s in path[:-1]):
                raise unavailable("nothing to undo: you have not moved yet")
            target = undo_target(path, match.human_seat)
            if target is None:
                raise unavailable(
                    "undo cannot take back a move once a chance outcome (a tile's shape, a "
                    "spin) has followed it: that outcome stays as it fell"
                )

            def delete_from_target(connection: Connection) -> None:
                _bump(connection, loaded, self.origin)
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
                state=path[target],
                revision=loaded.revision + 1,
                played=loaded.record.upto(target),
            )
            self.live.put(match_id, back)
            return self.view(back, viewer)

    # --- resign, draw, rematch ---------------------------------------------------------------

    def resign(self, match_id: str, token: str | None) -> schemas.View:
        """The token's player gives up: the other wins. (On a shared screen, the player to
        move resigns.)"""
        with self._lock(match_id):
            loaded = self._current(match_id)
            viewer = self.viewer(loaded, token, required=True)
            if loaded.over:
                raise game_over(loaded)
            current = loaded.state.current_player
            seat = current if current in viewer else min(viewer)
            result = "0-1" if seat == 0 else "1-0"
            loaded = self._set(loaded, ending="resignation", ending_result=result, draw_offer=None)
            return self.view(loaded, viewer)

    def draw(self, match_id: str, token: str | None, answer: str) -> schemas.View:
        """Between two people online: ``offer`` a draw, or ``accept`` or ``decline`` the other
        player's offer. Offering when the other has offered already accepts it; a move by the
        other player declines it."""
        with self._lock(match_id):
            loaded = self._current(match_id)
            viewer = self.viewer(loaded, token, required=True)
            if loaded.match.mode != "online":
                raise unavailable("draws are offered only between two people online")
            if loaded.over:
                raise game_over(loaded)
            (seat,) = viewer  # online: one seat per token
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
            return self.view(loaded, viewer)

    def rematch(self, match_id: str, token: str | None) -> CreatedMatch:
        """A new match with the same game, options, mode, level and assistance, seats swapped.

        The first player to ask creates it; the other joins it by asking too. Each player's
        token for the rematch is derived from their token for this match, so asking again
        (another tab) gives the same seat, and no token is ever stored.
        """
        with self._lock(match_id):
            loaded = self._read(match_id)
            viewer = self.viewer(loaded, token, required=True)
            assert token is not None  # required above
            if not loaded.over:
                raise unavailable("a rematch can be asked for once the match is finished")
            new_id = loaded.rematch_id
            if new_id is None:
                new_id = secrets.token_urlsafe(9)
                self._create_rematch(loaded, new_id)
            new_token = rematch_token(token, new_id)
            seats_wanted = {1 - s for s in viewer}

            def join(connection: Connection) -> None:
                have = {
                    seat
                    for (seat,) in connection.execute(
                        select(seats.c.seat).where(seats.c.match_id == new_id)
                    )
                }
                rows = [
                    {"match_id": new_id, "seat": s, "token_hash": hash_token(new_token)}
                    for s in sorted(seats_wanted - have)
                ]
                if rows:
                    connection.execute(insert(seats), rows)
                    _bump_id(connection, new_id)

            self._tx.run(join)
        rematch = self.load(new_id)
        view = self.view(rematch, self.viewer(rematch, new_token))
        return CreatedMatch(new_id, min(seats_wanted), new_token, None, view)

    def _create_rematch(self, loaded: Loaded, new_id: str) -> None:
        old = loaded.match
        match = replace(
            old,
            id=new_id,
            seed=secrets.randbelow(schemas.MAX_SEED + 1),
            human_seat=None if old.human_seat is None else 1 - old.human_seat,
        )

        def write(connection: Connection) -> None:
            _bump(connection, loaded, self.origin, rematch_id=new_id)
            connection.execute(
                insert(matches).values(
                    id=new_id,
                    game=match.game.name,
                    options=json.dumps(match.game.options),
                    seed=match.seed,
                    mode=match.mode,
                    level=match.level,
                    human_seat=match.human_seat,
                    created_at=datetime.now(UTC),
                    assist=match.assist,
                    rules_version=rules_version(match.game),
                    revision=0,
                    **clocks.columns(
                        None
                        if loaded.clock is None
                        else clocks.start(loaded.clock.control, match.game.num_players)
                    ),
                )
            )

        try:
            self._tx.run(write)
        except StaleRevision:
            raise ApiError(409, "stale", "the match changed meanwhile: ask again") from None
        self.live.put(old.id, replace(loaded, revision=loaded.revision + 1, rematch_id=new_id))

    def _set(self, loaded: Loaded, **values: Any) -> Loaded:
        """Change the match's row (ending, draw offer) with its revision; the new live state."""
        clock = loaded.clock
        if clock is not None and values.get("ending"):
            # The match ends: the running clock stops, charged up to now.
            clock = clocks.stop(clock, loaded.state, now_ms=clocks.now_ms())
        columns = clocks.columns(clock) if clock is not loaded.clock else {}
        try:
            self._tx.run(
                lambda connection: _bump(connection, loaded, self.origin, **values, **columns)
            )
        except StaleRevision:
            raise ApiError(409, "stale", "the match changed meanwhile: reload it") from None
        after = replace(loaded, revision=loaded.revision + 1, clock=clock, **values)
        self.live.put(loaded.match.id, after)
        return after

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

        def write(connection: Connection) -> None:
            _bump(connection, loaded, self.origin, draw_offer=offer, **clocks.columns(clock))
            connection.execute(
                insert(actions).values(match_id=loaded.match.id, ply=ply, action=text)
            )

        self._tx.run(write)
        after = replace(
            loaded,
            state=new_state,
            revision=loaded.revision + 1,
            draw_offer=offer,
            clock=clock,
            played=loaded.record.then(state, action),
        )
        self.live.put(loaded.match.id, after)
        return after

    def _chance(self, loaded: Loaded) -> Loaded:
        """Draw and commit, one by one, the chance outcomes due in ``loaded`` (they are
        cheap: a draw from the seed, never a search)."""
        while loaded.state.is_chance_node():
            state = loaded.state
            action = sample_chance(state, _chance_rng(loaded.match.seed, len(state.history)))
            loaded = self._commit(loaded, action)
        return loaded

    # --- the AI's moves ---------------------------------------------------------------------

    def ai_job(self, loaded: Loaded) -> AiJob | None:
        """What the computer must decide in ``loaded``, or None when it is not to move."""
        match = loaded.match
        if not computer_to_move(loaded) or match.level is None:
            return None
        engine = self.engines.get(engines.engine_name(match.level) or "")
        return AiJob(
            game=match.game.name,
            options=dict(match.game.options),
            actions=tuple(loaded.state.history_notation()),
            level=match.level,
            seed=match.seed,
            engine=None if engine is None else engine.command,
            engine_seconds=self.engine_seconds,
        )

    def forfeit(self, match_id: str, job: AiJob, detail: str) -> Loaded | None:
        """The computer (an outside engine, or a built-in level that failed twice) could not
        make the move ``job`` asked for: the match ends, won by the human, with ``detail``
        saying why, cut to :data:`MAX_DETAIL` characters (None when the match has moved
        on)."""
        with self._lock(match_id):
            loaded = self._read(match_id)
            if self.ai_job(loaded) != job:
                return None
            human = loaded.match.human_seat
            values: dict[str, Any] = {
                "ending": "forfeit",
                "ending_result": "1-0" if human == 0 else "0-1",
                "ending_detail": capped(detail),
                "draw_offer": None,
            }
            try:
                self._tx.run(functools.partial(_bump, loaded=loaded, origin=self.origin, **values))
            except StaleRevision:
                return None
            after = replace(
                loaded,
                revision=loaded.revision + 1,
                ending="forfeit",
                ending_result=values["ending_result"],
                ending_detail=values["ending_detail"],
            )
            self.live.put(match_id, after)
            return after

    def claim_ai(self, loaded: Loaded, *, seconds: float = 120.0) -> bool:
        """Claim the computer's move in ``loaded`` for this process, so that with several
        server processes on one database it is worked out once. A claim lasts ``seconds``
        (a process that died frees it then) or until the match changes."""
        now = datetime.now(UTC)
        claimed = self._tx.run(
            lambda connection: (
                connection.execute(
                    update(matches)
                    .where(
                        matches.c.id == loaded.match.id,
                        matches.c.revision == loaded.revision,
                        or_(
                            matches.c.ai_claim_revision.is_(None),
                            matches.c.ai_claim_revision != loaded.revision,
                            matches.c.ai_claim_until < now,
                        ),
                    )
                    .values(
                        ai_claim_revision=loaded.revision,
                        ai_claim_until=now + timedelta(seconds=seconds),
                    )
                ).rowcount
            )
        )
        return bool(claimed == 1)

    def release_ai(self, loaded: Loaded) -> None:
        """Give up a claim (the move was cancelled): another process may take it at once."""
        self._tx.run(
            lambda connection: connection.execute(
                update(matches)
                .where(
                    matches.c.id == loaded.match.id,
                    matches.c.ai_claim_revision == loaded.revision,
                )
                .values(ai_claim_revision=None, ai_claim_until=None)
            )
        )

    def commit_ai(self, match_id: str, job: AiJob, move: str) -> Loaded | None:
        """Commit the computer's ``move`` for ``job`` (and the chance outcomes after it), or
        None when the match has moved on meanwhile (an undo): the move is no longer wanted."""
        with self._lock(match_id):
            loaded = self._read(match_id)
            if self.ai_job(loaded) != job:
                return None
            action = loaded.state.parse_action(move)  # a worker's answer is checked like any
            try:
                loaded = self._commit(loaded, action)
            except (IntegrityError, StaleRevision):
                return None  # another process committed it first
            return self._chance(loaded)

    # --- help: hint and analysis ------------------------------------------------------------

    def hint(self, match_id: str, token: str | None) -> schemas.Hint:
        """The best action for the seat to move, by the strongest level the game has:
        ``perfect`` where the solution is ready, else ``hard``."""
        loaded = self.load(match_id)
        self.viewer(loaded, token, required=True)
        _require_assist(loaded.match)
        state = self._to_move(loaded, token)
        game = state.game
        level = self.solutions.levels(game)[-1]  # weakest first
        rng = random.Random(f"{loaded.match.seed}:{len(state.history)}:hint")
        action = self.solutions.agent(game, level, rng).choose(state)
        return schemas.Hint(action=state.action_to_string(action), level=level)

    def analysis(self, match_id: str, token: str | None) -> schemas.Analysis:
        """Every legal action with its perfect-play value for the player to move."""
        loaded = self.load(match_id)
        self.viewer(loaded, token, required=True)
        _require_assist(loaded.match)
        state = loaded.state
        game = state.game
        if not self.solutions.ready(game):
            raise unavailable(
                f"no analysis for {game.title} with these options: it is not solved, or its "
                "solution is not cached (flipgames solve)"
            )
        if loaded.over:
            raise game_over(loaded)
        solution = self.solutions.get(game)
        chance = game.has_chance
        # Deterministic games: win, draw or loss in words; chance games: the expected return
        # (-1..1) for the player to move.
        return schemas.Analysis(
            actions=[
                schemas.ActionValue(
                    action=state.action_to_string(action),
                    value=float(value) if chance or value.outcome is None else value.outcome,
                    remoteness=value.remoteness,
                )
                for action, value in sorted(solution.action_values(state).items())
            ]
        )

    def _to_move(self, loaded: Loaded, token: str | None) -> State:
        viewer = self.viewer(loaded, token, required=True)
        state = loaded.state
        if loaded.over:
            raise game_over(loaded)
        if state.current_player not in viewer:
            raise ApiError(409, "not_your_turn", "it is not your turn")
        return state

    # --- records ----------------------------------------------------------------------------

    def record(self, match_id: str) -> schemas.Record:
        """The engine's record; the seed only once the match is over (it foretells chance)."""
        loaded = self.load(match_id)
        state = loaded.state
        seed = loaded.match.seed if loaded.over else None
        record = make_record(state, seed=seed)
        if loaded.ending is not None:
            record["ending"] = {"reason": loaded.ending, "result": loaded.result}
            if loaded.ending_detail:
                record["ending"]["detail"] = loaded.ending_detail
        if loaded.clock is not None:
            record["clock"] = clocks.record_entry(loaded.clock)
        return schemas.Record.model_validate(record)

    def replay(self, match_id: str) -> schemas.Replay:
        """Spectator snapshots of a finished match: the start, then after every action."""
        loaded = self.load(match_id)
        final = loaded.state
        if not loaded.over:
            raise unavailable("a match can be replayed once it is finished")
        state = final.game.new_initial_state()
        frames = [self._frame(state, None, None)]
        for action in final.history:
            text, by = state.action_to_string(action), state.current_player
            state = state.apply(action)
            frames.append(self._frame(state, text, by))
        return schemas.Replay(frames=frames)

    def position(self, match_id: str, ply: int) -> schemas.Frame:
        """The position after ``ply`` actions, as a spectator saw it then (to look back during
        play: nothing in it was hidden from spectators at the time)."""
        loaded = self.load(match_id)
        path = _path(loaded.state)
        if not 0 <= ply < len(path):
            raise ApiError(
                422, "bad_request", f"ply must be 0..{len(path) - 1} in this match: {ply}"
            )
        state = path[ply]
        if ply == 0:
            return self._frame(state, None, None)
        before = path[ply - 1]
        return self._frame(state, before.action_to_string(state.history[-1]), before.current_player)

    @staticmethod
    def _frame(state: State, action: str | None, by: int | None) -> schemas.Frame:
        return schemas.Frame(
            ply=len(state.history),
            action=action,
            by=by,
            current_player=state.current_player,
            status="finished" if state.is_terminal() else "playing",
            result=state.result(),
            returns=list(state.returns()),
            observation=state.observation(None),
            text=state.render(),
        )


def _read_stored(
    connection: Connection, match_id: str, cached: Loaded | None
) -> tuple[Any, dict[int, str], list[Any]] | None:
    """The match's row, its seats' token hashes and its actions, or None when ``cached`` is
    at the stored revision already (then only the row was read)."""
    row = connection.execute(select(matches).where(matches.c.id == match_id)).one_or_none()
    if row is None:
        raise not_found(match_id)
    if cached is not None and row.revision == cached.revision:
        return None
    hashes = {
        seat: digest
        for seat, digest in connection.execute(
            select(seats.c.seat, seats.c.token_hash).where(seats.c.match_id == match_id)
        )
    }
    rows = connection.execute(
        select(actions.c.ply, actions.c.action)
        .where(actions.c.match_id == match_id)
        .order_by(actions.c.ply)
    ).all()
    return row, hashes, list(rows)


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
    }


def _flag_due(loaded: Loaded) -> bool:
    """Whether the player to move in ``loaded`` has run out of time (never without a clock)."""
    clock = loaded.clock
    return clock is not None and clocks.flag_due(
        clock, loaded.state, over=loaded.over, now_ms=clocks.now_ms()
    )


def computer_to_move(loaded: Loaded) -> bool:
    """The computer has the move: an AI match, not over, the AI's seat to move."""
    state = loaded.state
    return (
        loaded.match.mode == "ai"
        and not loaded.over
        and not state.is_chance_node()
        and state.current_player != loaded.match.human_seat
    )


#: The PostgreSQL channel on which every change of a match is announced (payload
#: ``origin:match_id``), for the other server processes' WebSockets (see web/fanout.py).
CHANNEL = "flipgames_matches"


def _bump(connection: Connection, loaded: Loaded, origin: str = "", **values: Any) -> None:
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
        connection.execute(
            text("SELECT pg_notify(:channel, :payload)"),
            {"channel": CHANNEL, "payload": f"{origin}:{loaded.match.id}"},
        )


def rematch_token(token: str, rematch_id: str) -> str:
    """A player's token for a rematch: derived from their token for the match before, so
    only they can have it and it need not be stored.

    >>> rematch_token("secret", "m2") == rematch_token("secret", "m2") != rematch_token("x", "m2")
    True
    """
    digest = hmac.new(token.encode(), f"rematch:{rematch_id}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()[:24]).decode()


def _bump_id(connection: Connection, match_id: str) -> None:
    connection.execute(
        update(matches).where(matches.c.id == match_id).values(revision=matches.c.revision + 1)
    )


def game_over(loaded: Loaded) -> ApiError:
    how = f" by {loaded.ending}" if loaded.ending else ""
    return ApiError(409, "game_over", f"the match is finished{how} ({loaded.result})")


def _returns(result: str) -> list[int]:
    return {"1-0": [1, -1], "0-1": [-1, 1]}.get(result, [0, 0])


def _path(state: State) -> list[State]:
    """Every state from the start to ``state``: ``path[p]`` is the state before ply ``p``."""
    path = [state]
    while (parent := path[-1].parent) is not None:
        path.append(parent)
    path.reverse()
    return path


def undo_target(path: list[State], human_seat: int | None) -> int | None:
    """The ply an undo goes back to: the human's last decision with no chance outcome after it.

    Undo never goes back past a chance outcome (a Flip Switch tile's shape, a spin): the
    outcome would be seen and then drawn again (or dealt to another square, or to another
    gear), so a player could learn it or pick the draw they like. What undo can take back is
    a move and the computer's replies, as long as nothing was left to chance since.

    >>> from flipgames import make
    >>> game = make("flip-switch")
    >>> undo_target(_path(game.state_from_actions(["b2"])), 0)  # not revealed yet
    0
    >>> undo_target(_path(game.state_from_actions(["b2", "heart"])), 0) is None  # revealed
    True
    """
    last_chance = max((p for p, s in enumerate(path[:-1]) if s.is_chance_node()), default=-1)
    decisions = [
        p for p, s in enumerate(path[:-1]) if p > last_chance and s.current_player == human_seat
    ]
    return decisions[-1] if decisions else None


def _require_assist(match: Match) -> None:
    if not match.assist:
        raise unavailable(
            "hints and analysis are off in this match (its creator chose so for both players)"
        )
