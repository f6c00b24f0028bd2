"""PettingZoo AEC environments for every flipgames game.

``env("flipflop-3x3")`` (options as keyword arguments, e.g. ``env("flip-switch",
rounds=3)``) is an :class:`AECEnv` with agents ``player_0`` and ``player_1``, wrapped in
PettingZoo's ``OrderEnforcingWrapper`` as PettingZoo's classic environments are (so ``step()``
before ``reset()`` is PettingZoo's own error). Observations are ``{"observation":
observation_tensor, "action_mask": legal_action_mask}`` (the mask is all zeros for the agent
not to act and once the game is over); actions are the game's dense ids. Chance outcomes are
drawn inside the environment from a generator seeded by ``reset(seed=...)``. The reward is
the game's return (+1, 0, -1) when it ends; a game that reaches its length cap
(``Game.game_length_capped``) is truncated as a draw.

An illegal action, with ``illegal="raise"`` (the default), raises ValueError and changes
nothing; with ``illegal="lose"`` it ends the game as PettingZoo's classic environments do:
the offender gets -1, the other player +1, and ``infos[offender]["illegal_action"]`` is true.

``render_mode``: ``"ansi"`` returns the text board, ``"human"`` prints it, ``"rgb_array"``
returns an ``(H, W, 3)`` uint8 raster of player 0's observation planes
(:func:`flipgames.envs.common.raster`).

>>> aec = env("flipflop-3x3")
>>> aec.reset(seed=1)
>>> observation, reward, terminated, truncated, info = aec.last()
>>> aec.agent_selection, observation["observation"].shape, int(observation["action_mask"].sum())
('player_0', (8, 3, 3), 4)
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from flipgames.core.game import Game
from flipgames.core.registry import make
from flipgames.envs.common import Episode, dict_space, env_id, raster

RENDER_MODES = ("ansi", "human", "rgb_array")
ILLEGAL_MODES = ("raise", "lose")


def env(
    game: str, render_mode: str | None = None, illegal: str = "raise", **options: object
) -> AECEnv:
    """The AEC environment of game ``game`` with ``options``, order-enforcing."""
    return OrderEnforcingWrapper(
        FlipgamesAEC(make(game, options), render_mode=render_mode, illegal=illegal)
    )


class FlipgamesAEC(AECEnv):  # type: ignore[misc]
    """A two-player flipgames game as a PettingZoo AEC environment (see the module doc)."""

    def __init__(self, game: Game, render_mode: str | None = None, illegal: str = "raise") -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode must be None, 'ansi', 'human' or 'rgb_array', not {render_mode!r}"
            )
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal must be 'raise' or 'lose', not {illegal!r}")
        self.game = game
        self.render_mode = render_mode
        self.illegal = illegal
        self.metadata = {
            "render_modes": list(RENDER_MODES),
            "is_parallelizable": False,
            "name": f"flipgames_{env_id(game.name)}",
        }
        self.possible_agents = [f"player_{p}" for p in range(game.num_players)]
        space = dict_space(game)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {
            a: spaces.Discrete(game.num_distinct_actions) for a in self.possible_agents
        }
        self._episode: Episode | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def episode(self) -> Episode:
        """The game in progress; reset() starts one."""
        if self._episode is None:
            raise RuntimeError("call reset() before using the environment")
        return self._episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        rng = random.Random(seed) if seed is not None else random.Random()
        self._episode = Episode(self.game, rng)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        player = self.episode.state.current_player
        # Once over, turns pass round so every agent sees the end (PettingZoo's dead steps).
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
        else:
            index = self.possible_agents.index(getattr(self, "agent_selection", "player_1"))
            self.agent_selection = self.possible_agents[(index + 1) % len(self.agents)]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.episode.state
        player = self.possible_agents.index(agent)
        over = self.terminations.get(agent, True) or self.truncations.get(agent, True)
        if agent == self.agent_selection and state.current_player == player and not over:
            mask = state.legal_action_mask()
        else:
            mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        return {"observation": state.observation_tensor(player), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        episode = self.episode
        legal = episode.state.legal_actions()
        if action is None or int(action) not in legal:
            if self.illegal == "raise":
                raise ValueError(
                    f"action {action!r} is not legal for {agent}: legal ids are "
                    + " ".join(map(str, legal))
                )
            self._lose_by_illegal_action(agent)
            return
        self._cumulative_rewards[agent] = 0.0
        episode.step(int(action))
        if episode.terminated:
            returns = episode.state.returns()
            self.rewards = {a: float(returns[p]) for p, a in enumerate(self.agents)}
            self.terminations = dict.fromkeys(self.agents, True)
        elif episode.truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        self._select()
        self._accumulate_rewards()

    def _lose_by_illegal_action(self, agent: str) -> None:
        """End the game: -1 to ``agent``, who chose an illegal action, +1 to the other (the
        agent to act next is the offender, for its dead step)."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: (-1.0 if a == agent else 1.0) for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos[agent] = {**self.infos[agent], "illegal_action": True}
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return self.episode.state.render()
        if self.render_mode == "human":
            print(self.episode.state.render())
        elif self.render_mode == "rgb_array":
            return raster(self.episode.state.observation_tensor(0))
        return None

    def close(self) -> None:
        """Nothing to release."""
