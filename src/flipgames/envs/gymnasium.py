"""Gymnasium environments: one seat of a flipgames game against a built-in opponent.

Importing this module registers ``flipgames/<Game>-v0`` for every registered game (the ids
are the titles without spaces: ``FlipFlop-v0``, ``FlipFlop3x3-v0``, ``FlipFour-v0``,
``RubiksFlip-v0``, ``FlipSwitch-v0``, ``CheckeredFlag-v0``)::

    import gymnasium
    import flipgames.envs.gymnasium
    env = gymnasium.make("flipgames/FlipFlop3x3-v0", opponent="easy")

Keyword arguments: ``opponent`` (a level: ``random``, the default, ``easy``, ``medium``,
``hard`` or ``perfect`` where the game is solved), ``seat`` (0 or 1: which player the agent
is; ``None`` draws it for each episode from the reset seed) and ``options`` (the game's rule
options, a dict).

Observations are ``{"observation": observation_tensor(seat), "action_mask":
legal_action_mask()}``, actions the game's dense ids; ``info["action_mask"]`` repeats the
mask. The opponent's moves and every chance outcome are played inside ``step`` with
generators seeded by ``reset(seed=...)``. The reward is the agent's return (+1, 0, -1) when
the game ends. An action outside the mask ends the episode at once with reward -1 and
``info["illegal_action"] = True`` (so unmasked exploration and Gymnasium's checker work). A
game that reaches its length cap is truncated.

>>> import gymnasium
>>> env = gymnasium.make("flipgames/FlipFlop3x3-v0")
>>> observation, info = env.reset(seed=3)
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((8, 3, 3), 4)

``gymnasium.make_vec("flipgames/<Game>-v0", num_envs=N, ...)`` gives the compiled
:mod:`flipgames.envs.vector` batch where the game has one and the opponent is ``random``, and
a ``SyncVectorEnv`` of these environments otherwise.
"""

from __future__ import annotations

import random
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from flipgames.agents.base import Agent
from flipgames.agents.levels import make_level_agent
from flipgames.core.registry import game_names, make
from flipgames.envs.common import Episode, env_id

Observation = dict[str, np.ndarray]


class FlipgamesEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of a game against a level (see the module doc)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012 (Gymnasium's own)

    def __init__(
        self,
        game: str,
        opponent: str = "random",
        seat: int | None = 0,
        options: dict[str, object] | None = None,
        render_mode: str | None = None,
    ) -> None:
        if seat not in (0, 1, None):
            raise ValueError(f"seat must be 0, 1 or None (drawn per episode), not {seat!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.game = make(game, options or {})
        self.opponent_level = opponent
        # Checked now, so a bad level is a clear error at make() rather than at reset().
        make_level_agent(self.game, opponent, random.Random(0))
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.render_mode = render_mode
        n = self.game.num_distinct_actions
        self.observation_space = spaces.Dict(  # type: ignore[assignment]
            {
                "observation": spaces.Box(
                    0.0, 1.0, self.game.observation_tensor_shape, dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
            }
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
        assert self._opponent is not None
        while (
            not episode.terminated
            and not episode.truncated
            and episode.state.current_player == 1 - self.seat
        ):
            episode.step(self._opponent.choose(episode.state))

    def _require(self) -> Episode:
        if self._episode is None:
            raise RuntimeError("call reset() before step()")
        return self._episode

    def _observe(self) -> Observation:
        state = self._require().state
        mask = (
            state.legal_action_mask()
            if state.current_player == self.seat
            else np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        )
        return {"observation": state.observation_tensor(self.seat), "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        state = self._require().state
        return {
            "action_mask": self._observe()["action_mask"],
            "seat": self.seat,
            "status_text": state.status_text(),
        }

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._require().state.render()
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
