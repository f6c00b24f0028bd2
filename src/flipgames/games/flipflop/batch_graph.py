"""FlipFlop 3x3's whole position graph built with numpy alone, one breadth-first layer at a
time: what the exact solvers take, because it needs no compiled code.

The compiled kernel (:mod:`.kernel`) enumerates the same graph in numba, but a process that
has not loaded numba pays about 0.4 s to import it and 0.5 s to load the kernel's cached
machine code, ten times the enumeration itself; ``flipgames solve flipflop-3x3`` with an empty
result cache should take less than half a second in all. This module imports numpy and the
board geometry only, and produces the kernel's graph exactly: the same node keys (the
smaller of a position's reference key and its left-right mirror image's), the same node
numbers (breadth first, children numbered in the order the kernel generates the moves), the
same edges and terminal values. ``tests/flipflop/test_batch_graph.py`` checks that against
both the kernel and the reference engine.

How a layer is expanded, with no Python per position: every position of a breadth-first
layer has the same side to move (each move hands the turn over), so the legal targets of a
piece depend only on its square, its face, which squares are occupied and whether an enemy
piece stands on each of the two goals (that decides captures and check). A table built once
holds, for every such combination, the piece's targets in the kernel's order (increasing
square, as the bitboard kernel lists them); a layer is a few array lookups into it. New
positions are numbered in the order they first appear, which is the kernel's first-in
first-out order.

>>> from flipgames import make
>>> game = make("flipflop-3x3")
>>> graph = game.graph_builder().graph()
>>> graph.nodes, graph.edges, graph.symmetries
(107439, 303523, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.game import TERMINAL
from flipgames.core.kernel import PositionGraph
from flipgames.core.progress import Progress, silent
from flipgames.games.flipflop.geometry import Geometry

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.flipflop.rules import FlipFlop3x3

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]


def board_tables(size: int) -> tuple[I32, I32]:
    """Per board (a bitboard of ``size * size`` squares, every one of them): its left-right
    mirror image (files a <-> c on 3x3; both goals sit on the middle file, so the rules do
    not change), and the sum of ``5**sq`` over its squares (see :func:`dense_index`)."""
    area = size * size
    boards = np.arange(1 << area, dtype=np.int32)
    squares = np.arange(area, dtype=np.int32)
    bits = (boards[:, None] >> squares) & 1
    flipped = squares // size * size + size - 1 - squares % size
    mirror = (bits << flipped).sum(axis=1, dtype=np.int32)
    place = (bits * 5**squares).sum(axis=1, dtype=np.int32)
    return mirror, place


def canonical(keys: I32, area: int, mirror: I32) -> I32:
    """The smaller of each key and its mirror image's (the side to move stays)."""
    mask = (1 << area) - 1
    reflected = keys >> (3 * area) << (3 * area)
    for part in range(3):
        reflected |= mirror[(keys >> (part * area)) & mask] << (part * area)
    smaller: I32 = np.minimum(keys, reflected)
    return smaller


def dense_index(keys: I32, area: int, place: I32) -> I32:
    """A small dense number per key (as the kernel's ``_dense_index``): each square a base-5
    digit (0 empty, 1 White +, 2 White x, 3 Black +, 4 Black x), times two, plus the side to
    move. White adds 1 per square, Black 3 and a bishop face 1 more, so with ``place`` the
    number is three lookups."""
    mask = (1 << area) - 1
    code = place[keys & mask] + 3 * place[(keys >> area) & mask]
    code += place[(keys >> (2 * area)) & mask]
    index: I32 = code * 2 + (keys >> (3 * area))
    return index


#: A piece on 3x3 has at most four targets and a side at most three pieces: four signed
#: bytes, so one 32-bit word holds either list (a numpy gather of words is fast, and the
#: result viewed as bytes is the lists).
SLOTS = 4


@dataclass(frozen=True)
class MoveTable:
    """Every piece's legal targets by situation, in the kernel's order.

    ``targets[side, row]`` packs the target squares (padded with -1; ``SLOTS`` bytes) of a
    piece of ``side`` where ``row = ((square * 2 + face) << area | occupied) * 4 +
    enemy_on_goals`` (face 1 is the bishop face; bit ``g`` of ``enemy_on_goals``: an enemy
    piece on player ``g``'s goal). The extra last row, all -1, stands for "no piece"."""

    targets: I32
    #: ``pieces[board]`` packs the board's squares in increasing order, padded with -1.
    pieces: I32

    @classmethod
    def of(cls, geometry: Geometry) -> MoveTable:
        area, size = geometry.area, geometry.size
        goal0, goal1 = geometry.goals
        width = 2 * (size - 1)  # the most targets a piece can have
        assert width == size + 1 == SLOTS, "the packing is for 3x3"
        # Axes: side, square, face, occupied board, enemy on goals.
        side = np.arange(2).reshape(2, 1, 1, 1, 1)
        occupied = np.arange(1 << area).reshape(1, -1)
        enemy_on = np.arange(4).reshape(1, 1, 1, 1, 4)
        check = (enemy_on >> side) & 1 == 1
        goal = np.where(side == 0, goal0, goal1)
        shape = (2, area, 2, 1 << area, 4)
        # One column more than needed, where the moves that are not legal are written.
        targets = np.full((*shape, width + 1), -1, dtype=np.int8)
        count = np.zeros(shape, dtype=np.int8)
        for direction in range(4):
            open_ray = np.ones((area * 2, 1 << area), dtype=bool)
            for step in range(size - 1):
                target = geometry.rays[:, :, direction, step].reshape(-1, 1)
                exists = target >= 0
                square = np.where(exists, target, 0)
                taken = (occupied >> square) & 1 == 1
                reachable = (open_ray & exists).reshape(1, area, 2, -1, 1)
                square_5d = square.reshape(1, area, 2, 1, 1)
                capturable = ((square_5d == goal0) & (enemy_on & 1 == 1)) | (
                    (square_5d == goal1) & (enemy_on & 2 == 2)
                )
                # An empty square is a move unless in check; an occupied one ends the ray and
                # is a capture only of an enemy on a goal (in check: on one's own goal).
                legal = reachable & np.where(
                    taken.reshape(1, area, 2, -1, 1),
                    capturable & (~check | (square_5d == goal)),
                    ~check,
                )
                slot = np.where(legal, count, width)
                np.put_along_axis(
                    targets, slot[..., None], np.broadcast_to(square_5d, shape)[..., None], -1
                )
                count += legal
                open_ray &= exists & ~taken
        # The kernel lists a piece's targets by increasing square: sort each row (found
        # direction by direction), the -1 padding last.
        found = targets[..., :width]
        found = np.where(found < 0, np.int8(127), found)
        found.sort(axis=-1)
        rows = np.where(found == 127, np.int8(-1), found).reshape(2, -1, width)
        none = np.full((2, 1, width), -1, dtype=np.int8)
        packed = np.ascontiguousarray(np.concatenate([rows, none], axis=1))
        boards = np.arange(1 << area, dtype=np.int64)
        bits = (boards[:, None] >> np.arange(area)) & 1 == 1
        first = np.argsort(~bits, axis=1, kind="stable")[:, :SLOTS]
        present = np.arange(SLOTS) < bits.sum(axis=1, keepdims=True)
        pieces = np.ascontiguousarray(np.where(present, first, -1).astype(np.int8))
        return cls(packed.view(np.int32)[..., 0], pieces.view(np.int32)[:, 0])


class FlipFlop3x3Graph:
    """The numpy builder of FlipFlop 3x3's position graph (a
    :class:`~flipgames.core.kernel.GraphBuilder`); see the module docstring."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.geometry = Geometry.of(3)
        self.mirror, self.place = board_tables(3)

    @cached_property
    def _moves(self) -> MoveTable:
        return MoveTable.of(self.geometry)

    def _check_state(self, state: State) -> None:
        if state.game.name != self.name:
            raise ValueError(f"a {state.game.name} state given to the {self.name} graph")

    def encode(self, state: State) -> int:
        """The node key of a reference state: its key or its mirror image's, the smaller."""
        self._check_state(state)
        key = state.key()
        assert isinstance(key, int)
        area = self.geometry.area
        mask = (1 << area) - 1
        reflected = key >> (3 * area) << (3 * area)
        for part in range(3):
            reflected |= int(self.mirror[(key >> (part * area)) & mask]) << (part * area)
        return min(key, reflected)

    #: How many symmetries :meth:`encode` and :meth:`fold` fold over (the mirror).
    symmetries = 2

    def fold(self, state: State) -> int:
        """The key of ``state`` up to the mirror, a finished game included: :meth:`encode`
        (the graph keeps every finished position apart)."""
        return self.encode(state)

    def graph(self, progress: Progress = silent) -> PositionGraph:
        """Every position reachable from the start, folded over the mirror."""
        return self._graph(progress, fold=True)

    def unfolded_graph(self, progress: Progress = silent) -> PositionGraph:
        """The same enumeration without folding (keys are the reference keys)."""
        return self._graph(progress, fold=False)

    def _graph(self, progress: Progress, fold: bool) -> PositionGraph:
        progress("enumerating positions")
        g = self.geometry
        area, mask = g.area, (1 << g.area) - 1
        goal0, goal1 = g.goals
        moves, mirror, place = self._moves, self.mirror, self.place
        no_piece = moves.targets.shape[1] - 1
        bit = np.left_shift(1, np.arange(area, dtype=np.int32))
        white, black = g.start
        # Keys fit 3 * 9 + 1 bits: int32 arrays halve the memory traffic of a layer.
        start = np.array([white | black << area], dtype=np.int32)
        if fold:
            start = canonical(start, area, mirror)
        # Node number + 1 per dense index (0: not seen): zeroed memory is only touched
        # where positions land.
        seen = np.zeros(2 * 5**area, dtype=np.int32)
        seen[dense_index(start, area, place)] = 1
        layers, degrees, children = [start], [], []
        count, frontier, side = 1, start, 0
        while len(frontier):
            w, b = frontier & mask, (frontier >> area) & mask
            bishops = (frontier >> (2 * area)) & mask
            mine, enemy = (w, b) if side == 0 else (b, w)
            enemy_on = ((enemy >> goal0) & 1) | (((enemy >> goal1) & 1) << 1)
            # Per position its pieces' squares (a side has at most 3: the fourth byte is
            # padding), and per piece its SLOTS targets.
            pieces = moves.pieces[mine].view(np.int8).reshape(-1, SLOTS)
            squares = pieces[:, : g.size].astype(np.int32)
            face = (bishops[:, None] >> np.maximum(squares, 0)) & 1
            row = (((squares * 2 + face) << area | (w | b)[:, None]) << 2) | enemy_on[:, None]
            row = np.where(squares < 0, no_piece, row)
            targets = moves.targets[side][row].view(np.int8).ravel()
            found = np.flatnonzero(targets >= 0)
            parent = found // (g.size * SLOTS)
            origin_bit = bit[squares.ravel()[found // SLOTS]]
            target_bit = bit[targets[found]]
            moved = origin_bit | target_bit
            after_mine = mine[parent] ^ moved
            after_enemy = enemy[parent] & ~target_bit
            before = bishops[parent]
            # The moved piece lands showing its other face.
            after_bishops = (before & ~moved) | np.where(before & origin_bit, 0, target_bit)
            if side == 1:
                after_mine, after_enemy = after_enemy, after_mine
            keys = after_mine | after_enemy << area | after_bishops << (2 * area)
            keys |= (1 - side) << (3 * area)
            if fold:
                keys = canonical(keys, area, mirror)
            slots = dense_index(keys, area, place)
            unseen = seen[slots] == 0
            fresh = slots[unseen]
            # Number new positions in the order they first appear (the kernel's queue
            # order): each unseen slot first takes the smallest index it occurs at, as a
            # negative number, so the first occurrences are where that number is their own.
            order = np.arange(len(fresh), dtype=np.int32)
            np.minimum.at(seen, fresh, order - len(fresh))
            first = np.flatnonzero(seen[fresh] == order - len(fresh))
            seen[fresh[first]] = np.arange(count + 1, count + 1 + len(first), dtype=np.int32)
            frontier = keys[unseen][first]
            count += len(first)
            layers.append(frontier)
            degrees.append(np.bincount(parent, minlength=len(w)))
            children.append(seen[slots] - 1)
            side ^= 1
        keys = np.concatenate(layers).astype(np.int64)
        progress("enumerating positions", done=len(keys), total=len(keys))
        return _assemble(keys, np.concatenate(degrees), children, area, fold)


def _assemble(
    keys: npt.NDArray[np.int64],
    degree: npt.NDArray[np.int64],
    children: list[npt.NDArray[np.int32]],
    area: int,
    fold: bool,
) -> PositionGraph:
    """The graph of the enumerated ``keys`` (breadth first), each with ``degree`` children,
    the layers' child node numbers in ``children``."""
    edge_start = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(degree, out=edge_start[1:])
    edge_child = np.concatenate(children).astype(np.int32)
    lost = degree == 0
    mover = keys >> (3 * area)
    to_move = np.where(lost, TERMINAL, mover).astype(np.int8)
    # No legal move loses for the side to move.
    terminal_return = np.where(lost, np.where(mover == 0, -1, 1), 0).astype(np.int8)
    return PositionGraph(
        keys=keys,
        to_move=to_move,
        terminal_return=terminal_return,
        edge_start=edge_start,
        edge_child=edge_child,
        edge_weight=np.ones(len(edge_child), dtype=np.int64),
        symmetries=2 if fold else 1,
    )


@cache
def builder_for_game(game: FlipFlop3x3) -> FlipFlop3x3Graph:
    """The builder of ``game``, made once per process (its move table is built on first use)."""
    return FlipFlop3x3Graph(game.name)
