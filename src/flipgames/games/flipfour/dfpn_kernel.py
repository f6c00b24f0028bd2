"""FlipFour's depth-first proof-number search (df-pn) in numba: does one side force a win?

The search (Nagai's df-pn with Pawlewicz's 1 + epsilon thresholds) proves or disproves "the
*attacker* wins" from a position; :mod:`flipgames.solvers.dfpn` drives it (progress,
checkpoints, proofs). Positions are ``(white, black, bishops, player)`` bitboards; the pieces
in hand are implied (four pieces a side, no captures). Action ids are the reference's
(:mod:`.notation`), generated in the same ascending order as :mod:`.rules`.

- **Transposition table**: buckets of four entries keyed by the position's canonical image
  under the 8 symmetries of the square (rook and bishop lines and the four-in-a-row windows
  map onto themselves), as two words: ``white | black << 25 | player << 50`` (plus a bit
  so that no key is 0) and the bishop faces. Each entry holds the proof and disproof numbers,
  the plies to the win of a proven entry (an upper bound, so a proof can be read back without
  a cycle) and the nodes its last search cost; a full bucket replaces its cheapest entry.
- **Repetition** (the graph-history interaction): a child whose canonical position is on the
  current path (since the last drop: drops never come back) is not a win for the attacker. A
  proof never rests on such a child, so proofs are true whatever the path. A disproof that
  does is true only below the repeated ancestor: it is stored only when that ancestor is the
  node itself or below it, else it is handed up (``dep``, the path index it rests on) and
  kept in the parent's child list for as long as the parent's search lasts (its path above
  does not change meanwhile).
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

from typing import Any, Final, cast

import numpy as np
import numpy.typing as npt

from flipgames.core.position import format_board
from flipgames.games.flipfour.board import NUM_SQUARES, REACH, SIZE, WINDOWS, WINDOWS_THROUGH
from flipgames.games.flipfour.notation import MOVE_IDS, MOVES, action_text
from flipgames.games.flipfour.position import LETTERS, SIDES
from flipgames.kernels.jit import jit, popcount, trailing_zeros

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
#: numba's tuples of arrays (the tables, the transposition table, the child lists).
Arrays = tuple[Any, ...]

#: Proof and disproof numbers: INF is proven / disproven, sums stop one below.
INF: Final = (1 << 30) - 1
#: Deepest path the search follows (deeper lines count as not a win, path-dependently).
MAX_DEPTH: Final = 1500
MAX_ACTIONS: Final = 128
#: A ``dep`` that rests on nothing (a true result).
FREE: Final = 1 << 40
#: ``stats``: nodes, node budget, aborted, deepest ply, attacker, stored, replaced.
STATS: Final = 7
BUCKET: Final = 4
#: Set in every stored key, so that 0 marks an empty slot.
USED: Final = 1 << 62

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


def new_table(entries: int) -> tuple[I64, I64, I32, I32, I32, I64]:
    """An empty table of ``entries`` slots (a power of two, at least one bucket): keys (two
    words), proof and disproof numbers, plies to the win, work. 36 bytes an entry."""
    if entries < BUCKET or entries & (entries - 1):
        raise ValueError(f"a table has a power of two entries, at least {BUCKET}: {entries}")
    return (
        np.zeros(entries, dtype=np.int64),
        np.zeros(entries, dtype=np.int64),
        np.zeros(entries, dtype=np.int32),
        np.zeros(entries, dtype=np.int32),
        np.zeros(entries, dtype=np.int32),
        np.zeros(entries, dtype=np.int64),
    )


ENTRY_BYTES: Final = 36


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
def _bucket(ka: int, kb: int, mask: int) -> int:
    """The first slot of a key's bucket (a 64-bit mix of both words, low bits kept)."""
    x = (ka ^ (kb * 0x2545F4914F6CDD1D)) & 0x7FFFFFFFFFFFFFFF
    x = ((x ^ (x >> 31)) * 0x1E3779B97F4A7C15) & 0x7FFFFFFFFFFFFFFF
    x ^= x >> 29
    return (x * BUCKET) & mask


@jit
def lookup(ka: int, kb: int, tt: Arrays) -> int:
    """The slot holding a key, or -1."""
    keys_a, keys_b = tt[0], tt[1]
    mask = keys_a.shape[0] - 1
    base = _bucket(ka, kb, mask)
    for i in range(BUCKET):
        if keys_a[base + i] == ka and keys_b[base + i] == kb:
            return base + i
    return -1


@jit
def store(
    ka: int, kb: int, pn: int, dn: int, plies: int, work: int, tt: Arrays, stats: I64
) -> None:
    """Write an entry: over its own slot, else an empty one, else the cheapest unresolved
    one of the bucket (resolved ones only when the bucket holds nothing else)."""
    keys_a, keys_b, pns, dns, depth, works = tt
    mask = keys_a.shape[0] - 1
    base = _bucket(ka, kb, mask)
    slot, cheapest = -1, -1
    for i in range(BUCKET):
        s = base + i
        if keys_a[s] == ka and keys_b[s] == kb:
            slot = s
            break
        if keys_a[s] == 0:
            if slot < 0 or keys_a[slot] != 0:
                slot = s
            continue
        value = works[s] + (1 << 40 if pns[s] == 0 or dns[s] == 0 else 0)
        if slot < 0 or (keys_a[slot] != 0 and value < cheapest):
            slot, cheapest = s, value
    if keys_a[slot] == 0:
        stats[5] += 1
    elif keys_a[slot] != ka or keys_b[slot] != kb:
        stats[6] += 1
    keys_a[slot], keys_b[slot] = ka, kb
    pns[slot], dns[slot], depth[slot], works[slot] = pn, dn, plies, work


@jit
def _expand(d: int, w: int, b: int, bi: int, player: int, tables: Arrays, bufs: Arrays, pk: I64,
            pcount: I64, attacker: int) -> int:  # fmt: skip
    """Fill depth ``d``'s child list: action, child position, fixed status (0 search, 1 won
    by the attacker, 2 not, 3 not by repetition) with plies (wins) or the path index
    (repetitions); return the number of children."""
    reach, windows, ids, sym = tables[0], tables[1], tables[2], tables[7]
    acts, cw, cb, cbi, ca, cb2, fix, extra = (
        bufs[0],
        bufs[1],
        bufs[2],
        bufs[3],
        bufs[4],
        bufs[5],
        bufs[6],
        bufs[7],
    )
    n = generate(w, b, bi, player, reach, ids, acts[d])
    bufs[8][d, :n], bufs[9][d, :n] = 1, 1
    for i in range(n):
        w2, b2, bi2, four = play(w, b, bi, player, acts[d, i], tables)
        cw[d, i], cb[d, i], cbi[d, i] = w2, b2, bi2
        fix[d, i], extra[d, i] = 0, 0
        if four:
            fix[d, i] = 1 if player == attacker else 2
            continue
        if wins_now(w2, b2, bi2, 1 - player, reach, windows):
            fix[d, i] = 1 if 1 - player == attacker else 2
            extra[d, i] = 1
            continue
        ka, kb = canonical(w2, b2, bi2, 1 - player, sym)
        ca[d, i], cb2[d, i] = ka, kb
        count = popcount(w2 | b2)
        j = d
        while j >= 0 and pcount[j] == count:
            if pk[2 * j] == ka and pk[2 * j + 1] == kb:
                fix[d, i], extra[d, i] = 3, j
                break
            j -= 1
        if d + 1 >= MAX_DEPTH and fix[d, i] == 0:
            fix[d, i], extra[d, i] = 3, -1
    return n


@jit
def _evaluate(
    d: int, n: int, mine: bool, tt: Arrays, bufs: Arrays
) -> tuple[int, int, int, int, int, int, int]:
    """The numbers of the node at depth ``d`` from its children (fixed or in the table):
    (phi, delta, best child, second-best delta, best child's phi, plies, dep) for the side
    to move (phi 0: it gets its way, the attacker a proof, the defender a disproof)."""
    ca, cb2, fix, extra = bufs[4], bufs[5], bufs[6], bufs[7]
    keys_pn, keys_dn, depths = tt[2], tt[3], tt[4]
    phi, delta, best, delta2, best_phi = INF, 0, -1, INF, 0
    low, high, dep_any, dep_all = 1 << 30, 0, -FREE, FREE
    for i in range(n):
        f = fix[d, i]
        if f == 0:
            s = lookup(ca[d, i], cb2[d, i], tt)
            if s < 0:  # not in the table (or replaced): the numbers its last search gave
                pn, dn, cpl = bufs[8][d, i], bufs[9][d, i], extra[d, i]
            else:
                pn, dn, cpl = keys_pn[s], keys_dn[s], depths[s]
        elif f == 1:
            pn, dn, cpl = 0, INF, extra[d, i]
        else:
            pn, dn, cpl = INF, 0, 0
        # The child's own phi and delta (its side to move is the other one).
        cphi, cdelta = (dn, pn) if mine else (pn, dn)
        if cdelta == 0:  # a child where this side gets its way
            low = min(low, cpl)
            dep_any = max(dep_any, extra[d, i] if f == 3 else FREE)
        if cphi == 0:
            high = max(high, cpl)
            dep_all = min(dep_all, extra[d, i] if f == 3 else FREE)
        if cdelta < phi:
            delta2, phi, best, best_phi = phi, cdelta, i, cphi
        elif cdelta < delta2:
            delta2 = cdelta
        delta = min(delta + cphi, INF - 1)
    plies, dep = 0, FREE
    if phi == 0:
        plies, dep, delta = low + 1, (FREE if mine else dep_any), INF
    elif delta == 0 or n == 0:
        plies, dep, phi = high + 1, (dep_all if mine else FREE), INF
    return phi, delta, best, delta2, best_phi, plies, dep


@jit
def _search(w: int, b: int, bi: int, player: int, tables: Arrays, tt: Arrays, bufs: Arrays,
            frames: I64, pk: I64, pcount: I64,
            stats: I64) -> tuple[int, int, int, int]:  # fmt: skip
    """df-pn from a root, depth first over an explicit stack (``frames[d]``: the position,
    thresholds, nodes at entry, children and the child being searched of the node at depth
    ``d``). Returns the root's (phi, delta, plies to the win when proven, dep); a node
    stops when its phi or delta reaches its threshold. ``dep`` < the node's depth: a
    disproof resting on a repetition of that path index (not stored)."""
    attacker = stats[4]
    frames[0, 0], frames[0, 1], frames[0, 2], frames[0, 3] = w, b, bi, player
    frames[0, 4], frames[0, 5] = INF, INF
    pk[0], pk[1] = canonical(w, b, bi, player, tables[7])
    d, entering = 0, True
    while True:
        w, b, bi, player = frames[d, 0], frames[d, 1], frames[d, 2], frames[d, 3]
        mine = player == attacker
        if entering:
            stats[0] += 1
            stats[3] = max(stats[3], d)
            frames[d, 6] = stats[0]
            pcount[d] = popcount(w | b)
            frames[d, 7] = _expand(d, w, b, bi, player, tables, bufs, pk, pcount, attacker)
        phi, delta, best, delta2, best_phi, plies, dep = _evaluate(d, frames[d, 7], mine, tt, bufs)
        thphi, thdelta = frames[d, 4], frames[d, 5]
        done = phi >= thphi or delta >= thdelta or stats[2] or phi == 0 or delta == 0
        if not done and stats[0] >= stats[1]:
            stats[2], done = 1, True
        if not done:
            frames[d, 8] = best
            child = d + 1
            frames[child, 0], frames[child, 1] = bufs[1][d, best], bufs[2][d, best]
            frames[child, 2], frames[child, 3] = bufs[3][d, best], 1 - player
            frames[child, 4] = min(thdelta - delta + best_phi, INF - 1)
            frames[child, 5] = min(thphi, delta2 + (delta2 >> 2) + 1)
            pk[2 * child], pk[2 * child + 1] = bufs[4][d, best], bufs[5][d, best]
            d, entering = child, True
            continue
        pn, dn = (phi, delta) if mine else (delta, phi)
        resolved = pn == 0 or dn == 0
        if not resolved or dn != 0 or dep >= d:
            work = stats[0] - frames[d, 6]
            store(pk[2 * d], pk[2 * d + 1], pn, dn, plies if pn == 0 else 0, work, tt, stats)
            dep = FREE
        if d == 0:
            return phi, delta, plies, dep
        d, entering = d - 1, False
        # Kept in the parent's list: two siblings in a full bucket could otherwise push each
        # other out of the table and be picked in turn forever.
        bufs[8][d, frames[d, 8]], bufs[9][d, frames[d, 8]] = pn, dn
        bufs[7][d, frames[d, 8]] = plies if pn == 0 else 0
        if dep < d + 1:  # a disproof true only while this path above stays: keep it here
            bufs[6][d, frames[d, 8]], bufs[7][d, frames[d, 8]] = 3, dep


def new_buffers() -> tuple[I64, ...]:
    """The per-depth child lists (actions, children, their keys, fixed status, plies or
    path index, the last numbers of searched children) and the stack frames (about 16 MB)."""
    lists = tuple(np.zeros((MAX_DEPTH, MAX_ACTIONS), dtype=np.int64) for _ in range(10))
    return (*lists, np.zeros((MAX_DEPTH, 9), dtype=np.int64))


def run(
    w: int,
    b: int,
    bi: int,
    player: int,
    attacker: int,
    tt: tuple[I64, I64, I32, I32, I32, I64],
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
    phi, delta, plies, dep = _search(
        w, b, bi, player, TABLES, tt, buffers[:10], buffers[10], path, counts, stats
    )
    pn, dn = (phi, delta) if player == attacker else (delta, phi)
    return int(pn), int(dn), int(plies), int(dep if dep < FREE else FREE)


@jit
def _load(keys_a: I64, keys_b: I64, pns: I32, dns: I32, plies: I32, works: I64, tt: Arrays,
          stats: I64) -> None:  # fmt: skip
    for i in range(keys_a.shape[0]):
        store(keys_a[i], keys_b[i], pns[i], dns[i], plies[i], works[i], tt, stats)


Position = tuple[int, int, int, int]
Table = tuple[I64, I64, I32, I32, I32, I64]
FIELDS: Final = ("key_a", "key_b", "pn", "dn", "plies", "work")


class FlipFourProofSearch:
    """The df-pn search of FlipFour as :class:`flipgames.solvers.dfpn.ProofSearch` wants it:
    positions are ``(white, black, bishops, player)``."""

    entry_bytes = ENTRY_BYTES
    infinity = INF

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

    def new_table(self, entries: int) -> Table:
        return new_table(entries)

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

    def entry(self, position: Position, table: Table) -> tuple[int, int, int] | None:
        """(pn, dn, plies) of the position's table entry, or None."""
        slot = lookup(*self.key(position), table)
        if slot < 0:
            return None
        return int(table[2][slot]), int(table[3][slot]), int(table[4][slot])

    def entries(self, table: Table) -> dict[str, npt.NDArray[np.int64]]:
        """The entries worth keeping, by field (what a checkpoint saves): every resolved one
        and every one whose search cost more than one node (a leaf is quicker to redo)."""
        used = (table[0] != 0) & ((table[5] > 1) | (table[2] == 0) | (table[3] == 0))
        columns = cast("tuple[I64, ...]", table)
        return {name: column[used] for name, column in zip(FIELDS, columns, strict=True)}

    def load(self, table: Table, columns: dict[str, npt.NDArray[np.int64]], stats: I64) -> None:
        """Store saved entries (a smaller table keeps what its buckets hold)."""
        types = (np.int64, np.int64, np.int32, np.int32, np.int32, np.int64)
        a = [np.ascontiguousarray(columns[n], dtype=t) for n, t in zip(FIELDS, types, strict=True)]
        _load(a[0], a[1], a[2], a[3], a[4], a[5], table, stats)

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
