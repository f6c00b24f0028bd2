"""The exact values behind :func:`~flipgames.solvers.stochastic.solve_stochastic`, computed on a
position graph.

Cycles (Flip Switch switches can undo each other) make value iteration inexact, so the graph
is split into strongly connected components (Tarjan, compiled), solved children first: every
action out of a component leads to a solved position ("an exit" with a known value).

* A component of one position without a self-loop is solved directly: max, min or the
  weighted mean of its children.
* A larger component without chance nodes is a deterministic game whose exits pay their
  values and whose endless plays pay 0 (the third repetition is a draw). For a threshold
  ``t``, player 0 can guarantee ``>= t`` from the positions in player 0's attractor to the
  exits worth ``>= t`` when ``t > 0``, and from the complement of player 1's attractor to the
  exits worth ``< t`` when ``t <= 0`` (avoiding those for ever pays 0). A position's value is
  the largest such ``t`` among the exit values and 0. The attractors are nested, so one
  incremental pass over the thresholds in order computes them all.
* A component that mixes chance and cycles raises :class:`SolverError`: an exact answer there
  needs linear algebra this solver does not do, and it never returns an inexact one.

Exact numbers without a ``Fraction`` per position: every value is an integer numerator over
one common denominator ``D = L ** H``, where ``L`` is the least common multiple of the chance
nodes' weight totals and ``H`` the most chance nodes on any path. A value below ``h`` chance
nodes has a denominator dividing ``L ** h``, so a chance node's weighted sum of its
children's numerators divides exactly by its total. Comparisons are integer comparisons and
equal values are equal integers; a ``Fraction`` is made only when a value is asked for. The
numerators are Python integers (Checkered Flag's exact answer has a 58-digit denominator),
held in numpy object arrays: positions outside cycles are solved a level at a time, one numpy
call per level. The solution stores one id per position into the table of distinct
numerators (37 distinct values in Flip Switch with ``lines=all``).

Canonical strategies, used for :meth:`StochasticSolution.probabilities`: the player who must
make progress (player 0 at a positive value, player 1 at a negative one, inside a cycle)
takes the optimal edge into the position settled earliest (exits, solved before the cycle,
then the attractor's order of entry), so play reaches the exit; every other choice is the
first optimal edge (the smallest action id of the position the graph enumerated it from).
Under fixed strategies a cycle that is never left is a draw, so win minus loss is always the
value.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from flipgames.core.game import CHANCE, TERMINAL, Game
from flipgames.core.kernel import PositionGraph
from flipgames.core.progress import Progress
from flipgames.solvers.solution import SolverError

_REPORT_EVERY = 100_000


class ValueSolver:
    """Exact values on a position graph (see the module docstring): integer numerators over
    one common denominator.

    Positions outside cycles are solved a level at a time with numpy object arrays of Python
    integers (one call per level, not one per position; a level needs only lower ones);
    components with cycles go through the attractor computation position by position.
    """

    def __init__(self, game: Game, graph: PositionGraph, say: Progress) -> None:
        self.game = game
        self.say = say
        self.graph = graph
        self.players: list[int] = graph.to_move.tolist()
        self.first: list[int] = graph.edge_start.tolist()
        self.child: list[int] = graph.edge_child.tolist()
        n = graph.nodes
        self.value = np.zeros(n, object)
        self.win = np.zeros(n, object)
        self.loss = np.zeros(n, object)
        self.canonical = np.full(n, -1, np.int32)
        self.settled = np.full(n, -1, np.int64)
        self._clock = 0
        self.denominator = 1
        # Win and loss numerators are tracked only where a draw can happen (a drawn terminal
        # or a cycle); otherwise they follow from the value: win = (1 + value) / 2.
        self.draws = False

    def solve(self) -> tuple[dict[str, npt.NDArray[np.int32]], list[int], int, bool]:
        """Per-position ids into a table of distinct numerators, the table, the common
        denominator, and whether win and loss were tracked (else they follow the value)."""
        graph = self.graph
        n = graph.nodes
        component: npt.NDArray[np.int64] | None = None
        acyclic = acyclic_levels(graph.edge_start, graph.edge_child, graph.to_move)
        if acyclic is not None:
            level, height = acyclic
            cyclic = np.zeros(n, np.bool_)
        else:
            from flipgames.solvers.compiled import (  # numba: only for graphs with cycles
                chance_height,
                component_levels,
                components,
            )

            members, start = components(graph.edge_start, graph.edge_child)
            height = chance_height(
                graph.edge_start, graph.edge_child, graph.to_move, members, start
            )
            level, cyclic = component_levels(graph.edge_start, graph.edge_child, members, start)
            component = np.empty(n, np.int64)
            component[members] = np.repeat(np.arange(len(start) - 1), np.diff(start))
        d = self.denominator = common_denominator(graph) ** int(height)
        terminal = graph.to_move == TERMINAL
        self.draws = bool(cyclic.any() or (terminal & (graph.terminal_return == 0)).any())
        ends = np.flatnonzero(terminal)
        returns: list[int] = graph.terminal_return[ends].tolist()
        for array, ints in (
            (self.value, [r * d for r in returns]),
            (self.win, [d if r > 0 else 0 for r in returns]),
            (self.loss, [d if r < 0 else 0 for r in returns]),
        ):
            column = np.empty(len(ints), object)
            column[:] = ints  # Python integers as they are, however large
            array[ends] = column
        self._settle_all(ends)
        # Nodes grouped by level (stable: node order within a level).
        order = np.argsort(level, kind="stable")
        bounds = np.searchsorted(level[order], np.arange(int(level.max()) + 2))
        solved = len(ends)
        cycles = 0
        for lv in range(1, len(bounds) - 1):
            nodes = order[bounds[lv] : bounds[lv + 1]]
            plain = nodes[~cyclic[nodes]]
            to_move = graph.to_move[plain]
            self._chance(plain[to_move == CHANCE])
            self._choose(plain[to_move == 0], maximise=True)
            self._choose(plain[to_move == 1], maximise=False)
            self._settle_all(plain)
            looped = nodes[cyclic[nodes]]
            if len(looped):
                assert component is not None  # cyclic nodes come from the components
                groups: dict[int, list[int]] = {}
                for v, c in zip(looped.tolist(), component[looped].tolist(), strict=True):
                    groups.setdefault(c, []).append(v)
                for group in groups.values():
                    self._solve_cycle(group)
                cycles += len(groups)
            before, solved = solved, solved + len(nodes)
            if solved // _REPORT_EVERY > before // _REPORT_EVERY or solved == n:
                self.say(f"solved positions ({cycles:,} cycles)", done=solved, total=n)
        table: dict[int, int] = {}
        arrays: dict[str, npt.NDArray[np.int32]] = {}
        for name in ("value", "win", "loss"):
            if name != "value" and not self.draws:
                arrays[name] = np.full(n, -1, np.int32)
                continue
            numerators: list[int] = getattr(self, name).tolist()
            arrays[name] = np.array([table.setdefault(x, len(table)) for x in numerators], np.int32)
        arrays["canonical"] = self.canonical
        arrays["settled"] = self.settled.astype(np.int32)
        return arrays, list(table), d, self.draws

    def _edges(
        self, nodes: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The edges of ``nodes``, concatenated: edge ids, each node's first position in
        them, and each node's edge count."""
        first = self.graph.edge_start[nodes]
        counts = self.graph.edge_start[nodes + 1] - first
        offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
        edges = np.arange(int(counts.sum())) + np.repeat(first - offsets, counts)
        return edges, offsets, counts

    def _chance(self, nodes: npt.NDArray[np.int64]) -> None:
        """Weighted means, exact: every child's numerator is a multiple of the chance total
        (the common denominator holds one factor of it per chance node below)."""
        if not len(nodes):
            return
        edges, offsets, _ = self._edges(nodes)
        kids = self.graph.edge_child[edges]
        weights = self.graph.edge_weight[edges]
        totals = np.add.reduceat(weights, offsets)
        arrays = (self.value, self.win, self.loss) if self.draws else (self.value,)
        for array in arrays:
            array[nodes] = np.add.reduceat(array[kids] * weights, offsets) // totals

    def _choose(self, nodes: npt.NDArray[np.int64], maximise: bool) -> None:
        """The best child (the first edge of the best value) of each player node."""
        if not len(nodes):
            return
        edges, offsets, counts = self._edges(nodes)
        kids = self.graph.edge_child[edges]
        values = self.value[kids]
        pick = np.maximum if maximise else np.minimum
        best = pick.reduceat(values, offsets)
        hits = np.flatnonzero(np.asarray(values == np.repeat(best, counts), dtype=bool))
        chosen = kids[hits[np.searchsorted(hits, offsets)]]
        self.value[nodes] = best
        self.win[nodes] = self.win[chosen]
        self.loss[nodes] = self.loss[chosen]
        self.canonical[nodes] = chosen

    def _settle_all(self, nodes: npt.NDArray[np.int64]) -> None:
        self.settled[nodes] = np.arange(self._clock, self._clock + len(nodes))
        self._clock += len(nodes)

    def _settle(self, v: int) -> None:
        """Record that ``v``'s value is known now, after every position settled before."""
        self.settled[v] = self._clock
        self._clock += 1

    def _solve_cycle(self, members: list[int]) -> None:
        """A component with cycles: threshold attractors (see the module docstring)."""
        players, first, child, value = self.players, self.first, self.child, self.value
        if any(players[v] < 0 for v in members):
            raise SolverError(
                f"{self.game.name} is unsupported: chance inside a cycle of positions; this "
                "solver returns exact values only when cycles are free of chance"
            )
        inside = set(members)
        preds: dict[int, list[int]] = {v: [] for v in members}
        exits: dict[int, list[int]] = {}  # exit value -> the position of each such edge
        for v in members:
            for e in range(first[v], first[v + 1]):
                w = child[e]
                if w in inside:
                    preds[w].append(v)
                else:
                    exits.setdefault(value[w], []).append(v)
        thresholds = sorted(exits)
        found: dict[int, int] = {}  # position -> value, as each attractor takes it
        self._attract(members, preds, exits, found, 0, [t for t in reversed(thresholds) if t > 0])
        self._attract(members, preds, exits, found, 1, [t for t in thresholds if t < 0])
        for v in members:
            if v not in found:  # neither side can force an exit: a draw
                found[v] = 0
                self._settle(v)
        following = self._canonical_in_cycle(members, inside, found)
        self._follow(members, inside, following)

    def _attract(
        self,
        members: list[int],
        preds: dict[int, list[int]],
        exits: dict[int, list[int]],
        found: dict[int, int],
        player: int,
        ordered: list[int],
    ) -> None:
        """Grow ``player``'s attractor to the exits, one threshold of ``ordered`` at a time,
        recording each position's value in ``found`` as the attractor takes it."""
        players, first = self.players, self.first
        remaining = {v: first[v + 1] - first[v] for v in members if players[v] != player}
        queue: list[int] = []

        def reach(v: int, t: int) -> None:
            if v in found:
                return
            if v in remaining:
                remaining[v] -= 1
                if remaining[v]:
                    return
            found[v] = t
            self._settle(v)
            queue.append(v)

        for t in ordered:
            for v in exits[t]:
                reach(v, t)
            while queue:
                for u in preds[queue.pop()]:
                    reach(u, t)

    def _canonical_in_cycle(
        self, members: list[int], inside: set[int], found: dict[int, int]
    ) -> dict[int, int]:
        """Store the component's values and canonical children; return each member's child."""
        players, first, child, value = self.players, self.first, self.child, self.value
        settled = self.settled
        following: dict[int, int] = {}
        for v in members:
            t = value[v] = found[v]
            progress = t > 0 if players[v] == 0 else t < 0
            chosen = -1
            for e in range(first[v], first[v + 1]):
                w = child[e]
                if (found[w] if w in inside else value[w]) != t:
                    continue
                # Exits settled in earlier components; inside, attractor order is progress.
                if chosen < 0 or (progress and settled[w] < settled[child[chosen]]):
                    chosen = e
                if not progress:
                    break
            self.canonical[v] = following[v] = child[chosen]
        return following

    def _follow(self, members: list[int], inside: set[int], following: dict[int, int]) -> None:
        """Win and loss under the canonical strategies: play follows one edge per position, so
        it leaves the component (and gets what the exit gets) or goes round a cycle for ever
        (a draw)."""
        done: set[int] = set()
        for v in members:
            walk: list[int] = []
            walking: set[int] = set()
            w = v
            while w in inside and w not in done and w not in walking:
                walk.append(w)
                walking.add(w)
                w = following[w]
            outcome = (0, 0) if w in walking else (self.win[w], self.loss[w])
            for u in walk:
                self.win[u], self.loss[u] = outcome
                done.add(u)


def acyclic_levels(
    edge_start: npt.NDArray[np.int64],
    edge_child: npt.NDArray[np.int32],
    to_move: npt.NDArray[np.int8],
) -> tuple[npt.NDArray[np.int64], int] | None:
    """Per node its level (0 without edges, else one more than its children's highest) and
    the most chance nodes on any path, peeled from the ends a level at a time in numpy; None
    when the graph has a cycle (then the compiled strongly connected components are needed).
    For a graph without cycles these are :func:`~flipgames.solvers.compiled.component_levels`
    and :func:`~flipgames.solvers.compiled.chance_height`'s answers, with no numba loaded.

    >>> # 0 -> 1 -> 2 and 0 -> 2; node 1 is a chance node
    >>> acyclic_levels(np.array([0, 2, 3, 3]), np.array([1, 2, 2], np.int32),
    ...                np.array([0, -1, -2], np.int8))
    (array([2, 1, 0]), 1)
    >>> acyclic_levels(np.array([0, 1, 2]), np.array([1, 0], np.int32), np.array([0, 1], np.int8))
    """
    n = len(to_move)
    degree = np.diff(edge_start)
    parents = np.repeat(np.arange(n, dtype=np.int64), degree)[np.argsort(edge_child)]
    pred_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(edge_child, minlength=n), out=pred_start[1:])
    remaining = degree.copy()  # edges to nodes not yet levelled
    level = np.zeros(n, np.int64)
    height = (to_move == CHANCE).astype(np.int64)
    below = np.zeros(n, np.int64)  # the highest chance height among the levelled children
    current = np.flatnonzero(degree == 0)
    done, depth = len(current), 0
    while len(current):
        first, counts = pred_start[current], pred_start[current + 1] - pred_start[current]
        ends = np.cumsum(counts)
        edges = np.repeat(first - ends + counts, counts) + np.arange(ends[-1])
        node = parents[edges]
        np.subtract.at(remaining, node, 1)
        np.maximum.at(below, node, np.repeat(height[current], counts))
        current = np.unique(node[remaining[node] == 0])
        depth += 1
        level[current] = depth
        height[current] += below[current]
        done += len(current)
    if done < n:
        return None
    return level, int(height.max(initial=0))


def common_denominator(graph: PositionGraph) -> int:
    """The least common multiple of the chance nodes' weight totals (1 without chance)."""
    chance = np.flatnonzero(graph.to_move == CHANCE)
    if not len(chance):
        return 1
    cumulative = np.concatenate(([0], np.cumsum(graph.edge_weight)))
    sums = cumulative[graph.edge_start[chance + 1]] - cumulative[graph.edge_start[chance]]
    return math.lcm(*(int(t) for t in np.unique(sums)))
