"""FlipFlop's compiled batch of environments (both sizes): every environment of a batch
stepped in one call, for :mod:`flipgames.envs.vector`.

Per environment: the agent's action (checked against the legal actions), the opponent's
uniformly random reply (or, with a policy as the opponent, a stop where it is to move: the
policy's action is played by :func:`_opponent_step`), then the observation tensor of
:mod:`.tensor` and the legal-action mask, all in machine code over :mod:`.bitboard`'s target
squares and apply. The bookkeeping (seats, episode ends, next-step autoreset, seeding) is
:mod:`flipgames.kernels.vector`'s.

>>> import numpy as np
>>> from flipgames import make
>>> batch = make("flipflop-3x3").kernel().vector(4, seat=0, max_plies=1000)
>>> batch.reset(np.arange(4, dtype=np.uint64))
>>> batch.masks.sum(axis=1).tolist()  # White's four opening moves, in every environment
[4, 4, 4, 4]
>>> batch.step(np.full(4, 16))  # b1xb3: legal everywhere; Black replies at random
>>> batch.illegal.tolist(), bool((batch.opponent_actions >= 0).all())
([False, False, False, False], True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import ONGOING
from flipgames.games.flipflop.bitboard import Bitboard, _apply, _status, _targets
from flipgames.games.flipflop.tensor import PLANES
from flipgames.kernels.jit import popcount
from flipgames.kernels.vector import (
    COUNT,
    DONE,
    NMOVES,
    PLY,
    SEAT,
    SIDE,
    SINCE,
    STATUS,
    Arrays,
    EnvBatch,
    Outputs,
    batch_jit,
    begin_episode,
    clear,
    draw,
    occurrences,
    opponent_to_move,
    record_reply,
    settle,
    trailing_zeros,
)

if TYPE_CHECKING:
    from flipgames.games.flipflop.kernel import FlipFlopKernel

I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
#: The bitboard's lookups (:meth:`.Bitboard.args`): each side's own goal's mask, the attack
#: masks, multipliers and attacks.
Lookups = tuple[I64, I64, I64, I64]

#: Where each environment's filter of positions seen since the last capture sits in its row
#: of ``board`` (after White's, Black's and the bishop words), and its length: 512 bits
#: (:func:`flipgames.kernels.vector.occurrences`), next to the position instead of in the
#: batch's ``seen`` rows (2 KB apart, a cache miss per ply at 1,024 environments). A random
#: game's quiet stretches are short: a few dozen positions.
FILTER, FILTER_END = 3, 11

#: ``params``: White's goal, Black's goal, area, White's and Black's start, seat, ply cap and
#: whether a policy plays the opponent (the batch then stops where the opponent is to move).
GOAL0, GOAL1, AREA, WHITE0, BLACK0, SEAT_MODE, MAX_PLIES, OUTSIDE = range(8)


@batch_jit
def _refresh(s: Arrays, e: int, tables: Lookups, params: I64) -> None:
    """Set ``e``'s status and the side to move's legal actions as each piece's target squares
    in ``moves`` (one entry per piece, in square order): :func:`_nth` draws the random
    opponent's reply from them, :func:`_allows` checks an action against them and
    :func:`_mark` writes the mask from them, so no list of actions is written (the agent's
    list, written and scanned every step, was most of the ``moves`` rows' traffic). Nothing
    once the position is drawn."""
    board, meta, _, _, moves, _ = s
    own_goal, masks, magics, attacks = tables
    side, count = meta[e, SIDE], meta[e, COUNT]
    n = 0
    if count < 3:  # drawn before anything else: the moves do not matter
        mine, enemy = (board[e, 0], board[e, 1]) if side == 0 else (board[e, 1], board[e, 0])
        goals, goal, bishops = own_goal[0] | own_goal[1], own_goal[side], board[e, 2]
        rest, piece = mine, 0
        while rest:
            sq = trailing_zeros(rest)
            rest &= rest - 1
            to = _targets(mine, enemy, bishops, sq, goal, goals, masks, magics, attacks)
            moves[e, piece] = to
            n += popcount(to)
            piece += 1
    meta[e, NMOVES] = n
    meta[e, STATUS] = _status(count, n, side)


@batch_jit
def _allows(s: Arrays, e: int, action: int, area: int) -> bool:
    """True when ``action`` is legal in ``e`` and its agent is to move: a piece of the side
    to move on the origin square, whose targets hold the target square."""
    board, meta, moves = s[0], s[1], s[4]
    if meta[e, STATUS] != ONGOING or meta[e, SIDE] != meta[e, SEAT]:
        return False
    if action < 0 or action >= area * area:
        return False
    origin, target = action // area, action % area
    mine = board[e, 0] if meta[e, SIDE] == 0 else board[e, 1]
    if not (mine >> origin) & 1:
        return False
    piece = popcount(mine & ((1 << origin) - 1))
    return bool((moves[e, piece] >> target) & 1)


@batch_jit
def _mark(s: Arrays, e: int, seat: int, mask: I8, area: int) -> None:
    """``mask``: the legal actions of ``e`` while ``seat`` is to move and the game goes on
    (from the targets :func:`_refresh` left), else all zeros."""
    board, meta, moves = s[0], s[1], s[4]
    for action in range(len(mask)):  # a plain loop: cheaper than mask[:] = 0
        mask[action] = 0
    if meta[e, STATUS] != ONGOING or meta[e, SIDE] != seat:
        return
    rest = board[e, 0] if seat == 0 else board[e, 1]
    piece = 0
    while rest:
        sq = trailing_zeros(rest)
        rest &= rest - 1
        to = moves[e, piece]
        while to:
            mask[sq * area + trailing_zeros(to)] = 1
            to &= to - 1
        piece += 1


@batch_jit
def _nth(s: Arrays, e: int, index: int, area: int) -> int:
    """The ``index``-th of the opponent's legal actions in increasing id (the list the
    reference draws from), from the targets :func:`_refresh` left in ``moves``."""
    board, meta, moves = s[0], s[1], s[4]
    rest = board[e, 0] if meta[e, SIDE] == 0 else board[e, 1]
    piece, left = 0, np.int64(index)  # draw() is unsigned: mixed with int it is float
    while True:
        sq = trailing_zeros(rest)
        rest &= rest - 1
        to = moves[e, piece]
        here = popcount(to)
        if left < here:
            for _ in range(left):
                to &= to - 1
            return int(sq * area + trailing_zeros(to))
        left -= here
        piece += 1


@batch_jit
def _play(s: Arrays, e: int, action: int, tables: Lookups, params: I64) -> None:
    """Apply a legal ``action`` in ``e``, counting the repetition as the reference does
    (since the last capture)."""
    board, meta, history = s[0], s[1], s[2]
    white, black, bishops, captured = _apply(
        board[e, 0], board[e, 1], board[e, 2], meta[e, SIDE], action, params[AREA]
    )
    board[e, 0], board[e, 1], board[e, 2] = white, black, bishops
    meta[e, SIDE] ^= 1
    meta[e, PLY] += 1
    if captured:
        meta[e, SINCE] = meta[e, PLY]
        board[e, FILTER:FILTER_END] = 0
    quiet = meta[e, PLY] - meta[e, SINCE]
    history[e, quiet, 0], history[e, quiet, 1], history[e, quiet, 2] = white, black, bishops
    meta[e, COUNT] = occurrences(history[e], quiet, board[e, FILTER:FILTER_END])
    _refresh(s, e, tables, params)


@batch_jit
def _reply(s: Arrays, out: Outputs, e: int, tables: Lookups, params: I64) -> None:
    """The opponent's uniformly random actions while it is to move (recording the last);
    none when a policy plays it (the caller asks the policy)."""
    meta, rng = s[1], s[5]
    while not params[OUTSIDE] and opponent_to_move(meta, e, params[MAX_PLIES]):
        action = _nth(s, e, draw(rng, e, meta[e, NMOVES]), params[AREA])
        record_reply(out, e, action, True)
        _play(s, e, action, tables, params)


@batch_jit
def _begin(s: Arrays, out: Outputs, e: int, tables: Lookups, params: I64) -> None:
    """A new game in ``e``: the start position, the agent's seat, the opponent's first move
    when the agent plays second."""
    board, meta, history, rng = s[0], s[1], s[2], s[5]
    begin_episode(meta, board[:, FILTER:FILTER_END], rng, e, params[SEAT_MODE])
    white, black = params[WHITE0], params[BLACK0]
    board[e, 0], board[e, 1], board[e, 2] = white, black, 0
    history[e, 0, 0], history[e, 0, 1], history[e, 0, 2] = white, black, 0
    meta[e, COUNT] = occurrences(history[e], 0, board[e, FILTER:FILTER_END])
    _refresh(s, e, tables, params)
    _reply(s, out, e, tables, params)


@batch_jit
def _observe(s: Arrays, e: int, seat: int, row: F32, mask: I8, params: I64) -> None:
    """``e``'s observation tensor from ``seat`` (the planes of :mod:`.tensor`) into ``row``
    and its mask into ``mask``. Each float of the row is written once, square by square (a
    row of a step's new output array is not in the cache: clearing it first and then
    setting the pieces wrote it twice)."""
    board, meta = s[0], s[1]
    area = params[AREA]
    bishops = board[e, 2]
    mine, theirs = (board[e, 0], board[e, 1]) if seat == 0 else (board[e, 1], board[e, 0])
    goals = (params[GOAL0], params[GOAL1]) if seat == 0 else (params[GOAL1], params[GOAL0])
    turn = 1.0 if meta[e, SIDE] == seat and meta[e, STATUS] == ONGOING else 0.0
    repeated = 1.0 if meta[e, COUNT] >= 2 else 0.0
    for sq in range(area):
        face = (bishops >> sq) & 1
        row[sq] = ((mine >> sq) & 1) & (face ^ 1)
        row[area + sq] = ((mine >> sq) & 1) & face
        row[2 * area + sq] = ((theirs >> sq) & 1) & (face ^ 1)
        row[3 * area + sq] = ((theirs >> sq) & 1) & face
        row[4 * area + sq] = 1.0 if sq == goals[0] else 0.0
        row[5 * area + sq] = 1.0 if sq == goals[1] else 0.0
        row[6 * area + sq] = turn
        row[7 * area + sq] = repeated
    _mark(s, e, seat, mask, area)


@batch_jit
def _observe_agent(s: Arrays, out: Outputs, e: int, params: I64) -> None:
    _observe(s, e, s[1][e, SEAT], out[0][e], out[1][e], params)


@batch_jit
def _reset_all(s: Arrays, out: Outputs, tables: Lookups, params: I64) -> None:
    for e in range(len(s[0])):
        clear(out, e)
        _begin(s, out, e, tables, params)
        _observe_agent(s, out, e, params)


@batch_jit
def _step_all(s: Arrays, out: Outputs, actions: I64, tables: Lookups, params: I64) -> None:
    meta = s[1]
    rewards, terminated, truncated, illegal = out[2], out[3], out[4], out[6]
    for e in range(len(actions)):
        clear(out, e)
        if meta[e, DONE]:  #: next-step autoreset, the action is ignored
            _begin(s, out, e, tables, params)
        elif not _allows(s, e, actions[e], params[AREA]):
            rewards[e] = -1.0
            terminated[e] = illegal[e] = True
            meta[e, DONE] = 1
        else:
            _play(s, e, actions[e], tables, params)
            _reply(s, out, e, tables, params)
            settle(meta, e, params[MAX_PLIES], rewards, terminated, truncated)
        _observe_agent(s, out, e, params)


@batch_jit
def _opponent_view(s: Arrays, rows: I64, observations: F32, masks: I8, params: I64) -> None:
    for e in rows:
        _observe(s, e, 1 - s[1][e, SEAT], observations[e], masks[e], params)


@batch_jit
def _opponent_step(
    s: Arrays, out: Outputs, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_],
    tables: Lookups, params: I64,
) -> None:  # fmt: skip
    meta = s[1]
    for e in rows:
        record_reply(out, e, actions[e], True)
        _play(s, e, actions[e], tables, params)
        if not fresh[e]:
            settle(meta, e, params[MAX_PLIES], out[2], out[3], out[4])
        _observe_agent(s, out, e, params)


class FlipFlopBatch(EnvBatch["FlipFlopKernel"]):
    """A batch of FlipFlop environments of one size; see the module docstring."""

    supports_policy = True

    def __init__(self, kernel: FlipFlopKernel, num_envs: int, seat: int | None, max_plies: int):
        g = kernel.geometry
        area = g.area
        white, black = g.start
        pieces = max(white.bit_count(), black.bit_count())  # a word of targets per piece
        super().__init__(
            kernel, num_envs, seat, max_plies, PLANES * area, area * area, FILTER_END, pieces
        )
        self.params = np.array(
            [g.goals[0], g.goals[1], area, white, black, self.seat, max_plies, 0], dtype=np.int64
        )
        _, _, own_goal, masks, magics, attacks = Bitboard.of(g.size).args()
        self.tables: Lookups = (own_goal, masks, magics, attacks)

    def _reset_all(self) -> None:
        _reset_all(self.arrays(), self.outputs(), self.tables, self.params)

    def _step_all(self, actions: I64) -> None:
        _step_all(self.arrays(), self.outputs(), actions, self.tables, self.params)

    def _outside_opponent(self, on: bool) -> None:
        self.params[OUTSIDE] = int(on)

    def _opponent_view(self, rows: I64, observations: F32, masks: I8) -> None:
        _opponent_view(self.arrays(), rows, observations, masks, self.params)

    def _opponent_step(self, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_]) -> None:
        _opponent_step(
            self.arrays(), self.outputs(), actions, rows, fresh, self.tables, self.params
        )
