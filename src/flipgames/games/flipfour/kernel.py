"""FlipFour's compiled kernel: the rules of :mod:`.rules` over ``int64`` bitboards, in numba.

A position is ``(white, black, bishops, hand0, hand1, player)`` as in the reference key
(``white | black << 25 | bishops << 50 | hand0 << 75 | hand1 << 78 | player << 81``); action
ids are the reference's (drops 0..49, moves 50..369, see :mod:`.notation`) and come out in
the same ascending order. Random playouts, perft and the per-ply test entry all run in machine
code; Python is called once per batch. Bitboard loops walk set bits (lowest first, by
trailing-zero count), and a random playout counts a position's actions by popcount and takes
the drawn index into that ascending order without listing them, so it plays the game the
list would give (``bench/c/flipfour_bitboard.c`` is the C yardstick of the same loops).

The end of a game follows the reference, in its order: four in a row wins for the side that
made it; else a side with no legal action loses; else the third occurrence of a position
(counted since the last drop, which can never be undone) draws. A game still running after
``max_plies`` plies is stopped (return 0, counted in ``capped``).

>>> from flipgames import make
>>> kernel = make("flipfour").kernel()
>>> kernel.perft(make("flipfour").new_initial_state(), 3)
125120
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import DRAWN, FIRST_WINS, ONGOING, SECOND_WINS, PlayoutBatch, Replay
from flipgames.games.flipfour.board import (
    NUM_SQUARES,
    PIECES_IN_HAND,
    REACH,
    WINDOWS,
    WINDOWS_THROUGH,
)
from flipgames.games.flipfour.notation import MOVE_IDS, MOVES
from flipgames.kernels.jit import (
    FILTER_WORDS,
    below,
    jit,
    occurrences,
    popcount,
    seeded,
    store_playout,
    trailing_zeros,
)
from flipgames.kernels.parts import HasMCTS, HasSearcher, HasVector, recorded_replay

if TYPE_CHECKING:
    from flipgames.core.game import Game, State

I64 = npt.NDArray[np.int64]

#: Room for the actions of one position: 50 drops, or the moves of four pieces.
MAX_ACTIONS = 128
#: The repetition filter of a random playout, in words: the filter only spares comparisons
#: (the count is exact at any size), and a random game plays up to ~190 plies after its last
#: drop, which fill the shared 1,024-bit filter enough that it lets about 5 comparisons a ply
#: through; 4,096 bits let about 1.3 through.
PLAYOUT_FILTER_WORDS = 64

_REACH = np.array(REACH, dtype=np.int64)
_MOVE_IDS = np.array(MOVE_IDS, dtype=np.int64)
_MOVE_FROM = np.array([frm for frm, _ in MOVES], dtype=np.int64)
_MOVE_TO = np.array([to for _, to in MOVES], dtype=np.int64)
#: ``_THROUGH[sq]``: the windows through ``sq``, padded with zeros; ``_THROUGH_COUNT[sq]``
#: says how many are real (a zero window would always match).
_THROUGH = np.zeros((NUM_SQUARES, max(map(len, WINDOWS_THROUGH))), dtype=np.int64)
for _sq, _windows in enumerate(WINDOWS_THROUGH):
    _THROUGH[_sq, : len(_windows)] = _windows
_THROUGH_COUNT = np.array([len(w) for w in WINDOWS_THROUGH], dtype=np.int64)
#: Every square; the files a and b (where runs of four along a rank or up to the right
#: start) and d and e (where runs up to the left start).
_BOARD = (1 << NUM_SQUARES) - 1
_FILE_A = sum(1 << (5 * rank) for rank in range(5))
_FILES_AB = _FILE_A | _FILE_A << 1
_FILES_DE = _FILE_A << 3 | _FILE_A << 4


@jit
def _generate(
    white: int, black: int, bishops: int, hand: int, player: int, reach: I64, ids: I64, out: I64
) -> int:
    """Write the actions of ``player`` (``hand`` pieces in hand) into ``out``, ascending
    (repetition ignored); return how many."""
    empty = ~(white | black) & _BOARD
    n = 0
    if hand > 0:
        for face in range(2):
            rest = empty
            while rest:
                out[n] = face * 25 + trailing_zeros(rest)
                n += 1
                rest &= rest - 1
    rest = black if player else white
    while rest:
        frm = trailing_zeros(rest)
        rest &= rest - 1
        # Pieces leap: every empty square on the piece's lines is a target.
        targets = reach[(bishops >> frm) & 1, frm] & empty
        while targets:
            out[n] = ids[frm * 25 + trailing_zeros(targets)]
            n += 1
            targets &= targets - 1
    return n


@jit
def _count(white: int, black: int, bishops: int, hand: int, player: int, reach: I64) -> int:
    """How many actions :func:`_generate` would write, by counting bits."""
    empty = ~(white | black) & _BOARD
    n = 2 * popcount(empty) if hand > 0 else 0
    rest = black if player else white
    while rest:
        frm = trailing_zeros(rest)
        rest &= rest - 1
        n += popcount(reach[(bishops >> frm) & 1, frm] & empty)
    return n


@jit
def _nth_bit(bits: int, index: int) -> int:
    """The square of the ``index``-th lowest set bit of ``bits``."""
    for _ in range(index):
        bits &= bits - 1
    return trailing_zeros(bits)


@jit
def _nth(
    white: int,
    black: int,
    bishops: int,
    hand: int,
    player: int,
    reach: I64,
    ids: I64,
    index: int,
) -> int:
    """The ``index``-th action of :func:`_generate`'s list, found without writing the list
    (``0 <= index <`` :func:`_count`), so a random playout's draw picks what it would pick."""
    empty = ~(white | black) & _BOARD
    if hand > 0:
        free = popcount(empty)
        if index < 2 * free:
            face = 1 if index >= free else 0
            return face * 25 + _nth_bit(empty, index - face * free)
        index -= 2 * free
    rest = black if player else white
    while True:
        frm = trailing_zeros(rest)
        rest &= rest - 1
        targets: int = reach[(bishops >> frm) & 1, frm] & empty
        here = popcount(targets)
        if index < here:
            action: int = ids[frm * 25 + _nth_bit(targets, index)]
            return action
        index -= here


@jit
def _apply(
    white: int,
    black: int,
    bishops: int,
    hand0: int,
    hand1: int,
    player: int,
    action: int,
    move_from: I64,
    move_to: I64,
    through: I64,
    through_count: I64,
) -> tuple[int, int, int, int, int, bool]:
    """The position after ``action`` (``player`` flips) and whether it made four in a row."""
    if action < 50:
        to = action % 25
        changed = 1 << to
        if action >= 25:
            bishops |= changed
        if player == 0:
            hand0 -= 1
        else:
            hand1 -= 1
    else:
        to = move_to[action - 50]
        start, arrival = 1 << move_from[action - 50], 1 << to
        # The moved piece flips: a bishop face arrives as a rook face and vice versa.
        if bishops & start:
            bishops &= ~start
        else:
            bishops |= arrival
        changed = start | arrival
    if player == 0:
        white ^= changed
        mine = white
    else:
        black ^= changed
        mine = black
    # Only the piece that just arrived can complete a four.
    four = False
    for w in range(through_count[to]):
        window = through[to, w]
        if window & mine == window:
            four = True
    return white, black, bishops, hand0, hand1, four


@jit
def _status(four: bool, actions: int, count: int, player: int) -> int:
    """A four wins for the side that made it (the one not to move), no action loses for the
    side to move, a third occurrence draws: in that order, as in the reference."""
    if four or actions == 0:
        return SECOND_WINS if player == 0 else FIRST_WINS
    if count >= 3:
        return DRAWN
    return ONGOING


@jit
def _play(
    actions: I64,
    rng: npt.NDArray[np.uint64],
    max_plies: int,
    tables: tuple[I64, I64, I64, I64, I64, I64],
    history: I64,
    seen: I64,
    moves: I64,
    legal: I64,
) -> tuple[int, int]:
    """Play one game from the empty board: the given ``actions`` while they last (``-1``
    ends them), then uniformly random ones, to the end or ``max_plies``. Records the actions
    into ``actions`` and, when ``legal`` has rows, each position's legal actions (padded
    with -1; status in the last column). Returns (status, plies); an illegal given action
    stops with status -1."""
    reach, ids, move_from, move_to, through, through_count = tables
    white, black, bishops, hand0, hand1 = 0, 0, 0, PIECES_IN_HAND, PIECES_IN_HAND
    player, ply, since, four = 0, 0, 0, False
    seen[:] = 0
    history[0, 0], history[0, 1], history[0, 2] = white, black, bishops
    count = occurrences(history, 0, 0, seen)
    while True:
        n = 0
        hand = hand1 if player else hand0
        # A random ply that is not recorded needs only the count and the drawn action.
        listed = ply < legal.shape[0] or actions[ply] >= 0
        if four:
            pass
        elif listed:
            n = _generate(white, black, bishops, hand, player, reach, ids, moves)
        else:
            n = _count(white, black, bishops, hand, player, reach)
        status = _status(four, n, count, player)
        if ply < legal.shape[0]:
            shown = n if status == ONGOING else 0
            legal[ply, :shown] = moves[:shown]
            legal[ply, shown:-1] = -1
            legal[ply, -1] = status
        if status != ONGOING or ply >= max_plies:
            return status, ply
        action = actions[ply]
        if action >= 0 and not np.any(moves[:n] == action):
            return -1, ply
        if action < 0:
            index = below(rng, n)
            action = (
                moves[index]
                if listed
                else _nth(white, black, bishops, hand, player, reach, ids, index)
            )
            actions[ply] = action
        white, black, bishops, hand0, hand1, four = _apply(
            white,
            black,
            bishops,
            hand0,
            hand1,
            player,
            action,
            move_from,
            move_to,
            through,
            through_count,
        )
        player ^= 1
        ply += 1
        history[ply, 0], history[ply, 1], history[ply, 2] = white, black, bishops
        if action < 50:
            since = ply
            seen[:] = 0
        count = occurrences(history, ply, since, seen)


@jit
def _playouts(
    n: int,
    rng: npt.NDArray[np.uint64],
    max_plies: int,
    tables: tuple[I64, I64, I64, I64, I64, I64],
    record: I64,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32], int]:
    """``n`` random games; the actions of game ``g`` go to ``record[g]`` when it has rows."""
    returns = np.zeros(n, dtype=np.int8)
    plies = np.zeros(n, dtype=np.int32)
    history = np.zeros((max_plies + 1, 3), dtype=np.int64)
    seen = np.zeros(PLAYOUT_FILTER_WORDS, dtype=np.int64)
    moves = np.zeros(MAX_ACTIONS, dtype=np.int64)
    actions = np.full(max_plies + 1, -1, dtype=np.int64)
    no_legal = np.zeros((0, MAX_ACTIONS + 1), dtype=np.int64)
    capped = 0
    for g in range(n):
        actions[:] = -1
        status, length = _play(actions, rng, max_plies, tables, history, seen, moves, no_legal)
        capped += store_playout(returns, plies, record, actions, g, status, length)
    return returns, plies, capped


@jit
def _four(mine: int) -> bool:
    """Four of ``mine`` in a row anywhere, by shifts: a bit left in a run's mask marks the
    square a run of four starts on (``d`` = 1 along ranks, 5 up files, 6 and 4 the
    diagonals); the file masks drop runs that would wrap round the board's side."""
    rank = mine & (mine >> 1)
    file = mine & (mine >> 5)
    up = mine & (mine >> 6)
    down = mine & (mine >> 4)
    rank &= rank >> 2
    file &= file >> 10
    up &= up >> 12
    down &= down >> 8
    return ((rank | up) & _FILES_AB | file | down & _FILES_DE) != 0


@jit
def _perft(
    white: int,
    black: int,
    bishops: int,
    hand0: int,
    hand1: int,
    player: int,
    depth: int,
    reach: I64,
) -> int:
    """perft(depth >= 1) of a position nobody has won yet: children that make four are
    leaves, the last ply is counted by popcount."""
    hand = hand1 if player else hand0
    if depth == 1:
        return _count(white, black, bishops, hand, player, reach)
    empty = ~(white | black) & _BOARD
    mine = black if player else white
    total = 0
    if hand > 0:
        h0, h1 = (hand0 - 1, hand1) if player == 0 else (hand0, hand1 - 1)
        rest = empty
        while rest:
            bit = rest & -rest
            rest ^= bit
            after = mine | bit
            if not _four(after):  # the face put up does not matter to a four
                w, b = (after, black) if player == 0 else (white, after)
                total += _perft(w, b, bishops, h0, h1, 1 - player, depth - 1, reach)
                total += _perft(w, b, bishops | bit, h0, h1, 1 - player, depth - 1, reach)
    rest = mine
    while rest:
        start = rest & -rest
        rest ^= start
        frm = trailing_zeros(start)
        face = (bishops >> frm) & 1
        targets = reach[face, frm] & empty
        staying = mine ^ start
        lifted = bishops & ~start
        while targets:
            arrival = targets & -targets
            targets ^= arrival
            after = staying | arrival
            if not _four(after):
                # The moved piece flips: a bishop face arrives as a rook face and vice versa.
                faces = lifted if face else lifted | arrival
                w, b = (after, black) if player == 0 else (white, after)
                total += _perft(w, b, faces, hand0, hand1, 1 - player, depth - 1, reach)
    return total


class FlipFourKernel(HasMCTS, HasSearcher, HasVector):
    """The compiled FlipFour; see the module docstring. Its MCTS, alpha-beta and batch are in
    :mod:`.mcts_kernel`, :mod:`.search_kernel` and :mod:`.vector_kernel`."""

    mcts_class = "FlipFourMCTS"
    searcher_class = "FlipFourSearcher"
    vector_class = "FlipFourBatch"

    def __init__(self, name: str) -> None:
        self.name = name
        self.tables = (_REACH, _MOVE_IDS, _MOVE_FROM, _MOVE_TO, _THROUGH, _THROUGH_COUNT)

    @staticmethod
    def unpack(key: int) -> tuple[int, int, int, int, int, int]:
        """``(white, black, bishops, hand0, hand1, player)`` of a reference ``State.key()``."""
        mask = (1 << NUM_SQUARES) - 1
        hands = key >> 3 * NUM_SQUARES
        return key & mask, key >> 25 & mask, key >> 50 & mask, hands & 7, hands >> 3 & 7, hands >> 6

    def playouts(self, n: int, seed: int, max_plies: int = 200) -> PlayoutBatch:
        """``n`` uniformly random games from the empty board, seeded."""
        return self.traced_playouts(n, seed, max_plies, record=0)[0]

    def traced_playouts(
        self, n: int, seed: int, max_plies: int = 200, record: int | None = None
    ) -> tuple[PlayoutBatch, I64]:
        """:meth:`playouts` (the same games for the same seed), plus the actions of the first
        ``record`` games (default all), one row each, padded with -1."""
        if n < 0 or max_plies < 0:
            raise ValueError(f"playouts need n >= 0 and max_plies >= 0, got {n}, {max_plies}")
        rows = n if record is None else min(record, n)
        actions = np.full((rows, max_plies + 1), -1, dtype=np.int64)
        returns, plies, capped = _playouts(n, seeded(seed), max_plies, self.tables, actions)
        return PlayoutBatch(returns, plies, int(capped)), actions

    def replay(self, actions: list[int]) -> Replay:
        """Play ``actions`` from the start through the same compiled loop as the playouts,
        recording every position's legal actions and status (the differential tests' entry).
        Stops where the game ends or at the first action the kernel finds illegal (then
        fewer actions come back than were given)."""
        plies = len(actions)
        given = np.array([*actions, -1], dtype=np.int64)
        legal = np.zeros((plies + 1, MAX_ACTIONS + 1), dtype=np.int64)
        status, played = _play(
            given,
            seeded(0),
            plies,
            self.tables,
            np.zeros((plies + 1, 3), dtype=np.int64),
            np.zeros(FILTER_WORDS, dtype=np.int64),
            np.zeros(MAX_ACTIONS, dtype=np.int64),
            legal,
        )
        return recorded_replay(given, legal, played, status)

    def legal_actions(self, key: int) -> list[int]:
        """The action ids (ascending, repetition ignored) of a reference key, none when
        the side that just acted has four in a row."""
        white, black, bishops, hand0, hand1, player = self.unpack(key)
        if _has_four(black if player == 0 else white):
            return []
        moves = np.zeros(MAX_ACTIONS, dtype=np.int64)
        hand = hand1 if player else hand0
        n = _generate(white, black, bishops, hand, player, _REACH, _MOVE_IDS, moves)
        return [int(a) for a in moves[:n]]

    def perft(self, state: State, depth: int) -> int:
        """perft from a reference state (repetition ignored, as the ruling defines it)."""
        self.check_state(state)
        if depth < 0:
            raise ValueError(f"perft depth must be at least 0, got {depth}")
        key = state.key()
        assert isinstance(key, int)
        white, black, bishops, hand0, hand1, player = self.unpack(key)
        if depth == 0:
            return 1
        if _has_four(black if player == 0 else white):
            return 0  # the game is over: no action is legal
        return int(_perft(white, black, bishops, hand0, hand1, player, depth, _REACH))


def _has_four(pieces: int) -> bool:
    """True when ``pieces`` hold four in a row anywhere."""
    return any(window & pieces == window for window in WINDOWS)


@cache
def kernel_for_game(game: Game) -> FlipFourKernel:
    """The kernel of ``game``, built once per process."""
    return FlipFourKernel(game.name)
