"""Fast kernels: compiled (numba) implementations of a game's inner loops, per batch.

The readable engines in each game package stay the reference for every rule; a kernel is a
second implementation over bit-packed integer states that Python calls once per *batch*
(playouts, perft, enumeration), never once per ply. Differential tests keep the two in
agreement.

Which one runs is chosen here, once, for every algorithm: ``FLIPGAMES_KERNEL=python`` forces the
reference engines (no numba import at all), ``FLIPGAMES_KERNEL=fast`` (the default) uses a
game's kernel where it has one. A game offers a kernel by overriding :meth:`Game.kernel
<flipgames.core.game.Game.kernel>`; its kernel module is imported only when first asked for, so
``flipgames --help`` never pays for numba.

>>> from flipgames import make
>>> from flipgames.core.kernel import kernel_for
>>> kernel = kernel_for(make("flipflop-3x3"))
>>> kernel is None or kernel.name == "flipflop-3x3"
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from flipgames.core.errors import FlipgamesError
from flipgames.core.progress import Progress, silent

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.game import Game, State

#: The environment variable that picks the implementation.
ENV_VAR = "FLIPGAMES_KERNEL"

KernelMode = Literal["fast", "python"]


class KernelModeError(FlipgamesError, ValueError):
    """``FLIPGAMES_KERNEL`` holds something other than ``fast`` or ``python``."""


def kernel_mode() -> KernelMode:
    """``"python"`` when ``FLIPGAMES_KERNEL=python``, else ``"fast"``."""
    value = os.environ.get(ENV_VAR, "fast").strip().lower() or "fast"
    if value not in ("fast", "python"):
        raise KernelModeError(f"{ENV_VAR} must be 'fast' or 'python', not {value!r}")
    return "python" if value == "python" else "fast"


@dataclass(frozen=True)
class PlayoutBatch:
    """The outcome of ``n`` random playouts: per game, the first player's return (+1, 0, -1;
    0 also for a game stopped at the ply cap) and the number of plies played (chance outcomes
    count as plies), plus how many hit the cap."""

    returns: npt.NDArray[np.int8]
    lengths: npt.NDArray[np.int32]
    capped: int

    @property
    def plies(self) -> int:
        return int(self.lengths.sum())


#: Status codes of a position on a line of play, as kernels report them (the outcome of a
#: playout, each ply of a :class:`Replay`): still going, won by the first or the second
#: player, drawn (e.g. a third repetition).
ONGOING, FIRST_WINS, SECOND_WINS, DRAWN = 0, 1, 2, 3


@dataclass(frozen=True)
class Replay:
    """A line of play through a kernel, for differential tests (a kernel's ``replay(actions)``
    entry, which runs the same compiled code as its playouts): the actions played (the given
    ones, up to the end of the game or the first one the kernel finds illegal), and per
    position its legal action ids in the reference engine's order (none once the game is
    over) and its status code (:data:`ONGOING`...)."""

    actions: list[int]
    legal: list[list[int]]
    status: list[int]


class Kernel(Protocol):
    """What a game's compiled kernel offers. Deterministic games implement :meth:`perft`;
    chance games raise :class:`~flipgames.solvers.perft.PerftUnsupportedError` there."""

    #: The game name the kernel belongs to (one kernel per game and option set).
    name: str

    def playouts(self, n: int, seed: int, max_plies: int = 200) -> PlayoutBatch:
        """``n`` uniformly random games from the initial state (chance drawn with its exact
        probabilities), seeded: the same seed gives the same batch."""
        ...

    def perft(self, state: State, depth: int) -> int:
        """The number of legal action sequences of length ``depth`` from ``state`` (as
        :func:`flipgames.solvers.perft.perft` defines it)."""
        ...


@dataclass(frozen=True)
class PositionGraph:
    """Every position reachable from the initial state, as flat arrays: what a kernel's
    enumeration hands the exact solvers (retrograde and stochastic alike).

    Node ``0`` is the initial position. Node ``i`` has the packed key ``keys[i]`` (unique per
    position; canonical under the game's symmetries when the kernel folds them, see
    :attr:`symmetries`), ``to_move[i]`` (0, 1, ``CHANCE`` or ``TERMINAL`` as in
    :mod:`flipgames.core.game`) and, at a terminal node, the first player's return
    ``terminal_return[i]`` (+1, 0, -1; 0 elsewhere). Its edges are the slice
    ``edge_start[i]:edge_start[i + 1]`` of ``edge_child`` (the child node) and ``edge_weight``:
    at a chance node an outcome's probability is its weight over the node's weight sum (integer
    weights, so values stay exact); elsewhere weights are 1. Positions are keyed without
    repetition counts: cycles are left to the solvers' repetition rule.
    """

    keys: npt.NDArray[np.int64]
    to_move: npt.NDArray[np.int8]
    terminal_return: npt.NDArray[np.int8]
    edge_start: npt.NDArray[np.int64]
    edge_child: npt.NDArray[np.int32]
    edge_weight: npt.NDArray[np.int64]
    #: How many board symmetries (incl. colour/face swaps) the keys are folded over; 1 if none.
    symmetries: int = 1

    @property
    def nodes(self) -> int:
        return len(self.keys)

    @property
    def edges(self) -> int:
        return len(self.edge_child)


class GraphBuilder(Protocol):
    """What enumerates a game's whole position graph for the exact solvers: a compiled
    kernel (:class:`Enumerable`) or a builder that needs no compiled code (a game's
    :meth:`~flipgames.core.game.Game.graph_builder`)."""

    #: The game name the builder belongs to.
    name: str

    def encode(self, state: State) -> int:
        """The packed key of a reference ``state``, as in :attr:`PositionGraph.keys` (so
        canonical when the graph is folded); it identifies the state's node."""
        ...

    def graph(self, progress: Progress = silent) -> PositionGraph:
        """Enumerate every position reachable from the initial state."""
        ...


class Enumerable(Kernel, GraphBuilder, Protocol):
    """A kernel that can enumerate its game's whole position graph (the solvable games)."""


def kernel_for(game: Game) -> Kernel | None:
    """The compiled kernel for ``game`` when one exists and ``FLIPGAMES_KERNEL`` allows it."""
    if kernel_mode() == "python":
        return None
    return game.kernel()
