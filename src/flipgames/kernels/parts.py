"""The Python glue every game's kernel shares: its name, the check that a state is its game's,
the factories of its compiled parts, and turning a recorded replay into a
:class:`~flipgames.core.kernel.Replay` (:func:`recorded_replay`).

A game's kernel class (``games/<game>/kernel.py``) derives from :class:`GameKernel` and from
one mixin per part it has: :class:`HasMCTS` (a compiled MCTS), :class:`HasSearcher` (a
compiled alpha-beta) and :class:`HasVector` (a batch of environments). Each part is a class
in the game's own module beside its kernel (``mcts_kernel.py``, ``search_kernel.py``,
``vector_kernel.py``), named by the kernel class and imported only when first asked for, so a
process that only plays out or enumerates never loads (nor compiles) the others. Every part
takes the kernel first: ``Part(kernel)``, ``Part(kernel, table_bits)`` and
``Part(kernel, num_envs, seat, max_plies)``. A kernel without a part has no method of that
name, so the capability checks (:class:`~flipgames.kernels.mcts.MCTSKernel`,
:class:`~flipgames.kernels.search.SearchableKernel`, ``getattr(kernel, "vector")``) stay
structural.

>>> from flipgames import make
>>> kernel = make("flipflop-3x3").kernel()
>>> type(kernel.mcts()).__name__, type(kernel.vector(2, 0, 10)).__name__
('FlipFlopMCTS', 'FlipFlopBatch')
>>> kernel.check_state(make("flipfour").new_initial_state())
Traceback (most recent call last):
...
ValueError: a flipfour state given to the flipflop-3x3 kernel
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, ClassVar, cast

from flipgames.core.kernel import Replay

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.game import State
    from flipgames.kernels.mcts import KernelMCTS
    from flipgames.kernels.search import Searcher
    from flipgames.kernels.vector import EnvBatch


class GameKernel:
    """What every game's kernel class starts from: the game name it belongs to."""

    #: The game name (one kernel per game and option set).
    name: str

    def check_state(self, state: State) -> None:
        """Refuse a state of another game (ValueError): a kernel reads its game's fields."""
        if state.game.name != self.name:
            raise ValueError(f"a {state.game.name} state given to the {self.name} kernel")


def recorded_replay(
    given: npt.NDArray[np.int64], legal: npt.NDArray[np.int64], played: int, status: int
) -> Replay:
    """The :class:`~flipgames.core.kernel.Replay` a game's compiled replay loop recorded: the
    first ``played`` of the ``given`` actions and, per position reached, its legal actions (a
    row of ``legal`` padded with -1) and its status (the row's last column); the position
    after the last action played counts only when the loop reached it (``status >= 0``)."""
    rows = played + (status >= 0)
    return Replay(
        [int(a) for a in given[:played]],
        [[int(a) for a in row[:-1] if a >= 0] for row in legal[:rows]],
        [int(row[-1]) for row in legal[:rows]],
    )


def _part(kernel: GameKernel, module: str, name: str) -> Any:
    """The class ``name`` of the module ``module`` in the package of ``kernel``'s class."""
    package = type(kernel).__module__.rpartition(".")[0]
    return getattr(importlib.import_module(f"{package}.{module}"), name)


class HasMCTS(GameKernel):
    """A kernel with a compiled MCTS: the class :attr:`mcts_class` of ``mcts_kernel.py``."""

    mcts_class: ClassVar[str]

    def mcts(self) -> KernelMCTS[Any]:
        """A new compiled MCTS over this kernel."""
        return cast("KernelMCTS[Any]", _part(self, "mcts_kernel", self.mcts_class)(self))


class HasSearcher(GameKernel):
    """A kernel with a compiled alpha-beta: the class :attr:`searcher_class` of
    ``search_kernel.py``."""

    searcher_class: ClassVar[str]

    def searcher(self, table_bits: int = 20) -> Searcher:
        """A new compiled alpha-beta over this kernel, with its own transposition table of
        ``2**table_bits`` slots."""
        part = _part(self, "search_kernel", self.searcher_class)
        return cast("Searcher", part(self, table_bits))


class HasVector(GameKernel):
    """A kernel with a compiled batch of environments: the class :attr:`vector_class` of
    ``vector_kernel.py``."""

    vector_class: ClassVar[str]

    def vector(self, num_envs: int, seat: int | None, max_plies: int) -> EnvBatch[Any]:
        """``num_envs`` environments of one seat (None: drawn per episode) against a uniformly
        random opponent, stepped together in compiled code."""
        part = _part(self, "vector_kernel", self.vector_class)
        return cast("EnvBatch[Any]", part(self, num_envs, seat, max_plies))

    def vector_plays_policies(self) -> bool:
        """Whether the batch can let a policy play the opponent
        (:meth:`~flipgames.kernels.vector.EnvBatch.set_policy`)."""
        return bool(_part(self, "vector_kernel", self.vector_class).supports_policy)
