"""FlipFlop's compiled batch of environments (both sizes): every environment of a batch
stepped in one call, for :mod:`flipgames.envs.vector`.

Per environment: the agent's action (checked against the legal actions), the opponent's
uniformly random reply, then the observation tensor of :mod:`.tensor` and the legal-action
mask, all in machine code over :mod:`.bitboard`'s move generator (legal actions in increasing
id) and apply. The bookkeeping
(seats, episode ends, next-step autoreset, seeding) is :mod:`flipgames.kernels.vector`'s.

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
from flipgames.games.flipflop.bitboard import MAX_MOVES, Bitboard, _apply, _generate, _status
from flipgames.games.flipflop.tensor import PLANES
from flipgames.kernels.jit import occurrences
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
    agent_may_play,
    batch_jit,
    begin_episode,
    clear,
    draw,
    opponent_to_move,
    record_reply,
    settle,
    write_bits,
    write_mask,
)

if TYPE_CHECKING:
    from flipgames.games.flipflop.kernel import FlipFlopKernel

I64 = npt.NDArray[np.int64]
#: The bitboard's lookups (:meth:`.Bitboard.args`): each side's own goal's mask, the attack
#: masks, multipliers and attacks.
Lookups = tuple[I64, I64, I64, I64]

#: ``params``: White's goal, Black's goal, area, White's and Black's start, seat, ply cap.
GOAL0, GOAL1, AREA, WHITE0, BLACK0, SEAT_MODE, MAX_PLIES = range(7)


@batch_jit
def _refresh(s: Arrays, e: int, tables: Lookups, params: I64) -> None:
    """Generate ``e``'s legal actions and set its status."""
    board, meta, _, _, moves, _ = s
    own_goal, masks, magics, attacks = tables
    n = _generate(
        board[e, 0], board[e, 1], board[e, 2], meta[e, SIDE], params[AREA],
        own_goal[0] | own_goal[1], own_goal, masks, magics, attacks, moves[e],
    )  # fmt: skip
    meta[e, NMOVES] = n
    meta[e, STATUS] = _status(meta[e, COUNT], n, meta[e, SIDE])


@batch_jit
def _play(s: Arrays, e: int, action: int, tables: Lookups, params: I64) -> None:
    """Apply a legal ``action`` in ``e``, counting the repetition as the reference does
    (since the last capture)."""
    board, meta, history, seen, _, _ = s
    white, black, bishops, captured = _apply(
        board[e, 0], board[e, 1], board[e, 2], meta[e, SIDE], action, params[AREA]
    )
    board[e, 0], board[e, 1], board[e, 2] = white, black, bishops
    meta[e, SIDE] ^= 1
    meta[e, PLY] += 1
    if captured:
        meta[e, SINCE] = meta[e, PLY]
        seen[e, :] = 0
    quiet = meta[e, PLY] - meta[e, SINCE]
    history[e, quiet, 0], history[e, quiet, 1], history[e, quiet, 2] = white, black, bishops
    meta[e, COUNT] = occurrences(history[e], quiet, 0, seen[e])
    _refresh(s, e, tables, params)


@batch_jit
def _reply(s: Arrays, out: Outputs, e: int, tables: Lookups, params: I64) -> None:
    """The opponent's uniformly random actions while it is to move (recording the last)."""
    meta, moves, rng = s[1], s[4], s[5]
    while opponent_to_move(meta, e, params[MAX_PLIES]):
        action = moves[e, draw(rng, e, meta[e, NMOVES])]
        record_reply(out, e, action, True)
        _play(s, e, action, tables, params)


@batch_jit
def _begin(s: Arrays, out: Outputs, e: int, tables: Lookups, params: I64) -> None:
    """A new game in ``e``: the start position, the agent's seat, the opponent's first move
    when the agent plays second."""
    board, meta, history, seen, _, rng = s
    begin_episode(meta, seen, rng, e, params[SEAT_MODE])
    white, black = params[WHITE0], params[BLACK0]
    board[e, 0], board[e, 1], board[e, 2] = white, black, 0
    history[e, 0, 0], history[e, 0, 1], history[e, 0, 2] = white, black, 0
    meta[e, COUNT] = occurrences(history[e], 0, 0, seen[e])
    _refresh(s, e, tables, params)
    _reply(s, out, e, tables, params)


@batch_jit
def _observe(s: Arrays, out: Outputs, e: int, params: I64) -> None:
    """``e``'s observation tensor from its agent's seat (the planes of :mod:`.tensor`) and
    its mask."""
    board, meta, _, _, moves, _ = s
    observations, masks = out[0], out[1]
    area, seat = params[AREA], meta[e, SEAT]
    observations[e, :] = 0.0
    bishops = board[e, 2]
    mine, theirs = (board[e, 0], board[e, 1]) if seat == 0 else (board[e, 1], board[e, 0])
    write_bits(observations, e, 0, mine & ~bishops)
    write_bits(observations, e, area, mine & bishops)
    write_bits(observations, e, 2 * area, theirs & ~bishops)
    write_bits(observations, e, 3 * area, theirs & bishops)
    goals = (params[GOAL0], params[GOAL1]) if seat == 0 else (params[GOAL1], params[GOAL0])
    observations[e, 4 * area + goals[0]] = 1.0
    observations[e, 5 * area + goals[1]] = 1.0
    if meta[e, SIDE] == seat and meta[e, STATUS] == ONGOING:
        observations[e, 6 * area : 7 * area] = 1.0
    if meta[e, COUNT] >= 2:
        observations[e, 7 * area : 8 * area] = 1.0
    write_mask(meta, moves, masks, e)


@batch_jit
def _reset_all(s: Arrays, out: Outputs, tables: Lookups, params: I64) -> None:
    for e in range(len(s[0])):
        clear(out, e)
        _begin(s, out, e, tables, params)
        _observe(s, out, e, params)


@batch_jit
def _step_all(s: Arrays, out: Outputs, actions: I64, tables: Lookups, params: I64) -> None:
    meta = s[1]
    rewards, terminated, truncated, illegal = out[2], out[3], out[4], out[6]
    for e in range(len(actions)):
        clear(out, e)
        if meta[e, DONE]:  #: next-step autoreset, the action is ignored
            _begin(s, out, e, tables, params)
        elif not agent_may_play(meta, s[4], e, actions[e]):
            rewards[e] = -1.0
            terminated[e] = illegal[e] = True
            meta[e, DONE] = 1
        else:
            _play(s, e, actions[e], tables, params)
            _reply(s, out, e, tables, params)
            settle(meta, e, params[MAX_PLIES], rewards, terminated, truncated)
        _observe(s, out, e, params)


class FlipFlopBatch(EnvBatch["FlipFlopKernel"]):
    """A batch of FlipFlop environments of one size; see the module docstring."""

    def __init__(self, kernel: FlipFlopKernel, num_envs: int, seat: int | None, max_plies: int):
        g = kernel.geometry
        area = g.area
        super().__init__(
            kernel, num_envs, seat, max_plies, PLANES * area, area * area, 3, MAX_MOVES
        )
        white, black = g.start
        self.params = np.array(
            [g.goals[0], g.goals[1], area, white, black, self.seat, max_plies], dtype=np.int64
        )
        _, _, own_goal, masks, magics, attacks = Bitboard.of(g.size).args()
        self.tables: Lookups = (own_goal, masks, magics, attacks)

    def _reset_all(self) -> None:
        _reset_all(self.arrays(), self.outputs(), self.tables, self.params)

    def _step_all(self, actions: I64) -> None:
        _step_all(self.arrays(), self.outputs(), actions, self.tables, self.params)
