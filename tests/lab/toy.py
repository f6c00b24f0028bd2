"""Ladder: a toy game whose every measurement is known in advance, whatever the agents do.

Every action at a ply leads to the same next position, so random agents play the same game
every time: ``length`` plies (the first one a chance node with ``chance=yes``), ``(ply % 3) + 1``
legal actions at ply ``ply``, and an end fixed by ``ending``: the first or second player
wins, a plain draw, a draw by third repetition (positions alternate between two keys), or
no end at all (the game reaches its cap of :data:`CAP` plies). With ``evaluation=yes`` the
first player's evaluation before ply ``ply`` is ``SCRIPT[ply]``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from flipgames.core.game import CHANCE, TERMINAL, Game, State
from flipgames.core.options import Option

CAP = 10
#: The first player's evaluation by ply: ahead, (second player's turn), behind, (...),
#: further behind, (...). Measured before the first player's moves only (plies 0, 2, 4).
SCRIPT = (0.4, 0.9, -0.2, 0.9, -0.5, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1)


class Ladder(Game):
    name = "ladder"
    title = "Ladder"
    option_spec = (
        Option("length", 4, minimum=1, maximum=CAP),
        Option("ending", "first", choices=("first", "second", "draw", "repeat", "endless")),
        Option("chance", "no", choices=("no", "yes")),
        Option("evaluation", "yes", choices=("no", "yes")),
    )
    repetition_draws: ClassVar[bool] = True
    game_length_capped: ClassVar[bool] = True

    @property
    def num_distinct_actions(self) -> int:
        return 3

    @property
    def max_game_length(self) -> int:
        return CAP

    def new_initial_state(self) -> State:
        cls = EvaluatedLadderState if self.options["evaluation"] == "yes" else LadderState
        return cls(self, 0)

    def rules_summary(self) -> str:
        return "A toy game for the lab's tests."


class PlainLadder(Ladder):
    """The same toy game under rules without repetition draws."""

    name = "plain-ladder"
    repetition_draws: ClassVar[bool] = False


class LadderState(State):
    __slots__ = ("ply",)

    def __init__(
        self, game: Game, ply: int, parent: State | None = None, action: int | None = None
    ) -> None:
        super().__init__(game, parent, action)
        self.ply = ply

    @property
    def _chance(self) -> int:
        return 1 if self.game.options["chance"] == "yes" else 0

    @property
    def current_player(self) -> int:
        ending = self.game.options["ending"]
        if ending != "endless" and self.ply >= self.game.options["length"]:
            return TERMINAL
        if self.ply < self._chance:
            return CHANCE
        return (self.ply - self._chance) % 2

    def _legal_actions(self) -> tuple[int, ...]:
        if self.is_terminal():
            return ()
        if self.is_chance_node():
            return (0, 1)
        return tuple(range(self.ply % 3 + 1))

    def chance_outcomes(self) -> tuple[tuple[int, Fraction], ...]:
        return ((0, Fraction(1, 2)), (1, Fraction(1, 2)))

    def _apply(self, action: int) -> State:
        return type(self)(self.game, self.ply + 1, self, action)

    def action_to_string(self, action: int) -> str:
        return str(action)

    def parse_action(self, text: str) -> int:
        return int(text)

    def returns(self) -> tuple[int, ...]:
        if not self.is_terminal():
            return (0, 0)
        ending = self.game.options["ending"]
        return {"first": (1, -1), "second": (-1, 1)}.get(str(ending), (0, 0))

    def key(self) -> int:
        return self.ply % 2 if self.game.options["ending"] == "repeat" else self.ply

    def render(self) -> str:
        return f"ply {self.ply}"


class EvaluatedLadderState(LadderState):
    __slots__ = ()

    def evaluate(self, player: int) -> float:
        value = SCRIPT[self.ply]
        return value if player == 0 else -value
