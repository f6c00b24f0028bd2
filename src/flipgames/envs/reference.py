"""A vectorised Gymnasium environment on the reference engine: what
:mod:`flipgames.envs.vector` gives where the compiled batch cannot serve.

``ReferenceVectorEnv(game, num_envs, opponent=..., seat=0, options=None, seed=None)`` plays
``num_envs`` games of one seat in Python, one reference state per environment, against a level
(``random``, ``easy``, ``medium``, ``hard``, ``perfect``: one agent per environment) or a
policy (:data:`flipgames.envs.common.Policy`, called **once for the whole batch** each time
opponents are to act: observations ``(num_envs, *observation_tensor_shape)`` from the
opponent's seat and masks ``(num_envs, num_distinct_actions)``, both all zeros in the rows
where the opponent is not to act, whose actions are ignored; it returns ``(num_envs,)``
actions).
``gymnasium.make_vec`` and :func:`flipgames.envs.vector.make` use it for levels other than
``random``, for policies and for the option sets without a compiled batch.

Everything the agent sees is the compiled batch's: the same observation and action spaces,
rewards, flags, next-step autoreset (``metadata["autoreset_mode"]``), seeding (``reset(seed=s)``
seeds environment ``i`` with ``s + i``) and the same ``infos`` keys (``seat``,
``opponent_action``, ``illegal_action``, ``replies``, each with its ``_key`` mask).
``replies`` is as wide as the longest reply of the step (at least 1), padded with -1. Games
end at the game's own length cap (``game.max_game_length`` where ``game_length_capped``).

>>> from flipgames.envs.common import sample_legal
>>> envs = ReferenceVectorEnv("flipflop-3x3", 2, opponent="easy", seed=1)
>>> observations, infos = envs.reset()
>>> observations["observation"].shape, sorted(infos)[:2]
((2, 8, 3, 3), ['_illegal_action', '_opponent_action'])
>>> rng = np.random.default_rng(0)
>>> observations, rewards, *_ = envs.step(sample_legal(observations["action_mask"], rng))
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from flipgames.agents.base import Agent
from flipgames.agents.levels import make_level_agent
from flipgames.core.registry import make as make_game
from flipgames.envs.common import Episode, Policy, check_opponent_actions, dict_space

Observation = dict[str, np.ndarray]

_MASK64 = (1 << 64) - 1


class _Row:
    """One environment: its generator, seat, episode, level agent (if any) and what the last
    step played after the agent's action."""

    __slots__ = ("agent", "done", "episode", "opponent_action", "replies", "rng", "seat")

    def __init__(self) -> None:
        self.rng = np.random.default_rng()
        self.seat = 0
        self.episode: Episode | None = None
        self.agent: Agent | None = None
        self.done = False
        self.opponent_action = -1
        self.replies: list[int] = []


class ReferenceVectorEnv(gymnasium.vector.VectorEnv[Observation, np.ndarray, np.ndarray]):
    """``num_envs`` games of one seat on the reference engine (see the module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (Gymnasium's own)

    def __init__(
        self,
        game: str,
        num_envs: int,
        opponent: str | Policy = "random",
        seat: int | None = 0,
        options: dict[str, object] | None = None,
        seed: int | None = None,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        if seat not in (0, 1, None):
            raise ValueError(f"seat must be 0, 1 or None (drawn per episode), not {seat!r}")
        self.game = make_game(game, options or {})
        if isinstance(opponent, str):
            make_level_agent(self.game, opponent, random.Random(0))  # a bad level fails now
        elif not callable(opponent):
            raise ValueError(
                f"opponent must be a level name or a policy (a callable), not {opponent!r}"
            )
        self.opponent = opponent
        self.fixed_seat = seat
        self.num_envs = num_envs
        self._shape = self.game.observation_tensor_shape
        self.single_observation_space = dict_space(self.game)
        self.single_action_space = spaces.Discrete(self.game.num_distinct_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rows = [_Row() for _ in range(num_envs)]
        self._illegal = np.zeros(num_envs, dtype=np.bool_)
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
        if isinstance(seed, np.integer):
            seed = int(seed)
        if seed is not None:
            for row, s in zip(self._rows, self._seeds(seed), strict=True):
                row.rng = np.random.default_rng(s)
        self._seeded = True
        self._illegal[:] = False
        for row in self._rows:
            self._begin(row)
        self._opponents_move()
        return self._observations(), self._infos()

    def _seeds(self, seed: int | Sequence[int]) -> list[int]:
        if isinstance(seed, int):
            return [(seed + i) & _MASK64 for i in range(self.num_envs)]
        if len(seed) != self.num_envs:
            raise ValueError(f"{len(seed)} seeds given for {self.num_envs} environments")
        return [int(s) & _MASK64 for s in seed]

    def _begin(self, row: _Row) -> None:
        chance_seed, opponent_seed = (int(x) for x in row.rng.integers(0, 2**63, 2))
        row.seat = int(row.rng.integers(0, 2)) if self.fixed_seat is None else self.fixed_seat
        row.episode = Episode(self.game, random.Random(chance_seed))
        if isinstance(self.opponent, str):
            row.agent = make_level_agent(self.game, self.opponent, random.Random(opponent_seed))
        row.done = False
        row.opponent_action = -1
        # At a reset, the chance outcomes before the first decision (as the compiled batch).
        row.replies = list(row.episode.state.history)

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Observation, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._seeded:
            raise RuntimeError("call reset() before step()")
        chosen = np.asarray(actions, dtype=np.int64).reshape(-1)
        if chosen.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {chosen.shape}")
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        self._illegal[:] = False
        fresh = np.zeros(self.num_envs, dtype=np.bool_)
        for i, row in enumerate(self._rows):
            if row.done:  # next-step autoreset: the action is ignored
                self._begin(row)
                fresh[i] = True
                continue
            episode = _episode(row)
            row.opponent_action, row.replies = -1, []
            if int(chosen[i]) not in episode.state.legal_actions():
                rewards[i], terminated[i], self._illegal[i] = -1.0, True, True
                continue
            before = len(episode.state.history)
            episode.step(int(chosen[i]))
            row.replies = list(episode.state.history[before + 1 :])
        self._opponents_move()
        for i, row in enumerate(self._rows):
            episode = _episode(row)
            if fresh[i]:
                continue
            if self._illegal[i]:
                row.done = True
            elif episode.terminated:
                terminated[i] = row.done = True
                rewards[i] = float(episode.state.returns()[row.seat])
            elif episode.truncated:
                truncated[i] = row.done = True
        return self._observations(), rewards, terminated, truncated, self._infos()

    def _opponents_move(self) -> None:
        """Play the opponents (and the chance after them) until every game is over or has the
        agent to act: a policy is called once per round with the whole batch."""
        while True:
            waiting = [
                i for i, row in enumerate(self._rows) if not row.done and _opponent_to_act(row)
            ]
            if not waiting:
                return
            picks = self._opponent_picks(np.array(waiting, dtype=np.intp))
            for i in waiting:
                row = self._rows[i]
                episode = _episode(row)
                before = len(episode.state.history)
                episode.step(picks[i])
                row.opponent_action = picks[i]
                row.replies.extend(episode.state.history[before:])

    def _opponent_picks(self, waiting: npt.NDArray[np.intp]) -> dict[int, int]:
        if isinstance(self.opponent, str):
            picks = {}
            for i in waiting.tolist():
                row = self._rows[i]
                assert row.agent is not None
                picks[i] = row.agent.choose(_episode(row).state)
            return picks
        observations = np.zeros((self.num_envs, *self._shape), dtype=np.float32)
        masks = np.zeros((self.num_envs, self.game.num_distinct_actions), dtype=np.int8)
        for i in waiting.tolist():
            row = self._rows[i]
            state = _episode(row).state
            observations[i] = state.observation_tensor(1 - row.seat)
            masks[i] = state.legal_action_mask()
        actions = check_opponent_actions(self.opponent(observations, masks), masks, waiting)
        return {i: int(actions[i]) for i in waiting.tolist()}

    def _observations(self) -> Observation:
        observations = np.empty((self.num_envs, *self._shape), dtype=np.float32)
        masks = np.zeros((self.num_envs, self.game.num_distinct_actions), dtype=np.int8)
        for i, row in enumerate(self._rows):
            episode = _episode(row)
            observations[i] = episode.state.observation_tensor(row.seat)
            # The single environment's mask: legal actions while the agent is to act (also
            # after an illegal action or at the cap), zeros otherwise.
            if episode.state.current_player == row.seat:
                masks[i] = episode.state.legal_action_mask()
        return {"observation": observations, "action_mask": masks}

    def _infos(self) -> dict[str, Any]:
        everywhere = np.ones(self.num_envs, dtype=np.bool_)
        width = max(1, *(len(row.replies) for row in self._rows))
        replies = np.full((self.num_envs, width), -1, dtype=np.int64)
        for i, row in enumerate(self._rows):
            replies[i, : len(row.replies)] = row.replies
        return {
            "seat": np.array([row.seat for row in self._rows], dtype=np.int64),
            "_seat": everywhere,
            "opponent_action": np.array([r.opponent_action for r in self._rows], np.int64),
            "_opponent_action": everywhere.copy(),
            "illegal_action": self._illegal.copy(),
            "_illegal_action": self._illegal.copy(),
            "replies": replies,
            "_replies": everywhere.copy(),
        }


def _episode(row: _Row) -> Episode:
    assert row.episode is not None, "reset() starts every episode"
    return row.episode


def _going(episode: Episode) -> bool:
    return not episode.terminated and not episode.truncated


def _opponent_to_act(row: _Row) -> bool:
    episode = _episode(row)
    return _going(episode) and episode.state.current_player == 1 - row.seat
