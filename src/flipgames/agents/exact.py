"""``hard`` for a game proved by search (Rubik's Flip): exact where it can be, and setting traps.

A game that a careful player always draws (Rubik's Flip is a draw from the start and from
almost every position a sensible game reaches) is won only by the opponent's mistakes. So
this agent, within its time budget:

1. asks the kernel's exact search (:mod:`flipgames.solvers.alphabeta`) for every legal
   action's value (win, draw or loss for the side to move). Where that fits in the time it
   never throws a value away and always takes a win it is offered;
2. among the actions that keep a draw, sets a trap: it prefers the one after which a
   fallible opponent is most likely to reply with a losing move (a *lure*: the higher of two
   opponent models' chances, each reply's value checked exactly: a Monte Carlo tree search
   with random rollouts, modelled by the kernel's compiled MCTS, and a searcher with a short
   horizon, what a shallow search with the game's evaluation ranks first; the searcher's
   alone once the opponent's moves so far have been that searcher's own choices, the MCTS
   model's alone once they have clearly not been; both in
   :mod:`flipgames.agents.opponent_models`), then the
   one the searcher is most drawn to, then the one that leaves the opponent the largest share
   of losing replies. A perfect opponent still draws;
3. breaks the remaining ties, and plays wherever the exact search does not answer in time
   (the opening), with the compiled alpha-beta and the game's evaluation
   (:class:`~flipgames.agents.kernel_search.KernelAlphaBetaAgent`), restricted to the
   actions the exact search kept.

Budgets: ``seconds`` (for play) or ``max_nodes`` (reproducible: tests use it; the exact
search and the heuristic search get that many nodes each). The exact search has no clock
(compiled code), so its share of ``seconds`` is searched in short slices, each a node limit
at the rate the last one ran at; the heuristic search gets whatever time is left. The
transposition table of the exact search is kept from move to move (its entries are facts
about positions, true on any path).

>>> import random
>>> from flipgames import make
>>> game = make("rubiks-flip")
>>> agent = ExactSearchAgent(random.Random(1), game, max_nodes=1_000_000)  # or seconds=0.9
>>> state, rng = game.new_initial_state(), random.Random(4)
>>> for _ in range(11):
...     state = state.apply(rng.choice(state.legal_actions()))
>>> agent.choose(state) in state.legal_actions()
True
>>> agent.last.exact  # eleven tiles down: solved within the budget
True
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from flipgames.agents.base import Agent
from flipgames.agents.budget import timing
from flipgames.agents.kernel_mcts import kernel_mcts
from flipgames.agents.kernel_search import (
    KernelAlphaBetaAgent,
    NoKernelSearchError,
    kernel_searcher,
)
from flipgames.agents.opponent_models import LureProbe, searcher_choices
from flipgames.core.game import CHANCE
from flipgames.solvers import alphabeta

if TYPE_CHECKING:
    import random

    import numpy as np
    import numpy.typing as npt

    from flipgames.core.game import Game, State

# The time shares, sample sizes and watch thresholds below were measured in matches against
# OpenSpiel's MCTSBot and the frozen old hard: studies/rubiks-flip-traps/README.md.
#: Exact-search nodes per second assumed before one is measured (well below the kernel's).
FIRST_RATE = 1_000_000
#: The share of the move's time the exact search may plan to use (the rest: the heuristic's).
EXACT_SHARE = 0.8
#: The longest slice of the exact search, as a share of the move's time (see ``_sliced``),
#: and the shortest slice whose rate is trusted (a call's fixed cost weighs in below).
EXACT_SLICE = 0.1
MEASURABLE = 0.01
#: The searcher model's table (``2**MODEL_TABLE_BITS`` slots: it is cleared every search).
MODEL_TABLE_BITS = 16
#: The most MCTS searches averaged into one action's figure, in rounds with the time left.
MCTS_SAMPLES = 8
#: Watching the opponent: after WATCH_MIN comparable moves, a share of at least WATCH_AGREE
#: among the searcher model's choices means a shallow searcher, at most WATCH_DISAGREE
#: another kind of player; the traps are then measured with the model that fits alone.
WATCH_MIN = 3
WATCH_AGREE = 0.8
WATCH_DISAGREE = 0.4
#: The most opponent moves a move on the clock compares anew (the latest first): a fresh agent
#: (a web AI worker builds one a move) would compare every opponent move of the game again,
#: about 40 ms each, which late in a game would take the exact search's time. An agent kept
#: for the game compares one a move (the rest are remembered); on a node budget, all.
WATCH_NEW = 3
#: Which opponent models the traps are measured with (see ``ExactReport.models``).
Models = Literal["both", "searcher", "mcts"]
#: The share of the move's time after which measuring traps stops (the rest breaks ties).
TRAP_SHARE = 0.9
#: The exact search's transposition table (one int64 an entry), kept between moves.
TABLE_BYTES = 16 << 20


@dataclass
class ExactReport:
    """What the last move's search found: whether the exact search answered, the value of the
    position for the mover (+1, 0, -1; None if not exact), the actions that keep it, and for
    each of those the share of the opponent's replies that lose (``traps``) and how likely a
    fallible opponent is to play one: the MCTS opponent model's figure (``sampled``, the mean
    of up to :data:`MCTS_SAMPLES` searches), the
    short-horizon searcher's (``searched``) and the higher of the two (``lures``; the MCTS
    model's alone for an action the time left the searcher no time for; one model's alone
    where the opponent's moves so far showed which fits, ``models``). All only where
    measured."""

    exact: bool = False
    value: int | None = None
    keeping: list[int] = field(default_factory=list)
    traps: dict[int, float] = field(default_factory=dict)
    lures: dict[int, float] = field(default_factory=dict)
    sampled: dict[int, float] = field(default_factory=dict)
    searched: dict[int, float] = field(default_factory=dict)
    #: The opponent models measured, as the opponent's moves so far decided (``_watch``):
    #: ``"searcher"`` (its moves were the searcher model's choices, ``WATCH_AGREE``),
    #: ``"mcts"`` (they were not, ``WATCH_DISAGREE``) or ``"both"`` (not yet clear).
    models: Models = "both"


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
        model = kernel_searcher(game, MODEL_TABLE_BITS)
        assert model is not None  # the game has an exact search, so it has a kernel
        #: The shallow searcher and the MCTS that measure lures, with tables of their own
        #: (the searcher's is cleared before each of its searches).
        self.model = model
        mcts = kernel_mcts(game)
        assert mcts is not None  # Rubik's Flip's kernel has a compiled MCTS
        self.mcts = mcts
        self.table: npt.NDArray[np.int64] = np.zeros(
            alphabeta.table_entries(TABLE_BYTES), dtype=np.int64
        )
        self.stats: npt.NDArray[np.int64] = np.zeros(3, dtype=np.int64)
        self.rate = float(FIRST_RATE)
        #: The fewest tiles (plies played) at which the exact search ran out of nodes: below
        #: it, it is not tried again (an earlier position is bigger).
        self.too_big = -1
        self.last = ExactReport()
        #: When the current move's trap measuring must stop (None: node budgets only).
        self.deadline: float | None = None
        #: For each opponent move watched (keyed by the history before it): whether it was
        #: among the searcher model's first choices (None where those were every legal action).
        self.watched: dict[tuple[int, ...], bool | None] = {}

    def choose(self, state: State) -> int:
        # One move of the clock for the exact search, the traps and the heuristic search.
        with timing(self.clock):
            return self._choose(state)

    def _choose(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        start = self.clock()
        self.deadline = None if self.seconds is None else start + TRAP_SHARE * self.seconds
        self.last = report = ExactReport()
        plies = len(state.history)
        report.models = self._watch(state, None if self.seconds is None else WATCH_NEW)
        if plies > self.too_big:
            self._exact(state, report, start)
            if not report.exact:
                self.too_big = max(self.too_big, plies)
        candidates = list(legal)
        if report.exact:
            candidates = report.keeping
            if report.lures:
                # The strongest lure, then the searcher's strongest pull, then the most losing
                # replies, each where it was measured for every action still in the running.
                # (If the budget ran out while measuring lures, only the measured actions
                # compete.)
                candidates = _strongest(list(report.lures), report.lures)
                candidates = _strongest(candidates, report.searched)
                candidates = _strongest(candidates, report.traps)
        if len(candidates) == 1:
            return candidates[0]
        if self.seconds is not None:
            left = self.seconds - (self.clock() - start)
            self.heuristic.seconds = max(left, 0.01 * self.seconds)
        return self.heuristic.search(state, only=candidates).action

    def _watch(self, state: State, new: int | None = None) -> Models:
        """Compare the opponent's moves so far (each once; the latest first, at most ``new``
        not compared before) with the searcher model's first choices; which opponent models
        they call for (see :attr:`ExactReport.models`)."""
        history, me = state.history, state.current_player
        agreed: list[bool] = []
        node = state
        # Back along the states played (a game may start from a set-up position, so the
        # history is not replayed from the game's initial state).
        for index in range(len(history) - 1, -1, -1):
            parent = node.parent
            assert parent is not None  # one state before this one per action of the history
            node, action = parent, history[index]
            if node.current_player in (me, CHANCE) or len(node.legal_actions()) < 2:
                continue
            key = history[:index]
            if key not in self.watched:
                if new is not None and new <= 0:
                    continue  # compared enough anew: moves compared before still count
                new = None if new is None else new - 1
                choices = searcher_choices(self.model, node, self.rng)
                informative = len(choices) < len(node.legal_actions())
                self.watched[key] = (action in choices) if informative else None
            if self.watched[key] is not None:
                agreed.append(bool(self.watched[key]))
        if len(agreed) >= WATCH_MIN:
            share = sum(agreed) / len(agreed)
            if share >= WATCH_AGREE:
                return "searcher"
            if share <= WATCH_DISAGREE:
                return "mcts"
        return "both"

    def _exact(self, state: State, report: ExactReport, start: float) -> None:
        """Fill ``report`` by exact search within the budget of the move begun at ``start``
        (leaves it not exact if the budget runs out before every action's value is known)."""
        kernel, stats = self.kernel, self.stats
        position = kernel.position(state)
        if self.seconds is None:
            stats[0], stats[1], stats[2] = 0, max(1, self.max_nodes or 0), 0
            try:
                value, keeping = self._values(position)
            except _OutOfNodes:
                return
        else:
            found = self._sliced(position, start + EXACT_SHARE * self.seconds)
            if found is None:
                return
            value, keeping = found
            # The traps' searches get the nodes the rest of their share of the time buys.
            assert self.deadline is not None  # set with ``seconds``
            stats[1] = stats[0] + max(1, int(self.rate * (self.deadline - self.clock())))
        report.value, report.keeping, report.exact = value, keeping, True
        if value == 0 and len(keeping) > 1:
            # Out of budget, the actions measured so far compete (see ``choose``).
            with contextlib.suppress(_OutOfNodes):
                self._traps(state, position, keeping, report)

    def _sliced(self, position: int, deadline: float) -> tuple[int, list[int]] | None:
        """The position's value and the actions that keep it, searched in slices of at most
        :data:`EXACT_SLICE` of the move's time until ``deadline`` (None if it passes first).

        The compiled search has no clock, so each slice is a node limit at the rate the last
        slice ran at. That rate varies by a third from one position to the next but little
        within one, so a slice overshoots its time by little, and the last one ends near the
        deadline. A slice cut short stores nothing for the subtree it was in, and the next
        one finds every finished subtree in the table: slices of a tenth of a solve cost
        under 1% more nodes than one search (studies/rubiks-flip-traps/log.md)."""
        assert self.seconds is not None  # slices are for play on the clock
        stats = self.stats
        while (left := deadline - self.clock()) > 0:
            stats[0], stats[2] = 0, 0
            stats[1] = max(1, int(self.rate * min(left, EXACT_SLICE * self.seconds)))
            began = self.clock()
            try:
                found = self._values(position)
            except _OutOfNodes:
                found = None
            spent = self.clock() - began
            if spent >= MEASURABLE and stats[0] > 0:
                self.rate = stats[0] / spent
            if found is not None:
                return found
        return None

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

    def _traps(self, state: State, position: int, drawing: list[int], report: ExactReport) -> None:
        """For each drawing action, how likely a fallible opponent is to reply with a losing
        move (:class:`LureProbe`), then the share of the replies that lose for them (each reply
        checked). The MCTS model (cheap) is measured for every action first, then the
        short-horizon searcher (several times as dear; in a ninth-tile position it finds the
        traps that catch a shallow searcher: studies/rubiks-flip-traps); the lure is the
        higher figure. (Only the model ``report.models`` names, where the opponent's moves
        showed which fits.) Both go through the actions in one random order, so a budget cut
        short favours none, and only actions measured completely get a figure (a partial
        count would be biased). The time left then refines both figures: more MCTS searches
        averaged into the MCTS figures (up to :data:`MCTS_SAMPLES` each, in rounds from the
        strongest lure down), then more of the searcher's tied first choices checked, best
        first (until all are)."""
        children = {
            action: child
            for action, child, terminal in self.kernel.children(position)
            if terminal is None  # a drawing action that ends the game leaves no reply
        }
        order = self.rng.sample(drawing, len(drawing))
        probes = {
            action: LureProbe(self, state.apply(action), children[action])
            for action in order
            if action in children
        }
        sampled, searched, lures = report.sampled, report.searched, report.lures

        def lure(action: int) -> None:
            lures[action] = max(sampled.get(action, 0.0), searched.get(action, 0.0))

        try:
            # Against an opponent that plays like one model, the other model's figures would
            # only dilute the one that fits it: it is not measured.
            for action in [] if report.models == "searcher" else order:
                self._check_time()
                sampled[action] = probes[action].sampled() if action in probes else 0.0
            for action in [] if report.models == "mcts" else order:
                self._check_time()
                searched[action] = probes[action].searched() if action in probes else 0.0
                lure(action)
        finally:
            # An action the searcher model has not reached (out of time, or not measured at
            # all against an MCTS-like opponent) keeps the MCTS model's figure (both are
            # chances of a losing reply, so they compare).
            for action, figure in sampled.items():
                lures.setdefault(action, figure)
        for action in order:
            self._check_time()
            probe = probes.get(action)
            if probe is None:  # the action ends the game: no reply
                report.traps[action] = 0.0
                continue
            # The probe remembers each reply it has checked (the models checked some).
            report.traps[action] = sum(map(probe.loses, probe.replies)) / len(probe.replies)
        # The MCTS figures in rounds over every action, so where the time cuts a round short
        # any two are means of at most one search more or less; each round from the strongest
        # lure down, so the actions that would be chosen are the first refined.
        for searches in range(2, MCTS_SAMPLES + 1 if sampled else 2):
            for action in sorted(probes, key=lambda a: -lures.get(a, 0.0)):
                self._check_time()
                sampled[action] += (probes[action].sampled() - sampled[action]) / searches
                # Each figure's lure follows it at once: the searches can run out of nodes.
                lure(action)
        # Then the searcher figures, best first: the action with the strongest lure whose
        # figure is not final checks more of the searcher's choices (and, once one of them
        # loses, learns how likely the searcher is to see further), so where the time runs
        # out the action chosen is the likeliest to have a final figure.
        while pending := [a for a in searched if a in probes and not probes[a].searched_exactly]:
            self._check_time()
            action = max(pending, key=lures.__getitem__)
            searched[action] = probes[action].searched()
            lure(action)

    def _loses(self, position: int, terminal: int | None) -> bool:
        """Whether the opponent's reply that made ``position`` (a terminal one with the value
        ``terminal`` for us) loses for them."""
        if terminal is not None:
            return terminal > 0
        return self._search(position, 0, 1) > 0

    def _check_time(self) -> None:
        if self.deadline is not None and self.clock() > self.deadline:
            raise _OutOfNodes


def _strongest(actions: list[int], figures: dict[int, float]) -> list[int]:
    """The ``actions`` with the highest figure, or all of them if one has none."""
    if not all(a in figures for a in actions):
        return actions
    top = max(figures[a] for a in actions)
    return [a for a in actions if figures[a] == top]
