"""Alpha-beta on a game's compiled kernel: the ``hard`` level where a game has one.

:class:`KernelAlphaBetaAgent` runs the game's compiled search
(:mod:`flipgames.kernels.search`; per game e.g. :mod:`flipgames.games.flipflop.search_kernel`)
by iterative deepening. Budgets: ``max_nodes`` (reproducible: a seeded agent plays the same
moves on any machine, which is what tests use) and ``seconds`` (for play: wall-clock, or CPU
time with ``clock=time.process_time``); the first to run out ends the search and the last
complete iteration decides. Ties among the best root actions are broken with the agent's
generator. The agent keeps its transposition table from one move to the next, so a game
replays exactly only from a fresh agent.

Which games have one is the kernel's business: :func:`kernel_searcher` returns None for a game
without a kernel, or with ``FLIPGAMES_KERNEL=python``. Where the game has endgame tables
(FlipFlop 5x5), :meth:`KernelAlphaBetaAgent.probe` lets the search answer the positions they
cover from them at its nodes (*hard* and the review engine give it the tables once built).

>>> import random
>>> from flipgames import make
>>> game = make("flipflop")
>>> agent = KernelAlphaBetaAgent(random.Random(1), game, max_nodes=20_000)
>>> agent.choose(game.new_initial_state()) in game.new_initial_state().legal_actions()
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from flipgames.agents.base import Agent
from flipgames.agents.budget import timing
from flipgames.core.errors import FlipgamesError
from flipgames.core.kernel import kernel_for

if TYPE_CHECKING:
    from flipgames.core.endgame import EndgameTable
    from flipgames.core.game import Game, State
    from flipgames.kernels.search import KernelSearchResult, Searcher


class NoKernelSearchError(FlipgamesError, ValueError):
    """A kernel search asked of a game without one (or with the kernels switched off)."""


def has_kernel_search(game: Game) -> bool:
    """Whether ``game`` has a compiled search (and kernels are on)."""
    kernel = kernel_for(game)
    if kernel is None:
        return False
    from flipgames.kernels.search import SearchableKernel

    return isinstance(kernel, SearchableKernel)


def kernel_searcher(game: Game, table_bits: int = 20) -> Searcher | None:
    """A new compiled searcher for ``game`` (a transposition table of ``2**table_bits``
    slots), or None where it has none."""
    kernel = kernel_for(game)
    if kernel is None:
        return None
    from flipgames.kernels.search import SearchableKernel

    if not isinstance(kernel, SearchableKernel):
        return None
    return kernel.searcher(table_bits)


class KernelAlphaBetaAgent(Agent):
    """Iterative-deepening alpha-beta in machine code; see the module docstring."""

    name = "alphabeta-kernel"

    def __init__(
        self,
        rng: random.Random,
        game: Game,
        depth: int = 64,
        max_nodes: int | None = None,
        seconds: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
        depth_step: int = 1,
    ) -> None:
        super().__init__(rng)
        if max_nodes is None and seconds is None:
            raise ValueError("a kernel search needs a budget: max_nodes, seconds or both")
        if depth < 1:
            raise ValueError(f"search depth must be at least 1, got {depth}")
        searcher = kernel_searcher(game)
        if searcher is None:
            raise NoKernelSearchError(f"{game.name} has no compiled search (or kernels are off)")
        self.searcher = searcher
        self.game_name = game.name
        self.depth = depth
        self.max_nodes = max_nodes
        self.seconds = seconds
        self.clock = clock
        self.depth_step = depth_step

    def search(self, state: State, only: Collection[int] | None = None) -> KernelSearchResult:
        """Search ``state`` within the budgets (among the root actions in ``only`` if given);
        the chosen action and every searched root action's score."""
        from flipgames.kernels.search import iterative_deepening

        with timing(self.clock):
            return iterative_deepening(
                self.searcher,
                state,
                self.rng,
                self.depth,
                self.max_nodes,
                self.seconds,
                self.clock,
                self.depth_step,
                only,
            )

    def probe(self, table: EndgameTable | None) -> None:
        """Let the searches to come value the positions ``table`` covers from it at their
        nodes (None: search and evaluate them as any other); ValueError where the game's
        search cannot read endgame tables."""
        from flipgames.kernels.search import EndgameProbing

        if isinstance(self.searcher, EndgameProbing):
            self.searcher.probe(table)
        elif table is not None:
            raise ValueError(f"{self.game_name} has no search that probes endgame tables")

    def choose(self, state: State) -> int:
        return self.search(state).action
