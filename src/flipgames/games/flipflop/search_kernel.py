"""FlipFlop's compiled alpha-beta (both sizes): the search behind the kernel's ``hard``.

Negamax alpha-beta with principal-variation windows over the bitboard kernel's move
generator and apply (:mod:`.bitboard`: legal actions in increasing id), a transposition
table (:mod:`flipgames.kernels.search`), move ordering (the table's move, captures, two
killer moves per ply, the history heuristic) and a one-ply check extension: at the horizon a
side in check is searched one ply more (it has only the captures on its goal, or none: mate),
so a mate in one is never mistaken for a quiet position. Positions at the horizon get
:mod:`.heuristics`'s evaluation ported into machine code over the bitboard's attack lookups,
in thousandths and without the ``tanh`` (alpha-beta needs only the order).

Repetition: a position that recurs on the search path scores a draw (a line that goes round in
a circle wins nothing), and so does one that already occurred twice in the game since the last
capture (the rules' third occurrence). Positions are hashed without their repetition count,
so a table entry may come from a path where a repetition cut the line short: the usual
graph-history approximation.

Endgame tables (FlipFlop 5x5, :mod:`.endgame`; given by :meth:`FlipFlopSearcher.probe`): a node
with at most the tables' pieces, both sides on the board, is answered from them instead of
searched or evaluated, and scored as the search scores a result it sees itself: a win in ``d``
plies ``WIN - (ply + d)``, a loss the negative, a draw 0. So a result ranks above any
evaluation, quicker wins and slower losses first (iterative deepening goes on past a table
result further away than the plies searched: a deeper search may find a quicker win). The probe
is one lookup, in machine code like the rest. A table value ignores the game's history; the
node's own repetition is checked before the probe. Beyond that the value is exact where the
search meets the tables from outside, through a capture: repetitions count from the last
capture, and along a table's best line no position recurs (the winner's distance falls every
move), so the third-occurrence rule changes nothing there. Only after quiet moves inside the
tables (a root already covered; *hard* plays those from the tables itself, with the game's
history) could a position the game saw since its last capture recur on the table's line unseen:
the graph-history approximation again.

>>> import random
>>> from flipgames import make
>>> from flipgames.kernels.search import iterative_deepening
>>> game = make("flipflop-3x3")
>>> searcher = game.kernel().searcher()
>>> result = iterative_deepening(searcher, game.new_initial_state(), random.Random(1), 20)
>>> game.new_initial_state().action_to_string(result.action), result.score  # a win in 15
('b1xb3', 999985)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from flipgames.games.flipflop import heuristics
from flipgames.games.flipflop.bitboard import (
    MAX_MOVES,
    Bitboard,
    _apply,
    _generate,
    _reach,
)
from flipgames.games.flipflop.endgame import DRAW, FlipFlopEndgameTable, _index
from flipgames.kernels.jit import jit, popcount, trailing_zeros
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
    from flipgames.core.endgame import EndgameTable
    from flipgames.core.game import State
    from flipgames.games.flipflop.kernel import FlipFlopKernel
    from flipgames.games.flipflop.rules import FlipFlopState

I64 = npt.NDArray[np.int64]
I16 = npt.NDArray[np.int16]
#: The bitboard's tables (:meth:`.Bitboard.args`): area, both goals' mask, each side's own
#: goal's mask, the attack lookups' masks, multipliers and attacks.
Tables = tuple[int, int, I64, I64, I64, I64]
#: Endgame tables as the search probes them: every layer's values in one array, where each
#: layer starts in it (by piece count), the binomials of the index and the most pieces
#: covered (0: no tables).
Probe = tuple[I16, I64, I64, int]
#: The probe of a search without tables.
NO_TABLES: Probe = (
    np.zeros(1, dtype=np.int16),
    np.zeros(1, dtype=np.int64),
    np.zeros((1, 1), dtype=np.int64),
    0,
)

#: The evaluation's weights in thousandths (see :mod:`.heuristics`).
_MATERIAL = round(1000 * heuristics.MATERIAL)
_MOBILITY = round(1000 * heuristics.MOBILITY)
_ATTACKER = round(1000 * heuristics.ATTACKER)
_GUARD = round(1000 * heuristics.GUARD)
_TEMPO = round(1000 * heuristics.TEMPO)

#: Captures are ordered between the table's move and the killers (kernels.search's bonuses).
_CAPTURE = 1 << 50


@jit
def _side_value(
    mine: int, enemy: int, bishops: int, own_goal: int, enemy_goal: int, goals: int,
    masks: I64, magics: I64, attacks: I64,
) -> int:  # fmt: skip
    """One side's weighted pieces, mobility, attackers and guards, as
    :func:`.heuristics.side_features` counts them (moves ignore the check rule; the goals
    are masks)."""
    occupied = mine | enemy
    capturable = enemy & goals
    pieces = moves = attackers = guards = 0
    rest = mine
    while rest:
        sq = trailing_zeros(rest)
        rest &= rest - 1
        reach = _reach(occupied, bishops, sq, masks, magics, attacks)
        targets = (reach & ~occupied) | (reach & capturable)
        pieces += 1
        moves += popcount(targets)
        attackers += (targets & enemy_goal) != 0
        # A guard reaches its own goal with nothing in between, whatever stands there.
        guards += (reach & own_goal) != 0
    return _MATERIAL * pieces + _MOBILITY * moves + _ATTACKER * attackers + _GUARD * guards


@jit
def evaluate(
    white: int, black: int, bishops: int, side: int,
    goals: int, own_goal: I64, masks: I64, magics: I64, attacks: I64,
) -> int:  # fmt: skip
    """The position's value for the side to move, in thousandths (before ``tanh``)."""
    white_goal, black_goal = own_goal[0], own_goal[1]
    w = _side_value(white, black, bishops, white_goal, black_goal, goals, masks, magics, attacks)
    b = _side_value(black, white, bishops, black_goal, white_goal, goals, masks, magics, attacks)
    return (w - b if side == 0 else b - w) + _TEMPO


@jit
def _negamax(
    white: int, black: int, bishops: int, side: int, depth: int, alpha: int, beta: int,
    ply: int, index: int, since: int, root: int,
    tables: Tables,
    table: tuple[I64, I64],
    work: tuple[I64, I64, I64, I64, I64],
    probe: Probe,
    ctx: I64, actions: I64, scores: I64,
) -> int:  # fmt: skip
    """The negamax value of a position for its side to move, within (alpha, beta).

    ``path[index]`` is this position's slot on the line from the last capture (``since``);
    slots from ``root`` on are the search's own path, earlier ones the game's.

    At the root (``ply == 0``) it searches the given ``actions`` in order and writes each
    one's score into ``scores``: after the first, each with alpha just below the best so far,
    so an action tying the best gets its exact score. (The root is this function rather than
    a caller of it, and every recursive call passes exactly the argument types of the outer
    call: numba crashes loading from its cache a recursive function compiled for two
    signatures, or a caller of one.)"""
    area, goals, own_goal, masks, magics, attacks = tables
    tt_keys, tt_data = table
    path, moves, order, killers, history = work
    if out_of_budget(ctx):
        return 0
    if ply == 0:
        best = -INFINITE
        for i in range(len(actions)):
            w, b, bi, captured = _apply(white, black, bishops, side, actions[i], area)
            floor = -INFINITE if i == 0 else best - 1
            value = -_negamax(
                w, b, bi, 1 - side, depth - 1, -INFINITE, -floor, ply + 1, index + 1,
                index + 1 if captured else since, root, tables, table, work, probe, ctx, actions,
                scores,
            )  # fmt: skip
            if ctx[2]:
                return 0
            scores[i] = value
            best = max(best, value)
        return best
    path[index, 0], path[index, 1], path[index, 2] = white, black, bishops
    earlier = 0
    for back in range(index - 2, since - 1, -2):
        if path[back, 0] == white and path[back, 1] == black and path[back, 2] == bishops:
            if back >= root:
                return 0
            earlier += 1
    if earlier >= 2:
        return 0
    values, offsets, binom, covered = probe
    pieces = popcount(white | black)
    if pieces <= covered and white != 0 and black != 0:
        at = offsets[pieces] + _index(white, black, bishops, side, pieces, binom, area)
        distance = int(values[at])
        if distance == DRAW:
            return 0
        # Scored as the search scores a result it sees itself, ``ply + distance`` plies away.
        return WIN - ply - distance if distance % 2 else -(WIN - ply - distance)
    mine = moves[ply]
    n = _generate(white, black, bishops, side, area, goals, own_goal, masks, magics, attacks, mine)
    if n == 0:
        return -(WIN - ply)
    enemy = black if side == 0 else white
    in_check = enemy & own_goal[side]
    if depth <= 0:
        if not in_check or ply >= MAX_PLY - 2:
            return evaluate(white, black, bishops, side, goals, own_goal, masks, magics, attacks)
        depth = 1
    hashed = mix(white, black, bishops, side)
    decided, score, table_move = tt_probe(tt_keys, tt_data, hashed, depth, alpha, beta, ply)
    if decided:
        return score
    scores = order[ply]
    occupied = white | black
    rank_moves(mine, scores, n, table_move, killers, ply, history)
    for i in range(n):
        move = mine[i]
        # Captures come after the table's move and before the killers (never a capture).
        if move != table_move and (occupied >> (move % area)) & 1:
            scores[i] = history[move] + _CAPTURE
    original_alpha = alpha
    best = -INFINITE
    best_move = -1
    for i in range(n):
        pick(mine, scores, i, n)
        move = mine[i]
        w, b, bi, captured = _apply(white, black, bishops, side, move, area)
        child_since = index + 1 if captured else since
        if i == 0:
            value = -_negamax(
                w, b, bi, 1 - side, depth - 1, -beta, -alpha, ply + 1, index + 1, child_since,
                root, tables, table, work, probe, ctx, actions, scores,
            )  # fmt: skip
        else:
            value = -_negamax(
                w, b, bi, 1 - side, depth - 1, -alpha - 1, -alpha, ply + 1, index + 1,
                child_since, root, tables, table, work, probe, ctx, actions, scores,
            )  # fmt: skip
            if alpha < value < beta:
                value = -_negamax(
                    w, b, bi, 1 - side, depth - 1, -beta, -alpha, ply + 1, index + 1,
                    child_since, root, tables, table, work, probe, ctx, actions, scores,
                )  # fmt: skip
        if ctx[2]:
            return 0
        if value > best:
            best, best_move = value, move
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    quiet = not (occupied >> (move % area)) & 1
                    record_cutoff(killers, history, ply, move, depth, quiet)
                    break
    tt_record(tt_keys, tt_data, hashed, best, original_alpha, beta, depth, best_move, ply)
    return best


class FlipFlopSearcher(TableSearcher["FlipFlopKernel"]):
    """A FlipFlop alpha-beta with its own transposition table (``2**table_bits`` slots, 16
    bytes each) and move-ordering memory, kept from one move to the next; it probes endgame
    tables at its nodes once given them (:meth:`probe`)."""

    def __init__(self, kernel: FlipFlopKernel, table_bits: int = 20) -> None:
        g = kernel.geometry
        super().__init__(kernel, table_bits, g.area * g.area, MAX_PLY, MAX_MOVES)
        self.tables = Bitboard.of(g.size).args()
        self.path = np.zeros((MAX_PLY + 1, 3), dtype=np.int64)
        self.position = (0, 0, 0, 0)
        self.root = 0
        self.tables_probed: Probe = NO_TABLES

    def probe(self, table: EndgameTable | None) -> None:
        """Value every position ``table`` covers from it, at every node of the searches to
        come (None: evaluate them as any other); ValueError for another game's table. The
        search holds the table's arrays, not a copy."""
        if table is None:
            self.tables_probed = NO_TABLES
            return
        if not isinstance(table, FlipFlopEndgameTable) or table.name != self.kernel.name:
            raise ValueError(f"the {self.kernel.name} search cannot probe that endgame table")
        self.tables_probed = (table.values, table.offsets, table.binom, table.max_pieces)

    def prepare(self, state: State) -> list[int]:
        """Take ``state`` as the root, with the game's positions since the last capture."""
        self.kernel.check_state(state)
        root = cast("FlipFlopState", state)
        line = [root]
        for _ in range(root.quiet):
            parent = line[-1].parent
            if parent is None:
                break
            line.append(cast("FlipFlopState", parent))
        line.reverse()
        self.path = np.zeros((len(line) + MAX_PLY + 1, 3), dtype=np.int64)
        for i, s in enumerate(line):
            self.path[i] = (s.white, s.black, s.bishops)
        self.root = len(line) - 1
        self.position = (root.white, root.black, root.bishops, root.side)
        self.new_root()
        return list(state.legal_actions())

    def search_root(self, depth: int, actions: I64, scores: I64, ctx: I64) -> None:
        white, black, bishops, side = self.position
        work = (self.path, self.moves, self.order, self.killers, self.history)
        _negamax(
            white, black, bishops, side, depth, -INFINITE, INFINITE, 0, self.root, 0, self.root,
            self.tables, self.table, work, self.tables_probed, ctx, actions, scores,
        )  # fmt: skip
