"""Self-play: the Gymnasium env and the vectorised envs take ``opponent=policy``; the policy
is called with its own seat's observations and masks (one call per step for a whole batch),
its actions are the ones played, and an illegal one is a clear error that plays nothing."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import flipgames.envs.gymnasium  # noqa: F401  (registers the environments)
from flipgames import make as make_game
from flipgames.envs.common import IllegalOpponentActionError, sample_legal
from flipgames.envs.vector import FlipgamesVectorEnv, make


class Recorder:
    """A uniformly random policy that keeps what it was given and what it chose."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.calls: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        playing = masks.any(axis=-1)
        safe = np.where(playing[..., None], masks, 1)  # rows not to play: any action
        actions = sample_legal(safe, self.rng)
        self.calls.append((observations.copy(), masks.copy(), np.asarray(actions)))
        return actions


@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_the_single_env_plays_the_policys_actions_from_its_own_seat(observation):
    game = make_game("flipflop-3x3")
    policy = Recorder(1)
    env = gymnasium.make(
        "flipgames/FlipFlop3x3-v0", opponent=policy, seat=1, observation=observation
    ).unwrapped
    env.reset(seed=0)  # the agent plays Black: the policy opens
    (opened_on, mask, action), *_ = policy.calls
    start = game.new_initial_state()
    expected = start.observation_tensor(0)
    assert opened_on.shape == (
        expected.reshape(-1).shape if observation == "flat" else expected.shape
    )
    assert np.array_equal(opened_on.reshape(expected.shape), expected)
    assert np.array_equal(mask, start.legal_action_mask())
    assert env._episode.state.history == (int(action),)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    # Every ply the opponent made is the policy's choice, in order.
    assert [int(a) for *_, a in policy.calls] == list(env._episode.state.history[0::2])


def test_an_illegal_action_of_the_policy_is_a_clear_error_and_plays_nothing():
    env = gymnasium.make("flipgames/FlipFlop3x3-v0", opponent=lambda o, m: 0).unwrapped
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    with pytest.raises(IllegalOpponentActionError, match="chose action 0, which is not legal"):
        env.step(legal)
    with pytest.raises(ValueError, match="opponent must be a level name or a policy"):
        gymnasium.make("flipgames/FlipFlop3x3-v0", opponent=3)


@pytest.mark.parametrize("game", ["flipflop-3x3", "checkered-flag", "flip-switch"])
def test_the_vector_env_calls_the_policy_once_per_step_with_the_whole_batch(game):
    policy = Recorder(2)
    envs = make(game, 4, seed=5, opponent=policy, seat=None)
    assert isinstance(envs, FlipgamesVectorEnv)  # every game's compiled batch stops for one
    shape = make_game(game).observation_tensor_shape
    actions_count = make_game(game).num_distinct_actions
    observations, infos = envs.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        calls_before = len(policy.calls)
        playing = observations["action_mask"].any(axis=1)
        actions = np.where(playing, 0, 0)
        actions[playing] = sample_legal(observations["action_mask"][playing], rng)
        observations, _, _, _, infos = envs.step(actions)
        new_calls = policy.calls[calls_before:]
        chosen_by_row: list[list[int]] = [[] for _ in range(4)]
        for seen, masks, chosen in new_calls:
            assert seen.shape == (4, *shape) and masks.shape == (4, actions_count)
            assert chosen.shape == (4,)
            assert masks.any()  # a call only when some opponent is to act
            for i in np.flatnonzero(masks.any(axis=1)):
                chosen_by_row[i].append(int(chosen[i]))
        for i, picks in enumerate(chosen_by_row):
            # The policy's actions are the opponent's plies the env reports, in order.
            if picks:
                assert infos["opponent_action"][i] == picks[-1]
                replies = infos["replies"][i].tolist()
                positions = [replies.index(a) for a in picks]
                assert positions == sorted(positions)
        # FlipFlop and Checkered Flag give the opponent one decision per step: one call.
        if game != "flip-switch":
            assert len(new_calls) <= 1
    assert len(policy.calls) >= 20


def test_the_vector_policy_sees_the_opponents_own_view():
    policy = Recorder(3)
    envs = make("flipflop-3x3", 2, seed=1, opponent=policy, seat=1)
    envs.reset()
    seen, masks, _ = policy.calls[0]
    start = make_game("flipflop-3x3").new_initial_state()
    for i in range(2):  # the agent is Black: the policy plays White's opening
        assert np.array_equal(seen[i], start.observation_tensor(0))
        assert np.array_equal(masks[i], start.legal_action_mask())


def test_an_illegal_action_in_a_batch_names_the_environment_and_plays_nothing():
    def bad(observations, masks):
        actions = sample_legal(np.where(masks.any(axis=1)[:, None], masks, 1), rng)
        actions[1] = 0  # never legal at the start of FlipFlop 3x3
        return actions

    rng = np.random.default_rng(0)
    envs = make("flipflop-3x3", 3, seed=1, opponent=bad, seat=1)
    with pytest.raises(IllegalOpponentActionError, match="action 0 in environment 1"):
        envs.reset()
    with pytest.raises(IllegalOpponentActionError, match="integer action"):
        make("flipflop-3x3", 2, seed=1, opponent=lambda o, m: [0.5, 1.5], seat=1).reset()


def test_the_vector_env_plays_a_level_too():
    envs = gymnasium.make_vec("flipgames/FlipFlop3x3-v0", num_envs=3, opponent="easy")
    observations, _ = envs.reset(seed=4)
    rng = np.random.default_rng(4)
    finished = 0
    for _ in range(200):
        mask = observations["action_mask"]
        actions = np.zeros(3, dtype=np.int64)
        rows = mask.any(axis=1)
        actions[rows] = sample_legal(mask[rows], rng)
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        assert not infos["illegal_action"].any()
        finished += int((terminated | truncated).sum())
        assert set(rewards.tolist()) <= {-1.0, 0.0, 1.0}
    assert finished > 0
