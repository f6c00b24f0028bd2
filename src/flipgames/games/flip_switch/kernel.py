"""The compiled (numba) kernel of Flip Switch: the rules of :mod:`.rules` over packed integers.

It covers the published game: a 3x3 board, 3 shapes, 3 copies of each, with every ``lines``,
``no_move`` and ``rounds`` option. A position packs into one 64-bit integer, the same fields as
the reference's ``State.key()`` and nothing else (a face-down tile has no shape anywhere, as
in the reference: each flip's shape is a chance outcome drawn from the shapes not yet
revealed):

==========  ======  ========================================================================
bits        field   meaning
==========  ======  ========================================================================
0-17        tiles   2 bits per square (``a1`` first): 0 face down, ``1 + shape`` face up
18-23       owners  2 bits per shape: 0 not nullified, ``1 + player`` credited to player
24-27       last    0, or ``1 + pair`` for the switch made in the immediately preceding turn
28          mover   the player to move (at a chance node: whose flip is being revealed)
29-32       flip    0, or ``1 + square`` at a chance node (the square being flipped)
33-34       over    0 while the round goes on; a finished round is keyed by its result alone:
                    1 player 0 won, 2 player 1 won, 3 drawn
==========  ======  ========================================================================

Action ids, their order and the chance weights are the reference's (:mod:`.notation`), so
the differential tests compare them id for id. Python calls in once per batch:
:meth:`FlipSwitchKernel.playouts` plays whole games (repetition draws and every round
included) and :meth:`FlipSwitchKernel.graph` enumerates one round's positions, folded over
the 48 symmetries that keep the game the same: the 8 symmetries of the square (both line sets
are symmetric) times the 6 relabellings of the shapes (each has 3 copies). The solvers read
that graph; :meth:`FlipSwitchKernel.encode` maps a reference state onto its node.

>>> from flipgames import make
>>> kernel = FlipSwitchKernel(make("flip-switch"))
>>> batch = kernel.playouts(50, seed=1)
>>> len(batch.returns), int(batch.lengths.min()) >= 5
(50, True)
>>> kernel.encode(make("flip-switch").new_initial_state())
0
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import CHANCE, TERMINAL
from flipgames.core.kernel import PlayoutBatch, PositionGraph
from flipgames.core.progress import Progress, silent
from flipgames.games.flip_switch.notation import FACE_DOWN, NO_SWITCH, UNCLAIMED, orthogonal_pairs
from flipgames.kernels.graphs import Expansion, build_graph
from flipgames.kernels.jit import seeded
from flipgames.kernels.parts import HasMCTS, HasVector
from flipgames.kernels.sampling import uniform, weighted

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.flip_switch.rules import FlipSwitch, FlipSwitchState

SIZE: Final = 3
SQUARES: Final = 9
SHAPES: Final = 3
COPIES: Final = 3
PAIRS: Final = 12
SWITCH_BASE: Final = SQUARES
PASS_ID: Final = SWITCH_BASE + PAIRS
OUTCOME_BASE: Final = PASS_ID + 1
#: Shapes a player needs to win the round (a majority of 3).
TARGET: Final = 2
#: The most actions a position has: 9 flips, or up to 12 switches, or a pass.
MAX_ACTIONS: Final = 16

OWNERS_SHIFT: Final = 18
LAST_SHIFT: Final = 24
MOVER_SHIFT: Final = 28
FLIP_SHIFT: Final = 29
OVER_SHIFT: Final = 33
#: ``over`` codes: who won a finished round (by player), or a drawn one.
OVER_DRAWN: Final = 3


class PerftUnsupportedError(FlipgamesError, ValueError):
    """perft asked of this chance game's kernel (the kernel's twin of
    :class:`flipgames.solvers.perft.PerftUnsupportedError`: games import only ``core``)."""


#: ``step`` flags: the action was reversible (a switch or pass that scored nothing).
REVERSIBLE: Final = 1
#: ``flags >> LISTED_SHIFT``: how many legal actions of the new position ``_step`` left in its
#: ``scratch`` (it lists them to see whether the player to move has any), 0 when it listed
#: none (after a flip, or when the round ended): a caller needing them need not list again.
LISTED_SHIFT: Final = 1


@njit(cache=True)
def unpack(
    key: int, tiles: npt.NDArray[np.int64], owners: npt.NDArray[np.int64]
) -> tuple[int, int, int]:
    """Fill ``tiles`` (shape or -1) and ``owners`` (player or -1); return (last, mover, flip)
    with -1 for "none", as the reference's fields."""
    for s in range(SQUARES):
        tiles[s] = ((key >> (2 * s)) & 3) - 1
    for k in range(SHAPES):
        owners[k] = ((key >> (OWNERS_SHIFT + 2 * k)) & 3) - 1
    last = ((key >> LAST_SHIFT) & 15) - 1
    mover = (key >> MOVER_SHIFT) & 1
    flip = ((key >> FLIP_SHIFT) & 15) - 1
    return last, mover, flip


@njit(cache=True)
def pack(
    tiles: npt.NDArray[np.int64], owners: npt.NDArray[np.int64], last: int, mover: int, flip: int
) -> int:
    key = 0
    for s in range(SQUARES):
        key |= (tiles[s] + 1) << (2 * s)
    for k in range(SHAPES):
        key |= (owners[k] + 1) << (OWNERS_SHIFT + 2 * k)
    return key | ((last + 1) << LAST_SHIFT) | (mover << MOVER_SHIFT) | ((flip + 1) << FLIP_SHIFT)


@njit(cache=True)
def legal_actions(
    tiles: npt.NDArray[np.int64],
    owners: npt.NDArray[np.int64],
    last: int,
    pairs: npt.NDArray[np.int64],
    passing: bool,
    out: npt.NDArray[np.int64],
) -> int:
    """A player node's legal action ids into ``out``, ascending (the reference's order)."""
    n = 0
    for s in range(SQUARES):
        if tiles[s] < 0:
            out[n] = s
            n += 1
    for p in range(PAIRS):
        a = tiles[pairs[p, 0]]
        b = tiles[pairs[p, 1]]
        if a != b and a >= 0 and b >= 0 and (owners[a] < 0 or owners[b] < 0) and p != last:
            out[n] = SWITCH_BASE + p
            n += 1
    if n == 0 and passing:
        out[0] = PASS_ID
        n = 1
    return n


@njit(cache=True)
def chance_weights(tiles: npt.NDArray[np.int64], weights: npt.NDArray[np.int64]) -> int:
    """Per shape, how many of its tiles are still face down; returns their sum."""
    for k in range(SHAPES):
        weights[k] = COPIES
    for s in range(SQUARES):
        if tiles[s] >= 0:
            weights[tiles[s]] -= 1
    return int(weights[0] + weights[1] + weights[2])


@njit(cache=True)
def completed_shape(
    tiles: npt.NDArray[np.int64], owners: npt.NDArray[np.int64], square: int,
    lines: npt.NDArray[np.int64],
) -> int:  # fmt: skip
    """An unclaimed shape that some line through ``square`` shows on all three tiles, or -1."""
    for li in range(lines.shape[1]):
        a = lines[square, li, 0]
        if a < 0:
            break
        shape = tiles[a]
        if (
            shape >= 0
            and shape == tiles[lines[square, li, 1]]
            and shape == tiles[lines[square, li, 2]]
            and owners[shape] < 0
        ):
            return int(shape)
    return -1


@njit(cache=True)
def step(
    key: int,
    action: int,
    lines: npt.NDArray[np.int64],
    pairs: npt.NDArray[np.int64],
    passing: bool,
) -> tuple[int, int]:
    """The key after a legal ``action`` at ``key`` and a flag word (:data:`REVERSIBLE`,
    :data:`LISTED_SHIFT`).

    A finished round comes back as its ``over`` code alone (``code << OVER_SHIFT``). The
    repetition rule is the caller's: it needs the path, not the position.
    """
    tiles = np.empty(SQUARES, np.int64)
    owners = np.empty(SHAPES, np.int64)
    scratch = np.empty(MAX_ACTIONS, np.int64)
    return _step(key, action, lines, pairs, passing, tiles, owners, scratch)


@njit(cache=True)
def _step(
    key: int,
    action: int,
    lines: npt.NDArray[np.int64],
    pairs: npt.NDArray[np.int64],
    passing: bool,
    tiles: npt.NDArray[np.int64],
    owners: npt.NDArray[np.int64],
    scratch: npt.NDArray[np.int64],
) -> tuple[int, int]:
    """:func:`step` with the caller's scratch arrays (no allocation per call)."""
    _, mover, flip = unpack(key, tiles, owners)
    changed0 = -1
    changed1 = -1
    new_last = -1
    reversible = 0
    if flip >= 0:
        tiles[flip] = action - OUTCOME_BASE
        changed0 = flip
    elif action < SWITCH_BASE:
        return pack(tiles, owners, -1, mover, action), 0
    elif action == PASS_ID:
        reversible = REVERSIBLE
    else:
        p = action - SWITCH_BASE
        i = pairs[p, 0]
        j = pairs[p, 1]
        tiles[i], tiles[j] = tiles[j], tiles[i]
        changed0 = i
        changed1 = j
        new_last = p
        reversible = REVERSIBLE
    scored = 0
    for c in range(2):
        square = changed0 if c == 0 else changed1
        if square < 0:
            continue
        # Claiming a shape takes it out of the search, so each completed shape counts once.
        shape = completed_shape(tiles, owners, square, lines)
        while shape >= 0:
            owners[shape] = mover
            scored += 1
            shape = completed_shape(tiles, owners, square, lines)
    if scored:
        reversible = 0
        credited = 0
        for k in range(SHAPES):
            if owners[k] == mover:
                credited += 1
        if credited >= TARGET:
            return (mover + 1) << OVER_SHIFT, 0
    listed = legal_actions(tiles, owners, new_last, pairs, passing, scratch)
    if listed == 0:
        return OVER_DRAWN << OVER_SHIFT, 0
    return pack(tiles, owners, new_last, 1 - mover, -1), reversible | listed << LISTED_SHIFT


@njit(cache=True)
def _playouts(
    n: int,
    rng: npt.NDArray[np.uint64],
    max_plies: int,
    record: npt.NDArray[np.int64],
    rounds: int,
    lines: npt.NDArray[np.int64],
    pairs: npt.NDArray[np.int64],
    passing: bool,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32], int]:
    returns = np.zeros(n, np.int8)
    lengths = np.zeros(n, np.int32)
    capped = 0
    tiles = np.empty(SQUARES, np.int64)
    owners = np.empty(SHAPES, np.int64)
    weights = np.empty(SHAPES, np.int64)
    actions = np.empty(MAX_ACTIONS, np.int64)
    step_scratch = np.empty(MAX_ACTIONS, np.int64)
    # Keys since the last irreversible action, by reversible-ply count (the reference's rev).
    stretch = np.empty(max_plies + 1, np.int64)
    for g in range(n):
        wins0 = 0
        wins1 = 0
        played = 0
        key = played << MOVER_SHIFT  # round 1: everything face down, player 0 to move
        rev = 0
        stretch[0] = key
        plies = 0
        while played < rounds and plies < max_plies:
            last, _, flip = unpack(key, tiles, owners)
            if flip >= 0:
                chance_weights(tiles, weights)
                action = OUTCOME_BASE + weighted(rng, weights, SHAPES)
            else:
                count = legal_actions(tiles, owners, last, pairs, passing, actions)
                action = actions[uniform(rng, count)]
            if g < record.shape[0]:
                record[g, plies] = action
            key, flags = _step(key, action, lines, pairs, passing, tiles, owners, step_scratch)
            plies += 1
            over = key >> OVER_SHIFT
            if over == 0 and flip < 0 and action >= SWITCH_BASE:
                if flags & REVERSIBLE:
                    rev += 1
                    stretch[rev] = key
                    seen = 1
                    back = rev - 2
                    while back >= 0:
                        if stretch[back] == key:
                            seen += 1
                        back -= 2
                    if seen >= 3:
                        over = OVER_DRAWN
                else:
                    rev = 0
                    stretch[0] = key
            elif over == 0 and flip >= 0:
                rev = 0
                stretch[0] = key
            if over:
                if over == 1:
                    wins0 += 1
                elif over == 2:
                    wins1 += 1
                played += 1
                key = (played % 2) << MOVER_SHIFT
                rev = 0
                stretch[0] = key
        if played < rounds:
            capped += 1
        elif wins0 > wins1:
            returns[g] = 1
        elif wins1 > wins0:
            returns[g] = -1
        lengths[g] = plies
    return returns, lengths, capped


@njit(cache=True)
def canonical(
    key: int,
    square_maps: npt.NDArray[np.int64],
    pair_maps: npt.NDArray[np.int64],
    shape_maps: npt.NDArray[np.int64],
) -> int:
    """The smallest key among the position's images under the 48 symmetries."""
    scratch = np.empty((4, SQUARES), np.int64)
    return _canonical(key, square_maps, pair_maps, shape_maps, scratch)


@njit(cache=True)
def _canonical(
    key: int,
    square_maps: npt.NDArray[np.int64],
    pair_maps: npt.NDArray[np.int64],
    shape_maps: npt.NDArray[np.int64],
    scratch: npt.NDArray[np.int64],
) -> int:
    """:func:`canonical` with the caller's scratch rows (no allocation per call)."""
    if key >> OVER_SHIFT:
        return key
    tiles = scratch[0]
    owners = scratch[1]
    image = scratch[2]
    image_owners = scratch[3]
    last, mover, flip = unpack(key, tiles, owners)
    best = key
    for b in range(square_maps.shape[0]):
        for r in range(shape_maps.shape[0]):
            for s in range(SQUARES):
                t = tiles[s]
                image[square_maps[b, s]] = t if t < 0 else shape_maps[r, t]
            for k in range(SHAPES):
                image_owners[shape_maps[r, k]] = owners[k]
            candidate = pack(
                image,
                image_owners,
                -1 if last < 0 else pair_maps[b, last],
                mover,
                -1 if flip < 0 else square_maps[b, flip],
            )
            if candidate < best:
                best = candidate
    return best


@njit(cache=True)
def _expand(
    frontier: npt.NDArray[np.int64],
    lines: npt.NDArray[np.int64],
    pairs: npt.NDArray[np.int64],
    passing: bool,
    square_maps: npt.NDArray[np.int64],
    pair_maps: npt.NDArray[np.int64],
    shape_maps: npt.NDArray[np.int64],
) -> tuple[
    npt.NDArray[np.int8],
    npt.NDArray[np.int8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]:
    """What each position of ``frontier`` leads to, folded (see :class:`Expansion`)."""
    size = frontier.shape[0]
    to_move = np.empty(size, np.int8)
    terminal_return = np.zeros(size, np.int8)
    counts = np.zeros(size, np.int64)
    children = np.empty(size * MAX_ACTIONS, np.int64)
    weights_out = np.empty(size * MAX_ACTIONS, np.int64)
    tiles = np.empty(SQUARES, np.int64)
    owners = np.empty(SHAPES, np.int64)
    weights = np.empty(SHAPES, np.int64)
    actions = np.empty(MAX_ACTIONS, np.int64)
    tiles2 = np.empty(SQUARES, np.int64)
    owners2 = np.empty(SHAPES, np.int64)
    scratch = np.empty(MAX_ACTIONS, np.int64)
    fold = np.empty((4, SQUARES), np.int64)
    edges = 0
    for node in range(size):
        key = frontier[node]
        over = key >> OVER_SHIFT
        if over:
            to_move[node] = TERMINAL
            terminal_return[node] = 0 if over == OVER_DRAWN else (1 if over == 1 else -1)
            continue
        last, mover, flip = unpack(key, tiles, owners)
        if flip >= 0:
            to_move[node] = CHANCE
            chance_weights(tiles, weights)
            m = 0
            for k in range(SHAPES):
                if weights[k] > 0:
                    actions[m] = OUTCOME_BASE + k
                    m += 1
        else:
            to_move[node] = mover
            m = legal_actions(tiles, owners, last, pairs, passing, actions)
        first = edges
        for i in range(m):
            child, _ = _step(key, actions[i], lines, pairs, passing, tiles2, owners2, scratch)
            child = _canonical(child, square_maps, pair_maps, shape_maps, fold)
            w = weights[actions[i] - OUTCOME_BASE] if flip >= 0 else 1
            # Actions that lead to the same folded position are one edge (weights add).
            merged = False
            for j in range(first, edges):
                if children[j] == child:
                    weights_out[j] += w
                    merged = True
                    break
            if not merged:
                children[edges] = child
                weights_out[edges] = w
                edges += 1
        counts[node] = edges - first
    return to_move, terminal_return, counts, children[:edges], weights_out[:edges]


def _symmetries() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Square and pair images under the 8 symmetries of the square, and the 6 shape
    relabellings, as index arrays (row = symmetry)."""
    last = SIZE - 1
    # (rank, file) -> image: identity, three rotations, four reflections.
    transforms: list[Callable[[int, int], tuple[int, int]]] = [
        lambda r, f: (r, f),
        lambda r, f: (f, last - r),
        lambda r, f: (last - r, last - f),
        lambda r, f: (last - f, r),
        lambda r, f: (r, last - f),
        lambda r, f: (last - r, f),
        lambda r, f: (f, r),
        lambda r, f: (last - f, last - r),
    ]
    pairs = orthogonal_pairs(SIZE)
    pair_index = {frozenset(p): i for i, p in enumerate(pairs)}
    square_maps = np.empty((8, SQUARES), np.int64)
    pair_maps = np.empty((8, PAIRS), np.int64)
    for b, transform in enumerate(transforms):
        for s in range(SQUARES):
            r, f = transform(s // SIZE, s % SIZE)
            square_maps[b, s] = r * SIZE + f
        for p, (i, j) in enumerate(pairs):
            pair_maps[b, p] = pair_index[frozenset((square_maps[b, i], square_maps[b, j]))]
    shape_maps = np.array(list(itertools.permutations(range(SHAPES))), np.int64)
    return square_maps, pair_maps, shape_maps


class FlipSwitchKernel(HasMCTS, HasVector):
    """The kernel for one :class:`~.rules.FlipSwitch` option set (3x3, 3 shapes, 3 copies).
    Its MCTS (flips are chance nodes; the match and the repetition rule included) is in
    :mod:`.mcts_kernel`; its batch of matches, each flip's shape drawn inside when it is made,
    in :mod:`.vector_kernel`."""

    mcts_class = "FlipSwitchMCTS"
    vector_class = "FlipSwitchBatch"

    def __init__(self, game: FlipSwitch) -> None:
        self.game = game
        self.name = game.name
        table = game.lines
        width = max(len(through) for through in table)
        self.lines = np.full((SQUARES, width, 3), -1, np.int64)
        for square, through in enumerate(table):
            for i, line in enumerate(through):
                self.lines[square, i] = line
        self.pairs = np.array(orthogonal_pairs(SIZE), np.int64)
        self.passing = bool(game.passing)
        self.rounds = game.rounds
        self.square_maps, self.pair_maps, self.shape_maps = _symmetries()

    def playouts(self, n: int, seed: int, max_plies: int = 200) -> PlayoutBatch:
        return self.traced_playouts(n, seed, max_plies, traced=0)[0]

    def traced_playouts(
        self, n: int, seed: int, max_plies: int = 200, traced: int | None = None
    ) -> tuple[PlayoutBatch, npt.NDArray[np.int64]]:
        """:meth:`playouts`, plus the actions (chance outcomes included, -1 after the end) of
        the first ``traced`` games (default all) so a test can replay them on the reference."""
        record = np.full((n if traced is None else traced, max_plies), -1, np.int64)
        returns, lengths, capped = _playouts(
            n, seeded(seed), max_plies, record, self.rounds, self.lines, self.pairs, self.passing
        )
        return PlayoutBatch(returns, lengths, int(capped)), record

    def perft(self, state: State, depth: int) -> int:
        raise PerftUnsupportedError(
            f"perft is defined only for deterministic games; {self.name!r} has chance"
        )

    def raw_key(self, state: State) -> int:
        """The packed key of a reference state as it stands (not folded)."""
        fs: FlipSwitchState = state  # type: ignore[assignment]
        if fs.is_terminal():
            r = fs.returns()[0]
            return (1 if r > 0 else 2 if r < 0 else OVER_DRAWN) << OVER_SHIFT
        return self._pack(fs)

    def _pack(self, fs: FlipSwitchState) -> int:
        """The tiles, owners, last switch, mover and pending flip packed as a key."""
        key = 0
        for s, t in enumerate(fs.tiles):
            key |= (0 if t == FACE_DOWN else t + 1) << (2 * s)
        for k, o in enumerate(fs.owners):
            key |= (0 if o == UNCLAIMED else o + 1) << (OWNERS_SHIFT + 2 * k)
        last = 0 if fs.last == NO_SWITCH else fs.last + 1
        return (
            key
            | (last << LAST_SHIFT)
            | (fs.mover << MOVER_SHIFT)
            | ((fs.pending + 1) << FLIP_SHIFT)
        )

    def encode(self, state: State) -> int:
        """The folded key of a reference state: its node in :meth:`graph`."""
        return int(
            canonical(self.raw_key(state), self.square_maps, self.pair_maps, self.shape_maps)
        )

    #: How many symmetries :meth:`encode` and :meth:`fold` fold over.
    symmetries = 48

    def fold(self, state: State) -> int:
        """The key of ``state`` up to the 48 symmetries, a finished round included (the graph
        merges finished rounds by result; an audit counts them as positions too)."""
        fs: FlipSwitchState = state  # type: ignore[assignment]
        return int(canonical(self._pack(fs), self.square_maps, self.pair_maps, self.shape_maps))

    def graph(self, progress: Progress = silent, root: State | None = None) -> PositionGraph:
        """Every position of one round reachable from ``root`` (default: the start), folded
        over the 48 symmetries; a finished round is one of three terminal nodes (player 0
        won, player 1 won, drawn). Repetition is ignored: the solvers handle cycles."""
        maps = (self.square_maps, self.pair_maps, self.shape_maps)

        def expand(frontier: npt.NDArray[np.int64]) -> Expansion:
            return Expansion(*_expand(frontier, self.lines, self.pairs, self.passing, *maps))

        start = 0 if root is None else self.encode(root)
        return build_graph(start, expand, progress, len(self.square_maps) * len(self.shape_maps))
