"""A vectorised Gymnasium environment over the compiled kernels: many games stepped at once.

``make(game, num_envs, seed=None, opponent="random")`` returns a
:class:`gymnasium.vector.VectorEnv` of ``num_envs`` games of one seat against a uniformly
random opponent or a policy (every game's batch takes one; another level, or an option set
without a batch, gives the reference engine's
:class:`~flipgames.envs.reference.ReferenceVectorEnv`, with the same interface). One
``step`` is one call into the game's compiled batch function (see
:mod:`flipgames.kernels.vector`): for every environment the agent's action, the opponent's
reply, the observation tensor and the legal-action mask, with no Python per environment.
A policy (:data:`~flipgames.envs.common.Policy`) is called once for the whole batch each
time opponents are to act, as the reference batch calls it: ``(num_envs,
*observation_tensor_shape)`` observations from the opponent's seat and ``(num_envs,
num_distinct_actions)`` masks, all zeros in the rows where no opponent is to act (their
actions are ignored); an action outside its row's mask raises
:class:`~flipgames.envs.common.IllegalOpponentActionError` (a ``ValueError``) naming the
environment, before any of the call's actions is played.
Available for the games whose kernel offers a batch (``vector``): FlipFlop, FlipFlop 3x3,
FlipFour, Rubik's Flip and Checkered Flag (every option set; Checkered Flag's spins are drawn
inside the kernel with their exact probabilities from each environment's seeded generator),
and Flip Switch where its kernel exists (the published 3x3 board, any ``lines``, ``no_move``
and ``rounds``; each flip's shape is drawn inside when the flip is made, so a face-down tile
has no shape to leak). The other Flip Switch option sets (other sizes, ``must_flip``,
``switch_limit``) have no batch: ``gymnasium.make_vec`` falls back to a ``SyncVectorEnv``.

Everything else is :class:`flipgames.envs.gymnasium.FlipgamesEnv`'s, batched: observations
``{"observation": (num_envs, *observation_tensor_shape) float32, "action_mask": (num_envs,
num_distinct_actions) int8}``, equal row by row to the reference state's
``observation_tensor(seat)`` and ``legal_action_mask()`` (all zeros once the agent is not to
move); the reward is the agent's return when its game ends; an action outside the mask ends
that episode with reward -1 (``infos["illegal_action"]``); a game reaching the length cap
(``max_plies``, by default the game's ``max_game_length``) is truncated.

Autoreset is Gymnasium's **next-step** mode (``metadata["autoreset_mode"]``): the step after
an environment's episode ended (terminated or truncated) starts a new game in it, ignores its
action and returns the new game's first observation with reward 0 and both flags false.

The batch is always the compiled one (``FLIPGAMES_KERNEL=python`` does not apply: there is
no reference batch; the tests hold it to the reference engine instead).

Seeding: ``reset(seed=s)`` seeds environment ``i`` with ``s + i`` (a list gives one seed per
environment); ``reset()`` without a seed continues the generators (or seeds them from
``make``'s ``seed``, or from the operating system the first time). The same seeds give the
same games, opponent moves and seats.

``infos`` holds, per environment, ``seat`` (the agent's player, 0 or 1; ``seat=None`` draws
it per episode), ``opponent_action`` (the opponent's reply this step, -1 if it did not act;
at a reset, its opening move when the agent plays second), ``replies`` (every ply played
after the agent's action: the opponent's actions and chance outcomes in order, padded with
-1, so a game can be replayed on the reference engine) and ``illegal_action``, each with
Gymnasium's ``_key`` mask of the environments that have it.

>>> from flipgames.envs.vector import make
>>> envs = make("flipflop-3x3", num_envs=3, seed=1)
>>> observations, infos = envs.reset()
>>> observations["observation"].shape, observations["action_mask"].shape
((3, 8, 3, 3), (3, 81))
>>> envs.metadata["autoreset_mode"].value
'NextStep'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from flipgames.core.errors import FlipgamesError
from flipgames.core.registry import make as make_game
from flipgames.envs.common import Policy, check_opponent_actions, dict_space
from flipgames.envs.reference import ReferenceVectorEnv

if TYPE_CHECKING:
    from flipgames.kernels.parts import HasVector
    from flipgames.kernels.vector import BatchPolicy

Observation = dict[str, np.ndarray]
I64 = npt.NDArray[np.int64]

_MASK64 = (1 << 64) - 1


class NoVectorKernelError(FlipgamesError, ValueError):
    """The game has no compiled batch (its kernel offers no ``vector``)."""


class FlipgamesVectorEnv(gymnasium.vector.VectorEnv[Observation, np.ndarray, np.ndarray]):
    """``num_envs`` games of one seat against a random opponent or a policy (see the module
    doc)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (Gymnasium's own)

    def __init__(
        self,
        game: str,
        num_envs: int,
        opponent: str | Policy = "random",
        seat: int | None = 0,
        options: dict[str, object] | None = None,
        max_plies: int | None = None,
        seed: int | None = None,
    ) -> None:
        if isinstance(opponent, str) and opponent != "random":
            raise ValueError(
                f"the vectorised env plays against opponent='random' or a policy, not "
                f"{opponent!r} (the levels run in Python: use gymnasium.make(...) for them)"
            )
        if not isinstance(opponent, str) and not callable(opponent):
            raise ValueError(
                f"opponent must be 'random' or a policy (a callable), not {opponent!r}"
            )
        self.game = make_game(game, options or {})
        kernel = self.game.kernel()
        vector = getattr(kernel, "vector", None)
        if vector is None:
            raise NoVectorKernelError(
                f"{self.game.name} has no compiled batch; gymnasium.make_vec("
                "'flipgames/<Game>-v0', num_envs=...) gives a SyncVectorEnv for it"
            )
        cap = self.game.max_game_length if max_plies is None else max_plies
        if cap < 2:
            raise ValueError(f"max_plies must be at least 2, not {cap}")
        self.batch = vector(num_envs, seat, cap)
        self.num_envs = num_envs
        self.max_plies = cap
        self._shape = self.game.observation_tensor_shape
        if callable(opponent):
            if not self.batch.supports_policy:
                raise NoVectorKernelError(
                    f"{self.game.name}'s compiled batch plays only its random opponent; "
                    "flipgames.envs.vector.make(..., opponent=policy) gives the reference "
                    "engine's batch for it"
                )
            self.batch.set_policy(self._policy_caller(opponent))
        self.single_observation_space = dict_space(self.game)
        self.single_action_space = spaces.Discrete(self.game.num_distinct_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._first_seed = seed
        self._seeded = False

    def reset(
        self,
        *,
        seed: int | Sequence[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Observation, dict[str, Any]]:
        if options:
            raise ValueError(f"reset takes no options, got {sorted(options)}")
        if seed is None and not self._seeded:
            seed = self._first_seed
        if seed is None and not self._seeded:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        if isinstance(seed, np.integer):
            seed = int(seed)
        if seed is not None:
            self.batch.reset(self._seeds(seed))
            self._seeded = True
            if isinstance(seed, int):
                super().reset(seed=seed)
        else:
            # No seed: every environment continues its generator.
            self.batch.reset()
        return self._observations(), self._infos()

    def _policy_caller(self, policy: Policy) -> BatchPolicy:
        """The batch's side of ``policy``: the observations shaped as the game's tensor, and
        its actions checked (an illegal one raises before anything is played)."""
        shape = (self.num_envs, *self._shape)

        def call(
            observations: npt.NDArray[np.float32], masks: npt.NDArray[np.int8], rows: I64
        ) -> I64:
            chosen = policy(observations.reshape(shape), masks)
            return check_opponent_actions(chosen, masks, rows.astype(np.intp))

        return call

    def _seeds(self, seed: int | Sequence[int]) -> npt.NDArray[np.uint64]:
        if isinstance(seed, int):
            base = np.uint64(seed & _MASK64)
            return base + np.arange(self.num_envs, dtype=np.uint64)
        if len(seed) != self.num_envs:
            raise ValueError(f"{len(seed)} seeds given for {self.num_envs} environments")
        return np.array([s & _MASK64 for s in seed], dtype=np.uint64)

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Observation, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._seeded:
            raise RuntimeError("call reset() before step()")
        batch = self.batch
        batch.step(np.asarray(actions, dtype=np.int64).reshape(-1))
        # The batch's outputs are new arrays every step (EnvBatch._fresh_outputs): no copies.
        return (
            self._observations(),
            batch.rewards,
            batch.terminated,
            batch.truncated,
            self._infos(),
        )

    def _observations(self) -> Observation:
        batch = self.batch
        return {
            "observation": batch.observations.reshape(self.num_envs, *self._shape),
            "action_mask": batch.masks,
        }

    def _infos(self) -> dict[str, Any]:
        batch = self.batch
        everywhere = np.ones(self.num_envs, dtype=np.bool_)
        return {
            "seat": batch.seats.copy(),
            "_seat": everywhere,
            "opponent_action": batch.opponent_actions,
            "_opponent_action": everywhere.copy(),
            "illegal_action": batch.illegal,
            "_illegal_action": batch.illegal.copy(),
            "replies": batch.replies,
            "_replies": everywhere.copy(),
        }


def _fast(game: str, options: dict[str, object] | None, opponent: str | Policy) -> bool:
    """Whether the compiled batch plays ``game`` against ``opponent``: it has a batch, and
    the opponent is ``random``, or a policy and the batch can stop for one."""
    kernel = make_game(game, options or {}).kernel()
    if getattr(kernel, "vector", None) is None:
        return False
    if isinstance(opponent, str):
        return opponent == "random"
    return cast("HasVector", kernel).vector_plays_policies()


def make_vec_env(
    num_envs: int,
    game: str,
    opponent: str | Policy = "random",
    seat: int | None = 0,
    options: dict[str, object] | None = None,
    **kwargs: Any,
) -> gymnasium.vector.VectorEnv[Any, Any, Any]:
    """``gymnasium.make_vec("flipgames/<Game>-v0", num_envs=...)``'s entry: the compiled batch
    when the game has one and the opponent is ``random`` (or a policy, where the batch takes
    one); else the reference engine's batch
    (:class:`~flipgames.envs.reference.ReferenceVectorEnv`: other levels, option sets without
    a kernel), with the same ``infos`` keys; with ``render_mode`` (or another
    keyword of the single environment), a ``SyncVectorEnv`` of
    :class:`~flipgames.envs.gymnasium.FlipgamesEnv`. All autoreset at the next step."""
    if kwargs.get("render_mode") is None:
        kwargs.pop("render_mode", None)
    if kwargs:
        from flipgames.envs.gymnasium import FlipgamesEnv

        def single() -> FlipgamesEnv:
            return FlipgamesEnv(game, opponent=opponent, seat=seat, options=options, **kwargs)

        return gymnasium.vector.SyncVectorEnv([single] * num_envs)
    if _fast(game, options, opponent):
        return FlipgamesVectorEnv(game, num_envs, opponent, seat, options)
    return ReferenceVectorEnv(game, num_envs, opponent, seat, options)


def make(
    game: str,
    num_envs: int,
    seed: int | None = None,
    opponent: str | Policy = "random",
    seat: int | None = 0,
    options: dict[str, object] | None = None,
    max_plies: int | None = None,
) -> FlipgamesVectorEnv | ReferenceVectorEnv:
    """``num_envs`` environments of ``game`` (a registered name, e.g. ``"flipflop-3x3"``);
    ``seed`` seeds the first ``reset()`` that is given none.

    The compiled batch against ``random``, and against a policy (``opponent`` a callable,
    called once for the whole batch each time opponents are to act; every game's batch stops
    for one); otherwise, against another level or a policy on an option set without a batch,
    the reference engine's :class:`~flipgames.envs.reference.ReferenceVectorEnv` (Python per
    environment, so about the single environment's speed per env step; ``max_plies`` is then
    the game's own cap). Against ``random``, an option set without a compiled batch raises
    :class:`NoVectorKernelError`.
    """
    if opponent != "random" and not _fast(game, options, opponent):
        if max_plies is not None:
            raise ValueError(
                "max_plies applies to the compiled batch (opponent='random' or a policy) only"
            )
        return ReferenceVectorEnv(game, num_envs, opponent, seat, options, seed)
    return FlipgamesVectorEnv(
        game, num_envs, opponent=opponent, seat=seat, options=options, max_plies=max_plies,
        seed=seed,
    )  # fmt: skip
