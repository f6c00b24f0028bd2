"""FlipFlop on bitboards with precomputed attacks (5x5 and 3x3), compiled by numba.

A position is three int masks and the side to move, as in the reference key: White's
pieces, Black's pieces, the pieces showing the bishop face (bit ``sq`` for square ``sq``,
``a1 = 0``, rank-major), side ``0`` White, ``1`` Black. Instead of walking each piece's rays
square by square, a piece's sliding targets are one table lookup: only the occupancy of the
squares along its rays short of the board's edge can block it (at most six squares on 5x5),
and a multiplier found once per size maps each such occupancy to one of 64 slots holding the
attacked squares (:mod:`.attacks`). The ideas are those of the
repository's C yardstick ``bench/c/flipflop_bitboard.c``.

Move generation, apply, the terminal test, perft and random playouts are ``@njit`` functions;
random playouts count each piece's targets, draw one index and walk to it, listing no moves.
Legal actions come in increasing action id (``origin * A + target``): a random playout's
draw ``below(rng, n)`` picks the same action as it would from the sorted list. The repetition
rule is the reference's (the third occurrence of a position since the last capture draws,
checked before anything else), kept with :func:`flipgames.kernels.jit.occurrences`; perft
ignores it, as ruling R3 says. ``tests/kernels/test_bitboard_flipflop.py`` checks all of it
against the reference engine, move for move. Every FlipFlop path is built on these functions:
the kernel's playouts, perft, replays and 3x3 enumeration (:mod:`.kernel`), its MCTS,
alpha-beta, batch of environments and endgame tables.

>>> from flipgames import make
>>> game = make("flipflop-3x3")
>>> board = Bitboard.of(3)
>>> board.perft(game.new_initial_state(), 5)
336
>>> board.to_state(game, board.from_state(game.new_initial_state())).key() == (
...     game.new_initial_state().key())
True
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import DRAWN, FIRST_WINS, ONGOING, SECOND_WINS, PlayoutBatch, Replay
from flipgames.games.flipflop.attacks import SLOT_BITS, tables
from flipgames.games.flipflop.geometry import Geometry
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
from flipgames.kernels.parts import recorded_replay

if TYPE_CHECKING:
    from flipgames.core.game import Game, State
    from flipgames.games.flipflop.rules import FlipFlop, FlipFlopState

I64 = npt.NDArray[np.int64]

#: Room for the moves of one position: at most N pieces with at most 2(N-1) targets each.
MAX_MOVES = 64


# --- compiled core ----------------------------------------------------------------------------


@jit
def _reach(occupied: int, bishops: int, sq: int, masks: I64, magics: I64, attacks: I64) -> int:
    """The squares the piece on ``sq`` attacks: along each of its rays, the empty squares up
    to and including the first occupied one."""
    face = (bishops >> sq) & 1
    slot = (((occupied & masks[sq, face]) * magics[sq, face]) >> (64 - SLOT_BITS)) & 63
    reach: int = attacks[sq, face, slot]
    return reach


@jit
def _targets(
    mine: int,
    enemy: int,
    bishops: int,
    sq: int,
    goal: int,
    goals: int,
    masks: I64,
    magics: I64,
    attacks: I64,
) -> int:
    """The target squares of the piece on ``sq`` of the side to move (``goal``: its own
    goal's mask): empty squares, or an enemy piece on either goal; in check only the goal."""
    occupied = mine | enemy
    reach = _reach(occupied, bishops, sq, masks, magics, attacks)
    if enemy & goal:
        return reach & goal
    return (reach & ~occupied) | (reach & enemy & goals)


@jit
def _count(
    white: int,
    black: int,
    bishops: int,
    side: int,
    goals: int,
    own_goal: I64,
    masks: I64,
    magics: I64,
    attacks: I64,
) -> int:
    """How many legal moves the side to move has (repetition ignored)."""
    mine, enemy = (white, black) if side == 0 else (black, white)
    goal = own_goal[side]
    n = 0
    rest = mine
    while rest:
        sq = trailing_zeros(rest)
        rest &= rest - 1
        n += popcount(_targets(mine, enemy, bishops, sq, goal, goals, masks, magics, attacks))
    return n


@jit
def _generate(
    white: int,
    black: int,
    bishops: int,
    side: int,
    area: int,
    goals: int,
    own_goal: I64,
    masks: I64,
    magics: I64,
    attacks: I64,
    out: I64,
) -> int:
    """Write the legal action ids of the side to move into ``out`` in increasing order
    (repetition ignored); return how many."""
    mine, enemy = (white, black) if side == 0 else (black, white)
    goal = own_goal[side]
    n = 0
    rest = mine
    while rest:
        sq = trailing_zeros(rest)
        rest &= rest - 1
        to = _targets(mine, enemy, bishops, sq, goal, goals, masks, magics, attacks)
        while to:
            out[n] = sq * area + trailing_zeros(to)
            to &= to - 1
            n += 1
    return n


@jit
def _apply(
    white: int, black: int, bishops: int, side: int, action: int, area: int
) -> tuple[int, int, int, bool]:
    """The position after ``action`` (pieces and faces; the caller flips the side to move),
    and whether it captured. The moved piece lands showing its other face; a captured
    piece's face leaves with it."""
    origin = 1 << (action // area)
    target = 1 << (action % area)
    moved = origin | target
    if side == 0:
        captured = black & target
        white ^= moved
        black &= ~target
    else:
        captured = white & target
        black ^= moved
        white &= ~target
    bishops = (bishops & ~moved) | (0 if bishops & origin else target)
    return white, black, bishops, captured != 0


@jit
def _random_move(
    white: int,
    black: int,
    bishops: int,
    side: int,
    rng: npt.NDArray[np.uint64],
    area: int,
    goals: int,
    own_goal: I64,
    masks: I64,
    magics: I64,
    attacks: I64,
    origins: I64,
    reach: I64,
) -> int:
    """A uniformly random legal action, the one ``below(rng, n)`` picks from the sorted
    list, found without listing the moves (``origins``, ``reach``: room for one entry per
    piece); -1 when there is none (then ``rng`` is not advanced)."""
    mine, enemy = (white, black) if side == 0 else (black, white)
    goal = own_goal[side]
    pieces, total = 0, 0
    rest = mine
    while rest:
        sq = trailing_zeros(rest)
        rest &= rest - 1
        to = _targets(mine, enemy, bishops, sq, goal, goals, masks, magics, attacks)
        origins[pieces] = sq
        reach[pieces] = to
        total += popcount(to)
        pieces += 1
    if total == 0:
        return -1
    index = np.int64(below(rng, total))  # below() is unsigned; mixed with int it is float
    for i in range(pieces):
        here = popcount(reach[i])
        if index < here:
            bits: int = reach[i]
            for _ in range(index):
                bits &= bits - 1
            origin: int = origins[i]
            return origin * area + trailing_zeros(bits)
        index -= here
    return -1


@jit
def _perft(
    white: int,
    black: int,
    bishops: int,
    side: int,
    depth: int,
    area: int,
    goals: int,
    own_goal: I64,
    masks: I64,
    magics: I64,
    attacks: I64,
) -> int:
    """perft(depth >= 1), the last ply counted in bulk. Depth first over an explicit stack,
    one row per ply (the position, the pieces still to move and the current piece's targets
    still to try): a recursive call would pass every table again at each node."""
    if depth == 1:
        return _count(white, black, bishops, side, goals, own_goal, masks, magics, attacks)
    # Columns: white, black, bishops, pieces left, targets left, origin.
    stack = np.zeros((depth, 6), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = white, black, bishops
    stack[0, 3] = white if side == 0 else black
    level, total = 0, 0
    while level >= 0:
        row = stack[level]
        mover = side ^ (level & 1)
        w, b, bi = row[0], row[1], row[2]
        mine, enemy = (w, b) if mover == 0 else (b, w)
        if row[4] == 0:
            if row[3] == 0:
                level -= 1
                continue
            sq = trailing_zeros(row[3])
            row[3] &= row[3] - 1
            row[5] = sq
            goal = own_goal[mover]
            row[4] = _targets(mine, enemy, bi, sq, goal, goals, masks, magics, attacks)
            continue
        action = row[5] * area + trailing_zeros(row[4])
        row[4] &= row[4] - 1
        w, b, bi, _ = _apply(w, b, bi, mover, action, area)
        if level == depth - 2:
            total += _count(w, b, bi, mover ^ 1, goals, own_goal, masks, magics, attacks)
        else:
            level += 1
            child = stack[level]
            child[0], child[1], child[2] = w, b, bi
            child[3] = b if mover == 0 else w
            child[4] = 0
    return total


@jit
def _status(count: int, moves: int, side: int) -> int:
    """The status of a position on a line of play: the third occurrence draws (before
    anything else, as in the reference), else no legal move loses for the side to move."""
    if count >= 3:
        return DRAWN
    if moves == 0:
        return SECOND_WINS if side == 0 else FIRST_WINS
    return ONGOING


@jit
def _play(
    actions: I64,
    rng: npt.NDArray[np.uint64],
    max_plies: int,
    white: int,
    black: int,
    area: int,
    goals: int,
    own_goal: I64,
    masks: I64,
    magics: I64,
    attacks: I64,
    history: I64,
    seen: I64,
    scratch: I64,
    legal: I64,
) -> tuple[int, int]:
    """Play one game from the start: the given ``actions`` while they last (``-1`` ends
    them), then uniformly random ones, to the end or ``max_plies``; the actions played go
    into ``actions``. When ``legal`` has rows, every position's legal actions (increasing,
    padded with -1; status in the last column) are recorded there. Returns (status, plies):
    an unfinished game has status ONGOING, an illegal given action status -1. ``scratch``:
    room for MAX_MOVES moves and two entries per piece."""
    bishops, side, ply, since = 0, 0, 0, 0
    seen[:] = 0
    history[0, 0], history[0, 1], history[0, 2] = white, black, bishops
    count = occurrences(history, 0, 0, seen)
    moves = scratch[:MAX_MOVES]
    origins, reach = scratch[MAX_MOVES : MAX_MOVES + 32], scratch[MAX_MOVES + 32 :]
    while True:
        action = -1
        if count >= 3:  # drawn before anything else: the moves do not matter
            n = 1
        elif ply < legal.shape[0] or actions[ply] >= 0:
            n = _generate(
                white, black, bishops, side, area, goals, own_goal, masks, magics, attacks, moves
            )
        elif ply >= max_plies:  # a finished position still counts as finished
            n = _count(white, black, bishops, side, goals, own_goal, masks, magics, attacks)
        else:
            action = _random_move(
                white,
                black,
                bishops,
                side,
                rng,
                area,
                goals,
                own_goal,
                masks,
                magics,
                attacks,
                origins,
                reach,
            )
            n = 0 if action < 0 else 1
        status = _status(count, n, side)
        if ply < legal.shape[0]:
            ordered = moves[:n] if status == ONGOING else moves[:0]
            legal[ply, : len(ordered)] = ordered
            legal[ply, len(ordered) : -1] = -1
            legal[ply, -1] = status
        if status != ONGOING or ply >= max_plies:
            return status, ply
        if actions[ply] >= 0:
            action = actions[ply]
            if not np.any(moves[:n] == action):
                return -1, ply
        elif action < 0:
            action = moves[below(rng, n)]
        actions[ply] = action
        white, black, bishops, captured = _apply(white, black, bishops, side, action, area)
        side ^= 1
        ply += 1
        history[ply, 0], history[ply, 1], history[ply, 2] = white, black, bishops
        if captured:
            since = ply
            seen[:] = 0
        count = occurrences(history, ply, since, seen)


@jit
def _playouts(
    n: int,
    rng: npt.NDArray[np.uint64],
    max_plies: int,
    white: int,
    black: int,
    area: int,
    goals: int,
    own_goal: I64,
    masks: I64,
    magics: I64,
    attacks: I64,
    record: I64,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32], int]:
    """``n`` random games; the actions of game ``g`` go to ``record[g]`` when it has rows."""
    returns = np.zeros(n, dtype=np.int8)
    plies = np.zeros(n, dtype=np.int32)
    history = np.zeros((max_plies + 1, 3), dtype=np.int64)
    seen = np.zeros(FILTER_WORDS, dtype=np.int64)
    scratch = np.zeros(MAX_MOVES + 64, dtype=np.int64)
    actions = np.full(max_plies + 1, -1, dtype=np.int64)
    no_legal = np.zeros((0, MAX_MOVES + 1), dtype=np.int64)
    capped = 0
    for g in range(n):
        actions[:] = -1
        status, length = _play(
            actions,
            rng,
            max_plies,
            white,
            black,
            area,
            goals,
            own_goal,
            masks,
            magics,
            attacks,
            history,
            seen,
            scratch,
            no_legal,
        )
        capped += store_playout(returns, plies, record, actions, g, status, length)
    return returns, plies, capped


# --- the Python face --------------------------------------------------------------------------


def _is_flipflop(game: Game, size: int) -> bool:
    """Whether ``game`` is this package's FlipFlop of ``size`` (by its class's module: the
    helpers import the rules for typing only)."""
    rules = f"{__package__}.rules"
    return type(game).__module__ == rules and getattr(game, "size", None) == size


class Bitboard:
    """FlipFlop of one size on bitboards: perft, random playouts and replays from the start,
    and conversion from and to the reference states. Build it with :meth:`of`."""

    def __init__(self, size: int) -> None:
        self.geometry = Geometry.of(size)
        self.tables = tables(size)

    @classmethod
    @cache
    def of(cls, size: int) -> Bitboard:
        """The bitboard of a ``size`` x ``size`` game, built once per process."""
        return cls(size)

    def args(self) -> tuple[int, int, I64, I64, I64, I64]:
        """What the compiled functions take after the position: area, both goals' mask, each
        side's own goal's mask, and the attack lookups' masks, multipliers and attacks."""
        t = self.tables
        return self.geometry.area, t.goals, t.own_goal, t.masks, t.magics, t.attacks

    def from_state(self, state: State) -> tuple[int, int, int, int]:
        """``(white, black, bishops, side)`` of a reference state of this size."""
        size = self.geometry.size
        if not _is_flipflop(state.game, size):
            raise ValueError(f"not a FlipFlop {size}x{size} state")
        flipflop = cast("FlipFlopState", state)
        return flipflop.white, flipflop.black, flipflop.bishops, flipflop.side

    def to_state(self, game: Game, position: tuple[int, int, int, int]) -> State:
        """The reference state of ``position`` (no history: repetition counts start there)."""
        size = self.geometry.size
        if not _is_flipflop(game, size):
            raise ValueError(f"{game.name} is not FlipFlop {size}x{size}")
        return cast("FlipFlop", game).state_at(*position)

    def legal_actions(self, position: tuple[int, int, int, int]) -> list[int]:
        """The legal action ids of ``position``, increasing (repetition ignored)."""
        white, black, bishops, side = position
        out = np.zeros(MAX_MOVES, dtype=np.int64)
        n = _generate(white, black, bishops, side, *self.args(), out)
        return [int(a) for a in out[:n]]

    def apply(self, position: tuple[int, int, int, int], action: int) -> tuple[int, int, int, int]:
        """The position after the legal ``action`` (a ValueError for an illegal one)."""
        if action not in self.legal_actions(position):
            raise ValueError(f"action {action} is not legal here")
        white, black, bishops, side = position
        w, b, bi, _ = _apply(white, black, bishops, side, action, self.geometry.area)
        return w, b, bi, 1 - side

    def perft(self, state: State, depth: int) -> int:
        """perft from a reference state (repetition ignored, as the ruling defines it)."""
        if depth < 0:
            raise ValueError(f"perft depth must be at least 0, got {depth}")
        if depth == 0:
            return 1
        white, black, bishops, side = self.from_state(state)
        return int(_perft(white, black, bishops, side, depth, *self.args()))

    def traced_playouts(
        self, n: int, seed: int, max_plies: int = 200, record: int | None = None
    ) -> tuple[PlayoutBatch, I64]:
        """``n`` uniformly random games from the start, seeded, plus the actions of the first
        ``record`` games (default all), one row each, padded with -1."""
        if n < 0 or max_plies < 0:
            raise ValueError(f"playouts need n >= 0 and max_plies >= 0, got {n}, {max_plies}")
        rows = n if record is None else min(record, n)
        actions = np.full((rows, max_plies + 1), -1, dtype=np.int64)
        white, black = self.geometry.start
        returns, plies, capped = _playouts(
            n, seeded(seed), max_plies, white, black, *self.args(), actions
        )
        return PlayoutBatch(returns, plies, int(capped)), actions

    def replay(self, actions: list[int]) -> Replay:
        """Play ``actions`` from the start, recording every position's legal actions and
        status; stops where the game ends or at the first action found illegal."""
        plies = len(actions)
        given = np.array([*actions, -1], dtype=np.int64)
        legal = np.zeros((plies + 1, MAX_MOVES + 1), dtype=np.int64)
        white, black = self.geometry.start
        status, played = _play(
            given,
            seeded(0),
            plies,
            white,
            black,
            *self.args(),
            np.zeros((plies + 1, 3), dtype=np.int64),
            np.zeros(FILTER_WORDS, dtype=np.int64),
            np.zeros(MAX_MOVES + 64, dtype=np.int64),
            legal,
        )
        return recorded_replay(given, legal, played, status)
