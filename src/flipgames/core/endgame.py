"""Endgame tables: exact values of every position with few pieces, for a game's players.

A kernel that can build endgame tables (:class:`EndgameKernel`; FlipFlop 5x5's, see
:mod:`flipgames.games.flipflop.endgame`) computes, by retrograde analysis, the value of every
position with at most ``max_pieces`` pieces for the side to move (win, draw or loss) and the
distance to the end in plies under best play (the winner ends the game as soon as it can,
the loser holds out as long as it can). Building belongs to the kernel; caching the built
tables on disk and loading them once per process belongs to :mod:`flipgames.solvers.endgame`;
playing from them to :mod:`flipgames.agents.endgame`. All three meet here.

A table knows positions, not games: a position's value assumes no earlier repetition (the
third occurrence of a position draws, so a player that reads a table also checks the game's
history; the endgame agent does).

>>> EndgameValue(1, 7).outcome, EndgameValue(0, None).outcome, EndgameValue(-1, 0).outcome
('win', 'draw', 'loss')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from flipgames.core.progress import Progress, silent

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.game import State


@dataclass(frozen=True)
class EndgameValue:
    """A position's value for the side to move: ``value`` +1 (win), 0 (draw) or -1 (loss),
    and ``distance``, the plies to the end of the game when both sides play best (the winner
    quickest, the loser longest); None for a draw. 0 is a loss on the spot (no legal move)."""

    value: int
    distance: int | None

    @property
    def outcome(self) -> str:
        return {1: "win", 0: "draw", -1: "loss"}[self.value]


class EndgameTable(Protocol):
    """Built endgame tables of one game: a probe for positions with few pieces."""

    #: The most pieces (both sides together) of a position in the table.
    max_pieces: int

    @property
    def positions(self) -> int:
        """How many positions the table holds."""
        ...

    def covers(self, state: State) -> bool:
        """Whether ``state``'s position is in the table."""
        ...

    def value(self, state: State) -> EndgameValue | None:
        """The value of ``state``'s position for its side to move, or None when the table does
        not cover it (too many pieces, or a side without pieces: a finished game)."""
        ...


@runtime_checkable
class EndgameKernel(Protocol):
    """A compiled kernel that builds endgame tables (the capability the solvers look for)."""

    name: str
    #: The table size the game's players use: the most pieces worth building for.
    endgame_pieces: int

    def covers(self, state: State, max_pieces: int) -> bool:
        """Whether a table of ``max_pieces`` covers ``state`` (cheap: no table needed)."""
        ...

    def build_endgame(
        self,
        max_pieces: int,
        progress: Progress = silent,
        known: Sequence[npt.NDArray[np.int16]] = (),
    ) -> list[npt.NDArray[np.int16]]:
        """Compute the tables (one array per piece count, 2 first), reporting progress;
        ``known`` are the first layers already built (a smaller table's), taken as they are."""
        ...

    def table_bytes(self, max_pieces: int) -> int:
        """How many bytes the layers of a table of ``max_pieces`` hold (cheap: no table)."""
        ...

    def endgame_table(self, layers: Sequence[npt.NDArray[np.int16]]) -> EndgameTable:
        """A probe over ``layers`` as :meth:`build_endgame` returns them; ValueError if they
        are not the arrays of a table (wrong count, size or type)."""
        ...
