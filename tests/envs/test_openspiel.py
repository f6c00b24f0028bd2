"""OpenSpiel: every game and option set runs OpenSpiel's own random simulation test;
clones share the immutable flipgames state; games and states pickle and play in a process
pool; MCTSBot plays flipgames' hard level."""

from __future__ import annotations

import multiprocessing
import pickle
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts
from open_spiel.python.observation import make_observation

import flipgames.envs.openspiel  # noqa: F401  (registers the games)
from flipgames import game_names, make
from flipgames.agents.levels import make_level_agent
from flipgames.envs.openspiel import short_name

OPTION_SETS = [(name, "") for name in game_names()] + [
    ("rubiks-flip", "(flip=flap)"),
    ("flip-switch", "(rounds=2)"),
    ("checkered-flag", "(laps=2,start=first)"),
]


@pytest.mark.parametrize(("name", "params"), OPTION_SETS)
def test_random_simulation_test_passes(name, params):
    game = pyspiel.load_game(short_name(name) + params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_info_follows_the_options():
    flap = pyspiel.load_game("python_flipgames_rubiks_flip(flip=flap)")
    assert flap.num_distinct_actions() == 2080 and flap.max_game_length() == 16
    race = pyspiel.load_game("python_flipgames_checkered_flag")
    assert race.max_chance_outcomes() == make("checkered-flag").max_chance_outcomes
    assert race.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


def test_chance_nodes_are_explicit_with_the_exact_probabilities():
    game = pyspiel.load_game("python_flipgames_flip_switch")
    state = game.new_initial_state()
    state.apply_action(4)  # flip b2
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    assert [state.action_to_string(a) for a, _ in state.chance_outcomes()] == [
        "heart",
        "square",
        "star",
    ]


def test_clones_share_the_immutable_state_and_keep_the_history():
    game = pyspiel.load_game("python_flipgames_flipflop")
    state = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(20):
        state.apply_action(rng.choice(state.legal_actions()))
    clone = state.clone()
    assert clone.flipgames_state is state.flipgames_state
    assert clone.history() == state.history()
    clone.apply_action(clone.legal_actions()[0])
    assert len(state.history()) == 20  # the original did not move


def test_the_observation_tensor_comes_through_an_observer():
    game = pyspiel.load_game("python_flipgames_flipflop_3x3")
    observation = make_observation(game)
    state = game.new_initial_state()
    observation.set_from(state, 1)
    expected = state.flipgames_state.observation_tensor(1)
    assert np.array_equal(observation.dict["observation"], expected)
    assert np.array_equal(np.asarray(state.observation_tensor(1)), expected.ravel())


def test_mcts_bot_plays_flipgames_hard_which_finds_whites_solved_win():
    """FlipFlop 3x3 is a win for White in 15 plies (docs/solvers.md); hard searches 20
    plies deep, so as White it wins against OpenSpiel's MCTSBot."""
    game = pyspiel.load_game("python_flipgames_flipflop_3x3")
    bot = mcts.MCTSBot(
        game,
        uct_c=2,
        max_simulations=50,
        evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        random_state=np.random.RandomState(1),
    )
    hard = make_level_agent(make("flipflop-3x3"), "hard", random.Random(1))
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 1:
            action = bot.step(state)
        else:
            action = hard.choose(state.flipgames_state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.returns() == [1.0, -1.0]


def play_random(game, seed: int):
    """A random game of ``game`` to its end; the final state (both cross a process boundary,
    pickled)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("name", "params"), OPTION_SETS)
def test_games_and_states_pickle_with_their_options_and_history(name, params):
    game = pyspiel.load_game(short_name(name) + params)
    loaded = pickle.loads(pickle.dumps(game))
    assert str(loaded) == str(game) and loaded.game == game.game
    state = game.new_initial_state()
    for _ in range(3):
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[0])
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history() and str(copy) == str(state)
    assert copy.legal_actions() == state.legal_actions()


def test_games_load_and_play_in_a_multiprocessing_pool():
    games = [
        pyspiel.load_game("python_flipgames_flipflop_3x3"),
        pyspiel.load_game("python_flipgames_flip_switch(rounds=2)"),
    ]
    # fork: the worker function is this test module's (not importable by name in a fresh
    # interpreter); the games and the final states still go through pickle both ways.
    with multiprocessing.get_context("fork").Pool(2) as pool:
        finals = pool.starmap(play_random, [(game, seed) for seed, game in enumerate(games)])
    for game, seed, final in zip(games, range(2), finals, strict=True):
        assert final.is_terminal() and str(final.get_game()) == str(game)
        assert final.history() == play_random(game, seed).history()


def test_games_load_in_fresh_interpreters():
    """spawn: each worker is a new interpreter (as a Ray worker is); unpickling a game imports
    this package and registers the games, and OpenSpiel's own random simulation test plays
    it there (serialising its states too)."""
    games = [
        pyspiel.load_game("python_flipgames_flipflop_3x3"),
        pyspiel.load_game("python_flipgames_checkered_flag(laps=2)"),
    ]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.starmap(pyspiel.random_sim_test, [(game, 2, True, False) for game in games])
    assert results == [None, None]  # random_sim_test raises on any failure
