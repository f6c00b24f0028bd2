"""FlipFlop's compiled kernel (5x5 and 3x3, one implementation parameterised by size).

The same rules as :mod:`.rules` over plain ``int64`` bitboards (bit ``sq`` for square ``sq``,
``a1 = 0``, rank-major, as there), compiled by numba: every path runs on the bitboard kernel
with precomputed attacks (:mod:`.bitboard`): playouts, perft and replays here, the 3x3
enumeration below, and the kernel's MCTS, alpha-beta, batch of environments and endgame
tables (:mod:`.mcts_kernel`, :mod:`.search_kernel`, :mod:`.vector_kernel`, :mod:`.endgame`).
A whole enumeration is one call into machine code, so Python runs once per batch, never once
per ply. The tests in ``tests/kernels/`` check it against the reference engine ply by ply.

A position is ``(white, black, bishops, side)`` as in the reference key
(``white | black << A | bishops << 2A | side << 3A`` for ``A = N*N``); action ids are the
reference's (``origin * A + target``).

Random playouts follow the rules to the end: checkmate or no legal move loses, and the third
occurrence of a position (pieces, faces, side to move) draws, counted since the last capture
as the reference does (a capture can never be undone). A game still running after
``max_plies`` plies is stopped (return 0, counted in ``capped``).

>>> from flipgames import make
>>> kernel = make("flipflop-3x3").kernel()
>>> kernel.perft(make("flipflop-3x3").new_initial_state(), 5)
336
>>> batch = kernel.playouts(1000, seed=1)
>>> len(batch.returns), set(batch.returns.tolist()) <= {-1, 0, 1}
(1000, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.game import TERMINAL
from flipgames.core.kernel import PlayoutBatch, PositionGraph, Replay
from flipgames.core.progress import Progress, silent
from flipgames.games.flipflop.batch_graph import board_tables
from flipgames.games.flipflop.bitboard import MAX_MOVES, Bitboard, _apply, _generate
from flipgames.games.flipflop.geometry import Geometry
from flipgames.kernels.jit import grow, jit
from flipgames.kernels.parts import HasMCTS, HasSearcher, HasVector

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.flipflop.endgame import FlipFlopEndgameTable
    from flipgames.games.flipflop.rules import FlipFlop

I64 = npt.NDArray[np.int64]
I16 = npt.NDArray[np.int16]

# --- compiled core ----------------------------------------------------------------------------


@jit
def _canonical(key: int, area: int, mirror: I64, fold: bool) -> int:
    """``key``, or its left-right mirror image when that is smaller and ``fold`` is set
    (``mirror[board]``: every board's mirror image)."""
    if not fold:
        return key
    mask = (1 << area) - 1
    reflected = key >> (3 * area) << (3 * area)
    for part in range(3):
        reflected |= mirror[(key >> (part * area)) & mask] << (part * area)
    return min(key, reflected)


@jit
def _dense_index(key: int, area: int, place: I64) -> int:
    """A small dense number for ``key``: each square a base-5 digit (0 empty, 1 White +,
    2 White x, 3 Black +, 4 Black x), times two for the side to move. The digits add up
    (White 1, Black 3, bishop face 1 more), so with ``place[board]`` the sum of the place
    values ``5**sq`` of a board's squares the number is three lookups."""
    mask = (1 << area) - 1
    white, black = place[key & mask], place[(key >> area) & mask]
    code: int = white + 3 * black + place[(key >> (2 * area)) & mask]
    return code * 2 + ((key >> (3 * area)) & 1)


@jit
def _enumerate(
    start: int,
    tables: tuple[int, int, I64, I64, I64, I64],
    mirror: I64,
    place: I64,
    fold: bool,
) -> tuple[I64, I64, I64, I64]:
    """Breadth-first, every position reachable from ``start`` (canonical keys when
    ``fold``): keys, status (side to move, or -1 for no legal move), edge starts, edge
    children (in increasing action id, :func:`.bitboard._generate`'s order, which the numpy
    builder :mod:`.batch_graph` follows)."""
    area, goals, own_goal, masks, magics, attacks = tables
    index = np.full(2 * 5**area, -1, dtype=np.int32)
    keys = np.empty(1024, dtype=np.int64)
    status = np.empty(1024, dtype=np.int64)
    edge_start = np.empty(1025, dtype=np.int64)
    children = np.empty(4096, dtype=np.int64)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    start = _canonical(start, area, mirror, fold)
    keys[0] = start
    index[_dense_index(start, area, place)] = 0
    count, edges, node = 1, 0, 0
    mask = (1 << area) - 1
    while node < count:
        key = keys[node]
        white, black = key & mask, (key >> area) & mask
        bishops, side = (key >> (2 * area)) & mask, key >> (3 * area)
        n = _generate(
            white, black, bishops, side, area, goals, own_goal, masks, magics, attacks, moves
        )
        status[node] = side if n else -1
        edge_start[node] = edges
        children = grow(children, edges + n)
        for i in range(n):
            w, b, bi, _ = _apply(white, black, bishops, side, moves[i], area)
            child = w | (b << area) | (bi << (2 * area)) | ((1 - side) << (3 * area))
            child = _canonical(child, area, mirror, fold)
            slot = _dense_index(child, area, place)
            if index[slot] < 0:
                keys = grow(keys, count + 1)
                status = grow(status, count + 1)
                edge_start = grow(edge_start, count + 2)
                keys[count] = child
                index[slot] = count
                count += 1
            children[edges] = index[slot]
            edges += 1
        node += 1
    edge_start[count] = edges
    return keys[:count], status[:count], edge_start[: count + 1], children[:edges]


# --- the kernel -------------------------------------------------------------------------------


class FlipFlopKernel(HasMCTS, HasSearcher, HasVector):
    """The compiled FlipFlop of one size; see the module docstring. Its MCTS, alpha-beta and
    batch are in :mod:`.mcts_kernel`, :mod:`.search_kernel` and :mod:`.vector_kernel`."""

    mcts_class = "FlipFlopMCTS"
    searcher_class = "FlipFlopSearcher"
    vector_class = "FlipFlopBatch"

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.geometry = Geometry.of(size)

    def unpack(self, key: int) -> tuple[int, int, int, int]:
        """``(white, black, bishops, side)`` of a reference ``State.key()``."""
        area = self.geometry.area
        mask = (1 << area) - 1
        return key & mask, key >> area & mask, key >> 2 * area & mask, key >> 3 * area

    def playouts(self, n: int, seed: int, max_plies: int = 200) -> PlayoutBatch:
        """``n`` uniformly random games from the start, seeded."""
        return self.traced_playouts(n, seed, max_plies, record=0)[0]

    def traced_playouts(
        self, n: int, seed: int, max_plies: int = 200, record: int | None = None
    ) -> tuple[PlayoutBatch, I64]:
        """:meth:`playouts` (the same games for the same seed), plus the actions of the first
        ``record`` games (default all), one row each, padded with -1."""
        return Bitboard.of(self.geometry.size).traced_playouts(n, seed, max_plies, record)

    def replay(self, actions: list[int]) -> Replay:
        """Play ``actions`` from the start in the compiled loop, recording every position's
        legal actions (increasing) and status: the differential tests' entry for the move
        generator every path builds on. Stops where the game ends or at the first action the
        kernel finds illegal (then fewer actions come back than were given)."""
        return Bitboard.of(self.geometry.size).replay(actions)

    def perft(self, state: State, depth: int) -> int:
        """perft from a reference state (repetition ignored, as the ruling defines it)."""
        self.check_state(state)
        return Bitboard.of(self.geometry.size).perft(state, depth)


class FlipFlop3x3Kernel(FlipFlopKernel):
    """The 3x3 kernel, which also enumerates the whole game. The exact solvers take the same
    graph from the numpy builder (:mod:`.batch_graph`, which needs no numba loaded; the
    tests check that the two agree array for array).

    The graph is folded over the left-right mirror (``symmetries == 2``): a position and its
    mirror image (files a <-> c; both goals sit on file b, so the rules do not change) are one
    node, keyed by the smaller of their two reference keys. Colour swap is not folded: it
    would map a White-to-move node onto a Black-to-move one and negate its value, which a
    :class:`~flipgames.core.kernel.PositionGraph` cannot express. Each node has one edge per
    legal action (two actions reaching mirror-image children give two edges to one node).

    >>> from flipgames import make
    >>> game = make("flipflop-3x3")
    >>> graph = game.kernel().graph()
    >>> graph.symmetries, int(graph.keys[0]) == game.kernel().encode(game.new_initial_state())
    (2, True)
    """

    def __init__(self, name: str, size: int) -> None:
        super().__init__(name, size)
        mirror, place = board_tables(size)
        #: ``mirror[board]``: the board reflected left-right (files a <-> c).
        self.mirror = mirror.astype(np.int64)
        #: ``place[board]``: the sum of ``5**sq`` over the board's squares.
        self.place = place.astype(np.int64)

    def encode(self, state: State) -> int:
        """The node key of a reference state: its key or its mirror image's, the smaller."""
        self.check_state(state)
        key = state.key()
        assert isinstance(key, int)
        return int(_canonical(key, self.geometry.area, self.mirror, True))

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
        white, black = self.geometry.start
        area = self.geometry.area
        keys, status, edge_start, children = _enumerate(
            white | black << area,
            Bitboard.of(self.geometry.size).args(),
            self.mirror,
            self.place,
            fold,
        )
        progress("enumerating positions", done=len(keys), total=len(keys))
        lost = status < 0
        to_move = np.where(lost, TERMINAL, status).astype(np.int8)
        # No legal move loses for the side to move (keys carry it in bit 3A).
        mover_is_white = (keys >> 3 * area) == 0
        terminal_return = np.where(lost, np.where(mover_is_white, -1, 1), 0).astype(np.int8)
        return PositionGraph(
            keys=keys,
            to_move=to_move,
            terminal_return=terminal_return,
            edge_start=edge_start,
            edge_child=children.astype(np.int32),
            edge_weight=np.ones(len(children), dtype=np.int64),
            symmetries=2 if fold else 1,
        )


class FlipFlop5x5Kernel(FlipFlopKernel):
    """The 5x5 kernel, which also builds endgame tables (:mod:`.endgame`; the capability
    :class:`~flipgames.core.endgame.EndgameKernel`): ``hard`` plays positions with at most
    :attr:`endgame_pieces` pieces from them."""

    #: 4 pieces: 5.9 M positions, built in seconds; 5 would add 102 M (docs/solvers.md).
    endgame_pieces = 4

    def covers(self, state: State, max_pieces: int) -> bool:
        self.check_state(state)
        key = state.key()
        assert isinstance(key, int)
        white, black, _, _ = self.unpack(key)
        return white != 0 and black != 0 and (white | black).bit_count() <= max_pieces

    def build_endgame(
        self, max_pieces: int, progress: Progress = silent, known: Sequence[I16] = ()
    ) -> list[I16]:
        from flipgames.games.flipflop.endgame import build_tables

        return build_tables(self.geometry, max_pieces, progress, known)

    def table_bytes(self, max_pieces: int) -> int:
        from flipgames.games.flipflop.endgame import layer_size

        area = self.geometry.area
        return sum(2 * layer_size(area, n) for n in range(2, max_pieces + 1))

    def endgame_table(self, layers: Sequence[I16]) -> FlipFlopEndgameTable:
        from flipgames.games.flipflop.endgame import FlipFlopEndgameTable

        return FlipFlopEndgameTable(self.name, self.geometry, layers)


@cache
def kernel_for_game(game: FlipFlop) -> FlipFlopKernel:
    """The kernel of ``game`` (FlipFlop of either size), built once per process."""
    if game.size == 3:
        return FlipFlop3x3Kernel(game.name, game.size)
    return FlipFlop5x5Kernel(game.name, game.size)
