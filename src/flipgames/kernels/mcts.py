"""What every compiled Monte Carlo tree search shares: the tree in flat arrays, UCT selection,
expansion bookkeeping, backup, and the Python driver with its budgets.

Only kernel modules (and agents that hold a kernel) import this: it imports numba.

It is the algorithm of the reference :class:`~flipgames.agents.mcts.MCTSAgent` for
two-player zero-sum games, run in machine code (a game with chance nodes, Checkered Flag,
handles them in its own loop as the reference does): each iteration walks down the tree by UCT
(``mean + c * sqrt(ln N / n)`` for the player to move, ties drawn at random), expands one
untried action drawn uniformly, plays a uniformly random game from the new node (cut after
``rollout_limit`` plies and scored by the game's evaluation, ``tanh`` of its ported value, as
``State.evaluate`` does), and adds the result to every node on the path. The chosen action is
the most visited one (ties to the lowest id).

A game's MCTS kernel (e.g. :mod:`flipgames.games.flipflop.mcts_kernel`) compiles one function
that runs a number of iterations over this module's :class:`Tree`, with its own position words,
move generator, rollout and evaluation; Python calls it once per chunk of iterations, never
per iteration. Numba has no clock, so a time budget is chunks: each chunk is sized from the
rate measured so far to fit about half the time left (see :meth:`KernelMCTS.search`).

The tree: node ``i`` has up to :data:`WORDS` position words ``pos[i]`` (the game's own), the
side to move, a status (:data:`~flipgames.core.kernel.ONGOING`, ``FIRST_WINS``, ...), the
history slot of its line's last irreversible action (for repetition), its visits and the sum
of the first player's returns seen through it (zero-sum: the second player's is the negation).
Its legal actions are the slice ``first[i] : first[i] + count[i]`` of ``edge_action``; the
first ``tried[i]`` of them have a child node in ``edge_child``. A compiled run stops early,
with fewer iterations done, when the arrays could overflow; the driver then doubles them.

>>> tree = Tree(4, 16)
>>> int(tree.ctx[NODES]), len(tree.visits), tree.edge_action.dtype.name
(0, 4, 'int32')
"""

from __future__ import annotations

import math
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast, runtime_checkable

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.kernels.jit import FILTER_WORDS, below, jit, occurrences, seeded

if TYPE_CHECKING:
    from flipgames.core.game import State

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
F64 = npt.NDArray[np.float64]
U64 = npt.NDArray[np.uint64]

#: Position words a node may hold (FlipFour needs six: three boards, two hands, the mover).
WORDS = 6
#: ``ctx`` slots: nodes and edges in use, and the deepest node's depth below the root.
NODES, EDGES, DEPTH = range(3)

#: The tree as the compiled functions take it: pos, mover, status, since, visits, total,
#: first, count, tried, edge_action, edge_child, ctx.
TreeArrays = tuple[I64, I64, I64, I64, I64, F64, I64, I64, I64, I32, I32, I64]

A = TypeVar("A", I64, I32, F64)
#: The game's kernel class a search runs over.
K = TypeVar("K")

#: Iterations of the first chunk of a timed search (its rate sizes the next chunks).
FIRST_CHUNK = 16


#: The per-node arrays of a :class:`Tree`.
_NODE_ARRAYS = ("pos", "mover", "status", "since", "visits", "total", "first", "count", "tried")


class Tree:
    """The arrays of one search tree, with room for ``nodes`` nodes and ``edges`` edges."""

    def __init__(self, nodes: int, edges: int) -> None:
        self.pos = np.zeros((nodes, WORDS), dtype=np.int64)
        self.mover = np.zeros(nodes, dtype=np.int64)
        self.status = np.zeros(nodes, dtype=np.int64)
        self.since = np.zeros(nodes, dtype=np.int64)
        self.visits = np.zeros(nodes, dtype=np.int64)
        self.total = np.zeros(nodes, dtype=np.float64)
        self.first = np.zeros(nodes, dtype=np.int64)
        self.count = np.zeros(nodes, dtype=np.int64)
        self.tried = np.zeros(nodes, dtype=np.int64)
        # Edges are most of the memory (every legal action of every node): 32 bits each.
        self.edge_action = np.zeros(edges, dtype=np.int32)
        self.edge_child = np.zeros(edges, dtype=np.int32)
        self.ctx = np.zeros(3, dtype=np.int64)

    def arrays(self) -> TreeArrays:
        return (
            self.pos, self.mover, self.status, self.since, self.visits, self.total,
            self.first, self.count, self.tried, self.edge_action, self.edge_child, self.ctx,
        )  # fmt: skip

    def grow(self, nodes: int, edges: int) -> None:
        """Make room for at least ``nodes`` nodes and ``edges`` edges (doubling), keeping
        what the tree holds."""
        if nodes > len(self.visits):
            size = max(nodes, 2 * len(self.visits))
            for name in _NODE_ARRAYS:
                setattr(self, name, _enlarged(getattr(self, name), size))
        if edges > len(self.edge_action):
            size = max(edges, 2 * len(self.edge_action))
            self.edge_action = _enlarged(self.edge_action, size)
            self.edge_child = _enlarged(self.edge_child, size)


def _enlarged(array: A, size: int) -> A:
    bigger = np.zeros((size, *array.shape[1:]), dtype=array.dtype)
    bigger[: len(array)] = array
    return cast(A, bigger)


# --- compiled helpers -------------------------------------------------------------------------


@jit
def room(tree: TreeArrays, max_moves: int, history: I64, root_index: int, limit: int) -> bool:
    """Whether one more iteration fits: a node, its ``max_moves`` edges, and a line of play
    (the game's history, the tree path, the rollout) in ``history``."""
    ctx = tree[11]
    return bool(
        ctx[NODES] < len(tree[4])
        and ctx[EDGES] + max_moves <= len(tree[9])
        and root_index + ctx[DEPTH] + limit + 2 <= len(history)
    )


@jit
def add_node(tree: TreeArrays, mover: int, status: int, since: int, moves: int) -> int:
    """A new node (its caller fills ``pos`` and, for ``moves`` legal actions, the edges from
    ``first``); returns its index."""
    pos, mover_of, status_of, since_of, visits, total, first, count, tried, _, _, ctx = tree
    node: int = ctx[NODES]
    ctx[NODES] += 1
    pos[node, :] = 0
    mover_of[node], status_of[node], since_of[node] = mover, status, since
    visits[node], total[node] = 0, 0.0
    first[node], count[node], tried[node] = ctx[EDGES], moves, 0
    ctx[EDGES] += moves
    return node


@jit
def untried(tree: TreeArrays, node: int, rng: U64) -> int:
    """Draw one of ``node``'s untried actions uniformly; returns its edge (now tried, its child
    still to be attached with :func:`attach`)."""
    first, count, tried, edge_action = tree[6], tree[7], tree[8], tree[9]
    start: int = first[node] + tried[node]
    pick = start + below(rng, count[node] - tried[node])
    edge_action[start], edge_action[pick] = edge_action[pick], edge_action[start]
    tried[node] += 1
    return start


@jit
def attach(tree: TreeArrays, edge: int, child: int, depth: int) -> None:
    """Make ``child`` (at ``depth`` below the root) the node behind ``edge``."""
    tree[10][edge] = child
    ctx = tree[11]
    ctx[DEPTH] = max(ctx[DEPTH], depth)


@jit
def expandable(tree: TreeArrays, node: int) -> bool:
    return bool(tree[8][node] < tree[7][node])


@jit
def select(tree: TreeArrays, node: int, exploration: float, rng: U64) -> int:
    """The child of a fully expanded ``node`` with the best upper confidence bound for its
    side to move (the reference's ``_select``: exact ties drawn uniformly)."""
    mover, visits, total, first, count, edge_child = (
        tree[1], tree[4], tree[5], tree[6], tree[7], tree[10]
    )  # fmt: skip
    sign = 1.0 if mover[node] == 0 else -1.0
    log_n = math.log(visits[node])
    best_score = -math.inf
    best = -1
    ties = 0
    for e in range(first[node], first[node] + count[node]):
        child = edge_child[e]
        n = visits[child]
        score = sign * total[child] / n + exploration * math.sqrt(log_n / n)
        if score > best_score:
            best_score, best, ties = score, child, 1
        elif score == best_score:
            # Reservoir sampling: each of the tied children ends up chosen with equal odds.
            ties += 1
            if below(rng, ties) == 0:
                best = child
    return best


@jit
def backup(tree: TreeArrays, path: I64, length: int, result: float) -> None:
    """Add a result (the first player's return) to every node of ``path[:length]``."""
    visits, total = tree[4], tree[5]
    for i in range(length):
        visits[path[i]] += 1
        total[path[i]] += result


@jit
def first_return(status: int) -> float:
    """The first player's return at the end of a game."""
    if status == FIRST_WINS:
        return 1.0
    if status == SECOND_WINS:
        return -1.0
    return 0.0


@jit
def estimate(value: int, mover: int) -> float:
    """The first player's estimated return from an evaluation in thousandths for the side to
    move (the ported heuristics' scale): ``tanh`` as ``State.evaluate`` squashes it."""
    first_view = value if mover == 0 else -value
    return math.tanh(first_view / 1000.0)


@jit
def rebuild_seen(history: I64, index: int, since: int, seen: I64) -> int:
    """Mark the positions ``history[since:index + 1]`` in the repetition filter (cleared
    first); returns how often ``history[index]`` occurred among them."""
    seen[:] = 0
    count = 1
    for i in range(since, index + 1):
        count = occurrences(history, i, since, seen)
    return count


# --- the Python side --------------------------------------------------------------------------


@dataclass(frozen=True)
class RootStats:
    """A finished search: per root action, its visits and the mean return for the player to
    move at the root; the iterations run."""

    actions: dict[int, tuple[int, float]]
    iterations: int

    def best(self) -> int:
        """The most visited action (ties to the lowest id, as the reference chooses)."""
        return max(self.actions.items(), key=lambda item: (item[1][0], -item[0]))[0]


class KernelMCTS(ABC, Generic[K]):
    """A game's compiled MCTS over its ``kernel``: its Python side. A subclass sets up the
    root from a reference state (:meth:`_root`) and runs its compiled iterations
    (:meth:`_run`)."""

    #: The most legal actions a position of the game can have.
    max_moves: int

    def __init__(self, kernel: K) -> None:
        self.kernel = kernel
        self.tree = Tree(1024, 1024 * 16)
        #: The line of play: the game's positions since its last irreversible action, then the
        #: tree path and the rollout of the current iteration (three words per position).
        self.history = np.zeros((256, 3), dtype=np.int64)
        self.seen = np.zeros(FILTER_WORDS, dtype=np.int64)
        self.root_index = 0
        self.rng = seeded(0)

    def search(
        self,
        state: State,
        rng: random.Random,
        iterations: int | None,
        seconds: float | None,
        exploration: float = 1.0,
        rollout_limit: int = 200,
        clock: Callable[[], float] = time.perf_counter,
    ) -> RootStats:
        """Search from ``state`` (a player node) until the first budget runs out (at least one
        iteration); the generator seeds the compiled one, so an iteration budget and a seeded
        ``rng`` make the search reproducible."""
        if state.is_terminal() or state.is_chance_node():
            raise ValueError("MCTS needs a state where a player is to move")
        self.rng = seeded(rng.getrandbits(64))
        self._root(state)
        started = clock()
        done = 0
        chunk = FIRST_CHUNK
        while iterations is None or done < iterations:
            if seconds is not None and done:
                elapsed = clock() - started
                if elapsed >= seconds:
                    break
                # Half the time left at the rate so far: the next check comes in time.
                rate = done / max(elapsed, 1e-9)
                chunk = max(1, int(rate * (seconds - elapsed) / 2))
            if iterations is None:
                want = chunk
            else:
                # Without a clock to watch, one call runs every iteration.
                want = iterations - done if seconds is None else min(chunk, iterations - done)
            ran = self._run(want, exploration, rollout_limit)
            done += ran
            if ran < want:
                self._make_room(rollout_limit)
        return self._stats(done)

    def rollouts(self, state: State, n: int, rng: random.Random, rollout_limit: int = 200) -> F64:
        """The first player's returns of ``n`` rollouts from ``state`` (a player node), played
        as a search plays them from a new node: what the tree's statistics average."""
        if state.is_terminal() or state.is_chance_node():
            raise ValueError("rollouts need a state where a player is to move")
        self.rng = seeded(rng.getrandbits(64))
        self._root(state)
        self._make_room(rollout_limit)
        return self._rollouts(n, rollout_limit)

    def _make_room(self, rollout_limit: int) -> None:
        ctx = self.tree.ctx
        self.tree.grow(int(ctx[NODES]) + 1, int(ctx[EDGES]) + self.max_moves)
        rows = self.root_index + int(ctx[DEPTH]) + rollout_limit + 2
        if rows > len(self.history):
            bigger = np.zeros((max(rows, 2 * len(self.history)), 3), dtype=np.int64)
            bigger[: len(self.history)] = self.history
            self.history = bigger

    def _set_root(
        self, words: tuple[int, ...], mover: int, moves: list[int], line: list[tuple[int, int, int]]
    ) -> None:
        """Node 0: the root's position words, side to move and legal actions; ``line`` is the
        game's positions from its last irreversible action up to the root (three words each,
        for repetition; games without repetition give the root alone), the line of play
        every iteration starts from."""
        self.root_index = len(line) - 1
        if len(line) + 2 > len(self.history):
            self.history = np.zeros((2 * len(line) + 2, 3), dtype=np.int64)
        for i, row in enumerate(line):
            self.history[i] = row
        t = self.tree
        t.grow(1, len(moves))
        t.pos[0, :] = 0
        t.pos[0, : len(words)] = words
        t.mover[0], t.status[0], t.since[0] = mover, ONGOING, 0
        t.visits[0], t.total[0] = 0, 0.0
        t.first[0], t.count[0], t.tried[0] = 0, len(moves), 0
        t.edge_action[: len(moves)] = moves
        t.ctx[:] = (1, len(moves), 0)

    def _stats(self, iterations: int) -> RootStats:
        t = self.tree
        sign = 1.0 if t.mover[0] == 0 else -1.0
        actions: dict[int, tuple[int, float]] = {}
        for e in range(int(t.first[0]), int(t.first[0] + t.tried[0])):
            child = int(t.edge_child[e])
            visits = int(t.visits[child])
            mean = sign * float(t.total[child]) / visits if visits else 0.0
            actions[int(t.edge_action[e])] = (visits, mean)
        return RootStats(actions, iterations)

    @abstractmethod
    def _root(self, state: State) -> None:
        """Make ``state`` node 0 of the (emptied) tree, with its legal actions, and its line
        of play the start of :attr:`history`."""

    @abstractmethod
    def _rollouts(self, n: int, rollout_limit: int) -> F64:
        """``n`` compiled rollouts from the root (see :meth:`rollouts`)."""

    @abstractmethod
    def _run(self, iterations: int, exploration: float, rollout_limit: int) -> int:
        """Run up to ``iterations`` compiled iterations; return how many ran (fewer when the
        arrays are full)."""


@runtime_checkable
class MCTSKernel(Protocol):
    """A kernel with a compiled MCTS."""

    def mcts(self) -> KernelMCTS[Any]:
        """A new compiled MCTS over this kernel."""
        ...
