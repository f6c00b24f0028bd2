"""Stable-Baselines3: the compiled vector env as an SB3 ``VecEnv``, for ``PPO``, ``DQN`` and
sb3-contrib's ``MaskablePPO`` with no glue.

``FlipgamesSB3VecEnv(game, num_envs, seed=None, seat=0, options=None, max_plies=None)`` runs
the compiled batch of :mod:`flipgames.envs.vector` (``num_envs`` games of one seat against a
uniformly random opponent; the games and option sets that have a batch) the way SB3 expects
a ``VecEnv`` to behave:

- observations are the flat observation tensors, ``(num_envs, prod(observation_tensor_shape))``
  float32 (a ``Box``, what ``MlpPolicy`` takes); the action space is ``Discrete``;
- autoreset is SB3's **same-step** mode: the step that ends an episode returns the new game's
  first observation for that environment, with the last one in
  ``infos[i]["terminal_observation"]`` (and ``infos[i]["TimeLimit.truncated"]`` when the length
  cap ended it, ``infos[i]["illegal_action"]`` when an action outside the mask did);
- :meth:`FlipgamesSB3VecEnv.action_masks` (and ``env_method("action_masks")``, which
  ``MaskablePPO`` calls) gives the legal actions of every environment as booleans. A finished
  environment already shows its new game, so no row is ever all false (an all-false row would
  give ``MaskablePPO`` NaN logits).

The rest of the semantics (rewards, illegal actions, seeding ``s + i``, the length cap) are
:class:`~flipgames.envs.vector.FlipgamesVectorEnv`'s. For a level or a policy as opponent, or
an option set without a batch, use SB3's ``DummyVecEnv`` over
``gymnasium.make("flipgames/<Game>-v0", observation="flat", ...)``, which also has
``action_masks()``. Needs ``pip install -e '.[sb3]'`` (Stable-Baselines3, sb3-contrib and
torch).

>>> envs = FlipgamesSB3VecEnv("flipflop-3x3", num_envs=4, seed=0)
>>> envs.reset().shape, envs.action_masks().shape
((4, 72), (4, 81))
>>> observations, rewards, dones, infos = envs.step(envs.action_masks().argmax(axis=1))
>>> bool(envs.action_masks().any(axis=1).all())
True
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from flipgames.envs.vector import FlipgamesVectorEnv

#: The arrays a compiled batch keeps one row of per environment (its state, then its step's
#: outputs: :class:`flipgames.kernels.vector.EnvBatch`).
_ROW_ARRAYS = (
    "board",
    "meta",
    "history",
    "seen",
    "moves",
    "rng",
    "observations",
    "masks",
    "rewards",
    "terminated",
    "truncated",
    "opponent_actions",
    "illegal",
    "replies",
)


class FlipgamesSB3VecEnv(VecEnv):
    """The compiled vector env with SB3's interface and same-step autoreset (see the module
    doc)."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        seed: int | None = None,
        seat: int | None = 0,
        options: dict[str, object] | None = None,
        max_plies: int | None = None,
    ) -> None:
        self.vector = FlipgamesVectorEnv(
            game, num_envs, "random", seat=seat, options=options, max_plies=max_plies, seed=seed
        )
        self.game = self.vector.game
        self.render_mode = None
        size = int(np.prod(self.game.observation_tensor_shape))
        observation_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        action_space = spaces.Discrete(self.game.num_distinct_actions)
        super().__init__(num_envs, observation_space, action_space)
        self._actions = np.zeros(num_envs, dtype=np.int64)
        self._masks = np.zeros((num_envs, self.game.num_distinct_actions), dtype=np.bool_)

    def reset(self) -> npt.NDArray[np.float32]:
        seeds = None if self._seeds[0] is None else [int(s) for s in self._seeds]  # type: ignore[arg-type]
        self.vector.reset(seed=seeds)
        self._reset_seeds()
        batch = self.vector.batch
        self._masks = batch.masks.astype(np.bool_)
        observations: npt.NDArray[np.float32] = batch.observations.copy()
        return observations

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        batch = self.vector.batch
        batch.step(self._actions)
        observations = batch.observations.copy()
        rewards = batch.rewards.astype(np.float32)
        terminated, truncated = batch.terminated.copy(), batch.truncated.copy()
        illegal = batch.illegal.copy()
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        for i in ended.tolist():
            infos[i]["terminal_observation"] = observations[i].copy()
            infos[i]["TimeLimit.truncated"] = bool(truncated[i])
            if illegal[i]:
                infos[i]["illegal_action"] = True
        if len(ended):
            _restart(batch, ended)
            observations[ended] = batch.observations[ended]
        self._masks = batch.masks.astype(np.bool_)
        return observations, rewards, dones, infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of every environment, ``(num_envs, num_distinct_actions)``."""
        return self._masks.copy()

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(
            f"FlipgamesSB3VecEnv has no per-environment attributes to set ({attr_name!r})"
        )

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(
                f"FlipgamesSB3VecEnv's environments have no method {method_name!r} "
                "(only action_masks)"
            )
        return list(self._masks[self._indices(indices)])

    def env_is_wrapped(
        self,
        wrapper_class: type[gymnasium.Wrapper[Any, Any, Any, Any]],
        indices: VecEnvIndices = None,
    ) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def _restart(batch: Any, rows: npt.NDArray[np.intp]) -> None:
    """Start the next game now in the environments ``rows`` of ``batch``, whose episodes just
    ended, leaving every other environment as it is.

    The compiled batch restarts an ended environment at its next step (Gymnasium's next-step
    mode) and always steps every environment. So the rows' arrays are taken into a batch of
    their own, stepped once (every one of them is marked done, so each starts its next game,
    from its own generator, and ignores its action) and put back. Whatever else a game's batch
    keeps per environment (its chance weights) is scratch written before it is read within a
    step, so the smaller batch may use the first rows of it.
    """
    part = copy.copy(batch)
    for name in _ROW_ARRAYS:
        setattr(part, name, getattr(batch, name)[rows])
    part.num_envs = len(rows)
    part._step_all(np.zeros(len(rows), dtype=np.int64))
    for name in _ROW_ARRAYS:
        getattr(batch, name)[rows] = getattr(part, name)
