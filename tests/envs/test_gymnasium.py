"""Gymnasium: every game is registered, passes Gymnasium's env checker, plays against a
built-in level and ends episodes with the agent's return."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import flipgames.envs.gymnasium  # noqa: F401  (registers the environments)
from flipgames import game_names
from flipgames.agents.levels import LevelUnavailableError
from flipgames.envs.common import env_id


@pytest.mark.parametrize("name", game_names())
def test_every_game_is_registered_and_passes_the_checker(name):
    env = gymnasium.make(f"flipgames/{env_id(name)}-v0")
    check_env(env.unwrapped, skip_render_check=True)


def play(env: gymnasium.Env, seed: int) -> tuple[float, int]:
    observation, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps = 0.0, 0
    while True:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, terminated, truncated, _ = env.step(action)
        total += float(reward)
        steps += 1
        if terminated or truncated:
            return total, steps


def test_an_episode_against_easy_ends_with_the_agents_return():
    env = gymnasium.make("flipgames/FlipFlop3x3-v0", opponent="easy")
    results = [play(env, seed) for seed in range(3)]
    assert all(total in (-1.0, 0.0, 1.0) for total, _ in results)
    assert results == [play(env, seed) for seed in range(3)]  # seeded: the same episodes


def test_the_agent_can_sit_second_and_chance_happens_inside():
    env = gymnasium.make("flipgames/CheckeredFlag-v0", seat=1, opponent="medium")
    observation, info = env.reset(seed=2)
    assert info["seat"] == 1 and observation["action_mask"].any()
    total, _ = play(env, 2)
    assert total in (-1.0, 1.0)


def test_a_free_seat_is_drawn_from_the_seed():
    env = gymnasium.make("flipgames/FlipFour-v0", seat=None)
    seats = [env.reset(seed=seed)[1]["seat"] for seed in range(12)]
    assert set(seats) == {0, 1}
    assert seats == [env.reset(seed=seed)[1]["seat"] for seed in range(12)]
    check_env(env.unwrapped, skip_render_check=True)


def test_an_illegal_action_ends_the_episode_as_a_loss():
    env = gymnasium.make("flipgames/FlipFlop3x3-v0")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(0)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(LevelUnavailableError, match="perfect"):
        gymnasium.make("flipgames/FlipFlop-v0", opponent="perfect")
    with pytest.raises(ValueError, match="seat must be 0, 1 or None"):
        gymnasium.make("flipgames/FlipFlop-v0", seat=2)


@pytest.mark.parametrize("name", game_names())
def test_the_flat_observation_passes_the_checker_with_the_mask_in_info(name):
    env = gymnasium.make(f"flipgames/{env_id(name)}-v0", observation="flat").unwrapped
    check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=1)
    dict_env = gymnasium.make(f"flipgames/{env_id(name)}-v0").unwrapped
    expected, _ = dict_env.reset(seed=1)
    assert observation.shape == (expected["observation"].size,)
    assert np.array_equal(observation, expected["observation"].reshape(-1))
    assert np.array_equal(info["action_mask"], expected["action_mask"])
    assert np.array_equal(env.action_masks(), expected["action_mask"].astype(bool))


def test_action_masks_follow_the_game_and_are_empty_once_it_is_over():
    env = gymnasium.make("flipgames/FlipFlop3x3-v0").unwrapped
    env.reset(seed=0)
    assert env.action_masks().dtype == np.bool_ and env.action_masks().sum() == 4
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        done = terminated or truncated
    assert not env.action_masks().any()


@pytest.mark.parametrize("name", game_names())
def test_rgb_array_renders_a_raster_of_the_observation(name):
    env = gymnasium.make(f"flipgames/{env_id(name)}-v0", render_mode="rgb_array").unwrapped
    observation, _ = env.reset(seed=2)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert not np.array_equal(env.render(), frame)  # the picture follows the position
    check_env(env)
