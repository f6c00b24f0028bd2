"""Rubik's Flip's compiled batch of environments (any option set), for
:mod:`flipgames.envs.vector`.

Per environment: the agent's action (checked against the legal actions), the opponent's
uniformly random reply, then the observation tensor of :mod:`.tensor` and the legal-action
mask, all in machine code over :mod:`.kernel`'s move generator and ``play``. Every turn places
a tile, so positions never repeat and a game lasts at most 16 plies. The bookkeeping (seats,
episode ends, next-step autoreset, seeding) is :mod:`flipgames.kernels.vector`'s.

>>> import numpy as np
>>> from flipgames import make
>>> batch = make("rubiks-flip").kernel().vector(2, seat=0, max_plies=16)
>>> batch.reset(np.arange(2, dtype=np.uint64))
>>> batch.masks.sum(axis=1).tolist()  # turn 1: any square, either colour
[32, 32]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import DRAWN, FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.games.rubiks_flip.kernel import FULL, MAX_ACTIONS, NONE, generate, play, spread
from flipgames.games.rubiks_flip.tensor import PLANES
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
    from flipgames.games.rubiks_flip.kernel import RubiksFlipKernel

I64 = npt.NDArray[np.int64]

#: Board words per environment: the first player's tiles, the second's, the second faces
#: shown, and the winner (NONE while there is none).
FIRST, SECOND, FACES, WINNER = range(4)
#: ``params``: the option flags (as the kernel takes them), the seat and the ply cap.
FLAP, KING, MOVER_FIRST, SEAT_MODE, MAX_PLIES = range(5)
#: Tiles each player places in a game; the tensor shows those still in hand over this.
TILES = 8


@batch_jit
def _refresh(s: Arrays, e: int, params: I64) -> None:
    """Generate ``e``'s legal actions and set its side to move and status."""
    board, meta, _, _, moves, _ = s
    first, second, winner = board[e, FIRST], board[e, SECOND], board[e, WINNER]
    occupied = first | second
    meta[e, SIDE] = _popcount(occupied) & 1
    n = 0
    if winner == 0:
        meta[e, STATUS] = FIRST_WINS
    elif winner == 1:
        meta[e, STATUS] = SECOND_WINS
    elif occupied == FULL:
        meta[e, STATUS] = DRAWN
    else:
        meta[e, STATUS] = ONGOING
        n = generate(first, second, params[FLAP], params[KING], moves[e], 0)
    meta[e, NMOVES] = n


@batch_jit
def _popcount(x: int) -> int:
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@batch_jit
def _play(s: Arrays, e: int, action: int, params: I64) -> None:
    """Apply a legal ``action`` in ``e`` (every turn places a tile: nothing can repeat)."""
    board, meta = s[0], s[1]
    first, second, faces, winner = play(
        board[e, FIRST], board[e, SECOND], board[e, FACES], action, params[FLAP],
        params[KING], params[MOVER_FIRST],
    )  # fmt: skip
    board[e, FIRST], board[e, SECOND], board[e, FACES], board[e, WINNER] = (
        first, second, faces, winner,
    )  # fmt: skip
    meta[e, PLY] += 1
    meta[e, SINCE] = meta[e, PLY]
    _refresh(s, e, params)


@batch_jit
def _reply(s: Arrays, out: Outputs, e: int, params: I64) -> None:
    """The opponent's uniformly random actions while it is to move (recording the last)."""
    meta, moves, rng = s[1], s[4], s[5]
    while opponent_to_move(meta, e, params[MAX_PLIES]):
        action = moves[e, draw(rng, e, meta[e, NMOVES])]
        record_reply(out, e, action, True)
        _play(s, e, action, params)


@batch_jit
def _begin(s: Arrays, out: Outputs, e: int, params: I64) -> None:
    """A new game in ``e``: the empty board, the agent's seat, the opponent's first turn when
    the agent plays second."""
    board, meta, _, seen, _, rng = s
    begin_episode(meta, seen, rng, e, params[SEAT_MODE])
    board[e, FIRST] = board[e, SECOND] = board[e, FACES] = 0
    board[e, WINNER] = NONE
    meta[e, COUNT] = 1
    _refresh(s, e, params)
    _reply(s, out, e, params)


@batch_jit
def _observe(s: Arrays, out: Outputs, e: int, params: I64) -> None:
    """``e``'s observation tensor from its agent's seat (the planes of :mod:`.tensor`) and
    its mask."""
    board, meta, _, _, moves, _ = s
    observations, masks = out[0], out[1]
    area, seat = 16, meta[e, SEAT]
    observations[e, :] = 0.0
    faces = board[e, FACES]
    mine, theirs = board[e, FIRST + seat], board[e, SECOND - seat]
    occupied = mine | theirs
    write_bits(observations, e, 0, mine & ~faces)
    write_bits(observations, e, area, mine & faces)
    write_bits(observations, e, 2 * area, theirs & ~faces)
    write_bits(observations, e, 3 * area, theirs & faces)
    write_bits(observations, e, 4 * area, occupied & ~spread(FULL ^ occupied, params[KING]))
    observations[e, 5 * area : 6 * area] = (TILES - _popcount(mine)) / TILES
    observations[e, 6 * area : 7 * area] = (TILES - _popcount(theirs)) / TILES
    if meta[e, SIDE] == seat and meta[e, STATUS] == ONGOING:
        observations[e, 7 * area : 8 * area] = 1.0
    write_mask(meta, moves, masks, e)


@batch_jit
def _reset_all(s: Arrays, out: Outputs, params: I64) -> None:
    for e in range(len(s[0])):
        clear(out, e)
        _begin(s, out, e, params)
        _observe(s, out, e, params)


@batch_jit
def _step_all(s: Arrays, out: Outputs, actions: I64, params: I64) -> None:
    meta = s[1]
    rewards, terminated, truncated, illegal = out[2], out[3], out[4], out[6]
    for e in range(len(actions)):
        clear(out, e)
        if meta[e, DONE]:  # next-step autoreset: the action is ignored
            _begin(s, out, e, params)
        elif not agent_may_play(meta, s[4], e, actions[e]):
            rewards[e] = -1.0
            terminated[e] = illegal[e] = True
            meta[e, DONE] = 1
        else:
            _play(s, e, actions[e], params)
            _reply(s, out, e, params)
            settle(meta, e, params[MAX_PLIES], rewards, terminated, truncated)
        _observe(s, out, e, params)


class RubiksFlipBatch(EnvBatch["RubiksFlipKernel"]):
    """A batch of Rubik's Flip environments of one option set; see the module docstring."""

    def __init__(
        self, kernel: RubiksFlipKernel, num_envs: int, seat: int | None, max_plies: int
    ) -> None:
        actions = kernel.num_actions
        super().__init__(kernel, num_envs, seat, max_plies, PLANES * 16, actions, 4, MAX_ACTIONS)
        self.params = np.array([*kernel.flags, self.seat, max_plies], dtype=np.int64)

    def _reset_all(self) -> None:
        _reset_all(self.arrays(), self.outputs(), self.params)

    def _step_all(self, actions: I64) -> None:
        _step_all(self.arrays(), self.outputs(), actions, self.params)
