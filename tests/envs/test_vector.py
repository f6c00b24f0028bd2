"""flipgames.envs.vector: the compiled batch agrees with the reference engine ply by ply.

Every environment of a batch is shadowed by a reference state: the agent's action and the
opponent's reported reply are applied to it, and after every reset and step the batch's
observation row must equal the reference ``observation_tensor(seat)`` and its mask the
reference ``legal_action_mask()`` (zeros when the agent is not to move); rewards, terminations
and truncations must be what the reference result and the ply cap say, and an ended
environment must start a new game at the next step (next-step autoreset).
"""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
import pytest

from flipgames import make as make_game
from flipgames.core.game import State
from flipgames.envs.common import sample_legal
from flipgames.envs.reference import ReferenceVectorEnv
from flipgames.envs.vector import FlipgamesVectorEnv, NoVectorKernelError, make
from flipgames.games.flip_switch.kernel import OUTCOME_BASE

GAMES = ["flipflop-3x3", "flipflop", "flipfour", "rubiks-flip", "checkered-flag", "flip-switch"]
RUBIKS_OPTIONS = [
    {"flip": "flap"},
    {"lock": "orthogonal"},
    {"both": "opponent"},
    {"flip": "flap", "lock": "orthogonal", "both": "opponent"},
]


class Shadow:
    """The reference state of one environment, with its plies played and whether its
    episode ended at the last step."""

    def __init__(self, game_name: str, options: dict[str, object]) -> None:
        self.game = make_game(game_name, options)
        self.state: State = self.game.new_initial_state()
        self.plies = 0
        self.done = False
        #: How each Flip Switch round ended (its reference wording), to show what a run covered.
        self.round_endings: list[str] = []

    def start(self, replies: np.ndarray, seat: int, cap: int) -> int:
        self.state = self.game.new_initial_state()
        self.plies = 0
        self.done = False
        return self.reply(replies, seat, cap)

    def play(self, action: int) -> None:
        assert action in self.state.legal_actions()
        before = self.state
        self.state = self.state.apply(action)
        self.plies += 1
        if self.game.name == "flip-switch" and len(self.state.results) > len(before.results):
            self.round_endings.append(self.state.board_view(None)["last_round"])

    def reply(self, replies: np.ndarray, seat: int, cap: int) -> int:
        """Play the batch's reported plies after the agent's (chance outcomes and the
        opponent's actions), checking they are what the rules call for and that they stop
        exactly when the agent is to act, the game is over or the cap is reached. Returns
        the opponent's last action (-1 if it did not act)."""
        opponent = -1
        for action in replies[replies >= 0].tolist():
            assert not self.state.is_terminal() and self.plies < cap
            assert self.state.current_player != seat
            if self.state.current_player == 1 - seat:
                opponent = action
            self.play(action)
        assert self.state.is_terminal() or self.plies >= cap or self.state.current_player == seat
        return opponent


def check_row(envs: FlipgamesVectorEnv, observations, infos, shadows: list[Shadow], i: int):
    shadow, seat = shadows[i], int(infos["seat"][i])
    state = shadow.state
    expected = state.observation_tensor(seat)
    np.testing.assert_array_equal(observations["observation"][i], expected)
    mask = (
        state.legal_action_mask()
        if state.current_player == seat
        else np.zeros(envs.game.num_distinct_actions, dtype=np.int8)
    )
    np.testing.assert_array_equal(observations["action_mask"][i], mask)


def choose(policy: str, mask: np.ndarray, rng: np.random.Generator) -> int:
    """The agent's action: a random legal one (now and then any id, to test illegal actions),
    or the lowest or highest legal id (deterministic policies that walk into repetitions)."""
    legal = np.flatnonzero(mask)
    if policy == "first":
        return int(legal[0]) if legal.size else 0
    if policy == "last":
        return int(legal[-1]) if legal.size else 0
    if legal.size and rng.random() > 0.01:
        return int(rng.choice(legal))
    return int(rng.integers(len(mask)))


def run(
    game_name: str,
    seat: int | None,
    max_plies: int | None,
    steps: int,
    seed: int,
    num_envs: int = 6,
    policy: str = "random",
    options: dict[str, object] | None = None,
    endings: list[str] | None = None,
):
    """Shadow a batch for ``steps`` steps; returns what it saw (and adds how every Flip
    Switch round ended to ``endings``)."""
    envs = make(
        game_name, num_envs=num_envs, seed=seed, seat=seat, max_plies=max_plies, options=options
    )
    cap = envs.max_plies
    observations, infos = envs.reset()
    shadows = [Shadow(game_name, options or {}) for _ in range(envs.num_envs)]
    for i, shadow in enumerate(shadows):
        agent = int(infos["seat"][i])
        assert seat is None or agent == seat
        opened = shadow.start(infos["replies"][i], agent, cap)
        assert infos["opponent_action"][i] == opened
        check_row(envs, observations, infos, shadows, i)
    rng = np.random.default_rng(seed)
    seen = {"terminated": 0, "truncated": 0, "illegal": 0, "reset": 0, "drawn": 0}
    for _ in range(steps):
        actions = np.array([choose(policy, m, rng) for m in observations["action_mask"]])
        seats_before = infos["seat"].copy()
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        for i, shadow in enumerate(shadows):
            reply, replies = int(infos["opponent_action"][i]), infos["replies"][i]
            agent = int(infos["seat"][i])
            if shadow.done:
                seen["reset"] += 1
                assert (rewards[i], terminated[i], truncated[i]) == (0.0, False, False)
                assert not infos["illegal_action"][i]
                assert seat is None or agent == seat
                assert shadow.start(replies, agent, cap) == reply
            elif int(actions[i]) not in shadow.state.legal_actions():
                seen["illegal"] += 1
                assert infos["illegal_action"][i] and infos["_illegal_action"][i]
                assert (rewards[i], terminated[i], truncated[i]) == (-1.0, True, False)
                assert reply == -1 and (replies == -1).all()
                shadow.done = True
            else:
                assert agent == seats_before[i]
                shadow.play(int(actions[i]))
                assert shadow.reply(replies, agent, cap) == reply
                state = shadow.state
                over = state.is_terminal()
                assert terminated[i] == over
                assert truncated[i] == (not over and shadow.plies >= cap)
                assert rewards[i] == (state.returns()[agent] if over else 0.0)
                assert not infos["illegal_action"][i]
                seen["terminated"] += over
                seen["truncated"] += bool(truncated[i])
                seen["drawn"] += over and state.returns() == (0, 0)
                shadow.done = bool(terminated[i] or truncated[i])
            check_row(envs, observations, infos, shadows, i)
    if endings is not None:
        endings += [text for shadow in shadows for text in shadow.round_endings]
    return seen


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("seat", [0, 1, None])
def test_every_ply_matches_the_reference_with_a_short_cap(game_name, seat):
    seen = run(game_name, seat, max_plies=9, steps=60, seed=3)
    # The run covers truncation, illegal actions and next-step autoresets.
    assert seen["truncated"] and seen["illegal"] and seen["reset"]


@pytest.mark.parametrize(
    ("game_name", "steps"), [("flipflop-3x3", 300), ("flipflop", 150), ("rubiks-flip", 100)]
)
def test_full_games_match_the_reference(game_name, steps):
    seen = run(game_name, None, max_plies=None, steps=steps, seed=11)
    assert seen["terminated"] > 10 and seen["reset"]


@pytest.mark.parametrize(
    "options", [{}, {"start": "first", "laps": 1}, {"track": "short"}, {"laps": 3}]
)
def test_checkered_flag_races_match_the_reference(options):
    # Chance (the start spin, every spin) is drawn in the kernel and reported in replies.
    seen = run("checkered-flag", None, max_plies=None, steps=150, seed=4, options=options)
    assert seen["terminated"] > 5 and seen["reset"]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"lines": "edges"},
        {"rounds": 1, "no_move": "pass"},
        {"lines": "edges", "no_move": "pass", "rounds": 4},
    ],
)
def test_flip_switch_matches_match_the_reference(options):
    # Every flip's shape is drawn in the kernel when the flip is made and reported in replies;
    # the observation rows equal the reference tensor, which has no plane for a face-down
    # tile's shape. Matches of several rounds cover the round changes and the round score;
    # the agent's lowest-id policy walks into repetitions (the third occurrence draws a round).
    endings: list[str] = []
    seen = run(
        "flip-switch", None, None, steps=250, seed=6, policy="first", options=options,
        endings=endings,
    )  # fmt: skip
    assert seen["terminated"] > 5 and seen["reset"]
    assert any(" won with " in text for text in endings)
    assert any("occurred for the third time" in text for text in endings)


def test_a_flip_switch_shape_is_drawn_when_the_tile_is_flipped():
    # No shapes are dealt to squares in advance: with the same seed, whichever square the
    # agent flips first shows the same drawn shape, and before any flip every row shows nine
    # face-down tiles and no face-up plane.
    shapes = set()
    for square in range(9):
        envs = make("flip-switch", num_envs=4, seed=21)
        observations, _ = envs.reset()
        assert (observations["observation"][:, 0] == 1).all()
        assert not observations["observation"][:, 1:4].any()
        observations, *_, infos = envs.step([square] * 4)
        outcomes = infos["replies"][:, 0]
        for row, outcome in zip(observations["observation"], outcomes, strict=True):
            rank, file = divmod(square, 3)
            assert row[1 + outcome - OUTCOME_BASE, rank, file] == 1.0
        shapes.add(tuple(outcomes.tolist()))
    assert len(shapes) == 1


@pytest.mark.parametrize("options", RUBIKS_OPTIONS)
def test_every_rubiks_flip_option_set_matches_the_reference(options):
    seen = run("rubiks-flip", None, max_plies=None, steps=60, seed=2, options=options)
    # Full boards without a locked row are draws: both endings come up.
    assert seen["terminated"] > 10 and seen["drawn"] and seen["reset"]


def first_draw(game_name: str, policy: str, seed: int) -> tuple[int, int]:
    """Where a wide batch (no reference) first ends a game by repetition under ``policy``:
    the environment's index and the step."""
    envs = make(game_name, num_envs=256, seed=seed, seat=None)
    observations, _ = envs.reset()
    rng = np.random.default_rng(0)
    for step in range(2000):
        actions = [choose(policy, m, rng) for m in observations["action_mask"]]
        observations, rewards, terminated, _, infos = envs.step(actions)
        drawn = np.flatnonzero(terminated & (rewards == 0) & ~infos["illegal_action"])
        if drawn.size:
            return int(drawn[0]), step
    raise AssertionError("no repetition draw in 2,000 steps")


@pytest.mark.parametrize(
    ("game_name", "policy"),
    [("flipflop-3x3", "first"), ("flipflop", "first"), ("flipfour", "last")],
)
def test_repetition_draws_match_the_reference(game_name, policy):
    # Environment i of a batch seeded s is seeded s + i: replay the drawn one alone, shadowed.
    index, step = first_draw(game_name, policy, seed=100)
    seen = run(game_name, None, None, step + 2, seed=100 + index, num_envs=1, policy=policy)
    assert seen["drawn"] == 1 and seen["reset"] >= 1


def test_the_same_seed_gives_the_same_games():
    def trace(seed: int) -> list[np.ndarray]:
        envs = make("flipfour", num_envs=4, seat=None)
        observations, infos = envs.reset(seed=seed)
        frames = [observations["observation"], infos["seat"]]
        for _ in range(20):
            actions = [np.flatnonzero(m)[0] if m.any() else 0 for m in observations["action_mask"]]
            observations, *_, infos = envs.step(actions)
            frames += [observations["observation"], infos["opponent_action"]]
        return frames

    first, again, other = trace(7), trace(7), trace(8)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))


def test_environment_i_is_seeded_with_seed_plus_i():
    wide = make("flipflop", num_envs=3, seat=None)
    single = make("flipflop", num_envs=1, seat=None)
    observations, _ = wide.reset(seed=40)
    alone, _ = single.reset(seed=42)
    np.testing.assert_array_equal(observations["observation"][2], alone["observation"][0])
    for _ in range(10):
        mask = alone["action_mask"][0]
        action = int(np.flatnonzero(mask)[-1]) if mask.any() else 0
        actions = [0, 0, action]
        observations, *_ = wide.step(actions)
        alone, *_ = single.step([action])
        np.testing.assert_array_equal(observations["observation"][2], alone["observation"][0])


def test_reset_without_a_seed_continues_and_a_list_seeds_each_environment():
    envs = make("flipfour", num_envs=2, seat=None)
    first, _ = envs.reset(seed=np.int64(5))
    again, _ = envs.reset(seed=[5, 6])
    np.testing.assert_array_equal(again["observation"], first["observation"])
    # Seats and openings are drawn afresh at each unseeded reset: the generators go on.
    resets = [envs.reset()[1] for _ in range(6)]
    draws = {(tuple(i["seat"]), tuple(i["replies"][:, 0])) for i in resets}
    assert len(draws) > 1


@pytest.mark.parametrize("game_name", GAMES)
def test_what_a_step_returned_stays_as_it_was(game_name):
    # The batch writes every step into new arrays and returns them without copying: arrays
    # returned earlier are never written again.
    envs = make(game_name, num_envs=4, seed=9, seat=None)
    returned = [envs.reset()]
    kept = [copy.deepcopy(returned[0])]
    for _ in range(30):
        mask = returned[-1][0]["action_mask"]
        actions = [int(np.flatnonzero(m)[0]) if m.any() else 0 for m in mask]
        returned.append(envs.step(actions))
        kept.append(copy.deepcopy(returned[-1]))
    for now, then in zip(returned, kept, strict=True):
        for a, b in zip(now, then, strict=True):
            if isinstance(a, dict):
                assert a.keys() == b.keys()
                assert all(np.array_equal(a[key], b[key]) for key in a)
            else:
                assert np.array_equal(a, b)


@pytest.mark.parametrize("game_name", GAMES)
def test_an_action_id_outside_the_game_ends_the_episode_as_illegal(game_name):
    # Ids below 0 and at or beyond num_distinct_actions are no action at all: the batch must
    # not read a piece or a table entry for them.
    size = make_game(game_name).num_distinct_actions
    envs = make(game_name, num_envs=4, seed=2, seat=0)
    observations, _ = envs.reset()
    assert observations["action_mask"].any(axis=1).all()  # the agent is to move everywhere
    actions = np.array([-1, size, size + 7, 2**40])
    _, rewards, terminated, truncated, infos = envs.step(actions)
    assert infos["illegal_action"].all() and terminated.all() and not truncated.any()
    assert (rewards == -1.0).all()


def test_it_is_a_gymnasium_vector_env_with_batched_spaces():
    envs = make("flipflop-3x3", num_envs=5, seed=0)
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    observations, _ = envs.reset()
    assert envs.observation_space.contains(observations)
    assert envs.single_action_space.n == 81
    assert envs.action_space.shape == (5,)
    observations, rewards, *_ = envs.step(envs.action_space.sample())
    assert envs.observation_space.contains(observations)
    assert rewards.shape == (5,)


def test_gymnasium_make_vec_gives_the_compiled_batch_where_it_can():
    import flipgames.envs.gymnasium  # noqa: F401 (registers flipgames/<Game>-v0)

    envs = gymnasium.make_vec("flipgames/FlipFour-v0", num_envs=3, seat=1)
    assert isinstance(envs, FlipgamesVectorEnv) and envs.num_envs == 3
    _, infos = envs.reset(seed=0)
    assert infos["seat"].tolist() == [1, 1, 1]
    # Flip Switch: the batch plays the single-agent env's matches (3 rounds by default, or
    # the options given) with its length cap.
    for options in ({}, {"rounds": 1, "lines": "edges"}):
        envs = gymnasium.make_vec("flipgames/FlipSwitch-v0", num_envs=2, options=options)
        single = gymnasium.make("flipgames/FlipSwitch-v0", options=options).unwrapped
        assert isinstance(envs, FlipgamesVectorEnv)
        assert envs.game.rounds == single.game.rounds == options.get("rounds", 3)
        assert envs.game.lines == single.game.lines
        assert envs.max_plies == single.game.max_game_length == 500 * envs.game.rounds
    # Another level, or an option set without a batch: the reference engine's batch, with
    # the compiled batch's infos.
    fast_keys = set(gymnasium.make_vec("flipgames/FlipSwitch-v0", num_envs=2).reset(seed=0)[1])
    for gym_id, kwargs in (
        ("flipgames/FlipFlop3x3-v0", {"opponent": "easy"}),
        ("flipgames/FlipSwitch-v0", {"options": {"must_flip": "yes"}}),
    ):
        envs = gymnasium.make_vec(gym_id, num_envs=2, **kwargs)
        assert isinstance(envs, ReferenceVectorEnv)
        observations, infos = envs.reset(seed=0)
        assert observations["action_mask"].shape[0] == 2
        assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
        assert set(infos) == fast_keys
        *_, infos = envs.step(sample_legal(observations["action_mask"], np.random.default_rng()))
        assert set(infos) == fast_keys
    # render_mode needs the single environments: Gymnasium's synchronous vector env.
    envs = gymnasium.make_vec("flipgames/FlipFour-v0", num_envs=2, render_mode="ansi")
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="opponent='random' or a policy, not 'hard'"):
        FlipgamesVectorEnv("flipflop", 2, opponent="hard")
    with pytest.raises(ValueError, match="max_plies applies to the compiled batch"):
        make("flipflop", 2, opponent="hard", max_plies=10)
    with pytest.raises(NoVectorKernelError, match="no compiled batch"):
        make("flip-switch", 2, options={"switch_limit": 6})
    with pytest.raises(ValueError, match="seat must be"):
        make("flipflop", 2, seat=2)
    with pytest.raises(ValueError, match="num_envs must be at least 1"):
        make("flipflop", 0)
    envs = make("flipflop", 2)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step([0, 0])
    with pytest.raises(ValueError, match="3 seeds given for 2"):
        envs.reset(seed=[1, 2, 3])
    envs.reset(seed=1)
    with pytest.raises(ValueError, match="expected 2 actions"):
        envs.step([0, 0, 0])
