"""Gymnasium environments: one seat of a flipgames game against a built-in opponent or a
policy.

Importing this module registers ``flipgames/<Game>-v0`` for every registered game (the ids
are the titles without spaces: ``FlipFlop-v0``, ``FlipFlop3x3-v0``, ``FlipFour-v0``,
``RubiksFlip-v0``, ``FlipSwitch-v0``, ``CheckeredFlag-v0``)::

    import gymnasium
    import flipgames.envs.gymnasium
    env = gymnasium.make("flipgames/FlipFlop3x3-v0", opponent="easy")

Keyword arguments: ``opponent`` (a level: ``random``, the default, ``easy``, ``medium``,
``hard`` or ``perfect`` where the game is solved; or a policy, a callable from the opponent's
observation and legal-action mask to its action, for self-play: see
:data:`flipgames.envs.common.Policy`), ``seat`` (0 or 1: which player the agent is; ``None``
draws it for each episode from the reset seed), ``options`` (the game's rule options, a
dict) and ``observation`` (``"dict"``, the default, or ``"flat"``).

With ``observation="dict"`` observations are ``{"observation": observation_tensor(seat),
"action_mask": legal_action_mask()}``; with ``"flat"`` they are the tensor alone, flattened
to a float32 ``Box`` (what Stable-Baselines3's ``MlpPolicy`` takes). Either way
``info["action_mask"]`` holds the mask and :meth:`FlipgamesEnv.action_masks` returns it as
booleans (what sb3-contrib's ``MaskablePPO`` calls). Actions are the game's dense ids. The
opponent's moves and every chance outcome are played inside ``step`` with generators seeded
by ``reset(seed=...)``; a policy opponent is given its own seat's observation (in the same
form as the agent's) and mask, and an action of it outside the mask raises
:class:`~flipgames.envs.common.IllegalOpponentActionError`. The reward is the agent's return
(+1, 0, -1) when the game ends. An action outside the mask ends the episode at once with
reward -1 and ``info["illegal_action"] = True`` (so unmasked exploration and Gymnasium's
checker work). A game that reaches its length cap is truncated. ``render_mode`` ``"ansi"``
renders the text board, ``"rgb_array"`` a raster of the observation planes
(:func:`flipgames.envs.common.raster`).

>>> import gymnasium
>>> env = gymnasium.make("flipgames/FlipFlop3x3-v0")
>>> observation, info = env.reset(seed=3)
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((8, 3, 3), 4)
>>> flat = gymnasium.make("flipgames/FlipFlop3x3-v0", observation="flat")
>>> flat.reset(seed=3)[0].shape, int(flat.unwrapped.action_masks().sum())
((72,), 4)

``gymnasium.make_vec("flipgames/<Game>-v0", num_envs=N, ...)`` gives the compiled
:mod:`flipgames.envs.vector` batch where the game has one and the opponent is ``random``, and
the reference engine's batch (:class:`flipgames.envs.reference.ReferenceVectorEnv`)
otherwise.
"""

from __future__ import annotations

import random
from typing import Any, SupportsFloat, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from flipgames.agents.base import Agent
from flipgames.agents.levels import make_level_agent
from flipgames.core.game import State
from flipgames.core.registry import game_names, make
from flipgames.envs.common import (
    Episode,
    Policy,
    check_opponent_actions,
    env_id,
    raster,
)

#: ``{"observation", "action_mask"}`` arrays, or the flat tensor (``observation="flat"``).
Observation = dict[str, np.ndarray] | np.ndarray

OBSERVATION_MODES = ("dict", "flat")


class FlipgamesEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of a game against a level or a policy (see the module doc)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        opponent: str | Policy = "random",
        seat: int | None = 0,
        options: dict[str, object] | None = None,
        render_mode: str | None = None,
        observation: str = "dict",
    ) -> None:
        if seat not in (0, 1, None):
            raise ValueError(f"seat must be 0, 1 or None (drawn per episode), not {seat!r}")
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(
                f"render_mode must be None, 'ansi' or 'rgb_array', not {render_mode!r}"
            )
        if observation not in OBSERVATION_MODES:
            raise ValueError(f"observation must be 'dict' or 'flat', not {observation!r}")
        self.game = make(game, options or {})
        self.opponent_level = opponent
        if isinstance(opponent, str):
            # Checked now, so a bad level is a clear error at make() rather than at reset().
            make_level_agent(self.game, opponent, random.Random(0))
        elif not callable(opponent):
            raise ValueError(
                f"opponent must be a level name or a policy (a callable), not {opponent!r}"
            )
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.render_mode = render_mode
        self.observation_mode = observation
        n = self.game.num_distinct_actions
        shape = self.game.observation_tensor_shape
        tensor = spaces.Box(0.0, 1.0, shape, dtype=np.float32)
        mask = spaces.Box(0, 1, (n,), dtype=np.int8)
        flat = spaces.Box(0.0, 1.0, (int(np.prod(shape)),), dtype=np.float32)
        self.observation_space = cast(
            spaces.Space[Observation],
            flat
            if observation == "flat"
            else spaces.Dict({"observation": tensor, "action_mask": mask}),
        )
        self.action_space = spaces.Discrete(n)
        self._episode: Episode | None = None
        self._opponent: Agent | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        # Chance, the opponent and a free seat draw from the environment's seeded generator,
        # so the same seed gives the same episode.
        chance_seed, opponent_seed = (int(x) for x in self.np_random.integers(0, 2**63, 2))
        if self.fixed_seat is None:
            self.seat = int(self.np_random.integers(0, 2))
        self._episode = Episode(self.game, random.Random(chance_seed))
        if isinstance(self.opponent_level, str):
            self._opponent = make_level_agent(
                self.game, self.opponent_level, random.Random(opponent_seed)
            )
        self._opponent_moves()
        return self._observe(), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        episode = self._require()
        if episode.terminated or episode.truncated:
            raise RuntimeError("the episode is over: call reset()")
        if int(action) not in episode.state.legal_actions():
            return self._observe(), -1.0, True, False, {**self._info(), "illegal_action": True}
        episode.step(int(action))
        self._opponent_moves()
        reward = float(episode.state.returns()[self.seat]) if episode.terminated else 0.0
        return self._observe(), reward, episode.terminated, episode.truncated, self._info()

    def _opponent_moves(self) -> None:
        episode = self._require()
        while (
            not episode.terminated
            and not episode.truncated
            and episode.state.current_player == 1 - self.seat
        ):
            episode.step(self._opponent_action(episode.state))

    def _opponent_action(self, state: State) -> int:
        if self._opponent is not None:
            return self._opponent.choose(state)
        policy = cast(Policy, self.opponent_level)
        mask = state.legal_action_mask()
        tensor = state.observation_tensor(1 - self.seat)
        shown = tensor.reshape(-1) if self.observation_mode == "flat" else tensor
        return int(check_opponent_actions(policy(shown, mask), mask, np.zeros(1, np.intp))[0])

    def _require(self) -> Episode:
        if self._episode is None:
            raise RuntimeError("call reset() before step()")
        return self._episode

    def _mask(self) -> np.ndarray:
        state = self._require().state
        if state.current_player == self.seat:
            return state.legal_action_mask()
        return np.zeros(self.game.num_distinct_actions, dtype=np.int8)

    def _observe(self) -> Observation:
        tensor = self._require().state.observation_tensor(self.seat)
        if self.observation_mode == "flat":
            return tensor.reshape(-1)
        return {"observation": tensor, "action_mask": self._mask()}

    def _info(self) -> dict[str, Any]:
        state = self._require().state
        return {
            "action_mask": self._mask(),
            "seat": self.seat,
            "status_text": state.status_text(),
        }

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as booleans over the action ids (all false when the agent
        is not to act): what sb3-contrib's ``MaskablePPO`` asks before each step."""
        return self._mask().astype(np.bool_)

    def render(self) -> str | np.ndarray | None:
        state = self._require().state
        if self.render_mode == "ansi":
            return state.render()
        if self.render_mode == "rgb_array":
            return raster(state.observation_tensor(self.seat))
        return None


def _register() -> None:
    for name in game_names():
        gym_id = f"flipgames/{env_id(name)}-v0"
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="flipgames.envs.gymnasium:FlipgamesEnv",
                vector_entry_point="flipgames.envs.vector:make_vec_env",
                kwargs={"game": name},
            )


_register()
