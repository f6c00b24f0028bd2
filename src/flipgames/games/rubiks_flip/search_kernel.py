"""Rubik's Flip's compiled alpha-beta with the game's evaluation: the search behind ``hard``.

Negamax alpha-beta with principal-variation windows over the kernel's packed boards
(:mod:`.kernel`: ``generate`` and ``play``), a transposition table keyed by the plain position
(:mod:`flipgames.kernels.search`), move ordering (the table's move, two killers per ply, the
history heuristic), and :mod:`.heuristics`'s live-row evaluation ported into machine code
(in thousandths of the difference before ``tanh``). Tiles are only ever added, so there is no
repetition and a game lasts at most 16 plies: late in a game the search reaches the end and
plays exactly. (The kernel's other search, the proof behind ``perfect``, is exact everywhere
but needs far more nodes.)

>>> import random
>>> from flipgames import make
>>> from flipgames.kernels.search import iterative_deepening
>>> game = make("rubiks-flip")
>>> state = game.new_initial_state()
>>> result = iterative_deepening(game.kernel().searcher(), state, random.Random(1), 3)
>>> result.action in state.legal_actions(), result.depth
(True, 3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.games.rubiks_flip import heuristics
from flipgames.games.rubiks_flip.kernel import (
    FULL,
    LINE_MASKS,
    MAX_ACTIONS,
    NONE,
    generate,
    pack,
    play,
    popcount,
    spread,
)
from flipgames.games.rubiks_flip.notation import FLIP_PARTS, PLACEMENTS
from flipgames.kernels.jit import jit
from flipgames.kernels.search import (
    INFINITE,
    WIN,
    TableSearcher,
    mix,
    out_of_budget,
    pick,
    rank_moves,
    record_cutoff,
    tt_probe,
    tt_record,
)

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.rubiks_flip.kernel import RubiksFlipKernel

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

_ROW_WEIGHT = np.array(heuristics.ROW_WEIGHT, dtype=np.float64)
_LOCKED_BONUS = heuristics.LOCKED_BONUS
#: A game has at most 16 placements: the search path never gets deeper.
_PLIES = 17


@jit
def _live_rows(mine: int, theirs: int, faces: int, king: int, weights: F64) -> float:
    """The weighted live rows of the player owning ``mine`` (see :mod:`.heuristics`)."""
    occupied = mine | theirs
    empty = FULL ^ occupied
    locked = occupied & ~spread(empty, king)
    total = 0.0
    for i in range(LINE_MASKS.shape[0]):
        line = LINE_MASKS[i]
        own = mine & line
        if not own or theirs & line:
            continue
        shown = faces & own
        if shown and shown != own:
            continue
        weight = weights[popcount(own)] * (1 + _LOCKED_BONUS * popcount(locked & own))
        missing = popcount(spread(line, king) & empty)
        total += weight / (1 + missing / 4)
    return total


@jit
def evaluate(first: int, second: int, faces: int, king: int, weights: F64) -> int:
    """The live position's value for the side to move, in thousandths (before ``tanh``)."""
    mover = popcount(first | second) & 1
    value = _live_rows(first, second, faces, king, weights) - _live_rows(
        second, first, faces, king, weights
    )
    return round(1000 * (value if mover == 0 else -value))


@jit
def _negamax(
    first: int, second: int, faces: int, winner: int, depth: int, alpha: int, beta: int,
    ply: int, flags: tuple[int, int, int], weights: F64,
    table: tuple[I64, I64], work: tuple[I64, I64, I64, I64],
    ctx: I64, actions: I64, scores: I64,
) -> int:  # fmt: skip
    """The negamax value of a position for its side to move, within (alpha, beta); ``winner``
    is the result of the placement that made it (:data:`.kernel.NONE` while none).

    At the root (``ply == 0``) it searches the given ``actions`` in order and writes each
    one's score into ``scores``: after the first, each with alpha just below the best so far,
    so an action tying the best gets its exact score. (Every recursive call passes exactly the
    outer call's argument types: numba crashes loading from its cache a recursive function
    compiled for two signatures.)"""
    flap, king, mover_first = flags
    tt_keys, tt_data = table
    moves, order, killers, history = work
    if out_of_budget(ctx):
        return 0
    mover = popcount(first | second) & 1
    if ply == 0:
        best = -INFINITE
        for i in range(len(actions)):
            f, s, x, won = play(first, second, faces, actions[i], flap, king, mover_first)
            floor = -INFINITE if i == 0 else best - 1
            value = -_negamax(
                f, s, x, won, depth - 1, -INFINITE, -floor, ply + 1, flags, weights, table,
                work, ctx, actions, scores,
            )  # fmt: skip
            if ctx[2]:
                return 0
            scores[i] = value
            best = max(best, value)
        return best
    if winner != NONE:
        return WIN - ply if winner == mover else -(WIN - ply)
    if first | second == FULL:
        return 0
    if depth <= 0:
        return evaluate(first, second, faces, king, weights)
    hashed = mix(first, second, faces, 0)
    decided, score, table_move = tt_probe(tt_keys, tt_data, hashed, depth, alpha, beta, ply)
    if decided:
        return score
    mine = moves[ply]
    n = generate(first, second, flap, king, mine, 0)
    ranks = order[ply]
    rank_moves(mine, ranks, n, table_move, killers, ply, history)
    original_alpha = alpha
    best = -INFINITE
    best_move = -1
    for i in range(n):
        pick(mine, ranks, i, n)
        move = mine[i]
        f, s, x, won = play(first, second, faces, move, flap, king, mover_first)
        if i == 0:
            value = -_negamax(
                f, s, x, won, depth - 1, -beta, -alpha, ply + 1, flags, weights, table, work,
                ctx, actions, scores,
            )  # fmt: skip
        else:
            value = -_negamax(
                f, s, x, won, depth - 1, -alpha - 1, -alpha, ply + 1, flags, weights, table,
                work, ctx, actions, scores,
            )  # fmt: skip
            if alpha < value < beta:
                value = -_negamax(
                    f, s, x, won, depth - 1, -beta, -alpha, ply + 1, flags, weights, table,
                    work, ctx, actions, scores,
                )  # fmt: skip
        if ctx[2]:
            return 0
        if value > best:
            best, best_move = value, move
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    record_cutoff(killers, history, ply, move, depth, True)
                    break
    tt_record(tt_keys, tt_data, hashed, best, original_alpha, beta, depth, best_move, ply)
    return best


class RubiksFlipSearcher(TableSearcher["RubiksFlipKernel"]):
    """A Rubik's Flip alpha-beta with its own transposition table (``2**table_bits`` slots,
    16 bytes each) and move-ordering memory, kept from one move to the next."""

    def __init__(self, kernel: RubiksFlipKernel, table_bits: int = 20) -> None:
        actions = max(FLIP_PARTS.values()) * PLACEMENTS
        super().__init__(kernel, table_bits, actions, _PLIES, MAX_ACTIONS)
        self.position = (0, 0, 0)

    def prepare(self, state: State) -> list[int]:
        """Take ``state`` as the root (nothing before it matters: tiles are only added)."""
        self.kernel.check_state(state)
        self.position = pack(state)
        self.new_root()
        return list(state.legal_actions())

    def search_root(self, depth: int, actions: I64, scores: I64, ctx: I64) -> None:
        first, second, faces = self.position
        work = (self.moves, self.order, self.killers, self.history)
        _negamax(
            first, second, faces, NONE, depth, -INFINITE, INFINITE, 0, self.kernel.flags,
            _ROW_WEIGHT, self.table, work, ctx, actions, scores,
        )  # fmt: skip
