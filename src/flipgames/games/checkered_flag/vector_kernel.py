"""Checkered Flag's compiled batch of environments (any option set), for
:mod:`flipgames.envs.vector`.

Per environment: the agent's gear choice (checked against the legal actions), then every
chance outcome (the start spin, each spin, drawn with its exact probability from the
environment's generator, as :func:`flipgames.kernels.sampling.weighted` draws them) and the
opponent's uniformly random choices until the agent is to choose again, then the observation
vector of :mod:`.tensor` and the legal-action mask, all in machine code over
:mod:`.kernel`'s ``options`` and ``advance``. Nothing is hidden in Checkered Flag, so the
outcomes drawn are reported (``replies``). The bookkeeping (seats, episode ends, next-step
autoreset, seeding) is :mod:`flipgames.kernels.vector`'s.

>>> import numpy as np
>>> from flipgames import make
>>> batch = make("checkered-flag").kernel().vector(2, seat=0, max_plies=1000)
>>> batch.reset(np.arange(2, dtype=np.uint64))
>>> batch.masks.sum(axis=1).tolist()  # from N the only choice is 1st gear
[1, 1]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.games.checkered_flag.kernel import advance, options, pack, unpack
from flipgames.games.checkered_flag.notation import CHOOSE, OVER
from flipgames.kernels.sampling import weighted
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
    record_reply,
    settle,
)

if TYPE_CHECKING:
    from flipgames.games.checkered_flag.kernel import CheckeredFlagKernel

I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
#: The kernel's tables: outcome ids and weights per spin row, spaces per outcome, who starts
#: per start outcome, crash and no-passing spaces.
Tables = tuple[I64, I64, I64, I64, Bools, Bools]

#: Board words per environment: the reference's position ``(phase, mover, distance 0,
#: distance 1, gear 0, gear 1)``.
PHASE, MOVER, D0, D1, G0, G1 = range(6)
#: ``params``: the race's goal (spaces), the seat (or RANDOM_SEAT), the ply cap and whether a
#: policy plays the opponent (the batch then stops where the opponent is to choose).
GOAL, SEAT_MODE, MAX_PLIES, OUTSIDE = range(4)
#: ``SIDE`` at a chance node (the start spin, a spin).
CHANCE_SIDE = -1
#: Gear circles (N, 1, 2, 3, C2, C3) and phases, as the observation vector lays them out.
GEARS, PHASES = 6, 4


@batch_jit
def _position(board: I64, e: int) -> tuple[int, int, int, int, int, int]:
    return (
        board[e, PHASE], board[e, MOVER], board[e, D0], board[e, D1], board[e, G0], board[e, G1]
    )  # fmt: skip


@batch_jit
def _refresh(s: Arrays, e: int, weights: I64, tables: Tables) -> None:
    """``e``'s legal actions (chance outcomes and their weights at a chance node), the side
    to act and the status."""
    board, meta, _, _, moves, _ = s
    phase, mover = board[e, PHASE], board[e, MOVER]
    meta[e, SIDE] = mover if phase == CHOOSE else CHANCE_SIDE
    if phase == OVER:
        meta[e, STATUS] = FIRST_WINS if mover == 0 else SECOND_WINS
        meta[e, NMOVES] = 0
        return
    meta[e, STATUS] = ONGOING
    phase, mover, d0, d1, g0, g1 = _position(board, e)
    key = pack(phase, mover, d0, d1, g0, g1)
    meta[e, NMOVES] = options(key, tables[0], tables[1], moves[e], weights[e])


@batch_jit
def _play(s: Arrays, e: int, action: int, weights: I64, tables: Tables, goal: int) -> None:
    """Apply a legal ``action`` or chance outcome in ``e`` (a race never repeats a position
    that matters: it is capped by length instead)."""
    board, meta = s[0], s[1]
    after = advance(_position(board, e), action, tables[2], tables[3], tables[4], tables[5], goal)
    for i in range(6):
        board[e, i] = after[i]
    meta[e, PLY] += 1
    meta[e, SINCE] = meta[e, PLY]
    _refresh(s, e, weights, tables)


@batch_jit
def _reply(s: Arrays, out: Outputs, e: int, weights: I64, tables: Tables, params: I64) -> None:
    """Chance outcomes and the opponent's random choices until the agent is to choose, the
    race is over or the cap is reached (or, when a policy plays the opponent, until it is to
    choose)."""
    meta, moves, rng = s[1], s[4], s[5]
    while (
        meta[e, STATUS] == ONGOING
        and meta[e, PLY] < params[MAX_PLIES]
        and meta[e, SIDE] != meta[e, SEAT]
    ):
        n = meta[e, NMOVES]
        if meta[e, SIDE] == CHANCE_SIDE:
            action = moves[e, weighted(rng[e : e + 1], weights[e], n)]
            record_reply(out, e, action, False)
        elif params[OUTSIDE]:
            return  # a policy plays the opponent: the caller asks it
        else:
            action = moves[e, draw(rng, e, n)]
            record_reply(out, e, action, True)
        _play(s, e, action, weights, tables, params[GOAL])


@batch_jit
def _begin(
    s: Arrays, out: Outputs, e: int, start: I64, weights: I64, tables: Tables, params: I64
) -> None:
    """A new race in ``e``: the start position, the agent's seat, then chance and the
    opponent until the agent is to choose."""
    board, meta, _, seen, _, rng = s
    begin_episode(meta, seen, rng, e, params[SEAT_MODE])
    for i in range(len(start)):  # not board[e, :] = start: that copy needs numba's NRT
        board[e, i] = start[i]
    meta[e, COUNT] = 1
    _refresh(s, e, weights, tables)
    _reply(s, out, e, weights, tables, params)


@batch_jit
def _observe(s: Arrays, e: int, seat: int, row: F32, mask: I8, length: int, params: I64) -> None:
    """``e``'s observation vector from ``seat`` (the entries of :mod:`.tensor`) into ``row``
    and its mask into ``mask`` (the legal choices while ``seat`` is to choose, else zeros)."""
    board, meta, moves = s[0], s[1], s[4]
    goal = params[GOAL]
    for i in range(len(row)):
        row[i] = 0.0
    block = 1 + length + GEARS
    for slot in range(2):
        who = seat if slot == 0 else 1 - seat
        base = slot * block
        distance = board[e, D0 + who]
        row[base] = min(distance, goal) / goal
        row[base + 1 + distance % length] = 1.0
        row[base + 1 + length + board[e, G0 + who]] = 1.0
    phase = board[e, PHASE]
    row[2 * block + phase] = 1.0
    if 1 <= phase <= 2 and board[e, MOVER] == seat:  # choosing or spinning
        row[2 * block + PHASES] = 1.0
    for action in range(len(mask)):
        mask[action] = 0
    if meta[e, STATUS] == ONGOING and meta[e, SIDE] == seat:
        for i in range(meta[e, NMOVES]):
            mask[moves[e, i]] = 1


@batch_jit
def _observe_agent(s: Arrays, out: Outputs, e: int, length: int, params: I64) -> None:
    _observe(s, e, s[1][e, SEAT], out[0][e], out[1][e], length, params)


@batch_jit
def _reset_all(
    s: Arrays, out: Outputs, start: I64, weights: I64, tables: Tables, params: I64
) -> None:
    length = tables[4].shape[0]
    for e in range(len(s[0])):
        clear(out, e)
        _begin(s, out, e, start, weights, tables, params)
        _observe_agent(s, out, e, length, params)


@batch_jit
def _step_all(
    s: Arrays,
    out: Outputs,
    actions: I64,
    start: I64,
    weights: I64,
    tables: Tables,
    params: I64,
) -> None:
    meta = s[1]
    rewards, terminated, truncated, illegal = out[2], out[3], out[4], out[6]
    length = tables[4].shape[0]
    for e in range(len(actions)):
        clear(out, e)
        if meta[e, DONE]:  # next-step autoreset: the action is ignored
            _begin(s, out, e, start, weights, tables, params)
        elif not agent_may_play(meta, s[4], e, actions[e]):
            rewards[e] = -1.0
            terminated[e] = illegal[e] = True
            meta[e, DONE] = 1
        else:
            _play(s, e, actions[e], weights, tables, params[GOAL])
            _reply(s, out, e, weights, tables, params)
            settle(meta, e, params[MAX_PLIES], rewards, terminated, truncated)
        _observe_agent(s, out, e, length, params)


@batch_jit
def _opponent_view(
    s: Arrays, rows: I64, observations: F32, masks: I8, length: int, params: I64
) -> None:
    for e in rows:
        _observe(s, e, 1 - s[1][e, SEAT], observations[e], masks[e], length, params)


@batch_jit
def _opponent_step(
    s: Arrays, out: Outputs, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_],
    weights: I64, tables: Tables, params: I64,
) -> None:  # fmt: skip
    meta, length = s[1], tables[4].shape[0]
    for e in rows:
        record_reply(out, e, actions[e], True)
        _play(s, e, actions[e], weights, tables, params[GOAL])
        _reply(s, out, e, weights, tables, params)
        if not fresh[e]:
            settle(meta, e, params[MAX_PLIES], out[2], out[3], out[4])
        _observe_agent(s, out, e, length, params)


class CheckeredFlagBatch(EnvBatch["CheckeredFlagKernel"]):
    """A batch of Checkered Flag races of one option set; see the module docstring."""

    supports_policy = True

    def __init__(
        self, kernel: CheckeredFlagKernel, num_envs: int, seat: int | None, max_plies: int
    ) -> None:
        num_actions = kernel.game.num_distinct_actions
        length = len(kernel.crash_at)
        width = kernel.outcome_ids.shape[1] + 3
        # After the agent's choice: its spin, the opponent's choice, the opponent's spin (a
        # choice that leaves a crash circle has no spin); at a reset the start spin first.
        super().__init__(
            kernel, num_envs, seat, max_plies, 2 * (1 + length + GEARS) + PHASES + 1, num_actions,
            6, width, max_replies=3,
        )  # fmt: skip
        self.tables: Tables = (
            kernel.outcome_ids, kernel.outcome_weights, kernel.moves, kernel.start_first,
            kernel.crash_at, kernel.no_passing_at,
        )  # fmt: skip
        self.start = np.array(unpack(kernel.root), dtype=np.int64)
        self.weights = np.zeros((num_envs, width), dtype=np.int64)
        self.params = np.array([kernel.goal, self.seat, max_plies, 0], dtype=np.int64)

    def _reset_all(self) -> None:
        _reset_all(
            self.arrays(), self.outputs(), self.start, self.weights, self.tables, self.params
        )

    def _step_all(self, actions: I64) -> None:
        _step_all(
            self.arrays(), self.outputs(), actions, self.start, self.weights, self.tables,
            self.params,
        )  # fmt: skip

    def _outside_opponent(self, on: bool) -> None:
        self.params[OUTSIDE] = int(on)

    def _opponent_view(self, rows: I64, observations: F32, masks: I8) -> None:
        length = len(self.kernel.crash_at)
        _opponent_view(self.arrays(), rows, observations, masks, length, self.params)

    def _opponent_step(self, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_]) -> None:
        _opponent_step(
            self.arrays(), self.outputs(), actions, rows, fresh, self.weights, self.tables,
            self.params,
        )  # fmt: skip
