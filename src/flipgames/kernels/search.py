"""What every compiled game-tree search shares: the clock, the transposition table, the
score scale and the iterative-deepening driver.

Only kernel modules (and agents that hold a kernel) import this: it imports numba.

A game's search kernel (e.g. :mod:`flipgames.games.flipflop.search_kernel`) compiles one
negamax alpha-beta over its bit-packed positions, with its evaluation ported into machine
code; Python calls it once per root move list and depth, never per node. This module drives
it: :func:`iterative_deepening` deepens one ply at a time until a budget runs out and keeps the
last complete iteration. Budgets are nodes (reproducible: a seeded agent with a node budget
plays the same moves on any machine) and seconds. The compiled search counts nodes and stops
at a node limit; a time budget becomes that limit before each iteration: the nodes the time
left buys at the rate measured so far in this search (numba has no clock, and stepping out to
Python's from cached machine code is not safe: numba's object mode crashes when loaded from
its disk cache). The first iteration, a few dozen nodes, is given :data:`FIRST_RATE`.

Scores are integers from the point of view of the side to move: evaluations in thousandths
(a game's weights times 1000), a win ``WIN - plies`` (the quicker the better), a loss
``-(WIN - plies)``, a repetition draw 0. A score beyond :data:`PROVEN` (either sign) is a
proven result: one the search saw within its plies, or one an endgame table gave at a node
(:class:`EndgameProbing`), its distance further on.

The transposition table is two ``int64`` arrays of ``2**bits`` slots: the position's 64-bit
hash, and a packed entry (score, depth, bound, best move) written by :func:`tt_store` and read
by :func:`tt_score` / :func:`tt_move`. A slot is always replaced (the newest search wins).

>>> import numpy as np
>>> keys, data = np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64)
>>> tt_store(keys, data, 12345, -WIN + 7, 3, UPPER, 42, 2)
>>> found, slot = tt_find(keys, 12345)
>>> found, tt_move(data[slot]), tt_depth(data[slot]), tt_bound(data[slot])
(True, 42, 3, 2)
>>> tt_score(data[slot], 2) == -WIN + 7
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

from flipgames.kernels.jit import jit

if TYPE_CHECKING:
    from flipgames.core.endgame import EndgameTable
    from flipgames.core.game import State

I64 = npt.NDArray[np.int64]

#: A won position's score (minus the plies to the win).
WIN = 1_000_000
INFINITE = 2 * WIN
#: The deepest a search path may go (plies from the root, extensions included).
MAX_PLY = 96
#: Scores beyond this (either sign) are proven results: a search's own within ``MAX_PLY``
#: plies, an endgame table's up to an ``int16`` distance beyond the node it answered.
PROVEN = WIN - MAX_PLY - (1 << 15)
#: Nodes per second assumed before anything is measured (far below any kernel's rate).
FIRST_RATE = 20_000
#: The share of the time left that the next iteration may plan to use (its rate per node
#: can still drop, e.g. when other processes take the core).
SAFETY = 0.8
#: Seconds an iteration must take for its rate to be trusted as a bound.
MEASURABLE = 0.02

#: Bounds of a stored score.
EXACT, LOWER, UPPER = 0, 1, 2

#: ``ctx`` slots: nodes searched, the node budget, and the abort flag (budget exhausted).
NODES, MAX_NODES, ABORTED = 0, 1, 2


@jit
def out_of_budget(ctx: I64) -> bool:
    """Count a node; True (and the abort flag set) once the node limit has passed."""
    if ctx[ABORTED]:
        return True
    ctx[NODES] += 1
    if ctx[NODES] > ctx[MAX_NODES]:
        ctx[ABORTED] = 1
    return bool(ctx[ABORTED] != 0)


@jit
def mix(a: int, b: int, c: int, d: int) -> int:
    """A 64-bit hash of four words (multiply and xor-shift, as in splitmix64)."""
    h = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(b) * np.uint64(0xBF58476D1CE4E5B9) + (h >> np.uint64(29))
    h ^= np.uint64(c) * np.uint64(0x94D049BB133111EB) + (h >> np.uint64(31))
    h ^= np.uint64(d + 1) * np.uint64(0xD6E8FEB86659FD93)
    h ^= h >> np.uint64(32)
    h *= np.uint64(0x9E3779B97F4A7C15)
    h ^= h >> np.uint64(29)
    return int(np.int64(h))


@jit
def tt_find(keys: I64, hashed: int) -> tuple[bool, int]:
    """Whether the table holds ``hashed``, and its slot."""
    slot = hashed & (len(keys) - 1)
    return keys[slot] == hashed, slot


@jit
def tt_store(
    keys: I64, data: I64, hashed: int, score: int, depth: int, bound: int, move: int, ply: int
) -> None:
    """Store a search result; a proven score is stored relative to the node (plies from
    this node, not from the root), so it stays right where the position recurs at another
    ply."""
    if score > PROVEN:
        score += ply
    elif score < -PROVEN:
        score -= ply
    slot = hashed & (len(keys) - 1)
    keys[slot] = hashed
    data[slot] = (score + INFINITE) | (depth << 32) | (bound << 40) | ((move + 1) << 42)


@jit
def tt_score(entry: int, ply: int) -> int:
    """The stored score, seen from ``ply`` plies below the root."""
    score: int = (entry & 0xFFFFFFFF) - INFINITE
    if score > PROVEN:
        score -= ply
    elif score < -PROVEN:
        score += ply
    return score


@jit
def tt_depth(entry: int) -> int:
    return (entry >> 32) & 0xFF


@jit
def tt_bound(entry: int) -> int:
    return (entry >> 40) & 0x3


@jit
def tt_move(entry: int) -> int:
    """The stored best move, or -1."""
    return ((entry >> 42) & 0xFFFFF) - 1


@jit
def pick(moves: I64, order: I64, start: int, n: int) -> None:
    """Bring the move of the highest ``order`` among ``start..n-1`` to ``start`` (a
    selection sort step: most nodes are cut after one or two moves, so a full sort is
    wasted)."""
    best = start
    for i in range(start + 1, n):
        if order[i] > order[best]:
            best = i
    if best != start:
        moves[start], moves[best] = moves[best], moves[start]
        order[start], order[best] = order[best], order[start]


#: Move-ordering bonuses, far apart so each class comes before the next (a game may put its
#: own class between them, e.g. FlipFlop's captures at ``1 << 50``).
TT_MOVE_BONUS, KILLER_BONUS = 1 << 60, 1 << 40


@jit
def tt_probe(
    keys: I64, data: I64, hashed: int, depth: int, alpha: int, beta: int, ply: int
) -> tuple[bool, int, int]:
    """``(decided, score, move)``: ``decided`` when the table holds ``hashed`` searched at
    least ``depth`` deep with a score that settles the window (exact, or a bound beyond it);
    ``move`` is the stored best move (-1 if none), to be tried first."""
    found, slot = tt_find(keys, hashed)
    if not found:
        return False, 0, -1
    entry = data[slot]
    move = tt_move(entry)
    if tt_depth(entry) >= depth:
        score = tt_score(entry, ply)
        bound = tt_bound(entry)
        if (
            bound == EXACT
            or (bound == LOWER and score >= beta)
            or (bound == UPPER and score <= alpha)
        ):
            return True, score, move
    return False, 0, move


@jit
def tt_record(
    keys: I64, data: I64, hashed: int, best: int, alpha: int, beta: int, depth: int, move: int,
    ply: int,
) -> None:  # fmt: skip
    """Store a node's result, with its bound from the window it was searched with (``alpha``
    as it was on entry)."""
    bound = UPPER if best <= alpha else LOWER if best >= beta else EXACT
    tt_store(keys, data, hashed, best, depth, bound, move, ply)


@jit
def rank_moves(
    moves: I64, ranks: I64, n: int, table_move: int, killers: I64, ply: int, history: I64
) -> None:
    """Order keys for ``moves[:n]``: the table's move first, then the two killers of this ply,
    then by the history heuristic (:func:`pick` takes them in that order)."""
    for i in range(n):
        move = moves[i]
        value = history[move]
        if move == table_move:
            value += TT_MOVE_BONUS
        elif move == killers[ply, 0]:
            value += KILLER_BONUS
        elif move == killers[ply, 1]:
            value += KILLER_BONUS >> 1
        ranks[i] = value


@jit
def record_cutoff(
    killers: I64, history: I64, ply: int, move: int, depth: int, killer: bool
) -> None:
    """A move refuted the node: it becomes this ply's first killer (if ``killer``: games keep
    captures out) and its history grows by the depth squared."""
    if killer and killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
    history[move] += depth * depth


#: The game's kernel class a searcher runs over.
K = TypeVar("K")


class TableSearcher(Generic[K]):
    """What a game's searcher over its ``kernel`` keeps between moves: the transposition table
    (``2**table_bits`` slots of 16 bytes), two killers per ply, the history of cut-offs per
    action id, and per ply the move list and its order keys (``plies`` rows of
    ``max_moves``)."""

    def __init__(
        self, kernel: K, table_bits: int, actions: int, plies: int, max_moves: int
    ) -> None:
        self.kernel = kernel
        self.table = (
            np.zeros(1 << table_bits, dtype=np.int64),
            np.zeros(1 << table_bits, dtype=np.int64),
        )
        self.killers = np.full((MAX_PLY, 2), -1, dtype=np.int64)
        self.history = np.zeros(actions, dtype=np.int64)
        self.moves = np.zeros((plies, max_moves), dtype=np.int64)
        self.order = np.zeros((plies, max_moves), dtype=np.int64)

    def new_root(self) -> None:
        """Forget the killers (they belong to the last root's lines) and age the history
        (older cut-offs count less)."""
        self.killers[:] = -1
        self.history //= 8

    def forget(self) -> None:
        """Clear the table, the killers and the history: the next search runs as a new
        searcher's would (the same nodes and choices whatever was searched before)."""
        for part in self.table:
            part[:] = 0
        self.killers[:] = -1
        self.history[:] = 0


@runtime_checkable
class Searcher(Protocol):
    """A game's compiled alpha-beta, as :func:`iterative_deepening` drives it."""

    def prepare(self, state: State) -> list[int]:
        """Take ``state`` (and the positions before it that a repetition could bring back)
        as the root; return its legal actions."""
        ...

    def forget(self) -> None:
        """Forget everything earlier searches left: the next search is a new searcher's."""
        ...

    def search_root(self, depth: int, actions: I64, scores: I64, ctx: I64) -> None:
        """Search every root action in the given order to ``depth`` plies, writing its score
        (exact for every action that ties the best; an upper bound below the best for the
        rest) into ``scores``; stop early with ``ctx[ABORTED]`` set when the budget runs out."""
        ...


@runtime_checkable
class EndgameProbing(Protocol):
    """A searcher that can answer the positions of endgame tables at its nodes instead of
    searching them (FlipFlop 5x5's)."""

    def probe(self, table: EndgameTable | None) -> None:
        """Value the positions ``table`` covers from it in the searches to come (None: stop);
        ValueError for a table it cannot read."""
        ...


@runtime_checkable
class SearchableKernel(Protocol):
    """A kernel with a compiled alpha-beta."""

    def searcher(self, table_bits: int = 20) -> Searcher:
        """A new searcher with its own transposition table of ``2**table_bits`` slots."""
        ...


@dataclass(frozen=True)
class KernelSearchResult:
    """The outcome of a search: the chosen action, its score, the depth of the last complete
    iteration (0 if none completed), nodes searched, and every root action's score at that
    depth."""

    action: int
    score: int
    depth: int
    nodes: int
    scores: dict[int, int]


def _root_actions(searcher: Searcher, state: State, only: Collection[int] | None) -> list[int]:
    """The root's legal actions (``searcher`` takes ``state`` as its root), limited to ``only``
    when given; ValueError when none of those is legal."""
    actions = searcher.prepare(state)
    if only is not None:
        allowed = set(only)
        actions = [a for a in actions if a in allowed]
        if not actions:
            raise ValueError("none of the root actions to search is legal")
    return actions


def _next_rate(rate: float, measurable: bool, searched: int, spent: float) -> tuple[float, bool]:
    """The nodes-per-second rate to plan the next iteration with, after one that searched
    ``searched`` nodes in ``spent`` seconds, and whether a measurable iteration has run.

    A short iteration's rate is rough (the call's fixed cost weighs in, so it errs low) and
    only replaces the last; once iterations take long enough to measure, deeper ones (fewer
    table hits, more leaves) run slower per node than shallow ones, so the lowest of those
    rates is the safe one."""
    measured = searched / max(spent, 1e-6)
    long_enough = spent >= MEASURABLE
    planned = min(rate, measured) if measurable and long_enough else measured
    return planned, measurable or long_enough


def iterative_deepening(
    searcher: Searcher,
    state: State,
    rng: random.Random,
    max_depth: int,
    max_nodes: int | None = None,
    seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    depth_step: int = 1,
    only: Collection[int] | None = None,
) -> KernelSearchResult:
    """Deepen one ply at a time to ``max_depth`` while the budgets last; choose with ``rng``
    among the root actions that tie the best score of the last complete iteration.

    A new iteration starts only while less than half of ``seconds`` has passed (the next one
    costs several times the last), and a proven win or loss within the plies searched ends
    the deepening. ``clock``
    measures the seconds: wall-clock by default, ``time.process_time`` for CPU time (what a
    match "at equal CPU time" on a loaded machine needs). ``depth_step=2`` deepens two plies at
    a time from 1, so the horizon always falls after the root player's move (odd depths).
    ``only`` limits the root to those legal actions (e.g. the ones an exact search found to
    keep the position's value).
    """
    actions = _root_actions(searcher, state, only)
    if len(actions) == 1:
        return KernelSearchResult(actions[0], 0, 0, 0, {actions[0]: 0})
    start = clock()
    node_budget = max_nodes if max_nodes is not None else 1 << 62
    ctx = np.array([0, node_budget, 0], dtype=np.int64)
    order = np.array(actions, dtype=np.int64)
    best: dict[int, int] = {}
    depth_done = 0
    rate = float(FIRST_RATE)
    measurable = False
    depth = 1
    while depth <= max_depth:
        began, nodes_before = clock(), int(ctx[NODES])
        if seconds is not None:
            left = seconds - (began - start)
            ctx[MAX_NODES] = min(node_budget, nodes_before + int(SAFETY * rate * left))
        ctx[ABORTED] = 0
        scores = np.zeros(len(order), dtype=np.int64)
        searcher.search_root(depth, order, scores, ctx)
        spent = clock() - began
        searched = int(ctx[NODES]) - nodes_before
        if searched > 0:
            rate, measurable = _next_rate(rate, measurable, searched, spent)
        if ctx[ABORTED]:
            # Out of nodes, or out of time; or the plan was made from a rate measured too
            # low: then the same depth goes again with the rate just measured (the table
            # keeps what the stopped iteration found, so little is searched twice).
            out_of_time = seconds is None or clock() - start >= SAFETY * seconds
            if ctx[NODES] >= node_budget or out_of_time:
                break
            continue
        depth_done = depth
        best = {int(a): int(s) for a, s in zip(order, scores, strict=True)}
        # The next iteration searches the best first (a stable sort keeps ties in order).
        order = order[np.argsort(-scores, kind="stable")]
        top = max(best.values())
        # A proven result within the plies searched cannot improve; one further away (an
        # endgame table's, or a mate through check extensions) may: a deeper search can
        # find a quicker win than a table's long one.
        if abs(top) > PROVEN and WIN - abs(top) <= depth:
            break
        if seconds is not None and clock() - start > seconds / 2:
            break
        depth += depth_step
    if not best:
        # Not even depth 1 fitted the budget: any legal action, drawn fairly.
        choice = rng.choice(actions)
        return KernelSearchResult(choice, 0, 0, int(ctx[NODES]), {})
    top = max(best.values())
    tied = sorted(a for a, s in best.items() if s == top)
    return KernelSearchResult(rng.choice(tied), top, depth_done, int(ctx[NODES]), best)
