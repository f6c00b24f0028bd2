"""What every exact solution offers the agents, the CLI and the web: one protocol.

A :class:`Solution` answers for any position reachable from the start: its :class:`Value`
for a player, the value of each legal action for the player to move, and the best actions.
Deterministic games (retrograde analysis) and chance games (the stochastic solver) give the
same kind of answer, so no caller needs to know which solver made it:

* ``expected``: the exact expected return in [-1, 1] under perfect play by both;
* ``win``, ``draw``, ``loss``: the outcome probabilities under the solver's canonical optimal
  strategies (in a deterministic game one of them is 1);
* ``remoteness``: plies to the end with the winner hurrying and the loser delaying, where the
  solver knows it (retrograde, decided positions), else None.

>>> from fractions import Fraction
>>> Value.certain(1, remoteness=15).outcome, Value.certain(0).outcome
('win', 'draw')
>>> value = Value.of(Fraction(1, 3), win=Fraction(1, 2), loss=Fraction(1, 6))
>>> value.outcome is None, float(value), value.draw
(True, 0.3333333333333333, Fraction(1, 3))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

from flipgames.core.errors import FlipgamesError

if TYPE_CHECKING:
    from flipgames.core.game import Game, State


class SolverError(FlipgamesError, ValueError):
    """A solver asked of a game it cannot handle, or a position it has not solved."""


@dataclass(frozen=True)
class Value:
    """A solved value for one player (see the module docstring)."""

    expected: Fraction
    win: Fraction
    draw: Fraction
    loss: Fraction
    remoteness: int | None = None

    @classmethod
    def of(cls, expected: Fraction, win: Fraction, loss: Fraction) -> Value:
        return cls(expected, win, 1 - win - loss, loss)

    @classmethod
    def certain(cls, result: int, remoteness: int | None = None) -> Value:
        """A decided value: ``result`` is +1 (win), 0 (draw) or -1 (loss)."""
        return cls(
            Fraction(result),
            Fraction(result > 0),
            Fraction(result == 0),
            Fraction(result < 0),
            remoteness,
        )

    @property
    def outcome(self) -> str | None:
        """``"win"``, ``"draw"`` or ``"loss"`` when certain under perfect play, else None."""
        if self.win == 1:
            return "win"
        if self.loss == 1:
            return "loss"
        return "draw" if self.draw == 1 else None

    def negated(self) -> Value:
        """The same value for the other player."""
        return Value(-self.expected, self.loss, self.draw, self.win, self.remoteness)

    def __float__(self) -> float:
        return float(self.expected)


class Solution(Protocol):
    """An exact solution of one game with its options (see the module docstring)."""

    game: Game
    #: Seconds the solve took (also when the solution came from the disk cache).
    seconds: float

    @property
    def positions(self) -> int:
        """How many positions the solution holds (folded ones count once)."""
        ...

    def node(self, state: State) -> int | None:
        """``state``'s position number in the solution (0 .. positions - 1; symmetric images
        share one), or None when the solution does not hold it."""
        ...

    def value(self, state: State, player: int | None = None) -> Value:
        """``state``'s value for ``player``: by default the player to move, and player 0 at
        chance nodes and finished positions."""
        ...

    def action_values(self, state: State) -> dict[int, Value]:
        """Per legal action, its value for the player to move (actions applied with
        ``State.apply``, so a move into a third repetition is worth the draw it ends in)."""
        ...

    def best_actions(self, state: State) -> list[int]:
        """The legal actions that keep the best value and make progress, ascending."""
        ...
