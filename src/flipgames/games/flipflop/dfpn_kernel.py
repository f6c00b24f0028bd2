"""FlipFlop's depth-first proof-number search (df-pn) in numba, both sizes: does one side
force a win?

The search, its table, child lists and repetition handling are :mod:`flipgames.kernels.dfpn`'s
(as for FlipFour); :mod:`flipgames.solvers.dfpn` drives it (progress, checkpoints, proofs).
Positions are ``(white, black, bishops, side)`` bitboards as in the reference key; moves,
captures and check come from the bitboard kernel (:mod:`.bitboard`).

- **Keys**: the least of the position and its left-right mirror image (the only symmetry of
  the rules: the goals sit on the middle file, and swapping the colours would swap the
  question), as two words: ``white | black << A | side << 2A`` and the bishop faces.
- **Repetition** (the graph-history interaction) is looked for since the last capture (a
  capture never comes back): a child on the current path is not a win for the attacker.
- **Leaves**: a move after which the other side has no legal move (checkmate, blocked, or no
  piece left) wins. A child with at most the endgame tables' pieces, both sides on the
  board, is answered by one lookup in them (:mod:`.endgame`, probed in machine code as
  :mod:`.search_kernel` does): won or lost for its side to move at the stored distance (plies
  to the end, which become the plies of a proof), or a draw, which is not a win for either
  side. Such a child is entered only through a capture (the root aside), so the repetition
  count starts afresh there, as the tables assume.
- **Action numbers**: the reference id (``origin * A + target``), plus :data:`CAPTURE` for a
  capture, so that the notation (``a1-a2``, ``b1xb3``) needs no position.

>>> from flipgames import make
>>> from flipgames.kernels.dfpn import STATS
>>> game = make("flipflop-3x3")
>>> search = FlipFlopProofSearch(game, None)
>>> state = game.from_position("1r1/3/1RR w")   # b1xb3 takes Black's last piece (on a goal)
>>> position = search.root(state.key())
>>> table = search.new_table(1 << 10)
>>> stats = np.zeros(STATS, dtype=np.int64)
>>> search.run(position, 0, table, stats, 10_000)[:3]
(0, 1073741823, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from flipgames.games.flipflop.bitboard import MAX_MOVES, Bitboard, _apply, _count, _generate
from flipgames.games.flipflop.endgame import DRAW, FlipFlopEndgameTable, _index
from flipgames.games.flipflop.notation import format_move
from flipgames.games.flipflop.search_kernel import NO_TABLES, Probe, Tables
from flipgames.kernels.dfpn import (
    INF,
    MAX_DEPTH,
    NOT_WON,
    REPEATED,
    USED,
    WON,
    Arrays,
    Table,
    TableMethods,
    enter,
    new_buffers,
    on_path,
    result,
    start,
    step,
)
from flipgames.kernels.jit import jit, popcount

if TYPE_CHECKING:
    from flipgames.games.flipflop.rules import FlipFlop

I64 = npt.NDArray[np.int64]
Position = tuple[int, int, int, int]
#: Added to the action id of a capture in the search's action numbers.
CAPTURE: Final = 1 << 16
#: ``(size, rows)``: the board's side and every rank's mirror image (``rows[bits]``).
Mirror = tuple[int, I64]


def mirror_rows(size: int) -> I64:
    """``rows[bits]``: the squares ``bits`` of one rank (bit ``f`` for file ``f``) mirrored
    left-right."""
    rows = np.zeros(1 << size, dtype=np.int64)
    for bits in range(1 << size):
        rows[bits] = sum(1 << (size - 1 - f) for f in range(size) if bits >> f & 1)
    return rows


@jit
def _mirror(x: int, size: int, rows: I64) -> int:
    image = 0
    mask = (1 << size) - 1
    for rank in range(size):
        image |= rows[(x >> (rank * size)) & mask] << (rank * size)
    return image


@jit
def canonical(w: int, b: int, bi: int, player: int, mirror: Mirror) -> tuple[int, int]:
    """The lesser of the position and its mirror image, as its two key words."""
    size, rows = mirror
    area = size * size
    ka = w | b << area | player << (2 * area) | USED
    mw, mb, mbi = _mirror(w, size, rows), _mirror(b, size, rows), _mirror(bi, size, rows)
    ma = mw | mb << area | player << (2 * area) | USED
    if ma < ka or (ma == ka and mbi < bi):
        return ma, mbi
    return ka, bi


@jit
def _leaf(w: int, b: int, bi: int, player: int, board: Tables, probe: Probe) -> tuple[int, int]:
    """What a position is without a search, for its side to move ``player``: (1, plies) won,
    (-1, plies) lost, (0, 0) a draw by the tables, (2, 0) unknown (search it)."""
    area, goals, own_goal, masks, magics, attacks = board
    values, offsets, binom, covered = probe
    if (w if player == 0 else b) == 0:
        return -1, 0
    pieces = popcount(w | b)
    if pieces <= covered and w != 0 and b != 0:
        distance = int(values[offsets[pieces] + _index(w, b, bi, player, pieces, binom, area)])
        if distance == DRAW:
            return 0, 0
        return (1 if distance % 2 else -1), distance
    if _count(w, b, bi, player, goals, own_goal, masks, magics, attacks) == 0:
        return -1, 0
    return 2, 0


@jit
def _expand(d: int, w: int, b: int, bi: int, player: int, board: Tables, mirror: Mirror,
            probe: Probe, bufs: Arrays, pk: I64, pcount: I64, attacker: int) -> int:  # fmt: skip
    """Fill depth ``d``'s child list (:mod:`flipgames.kernels.dfpn`); return its length."""
    area, goals, own_goal, masks, magics, attacks = board
    acts, cw, cb, cbi, ca, cb2, fix, extra = bufs[:8]
    n = _generate(w, b, bi, player, area, goals, own_goal, masks, magics, attacks, acts[d])
    bufs[8][d, :n], bufs[9][d, :n] = 1, 1
    for i in range(n):
        w2, b2, bi2, _ = _apply(w, b, bi, player, acts[d, i], area)
        cw[d, i], cb[d, i], cbi[d, i] = w2, b2, bi2
        fix[d, i], extra[d, i] = 0, 0
        value, plies = _leaf(w2, b2, bi2, 1 - player, board, probe)
        if value != 2:
            # The child's side to move is the attacker's opponent when the mover attacks.
            won = (value == -1) == (player == attacker) and value != 0
            fix[d, i], extra[d, i] = (WON, plies) if won else (NOT_WON, 0)
            continue
        ka, kb = canonical(w2, b2, bi2, 1 - player, mirror)
        ca[d, i], cb2[d, i] = ka, kb
        j = on_path(d, ka, kb, popcount(w2 | b2), pk, pcount)
        if j >= 0:
            fix[d, i], extra[d, i] = REPEATED, j
        elif d + 1 >= MAX_DEPTH:
            fix[d, i], extra[d, i] = REPEATED, -1
    return n


@jit
def _search(w: int, b: int, bi: int, player: int, board: Tables, mirror: Mirror, probe: Probe,
            tt: Arrays, bufs: Arrays, frames: I64, pk: I64, pcount: I64,
            stats: I64) -> tuple[int, int, int, int]:  # fmt: skip
    """df-pn from a root (:func:`flipgames.kernels.dfpn.step`): the root's (phi, delta,
    plies to the win when proven, dep)."""
    ka, kb = canonical(w, b, bi, player, mirror)
    start(w, b, bi, player, ka, kb, frames, pk)
    d = 0
    while True:
        w, b, bi, player = frames[d, 0], frames[d, 1], frames[d, 2], frames[d, 3]
        enter(d, frames, stats)
        pcount[d] = popcount(w | b)
        frames[d, 7] = _expand(d, w, b, bi, player, board, mirror, probe, bufs, pk, pcount,
                               stats[4])  # fmt: skip
        while True:
            deeper, phi, delta, plies, dep = step(d, tt, bufs, frames, pk, stats)
            if deeper < 0:
                return phi, delta, plies, dep
            descended = deeper > d
            d = deeper
            if descended:
                break


class FlipFlopProofSearch(TableMethods):
    """The df-pn search of FlipFlop (either size) as :class:`flipgames.solvers.dfpn.
    ProofSearch` wants it, answering positions ``table`` covers from it (None: no tables).
    Positions are ``(white, black, bishops, side)``."""

    def __init__(self, game: FlipFlop, table: FlipFlopEndgameTable | None) -> None:
        size = game.size
        if table is not None and (table.name != game.name or table.area != size * size):
            raise ValueError(f"the {game.name} proof search cannot probe that endgame table")
        self.game, self.size, self.area = game, size, size * size
        self.board = Bitboard.of(size).args()
        self.mirror: Mirror = (size, mirror_rows(size))
        self.probe: Probe = NO_TABLES
        if table is not None:
            self.probe = (table.values, table.offsets, table.binom, table.max_pieces)
        self.buffers = new_buffers(MAX_MOVES)
        #: The attacker of the last search (whose question the table's numbers answer).
        self.attacker: int | None = None

    def root(self, key: int) -> Position:
        """The position of a reference ``State.key()``."""
        area, mask = self.area, (1 << self.area) - 1
        return key & mask, key >> area & mask, key >> 2 * area & mask, key >> 3 * area & 1

    def to_move(self, position: Position) -> int:
        return position[3]

    def key(self, position: Position) -> tuple[int, int]:
        """The canonical key (the same for a position and its mirror image)."""
        ka, kb = canonical(*position, self.mirror)
        return int(ka), int(kb)

    def run(
        self, position: Position, attacker: int, table: Table, stats: I64, budget: int
    ) -> tuple[int, int, int, int]:
        """Search "``attacker`` wins" from a live position until it is resolved or ``budget``
        more nodes are spent: (pn, dn, plies to the win when proven, dep) for the attacker;
        ``dep < 0`` means the disproof rests on the search's depth limit, not a fact."""
        self.attacker = attacker
        stats[1], stats[2], stats[4] = stats[0] + budget, 0, attacker
        path = np.zeros(2 * MAX_DEPTH, dtype=np.int64)
        counts = np.zeros(MAX_DEPTH, dtype=np.int64)
        bufs = self.buffers
        root = _search(*position, self.board, self.mirror, self.probe, table, bufs[:10],
                       bufs[10], path, counts, stats)  # fmt: skip
        return result(root, position[3], attacker)

    def children(self, position: Position) -> list[tuple[int, Position, bool]]:
        """(action number, child, whether the move ends the game: the other side has no
        legal move) per legal action, in action id order."""
        w, b, bi, player = position
        actions = np.zeros(MAX_MOVES, dtype=np.int64)
        area, goals, own_goal, masks, magics, attacks = self.board
        n = _generate(w, b, bi, player, area, goals, own_goal, masks, magics, attacks, actions)
        found = []
        for action in actions[:n]:
            w2, b2, bi2, captured = _apply(w, b, bi, player, int(action), area)
            child = (int(w2), int(b2), int(bi2), 1 - player)
            ends = _count(*child, goals, own_goal, masks, magics, attacks) == 0
            found.append((int(action) + (CAPTURE if captured else 0), child, bool(ends)))
        return found

    def entry(self, position: Position, table: Table) -> tuple[int, int, int] | None:
        """(pn, dn, plies) for the last search's attacker: from the endgame tables where they
        cover the position (a finished position too), else its table entry or None."""
        value, plies = _leaf(*position, self.board, self.probe)
        if value == 2 or self.attacker is None:
            return super().entry(position, table)
        if value != 0 and (value == 1) == (position[3] == self.attacker):
            return 0, INF, plies
        return INF, 0, 0

    def entries(self, table: Table) -> dict[str, npt.NDArray[np.int64]]:
        """The entries worth keeping, and the attacker they are for."""
        columns = super().entries(table)
        if self.attacker is not None:
            columns["attacker"] = np.array([self.attacker], dtype=np.int64)
        return columns

    def load(self, table: Table, columns: dict[str, npt.NDArray[np.int64]], stats: I64) -> None:
        if "attacker" in columns:
            self.attacker = int(columns["attacker"][0])
        super().load(table, columns, stats)

    def position_text(self, position: Position) -> str:
        """The position in FlipFlop's notation (:mod:`.position`)."""
        return self.game.state_at(*position).position()

    def action_text(self, action: int) -> str:
        origin, target = divmod(action % CAPTURE, self.area)
        return format_move(origin, target, action >= CAPTURE, self.size)


def tables_for(game: FlipFlop, pieces: int) -> FlipFlopEndgameTable | None:
    """Endgame tables of up to ``pieces`` pieces for ``game`` (fewer than 2: none), built
    here in memory (the solvers' disk cache of them is :mod:`flipgames.solvers.endgame`,
    which ``solve`` passes to :meth:`FlipFlop.proof_search`)."""
    if pieces < 2:
        return None
    from flipgames.games.flipflop.endgame import build_tables
    from flipgames.games.flipflop.geometry import Geometry

    geometry = Geometry.of(game.size)
    return FlipFlopEndgameTable(game.name, geometry, build_tables(geometry, pieces))
