"""Checkered Flag's whole position graph built with numpy alone, one breadth-first layer at a
time: what the exact solver takes, because it needs no compiled code.

The compiled kernel (:mod:`.kernel`) enumerates the same graph in numba, but loading numba and
the kernel's machine code costs a process about a second, several times the whole solve.
This module expands a layer with array operations over the kernel's tables and key layout
(see there): the same keys, the same node numbers
(:func:`flipgames.kernels.batch_graphs.build_graph` numbers them as the kernel's builder does),
the same edges in the same order with the same
integer weights (outcomes reaching one position are one edge, weights added, kept where the
first of them was). ``tests/checkered_flag/test_batch_graph.py`` checks it against the
kernel for several option sets.

>>> from flipgames import make
>>> game = make("checkered-flag", start="first", track="short")
>>> graph = game.graph_builder().graph()
>>> graph.nodes, graph.edges
(6712, 19762)
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Final, TypeVar

import numpy as np
import numpy.typing as npt

from flipgames.core.game import CHANCE, TERMINAL
from flipgames.core.kernel import PositionGraph
from flipgames.core.progress import Progress, silent
from flipgames.games.checkered_flag.notation import C2, CHOOSE, OVER, SPIN, START, N
from flipgames.kernels.batch_graphs import Expansion, build_graph

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.checkered_flag.rules import CheckeredFlag, CheckeredFlagState

I64 = npt.NDArray[np.int64]

# The kernel's key layout (see :mod:`.kernel`).
MOVER_SHIFT: Final = 2
GEAR_SHIFT: Final = 3
DISTANCE_SHIFT: Final = 9
DISTANCE_BITS: Final = 24
DISTANCE_MASK: Final = (1 << DISTANCE_BITS) - 1
#: Legal gear choices by circle (the reference's ``_GEAR_CHOICES``), padded with -1.
GEAR_CHOICES: Final = np.array(
    [[1, -1, -1], [1, 2, -1], [1, 2, 3], [2, 3, -1], [N, -1, -1], [C2, -1, -1]], np.int64
)


#: A key's fields: Python integers (one position) or arrays (a batch).
Field = TypeVar("Field", int, I64)


def pack(phase: Field, mover: Field, d0: Field, d1: Field, g0: Field, g1: Field) -> Field:
    """The keys of positions from their fields (as the kernel's ``pack``)."""
    key: Field = (
        phase
        | (mover << MOVER_SHIFT)
        | (g0 << GEAR_SHIFT)
        | (g1 << (GEAR_SHIFT + 3))
        | (d0 << DISTANCE_SHIFT)
        | (d1 << (DISTANCE_SHIFT + DISTANCE_BITS))
    )
    return key


class RaceTables:
    """One option set's rules as small integer tables (what the kernel's functions take)."""

    def __init__(self, game: CheckeredFlag) -> None:
        layout = game.layout
        rows = [game.start_outcomes, *game.spin_outcomes[1:]]
        width = max(len(row) for row in rows)
        #: Spin outcomes per gear (row 0: the start spin), padded with -1, and their integer
        #: weights over the row's common denominator (the exact probabilities).
        self.outcome_ids = np.full((4, width), -1, np.int64)
        self.outcome_weights = np.zeros((4, width), np.int64)
        for r, row in enumerate(rows):
            if not row:
                continue
            common = int(np.lcm.reduce([p.denominator for _, p in row]))
            for i, (action, p) in enumerate(row):
                self.outcome_ids[r, i] = action
                self.outcome_weights[r, i] = p.numerator * (common // p.denominator)
        self.gear_choices = GEAR_CHOICES
        self.moves = np.array(layout.moves, np.int64)
        self.start_first = np.array(layout.start_first, np.int64)
        self.crash_at = np.array(game.crash_at, np.bool_)
        self.no_passing_at = np.array(game.no_passing_at, np.bool_)
        self.goal = game.goal


class CheckeredFlagGraph:
    """The numpy builder of one option set's position graph (a
    :class:`~flipgames.core.kernel.GraphBuilder`); see the module docstring."""

    def __init__(self, game: CheckeredFlag) -> None:
        self.game = game
        self.name = game.name
        self.tables = RaceTables(game)

    def encode(self, state: State) -> int:
        """The packed key of a reference state (a finished race: its winner alone)."""
        if state.game.name != self.name:
            raise ValueError(f"a {state.game.name} state given to the {self.name} graph")
        race: CheckeredFlagState = state  # type: ignore[assignment]
        phase, mover, d0, d1, g0, g1 = race.key()
        if phase == OVER:
            d0 = d1 = g0 = g1 = 0
        return pack(phase, mover, d0, d1, g0, g1)

    def graph(self, progress: Progress = silent, root: State | None = None) -> PositionGraph:
        """Every position reachable from ``root`` (default: the start); no symmetry folded
        (as the kernel's)."""
        start = self.game.new_initial_state() if root is None else root
        return build_graph(self.encode(start), self._expand, progress)

    def _expand(self, keys: I64) -> Expansion:
        t = self.tables
        phase = keys & 3
        mover = (keys >> MOVER_SHIFT) & 1
        g0, g1 = (keys >> GEAR_SHIFT) & 7, (keys >> (GEAR_SHIFT + 3)) & 7
        d0 = (keys >> DISTANCE_SHIFT) & DISTANCE_MASK
        d1 = (keys >> (DISTANCE_SHIFT + DISTANCE_BITS)) & DISTANCE_MASK
        over = phase == OVER
        choose = phase == CHOOSE
        gear = np.where(mover == 0, g0, g1)
        # Each position's options in the reference's order: gear choices (weight 1) where a
        # player chooses, else the spin outcomes of the start or of the mover's gear.
        width = max(t.outcome_ids.shape[1], t.gear_choices.shape[1])
        row = np.where(phase == START, 0, np.where(choose | over, 0, gear))
        actions = np.full((len(keys), width), -1, np.int64)
        weights = np.zeros((len(keys), width), np.int64)
        spun = ~choose & ~over
        actions[spun, : t.outcome_ids.shape[1]] = t.outcome_ids[row[spun]]
        weights[spun, : t.outcome_ids.shape[1]] = t.outcome_weights[row[spun]]
        actions[choose, : t.gear_choices.shape[1]] = t.gear_choices[gear[choose]]
        weights[choose] = 1
        node, column = np.nonzero(actions >= 0)
        action, weight = actions[node, column], weights[node, column]
        child = self._step(phase[node], mover[node], d0[node], d1[node], g0[node], g1[node], action)
        # Outcomes reaching one position are one edge, at the first one's place.
        order = np.lexsort((child, node))
        same = (np.diff(node[order]) == 0) & (np.diff(child[order]) == 0)
        starts = np.flatnonzero(np.concatenate(([True], ~same)))
        merged_weight = np.add.reduceat(weight[order], starts)
        kept = np.argsort(order[starts], kind="stable")
        kept_node = node[order[starts]][kept]
        to_move = np.where(over, TERMINAL, np.where(choose, mover, CHANCE)).astype(np.int8)
        terminal_return = np.where(over, np.where(mover == 0, 1, -1), 0).astype(np.int8)
        return Expansion(
            to_move=to_move,
            terminal_return=terminal_return,
            counts=np.bincount(kept_node, minlength=len(keys)).astype(np.int64),
            children=child[order[starts]][kept],
            weights=merged_weight[kept],
        )

    def _step(self, phase: I64, mover: I64, d0: I64, d1: I64, g0: I64, g1: I64, action: I64) -> I64:
        """The keys after each ``action`` (the kernel's ``step``, a position per entry)."""
        t = self.tables
        length = len(t.crash_at)
        # The start spin: the winner of the spin chooses first.
        first = t.start_first[np.where(phase == START, action, 0)]
        # A gear choice: 1-3 spins next, anything else (leaving a crash) passes the turn.
        spin = (action >= 1) & (action <= 3)
        # A spin: drive, stopped behind the other car on a no-passing space; crash in a
        # gear of 2 or more on a crash space (unless stopped).
        count = t.moves[np.where(phase == SPIN, action, 0)]
        mine, theirs = np.where(mover == 0, d0, d1), np.where(mover == 0, d1, d0)
        gear = np.where(mover == 0, g0, g1)
        ahead = (theirs - mine) % length
        ahead = np.where(ahead == 0, length, ahead)
        blocked = t.no_passing_at[theirs % length] & (ahead < count)
        target = np.where(blocked, mine + ahead - 1, mine + count)
        finished = target >= t.goal
        crashed = ~blocked & (gear >= 2) & t.crash_at[target % length] & ~finished
        driven = np.where(crashed, gear + 2, gear)

        is_start, is_choose = phase == START, phase == CHOOSE
        next_phase = np.select(
            [is_start, is_choose, finished],
            [CHOOSE, np.where(spin, SPIN, CHOOSE), OVER],
            CHOOSE,
        )
        next_mover = np.select(
            [is_start, is_choose, finished],
            [first, np.where(spin, mover, 1 - mover), mover],
            1 - mover,
        )
        new_gear = np.where(is_start, gear, np.where(is_choose, action, driven))
        new_mine = np.where(is_start | is_choose, mine, target)
        n0 = np.where(mover == 0, new_mine, d0)
        n1 = np.where(mover == 0, d1, new_mine)
        ng0 = np.where(mover == 0, new_gear, g0)
        ng1 = np.where(mover == 0, g1, new_gear)
        # A finished race is keyed by its winner alone.
        over = next_phase == OVER
        zero = np.zeros_like(n0)
        return pack(
            next_phase,
            next_mover,
            np.where(over, zero, n0),
            np.where(over, zero, n1),
            np.where(over, zero, ng0),
            np.where(over, zero, ng1),
        )


@cache
def builder_for_game(game: CheckeredFlag) -> CheckeredFlagGraph:
    """The builder of ``game`` (one option set), made once per process."""
    return CheckeredFlagGraph(game)
