"""A policy as the opponent of the compiled batch (every game's): one call for the whole
batch each time opponents are to act, from the opponent's own seat, and the games played are
the reference engine's batch's with the same policy and seed (exactly so where no chance is
drawn; with chance, every policy call and every row is checked against reference states
replaying the batch's reported plies)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from flipgames import make as make_game
from flipgames.core.game import State
from flipgames.envs.common import IllegalOpponentActionError, sample_legal
from flipgames.envs.reference import ReferenceVectorEnv
from flipgames.envs.vector import FlipgamesVectorEnv, NoVectorKernelError, make


class Recorder:
    """A seeded random policy that keeps every call's observations, masks and choices."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.calls: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions = np.zeros(len(masks), dtype=np.int64)
        playing = masks.any(axis=1)
        actions[playing] = sample_legal(masks[playing], self.rng)
        self.calls.append((observations.copy(), masks.copy(), actions.copy()))
        return actions


def agent_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per row (any id now and then: illegal actions end episodes)."""
    actions = np.zeros(len(mask), dtype=np.int64)
    playing = mask.any(axis=1)
    actions[playing] = sample_legal(mask[playing], rng)
    wild = rng.random(len(mask)) < 0.02
    actions[wild] = rng.integers(0, mask.shape[1], int(wild.sum()))
    return actions


def trimmed(replies: np.ndarray) -> list[list[int]]:
    return [[a for a in row.tolist() if a >= 0] for row in replies]


def lowest(masks: np.ndarray) -> np.ndarray:
    """The lowest legal id per row (0 where none)."""
    return masks.argmax(axis=1).astype(np.int64)


def highest(masks: np.ndarray) -> np.ndarray:
    """The highest legal id per row (0 where none)."""
    highest = masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)
    return np.where(masks.any(axis=1), highest, 0).astype(np.int64)


class Fixed(Recorder):
    """A recording policy that always plays the lowest or the highest legal id."""

    def __init__(self, choose: Callable[[np.ndarray], np.ndarray]) -> None:
        super().__init__(0)
        self.choose = choose

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions = self.choose(masks)
        self.calls.append((observations.copy(), masks.copy(), actions.copy()))
        return actions


def same_games(
    game: str,
    options: dict[str, object],
    seat: int,
    steps: int,
    policies: tuple[Recorder, Recorder],
    agent: Callable[[np.ndarray], np.ndarray],
) -> tuple[int, int]:
    """Step the compiled batch and the reference batch (5 envs, the same seed, each with its
    own copy of the policy) with the same agent actions, asserting every output and every
    policy call equal; returns the episode ends and the drawn ends seen."""
    fast = make(game, 5, seed=3, opponent=policies[0], seat=seat, options=options)
    reference = ReferenceVectorEnv(game, 5, policies[1], seat, options, seed=3)
    assert isinstance(fast, FlipgamesVectorEnv)
    outputs = [(*fast.reset(), None, None, None), (*reference.reset(), None, None, None)]
    ends = draws = 0
    for _ in range(steps):
        (a, a_infos, *a_rest), (b, b_infos, *b_rest) = outputs
        for key in ("observation", "action_mask"):
            np.testing.assert_array_equal(a[key], b[key])
        for x, y in zip(a_rest, b_rest, strict=True):
            np.testing.assert_array_equal(x, y)
        for key in ("seat", "opponent_action", "illegal_action", "_illegal_action"):
            np.testing.assert_array_equal(a_infos[key], b_infos[key])
        assert trimmed(a_infos["replies"]) == trimmed(b_infos["replies"])
        actions = agent(a["action_mask"])
        stepped = [env.step(actions) for env in (fast, reference)]
        outputs = [(s[0], s[4], s[1], s[2], s[3]) for s in stepped]
        ends += int((stepped[0][2] | stepped[0][3]).sum())
        draws += int((stepped[0][2] & (stepped[0][1] == 0)).sum())
    assert len(policies[0].calls) == len(policies[1].calls) > 60
    for (a_seen, a_masks, a_chosen), (b_seen, b_masks, b_chosen) in zip(
        policies[0].calls, policies[1].calls, strict=True
    ):
        np.testing.assert_array_equal(a_seen, b_seen)
        np.testing.assert_array_equal(a_masks, b_masks)
        np.testing.assert_array_equal(a_chosen, b_chosen)
    return ends, draws


#: Games without chance: (name, options, steps, episode ends the run must see). A random
#: FlipFour game runs for thousands of plies, so most of its episodes end by the agent's
#: illegal actions.
WITHOUT_CHANCE = [
    ("rubiks-flip", {}, 80, 20),
    ("rubiks-flip", {"flip": "flap", "both": "opponent"}, 80, 20),
    ("flipflop", {}, 150, 20),
    ("flipflop-3x3", {}, 150, 20),
    ("flipfour", {}, 150, 8),
]


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize(("game", "options", "steps", "min_ends"), WITHOUT_CHANCE)
def test_without_chance_the_batch_plays_the_reference_batchs_games(
    game, options, steps, min_ends, seat
):
    # No chance and a fixed seat: the same agent actions and the same policy give the same
    # games, step for step, in every output and in every call the policy gets.
    rng = np.random.default_rng(7)
    ends, _ = same_games(
        game, options, seat, steps, (Recorder(1), Recorder(1)), lambda m: agent_actions(m, rng)
    )
    assert ends >= min_ends


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize(
    ("game", "agent", "policy"), [("flipflop", lowest, highest), ("flipfour", lowest, lowest)]
)
def test_a_policy_walking_into_repetitions_draws_as_the_reference(game, agent, policy, seat):
    # Fixed choices on both sides come back to earlier positions: the repetition plane the
    # policy sees and the third occurrence's draw must be the reference batch's too.
    policies = (Fixed(policy), Fixed(policy))
    _, draws = same_games(game, {}, seat, 100, policies, agent)
    assert draws >= 10
    assert any(seen[:, 7].any() for seen, _, _ in policies[0].calls)  # "repeated" plane


class Shadow:
    """The reference state of one environment, rebuilt from the plies the batch reports."""

    def __init__(self, game_name: str, options: dict[str, object]) -> None:
        self.game = make_game(game_name, options)
        self.state: State = self.game.new_initial_state()
        self.done = False

    def replay(self, plies: list[int], seat: int, decisions: list[tuple]) -> None:
        """Play the reported plies; each one the opponent chose must be the policy's answer
        in the next of ``decisions`` (its calls that asked about this row), which must have
        shown this state from the opponent's seat."""
        for action in plies:
            if self.state.current_player == 1 - seat:
                seen, mask, chosen = decisions.pop(0)
                np.testing.assert_array_equal(seen, self.state.observation_tensor(1 - seat))
                np.testing.assert_array_equal(mask, self.state.legal_action_mask())
                assert chosen == action
            assert action in self.state.legal_actions()
            self.state = self.state.apply(action)
        assert decisions == []


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("flip-switch", {}),
        ("flip-switch", {"lines": "edges", "no_move": "pass", "rounds": 2}),
        ("checkered-flag", {}),
        ("checkered-flag", {"track": "short", "laps": 1}),
    ],
)
def test_with_chance_the_policy_sees_the_opponents_view_of_the_reference_state(game, options):
    # Chance is drawn from the batch's own generators (not the reference batch's), so the
    # plies the batch reports are replayed on reference states instead: every policy call
    # and every row returned must be theirs.
    n = 4
    policy = Recorder(2)
    envs = make(game, n, seed=5, opponent=policy, seat=None, options=options)
    assert isinstance(envs, FlipgamesVectorEnv)
    shadows = [Shadow(game, options) for _ in range(n)]

    def decisions(calls: list, i: int) -> list[tuple]:
        return [
            (seen[i], masks[i], int(chosen[i])) for seen, masks, chosen in calls if masks[i].any()
        ]

    observations, infos = envs.reset()
    for i, shadow in enumerate(shadows):
        shadow.replay(
            trimmed(infos["replies"])[i], int(infos["seat"][i]), decisions(policy.calls, i)
        )
    rng = np.random.default_rng(4)
    seen = {"calls": 0, "ends": 0, "illegal": 0}
    for _ in range(200):
        actions = agent_actions(observations["action_mask"], rng)
        before = len(policy.calls)
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        calls = policy.calls[before:]
        seen["calls"] += len(calls)
        for i, shadow in enumerate(shadows):
            seat, plies = int(infos["seat"][i]), trimmed(infos["replies"])[i]
            if shadow.done:
                shadow.state, shadow.done = shadow.game.new_initial_state(), False
            elif infos["illegal_action"][i]:
                assert int(actions[i]) not in shadow.state.legal_actions() and plies == []
                seen["illegal"] += 1
                shadow.done = True
                continue
            else:
                shadow.state = shadow.state.apply(int(actions[i]))
            shadow.replay(plies, seat, decisions(calls, i))
            state = shadow.state
            np.testing.assert_array_equal(
                observations["observation"][i], state.observation_tensor(seat)
            )
            if state.is_terminal():
                assert terminated[i] and rewards[i] == state.returns()[seat]
                shadow.done = True
                seen["ends"] += 1
            else:
                assert not terminated[i]
                shadow.done = bool(truncated[i])
    assert seen["calls"] >= 150 and seen["ends"] >= 2 and seen["illegal"]


def test_an_illegal_policy_action_names_the_environment():
    def bad(observations, masks):
        actions = Recorder(0)(observations, masks)
        actions[2] = -1
        return actions

    envs = make("rubiks-flip", 3, seed=1, opponent=bad, seat=1)
    assert isinstance(envs, FlipgamesVectorEnv)
    with pytest.raises(IllegalOpponentActionError, match="action -1 in environment 2"):
        envs.reset()
    assert issubclass(IllegalOpponentActionError, ValueError)
    envs = make("flip-switch", 2, seed=1, opponent=lambda o, m: np.zeros(2), seat=1)
    with pytest.raises(IllegalOpponentActionError, match="integer action"):
        envs.reset()


def test_the_policy_gets_the_whole_batch_once_per_step_where_a_turn_is_one_ply():
    policy = Recorder(3)
    envs = make("rubiks-flip", 6, seed=2, opponent=policy, seat=None, max_plies=12)
    observations, _ = envs.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        before = len(policy.calls)
        observations, *_ = envs.step(agent_actions(observations["action_mask"], rng))
        assert len(policy.calls) - before <= 1  # Rubik's Flip: one opponent ply per step
    for seen, masks, chosen in policy.calls:
        assert seen.shape == (6, 8, 4, 4) and masks.shape == (6, 544) and chosen.shape == (6,)
        assert not seen[~masks.any(axis=1)].any()


@pytest.mark.parametrize("game", ["flipflop", "flipflop-3x3", "flipfour"])
def test_flipflop_and_flipfour_take_a_policy_on_the_compiled_batch(game):
    envs = make(game, 2, seed=0, opponent=Recorder(0))
    assert isinstance(envs, FlipgamesVectorEnv)


def test_a_batch_that_cannot_stop_gives_the_reference_engine(monkeypatch):
    # Every game's batch stops for a policy now; one that could not would fall back.
    from flipgames.games.flipflop.vector_kernel import FlipFlopBatch

    monkeypatch.setattr(FlipFlopBatch, "supports_policy", False)
    envs = make("flipflop-3x3", 2, seed=0, opponent=Recorder(0))
    assert isinstance(envs, ReferenceVectorEnv)
    with pytest.raises(NoVectorKernelError, match="plays only its random opponent"):
        FlipgamesVectorEnv("flipflop-3x3", 2, opponent=Recorder(0))
    with pytest.raises(ValueError, match="opponent must be 'random' or a policy"):
        FlipgamesVectorEnv("rubiks-flip", 2, opponent=3)  # type: ignore[arg-type]
