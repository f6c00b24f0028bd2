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
   model's alone once they have clearly not been), then the
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
from flipgames.agents.kernel_mcts import kernel_mcts
from flipgames.agents.kernel_search import (
    KernelAlphaBetaAgent,
    NoKernelSearchError,
    kernel_searcher,
)
from flipgames.core.game import CHANCE
from flipgames.solvers import alphabeta

if TYPE_CHECKING:
    import random

    import numpy as np
    import numpy.typing as npt

    from flipgames.core.game import Game, State
    from flipgames.kernels.search import KernelSearchResult, Searcher

#: Exact-search nodes per second assumed before one is measured (well below the kernel's).
FIRST_RATE = 1_000_000
#: The share of the move's time the exact search may plan to use; the rest is the heuristic
#: search's (which also breaks ties among equally good exact answers).
EXACT_SHARE = 0.8
#: The longest slice of the exact search, as a share of the move's time (see ``_sliced``),
#: and the shortest slice whose rate is trusted (a call's fixed cost weighs in below).
EXACT_SLICE = 0.1
MEASURABLE = 0.01
#: The searcher model (see ``LureProbe``): the horizons it deepens through, and its budget,
#: counted as a new search's nodes over all its depths (a three-ply search of a Rubik's Flip
#: midgame takes 3,000-15,000, a five-ply one 45,000-190,000 after a ninth-tile action and
#: 10,000-70,000 after a tenth-tile one). An opponent's budget is not known to the node: a
#: search of at most LURE_SURE nodes is taken to finish, one of more than LURE_NODES not to,
#: and one in between to finish with a chance falling evenly from one to none
#: (``finish_chance``). The frozen old *hard* at 0.9 CPU s a move, garbage collected before
#: each move as in a match, finished every five-ply search of up to 45,000 such nodes, 83%
#: of those of 45,000-50,000, 76% of 50,000-55,000, 58% of 55,000-60,000, 3 of 9 of
#: 60,000-70,000 and none of the 331 bigger ones (``bench/old_hard_judge.py``; docs/ai.md).
LURE_DEPTHS = (1, 3, 5)
LURE_SURE = 45_000
LURE_NODES = 70_000
#: The searcher model's table (``2**MODEL_TABLE_BITS`` slots: small, as it is cleared before
#: every search, as an opponent's own search starts empty).
MODEL_TABLE_BITS = 16
#: How many of the replies a shallow search ranks first (often a dozen or more tie) are
#: checked exactly at first: a random sample estimates the share that lose at a fraction of
#: the cost. The time the traps leave checks as many more in each round (see ``_traps``).
SEARCHER_CHECKED = 4
#: The MCTS opponent model: iterations (OpenSpiel's MCTSBot affords 2,300-5,400 in the 0.9 s
#: *hard* thinks; models of 1,500 and 5,000 predicted its mistakes about equally well,
#: docs/ai.md, and a cheaper one leaves time for the searcher model), its UCT constant
#: (MCTSBot's) and how many of the most visited replies are checked exactly (the rest hold
#: few visits).
MCTS_ITERATIONS = 2000
MCTS_EXPLORATION = 2.0
MCTS_CHECKED = 3
#: The most MCTS searches averaged into one action's figure (the searcher's figures are
#: refined after those, best first, until final). The first is made for every drawing
#: action; the time left after the traps are counted (the MCTS model costs about 3 ms an
#: action, so most of the move at the ninth and tenth tiles) buys more, in rounds over all of
#: them. One search's figure is noisy, and the highest of dozens of noisy figures is mostly
#: noise: the mean of four predicted MCTSBot's mistakes better than one (docs/ai.md).
MCTS_SAMPLES = 8
#: Watching the opponent: once at least WATCH_MIN of its moves could be compared with the
#: searcher model's first choices (moves where those were not every legal action), it is taken
#: for a shallow searcher if at least WATCH_AGREE of them were among those choices, and for
#: another kind of player (OpenSpiel's MCTSBot agreed with 0-2 of 5-8) if at most
#: WATCH_DISAGREE were; the traps are then measured with the model that fits alone (the other
#: model's time goes to it). In between, both models are measured.
WATCH_MIN = 3
WATCH_AGREE = 0.8
WATCH_DISAGREE = 0.4
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
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        start = self.clock()
        self.deadline = None if self.seconds is None else start + TRAP_SHARE * self.seconds
        self.last = report = ExactReport()
        plies = len(state.history)
        report.models = self._watch(state)
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

    def _watch(self, state: State) -> Models:
        """Compare the opponent's moves so far (each once) with the searcher model's first
        choices; which opponent models they call for (see :attr:`ExactReport.models`)."""
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
        under 1% more nodes than one search (docs/ai.md)."""
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
        traps that catch a shallow searcher, docs/ai.md); the lure is the higher figure. (Only
        the model ``report.models`` names, where the opponent's moves showed which fits.) Both
        go through the actions in one random order, so a budget cut short favours none, and
        only actions measured completely get a figure (a partial count would be biased). The
        time left then refines both figures: more MCTS searches averaged into the MCTS figures
        (up to :data:`MCTS_SAMPLES` each, in rounds from the strongest lure down), then more of
        the searcher's tied first choices checked, best first (until all are)."""
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


class LureProbe:
    """How likely a fallible opponent is to answer ``child`` (the packed ``position``, after
    one drawing action) with a losing reply, by two kinds of opponent (replies checked
    exactly, each at most once; ``agent`` gives the searches, its transposition table and its
    random generator, so the figures are reproducible with the agent's seed):

    * :meth:`sampled`, a Monte Carlo tree search with random rollouts: the share of the
      visits of a compiled UCT search of :data:`MCTS_ITERATIONS` iterations that went to
      losing replies among its :data:`MCTS_CHECKED` most visited. (Against OpenSpiel's
      MCTSBot this share predicts its real mistakes better than weighting replies by random
      playouts, which the first version did: correlation 0.69 against 0.54 over 72 measured
      actions; docs/ai.md.) A search is random: averaging a few sharpens the figure.
    * :meth:`searched`, a searcher with a short horizon that deepens through
      :data:`LURE_DEPTHS` with the game's evaluation, each search from an empty table, and
      plays what its deepest finished depth ranks first: the share of losing replies among
      those first choices (estimated from :data:`SEARCHER_CHECKED` more of them at random
      each call where more tie), weighted by the chance it finishes the last depth
      (``finish_chance``; see :func:`shallow_choices` and :func:`deeper_choices`). (Near the
      end a deep search is cheap and sees the loss, so a lure there counts for nothing.
      Depths are odd, as the game's own search deepens: an even horizon ends on the
      opponent's placement.)
    """

    def __init__(self, agent: ExactSearchAgent, child: State, position: int) -> None:
        self.agent, self.child = agent, child
        self.replies = {
            reply: (after, end) for reply, after, end in agent.kernel.children(position)
        }
        self.lost: dict[int, bool] = {}
        #: The searcher model's horizons (None: not searched yet): the shallower one's first
        #: choices, then the last depth's if it may finish, each with its weight.
        self.horizons: list[Horizon] | None = None
        self.deepened = False

    def loses(self, reply: int) -> bool:
        """Whether ``reply`` loses for the opponent (the agent's exact search; remembered)."""
        if reply not in self.lost:
            self.lost[reply] = self.agent._loses(*self.replies[reply])
        return self.lost[reply]

    def sampled(self, iterations: int = MCTS_ITERATIONS) -> float:
        """One MCTS search's figure (a new search each call: average a few for precision)."""
        agent = self.agent
        tree = agent.mcts.search(self.child, agent.rng, iterations, None, MCTS_EXPLORATION)
        visits = {reply: n for reply, (n, _) in tree.actions.items()}
        likely = sorted(visits, key=visits.__getitem__, reverse=True)[:MCTS_CHECKED]
        return sum(visits[reply] for reply in likely if self.loses(reply)) / sum(visits.values())

    def searched(self) -> float:
        """The short-horizon searcher's figure from the replies checked so far: the first call
        searches the shallower depths and checks up to :data:`SEARCHER_CHECKED` of their
        first choices at random, each later one that many more (see
        :attr:`searched_exactly`). The last depth is searched by the first call after one of
        those choices has been found to lose: until then the figure is nought either way (a
        deeper search that does not see the end is too dear to finish; one that does never
        chooses a loss), and an action that cannot be a trap costs no deep search."""
        agent = self.agent
        if self.horizons is None:
            choices = shallow_choices(agent.model, self.child, agent.rng)
            self.horizons = [Horizon(1.0, agent.rng.sample(choices, len(choices)))]
            self.horizons[0].check(self.loses)
            return self.horizons[0].share(self.loses)
        for horizon in self.horizons:
            horizon.check(self.loses)
        shallow = self.horizons[0]
        if self._deepens:
            self.deepened = True
            deeper = deeper_choices(agent.model, self.child, agent.rng)
            if deeper is not None:
                chance, choices = deeper
                shallow.weight = 1.0 - chance
                self.horizons.append(Horizon(chance, agent.rng.sample(choices, len(choices))))
                self.horizons[-1].check(self.loses)
        return sum(horizon.weight * horizon.share(self.loses) for horizon in self.horizons)

    @property
    def _deepens(self) -> bool:
        """Whether the last depth is still to be searched (a shallower choice loses)."""
        assert self.horizons is not None  # searched once
        return not self.deepened and any(map(self.loses, self.horizons[0].checked))

    @property
    def searched_exactly(self) -> bool:
        """Whether :meth:`searched` has checked every one of the searcher's first choices, at
        every depth it needs."""
        return (
            self.horizons is not None
            and all(not h.unchecked for h in self.horizons)
            and not self._deepens
        )


@dataclass
class Horizon:
    """One depth of the searcher model in :class:`LureProbe`: the chance it is the one the
    opponent plays from, and its first choices, checked and not yet."""

    weight: float
    unchecked: list[int]
    checked: list[int] = field(default_factory=list)

    def check(self, loses: Callable[[int], bool]) -> None:
        """Check :data:`SEARCHER_CHECKED` more of the choices with ``loses``."""
        batch = self.unchecked[:SEARCHER_CHECKED]
        del self.unchecked[:SEARCHER_CHECKED]
        for reply in batch:
            loses(reply)
        self.checked += batch

    def share(self, loses: Callable[[int], bool]) -> float:
        """The share of the checked choices that lose."""
        return sum(map(loses, self.checked)) / len(self.checked)


def finish_chance(nodes: int) -> float:
    """The chance that an opponent finishes a search of ``nodes`` nodes: one up to
    :data:`LURE_SURE`, falling evenly to none at :data:`LURE_NODES`.

    >>> middle = (LURE_SURE + LURE_NODES) // 2
    >>> finish_chance(LURE_SURE), finish_chance(middle), finish_chance(LURE_NODES)
    (1.0, 0.5, 0.0)
    """
    if nodes <= LURE_SURE:
        return 1.0
    return max(0.0, (LURE_NODES - nodes) / (LURE_NODES - LURE_SURE))


def _new_search(
    searcher: Searcher, state: State, rng: random.Random, depth: int, max_nodes: int
) -> KernelSearchResult:
    """The searcher model's search of ``state`` to ``depth`` (odd depths), from an empty table
    as an opponent's own search would start (its nodes and choices do not depend on earlier
    searches)."""
    from flipgames.kernels.search import iterative_deepening

    searcher.forget()
    return iterative_deepening(searcher, state, rng, depth, max_nodes=max_nodes, depth_step=2)


def _first(result: KernelSearchResult, state: State) -> list[int]:
    """The actions ``result`` ranks first (every legal one if no depth finished)."""
    if not result.scores:
        return list(state.legal_actions())
    top = max(result.scores.values())
    return [action for action, score in result.scores.items() if score == top]


def shallow_choices(searcher: Searcher, state: State, rng: random.Random) -> list[int]:
    """The searcher model's first choices at the deepest of :data:`LURE_DEPTHS` but the last
    that it surely finishes (within :data:`LURE_SURE` nodes)."""
    return _first(_new_search(searcher, state, rng, LURE_DEPTHS[-2], LURE_SURE), state)


def deeper_choices(
    searcher: Searcher, state: State, rng: random.Random
) -> tuple[float, list[int]] | None:
    """The chance that the searcher model finishes the last of :data:`LURE_DEPTHS` in
    ``state`` (``finish_chance`` of that search's nodes), and its first choices there; None
    if it does not finish within :data:`LURE_NODES` or a shallower depth proved the result
    (an opponent stops deepening there)."""
    depth = LURE_DEPTHS[-1]
    result = _new_search(searcher, state, rng, depth, LURE_NODES)
    if result.depth < depth:
        return None
    return finish_chance(result.nodes), _first(result, state)


def searcher_choices(searcher: Searcher, state: State, rng: random.Random) -> list[int]:
    """The actions the searcher model most likely plays in ``state``: the first choices of
    the last of :data:`LURE_DEPTHS` if it finishes there at least half the time, else of the
    one before (what the watch compares an opponent's moves with)."""
    deeper = deeper_choices(searcher, state, rng)
    if deeper is not None and deeper[0] >= 0.5:
        return deeper[1]
    return shallow_choices(searcher, state, rng)
