"""The match service: every rule of the arcade that is not HTTP.

A request is served by loading the match (its committed actions replayed through the engine),
checking the request against that state, committing the accepted action, and only then
answering (the routes broadcast after the service returns). What follows a human action
without a decision by a person, chance outcomes and the AI's moves, is made here at once, each
committed on its own, so nothing is ever decided before the game reaches it.

>>> from flipgames.web.ai import Solutions
>>> from flipgames.web.db import make_engine, migrate
>>> engine = make_engine("sqlite://")
>>> _ = migrate(engine)
>>> service = MatchService(engine, Solutions())
>>> created = service.create(
...     "flipflop-3x3", {}, mode="local", level=None, seat=0, seed=1, assist=None
... )
>>> view = service.act(created.match_id, created.token, "b1xb3", ply=0)
>>> view.history, view.current_player
(['b1xb3'], 1)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import re
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Connection, Engine, delete, insert, select
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
from flipgames.web import schemas
from flipgames.web.ai import Solutions
from flipgames.web.db import Transactions, actions, matches, seats
from flipgames.web.errors import ApiError, CorruptMatchError, bad_token, not_found, unavailable

log = logging.getLogger(__name__)

Viewer = frozenset[int]
SPECTATOR: Viewer = frozenset()

# Option values from the web are names, never paths: some options (a Checkered Flag track)
# also accept a file path, and a browser must not make the server read its files.
_OPTION_TEXT = re.compile(r"[A-Za-z0-9_-]{1,64}")


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
class Loaded:
    """A match with its current state, rebuilt from the committed actions."""

    match: Match
    state: State
    token_hashes: Mapping[int, str]


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

    Actions on one match are serialised by an in-process lock, and the (match, ply) primary
    key refuses a second writer for the same ply, so a match never forks.
    """

    def __init__(
        self, engine: Engine, solutions: Solutions, transactions: Transactions | None = None
    ) -> None:
        self._tx = transactions or Transactions(engine)
        self.solutions = solutions
        self._locks = tuple(threading.Lock() for _ in range(64))

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
        for key, value in (options or {}).items():
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
            levels = self.solutions.levels(game)
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
        else:
            level = None
        if mode == "online" and seed is not None:
            raise ApiError(
                422,
                "bad_request",
                "an online match cannot be given a seed: its creator could foresee every "
                "chance outcome (tiles, spinners)",
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
        with self._lock(match.id):
            state = self._follow_up(match, game.new_initial_state())
        hashes = {s: hash_token(t) for s, t in tokens.items()}
        loaded = Loaded(match, state, hashes)
        view = self.view(loaded, self.viewer(loaded, token))
        return CreatedMatch(match.id, seat, token, invite, view)

    # --- load and view ----------------------------------------------------------------------

    def load(self, match_id: str) -> Loaded:
        """The match as committed, after making any pending chance or AI follow-ups (left by
        a server stopped between an action and its follow-ups)."""
        with self._lock(match_id):
            loaded = self._read(match_id)
            state = self._follow_up(loaded.match, loaded.state)
            if state is loaded.state:
                return loaded
            return Loaded(loaded.match, state, loaded.token_hashes)

    def _read(self, match_id: str) -> Loaded:
        def read(connection: Connection) -> tuple[Any, dict[int, str], list[Any]]:
            row = connection.execute(select(matches).where(matches.c.id == match_id)).one_or_none()
            if row is None:
                raise not_found(match_id)
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

        row, hashes, rows = self._tx.run(read, read_only=True)
        try:
            if [r.ply for r in rows] != list(range(len(rows))):
                raise ValueError(f"its plies are not 0..{len(rows) - 1}")
            game = make(row.game, json.loads(row.options))
            state = game.state_from_actions([r.action for r in rows])
        except (FlipgamesError, ValueError) as exc:
            log.error("match %s does not replay from the database: %s", match_id, exc)
            raise CorruptMatchError(f"match {match_id!r} does not replay: {exc}") from exc
        mode = cast(schemas.Mode, row.mode)  # written from a validated request
        match = Match(row.id, game, row.seed, mode, row.level, row.human_seat, bool(row.assist))
        return Loaded(match, state, hashes)

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
        parent = state.parent
        last = None
        if parent is not None and state.history:
            last = schemas.LastAction(
                action=parent.action_to_string(state.history[-1]), by=parent.current_player
            )
        path = _path(state)
        undo = (
            match.mode == "ai"
            and match.human_seat in viewer
            and undo_target(path, match.human_seat) is not None
        )
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
            ply=len(state.history),
            current_player=current,
            status="finished" if state.is_terminal() else "playing",
            result=state.result(),
            returns=list(state.returns()),
            observation=state.observation(seat),
            legal=[state.action_to_string(a) for a in state.legal_actions()]
            if current in viewer
            else [],
            legal_actions=state.legal_actions_info() if current in viewer else [],
            history=state.history_notation(),
            moves=[
                {**before.action_info(action), "by": before.current_player}
                for before, action in zip(path[:-1], state.history, strict=True)
            ],
            actors=[s.current_player for s in path[:-1]],
            last=last,
            assist=match.assist,
            undo=undo,
            text=state.render(),
        )

    # --- act and undo -----------------------------------------------------------------------

    def act(self, match_id: str, token: str | None, text: str, ply: int | None) -> schemas.View:
        """Check and commit one action, then its follow-ups; return the actor's view."""
        with self._lock(match_id):
            loaded = self._read(match_id)
            state = self._follow_up(loaded.match, loaded.state)
            viewer = self.viewer(loaded, token, required=True)
            if state.is_terminal():
                raise ApiError(409, "game_over", f"the match is finished ({state.result()})")
            current_ply = len(state.history)
            if ply is not None and ply != current_ply:
                raise ApiError(
                    409, "stale", f"the match is at ply {current_ply}, not {ply}: reload it"
                )
            if state.current_player not in viewer:
                raise ApiError(409, "not_your_turn", "it is not your turn")
            try:
                action = state.parse_action(text)
            except NotationError as exc:
                raise ApiError(422, "malformed_action", str(exc)) from None
            except IllegalActionError as exc:
                raise ApiError(422, "illegal_action", str(exc)) from None
            try:
                self._commit(match_id, current_ply, state.action_to_string(action))
            except IntegrityError:
                raise ApiError(
                    409, "stale", "another action was accepted first: reload the match"
                ) from None
            state = self._follow_up(loaded.match, state.apply(action))
            return self.view(Loaded(loaded.match, state, loaded.token_hashes), viewer)

    def undo(self, match_id: str, token: str | None) -> schemas.View:
        """Against the AI: take back the human's last decision and everything after it, unless
        a chance outcome came after it (see :func:`undo_target`)."""
        with self._lock(match_id):
            loaded = self._read(match_id)
            viewer = self.viewer(loaded, token, required=True)
            match = loaded.match
            if match.mode != "ai":
                raise unavailable("undo exists only in matches against the AI")
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
                connection.execute(
                    delete(actions).where(actions.c.match_id == match_id, actions.c.ply >= target)
                )

            self._tx.run(delete_from_target)
            return self.view(Loaded(match, path[target], loaded.token_hashes), viewer)

    def _commit(self, match_id: str, ply: int, text: str) -> None:
        self._tx.run(
            lambda connection: connection.execute(
                insert(actions).values(match_id=match_id, ply=ply, action=text)
            )
        )

    def _follow_up(self, match: Match, state: State) -> State:
        """Make and commit, one by one, the chance outcomes and AI moves due in ``state``."""
        while not state.is_terminal():
            ply = len(state.history)
            if state.is_chance_node():
                action = sample_chance(state, _chance_rng(match.seed, ply))
            elif match.mode == "ai" and match.level and state.current_player != match.human_seat:
                rng = random.Random(f"{match.seed}:{ply}:ai")
                action = self.solutions.agent(state.game, match.level, rng).choose(state)
            else:
                return state
            self._commit(match.id, ply, state.action_to_string(action))
            state = state.apply(action)
        return state

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
        if state.is_terminal():
            raise ApiError(409, "game_over", f"the match is finished ({state.result()})")
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
        if state.is_terminal():
            raise ApiError(409, "game_over", f"the match is finished ({state.result()})")
        if state.current_player not in viewer:
            raise ApiError(409, "not_your_turn", "it is not your turn")
        return state

    # --- records ----------------------------------------------------------------------------

    def record(self, match_id: str) -> schemas.Record:
        """The engine's record; the seed only once the match is over (it foretells chance)."""
        loaded = self.load(match_id)
        state = loaded.state
        seed = loaded.match.seed if state.is_terminal() else None
        return schemas.Record.model_validate(make_record(state, seed=seed))

    def replay(self, match_id: str) -> schemas.Replay:
        """Spectator snapshots of a finished match: the start, then after every action."""
        loaded = self.load(match_id)
        final = loaded.state
        if not final.is_terminal():
            raise unavailable("a match can be replayed once it is finished")
        state = final.game.new_initial_state()
        frames = [self._frame(state, None, None)]
        for action in final.history:
            text, by = state.action_to_string(action), state.current_player
            state = state.apply(action)
            frames.append(self._frame(state, text, by))
        return schemas.Replay(frames=frames)

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
