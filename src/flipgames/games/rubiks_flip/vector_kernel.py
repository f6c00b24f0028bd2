"""Rubik's Flip's compiled batch of environments (any option set), for
:mod:`flipgames.envs.vector`.

Per environment: the agent's action (checked against the legal actions), the opponent's
uniformly random reply, then the observation tensor of :mod:`.tensor` and the legal-action
mask, all in machine code over :mod:`.kernel`'s ``groups`` and ``play``. The legal actions are
kept as their groups (a flip and the squares a tile may then go to), never listed one by one:
a position can have hundreds, and listing them twice a step, then scanning them to check the
agent's action, took most of a step; the opponent's uniformly random pick is the same action
the full list would give. Every turn places a tile, so positions never repeat and a game
lasts at most 16 plies. The bookkeeping (seats,
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
from flipgames.games.rubiks_flip.kernel import (
    FULL,
    GROUP_SHIFT,
    MAX_GROUPS,
    NONE,
    groups,
    play,
    spread,
)
from flipgames.games.rubiks_flip.notation import PLACEMENTS
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
    batch_jit,
    begin_episode,
    clear,
    draw,
    opponent_to_move,
    record_reply,
    settle,
    trailing_zeros,
)

if TYPE_CHECKING:
    from flipgames.games.rubiks_flip.kernel import RubiksFlipKernel

I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]

#: Board words per environment: the first player's tiles, the second's, the second faces
#: shown, the winner (NONE while there is none) and how many groups of legal actions
#: (:func:`.kernel.groups`) ``moves`` holds.
FIRST, SECOND, FACES, WINNER, GROUPS = range(5)
#: ``params``: the option flags (as the kernel takes them), the seat, the ply cap and whether
#: a policy plays the opponent (the batch then stops where the opponent is to act).
FLAP, KING, MOVER_FIRST, SEAT_MODE, MAX_PLIES, OUTSIDE = range(6)
#: Tiles each player places in a game; the tensor shows those still in hand over this.
TILES = 8
#: Squares of the board: one plane of the tensor.
AREA = 16


@batch_jit
def _refresh(s: Arrays, e: int, params: I64) -> None:
    """``e``'s legal actions (as :func:`.kernel.groups`, their count in ``NMOVES``), its side
    to move and its status."""
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
        board[e, GROUPS] = groups(first, second, params[FLAP], params[KING], moves[e])
        n = board[e, GROUPS] * 2 * (16 - _popcount(occupied))
    meta[e, NMOVES] = n


@batch_jit
def _nth(s: Arrays, e: int, k: int) -> int:
    """The ``k``-th legal action of ``e`` in the reference's order (what ``moves[e, k]`` of a
    full list would hold): each group holds two actions per square of its squares."""
    board, moves = s[0], s[4]
    size = 2 * (16 - _popcount(board[e, FIRST] | board[e, SECOND]))
    group = moves[e, k // size]
    rest = k % size
    squares = group & FULL
    for _ in range(rest >> 1):
        squares &= squares - 1
    square = trailing_zeros(squares)
    return int((group >> GROUP_SHIFT) * PLACEMENTS + 2 * square + (rest & 1))


@batch_jit
def _allows(s: Arrays, e: int, action: int) -> bool:
    """True when ``action`` is legal in ``e`` and its agent is to move: the action's flip
    part has a group (parts are unique among them) holding the action's square."""
    board, meta, moves = s[0], s[1], s[4]
    if meta[e, STATUS] != ONGOING or meta[e, SIDE] != meta[e, SEAT] or action < 0:
        return False
    part, square = action // PLACEMENTS, (action % PLACEMENTS) >> 1
    for g in range(board[e, GROUPS]):
        if moves[e, g] >> GROUP_SHIFT == part:
            return bool(moves[e, g] >> square & 1)
    return False


@batch_jit
def _mark(s: Arrays, e: int, mask: I8) -> None:
    """``e``'s legal actions into ``mask`` (a row, cleared first)."""
    board, moves = s[0], s[4]
    for action in range(len(mask)):
        mask[action] = 0
    for g in range(board[e, GROUPS]):
        base = (moves[e, g] >> GROUP_SHIFT) * PLACEMENTS
        squares = moves[e, g] & FULL
        while squares:
            action = base + 2 * trailing_zeros(squares)
            mask[action] = mask[action + 1] = 1
            squares &= squares - 1


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
    """The opponent's uniformly random actions while it is to move (recording the last);
    none when a policy plays it (the caller asks the policy)."""
    meta, rng = s[1], s[5]
    while not params[OUTSIDE] and opponent_to_move(meta, e, params[MAX_PLIES]):
        action = _nth(s, e, draw(rng, e, meta[e, NMOVES]))
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
def _observe(s: Arrays, e: int, seat: int, row: F32, mask: I8, params: I64) -> None:
    """``e``'s observation tensor from ``seat`` (the planes of :mod:`.tensor`) into ``row``
    and its mask into ``mask`` (the legal actions while ``seat`` is to move, else zeros).
    Every square of every plane is written in one pass over the 16 squares (no clearing
    first, no search for set bits: that took four fifths of a step)."""
    board, meta = s[0], s[1]
    faces = board[e, FACES]
    mine, theirs = board[e, FIRST + seat], board[e, SECOND - seat]
    occupied = mine | theirs
    locked = occupied & ~spread(FULL ^ occupied, params[KING])
    my_hand = (TILES - _popcount(mine)) / TILES
    their_hand = (TILES - _popcount(theirs)) / TILES
    to_act = meta[e, SIDE] == seat and meta[e, STATUS] == ONGOING
    for square in range(AREA):
        row[square] = (mine & ~faces) >> square & 1
        row[AREA + square] = (mine & faces) >> square & 1
        row[2 * AREA + square] = (theirs & ~faces) >> square & 1
        row[3 * AREA + square] = (theirs & faces) >> square & 1
        row[4 * AREA + square] = locked >> square & 1
        row[5 * AREA + square] = my_hand
        row[6 * AREA + square] = their_hand
        row[7 * AREA + square] = to_act
    if to_act:
        _mark(s, e, mask)
    else:
        for action in range(len(mask)):
            mask[action] = 0


@batch_jit
def _observe_agent(s: Arrays, out: Outputs, e: int, params: I64) -> None:
    _observe(s, e, s[1][e, SEAT], out[0][e], out[1][e], params)


@batch_jit
def _reset_all(s: Arrays, out: Outputs, params: I64) -> None:
    for e in range(len(s[0])):
        clear(out, e)
        _begin(s, out, e, params)
        _observe_agent(s, out, e, params)


@batch_jit
def _step_all(s: Arrays, out: Outputs, actions: I64, params: I64) -> None:
    meta = s[1]
    rewards, terminated, truncated, illegal = out[2], out[3], out[4], out[6]
    for e in range(len(actions)):
        clear(out, e)
        if meta[e, DONE]:  # next-step autoreset: the action is ignored
            _begin(s, out, e, params)
        elif not _allows(s, e, actions[e]):
            rewards[e] = -1.0
            terminated[e] = illegal[e] = True
            meta[e, DONE] = 1
        else:
            _play(s, e, actions[e], params)
            _reply(s, out, e, params)
            settle(meta, e, params[MAX_PLIES], rewards, terminated, truncated)
        _observe_agent(s, out, e, params)


@batch_jit
def _opponent_view(s: Arrays, rows: I64, observations: F32, masks: I8, params: I64) -> None:
    for e in rows:
        _observe(s, e, 1 - s[1][e, SEAT], observations[e], masks[e], params)


@batch_jit
def _opponent_step(
    s: Arrays, out: Outputs, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_], params: I64
) -> None:
    meta = s[1]
    for e in rows:
        record_reply(out, e, actions[e], True)
        _play(s, e, actions[e], params)
        if not fresh[e]:
            settle(meta, e, params[MAX_PLIES], out[2], out[3], out[4])
        _observe_agent(s, out, e, params)


class RubiksFlipBatch(EnvBatch["RubiksFlipKernel"]):
    """A batch of Rubik's Flip environments of one option set; see the module docstring."""

    supports_policy = True

    def __init__(
        self, kernel: RubiksFlipKernel, num_envs: int, seat: int | None, max_plies: int
    ) -> None:
        actions = kernel.num_actions
        super().__init__(kernel, num_envs, seat, max_plies, PLANES * 16, actions, 5, MAX_GROUPS)
        self.params = np.array([*kernel.flags, self.seat, max_plies, 0], dtype=np.int64)

    def _reset_all(self) -> None:
        _reset_all(self.arrays(), self.outputs(), self.params)

    def _step_all(self, actions: I64) -> None:
        _step_all(self.arrays(), self.outputs(), actions, self.params)

    def _outside_opponent(self, on: bool) -> None:
        self.params[OUTSIDE] = int(on)

    def _opponent_view(self, rows: I64, observations: F32, masks: I8) -> None:
        _opponent_view(self.arrays(), rows, observations, masks, self.params)

    def _opponent_step(self, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_]) -> None:
        _opponent_step(self.arrays(), self.outputs(), actions, rows, fresh, self.params)
