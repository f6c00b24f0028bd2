"""Lessons: short guided positions that teach a game's rules by playing them.

A game's package offers one :class:`Lesson` (its manifest's ``lesson``, a lazily imported
``module:NAME`` string, read with :func:`lesson_for`). Each :class:`Step` is a position, set up
through the game's own notation (a position text, actions from the start, or both), a rule
in plain words, and a :class:`Goal`: what the learner is asked to do and the check of it,
made on the states the engine gives. The rules engine decides every move's legality; a lesson
only says which legal moves do what it asks. Chance outcomes a step needs after the learner's
move (the shape a flipped tile shows, a spin) are written in the step (``then``), so a lesson
plays the same every time and draws nothing from any real match.

>>> from flipgames import make
>>> game = make("flipflop-3x3")
>>> step = lesson_for(game.name).steps[0]
>>> step.attempt(game, step.solutions[0]).achieved
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from flipgames.core.errors import FlipgamesError, IllegalActionError, NotationError, quote
from flipgames.core.game import Game, State
from flipgames.core.options import OptionValue
from flipgames.core.registry import make, manifest_for

#: The most steps a lesson has: a lesson is short, each step one rule.
MAX_STEPS = 10
#: The fewest steps a lesson has.
MIN_STEPS = 5
#: The longest move text an attempt reads (every game's moves are a few characters).
MAX_ACTION_CHARS = 64

#: A goal's check: the state before the learner's move, the move's id, and the state after it
#: (after the step's chance outcomes, where they apply); True when the move does what is asked.
Check = Callable[[State, int, State], bool]


class LessonError(FlipgamesError, ValueError):
    """A game without a lesson, or a step number out of range."""


@dataclass(frozen=True)
class Goal:
    """What a step asks for: ``says`` it to the learner, ``miss`` says what a legal move that
    does not do it lacks, ``check`` decides (on the engine's states)."""

    says: str
    miss: str
    check: Check


def any_move(says: str) -> Goal:
    """A goal every legal move reaches: the step teaches how a move is made."""
    return Goal(says, "", lambda _before, _action, _after: True)


def of_kind(kind: str, says: str, miss: str) -> Goal:
    """A move whose ``action_info`` kind is ``kind`` (a capture, a drop, a switch...)."""
    return Goal(
        says, miss, lambda before, action, _after: before.action_info(action)["kind"] == kind
    )


def wins(says: str, miss: str) -> Goal:
    """A move after which the game is over and the learner has won."""

    def check(before: State, _action: int, after: State) -> bool:
        return after.is_terminal() and after.returns()[before.current_player] > 0

    return Goal(says, miss, check)


def stops_win(says: str, miss: str) -> Goal:
    """A move after which the opponent, to move, has no move that wins at once (a block). For
    turns without chance: a chance outcome still pending after the move is no block."""

    def check(before: State, _action: int, after: State) -> bool:
        if after.current_player not in (0, 1) or after.current_player == before.current_player:
            return False
        opponent = after.current_player
        return not any(
            (reply := after.apply(action)).is_terminal() and reply.returns()[opponent] > 0
            for action in after.legal_actions()
        )

    return Goal(says, miss, check)


@dataclass(frozen=True)
class Attempt:
    """The engine's answer to a learner's move: ``action`` in canonical notation when it is
    well formed and legal; ``achieved`` when it also does what the step asks; ``message`` in
    words either way; ``after`` the position it leads to (None for an illegal move)."""

    action: str | None
    legal: bool
    achieved: bool
    message: str
    after: State | None


@dataclass(frozen=True)
class Step:
    """One guided position.

    ``position``: a position text in the game's notation (None: the game's start);
    ``actions``: actions in notation played from there (chance outcomes included, for games
    without position notation); ``then``: chance outcomes applied after the learner's move
    where they are legal (what a flipped tile shows, what the spinner stops on);
    ``solutions``: moves that reach the goal (checked by the tests through the engine, and
    drawn on the rules page's diagrams); ``done``: said when the goal is reached.
    """

    title: str
    rule: str
    goal: Goal
    solutions: tuple[str, ...]
    done: str
    position: str | None = None
    actions: tuple[str, ...] = ()
    then: tuple[str, ...] = ()

    def start(self, game: Game) -> State:
        """The step's position in ``game`` (the lesson's game and options)."""
        state = (
            game.new_initial_state() if self.position is None else game.from_position(self.position)
        )
        return game.state_from_actions(self.actions, state)

    def attempt(self, game: Game, text: object) -> Attempt:
        """The engine's verdict on the learner playing ``text`` at this step's position."""
        before = self.start(game)
        if not isinstance(text, str) or len(text) > MAX_ACTION_CHARS:
            return Attempt(None, False, False, f"{quote(text)} is not a move", None)
        try:
            action = before.parse_action(text)
        except (NotationError, IllegalActionError) as exc:
            return Attempt(None, False, False, _plain(str(exc)), None)
        after = _outcomes(before.apply(action), self.then)
        shown = before.action_to_string(action)
        if self.goal.check(before, action, after):
            return Attempt(shown, True, True, self.done, after)
        return Attempt(shown, True, False, f"{shown} is a legal move, but {self.goal.miss}", after)


def _outcomes(state: State, outcomes: tuple[str, ...]) -> State:
    """``state`` after the step's chance outcomes, each applied while it is legal there (a
    move other than the solution may lead where they are not: a 1st-gear spin has no 6)."""
    for text in outcomes:
        if not state.is_chance_node():
            break
        try:
            state = state.apply(state.parse_action(text))
        except (NotationError, IllegalActionError):
            break
    return state


def _plain(message: str) -> str:
    """An engine message for a learner: the list of every legal action that ends it is for
    programs, and the board already shows the legal moves."""
    return message.split("; legal:", 1)[0]


@dataclass(frozen=True)
class Lesson:
    """A game's lesson: an ``intro``, the ``steps`` in order, and the game ``options`` every
    step is played under (a lesson may pick a short track or a single round)."""

    intro: str
    steps: tuple[Step, ...]
    options: Mapping[str, OptionValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not MIN_STEPS <= len(self.steps) <= MAX_STEPS:
            raise ValueError(
                f"a lesson has {MIN_STEPS} to {MAX_STEPS} steps, not {len(self.steps)}"
            )
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))

    def game(self, name: str) -> Game:
        """The game ``name`` under the lesson's options."""
        return make(name, dict(self.options))

    def step(self, number: object) -> Step:
        """Step ``number`` (1 is the first); :class:`LessonError` when there is none."""
        if isinstance(number, bool) or not isinstance(number, int):
            raise LessonError(f"a step number is a whole number, not {quote(number)}")
        if not 1 <= number <= len(self.steps):
            raise LessonError(f"there is no step {number}: the lesson has {len(self.steps)}")
        return self.steps[number - 1]


def has_lesson(name: str) -> bool:
    """True when the registered game ``name`` offers a lesson."""
    return manifest_for(name).lesson is not None


def lesson_for(name: str) -> Lesson:
    """The lesson of the registered game ``name``; :class:`LessonError` when it has none."""
    where = manifest_for(name).lesson
    if where is None:
        raise LessonError(f"{name} has no lesson")
    if isinstance(where, Lesson):
        return where
    module, _, attribute = where.partition(":")
    lesson: Lesson = getattr(importlib.import_module(module), attribute)
    return lesson
