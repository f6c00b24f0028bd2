"""``hard`` for a game proved by search (Rubik's Flip): exact where it can be, and setting traps.

A game that a careful player always draws (Rubik's Flip is a draw from the start and from
almost every position a sensible game reaches) is won only by the opponent's mistakes. So
this agent, within its time budget:

1. asks the kernel's exact search (:mod:`flipgames.solvers.alphabeta`) for every legal
   action's value (win, draw or loss for the side to move). Where that fits in the time it
   never throws a value away and always takes a win it is offered;
2. among the actions that keep a draw, prefers the one that leaves the opponent the largest
   share of losing replies (each reply checked exactly): a trap. A perfect opponent still
   draws; one that plays by sampling, like MCTS with random rollouts, falls in more often;
3. breaks the remaining ties, and plays wherever the exact search does not answer in time
   (the opening), with the compiled alpha-beta and the game's evaluation
   (:class:`~flipgames.agents.kernel_search.KernelAlphaBetaAgent`), restricted to the
   actions the exact search kept.

Budgets: ``seconds`` (for play) or ``max_nodes`` (reproducible: tests use it; the exact
search and the heuristic search get that many nodes each). The exact search has no clock
(compiled code), so its share of ``seconds`` becomes a node limit at the rate measured so
far; the heuristic search gets whatever time is left. The
transposition table of the exact search is kept from move to move (its entries are facts
about positions, true on any path).

>>> import random
>>> from flipgames import make
>>> game = make("rubiks-flip")
>>> agent = ExactSearchAgent(random.Random(1), game, seconds=0.3)
>>> state, rng = game.new_initial_state(), random.Random(4)
>>> for _ in range(11):
...     state = state.apply(rng.choice(state.legal_actions()))
>>> agent.choose(state) in state.legal_actions()
True
>>> agent.last.exact  # eleven tiles down: solved within the budget
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flipgames.agents.base import Agent
from flipgames.agents.kernel_search import KernelAlphaBetaAgent, NoKernelSearchError
from flipgames.solvers import alphabeta

if TYPE_CHECKING:
    import random

    import numpy as np
    import numpy.typing as npt

    from flipgames.core.game import Game, State

#: Exact-search nodes per second assumed before one is measured (well below the kernel's).
FIRST_RATE = 1_000_000
#: The share of the move's time the exact search may plan to use; the rest is the heuristic
#: search's (which also breaks ties among equally good exact answers).
EXACT_SHARE = 0.6
#: The exact search's transposition table (one int64 an entry), kept between moves.
TABLE_BYTES = 16 << 20


@dataclass
class ExactReport:
    """What the last move's search found: whether the exact search answered, the value of the
    position for the mover (+1, 0, -1; None if not exact), the actions that keep it, and for
    each of those the share of the opponent's replies that lose (where it was measured)."""

    exact: bool = False
    value: int | None = None
    keeping: list[int] = field(default_factory=list)
    traps: dict[int, float] = field(default_factory=dict)


class _OutOfNodes(Exception):
    pass


class ExactSearchAgent(Agent):
    """Exact search, traps, then the compiled heuristic search; see the module docstring."""

    name = "alphabeta-exact"

    def __init__(
        self,
        rng: random.Random,
        game: Game,
        seconds: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
        depth_step: int = 2,
        max_nodes: int | None = None,
    ) -> None:
        super().__init__(rng)
        if (seconds is None) == (max_nodes is None):
            raise ValueError("give the exact search one budget: seconds or max_nodes")
        kernel = alphabeta.searchable(game)
        if kernel is None:
            raise NoKernelSearchError(f"{game.name} has no exact search (or kernels are off)")
        import numpy as np  # only when this player is built: `flipgames --help` stays light

        self.kernel = kernel
        self.seconds = seconds
        self.clock = clock
        self.max_nodes = max_nodes
        self.heuristic = KernelAlphaBetaAgent(
            rng, game, seconds=seconds, max_nodes=max_nodes, clock=clock, depth_step=depth_step
        )
        self.table: npt.NDArray[np.int64] = np.zeros(
            alphabeta.table_entries(TABLE_BYTES), dtype=np.int64
        )
        self.stats: npt.NDArray[np.int64] = np.zeros(3, dtype=np.int64)
        self.rate = float(FIRST_RATE)
        #: The fewest tiles (plies played) at which the exact search ran out of nodes: below
        #: it, it is not tried again (an earlier position is bigger).
        self.too_big = -1
        self.last = ExactReport()

    def choose(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        start = self.clock()
        self.last = report = ExactReport()
        plies = len(state.history)
        if plies > self.too_big:
            if self.seconds is None:
                budget = float(self.max_nodes or 0)
            else:
                budget = self.rate * EXACT_SHARE * self.seconds
            self._exact(state, report, budget)
            if not report.exact:
                self.too_big = max(self.too_big, plies)
        candidates = list(legal)
        if report.exact:
            candidates = report.keeping
            most = max(report.traps.values(), default=0.0)
            if most > 0:
                # (If the budget ran out while counting, only the counted actions compete.)
                candidates = [a for a in candidates if report.traps.get(a) == most]
        if len(candidates) == 1:
            return candidates[0]
        if self.seconds is not None:
            left = self.seconds - (self.clock() - start)
            self.heuristic.seconds = max(left, 0.01 * self.seconds)
        return self.heuristic.search(state, only=candidates).action

    def _exact(self, state: State, report: ExactReport, nodes: float) -> None:
        """Fill ``report`` by exact search within ``nodes`` nodes (leaves it not exact if they
        run out before every action's value is known)."""
        kernel, stats = self.kernel, self.stats
        stats[0], stats[1], stats[2] = 0, max(1, int(nodes)), 0
        began = self.clock()
        try:
            value, keeping = self._values(kernel.position(state))
            report.value, report.keeping, report.exact = value, keeping, True
            if value == 0 and len(keeping) > 1:
                self._traps(kernel.position(state), keeping, report)
        except _OutOfNodes:
            pass
        spent = self.clock() - began
        if spent >= 0.01 and stats[0] > 0:
            self.rate = stats[0] / spent

    def _search(self, position: int, alpha: int, beta: int) -> int:
        value = self.kernel.search(position, alpha, beta, self.table, self.stats)
        if self.stats[2]:
            raise _OutOfNodes
        return value

    def _values(self, position: int) -> tuple[int, list[int]]:
        """The position's value for the mover and the actions that keep it."""
        value = self._search(position, -1, 1)
        keeping = []
        for action, child, terminal in self.kernel.children(position):
            if terminal is not None:
                keeps = -terminal == value
            else:
                # Null window: the child keeps the value iff its own is at most minus ours.
                keeps = self._search(child, -value, -value + 1) <= -value
            if keeps:
                keeping.append(action)
        return value, keeping

    def _traps(self, position: int, drawing: list[int], report: ExactReport) -> None:
        """For each drawing action, the share of the opponent's replies that lose for them;
        only actions measured completely get a share (a partial count would be biased)."""
        children = {
            action: child
            for action, child, terminal in self.kernel.children(position)
            if terminal is None  # a drawing action that ends the game leaves no reply
        }
        # A random order, so that a count cut short by the budget favours no action.
        for action in self.rng.sample(drawing, len(drawing)):
            if action not in children:
                report.traps[action] = 0.0
                continue
            replies = self.kernel.children(children[action])
            losing = 0
            for _, grandchild, terminal in replies:
                if terminal is not None:
                    losing += terminal > 0
                else:
                    losing += self._search(grandchild, 0, 1) > 0
            report.traps[action] = losing / len(replies)
