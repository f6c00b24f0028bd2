"""The compiled (numba) kernel of Checkered Flag: the rules of :mod:`.rules` over packed integers.

Every option set is covered (any track, spinners, laps and start): the track and the spinners
become small integer tables. A position is the reference's tuple ``(phase, mover, distance 0,
distance 1, gear 0, gear 1)`` packed into one 64-bit integer:

=======  ==================================================================================
bits     field
=======  ==================================================================================
0-1      phase (``START``, ``CHOOSE``, ``SPIN``, ``OVER`` as in :mod:`.notation`)
2        mover (the winner once over)
3-5      player 0's gear circle, 6-8 player 1's (the notation's codes: N 0, 1-3, C2 4, C3 5)
9-32     player 0's distance, 33-56 player 1's
=======  ==================================================================================

A finished race is keyed by its winner alone (phase ``OVER`` and the mover bit), so the
graph has two terminal nodes. Action ids, their order and the chance weights are the
reference's. Python calls in once per batch: :meth:`CheckeredFlagKernel.playouts` plays whole
races, :meth:`CheckeredFlagKernel.graph` enumerates every reachable position for the solvers.

>>> from flipgames import make
>>> kernel = CheckeredFlagKernel(make("checkered-flag", start="first", track="short"))
>>> kernel.graph().nodes
6712
>>> batch = kernel.playouts(100, seed=3)
>>> len(batch.returns), batch.capped
(100, 0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from numba import njit

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import CHANCE, TERMINAL
from flipgames.core.kernel import PlayoutBatch, PositionGraph
from flipgames.core.progress import Progress, silent
from flipgames.games.checkered_flag.batch_graph import (
    DISTANCE_BITS,
    DISTANCE_MASK,
    DISTANCE_SHIFT,
    GEAR_CHOICES,
    GEAR_SHIFT,
    MOVER_SHIFT,
    RaceTables,
)
from flipgames.games.checkered_flag.notation import CHOOSE, OVER, SPIN, START
from flipgames.kernels.graphs import Expansion, build_graph
from flipgames.kernels.jit import seeded
from flipgames.kernels.parts import HasMCTS, HasVector
from flipgames.kernels.sampling import uniform, weighted

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.checkered_flag.rules import CheckeredFlag, CheckeredFlagState


class PerftUnsupportedError(FlipgamesError, ValueError):
    """perft asked of this chance game's kernel (the kernel's twin of
    :class:`flipgames.solvers.perft.PerftUnsupportedError`: games import only ``core``)."""


@njit(cache=True)
def pack(phase: int, mover: int, d0: int, d1: int, g0: int, g1: int) -> int:
    return (
        phase
        | (mover << MOVER_SHIFT)
        | (g0 << GEAR_SHIFT)
        | (g1 << (GEAR_SHIFT + 3))
        | (d0 << DISTANCE_SHIFT)
        | (d1 << (DISTANCE_SHIFT + DISTANCE_BITS))
    )


@njit(cache=True)
def unpack(key: int) -> tuple[int, int, int, int, int, int]:
    return (
        key & 3,
        (key >> MOVER_SHIFT) & 1,
        (key >> DISTANCE_SHIFT) & DISTANCE_MASK,
        (key >> (DISTANCE_SHIFT + DISTANCE_BITS)) & DISTANCE_MASK,
        (key >> GEAR_SHIFT) & 7,
        (key >> (GEAR_SHIFT + 3)) & 7,
    )


@njit(cache=True)
def options(
    key: int,
    outcome_ids: npt.NDArray[np.int64],
    outcome_weights: npt.NDArray[np.int64],
    actions: npt.NDArray[np.int64],
    weights: npt.NDArray[np.int64],
) -> int:
    """The legal actions (chance outcomes at a chance node, with their weights) into
    ``actions`` and ``weights``, in the reference's order; returns how many.

    ``outcome_ids[g]`` and ``outcome_weights[g]`` list the spin outcomes of gear ``g`` (1-3),
    row 0 the start spin's; unused entries are -1.
    """
    phase, mover, _, _, g0, g1 = unpack(key)
    n = 0
    if phase == OVER:
        return 0
    if phase == CHOOSE:
        gear = g0 if mover == 0 else g1
        for i in range(3):
            if GEAR_CHOICES[gear, i] >= 0:
                actions[n] = GEAR_CHOICES[gear, i]
                weights[n] = 1
                n += 1
        return n
    row = 0 if phase == START else (g0 if mover == 0 else g1)
    for i in range(outcome_ids.shape[1]):
        if outcome_ids[row, i] >= 0:
            actions[n] = outcome_ids[row, i]
            weights[n] = outcome_weights[row, i]
            n += 1
    return n


@njit(cache=True)
def step(
    key: int,
    action: int,
    moves: npt.NDArray[np.int64],
    start_first: npt.NDArray[np.int64],
    crash_at: npt.NDArray[np.bool_],
    no_passing_at: npt.NDArray[np.bool_],
    goal: int,
) -> int:
    """The key after a legal ``action`` (a finished race keyed by its winner alone)."""
    phase, mover, d0, d1, g0, g1 = advance(
        unpack(key), action, moves, start_first, crash_at, no_passing_at, goal
    )
    if phase == OVER:
        return pack(OVER, mover, 0, 0, 0, 0)
    return pack(phase, mover, d0, d1, g0, g1)


@njit(cache=True)
def advance(
    position: tuple[int, int, int, int, int, int],
    action: int,
    moves: npt.NDArray[np.int64],
    start_first: npt.NDArray[np.int64],
    crash_at: npt.NDArray[np.bool_],
    no_passing_at: npt.NDArray[np.bool_],
    goal: int,
) -> tuple[int, int, int, int, int, int]:
    """The reference's ``(phase, mover, d0, d1, g0, g1)`` after a legal ``action`` (its
    ``_apply`` and ``_drive``; a finished race keeps the cars where they ended)."""
    phase, mover, d0, d1, g0, g1 = position
    if phase == START:
        return CHOOSE, start_first[action], d0, d1, g0, g1
    if phase == CHOOSE:
        spin = 1 <= action <= 3
        next_phase = SPIN if spin else CHOOSE
        next_mover = mover if spin else 1 - mover
        if mover == 0:
            return next_phase, next_mover, d0, d1, action, g1
        return next_phase, next_mover, d0, d1, g0, action
    length = crash_at.shape[0]
    count = moves[action]
    mine = d0 if mover == 0 else d1
    theirs = d1 if mover == 0 else d0
    gear = g0 if mover == 0 else g1
    target = mine + count
    blocked = False
    if no_passing_at[theirs % length]:
        ahead = (theirs - mine) % length
        if ahead == 0:
            ahead = length
        if ahead < count:
            target = mine + ahead - 1
            blocked = True
    next_phase, next_mover = OVER, mover
    if target < goal:
        next_phase, next_mover = CHOOSE, 1 - mover
        if not blocked and gear >= 2 and crash_at[target % length]:
            gear += 2
    if mover == 0:
        return next_phase, next_mover, target, d1, gear, g1
    return next_phase, next_mover, d0, target, g0, gear


@njit(cache=True)
def _playouts(
    n: int,
    rng: npt.NDArray[np.uint64],
    max_plies: int,
    record: npt.NDArray[np.int64],
    root: int,
    outcome_ids: npt.NDArray[np.int64],
    outcome_weights: npt.NDArray[np.int64],
    moves: npt.NDArray[np.int64],
    start_first: npt.NDArray[np.int64],
    crash_at: npt.NDArray[np.bool_],
    no_passing_at: npt.NDArray[np.bool_],
    goal: int,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32], int]:
    returns = np.zeros(n, np.int8)
    lengths = np.zeros(n, np.int32)
    actions = np.empty(outcome_ids.shape[1] + 3, np.int64)
    weights = np.empty(outcome_ids.shape[1] + 3, np.int64)
    capped = 0
    for g in range(n):
        key = root
        plies = 0
        while (key & 3) != OVER and plies < max_plies:
            count = options(key, outcome_ids, outcome_weights, actions, weights)
            if (key & 3) == CHOOSE:
                action = actions[uniform(rng, count)]
            else:
                action = actions[weighted(rng, weights, count)]
            if g < record.shape[0]:
                record[g, plies] = action
            key = step(key, action, moves, start_first, crash_at, no_passing_at, goal)
            plies += 1
        if (key & 3) == OVER:
            returns[g] = 1 if (key >> MOVER_SHIFT) & 1 == 0 else -1
        else:
            capped += 1
        lengths[g] = plies
    return returns, lengths, capped


@njit(cache=True)
def _expand(
    frontier: npt.NDArray[np.int64],
    outcome_ids: npt.NDArray[np.int64],
    outcome_weights: npt.NDArray[np.int64],
    moves: npt.NDArray[np.int64],
    start_first: npt.NDArray[np.int64],
    crash_at: npt.NDArray[np.bool_],
    no_passing_at: npt.NDArray[np.bool_],
    goal: int,
) -> tuple[
    npt.NDArray[np.int8],
    npt.NDArray[np.int8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]:
    size = frontier.shape[0]
    width = outcome_ids.shape[1] + 3
    to_move = np.empty(size, np.int8)
    terminal_return = np.zeros(size, np.int8)
    counts = np.zeros(size, np.int64)
    children = np.empty(size * width, np.int64)
    weights_out = np.empty(size * width, np.int64)
    actions = np.empty(width, np.int64)
    weights = np.empty(width, np.int64)
    edges = 0
    for node in range(size):
        key = frontier[node]
        phase = key & 3
        mover = (key >> MOVER_SHIFT) & 1
        if phase == OVER:
            to_move[node] = TERMINAL
            terminal_return[node] = 1 if mover == 0 else -1
            continue
        to_move[node] = mover if phase == CHOOSE else CHANCE
        m = options(key, outcome_ids, outcome_weights, actions, weights)
        first = edges
        for i in range(m):
            child = step(key, actions[i], moves, start_first, crash_at, no_passing_at, goal)
            # Outcomes that lead to the same position are one edge (weights add).
            merged = False
            for j in range(first, edges):
                if children[j] == child:
                    weights_out[j] += weights[i]
                    merged = True
                    break
            if not merged:
                children[edges] = child
                weights_out[edges] = weights[i]
                edges += 1
        counts[node] = edges - first
    return to_move, terminal_return, counts, children[:edges], weights_out[:edges]


class CheckeredFlagKernel(HasMCTS, HasVector):
    """The kernel for one :class:`~.rules.CheckeredFlag` option set. Its MCTS (chance nodes
    included) is in :mod:`.mcts_kernel`; its batch of races, chance drawn inside, in
    :mod:`.vector_kernel`."""

    mcts_class = "CheckeredFlagMCTS"
    vector_class = "CheckeredFlagBatch"

    def __init__(self, game: CheckeredFlag) -> None:
        self.game = game
        self.name = game.name
        tables = RaceTables(game)
        self.outcome_ids = tables.outcome_ids
        self.outcome_weights = tables.outcome_weights
        self.moves = tables.moves
        self.start_first = tables.start_first
        self.crash_at = tables.crash_at
        self.no_passing_at = tables.no_passing_at
        self.goal = tables.goal
        self.root = self.encode(game.new_initial_state())

    def playouts(self, n: int, seed: int, max_plies: int = 200) -> PlayoutBatch:
        return self.traced_playouts(n, seed, max_plies, traced=0)[0]

    def traced_playouts(
        self, n: int, seed: int, max_plies: int = 200, traced: int | None = None
    ) -> tuple[PlayoutBatch, npt.NDArray[np.int64]]:
        """:meth:`playouts`, plus the actions (chance outcomes included, -1 after the end) of
        the first ``traced`` games (default all) so a test can replay them on the reference."""
        record = np.full((n if traced is None else traced, max_plies), -1, np.int64)
        returns, lengths, capped = _playouts(
            n,
            seeded(seed),
            max_plies,
            record,
            self.root,
            self.outcome_ids,
            self.outcome_weights,
            self.moves,
            self.start_first,
            self.crash_at,
            self.no_passing_at,
            self.goal,
        )
        return PlayoutBatch(returns, lengths, int(capped)), record

    def perft(self, state: State, depth: int) -> int:
        raise PerftUnsupportedError(
            f"perft is defined only for deterministic games; {self.name!r} has chance"
        )

    def encode(self, state: State) -> int:
        """The packed key of a reference state (a finished race: its winner alone)."""
        cf: CheckeredFlagState = state  # type: ignore[assignment]
        phase, mover, d0, d1, g0, g1 = cf.key()
        if phase == OVER:
            return int(pack(OVER, mover, 0, 0, 0, 0))
        return int(pack(phase, mover, d0, d1, g0, g1))

    def graph(self, progress: Progress = silent, root: State | None = None) -> PositionGraph:
        """Every position reachable from ``root`` (default: the start). No symmetry is
        folded: swapping the cars swaps the value's sign, and the graph's values are player
        0's."""

        def expand(frontier: npt.NDArray[np.int64]) -> Expansion:
            return Expansion(
                *_expand(
                    frontier,
                    self.outcome_ids,
                    self.outcome_weights,
                    self.moves,
                    self.start_first,
                    self.crash_at,
                    self.no_passing_at,
                    self.goal,
                )
            )

        return build_graph(self.root if root is None else self.encode(root), expand, progress)
