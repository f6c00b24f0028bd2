"""What every compiled batch of environments shares: per-environment bookkeeping, seeding,
the end of an episode, and the Python side of a batch (:class:`EnvBatch`).

Only kernel modules import this (it imports numba). A game's vector kernel (e.g.
:mod:`flipgames.games.flipflop.vector_kernel`) compiles one function that steps every
environment of a batch in one call: the agent's action, then the built-in opponent's
uniformly random reply, then the observation tensor and the legal-action mask, each written
into a row of a preallocated array. Python runs once per batch step, never per environment.

The rules are those of the game's kernel (the same compiled move generator and apply as its
playouts), so positions, legal actions, repetition draws and results are the reference
engine's; the vector tests compare every observation with the reference state's
``observation_tensor`` and ``legal_action_mask``, ply by ply.

Per environment the batch keeps a row of ``meta`` (the columns below), the game's own words in
a row of ``board``, its legal actions in a row of ``moves``, its positions since the last
irreversible action in ``history`` (indexed from that action, so it only needs to be as long as
the longest quiet stretch; :meth:`EnvBatch.step` doubles it when an environment could run out,
never beyond the length cap) and a generator state in ``rng`` (the :mod:`flipgames.kernels.jit`
xorshift64*, seeded per environment).

Episodes end as in :class:`flipgames.envs.gymnasium.FlipgamesEnv`: the game's result (reward
+1, 0, -1 for the agent's seat), an illegal action (reward -1, ``terminated``; the position
is left as it was), or the length cap (``truncated``). The next step of an ended environment
resets it and ignores its action (Gymnasium's *next-step* autoreset).

>>> rng = seed_batch(np.array([5, 6, 5], dtype=np.uint64))
>>> from flipgames.kernels.jit import seeded
>>> bool(rng[0] == rng[2] != rng[1]), bool(rng[0] == seeded(5)[0])
(True, True)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from flipgames.core.kernel import FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.kernels.jit import _splitmix64, jit

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

#: A batch's arrays as the compiled functions take them: board words (the game's own), meta,
#: history, seen, moves, rng (see the module docstring).
Arrays = tuple[I64, I64, I64, I64, I64, U64]
#: What a step writes: observations (flat), masks, rewards, terminated, truncated, the
#: opponent's last action, illegal, and every ply played after the agent's action.
Outputs = tuple[
    npt.NDArray[np.float32],
    npt.NDArray[np.int8],
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    I64,
    npt.NDArray[np.bool_],
    I64,
]

#: Columns of ``meta``: the side to move, plies played this episode (every player's), the ply
#: of the last irreversible action, occurrences of the current position since then, its status
#: (:data:`~flipgames.core.kernel.ONGOING`...), the agent's seat, whether the episode ended at
#: the last step (the next step resets it) and how many legal actions ``moves`` holds.
SIDE, PLY, SINCE, COUNT, STATUS, SEAT, DONE, NMOVES = range(8)
META = 8

#: ``seat`` of a batch whose agent seat is drawn per episode from the environment's generator.
RANDOM_SEAT = -1

F = TypeVar("F", bound=Callable[..., Any])

#: The index of a mask's lowest set bit (LLVM's cttz, one instruction), typed for mypy.
trailing_zeros = cast(Callable[[int], int], _trailing_zeros)

#: ``_nrt`` is numba's switch for compiling without its runtime (reference counts,
#: allocation); its type stubs do not list it, hence a dict.
_WITHOUT_NRT: dict[str, Any] = {"cache": True, "_nrt": False}


def batch_jit(function: F) -> F:
    """:func:`~flipgames.kernels.jit.jit` without numba's reference counting, for the functions
    a batch step runs: they only borrow the arrays :class:`EnvBatch` owns and allocate none, so
    the counts guard nothing, yet their atomic increments and decrements (a tuple unpacked, a
    row viewed, an array passed on) took about 60% of a step's CPU time at 1,024 environments
    (``perf`` on FlipFlop 3x3). Numba refuses to compile an allocation in such a function, so
    one added later fails loudly at compile time instead of leaking."""
    return cast(F, njit(**_WITHOUT_NRT)(function))


@jit
def seed_batch(seeds: U64) -> U64:
    """One generator state per seed, equal to :func:`flipgames.kernels.jit.seeded`'s."""
    rng = np.empty(len(seeds), dtype=np.uint64)
    for e in range(len(seeds)):
        state = _splitmix64(seeds[e])
        rng[e] = state if state else np.uint64(1)
    return rng


@batch_jit
def clear(out: Outputs, e: int) -> None:
    """Reset ``e``'s outputs before its step: no reward, no end, no reply."""
    out[2][e] = 0.0
    out[3][e] = out[4][e] = out[6][e] = False
    out[5][e] = -1
    out[7][e, :] = -1


@batch_jit
def record_reply(out: Outputs, e: int, action: int, opponent: bool) -> None:
    """Note a ply played in ``e`` after the agent's action: an opponent's action (also its
    last action) or a chance outcome."""
    replies = out[7]
    i = 0
    while replies[e, i] >= 0:
        i += 1
    replies[e, i] = action
    if opponent:
        out[5][e] = action


@batch_jit
def settle(
    meta: I64,
    e: int,
    max_plies: int,
    rewards: npt.NDArray[np.float64],
    terminated: npt.NDArray[np.bool_],
    truncated: npt.NDArray[np.bool_],
) -> None:
    """Environment ``e`` after its step: the agent's reward when the game is over (by the
    seat's return), else truncated at the length cap; marks the episode done if either."""
    status, seat = meta[e, STATUS], meta[e, SEAT]
    if status != ONGOING:
        terminated[e] = True
        if status == FIRST_WINS:
            rewards[e] = 1.0 if seat == 0 else -1.0
        elif status == SECOND_WINS:
            rewards[e] = -1.0 if seat == 0 else 1.0
        # DRAWN: the reward stays 0.
    elif meta[e, PLY] >= max_plies:
        truncated[e] = True
    meta[e, DONE] = terminated[e] or truncated[e]


@batch_jit
def opponent_to_move(meta: I64, e: int, max_plies: int) -> bool:
    """True while the built-in opponent should act in ``e``: the game goes on, the cap is not
    reached and the side to move is not the agent's."""
    going: bool = meta[e, STATUS] == ONGOING and meta[e, PLY] < max_plies
    return going and meta[e, SIDE] != meta[e, SEAT]


@batch_jit
def agent_may_play(meta: I64, moves: I64, e: int, action: int) -> bool:
    """True when ``action`` is among the legal actions of ``e``, whose agent is to move."""
    if meta[e, STATUS] != ONGOING or meta[e, SIDE] != meta[e, SEAT]:
        return False
    for i in range(meta[e, NMOVES]):  # noqa: SIM110 (numba compiles loops, not any(generator))
        if moves[e, i] == action:
            return True
    return False


@batch_jit
def begin_episode(meta: I64, seen: I64, rng: U64, e: int, seat: int) -> None:
    """Clear ``e``'s bookkeeping for a new game (the caller sets up its position) and give the
    agent its seat (``seat``, or drawn from the generator for :data:`RANDOM_SEAT`)."""
    meta[e, :] = 0
    seen[e, :] = 0
    meta[e, SEAT] = seat if seat != RANDOM_SEAT else draw(rng, e, 2)


@batch_jit
def draw(rng: U64, e: int, n: int) -> int:
    """An integer in ``[0, n)`` from ``e``'s generator (as :func:`flipgames.kernels.jit.below`)."""
    x = rng[e]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[e] = x
    high = (x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
    return int((high * np.uint64(n)) >> np.uint64(32))


#: Words of each environment's filter of positions seen since the last irreversible action:
#: 16,384 bits, where :func:`flipgames.kernels.jit.occurrences` keeps 1,024. A random FlipFour
#: game goes thousands of plies without a drop or capture, which fills a 1,024-bit filter, and
#: then every ply compared itself with every earlier position (60% of a step at 1,024 envs).
#: :func:`~flipgames.kernels.jit.occurrences` sizes its filter by the row it is given.
SEEN_WORDS = 256


@batch_jit
def occurrences(history: I64, ply: int, seen: I64) -> int:
    """How often the position ``history[ply]`` (three words) has occurred since the last
    irreversible action (row 0), itself included, as :func:`flipgames.kernels.jit.occurrences`
    counts it, over a blocked Bloom filter: three bits of one word of ``seen`` (any power of
    two words) per position, from a hash that mixes every bit of the position into them.
    Only a position whose three bits are all set is compared with every second earlier one.
    A random FlipFour game's quiet stretch runs to thousands of plies; with one bit per
    position a 16,384-bit filter let about one ply in ten through to the scan back over the
    stretch (a third of a step at 1,024 environments), three bits in one word let one in a
    hundred or fewer. FlipFlop's 512 bits (in its board row) let 157 of 22,737 plies of 400
    random games through where :func:`~flipgames.kernels.jit.occurrences` let 1,441 (that
    hash's bucket is bits 13 to 21 of a sum, which a move between squares 22 to 24 leaves
    as it was)."""
    a, b, c = history[ply, 0], history[ply, 1], history[ply, 2]
    h = a * 0x1E3779B97F4A7C15 + b * 0x42B2AE3D27D4EB4F + c * 0x165667B19E3779F9
    h ^= h >> 31
    h *= 0x14D049BB133111EB  # odd constants below 2**63: int64 arithmetic, not float
    word = (h >> 40) & (len(seen) - 1)
    bits = (1 << (h & 63)) | (1 << ((h >> 6) & 63)) | (1 << ((h >> 12) & 63))
    count = 1
    if seen[word] & bits == bits:
        for back in range(ply - 2, -1, -2):
            if history[back, 0] == a and history[back, 1] == b and history[back, 2] == c:
                count += 1
    seen[word] |= bits
    return count


@batch_jit
def write_mask(meta: I64, moves: I64, row: npt.NDArray[np.int8], e: int, seat: int) -> None:
    """``e``'s legal-action mask (``row``) as the single-agent environment shows it to
    ``seat``: the legal actions in ``moves`` while ``seat`` is to move and the game goes on,
    else all zeros."""
    for action in range(len(row)):  # a plain loop: cheaper than row[:] = 0
        row[action] = 0
    if meta[e, STATUS] == ONGOING and meta[e, SIDE] == seat:
        for i in range(meta[e, NMOVES]):
            row[moves[e, i]] = 1


@batch_jit
def write_bits(observations: npt.NDArray[np.float32], e: int, offset: int, bits: int) -> None:
    """One plane of ``observations[e]`` (flat, from ``offset``): 1.0 at every set bit."""
    while bits:
        observations[e, offset + trailing_zeros(bits)] = 1.0
        bits &= bits - 1


#: The game's kernel class a batch runs over.
K = TypeVar("K")
#: An outside opponent as :meth:`EnvBatch.set_policy` takes it: flat observations, masks and
#: the rows where it is to act, to one checked action per environment.
BatchPolicy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8], I64], I64]


class EnvBatch(ABC, Generic[K]):
    """``num_envs`` games of one seat against a uniformly random opponent, as arrays: the
    Python side of a game's vector kernel (over its ``kernel``). A subclass takes
    ``(kernel, num_envs, seat, max_plies)``, gives this constructor its game's sizes, and runs
    its compiled functions in :meth:`_reset_all` and :meth:`_step_all`.

    After :meth:`reset` and after every :meth:`step`, the output arrays (new ones each time:
    those of an earlier step stay as they were) hold each environment's observation
    (``observations``, flat), mask, reward, ``terminated``, ``truncated``, the opponent's
    reply (``opponent_actions``, -1 if it did not act; at a reset, its first move when the
    agent has the second seat), whether the agent's action was illegal, and ``replies``:
    every ply played after the agent's action (the opponent's actions and chance outcomes,
    in order, padded with -1; at most ``max_replies``).
    """

    #: Whether the game's compiled functions can stop for an outside opponent (a policy).
    supports_policy: ClassVar[bool] = False

    def __init__(
        self,
        kernel: K,
        num_envs: int,
        seat: int | None,
        max_plies: int,
        planes: int,
        num_actions: int,
        words: int,
        max_moves: int,
        max_replies: int = 1,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        if seat not in (0, 1, None):
            raise ValueError(f"seat must be 0, 1 or None (drawn per episode), not {seat!r}")
        if max_plies < 1:
            raise ValueError(f"max_plies must be at least 1, not {max_plies}")
        n = num_envs
        self.kernel = kernel
        self.num_envs = n
        self.seat = RANDOM_SEAT if seat is None else seat
        self.max_plies = max_plies
        self.board = np.zeros((n, words), dtype=np.int64)
        self.meta = np.zeros((n, META), dtype=np.int64)
        self.history = np.zeros((n, min(64, max_plies + 1), 3), dtype=np.int64)
        self.seen = np.zeros((n, SEEN_WORDS), dtype=np.int64)
        self.moves = np.zeros((n, max_moves), dtype=np.int64)
        self.rng = seed_batch(np.zeros(n, dtype=np.uint64))
        self._sizes = (planes, num_actions, max_replies)
        self.policy: BatchPolicy | None = None
        self._fresh_outputs()
        for array in self.outputs():
            array.fill(0)

    @property
    def seats(self) -> I64:
        """The agent's seat in each environment's current episode."""
        return self.meta[:, SEAT]

    def arrays(self) -> Arrays:
        """The state arrays, in the order the compiled functions take them."""
        return self.board, self.meta, self.history, self.seen, self.moves, self.rng

    def outputs(self) -> Outputs:
        """The output arrays, in the order the compiled functions take them."""
        return (
            self.observations,
            self.masks,
            self.rewards,
            self.terminated,
            self.truncated,
            self.opponent_actions,
            self.illegal,
            self.replies,
        )

    def _fresh_outputs(self) -> None:
        """New output arrays for the next reset or step. Every compiled reset and step writes
        each environment's whole row of every output, so nothing is cleared here, and the
        arrays of a step are never written again: the env hands them out without copying
        them (the copies were a tenth of a Rubik's Flip step at 1,024 environments)."""
        n, (planes, num_actions, max_replies) = self.num_envs, self._sizes
        self.observations = np.empty((n, planes), dtype=np.float32)
        self.masks = np.empty((n, num_actions), dtype=np.int8)
        self.rewards = np.empty(n, dtype=np.float64)
        self.terminated = np.empty(n, dtype=np.bool_)
        self.truncated = np.empty(n, dtype=np.bool_)
        self.opponent_actions = np.empty(n, dtype=np.int64)
        self.illegal = np.empty(n, dtype=np.bool_)
        self.replies = np.empty((n, max_replies), dtype=np.int64)

    def reset(self, seeds: U64 | None = None) -> None:
        """Start a new episode everywhere, environment ``e``'s generator seeded with
        ``seeds[e]`` (without seeds, every generator goes on where it was)."""
        if seeds is not None:
            if seeds.shape != (self.num_envs,):
                raise ValueError(f"{len(seeds)} seeds given for {self.num_envs} environments")
            self.rng[:] = seed_batch(seeds.astype(np.uint64))
        self._fresh_outputs()
        self._reset_all()
        self._outside_opponents(np.ones(self.num_envs, dtype=np.bool_))

    def step(self, actions: I64) -> None:
        """One step of every environment (``actions[e]`` for environment ``e``)."""
        if actions.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {actions.shape}")
        # A step plays at most two plies (the agent's, the opponent's) per environment.
        quiet = int((self.meta[:, PLY] - self.meta[:, SINCE]).max()) + 3
        if quiet > len(self.history[0]):
            rows = min(max(quiet, 2 * len(self.history[0])), self.max_plies + 1)
            grown = np.zeros((self.num_envs, rows, 3), dtype=np.int64)
            grown[:, : len(self.history[0])] = self.history
            self.history = grown
        fresh = self.meta[:, DONE] != 0  # restarted by this step: no reward, no end
        self._fresh_outputs()
        self._step_all(actions.astype(np.int64))
        self._outside_opponents(fresh)

    def set_policy(self, policy: BatchPolicy) -> None:
        """Let ``policy`` play the opponent instead of the built-in random one: after the
        compiled step stops every environment where the opponent is to act, it is called
        with their flat observations from the opponent's seat and their masks (all zeros in
        the other rows) and the indices of those rows, and returns one action per
        environment, which it has checked against the masks; the batch plays them, then
        chance, until the opponent is to act again somewhere (another call) or nowhere."""
        if not self.supports_policy:
            raise ValueError(f"{type(self).__name__} plays only its random opponent")
        self.policy = policy
        self._outside_opponent(True)

    def _outside_opponents(self, fresh: npt.NDArray[np.bool_]) -> None:
        """The policy's turns until no opponent is to act (``fresh``: the rows restarted by
        this step or reset, whose rewards and flags stay as a new episode's)."""
        policy = self.policy
        if policy is None:
            return
        meta, n = self.meta, self.num_envs
        while True:
            waiting = (
                (meta[:, STATUS] == ONGOING)
                & (meta[:, PLY] < self.max_plies)
                & (meta[:, SIDE] == 1 - meta[:, SEAT])
                & (meta[:, DONE] == 0)
            )
            rows = np.flatnonzero(waiting)
            if not len(rows):
                return
            observations = np.zeros((n, self._sizes[0]), dtype=np.float32)
            masks = np.zeros((n, self._sizes[1]), dtype=np.int8)
            self._opponent_view(rows, observations, masks)
            self._opponent_step(policy(observations, masks, rows), rows, fresh)

    def _outside_opponent(self, on: bool) -> None:
        """Make the compiled functions stop where the opponent is to act (a game's batch with
        :attr:`supports_policy` overrides this and the two below)."""
        raise NotImplementedError

    def _opponent_view(
        self, rows: I64, observations: npt.NDArray[np.float32], masks: npt.NDArray[np.int8]
    ) -> None:
        """Write the observation and mask of ``rows`` from the opponent's seat."""
        raise NotImplementedError

    def _opponent_step(self, actions: I64, rows: I64, fresh: npt.NDArray[np.bool_]) -> None:
        """Play the opponent's ``actions`` in ``rows``, then chance until the agent or the
        opponent is to act, then settle the rows not ``fresh`` and observe them."""
        raise NotImplementedError

    @abstractmethod
    def _reset_all(self) -> None:
        """Start a new episode in every environment (their generators are seeded)."""

    @abstractmethod
    def _step_all(self, actions: I64) -> None:
        """Step every environment in the game's compiled batch function."""
