"""PettingZoo: every game passes PettingZoo's own API, seed and render tests; chance is drawn
inside from the reset seed; illegal actions are refused or lose the game; the order of calls
is enforced; the length cap truncates."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from flipgames import game_names
from flipgames.envs.pettingzoo import env


@pytest.mark.parametrize("name", game_names())
def test_every_game_passes_the_pettingzoo_api_test(name):
    api_test(env(name), num_cycles=300)


@pytest.mark.parametrize("name", game_names())
def test_every_game_passes_the_seed_test(name):
    seed_test(lambda: env(name), num_cycles=200)


@pytest.mark.parametrize("name", game_names())
def test_every_game_passes_the_render_test(name, capsys):
    render_test(lambda render_mode=None: env(name, render_mode=render_mode))
    assert capsys.readouterr().out.strip()  # "human" printed the board


def test_the_raster_follows_the_game():
    aec = env("flipflop-3x3", render_mode="rgb_array")
    aec.reset(seed=0)
    first = aec.render()
    assert first.dtype == np.uint8 and first.shape[2] == 3
    aec.step(int(np.flatnonzero(aec.last()[0]["action_mask"])[0]))
    assert not np.array_equal(aec.render(), first)


def test_step_before_reset_is_pettingzoos_order_error():
    aec = env("flipfour")
    with pytest.raises(AssertionError, match="reset"):
        aec.step(0)
    with pytest.raises(AttributeError, match="before reset"):
        aec.agent_selection  # noqa: B018 (the access is what is tested)


def test_an_illegal_action_loses_with_illegal_lose():
    aec = env("flipflop-3x3", illegal="lose")
    api_test(aec, num_cycles=50)
    aec.reset(seed=0)
    aec.step(0)  # not legal for White at the start
    assert all(aec.terminations.values())
    assert aec.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert aec.infos["player_0"]["illegal_action"]
    final = {}
    for agent in aec.agent_iter():
        observation, reward, terminated, _, _ = aec.last()
        assert terminated and not observation["action_mask"].any()
        final[agent] = reward
        aec.step(None)
    assert final == {"player_0": -1.0, "player_1": 1.0}
    with pytest.raises(ValueError, match="illegal must be 'raise' or 'lose'"):
        env("flipflop-3x3", illegal="ignore")


def test_options_reach_the_game():
    aec = env("rubiks-flip", flip="flap")
    assert aec.action_space("player_0").n == 2080


def play_out(aec, seed: int) -> tuple[list[int], dict[str, float]]:
    """Play masked random actions to the end; the actions taken and the final rewards."""
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    taken, final = [], {}
    for agent in aec.agent_iter():
        observation, reward, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            final[agent] = reward
            aec.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        taken.append(action)
        aec.step(action)
    return taken, final


def test_chance_is_seeded_and_games_end_with_zero_sum_rewards():
    aec = env("checkered-flag")
    first = play_out(aec, 4)
    assert play_out(aec, 4) == first
    assert sorted(first[1].values()) == [-1.0, 1.0]


def test_the_agent_not_to_act_gets_an_empty_mask_and_illegal_actions_are_refused():
    aec = env("flipflop-3x3")
    aec.reset(seed=0)
    assert not aec.observe("player_1")["action_mask"].any()
    with pytest.raises(ValueError, match="not legal for player_0"):
        aec.step(0)


def test_a_game_reaching_its_cap_is_truncated_as_a_draw(monkeypatch):
    from flipgames.games.flipflop.rules import FlipFlop3x3

    monkeypatch.setattr(FlipFlop3x3, "max_game_length", property(lambda self: 4))
    aec = env("flipflop-3x3")
    aec.reset(seed=1)
    for _ in range(4):
        mask = aec.last()[0]["action_mask"]
        aec.step(int(np.flatnonzero(mask)[0]))
    assert all(aec.truncations.values()) and not any(aec.terminations.values())
    assert aec.last()[1] == 0.0
