"""What every compiled df-pn proof search shares: the transposition table, the proof and
disproof numbers of a node from its children, and the descent and return of the search.

A game's df-pn kernel (:mod:`flipgames.games.flipfour.dfpn_kernel`,
:mod:`flipgames.games.flipflop.dfpn_kernel`) compiles one loop that fills a node's child list
with its own move generator and rules (:func:`step` does the rest); :mod:`flipgames.solvers.
dfpn` drives it. The search is Nagai's df-pn with Pawlewicz's 1 + epsilon thresholds: it
proves or disproves "the *attacker* wins" from a position of four int words (three boards and
the side to move).

- **Transposition table**: buckets of four entries keyed by two words (the game's canonical
  image of the position, :data:`USED` set so that no key is 0). Each entry holds the proof
  and disproof numbers, the plies to the win of a proven entry (an upper bound, so a proof
  can be read back without a cycle) and the nodes its last search cost; a full bucket
  replaces its cheapest unresolved entry.
- **Child lists** (``bufs``, one row per depth): action, the child's three boards, its two key
  words, a fixed status (0 search it, 1 won by the attacker, 2 not, 3 not by repetition) with
  plies (wins) or the path index (repetitions), and the numbers its last search gave.
- **Repetition** (the graph-history interaction): a child whose key is on the current path
  (since the last irreversible move) is not a win for the attacker (status 3). A proof never
  rests on such a child, so proofs are true whatever the path. A disproof that does is true
  only below the repeated ancestor: it is stored only when that ancestor is the node itself or
  below it, else it is handed up (``dep``, the path index it rests on) and kept in the
  parent's child list for as long as the parent's search lasts (its path above does not change
  meanwhile).

>>> table = new_table(8)
>>> stats = np.zeros(STATS, dtype=np.int64)
>>> store(5 | USED, 7, 0, INF, 3, 10, table, stats)
>>> slot = lookup(5 | USED, 7, table)
>>> int(table[2][slot]), int(table[3][slot]) == INF, int(table[4][slot]), int(stats[5])
(0, True, 3, 1)
"""

from __future__ import annotations

from typing import Any, Final, cast

import numpy as np
import numpy.typing as npt

from flipgames.kernels.jit import jit

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
#: numba's tuples of arrays (the transposition table, the child lists).
Arrays = tuple[Any, ...]
Table = tuple[I64, I64, I32, I32, I32, I64]

#: Proof and disproof numbers: INF is proven / disproven, sums stop one below.
INF: Final = (1 << 30) - 1
#: Deepest path the search follows (deeper lines count as not a win, path-dependently).
MAX_DEPTH: Final = 1500
#: A ``dep`` that rests on nothing (a true result).
FREE: Final = 1 << 40
#: ``stats``: nodes, node budget, aborted, deepest ply, attacker, stored, replaced.
STATS: Final = 7
BUCKET: Final = 4
#: Set in every stored key, so that 0 marks an empty slot.
USED: Final = 1 << 62
ENTRY_BYTES: Final = 36
FIELDS: Final = ("key_a", "key_b", "pn", "dn", "plies", "work")
#: Fixed statuses of a child (see the module docstring).
SEARCH, WON, NOT_WON, REPEATED = 0, 1, 2, 3
#: Rows of the child lists: actions, the child's boards (3), its key words (2), fixed status,
#: plies or path index, last proof and disproof numbers.
LISTS: Final = 10


def new_table(entries: int) -> Table:
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


def new_buffers(width: int) -> tuple[I64, ...]:
    """The per-depth child lists (``width`` children a node) and the stack frames."""
    lists = tuple(np.zeros((MAX_DEPTH, width), dtype=np.int64) for _ in range(LISTS))
    return (*lists, np.zeros((MAX_DEPTH, 9), dtype=np.int64))


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
def load_entries(keys_a: I64, keys_b: I64, pns: I32, dns: I32, plies: I32, works: I64,
                 tt: Arrays, stats: I64) -> None:  # fmt: skip
    """Store saved entries (a smaller table keeps what its buckets hold)."""
    for i in range(keys_a.shape[0]):
        store(keys_a[i], keys_b[i], pns[i], dns[i], plies[i], works[i], tt, stats)


@jit
def evaluate(
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
        if f == SEARCH:
            s = lookup(ca[d, i], cb2[d, i], tt)
            if s < 0:  # not in the table (or replaced): the numbers its last search gave
                pn, dn, cpl = bufs[8][d, i], bufs[9][d, i], extra[d, i]
            else:
                pn, dn, cpl = keys_pn[s], keys_dn[s], depths[s]
        elif f == WON:
            pn, dn, cpl = 0, INF, extra[d, i]
        else:
            pn, dn, cpl = INF, 0, 0
        # The child's own phi and delta (its side to move is the other one).
        cphi, cdelta = (dn, pn) if mine else (pn, dn)
        if cdelta == 0:  # a child where this side gets its way
            low = min(low, cpl)
            dep_any = max(dep_any, extra[d, i] if f == REPEATED else FREE)
        if cphi == 0:
            high = max(high, cpl)
            dep_all = min(dep_all, extra[d, i] if f == REPEATED else FREE)
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
def start(w: int, b: int, bi: int, player: int, ka: int, kb: int, frames: I64, pk: I64) -> None:
    """Put the root on the stack (unbounded thresholds) with its key words."""
    frames[0, 0], frames[0, 1], frames[0, 2], frames[0, 3] = w, b, bi, player
    frames[0, 4], frames[0, 5] = INF, INF
    pk[0], pk[1] = ka, kb


@jit
def enter(d: int, frames: I64, stats: I64) -> None:
    """Count the node at depth ``d`` as visited (its children are listed next)."""
    stats[0] += 1
    stats[3] = max(stats[3], d)
    frames[d, 6] = stats[0]


@jit
def step(
    d: int, tt: Arrays, bufs: Arrays, frames: I64, pk: I64, stats: I64
) -> tuple[int, int, int, int, int]:
    """One move of the search at the node of depth ``d``, whose children are listed
    (``frames[d]``: the position, thresholds, nodes at entry, children, the child being
    searched): descend into its most-proving child, or, once its phi or delta reaches its
    threshold, store it and return to its parent. Returns (the next depth, with -1 once the
    root is done, then the root's phi, delta, plies to the win when proven and dep); the
    caller lists a deeper node's children. ``dep`` < the node's depth: a disproof resting on
    a repetition of that path index (not stored)."""
    mine = frames[d, 3] == stats[4]
    phi, delta, best, delta2, best_phi, plies, dep = evaluate(d, frames[d, 7], mine, tt, bufs)
    thphi, thdelta = frames[d, 4], frames[d, 5]
    done = phi >= thphi or delta >= thdelta or stats[2] or phi == 0 or delta == 0
    if not done and stats[0] >= stats[1]:
        stats[2], done = 1, True
    if not done:
        frames[d, 8] = best
        child = d + 1
        frames[child, 0], frames[child, 1] = bufs[1][d, best], bufs[2][d, best]
        frames[child, 2], frames[child, 3] = bufs[3][d, best], 1 - frames[d, 3]
        frames[child, 4] = min(thdelta - delta + best_phi, INF - 1)
        frames[child, 5] = min(thphi, delta2 + (delta2 >> 2) + 1)
        pk[2 * child], pk[2 * child + 1] = bufs[4][d, best], bufs[5][d, best]
        return child, 0, 0, 0, 0
    pn, dn = (phi, delta) if mine else (delta, phi)
    resolved = pn == 0 or dn == 0
    if not resolved or dn != 0 or dep >= d:
        work = stats[0] - frames[d, 6]
        store(pk[2 * d], pk[2 * d + 1], pn, dn, plies if pn == 0 else 0, work, tt, stats)
        dep = FREE
    if d == 0:
        return -1, phi, delta, plies, dep
    d -= 1
    # Kept in the parent's list: two siblings in a full bucket could otherwise push each
    # other out of the table and be picked in turn forever.
    searched = frames[d, 8]
    bufs[8][d, searched], bufs[9][d, searched] = pn, dn
    bufs[7][d, searched] = plies if pn == 0 else 0
    if dep < d + 1:  # a disproof true only while this path above stays: keep it here
        bufs[6][d, searched], bufs[7][d, searched] = REPEATED, dep
    return d, 0, 0, 0, 0


@jit
def on_path(d: int, ka: int, kb: int, count: int, pk: I64, pcount: I64) -> int:
    """The path index of the key ``(ka, kb)`` among the nodes from depth ``d`` up while they
    hold ``count`` pieces (no irreversible move in between), or -1."""
    j = d
    while j >= 0 and pcount[j] == count:
        if pk[2 * j] == ka and pk[2 * j + 1] == kb:
            return j
        j -= 1
    return -1


def result(
    root: tuple[int, int, int, int], player: int, attacker: int
) -> tuple[int, int, int, int]:
    """The search's root answer (phi, delta, plies, dep) as (pn, dn, plies, dep) for the
    attacker; ``dep < 0`` means the disproof rests on the depth limit, not a fact."""
    phi, delta, plies, dep = root
    pn, dn = (phi, delta) if player == attacker else (delta, phi)
    return int(pn), int(dn), int(plies), int(dep if dep < FREE else FREE)


class TableMethods:
    """The :class:`flipgames.solvers.dfpn.ProofSearch` methods every game's search shares:
    the table, its entries and checkpoints. A game's class adds ``key`` and the rest."""

    entry_bytes = ENTRY_BYTES
    infinity = INF

    def key(self, position: Any) -> tuple[int, int]:
        raise NotImplementedError

    def new_table(self, entries: int) -> Table:
        return new_table(entries)

    def entry(self, position: Any, table: Table) -> tuple[int, int, int] | None:
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
        load_entries(a[0], a[1], a[2], a[3], a[4], a[5], table, stats)
