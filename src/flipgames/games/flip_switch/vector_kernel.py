"""Flip Switch's compiled batch of environments (the option sets :mod:`.kernel` covers: 3x3,
3 shapes x 3 copies, lines of 3, any ``lines``, ``no_move`` and ``rounds``), for
:mod:`flipgames.envs.vector`.

Per environment: the agent's action (checked against the legal actions), then every chance
outcome and the opponent's uniformly random actions until the agent is to act again, then the
observation tensor of :mod:`.tensor` and the legal-action mask, all in machine code over
:mod:`.kernel`'s ``legal_actions`` and ``_step``. A face-down tile has no shape here either: a
flip's shape is drawn from the environment's generator only at the chance node of that flip,
with the reference's exact probabilities (the face-down copies left of each shape), so nothing
exists that an observation could leak; the outcomes drawn are public once drawn and are
reported (``replies``). A match plays ``rounds`` rounds (player 1 starts odd rounds, player 2
even ones) and is scored by rounds won, as in the reference; the repetition rule (a position
occurring for the third time within a stretch of switches and passes draws the round) is
kept per environment in ``history``. The bookkeeping (seats, episode ends, next-step
autoreset, seeding) is :mod:`flipgames.kernels.vector`'s.

>>> import numpy as np
>>> from flipgames import make
>>> batch = make("flip-switch").kernel().vector(2, seat=0, max_plies=1500)
>>> batch.reset(np.arange(2, dtype=np.uint64))
>>> batch.masks.sum(axis=1).tolist()  # round 1: the agent flips any of the nine tiles
[9, 9]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import DRAWN, FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.games.flip_switch.kernel import (
    LISTED_SHIFT,
    MAX_ACTIONS,
    MOVER_SHIFT,
    OUTCOME_BASE,
    OVER_DRAWN,
    OVER_SHIFT,
    REVERSIBLE,
    SHAPES,
    SQUARES,
    SWITCH_BASE,
    _step,
    chance_weights,
    legal_actions,
    pack,
    unpack,
)
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
    from flipgames.games.flip_switch.kernel import FlipSwitchKernel

I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
#: The kernel's tables: the lines through each square and the orthogonal pairs.
Tables = tuple[I64, I64]
#: Scratch rows the batch functions unpack a position into (tiles, owners), allocated once
#: per batch: a step allocates nothing.
Work = tuple[I64, I64]

#: Board words per environment: the round's packed key (:mod:`.kernel`'s layout; once the
#: match is over, the final board with no flip and no banned switch), rounds finished and
#: rounds won by each player.
KEY, PLAYED, WINS0, WINS1 = range(4)
WORDS = 4
#: ``params``: rounds in the match, whether a player with no action passes, the seat (or
#: RANDOM_SEAT), the ply cap and whether a policy plays the opponent (the batch then stops
#: where the opponent is to act).
ROUNDS, PASSING, SEAT_MODE, MAX_PLIES, OUTSIDE = range(5)
#: ``SIDE`` at a chance node (a flip being revealed).
CHANCE_SIDE = -1
#: Planes of the observation tensor (:mod:`.tensor` with 3 shapes).
FACE_DOWN_PLANE = 0
MINE = 1 + SHAPES
THEIRS = 1 + 2 * SHAPES
PENDING = 1 + 3 * SHAPES
BANNED = PENDING + 1
TO_ACT = PENDING + 2
MY_ROUNDS = PENDING + 3
THEIR_ROUNDS = PENDING + 4
PLANES = PENDING + 5
#: Replies after the agent's action, at most: its flip's outcome, the opponent's action and
#: its flip's outcome, and (when that ends a round the opponent starts) the opponent's
#: opening flip and its outcome.
MAX_REPLIES = 5


@batch_jit
def _refresh(s: Arrays, e: int, weights: I64, tables: Tables, params: I64, work: Work) -> None:
    """``e``'s legal actions (the shape outcomes and their weights at a chance node), the
    side to act and the status."""
    board, meta, _, _, moves, _ = s
    tiles, owners = work[0], work[1]
    last, mover, flip = unpack(board[e, KEY], tiles, owners)
    if board[e, PLAYED] == params[ROUNDS]:
        wins0, wins1 = board[e, WINS0], board[e, WINS1]
        meta[e, STATUS] = FIRST_WINS if wins0 > wins1 else SECOND_WINS if wins1 > wins0 else DRAWN
        meta[e, NMOVES] = 0
        return
    meta[e, STATUS] = ONGOING
    if flip >= 0:
        meta[e, SIDE] = CHANCE_SIDE
        chance_weights(tiles, weights[e])
        for k in range(SHAPES):
            moves[e, k] = OUTCOME_BASE + k
        meta[e, NMOVES] = SHAPES
    else:
        meta[e, SIDE] = mover
        meta[e, NMOVES] = legal_actions(
            tiles, owners, last, tables[1], params[PASSING] == 1, moves[e]
        )


@batch_jit
def _round_over(s: Arrays, e: int, over: int, final: int, params: I64) -> None:
    """Record a finished round; start the next one (its starter is player 1 in odd rounds,
    player 2 in even ones) or keep the final board on show when the match is over."""
    board, meta = s[0], s[1]
    if over == 1:
        board[e, WINS0] += 1
    elif over == 2:
        board[e, WINS1] += 1
    board[e, PLAYED] += 1
    played = board[e, PLAYED]
    board[e, KEY] = final if played == params[ROUNDS] else (played % 2) << MOVER_SHIFT
    meta[e, SINCE] = meta[e, PLY]
    s[2][e, 0, 0] = board[e, KEY]
    meta[e, COUNT] = 1


@batch_jit
def _play(
    s: Arrays, e: int, action: int, weights: I64, tables: Tables, params: I64, work: Work
) -> None:
    """Apply a legal ``action`` or chance outcome in ``e``, then the repetition rule."""
    board, meta, history, moves = s[0], s[1], s[2], s[4]
    tiles, owners = work[0], work[1]
    key = board[e, KEY]
    _, mover, flip = unpack(key, tiles, owners)
    # _step lists the next position's legal actions into moves[e] (the action is read).
    after, flags = _step(
        key, action, tables[0], tables[1], params[PASSING] == 1, tiles, owners, moves[e]
    )
    listed = flags >> LISTED_SHIFT
    meta[e, PLY] += 1
    over = after >> OVER_SHIFT
    if over:
        # _step leaves the board as the turn made it in tiles and owners: the final board.
        _round_over(s, e, over, pack(tiles, owners, -1, mover, -1), params)
    elif flip < 0 and action >= SWITCH_BASE and flags & REVERSIBLE:
        # A switch or pass that scored nothing: positions since the last flip or score can
        # come back, every second ply (the side to move alternates).
        board[e, KEY] = after
        quiet = meta[e, PLY] - meta[e, SINCE]
        history[e, quiet, 0] = after
        seen = 1
        back = quiet - 2
        while back >= 0:
            if history[e, back, 0] == after:
                seen += 1
            back -= 2
        meta[e, COUNT] = seen
        if seen >= 3:
            _round_over(s, e, OVER_DRAWN, pack(tiles, owners, -1, mover, -1), params)
            listed = 0  # a new round: its legal actions are not the ones listed
    else:
        # A flip, its outcome or a score: no earlier position can come back.
        board[e, KEY] = after
        meta[e, SINCE] = meta[e, PLY]
        history[e, 0, 0] = after
        meta[e, COUNT] = 1
    if listed:
        # The usual case, without _refresh's call and unpacking: the round goes on, the other
        # player is to move and _step listed its actions.
        meta[e, STATUS] = ONGOING
        meta[e, SIDE] = 1 - mover
        meta[e, NMOVES] = listed
    else:
        # Last: _refresh unpacks into the same work rows.
        _refresh(s, e, weights, tables, params, work)


@batch_jit
def _reply(
    s: Arrays, out: Outputs, e: int, weights: I64, tables: Tables, params: I64, work: Work
) -> None:
    """Chance outcomes and the opponent's random actions until the agent is to act, the
    match is over or the cap is reached (or, when a policy plays the opponent, until it is
    to act)."""
    meta, moves, rng = s[1], s[4], s[5]
    while (
        meta[e, STATUS] == ONGOING
        and meta[e, PLY] < params[MAX_PLIES]
        and meta[e, SIDE] != meta[e, SEAT]
    ):
        if meta[e, SIDE] == CHANCE_SIDE:
            # Drawn now, at the flip's chance node: the shape did not exist before.
            action = moves[e, weighted(rng[e : e + 1], weights[e], SHAPES)]
            record_reply(out, e, action, False)
        elif params[OUTSIDE]:
            return  # a policy plays the opponent: the caller asks it
        else:
            action = moves[e, draw(rng, e, meta[e, NMOVES])]
            record_reply(out, e, action, True)
        _play(s, e, action, weights, tables, params, work)


@batch_jit
def _begin(
    s: Arrays, out: Outputs, e: int, weights: I64, tables: Tables, params: I64, work: Work
) -> None:
    """A new match in ``e``: round 1 face down with player 1 to move, the agent's seat, then
    the opponent (and chance) until the agent is to act."""
    board, meta, history, seen, _, rng = s
    begin_episode(meta, seen, rng, e, params[SEAT_MODE])
    board[e, :] = 0
    history[e, 0, 0] = 0
    meta[e, COUNT] = 1
    _refresh(s, e, weights, tables, params, work)
    _reply(s, out, e, weights, tables, params, work)


@batch_jit
def _observe(
    s: Arrays, e: int, seat: int, row: F32, mask: I8, tables: Tables, params: I64, work: Work
) -> None:
    """``e``'s observation tensor from ``seat`` (the planes of :mod:`.tensor`, flat) into
    ``row`` and its mask into ``mask`` (the legal actions while ``seat`` is to move, else
    zeros). Every square of every plane is written in one pass, with no clearing first, into
    rows the caller views (indexing a row is cheaper than the whole array)."""
    board, meta, moves = s[0], s[1], s[4]
    tiles, owners = work[0], work[1]
    last, _, flip = unpack(board[e, KEY], tiles, owners)
    banned0 = tables[1][last, 0] if last >= 0 else -1
    banned1 = tables[1][last, 1] if last >= 0 else -1
    to_act = meta[e, STATUS] == ONGOING and meta[e, SIDE] == seat
    rounds = params[ROUNDS]
    mine = (board[e, WINS0] if seat == 0 else board[e, WINS1]) / rounds
    theirs = (board[e, WINS1] if seat == 0 else board[e, WINS0]) / rounds
    for square in range(SQUARES):
        tile = tiles[square]
        row[FACE_DOWN_PLANE * SQUARES + square] = tile < 0
        for k in range(SHAPES):
            row[(1 + k) * SQUARES + square] = tile == k
            row[(MINE + k) * SQUARES + square] = owners[k] == seat
            row[(THEIRS + k) * SQUARES + square] = owners[k] == 1 - seat
        row[PENDING * SQUARES + square] = square == flip
        row[BANNED * SQUARES + square] = square in (banned0, banned1)
        row[TO_ACT * SQUARES + square] = to_act
        row[MY_ROUNDS * SQUARES + square] = mine
        row[THEIR_ROUNDS * SQUARES + square] = theirs
    for action in range(len(mask)):
        mask[action] = 0
    if to_act:
        for i in range(meta[e, NMOVES]):
            mask[moves[e, i]] = 1


@batch_jit
def _reset_all(
    s: Arrays, out: Outputs, weights: I64, tables: Tables, params: I64, work: Work
) -> None:
    for e in range(len(s[0])):
        clear(out, e)
        _begin(s, out, e, weights, tables, params, work)
        _observe(s, e, s[1][e, SEAT], out[0][e], out[1][e], tables, params, work)


@batch_jit
def _step_all(
    s: Arrays, out: Outputs, actions: I64, weights: I64, tables: Tables, params: I64, work: Work
) -> None:
    meta = s[1]
    rewards, terminated, truncated, illegal = out[2], out[3], out[4], out[6]
    for e in range(len(actions)):
        clear(out, e)
        if meta[e, DONE]:  # next-step autoreset: the action is ignored
            _begin(s, out, e, weights, tables, params, work)
        elif not agent_may_play(meta, s[4], e, actions[e]):
            rewards[e] = -1.0
            terminated[e] = illegal[e] = True
            meta[e, DONE] = 1
        else:
            _play(s, e, actions[e], weights, tables, params, work)
            _reply(s, out, e, weights, tables, params, work)
            settle(meta, e, params[MAX_PLIES], rewards, terminated, truncated)
        _observe(s, e, s[1][e, SEAT], out[0][e], out[1][e], tables, params, work)


@batch_jit
def _opponent_view(
    s: Arrays, rows: I64, observations: F32, masks: I8, tables: Tables, params: I64, work: Work
) -> None:
    for e in rows:
        _observe(s, e, 1 - s[1][e, SEAT], observations[e], masks[e], tables, params, work)


@batch_jit
def _opponent_step(
    s: Arrays, out: Outputs, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_],
    weights: I64, tables: Tables, params: I64, work: Work,
) -> None:  # fmt: skip
    meta = s[1]
    for e in rows:
        record_reply(out, e, actions[e], True)
        _play(s, e, actions[e], weights, tables, params, work)
        _reply(s, out, e, weights, tables, params, work)
        if not fresh[e]:
            settle(meta, e, params[MAX_PLIES], out[2], out[3], out[4])
        _observe(s, e, meta[e, SEAT], out[0][e], out[1][e], tables, params, work)


class FlipSwitchBatch(EnvBatch["FlipSwitchKernel"]):
    """A batch of Flip Switch matches of one option set; see the module docstring."""

    supports_policy = True

    def __init__(
        self, kernel: FlipSwitchKernel, num_envs: int, seat: int | None, max_plies: int
    ) -> None:
        super().__init__(
            kernel, num_envs, seat, max_plies, PLANES * SQUARES, kernel.game.num_distinct_actions,
            WORDS, MAX_ACTIONS, max_replies=MAX_REPLIES,
        )  # fmt: skip
        self.tables: Tables = (kernel.lines, kernel.pairs)
        self.weights = np.zeros((num_envs, SHAPES), dtype=np.int64)
        self.params = np.array(
            [kernel.rounds, int(kernel.passing), self.seat, max_plies, 0], dtype=np.int64
        )
        self.work: Work = (
            np.zeros(SQUARES, dtype=np.int64),
            np.zeros(SHAPES, dtype=np.int64),
        )

    def _reset_all(self) -> None:
        tables, params = self.tables, self.params
        _reset_all(self.arrays(), self.outputs(), self.weights, tables, params, self.work)

    def _step_all(self, actions: I64) -> None:
        s, out, tables, params = self.arrays(), self.outputs(), self.tables, self.params
        _step_all(s, out, actions, self.weights, tables, params, self.work)

    def _outside_opponent(self, on: bool) -> None:
        self.params[OUTSIDE] = int(on)

    def _opponent_view(self, rows: I64, observations: F32, masks: I8) -> None:
        s, tables, params = self.arrays(), self.tables, self.params
        _opponent_view(s, rows, observations, masks, tables, params, self.work)

    def _opponent_step(self, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_]) -> None:
        s, out, tables, params = self.arrays(), self.outputs(), self.tables, self.params
        _opponent_step(s, out, actions, rows, fresh, self.weights, tables, params, self.work)
