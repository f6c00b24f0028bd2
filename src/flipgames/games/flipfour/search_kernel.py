"""FlipFour's compiled alpha-beta: the search behind the kernel's ``hard``.

Negamax alpha-beta with principal-variation windows over the kernel's bitboards
(:mod:`.kernel`), a transposition table (:mod:`flipgames.kernels.search`) and move ordering
(the table's move, two killer moves per ply, the history heuristic). Positions at the horizon
get :mod:`.heuristics`'s evaluation (windows and threats) ported into machine code, in
thousandths and without the ``tanh`` (alpha-beta needs only the order).

The end of a line follows the rules' order: a four wins for the side that made it, no legal
action loses; then repetition: a position that recurs on the search path scores a draw, and so
does one that already occurred twice in the game since the last drop (the rules' third
occurrence). Positions are hashed without their repetition count (the usual graph-history
approximation).

>>> import random
>>> from flipgames import make
>>> from flipgames.kernels.search import iterative_deepening
>>> game = make("flipfour")
>>> state = game.state_from_actions("R@a1 R@e5 R@b1 R@e4 R@c1 R@a5".split())
>>> result = iterative_deepening(game.kernel().searcher(), state, random.Random(1), 4)
>>> state.action_to_string(result.action), result.score  # four in a row at once
('R@d1', 999999)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from flipgames.games.flipfour import heuristics
from flipgames.games.flipfour.board import NUM_SQUARES, WINDOWS
from flipgames.games.flipfour.kernel import MAX_ACTIONS, _apply, _generate
from flipgames.games.flipfour.notation import NUM_ACTIONS
from flipgames.kernels.jit import jit
from flipgames.kernels.search import (
    INFINITE,
    MAX_PLY,
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
    from flipgames.games.flipfour.kernel import FlipFourKernel
    from flipgames.games.flipfour.rules import FlipFourState

I64 = npt.NDArray[np.int64]
Tables = tuple[I64, I64, I64, I64, I64, I64]

_WINDOWS = np.array(WINDOWS, dtype=np.int64)
#: The evaluation's weights in thousandths (see :mod:`.heuristics`).
_WINDOW_WEIGHT = np.array([round(1000 * w) for w in heuristics.WINDOW_WEIGHT], dtype=np.int64)
_THREAT = round(1000 * heuristics.THREAT)
_TEMPO = round(1000 * heuristics.TEMPO)


@jit
def _popcount(x: int) -> int:
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@jit
def _side_value(
    mine: int, enemy: int, bishops: int, in_hand: int, reach: I64, windows: I64, weight: I64
) -> int:
    """One side's window potential and threats, as :mod:`.heuristics` counts them."""
    empty = ~(mine | enemy) & ((1 << NUM_SQUARES) - 1)
    total = 0
    found = 0
    for window in windows:
        if enemy & window:
            continue
        own = _popcount(mine & window)
        total += weight[own]
        if own != 3:
            continue
        gap = window & empty
        if in_hand:
            found |= gap
            continue
        outside = mine & ~window
        for sq in range(NUM_SQUARES):
            if (outside >> sq) & 1 and reach[(bishops >> sq) & 1, sq] & gap:
                found |= gap
                break
    return total + _THREAT * _popcount(found)


@jit
def evaluate(
    white: int, black: int, bishops: int, hand0: int, hand1: int, player: int,
    reach: I64, windows: I64, weight: I64,
) -> int:  # fmt: skip
    """The position's value for the side to move, in thousandths (before ``tanh``)."""
    w = _side_value(white, black, bishops, hand0, reach, windows, weight)
    b = _side_value(black, white, bishops, hand1, reach, windows, weight)
    return (w - b if player == 0 else b - w) + _TEMPO


@jit
def _negamax(
    white: int, black: int, bishops: int, hand0: int, hand1: int, player: int, four: bool,
    depth: int, alpha: int, beta: int, ply: int, index: int, since: int, root: int,
    tables: Tables, scoring: tuple[I64, I64],
    table: tuple[I64, I64],
    work: tuple[I64, I64, I64, I64, I64],
    ctx: I64, actions: I64, scores: I64,
) -> int:  # fmt: skip
    """The negamax value of a position for its side to move, within (alpha, beta).

    ``path[index]`` is this position's slot on the line from the last drop (``since``);
    slots from ``root`` on are the search's own path, earlier ones the game's.

    At the root (``ply == 0``) it searches the given ``actions`` in order and writes each
    one's score into ``scores``: after the first, each with alpha just below the best so far,
    so an action tying the best gets its exact score. (The root is this function rather than
    a caller of it, and every recursive call passes exactly the argument types of the outer
    call: numba crashes loading from its cache a recursive function compiled for two
    signatures, or a caller of one.)"""
    reach, ids, move_from, move_to, through, through_count = tables
    windows, weight = scoring
    tt_keys, tt_data = table
    path, moves, order, killers, history = work
    if out_of_budget(ctx):
        return 0
    if ply == 0:
        best = -INFINITE
        for i in range(len(actions)):
            move = actions[i]
            w, b, bi, h0, h1, made = _apply(
                white, black, bishops, hand0, hand1, player, move, move_from, move_to, through,
                through_count,
            )  # fmt: skip
            floor = -INFINITE if i == 0 else best - 1
            value = -_negamax(
                w, b, bi, h0, h1, 1 - player, made, depth - 1, -INFINITE, -floor, ply + 1,
                index + 1, index + 1 if move < 50 else since, root, tables, scoring, table, work,
                ctx, actions, scores,
            )  # fmt: skip
            if ctx[2]:
                return 0
            scores[i] = value
            best = max(best, value)
        return best
    if four:
        return -(WIN - ply)
    mine = moves[ply]
    hand = hand1 if player else hand0
    n = _generate(white, black, bishops, hand, player, reach, ids, mine)
    if n == 0:
        return -(WIN - ply)
    path[index, 0], path[index, 1], path[index, 2] = white, black, bishops
    earlier = 0
    for back in range(index - 2, since - 1, -2):
        if path[back, 0] == white and path[back, 1] == black and path[back, 2] == bishops:
            if back >= root:
                return 0
            earlier += 1
    if earlier >= 2:
        return 0
    if depth <= 0 or ply >= MAX_PLY - 2:
        return evaluate(white, black, bishops, hand0, hand1, player, reach, windows, weight)
    hashed = mix(white, black, bishops, hand0 | (hand1 << 3) | (player << 6))
    decided, score, table_move = tt_probe(tt_keys, tt_data, hashed, depth, alpha, beta, ply)
    if decided:
        return score
    scores = order[ply]
    rank_moves(mine, scores, n, table_move, killers, ply, history)
    original_alpha = alpha
    best = -INFINITE
    best_move = -1
    for i in range(n):
        pick(mine, scores, i, n)
        move = mine[i]
        w, b, bi, h0, h1, made = _apply(
            white, black, bishops, hand0, hand1, player, move, move_from, move_to, through,
            through_count,
        )  # fmt: skip
        child_since = index + 1 if move < 50 else since
        if i == 0:
            value = -_negamax(
                w, b, bi, h0, h1, 1 - player, made, depth - 1, -beta, -alpha, ply + 1,
                index + 1, child_since, root, tables, scoring, table, work, ctx, actions, scores,
            )  # fmt: skip
        else:
            value = -_negamax(
                w, b, bi, h0, h1, 1 - player, made, depth - 1, -alpha - 1, -alpha, ply + 1,
                index + 1, child_since, root, tables, scoring, table, work, ctx, actions, scores,
            )  # fmt: skip
            if alpha < value < beta:
                value = -_negamax(
                    w, b, bi, h0, h1, 1 - player, made, depth - 1, -beta, -alpha, ply + 1,
                    index + 1, child_since, root, tables, scoring, table, work, ctx, actions,
                    scores,
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


class FlipFourSearcher(TableSearcher["FlipFourKernel"]):
    """A FlipFour alpha-beta with its own transposition table (``2**table_bits`` slots, 16
    bytes each) and move-ordering memory, kept from one move to the next."""

    def __init__(self, kernel: FlipFourKernel, table_bits: int = 20) -> None:
        super().__init__(kernel, table_bits, NUM_ACTIONS, MAX_PLY, MAX_ACTIONS)
        self.scoring = (_WINDOWS, _WINDOW_WEIGHT)
        self.path = np.zeros((MAX_PLY + 1, 3), dtype=np.int64)
        self.position = (0, 0, 0, 0, 0, 0)
        self.root = 0

    def prepare(self, state: State) -> list[int]:
        """Take ``state`` as the root, with the game's positions since the last drop."""
        self.kernel.check_state(state)
        root = cast("FlipFourState", state)
        line = [root]
        while True:
            parent = cast("FlipFourState | None", line[-1].parent)
            if parent is None or parent.hands != root.hands:
                break
            line.append(parent)
        line.reverse()
        self.path = np.zeros((len(line) + MAX_PLY + 1, 3), dtype=np.int64)
        for i, s in enumerate(line):
            self.path[i] = (s.white, s.black, s.bishops)
        self.root = len(line) - 1
        hand0, hand1 = root.hands
        self.position = (root.white, root.black, root.bishops, hand0, hand1, root.to_move)
        self.new_root()
        return list(state.legal_actions())

    def search_root(self, depth: int, actions: I64, scores: I64, ctx: I64) -> None:
        white, black, bishops, hand0, hand1, player = self.position
        work = (self.path, self.moves, self.order, self.killers, self.history)
        _negamax(
            white, black, bishops, hand0, hand1, player, False, depth, -INFINITE, INFINITE, 0,
            self.root, 0, self.root, self.kernel.tables, self.scoring, self.table, work, ctx,
            actions, scores,
        )  # fmt: skip
