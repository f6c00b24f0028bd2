"""The data types of a match: its fixed facts, its public record, its loaded state; and the
few facts every concern reads from them (whose move it is, what undo may take back).

Every type is immutable: a change makes a new :class:`Loaded`, so what a view needs from the
state alone is worked out once per ``Loaded`` and shared by every viewer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from flipgames.core.game import Game, State
from flipgames.web import clocks, schemas
from flipgames.web.community.ratings import RatingChange
from flipgames.web.errors import ApiError

#: The seats a token controls; a spectator controls none.
Viewer = frozenset[int]
SPECTATOR: Viewer = frozenset()

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
    #: Rated: both seats are accounts and the result changes their ratings (web/community).
    rated: bool = False


@dataclass(frozen=True)
class SeatPlayer:
    """The player holding a seat (a guest or an account): its id, the name views show
    ("deleted player" for a deleted account), and whether the operator disabled it (then
    the seat's token acts no more: ``views.viewer``)."""

    id: str
    name: str
    disabled: bool = False


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
        steps = path(state)
        for before, action in zip(steps[:-1], state.history, strict=True):
            played = played.then(before, action)
        return played


@dataclass(frozen=True)
class Loaded:
    """A match with its current state, rebuilt from the committed actions.

    Immutable: a change makes a new one (see ``Playing._commit`` in play.py), so what a view
    needs from the state alone (its text picture, its legal actions) is worked out once per
    ``Loaded`` and shared by every viewer's view.
    """

    match: Match
    state: State
    token_hashes: Mapping[int, str]
    #: The database's revision of the match this state is (see ``matches.revision``).
    revision: int
    #: How the match ended outside the engine (a resignation, a draw by agreement, a loss on
    #: time, a forfeit), and its result; the engine's own endings are the state's
    #: ``end_reason()``.
    ending: schemas.Ending | None = None
    ending_result: str | None = None
    #: The seat offering a draw now, if any.
    draw_offer: int | None = None
    #: The match that followed this one (a rematch), if any.
    rematch_id: str | None = None
    #: The clocks of a clocked match (see web/clocks.py).
    clock: clocks.Clock | None = None
    #: A forfeit's reason in words.
    ending_detail: str | None = None
    #: The seat asking to take back its last move now, if any.
    takeback_offer: int | None = None
    #: A rated match's rating changes, by seat, once it has ended (web/community/ratings.py).
    rating_changes: tuple[RatingChange, ...] = ()

    #: The players holding seats, by seat (a seat nobody signed in has taken is absent).
    players: Mapping[int, SeatPlayer] = field(default_factory=dict)

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


@dataclass(frozen=True)
class CreatedMatch:
    match_id: str
    seat: int
    token: str
    invite_token: str | None
    view: schemas.View


class StaleRevision(Exception):
    """Another writer changed the match since it was read (another process, or a race)."""


def hash_token(token: str) -> str:
    """The stored form of a seat token.

    >>> len(hash_token("secret"))
    64
    """
    return hashlib.sha256(token.encode()).hexdigest()


def rules_version(game: Game) -> int:
    """The version of ``game``'s rules: a game class whose rules change (so that recorded
    actions would replay differently) raises its ``rules_version``; 1 when it has none.

    >>> from flipgames import make
    >>> rules_version(make("flipflop-3x3"))
    1
    """
    version = getattr(type(game), "rules_version", 1)
    return version if isinstance(version, int) else 1


def computer_to_move(loaded: Loaded) -> bool:
    """The computer has the move: an AI match, not over, the AI's seat to move."""
    state = loaded.state
    return (
        loaded.match.mode == "ai"
        and not loaded.over
        and not state.is_chance_node()
        and state.current_player != loaded.match.human_seat
    )


def game_over(loaded: Loaded) -> ApiError:
    how = f" by {loaded.ending}" if loaded.ending else ""
    return ApiError(409, "game_over", f"the match is finished{how} ({loaded.result})")


def path(state: State) -> list[State]:
    """Every state from the start to ``state``: ``path[p]`` is the state before ply ``p``."""
    steps = [state]
    while (parent := steps[-1].parent) is not None:
        steps.append(parent)
    steps.reverse()
    return steps


def undo_target(steps: list[State], human_seat: int | None) -> int | None:
    """The ply an undo goes back to: the human's last decision with no chance outcome after it.

    Undo never goes back past a chance outcome (a Flip Switch tile's shape, a spin): the
    outcome would be seen and then drawn again (or dealt to another square, or to another
    gear), so a player could learn it or pick the draw they like. What undo can take back is
    a move and the computer's replies, as long as nothing was left to chance since.

    >>> from flipgames import make
    >>> game = make("flip-switch")
    >>> undo_target(path(game.state_from_actions(["b2"])), 0)  # not revealed yet
    0
    >>> undo_target(path(game.state_from_actions(["b2", "heart"])), 0) is None  # revealed
    True
    """
    last_chance = max((p for p, s in enumerate(steps[:-1]) if s.is_chance_node()), default=-1)
    decisions = [
        p for p, s in enumerate(steps[:-1]) if p > last_chance and s.current_player == human_seat
    ]
    return decisions[-1] if decisions else None
