"""FlipFlop endgame tables: every position with few pieces solved by retrograde analysis.

A table of ``K`` pieces holds every position with ``n = 2..K`` pieces on the board, each side
at least one, both faces, either side to move (reachable or not), and for each the value for
the side to move and the distance to the end in plies under best play. ``n`` pieces make one
*layer*; a capture removes a piece, so a layer's moves either stay in it (plain moves) or
reach the layer below (captures), which is built first: the layers compose.

**Index.** A perfect (combinatorial) index per layer: the occupied squares as an ``n``-subset
of the board in colexicographic rank (:math:`\\sum_i \\binom{s_i}{i+1}` over the squares in
ascending order), then which of those ``n`` pieces are Black (an ``n``-bit pattern, all-White
and all-Black left out: ``2**n - 2`` patterns), which show the ``x`` face (``n`` bits), and the
side to move. On 5x5 that is 4,800 + 220,800 + 5,667,200 = 5,892,800 positions for ``K = 4``
(one ``int16`` each: 11.8 MB) and 102,009,600 more for the fifth piece.

**Values.** ``table[i]`` is the distance in plies to the end with best play, or ``-1`` for a
draw. The only way a game ends inside a table is a side without a legal move, which loses, so
an even distance is a loss for the side to move and an odd one a win (0: no legal move now).

**Retrograde analysis**, one layer at a time, with the bitboard kernel's move generation,
apply and attack lookups (:func:`~.bitboard._generate`, :func:`~.bitboard._apply`,
:func:`~.bitboard._reach`) and no Python per position:

1. every position's legal moves are counted; a position without one is lost at distance 0;
   a capture's child is looked up in the layer below (a capture of the last enemy piece is a
   child lost at distance 0), and becomes an *event* at the child's distance;
2. distances are then settled in increasing order ``d = 0, 1, 2, ...``: every position lost
   at ``d`` makes each of its unsettled predecessors won at ``d + 1`` (their quickest win),
   every position won at ``d`` takes one from each predecessor's count of unsettled children,
   and a predecessor whose count reaches 0 has only winning replies, the longest at ``d``: it
   is lost at ``d + 1`` (the loser's longest resistance). Events at ``d`` count as children
   settled at ``d``. Predecessors come from un-moving a piece of the side that just moved:
   back along the rays of its other face (it flipped when it moved) to any empty square,
   never over a piece, and only when that side was not in check (then it could only have
   captured);
3. whatever is unsettled when no distance is left has a way to avoid losing forever, so it
   is a draw (the third repetition ends such a game).

The tests check the tables against the reference rules engine position by position and
confirm short wins by a plain minimax (``tests/solvers/test_endgame.py``).

>>> from flipgames import make
>>> kernel = make("flipflop").kernel()
>>> layers = kernel.build_endgame(3)
>>> [len(layer) for layer in layers]
[4800, 220800]
>>> table = kernel.endgame_table(layers)
>>> state = make("flipflop").new_initial_state()
>>> table.covers(state), table.value(state) is None
(False, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.endgame import EndgameValue
from flipgames.core.progress import Progress, silent
from flipgames.games.flipflop.bitboard import (
    MAX_MOVES,
    Bitboard,
    _apply,
    _generate,
    _reach,
)
from flipgames.kernels.jit import grow, jit, trailing_zeros

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.flipflop.geometry import Geometry

I64 = npt.NDArray[np.int64]
I16 = npt.NDArray[np.int16]
#: The bitboard's tables (:meth:`.Bitboard.args`): area, both goals' mask, each side's own
#: goal's mask, the attack lookups' masks, multipliers and attacks.
Tables = tuple[int, int, I64, I64, I64, I64]

#: The value of a drawn (or, while building, not yet settled) position.
DRAW = -1
#: Distances are stored as int16.
_MAX_DISTANCE = np.iinfo(np.int16).max - 1
#: Positions classified per compiled call, so that a long build can report progress.
_CHUNK = 1 << 20


def layer_size(area: int, pieces: int) -> int:
    """Positions with ``pieces`` pieces (each side at least one) on ``area`` squares.

    >>> layer_size(25, 2), layer_size(25, 4), layer_size(25, 5)
    (4800, 5667200, 102009600)
    """
    return comb(area, pieces) * ((1 << pieces) - 2) * (1 << pieces) * 2


def binomials(area: int, pieces: int) -> I64:
    """``binomials[s, k] = C(s, k)`` for ``s <= area``, ``k <= pieces`` (the colex ranks)."""
    return np.array(
        [[comb(s, k) for k in range(pieces + 1)] for s in range(area + 1)], dtype=np.int64
    )


@jit
def _index(white: int, black: int, bishops: int, side: int, n: int, binom: I64, area: int) -> int:
    """The position's number in the layer of its ``n`` pieces (see the module docstring)."""
    occupied = white | black
    rank = colour = faces = 0
    i = 0
    for sq in range(area):
        if (occupied >> sq) & 1:
            rank += binom[sq, i + 1]
            colour |= ((black >> sq) & 1) << i
            faces |= ((bishops >> sq) & 1) << i
            i += 1
    patterns = (1 << n) - 2
    return int(((rank * patterns + colour - 1) * (1 << n) + faces) * 2 + side)


@jit
def _position(index: int, n: int, binom: I64, area: int) -> tuple[int, int, int, int]:
    """The ``(white, black, bishops, side)`` numbered ``index`` in the layer of ``n`` pieces."""
    side = index & 1
    index >>= 1
    faces = index % (1 << n)
    index //= 1 << n
    patterns = (1 << n) - 2
    colour = index % patterns + 1
    rank = index // patterns
    white = black = bishops = 0
    sq = area - 1
    for i in range(n - 1, -1, -1):
        while binom[sq, i + 1] > rank:
            sq -= 1
        rank -= binom[sq, i + 1]
        bit = 1 << sq
        if (colour >> i) & 1:
            black |= bit
        else:
            white |= bit
        if (faces >> i) & 1:
            bishops |= bit
        sq -= 1
    return white, black, bishops, side


@jit
def _classify(
    start: int, stop: int, n: int, lower: I16, table: I16, count: npt.NDArray[np.uint8],
    tables: Tables, binom: I64,
) -> tuple[I64, I64, I64]:  # fmt: skip
    """Step 1 for positions ``start..stop-1`` of layer ``n``: count the legal moves, settle the
    positions without one (lost at 0), and list the captures' children as events. Returns
    the lost positions, and the events' distances and positions."""
    area, goals, own_goal, masks, magics, attacks = tables
    lost = np.empty(64, dtype=np.int64)
    event_distance = np.empty(64, dtype=np.int64)
    event_position = np.empty(64, dtype=np.int64)
    n_lost = n_events = 0
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    for index in range(start, stop):
        white, black, bishops, side = _position(index, n, binom, area)
        moving = _generate(
            white, black, bishops, side, area, goals, own_goal, masks, magics, attacks, moves
        )
        if moving == 0:
            table[index] = 0
            lost = grow(lost, n_lost + 1)
            lost[n_lost] = index
            n_lost += 1
            continue
        count[index] = moving
        occupied = white | black
        for i in range(moving):
            if not (occupied >> (moves[i] % area)) & 1:
                continue
            w, b, bi, _ = _apply(white, black, bishops, side, moves[i], area)
            # The side that was captured moves next; with no piece left it has lost.
            distance = 0
            if (b if side == 0 else w) != 0:
                distance = lower[_index(w, b, bi, 1 - side, n - 1, binom, area)]
            if distance == DRAW:
                continue  # a drawn child: the count never reaches 0, no event needed
            event_distance = grow(event_distance, n_events + 1)
            event_position = grow(event_position, n_events + 1)
            event_distance[n_events] = distance
            event_position[n_events] = index
            n_events += 1
    return lost[:n_lost], event_distance[:n_events], event_position[:n_events]


@jit
def _settle_parent(
    parent: int, distance: int, table: I16, count: npt.NDArray[np.uint8], out: I64, n_out: int
) -> tuple[I64, int]:
    """A child of ``parent`` was settled at ``distance``: a lost child makes it won at
    ``distance + 1``; a won one makes it lost at ``distance + 1`` if it was its last
    unsettled child. Settled parents are appended to ``out``."""
    if table[parent] != DRAW:
        return out, n_out
    if distance % 2 == 0:
        table[parent] = distance + 1
    else:
        count[parent] -= 1
        if count[parent] != 0:
            return out, n_out
        table[parent] = distance + 1
    out = grow(out, n_out + 1)
    out[n_out] = parent
    return out, n_out + 1


@jit
def _sweep(
    distance: int, settled: I64, events: I64, n: int, table: I16, count: npt.NDArray[np.uint8],
    tables: Tables, binom: I64,
) -> I64:  # fmt: skip
    """Step 2 for one distance: the positions ``settled`` at ``distance`` and the capture
    ``events`` at it settle their predecessors; returns those settled at ``distance + 1``."""
    area, _, own_goal, masks, magics, attacks = tables
    out = np.empty(64, dtype=np.int64)
    n_out = 0
    for k in range(len(events)):
        out, n_out = _settle_parent(events[k], distance, table, count, out, n_out)
    for k in range(len(settled)):
        white, black, bishops, side = _position(settled[k], n, binom, area)
        mover = 1 - side
        mine = black if mover else white
        theirs = white if mover else black
        # In check (their piece on the mover's goal) the mover could only have captured.
        if theirs & own_goal[mover]:
            continue
        occupied = white | black
        rest = mine
        while rest:
            target = trailing_zeros(rest)
            rest &= rest - 1
            # The piece flipped as it moved: it came along the rays of its other face, from
            # any empty square short of the first piece.
            flipped = bishops ^ (1 << target)
            face = (flipped >> target) & 1
            origins = _reach(occupied, flipped, target, masks, magics, attacks) & ~occupied
            while origins:
                origin = trailing_zeros(origins)
                origins &= origins - 1
                moved = (1 << target) | (1 << origin)
                faces = (bishops & ~(1 << target)) | (face << origin)
                if mover == 0:
                    parent = _index(white ^ moved, black, faces, 0, n, binom, area)
                else:
                    parent = _index(white, black ^ moved, faces, 1, n, binom, area)
                out, n_out = _settle_parent(parent, distance, table, count, out, n_out)
    return out[:n_out]


def build_layer(geometry: Geometry, n: int, lower: I16, progress: Progress = silent) -> I16:
    """The table of the positions with ``n`` pieces, given the one of ``n - 1`` (any array
    for ``n == 2``: every capture there takes a side's last piece)."""
    area = geometry.area
    size = layer_size(area, n)
    binom = binomials(area, n)
    tables = Bitboard.of(geometry.size).args()
    table = np.full(size, DRAW, dtype=np.int16)
    count = np.zeros(size, dtype=np.uint8)
    lost, distances, positions = [], [], []
    what = f"endgame tables: {n} pieces"
    for start in range(0, size, _CHUNK):
        stop = min(size, start + _CHUNK)
        chunk = _classify(start, stop, n, lower, table, count, tables, binom)
        lost.append(chunk[0])
        distances.append(chunk[1])
        positions.append(chunk[2])
        progress(f"{what}, moves", done=stop, total=size)
    event_distance = np.concatenate(distances)
    order = np.argsort(event_distance, kind="stable")
    event_distance, event_position = event_distance[order], np.concatenate(positions)[order]
    last_event = int(event_distance[-1]) if len(event_distance) else -1
    settled = np.concatenate(lost)
    done, distance = len(settled), 0
    while len(settled) or distance <= last_event:
        if distance >= _MAX_DISTANCE:
            raise OverflowError(f"{what}: a distance beyond {_MAX_DISTANCE} plies")
        first, last = np.searchsorted(event_distance, [distance, distance + 1])
        events = event_position[first:last]
        settled = _sweep(distance, settled, events, n, table, count, tables, binom)
        done += len(settled)
        distance += 1
        progress(f"{what}, distance {distance}", done=done, total=size)
    return table


def build_tables(
    geometry: Geometry, max_pieces: int, progress: Progress = silent, known: Sequence[I16] = ()
) -> list[I16]:
    """The tables of 2..``max_pieces`` pieces, smallest first; ``known`` are the first
    layers, already built (those of a smaller table), kept as they are."""
    if not 2 <= max_pieces <= 2 * geometry.size:
        raise ValueError(f"an endgame table needs 2..{2 * geometry.size} pieces, not {max_pieces}")
    layers: list[I16] = list(known[: max_pieces - 1])
    lower = layers[-1] if layers else np.zeros(0, dtype=np.int16)
    for n in range(2 + len(layers), max_pieces + 1):
        lower = build_layer(geometry, n, lower, progress)
        layers.append(lower)
    return layers


class FlipFlopEndgameTable:
    """A probe over built tables (see the module docstring); implements
    :class:`~flipgames.core.endgame.EndgameTable`."""

    def __init__(self, name: str, geometry: Geometry, layers: Sequence[I16]) -> None:
        area = geometry.area
        if not layers:
            raise ValueError("an endgame table needs at least the 2-piece layer")
        for n, layer in enumerate(layers, start=2):
            if layer.dtype != np.int16 or layer.shape != (layer_size(area, n),):
                raise ValueError(
                    f"the {n}-piece layer of a {name} endgame table must hold "
                    f"{layer_size(area, n):,} int16 values"
                )
        self.name = name
        self.area = area
        self.max_pieces = len(layers) + 1
        self.binom = binomials(area, self.max_pieces)
        # One array for all layers (a compiled search probes it: numba takes arrays, not
        # lists), each layer a view of it; ``offsets[n]`` is where the n-piece layer starts.
        self.values: I16 = np.concatenate(layers)
        sizes = [0, 0, *(len(layer) for layer in layers)]
        self.offsets: I64 = np.cumsum([0, *sizes[:-1]], dtype=np.int64)
        self.layers = [
            self.values[self.offsets[n] : self.offsets[n] + sizes[n]]
            for n in range(2, self.max_pieces + 1)
        ]

    @property
    def positions(self) -> int:
        return sum(len(layer) for layer in self.layers)

    def _unpack(self, state: State) -> tuple[int, int, int, int]:
        if state.game.name != self.name:
            raise ValueError(f"a {state.game.name} state given to the {self.name} endgame table")
        key = state.key()
        assert isinstance(key, int)
        mask = (1 << self.area) - 1
        return (
            key & mask,
            key >> self.area & mask,
            key >> 2 * self.area & mask,
            key >> 3 * self.area,
        )

    def covers(self, state: State) -> bool:
        white, black, _, _ = self._unpack(state)
        return white != 0 and black != 0 and (white | black).bit_count() <= self.max_pieces

    def distance(self, white: int, black: int, bishops: int, side: int) -> int:
        """The stored distance of a covered position (``DRAW`` for a draw)."""
        n = (white | black).bit_count()
        index = _index(white, black, bishops, side, n, self.binom, self.area)
        return int(self.layers[n - 2][index])

    def value(self, state: State) -> EndgameValue | None:
        if not self.covers(state):
            return None
        distance = self.distance(*self._unpack(state))
        if distance == DRAW:
            return EndgameValue(0, None)
        return EndgameValue(1 if distance % 2 else -1, distance)
