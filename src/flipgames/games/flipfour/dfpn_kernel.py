"""FlipFour's depth-first proof-number search (df-pn) in numba: does one side force a win?

The search (Nagai's df-pn with Pawlewicz's 1 + epsilon thresholds) proves or disproves "the
*attacker* wins" from a position; :mod:`flipgames.solvers.dfpn` drives it (progress,
checkpoints, proofs). Positions are ``(white, black, bishops, player)`` bitboards; the pieces
in hand are implied (four pieces a side, no captures). Action ids are the reference's
(:mod:`.notation`), generated in the same ascending order as :mod:`.rules`.

- **Transposition table**, child lists and repetition (the graph-history interaction) are
  :mod:`flipgames.kernels.dfpn`'s; keys are the position's canonical image under the 8
  symmetries of the square (rook and bishop lines and the four-in-a-row windows map onto
  themselves), as two words: ``white | black << 25 | player << 50`` and the bishop faces. A
  repetition is looked for since the last drop (drops never come back).
- **Leaves**: a four made by the move ends the game; a side to move that can make four at
  once (three of a window, the fourth square empty, a piece in hand or the one piece outside
  the window reaching it) wins without a search.

>>> import numpy as np
>>> table = new_table(1 << 10)
>>> stats = np.zeros(STATS, dtype=np.int64)
>>> w, b = 0b111 << 10, 0b11 << 5 | 1 | 1 << 14   # R a3 b3 c3, Black a1 a2 b2 e3
>>> run(w, b, 0, 0, 0, table, stats, 10_000)[:3]  # White to move: a drop on d3 wins
(0, 1073741823, 1)
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from flipgames.core.position import format_board
from flipgames.games.flipfour.board import NUM_SQUARES, REACH, SIZE, WINDOWS, WINDOWS_THROUGH
from flipgames.games.flipfour.notation import MOVE_IDS, MOVES, action_text
from flipgames.games.flipfour.position import LETTERS, SIDES
from flipgames.kernels.dfpn import (
    INF,
    MAX_DEPTH,
    NOT_WON,
    REPEATED,
    STATS,
    USED,
    WON,
    Arrays,
    Table,
    TableMethods,
    enter,
    new_table,
    on_path,
    result,
    start,
    step,
)
from flipgames.kernels.dfpn import new_buffers as _new_buffers
from flipgames.kernels.jit import jit, popcount, trailing_zeros

__all__ = ["INF", "STATS", "FlipFourProofSearch", "new_table", "run"]

I64 = npt.NDArray[np.int64]
MAX_ACTIONS: Final = 128

_REACH = np.array(REACH, dtype=np.int64)
_WINDOWS = np.array(WINDOWS, dtype=np.int64)
_MOVE_IDS = np.array(MOVE_IDS, dtype=np.int64)
_MOVE_FROM = np.array([frm for frm, _ in MOVES], dtype=np.int64)
_MOVE_TO = np.array([to for _, to in MOVES], dtype=np.int64)
_THROUGH = np.zeros((NUM_SQUARES, max(map(len, WINDOWS_THROUGH))), dtype=np.int64)
for _sq, _ws in enumerate(WINDOWS_THROUGH):
    _THROUGH[_sq, : len(_ws)] = _ws
_THROUGH_COUNT = np.array([len(w) for w in WINDOWS_THROUGH], dtype=np.int64)


def _symmetry_tables() -> I64:
    """``[g, chunk, bits]``: the image under symmetry ``g`` of the 5 squares ``bits`` of rank
    ``chunk`` (so a board's image is five lookups). ``g``: transpose, mirror files, mirror
    ranks (three bits); 0 is the identity."""
    tables = np.zeros((8, 5, 32), dtype=np.int64)
    for g in range(8):
        for rank in range(5):
            for bits in range(32):
                image = 0
                for file in range(5):
                    if bits >> file & 1:
                        f, r = (rank, file) if g & 1 else (file, rank)
                        f, r = (4 - f if g & 2 else f), (4 - r if g & 4 else r)
                        image |= 1 << (r * 5 + f)
                tables[g, rank, bits] = image
    return tables


_SYM = _symmetry_tables()
#: Everything the search reads, as one tuple argument.
TABLES: Final = (_REACH, _WINDOWS, _MOVE_IDS, _MOVE_FROM, _MOVE_TO, _THROUGH, _THROUGH_COUNT, _SYM)


@jit
def _image(x: int, g: int, sym: I64) -> int:
    return int(
        sym[g, 0, x & 31]
        | sym[g, 1, (x >> 5) & 31]
        | sym[g, 2, (x >> 10) & 31]
        | sym[g, 3, (x >> 15) & 31]
        | sym[g, 4, (x >> 20) & 31]
    )


@jit
def canonical(w: int, b: int, bi: int, player: int, sym: I64) -> tuple[int, int]:
    """The least of the 8 images of a position, as its two key words."""
    best_a, best_b = -1, -1
    for g in range(8):
        ka = _image(w, g, sym) | _image(b, g, sym) << 25 | player << 50 | USED
        kb = _image(bi, g, sym)
        if best_a < 0 or ka < best_a or (ka == best_a and kb < best_b):
            best_a, best_b = ka, kb
    return best_a, best_b


@jit
def wins_now(w: int, b: int, bi: int, player: int, reach: I64, windows: I64) -> bool:
    """True when ``player`` (to move) can make four in a row with one action."""
    mine = b if player else w
    occupied = w | b
    hand = 4 - popcount(mine)
    for k in range(windows.shape[0]):
        window = windows[k]
        if popcount(window & mine) != 3:
            continue
        hole = window & ~mine
        if hole & occupied:
            continue
        if hand > 0:
            return True
        outside = mine & ~window
        frm = trailing_zeros(outside)
        if reach[(bi >> frm) & 1, frm] & hole:
            return True
    return False


@jit
def generate(w: int, b: int, bi: int, player: int, reach: I64, ids: I64, out: I64) -> int:
    """The actions of ``player`` into ``out`` in the reference's ascending order; how many."""
    occupied = w | b
    mine = b if player else w
    n = 0
    if popcount(mine) < 4:
        for face in range(2):
            for sq in range(25):
                if not (occupied >> sq) & 1:
                    out[n] = face * 25 + sq
                    n += 1
    for frm in range(25):
        if (mine >> frm) & 1:
            targets = reach[(bi >> frm) & 1, frm] & ~occupied
            for to in range(25):
                if (targets >> to) & 1:
                    out[n] = ids[frm * 25 + to]
                    n += 1
    return n


@jit
def play(
    w: int, b: int, bi: int, player: int, action: int, tables: Arrays
) -> tuple[int, int, int, bool]:
    """The position after ``player``'s ``action`` and whether it made four in a row."""
    move_from, move_to, through, through_count = tables[3], tables[4], tables[5], tables[6]
    if action < 50:
        to = action % 25
        changed = 1 << to
        if action >= 25:
            bi |= changed
    else:
        to = move_to[action - 50]
        start, arrival = 1 << move_from[action - 50], 1 << to
        bi = bi & ~start if bi & start else bi | arrival  # the moved piece flips
        changed = start | arrival
    if player == 0:
        w ^= changed
        mine = w
    else:
        b ^= changed
        mine = b
    four = False
    for k in range(through_count[to]):
        if through[to, k] & mine == through[to, k]:
            four = True
    return w, b, bi, four


@jit
def _expand(d: int, w: int, b: int, bi: int, player: int, tables: Arrays, bufs: Arrays, pk: I64,
            pcount: I64, attacker: int) -> int:  # fmt: skip
    """Fill depth ``d``'s child list (:mod:`flipgames.kernels.dfpn`); return its length."""
    reach, windows, ids, sym = tables[0], tables[1], tables[2], tables[7]
    acts, cw, cb, cbi, ca, cb2, fix, extra = bufs[:8]
    n = generate(w, b, bi, player, reach, ids, acts[d])
    bufs[8][d, :n], bufs[9][d, :n] = 1, 1
    for i in range(n):
        w2, b2, bi2, four = play(w, b, bi, player, acts[d, i], tables)
        cw[d, i], cb[d, i], cbi[d, i] = w2, b2, bi2
        fix[d, i], extra[d, i] = 0, 0
        if four:
            fix[d, i] = WON if player == attacker else NOT_WON
            continue
        if wins_now(w2, b2, bi2, 1 - player, reach, windows):
            fix[d, i] = WON if 1 - player == attacker else NOT_WON
            extra[d, i] = 1
            continue
        ka, kb = canonical(w2, b2, bi2, 1 - player, sym)
        ca[d, i], cb2[d, i] = ka, kb
        j = on_path(d, ka, kb, popcount(w2 | b2), pk, pcount)
        if j >= 0:
            fix[d, i], extra[d, i] = REPEATED, j
        elif d + 1 >= MAX_DEPTH:
            fix[d, i], extra[d, i] = REPEATED, -1
    return n


@jit
def _search(w: int, b: int, bi: int, player: int, tables: Arrays, tt: Arrays, bufs: Arrays,
            frames: I64, pk: I64, pcount: I64,
            stats: I64) -> tuple[int, int, int, int]:  # fmt: skip
    """df-pn from a root (:func:`flipgames.kernels.dfpn.step`): the root's (phi, delta,
    plies to the win when proven, dep)."""
    ka, kb = canonical(w, b, bi, player, tables[7])
    start(w, b, bi, player, ka, kb, frames, pk)
    d = 0
    while True:
        w, b, bi, player = frames[d, 0], frames[d, 1], frames[d, 2], frames[d, 3]
        enter(d, frames, stats)
        pcount[d] = popcount(w | b)
        frames[d, 7] = _expand(d, w, b, bi, player, tables, bufs, pk, pcount, stats[4])
        while True:
            deeper, phi, delta, plies, dep = step(d, tt, bufs, frames, pk, stats)
            if deeper < 0:
                return phi, delta, plies, dep
            descended = deeper > d
            d = deeper
            if descended:
                break


def new_buffers() -> tuple[I64, ...]:
    """The per-depth child lists and the stack frames (about 16 MB)."""
    return _new_buffers(MAX_ACTIONS)


def run(
    w: int,
    b: int,
    bi: int,
    player: int,
    attacker: int,
    tt: Table,
    stats: I64,
    budget: int,
    bufs: tuple[I64, ...] | None = None,
) -> tuple[int, int, int, int]:
    """Search "``attacker`` wins" from a live position until it is resolved or ``budget``
    more nodes are spent: (pn, dn, plies to the win when proven, dep) for the attacker;
    ``dep < 0`` means the disproof rests on the search's depth limit, not a fact."""
    stats[1], stats[2], stats[4] = stats[0] + budget, 0, attacker
    path = np.zeros(2 * MAX_DEPTH, dtype=np.int64)
    counts = np.zeros(MAX_DEPTH, dtype=np.int64)
    buffers = new_buffers() if bufs is None else bufs
    root = _search(w, b, bi, player, TABLES, tt, buffers[:10], buffers[10], path, counts, stats)
    return result(root, player, attacker)


Position = tuple[int, int, int, int]


class FlipFourProofSearch(TableMethods):
    """The df-pn search of FlipFour as :class:`flipgames.solvers.dfpn.ProofSearch` wants it:
    positions are ``(white, black, bishops, player)``."""

    def __init__(self) -> None:
        self.buffers = new_buffers()

    def root(self, key: int) -> Position:
        """The position of a reference ``State.key()``."""
        mask = (1 << NUM_SQUARES) - 1
        return key & mask, key >> 25 & mask, key >> 50 & mask, key >> 81 & 1

    def to_move(self, position: Position) -> int:
        return position[3]

    def key(self, position: Position) -> tuple[int, int]:
        """The canonical key (the same for all 8 images)."""
        w, b, bi, player = position
        ka, kb = canonical(w, b, bi, player, _SYM)
        return int(ka), int(kb)

    def run(
        self, position: Position, attacker: int, table: Table, stats: I64, budget: int
    ) -> tuple[int, int, int, int]:
        w, b, bi, player = position
        return run(w, b, bi, player, attacker, table, stats, budget, self.buffers)

    def children(self, position: Position) -> list[tuple[int, Position, bool]]:
        """(action, child, made four) per legal action, in action id order (none when the
        side to move has no action)."""
        w, b, bi, player = position
        actions = np.zeros(MAX_ACTIONS, dtype=np.int64)
        n = generate(w, b, bi, player, _REACH, _MOVE_IDS, actions)
        found = []
        for action in actions[:n]:
            w2, b2, bi2, four = play(w, b, bi, player, int(action), TABLES)
            found.append((int(action), (int(w2), int(b2), int(bi2), 1 - player), bool(four)))
        return found

    def position_text(self, position: Position) -> str:
        """The position in FlipFour's notation (:mod:`.position`)."""
        w, b, bi, player = position

        def letter(square: int) -> str | None:
            if not (w | b) >> square & 1:
                return None
            return LETTERS[(0 if w >> square & 1 else 1, bool(bi >> square & 1))]

        hands = f"{4 - w.bit_count()}{4 - b.bit_count()}"
        return f"{format_board(SIZE, letter)} {SIDES[player]} {hands}"

    def action_text(self, action: int) -> str:
        return action_text(action)
