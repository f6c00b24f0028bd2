"""MCTS on a game's compiled kernel: the reference :class:`~flipgames.agents.mcts.MCTSAgent`'s
algorithm (UCT, uniformly random rollouts to the end or ``rollout_limit`` plies, the same
exploration constant, the most visited action) with every iteration in machine code.

Which games have one is the kernel's business (:mod:`flipgames.kernels.mcts`): FlipFlop
(5x5 and 3x3), FlipFour, Rubik's Flip, Checkered Flag (whose spins are chance nodes, as in the
reference) and Flip Switch (whose flips are chance nodes drawn from the tiles not yet seen, as
in the reference: a face-down tile has no shape until then; the whole match of ``rounds`` is
searched). :func:`kernel_mcts` returns None where a game has no kernel (Flip Switch's
``must_flip``, ``switch_limit`` or boards other than 3x3, for instance) and for every game
with ``FLIPGAMES_KERNEL=python``. Budgets are those of the reference: iterations (reproducible with
a seeded generator), seconds, or both, whichever runs out first; at least one iteration runs.

The levels still play the reference MCTS (their strength is documented by iterations); this
agent is for speed (``flipgames bench``) and for anyone who wants more iterations per second.

>>> import random
>>> from flipgames import make
>>> game = make("flipflop")
>>> agent = KernelMCTSAgent(random.Random(1), game, iterations=500)
>>> agent.choose(game.new_initial_state()) in game.new_initial_state().legal_actions()
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flipgames.agents.base import Agent
from flipgames.core.errors import FlipgamesError
from flipgames.core.kernel import kernel_for

if TYPE_CHECKING:
    from flipgames.core.game import Game, State
    from flipgames.kernels.mcts import KernelMCTS, RootStats


class NoKernelMCTSError(FlipgamesError, ValueError):
    """A kernel MCTS asked of a game without one (or with the kernels switched off)."""


def kernel_mcts(game: Game) -> KernelMCTS[Any] | None:
    """A new compiled MCTS for ``game``, or None where it has none."""
    kernel = kernel_for(game)
    if kernel is None:
        return None
    from flipgames.kernels.mcts import MCTSKernel

    if not isinstance(kernel, MCTSKernel):
        return None
    return kernel.mcts()


def has_kernel_mcts(game: Game) -> bool:
    """Whether ``game`` has a compiled MCTS (and kernels are on)."""
    kernel = kernel_for(game)
    if kernel is None:
        return False
    from flipgames.kernels.mcts import MCTSKernel

    return isinstance(kernel, MCTSKernel)


class KernelMCTSAgent(Agent):
    """UCT with random rollouts in machine code; see the module docstring."""

    name = "mcts-kernel"

    def __init__(
        self,
        rng: random.Random,
        game: Game,
        iterations: int | None = 1000,
        seconds: float | None = None,
        exploration: float = 1.0,
        rollout_limit: int = 200,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(rng)
        if iterations is None and seconds is None:
            raise ValueError("MCTS needs a budget: iterations, seconds or both")
        if iterations is not None and iterations < 1:
            raise ValueError(f"MCTS needs at least one iteration, got {iterations}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"MCTS needs a positive number of seconds, got {seconds}")
        if rollout_limit < 0:
            raise ValueError(f"rollout_limit must be 0 or more, got {rollout_limit}")
        search = kernel_mcts(game)
        if search is None:
            raise NoKernelMCTSError(f"{game.name} has no compiled MCTS (or kernels are off)")
        self.kernel_search = search
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.rollout_limit = rollout_limit
        self.clock = clock
        #: Iterations run by the last search (for benchmarks and analysis).
        self.last_iterations = 0

    def search(self, state: State) -> RootStats:
        """Search ``state`` (a player node) within the budget: per root action its visits and
        mean return for the player to move."""
        stats = self.kernel_search.search(
            state, self.rng, self.iterations, self.seconds, self.exploration,
            self.rollout_limit, self.clock,
        )  # fmt: skip
        self.last_iterations = stats.iterations
        return stats

    def choose(self, state: State) -> int:
        return self.search(state).best()

    def action_values(self, state: State) -> dict[int, tuple[int, float]]:
        """Search, then per root action: (visits, mean return for the player to move), as
        :meth:`MCTSAgent.action_values <flipgames.agents.mcts.MCTSAgent.action_values>`."""
        return self.search(state).actions
