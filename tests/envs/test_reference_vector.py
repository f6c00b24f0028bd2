"""flipgames.envs.reference: the reference engine's batch is, environment by environment, the
single Gymnasium env with the same seed (``s + i``), with next-step autoreset between
episodes and the compiled batch's ``infos``."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import flipgames.envs.gymnasium  # noqa: F401  (registers the environments)
from flipgames import game_names
from flipgames.envs.common import env_id, sample_legal
from flipgames.envs.reference import ReferenceVectorEnv

# A level's agents too, on the games where easy answers fast (its search is the slow part).
CASES = [(name, "random") for name in game_names()] + [
    ("flipflop-3x3", "easy"),
    ("checkered-flag", "easy"),
]


@pytest.mark.parametrize(("name", "opponent"), CASES)
def test_each_row_is_the_single_env_with_its_seed(name, opponent):
    n, seed = 3, 21
    envs = ReferenceVectorEnv(name, n, opponent=opponent, seat=None)
    observations, infos = envs.reset(seed=seed)
    singles = [
        gymnasium.make(f"flipgames/{env_id(name)}-v0", opponent=opponent, seat=None).unwrapped
        for _ in range(n)
    ]
    expected = [single.reset(seed=seed + i) for i, single in enumerate(singles)]
    restart = [False] * n
    rng = np.random.default_rng(seed)
    ends = 0
    for _ in range(40):
        for i, (observation, info) in enumerate(expected):
            assert np.array_equal(observations["observation"][i], observation["observation"])
            assert np.array_equal(observations["action_mask"][i], observation["action_mask"])
            assert infos["seat"][i] == info["seat"]
        mask = observations["action_mask"]
        actions = np.zeros(n, dtype=np.int64)
        playing = mask.any(axis=1)
        actions[playing] = sample_legal(mask[playing], rng)
        actions[rng.random(n) < 0.03] = 0  # now and then an illegal action
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        for i, single in enumerate(singles):
            if restart[i]:  # next-step autoreset: the single env starts its next episode
                expected[i] = single.reset()
                assert rewards[i] == 0 and not terminated[i] and not truncated[i]
                restart[i] = False
                continue
            observation, reward, done, cut, info = single.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (reward, done, cut)
            assert infos["illegal_action"][i] == info.get("illegal_action", False)
            expected[i] = (observation, info)
            restart[i] = done or cut
            ends += done or cut
    assert ends >= 3
