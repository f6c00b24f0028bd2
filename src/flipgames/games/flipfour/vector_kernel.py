"""FlipFour's compiled batch of environments, for :mod:`flipgames.envs.vector`.

Per environment: the agent's action (checked against the legal actions), the opponent's
uniformly random reply (or, with a policy as the opponent, a stop where it is to move: the
policy's action is played by :func:`_opponent_step`), then the observation tensor of
:mod:`.tensor` and the legal-action mask, all in machine code over :mod:`.kernel`'s move
generator and apply. The bookkeeping (seats, episode ends, next-step autoreset, seeding) is
:mod:`flipgames.kernels.vector`'s.

>>> import numpy as np
>>> from flipgames import make
>>> batch = make("flipfour").kernel().vector(2, seat=1, max_plies=5000)
>>> batch.reset(np.arange(2, dtype=np.uint64))
>>> batch.masks.sum(axis=1).tolist()  # Black may drop either face on the 24 empty squares
[48, 48]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import ONGOING
from flipgames.games.flipfour.board import NUM_SQUARES, PIECES_IN_HAND
from flipgames.games.flipfour.kernel import (
    MAX_ACTIONS,
    FlipFourKernel,
    _apply,
    _count,
    _generate,
    _nth,
    _status,
)
from flipgames.games.flipfour.notation import NUM_ACTIONS
from flipgames.games.flipfour.tensor import PLANES
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
    occurrences,
    opponent_to_move,
    record_reply,
    settle,
    write_mask,
)

I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
Tables = tuple[I64, I64, I64, I64, I64, I64]

#: Board words per environment: White's pieces, Black's, bishop faces, the pieces in hand of
#: each side, and whether the last action made four in a row.
WHITE, BLACK, BISHOPS, HAND0, HAND1, FOUR = range(6)
#: ``params``: the seat (or RANDOM_SEAT), the ply cap and whether a policy plays the opponent
#: (the batch then stops where the opponent is to move).
SEAT_MODE, MAX_PLIES, OUTSIDE = range(3)


@batch_jit
def _refresh(s: Arrays, e: int, tables: Tables) -> None:
    """Set ``e``'s status (no action once four are made) and, when the agent is to move, its
    legal actions in ``moves`` (for the mask and the check of its action); the opponent's
    are only counted: :func:`_reply` finds the one it draws without listing them, and
    :func:`_opponent_view` lists them for a policy."""
    board, meta, _, _, moves, _ = s
    side = meta[e, SIDE]
    n = 0
    if not board[e, FOUR]:
        hand = board[e, HAND1] if side else board[e, HAND0]
        white, black, bishops = board[e, WHITE], board[e, BLACK], board[e, BISHOPS]
        if side == meta[e, SEAT]:
            n = _generate(white, black, bishops, hand, side, tables[0], tables[1], moves[e])
        else:
            n = _count(white, black, bishops, hand, side, tables[0])
    meta[e, NMOVES] = n
    meta[e, STATUS] = _status(board[e, FOUR] != 0, n, meta[e, COUNT], side)


@batch_jit
def _play(s: Arrays, e: int, action: int, tables: Tables) -> None:
    """Apply a legal ``action`` in ``e``, counting the repetition as the reference does
    (since the last drop)."""
    board, meta, history, seen, _, _ = s
    white, black, bishops, hand0, hand1, four = _apply(
        board[e, WHITE], board[e, BLACK], board[e, BISHOPS], board[e, HAND0], board[e, HAND1],
        meta[e, SIDE], action, tables[2], tables[3], tables[4], tables[5],
    )  # fmt: skip
    board[e, WHITE], board[e, BLACK], board[e, BISHOPS] = white, black, bishops
    board[e, HAND0], board[e, HAND1], board[e, FOUR] = hand0, hand1, four
    meta[e, SIDE] ^= 1
    meta[e, PLY] += 1
    if action < 2 * NUM_SQUARES:  # a drop: no earlier position can come back
        meta[e, SINCE] = meta[e, PLY]
        seen[e, :] = 0
    quiet = meta[e, PLY] - meta[e, SINCE]
    history[e, quiet, 0], history[e, quiet, 1], history[e, quiet, 2] = white, black, bishops
    meta[e, COUNT] = occurrences(history[e], quiet, seen[e])
    _refresh(s, e, tables)


@batch_jit
def _reply(s: Arrays, out: Outputs, e: int, tables: Tables, params: I64) -> None:
    """The opponent's uniformly random actions while it is to move (recording the last);
    none when a policy plays it (the caller asks the policy)."""
    board, meta, rng = s[0], s[1], s[5]
    while not params[OUTSIDE] and opponent_to_move(meta, e, params[MAX_PLIES]):
        side = meta[e, SIDE]
        action = _nth(
            board[e, WHITE], board[e, BLACK], board[e, BISHOPS],
            board[e, HAND1] if side else board[e, HAND0], side, tables[0], tables[1],
            int(np.int64(draw(rng, e, meta[e, NMOVES]))),  # draw() is unsigned
        )  # fmt: skip
        record_reply(out, e, action, True)
        _play(s, e, action, tables)


@batch_jit
def _begin(s: Arrays, out: Outputs, e: int, tables: Tables, params: I64) -> None:
    """A new game in ``e``: the empty board, the agent's seat, the opponent's first action
    when the agent plays second."""
    board, meta, history, seen, _, rng = s
    begin_episode(meta, seen, rng, e, params[SEAT_MODE])
    board[e, :] = 0
    board[e, HAND0] = board[e, HAND1] = PIECES_IN_HAND
    history[e, 0, :] = 0
    meta[e, COUNT] = occurrences(history[e], 0, seen[e])
    _refresh(s, e, tables)
    _reply(s, out, e, tables, params)


@batch_jit
def _observe(s: Arrays, e: int, seat: int, row: F32, mask: I8) -> None:
    """``e``'s observation tensor from ``seat`` (the planes of :mod:`.tensor`) into ``row``
    and its mask into ``mask``. Each float of the row is written once, square by square (a
    row of a step's new output array is not in the cache: clearing it first wrote it
    twice)."""
    board, meta, _, _, moves, _ = s
    area = NUM_SQUARES
    bishops = board[e, BISHOPS]
    mine, theirs = board[e, WHITE + seat], board[e, BLACK - seat]
    hands = board[e, HAND0 + seat] / 4.0, board[e, HAND1 - seat] / 4.0
    turn = 1.0 if meta[e, SIDE] == seat and meta[e, STATUS] == ONGOING else 0.0
    repeated = 1.0 if meta[e, COUNT] >= 2 else 0.0
    for sq in range(area):
        face = (bishops >> sq) & 1
        row[sq] = ((mine >> sq) & 1) & (face ^ 1)
        row[area + sq] = ((mine >> sq) & 1) & face
        row[2 * area + sq] = ((theirs >> sq) & 1) & (face ^ 1)
        row[3 * area + sq] = ((theirs >> sq) & 1) & face
        row[4 * area + sq] = hands[0]
        row[5 * area + sq] = hands[1]
        row[6 * area + sq] = turn
        row[7 * area + sq] = repeated
    write_mask(meta, moves, mask, e, seat)


@batch_jit
def _observe_agent(s: Arrays, out: Outputs, e: int) -> None:
    _observe(s, e, s[1][e, SEAT], out[0][e], out[1][e])


@batch_jit
def _reset_all(s: Arrays, out: Outputs, tables: Tables, params: I64) -> None:
    for e in range(len(s[0])):
        clear(out, e)
        _begin(s, out, e, tables, params)
        _observe_agent(s, out, e)


@batch_jit
def _step_all(s: Arrays, out: Outputs, actions: I64, tables: Tables, params: I64) -> None:
    meta = s[1]
    rewards, terminated, truncated, illegal = out[2], out[3], out[4], out[6]
    for e in range(len(actions)):
        clear(out, e)
        if meta[e, DONE]:  # next-step autoreset: the action is ignored
            _begin(s, out, e, tables, params)
        elif not agent_may_play(meta, s[4], e, actions[e]):
            rewards[e] = -1.0
            terminated[e] = illegal[e] = True
            meta[e, DONE] = 1
        else:
            _play(s, e, actions[e], tables)
            _reply(s, out, e, tables, params)
            settle(meta, e, params[MAX_PLIES], rewards, terminated, truncated)
        _observe_agent(s, out, e)


@batch_jit
def _opponent_view(s: Arrays, rows: I64, observations: F32, masks: I8, tables: Tables) -> None:
    """The opponent's view of ``rows``, its legal actions listed first (over the agent's,
    which its action replaces: :func:`_refresh` lists the agent's again)."""
    board, meta, moves = s[0], s[1], s[4]
    for e in rows:
        side = meta[e, SIDE]
        white, black, bishops = board[e, WHITE], board[e, BLACK], board[e, BISHOPS]
        hand = board[e, HAND1] if side else board[e, HAND0]
        _generate(white, black, bishops, hand, side, tables[0], tables[1], moves[e])
        _observe(s, e, 1 - meta[e, SEAT], observations[e], masks[e])


@batch_jit
def _opponent_step(
    s: Arrays, out: Outputs, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_],
    tables: Tables, params: I64,
) -> None:  # fmt: skip
    meta = s[1]
    for e in rows:
        record_reply(out, e, actions[e], True)
        _play(s, e, actions[e], tables)
        if not fresh[e]:
            settle(meta, e, params[MAX_PLIES], out[2], out[3], out[4])
        _observe_agent(s, out, e)


class FlipFourBatch(EnvBatch["FlipFourKernel"]):
    """A batch of FlipFour environments; see the module docstring."""

    supports_policy = True

    def __init__(self, kernel: FlipFourKernel, num_envs: int, seat: int | None, max_plies: int):
        super().__init__(
            kernel, num_envs, seat, max_plies, PLANES * NUM_SQUARES, NUM_ACTIONS, 6, MAX_ACTIONS
        )
        self.tables: Tables = kernel.tables
        self.params = np.array([self.seat, max_plies, 0], dtype=np.int64)

    def _reset_all(self) -> None:
        _reset_all(self.arrays(), self.outputs(), self.tables, self.params)

    def _step_all(self, actions: I64) -> None:
        _step_all(self.arrays(), self.outputs(), actions, self.tables, self.params)

    def _outside_opponent(self, on: bool) -> None:
        self.params[OUTSIDE] = int(on)

    def _opponent_view(self, rows: I64, observations: F32, masks: I8) -> None:
        _opponent_view(self.arrays(), rows, observations, masks, self.tables)

    def _opponent_step(self, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_]) -> None:
        _opponent_step(
            self.arrays(), self.outputs(), actions, rows, fresh, self.tables, self.params
        )
