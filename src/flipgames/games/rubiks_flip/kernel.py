"""The compiled (numba) kernel of Rubik's Flip: the rules of :mod:`.rules` over packed integers.

A position is the reference engine's three 16-bit boards (``tiles[0]``, ``tiles[1]``,
``faces``; bit ``file + 4 * rank``) passed as three integers; the side to move is the tile
count's parity and a game is over when :func:`step` reports a winner or the board is full. The
three options become three integer flags (``flap``, ``king``, ``mover_first``) so one compiled
function serves all eight option sets. Action ids, and their order, are the reference's
(:mod:`.notation`), so a kernel's legal list can be compared id for id.

Python calls in per batch: :meth:`RubiksFlipKernel.playouts` and :meth:`RubiksFlipKernel.perft`
run whole games and trees inside compiled code. :meth:`RubiksFlipKernel.legal_actions` and
:meth:`RubiksFlipKernel.step` exist for the differential tests (one ply per call).

>>> from flipgames import make
>>> kernel = RubiksFlipKernel(make("rubiks-flip"))
>>> kernel.perft(make("rubiks-flip").new_initial_state(), 3)
26880
>>> batch = kernel.playouts(100, seed=1)
>>> len(batch.returns), batch.capped
(100, 0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt
from numba import njit

from flipgames.core.game import TERMINAL
from flipgames.core.kernel import PlayoutBatch
from flipgames.games.rubiks_flip.board import LINES
from flipgames.games.rubiks_flip.notation import FLAP_TARGET, PLACEMENTS
from flipgames.kernels.parts import HasMCTS, HasSearcher, HasVector

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.rubiks_flip.rules import RubiksFlip

FULL: Final = 0xFFFF
NOT_FILE_A: Final = 0xEEEE
NOT_FILE_D: Final = 0x7777
#: No winner (yet): the game goes on, or ended in a draw on a full board.
NONE: Final = -1
#: The most actions a position can have: with flap, 8 opponent tiles x 4 directions x 32
#: placements bounds it (with in-place flips, 8 x 32).
MAX_ACTIONS: Final = 1024

LINE_MASKS: Final = np.array(LINES, dtype=np.int64)
FLAP_TARGETS: Final = np.array(FLAP_TARGET, dtype=np.int64)


@njit(cache=True)
def spread(mask: int, king: int) -> int:
    """``mask`` plus its neighbours (king steps, or orthogonal steps when ``king`` is 0)."""
    row = mask | ((mask << 1) & NOT_FILE_A) | ((mask >> 1) & NOT_FILE_D)
    if king:
        return row | ((row << 4) & FULL) | (row >> 4)
    return row | ((mask << 4) & FULL) | (mask >> 4)


@njit(cache=True)
def popcount(x: int) -> int:
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True)
def judge(first: int, second: int, faces: int, mover: int, king: int, mover_first: int) -> int:
    """The winner after ``mover``'s placement, or :data:`NONE` (the reference's ``_judge``)."""
    occupied = first | second
    locked = occupied & ~spread(FULL ^ occupied, king)
    if popcount(locked) < 3:
        return NONE
    row0 = False
    row1 = False
    for i in range(LINE_MASKS.shape[0]):
        line = LINE_MASKS[i]
        if locked & line != line:
            continue
        shown = faces & line
        if shown != 0 and shown != line:
            continue
        if first & line == line:
            row0 = True
        elif second & line == line:
            row1 = True
    if not (row0 or row1):
        return NONE
    if row0 and row1:
        return mover if mover_first else 1 - mover
    return 0 if row0 else 1


@njit(cache=True)
def generate(
    first: int, second: int, flap: int, king: int, out: npt.NDArray[np.int64], start: int
) -> int:
    """Write the legal action ids of a live position into ``out[start:]``, ascending (the
    reference's order); return how many."""
    occupied = first | second
    empty = FULL ^ occupied
    mover = popcount(occupied) & 1
    opponent = second if mover == 0 else first
    n = start
    if not flap:
        unlocked = opponent & spread(empty, king)
        if unlocked == 0:
            for place in range(16):
                if empty >> place & 1:
                    out[n] = place * 2
                    out[n + 1] = place * 2 + 1
                    n += 2
            return n - start
        for source in range(16):
            if unlocked >> source & 1:
                base = (1 + source) * PLACEMENTS
                for place in range(16):
                    if empty >> place & 1:
                        out[n] = base + place * 2
                        out[n + 1] = base + place * 2 + 1
                        n += 2
        return n - start
    for source in range(16):
        if opponent >> source & 1:
            for direction in range(4):
                target = FLAP_TARGETS[source, direction]
                if target >= 0 and empty >> target & 1:
                    after = empty ^ (1 << source) ^ (1 << target)
                    base = (1 + 4 * source + direction) * PLACEMENTS
                    for place in range(16):
                        if after >> place & 1:
                            out[n] = base + place * 2
                            out[n + 1] = base + place * 2 + 1
                            n += 2
    if n == start:
        for place in range(16):
            if empty >> place & 1:
                out[n] = place * 2
                out[n + 1] = place * 2 + 1
                n += 2
    return n - start


#: A group of legal actions (:func:`groups`) as one word: its flip part, then its squares.
GROUP_SHIFT: Final = 16
#: The most groups a position has: with flap, 8 opponent tiles x 4 directions.
MAX_GROUPS: Final = 32


@njit(cache=True)
def groups(first: int, second: int, flap: int, king: int, out: npt.NDArray[np.int64]) -> int:
    """The legal actions of a live position as groups, in :func:`generate`'s order, written
    into ``out`` as ``part << GROUP_SHIFT | squares``: the actions ``part * PLACEMENTS + 2 *
    square + face`` for every square of ``squares`` (ascending), face 0 then 1. Every group
    has two actions per empty square, so the ``k``-th legal action is found, and the legal
    actions counted or marked, without listing them; returns how many groups."""
    occupied = first | second
    empty = FULL ^ occupied
    opponent = second if popcount(occupied) & 1 == 0 else first
    n = 0
    if flap:
        for source in range(16):
            if opponent >> source & 1:
                for direction in range(4):
                    target = FLAP_TARGETS[source, direction]
                    if target >= 0 and empty >> target & 1:
                        after = empty ^ (1 << source) ^ (1 << target)
                        out[n] = (1 + 4 * source + direction) << GROUP_SHIFT | after
                        n += 1
    else:
        unlocked = opponent & spread(empty, king)
        for source in range(16):
            if unlocked >> source & 1:
                out[n] = (1 + source) << GROUP_SHIFT | empty
                n += 1
    if n == 0:
        out[0] = empty
        n = 1
    return n


@njit(cache=True)
def play(
    first: int, second: int, faces: int, action: int, flap: int, king: int, mover_first: int
) -> tuple[int, int, int, int]:
    """``(first, second, faces, winner)`` after a legal ``action`` (the reference's ``_apply``)."""
    mover = popcount(first | second) & 1
    part = action // PLACEMENTS
    rest = action % PLACEMENTS
    if part != 0:
        if flap:
            source = (part - 1) // 4
            target = FLAP_TARGETS[source, (part - 1) % 4]
        else:
            source = part - 1
            target = source
        source_bit = 1 << source
        showed_second = faces & source_bit
        faces &= ~source_bit
        if showed_second == 0:
            faces |= 1 << target
        if mover == 0:
            second = (second & ~source_bit) | (1 << target)
        else:
            first = (first & ~source_bit) | (1 << target)
    place = rest >> 1
    if mover == 0:
        first |= 1 << place
    else:
        second |= 1 << place
    faces |= (rest & 1) << place
    return first, second, faces, judge(first, second, faces, mover, king, mover_first)


@njit(cache=True)
def _playouts(
    n: int, seed: int, max_plies: int, flap: int, king: int, mover_first: int
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32], int]:
    np.random.seed(seed)
    returns = np.zeros(n, dtype=np.int8)
    lengths = np.zeros(n, dtype=np.int32)
    actions = np.empty(MAX_ACTIONS, dtype=np.int64)
    capped = 0
    for game in range(n):
        first = 0
        second = 0
        faces = 0
        winner = NONE
        plies = 0
        while winner == NONE and (first | second) != FULL:
            if plies == max_plies:
                capped += 1
                break
            count = generate(first, second, flap, king, actions, 0)
            action = actions[np.random.randint(0, count)]
            first, second, faces, winner = play(
                first, second, faces, action, flap, king, mover_first
            )
            plies += 1
        lengths[game] = plies
        if winner == 0:
            returns[game] = 1
        elif winner == 1:
            returns[game] = -1
    return returns, lengths, capped


@njit(cache=True)
def _perft(
    first: int,
    second: int,
    faces: int,
    depth: int,
    flap: int,
    king: int,
    mover_first: int,
    buffer: npt.NDArray[np.int64],
    start: int,
) -> int:
    # A live position (the caller never recurses into a terminal one).
    count = generate(first, second, flap, king, buffer, start)
    if depth == 1:
        return count
    total = 0
    for i in range(start, start + count):
        f, s, x, winner = play(first, second, faces, buffer[i], flap, king, mover_first)
        if winner == NONE and (f | s) != FULL:
            total += _perft(f, s, x, depth - 1, flap, king, mover_first, buffer, start + count)
    return total


# --- exact search: alpha-beta over canonical positions ---------------------------------------
#
# A position for the search is one int64: ``first | second << 16 | faces << 32``. Its key in the
# transposition table is the least such int over the 32 symmetries that preserve every option
# set's rules: the 8 symmetries of the square board (locks, rows and flap directions are all
# defined by board adjacency, which they keep) times swapping the two faces of either player's
# tiles (a row counts in either face, a flip turns a tile to its other face and a placement may
# show either face, so renaming one player's faces maps legal turns to legal turns and
# outcomes to outcomes). Empty squares always have face bit 0, so the key is canonical.


def _board_symmetries() -> list[list[int]]:
    """The 8 symmetries of the 4x4 board as square permutations (``perm[square]``)."""
    maps = []
    for transpose in (False, True):
        for flip_file in (False, True):
            for flip_rank in (False, True):
                perm = []
                for square in range(16):
                    file, rank = square % 4, square // 4
                    if transpose:
                        file, rank = rank, file
                    if flip_file:
                        file = 3 - file
                    if flip_rank:
                        rank = 3 - rank
                    perm.append(file + 4 * rank)
                maps.append(perm)
    return maps


#: BOARD_SYMMETRIES[s][square]: where symmetry ``s`` sends ``square`` (``s = 0`` is identity).
BOARD_SYMMETRIES: Final = np.array(_board_symmetries(), dtype=np.int64)


def _byte_tables() -> npt.NDArray[np.int64]:
    """``TABLE[s, half, byte]``: the image under symmetry ``s`` of the mask ``byte << 8 * half``."""
    table = np.zeros((8, 2, 256), dtype=np.int64)
    for s in range(8):
        for half in range(2):
            for byte in range(256):
                image = 0
                for bit in range(8):
                    if byte >> bit & 1:
                        image |= 1 << int(BOARD_SYMMETRIES[s, 8 * half + bit])
                table[s, half, byte] = image
    return table


SYMMETRY_BYTES: Final = _byte_tables()
#: Transposition-table entries: ``key << 4 | bound << 2 | (value + 1)``; 0 is an empty slot.
EXACT: Final = 1
LOWER: Final = 2
UPPER: Final = 3
_HASH_MULTIPLIER: Final = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed int64


@njit(cache=True)
def transform(board: int, s: int) -> int:
    """The image of a 16-bit mask under board symmetry ``s``."""
    return int(SYMMETRY_BYTES[s, 0, board & 0xFF] | SYMMETRY_BYTES[s, 1, board >> 8])


@njit(cache=True)
def canonical(position: int) -> int:
    """The least packed image of ``position`` over the 32 symmetries."""
    first = position & FULL
    second = (position >> 16) & FULL
    faces = position >> 32
    best = position
    for s in range(8):
        a = transform(first, s)
        b = transform(second, s)
        f = transform(faces, s)
        g = min(min(f, f ^ a), min(f ^ b, f ^ a ^ b))
        key = a | (b << 16) | (g << 32)
        if key < best:
            best = key
    return best


@njit(cache=True)
def _probe(table: npt.NDArray[np.int64], key: int) -> int:
    """The table entry for ``key``, or 0."""
    slot = ((key * _HASH_MULTIPLIER) >> 24) & (table.shape[0] - 2)
    for i in range(slot, slot + 2):
        if table[i] >> 4 == key and table[i] != 0:
            return int(table[i])
    return 0


@njit(cache=True)
def _store(table: npt.NDArray[np.int64], key: int, bound: int, value: int) -> None:
    # Two slots per bucket: the first keeps the position nearest the root (the costliest to
    # recompute: fewest tiles), the second takes whatever the first does not.
    slot = ((key * _HASH_MULTIPLIER) >> 24) & (table.shape[0] - 2)
    entry = (key << 4) | (bound << 2) | (value + 1)
    if table[slot + 1] != 0 and table[slot + 1] >> 4 == key:
        table[slot + 1] = entry
        return
    old = table[slot]
    if old == 0 or old >> 4 == key:
        table[slot] = entry
        return
    if popcount(key & 0xFFFFFFFF) <= popcount((old >> 4) & 0xFFFFFFFF):
        table[slot + 1] = old
        table[slot] = entry
    else:
        table[slot + 1] = entry


@njit(cache=True)
def _search(
    position: int,
    alpha: int,
    beta: int,
    flap: int,
    king: int,
    mover_first: int,
    table: npt.NDArray[np.int64],
    buffer: npt.NDArray[np.int64],
    start: int,
    stats: npt.NDArray[np.int64],
) -> int:
    """The value (+1 win, 0 draw, -1 loss) of a live ``position`` for the side to move, fail-soft
    within ``(alpha, beta)``. Past the node limit ``stats[1]`` (0: none) it sets ``stats[2]``
    and unwinds, storing nothing more."""
    stats[0] += 1
    if stats[1] > 0 and stats[0] > stats[1]:
        stats[2] = 1
        return 0
    key = canonical(position)
    entry = _probe(table, key)
    if entry != 0:
        value = (entry & 3) - 1
        bound = (entry >> 2) & 3
        if bound == EXACT:
            return value
        if bound == LOWER and value >= beta:
            return value
        if bound == UPPER and value <= alpha:
            return value
        if bound == LOWER:
            alpha = max(alpha, value)
        else:
            beta = min(beta, value)
    first = position & FULL
    second = (position >> 16) & FULL
    faces = position >> 32
    mover = popcount(first | second) & 1
    count = generate(first, second, flap, king, buffer, start)
    # Children replace the actions in place; an immediate win ends the search at once and an
    # immediate loss is never worth a recursive call.
    live = start
    any_draw = False
    any_loss = False
    for i in range(start, start + count):
        f, s, x, winner = play(first, second, faces, buffer[i], flap, king, mover_first)
        if winner == mover:
            return 1
        if winner != NONE:
            any_loss = True
        elif (f | s) == FULL:
            any_draw = True
        else:
            buffer[live] = f | (s << 16) | (x << 32)
            live += 1
    original_alpha = alpha
    best = -1 if any_loss else -2
    if any_draw:
        best = 0
    if best > alpha:
        alpha = best
    if alpha < beta and live - start > 1:
        # Enhanced transposition cutoff: a child already known to refute the window ends the
        # search before any child is searched.
        for i in range(start, live):
            child = _probe(table, canonical(buffer[i]))
            if child != 0:
                value = 1 - (child & 3)
                bound = (child >> 2) & 3
                if bound != LOWER and value >= beta:
                    _store(table, key, LOWER, value)
                    return value
    if alpha < beta:
        for i in range(start, live):
            value = -_search(
                buffer[i], -beta, -alpha, flap, king, mover_first, table, buffer, live, stats
            )
            if stats[2]:
                return 0
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
    if best <= original_alpha:
        _store(table, key, UPPER, best)
    elif best >= beta:
        _store(table, key, LOWER, best)
    else:
        _store(table, key, EXACT, best)
    return best


class RubiksFlipKernel(HasMCTS, HasSearcher, HasVector):
    """The :class:`~flipgames.core.kernel.Kernel` of one Rubik's Flip option set. Its MCTS,
    alpha-beta with the game's evaluation (``hard`` plays it) and batch are in
    :mod:`.mcts_kernel`, :mod:`.search_kernel` and :mod:`.vector_kernel`."""

    mcts_class = "RubiksFlipMCTS"
    searcher_class = "RubiksFlipSearcher"
    vector_class = "RubiksFlipBatch"

    #: The transposition keys fold the 8 board symmetries x the 4 face swaps.
    symmetries = 32

    def __init__(self, game: RubiksFlip) -> None:
        self.name = game.name
        self.flap = int(game.flap)
        self.king = int(game.options["lock"] == "king")
        self.mover_first = int(game.mover_first)
        self.num_actions = game.num_distinct_actions

    @property
    def flags(self) -> tuple[int, int, int]:
        """``(flap, king, mover_first)``: the option set as the compiled functions take it."""
        return self.flap, self.king, self.mover_first

    def playouts(self, n: int, seed: int, max_plies: int = 200) -> PlayoutBatch:
        returns, lengths, capped = _playouts(n, seed, max_plies, *self.flags)
        return PlayoutBatch(returns, lengths, int(capped))

    def perft(self, state: State, depth: int) -> int:
        first, second, faces = pack(state)
        if depth == 0:
            return 1
        if state.current_player == TERMINAL:
            return 0
        # Each level of the tree writes its actions after its parent's in one buffer.
        buffer = np.empty(MAX_ACTIONS * depth, dtype=np.int64)
        return int(_perft(first, second, faces, depth, *self.flags, buffer, 0))

    # --- one ply at a time, for the differential tests -----------------------------------

    def legal_actions(self, first: int, second: int, faces: int) -> list[int]:
        """The legal action ids of a live position, ascending."""
        out = np.empty(MAX_ACTIONS, dtype=np.int64)
        count = generate(first, second, self.flap, self.king, out, 0)
        return [int(a) for a in out[:count]]

    def step(self, first: int, second: int, faces: int, action: int) -> tuple[int, int, int, int]:
        """``(first, second, faces, winner)`` after ``action``; winner -1 when none."""
        f, s, x, winner = play(first, second, faces, action, *self.flags)
        return int(f), int(s), int(x), int(winner)

    # --- exact search (what flipgames.solvers.alphabeta drives) --------------------------------

    def position(self, state: State) -> int:
        """The packed int64 position of a reference state (``first | second << 16 | faces <<
        32``)."""
        first, second, faces = pack(state)
        return first | second << 16 | faces << 32

    def canonical(self, position: int) -> int:
        """The transposition key of ``position``: the same for all its 32 symmetric images."""
        return int(canonical(position))

    def children(self, position: int) -> list[tuple[int, int, int | None]]:
        """``(action, child, value)`` for each legal action of a live ``position``: ``value`` is
        the child's value for its side to move (+1, 0, -1) when the child is terminal, else
        None."""
        first, second, faces = position & FULL, position >> 16 & FULL, position >> 32
        mover = (first | second).bit_count() & 1
        result: list[tuple[int, int, int | None]] = []
        for action in self.legal_actions(first, second, faces):
            f, s, x, winner = self.step(first, second, faces, action)
            value: int | None = None
            if winner != NONE:
                value = -1 if winner == mover else 1
            elif f | s == FULL:
                value = 0
            result.append((action, f | s << 16 | x << 32, value))
        return result

    def search(
        self,
        position: int,
        alpha: int,
        beta: int,
        table: npt.NDArray[np.int64],
        stats: npt.NDArray[np.int64],
    ) -> int:
        """The value of a live ``position`` for its side to move, fail-soft within ``(alpha,
        beta)``; ``table`` is the transposition table (a zeroed int64 array whose length is a
        power of two; its entries stay true for later searches), ``stats[0]`` counts the nodes
        searched, ``stats[1]`` limits them (0: no limit) and ``stats[2]`` becomes 1 if the limit
        stopped the search (the value is then meaningless)."""
        buffer = np.empty(MAX_ACTIONS * 17, dtype=np.int64)
        return int(_search(position, alpha, beta, *self.flags, table, buffer, 0, stats))


def pack(state: State) -> tuple[int, int, int]:
    """The three boards of a reference Rubik's Flip state."""
    if state.game.name != "rubiks-flip":
        raise TypeError(f"a Rubik's Flip kernel needs a Rubik's Flip state, not {state!r}")
    key = state.key()
    assert isinstance(key, tuple)
    return key
