"""flipgames.envs.sb3: the compiled batch as a Stable-Baselines3 VecEnv. Same-step autoreset
agrees, environment by environment, with the next-step batch it runs on (the ended game's
last observation in ``terminal_observation``, the next game's first in its place, every other
environment untouched); no mask row is ever empty; MaskablePPO trains on it and only ever
sends legal actions."""

from __future__ import annotations

import numpy as np
import pytest

from flipgames.envs.common import sample_legal
from flipgames.envs.sb3 import FlipgamesSB3VecEnv
from flipgames.envs.vector import make

GAMES = ["flipflop-3x3", "flipflop", "flipfour", "rubiks-flip", "checkered-flag", "flip-switch"]


@pytest.mark.parametrize("game", GAMES)
def test_same_step_autoreset_matches_the_next_step_batch_row_by_row(game):
    n, seed, cap = 3, 11, 12
    envs = FlipgamesSB3VecEnv(game, n, seat=None, max_plies=cap)
    envs.seed(seed)
    observations = envs.reset()
    # One single-environment batch per row, seeded as the row is (seed + i).
    singles = [make(game, 1, seat=None, max_plies=cap) for _ in range(n)]
    expected = [single.reset(seed=seed + i)[0] for i, single in enumerate(singles)]
    rng = np.random.default_rng(seed)
    ends = 0
    for _ in range(60):
        masks = envs.action_masks()
        assert masks.any(axis=1).all()  # never an all-false row
        for i in range(n):
            assert np.array_equal(observations[i], expected[i]["observation"].reshape(-1))
            assert np.array_equal(masks[i], expected[i]["action_mask"][0].astype(bool))
        actions = sample_legal(masks, rng)
        actions[rng.random(n) < 0.05] = 0  # now and then an illegal action ends a game too
        observations, rewards, dones, infos = envs.step(actions)
        for i, single in enumerate(singles):
            after, reward, terminated, truncated, single_infos = single.step(actions[i : i + 1])
            assert rewards[i] == reward[0] and dones[i] == (terminated[0] or truncated[0])
            if dones[i]:
                ends += 1
                last = infos[i]["terminal_observation"]
                assert np.array_equal(last, after["observation"].reshape(-1))
                assert infos[i]["TimeLimit.truncated"] == bool(truncated[0])
                assert infos[i].get("illegal_action", False) == bool(
                    single_infos["illegal_action"][0]
                )
                after, *_ = single.step(np.zeros(1, dtype=np.int64))  # its next-step reset
            else:
                assert infos[i] == {}
            expected[i] = after
    assert ends >= 10


def test_the_sb3_interface_answers_what_sb3_asks():
    envs = FlipgamesSB3VecEnv("flipfour", 2, seed=0)
    envs.reset()
    assert envs.has_attr("action_masks") and envs.get_attr("render_mode") == [None, None]
    assert np.array_equal(np.stack(envs.env_method("action_masks")), envs.action_masks())
    assert envs.env_is_wrapped(object) == [False, False]
    with pytest.raises(AttributeError, match="no method 'render'"):
        envs.env_method("render")


def test_maskable_ppo_trains_on_the_fast_path_and_only_sends_legal_actions():
    from sb3_contrib import MaskablePPO

    class Checked(FlipgamesSB3VecEnv):
        """Counts the actions sent, and those outside the masks they were chosen from."""

        sent = illegal = 0

        def step_async(self, actions):
            chosen = np.asarray(actions)
            Checked.sent += len(chosen)
            Checked.illegal += int((~self._masks[np.arange(self.num_envs), chosen]).sum())
            super().step_async(actions)

    envs = Checked("flipflop-3x3", 16, seed=0)
    model = MaskablePPO("MlpPolicy", envs, n_steps=16, batch_size=64, n_epochs=2, seed=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512 and Checked.sent >= 512
    assert Checked.illegal == 0


def test_maskable_ppo_finds_the_single_envs_masks_through_dummy_vec_env():
    """The documented path for a level or a policy as opponent: SB3's DummyVecEnv over
    ``gymnasium.make(..., observation="flat")``, here against a policy opponent."""
    import gymnasium
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    import flipgames.envs.gymnasium  # noqa: F401  (registers the environments)

    rng = np.random.default_rng(0)
    replies = []

    def opponent(observation, mask):
        replies.append(int(sample_legal(mask, rng)))
        return replies[-1]

    def single():
        return gymnasium.make("flipgames/FlipFlop3x3-v0", observation="flat", opponent=opponent)

    envs = DummyVecEnv([single, single])
    envs.reset()
    assert get_action_masks(envs).shape == (2, 81) and get_action_masks(envs).any(axis=1).all()
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=64)
    assert model.num_timesteps >= 64 and len(replies) >= 32
