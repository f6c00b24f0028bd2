"""Protocol behaviour shared by every game: states are values, chance is exact."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from flipgames import CHANCE, IllegalActionError, game_names, make, sample_chance
from flipgames.core.conformance import random_game


@pytest.mark.parametrize("name", game_names())
def test_apply_returns_a_new_state_and_leaves_the_old_one_alone(name):
    state = make(name).new_initial_state()
    before = (state.key(), state.history, state.legal_actions())
    rng = random.Random(1)
    action = sample_chance(state, rng) if state.is_chance_node() else state.legal_actions()[0]
    child = state.apply(action)
    assert child is not state
    assert (state.key(), state.history, state.legal_actions()) == before
    assert child.history == (*state.history, action)
    assert child.parent is state


@pytest.mark.parametrize("name", game_names())
def test_a_finished_game_accepts_no_action(name):
    state = random_game(make(name), random.Random(2))
    assert state.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply(0)


@pytest.mark.parametrize("bad", [None, "1", 1.0, True])
def test_actions_must_be_integer_ids(bad):
    state = make("flipflop-3x3").new_initial_state()
    with pytest.raises(IllegalActionError, match="action must be an integer id"):
        state.apply(bad)


def find_chance_node(name: str):
    rng = random.Random(4)
    state = make(name).new_initial_state()
    while not state.is_chance_node():
        state = state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name", [n for n in game_names() if make(n).has_chance])
def test_sample_chance_follows_the_exact_probabilities(name):
    state = find_chance_node(name)
    assert state.current_player == CHANCE
    outcomes = dict(state.chance_outcomes())
    assert sum(outcomes.values(), Fraction(0)) == 1
    draws = 6000
    counts = Counter(sample_chance(state, random.Random(seed)) for seed in range(draws))
    assert set(counts) <= set(outcomes)
    for outcome, p in outcomes.items():
        expected = draws * p
        # Five standard deviations: a seeded, deterministic check of the sampler.
        sigma = (draws * p * (1 - p)) ** 0.5
        assert abs(counts[outcome] - expected) <= 5 * sigma + 1


def test_sample_chance_is_reproducible_with_a_seed():
    state = find_chance_node("checkered-flag")
    first = [sample_chance(state, random.Random(9)) for _ in range(3)]
    assert first == [sample_chance(state, random.Random(9)) for _ in range(3)]


def test_perft_refuses_games_with_chance():
    from flipgames.solvers.perft import PerftUnsupportedError, perft

    with pytest.raises(PerftUnsupportedError, match="'flip-switch' has chance"):
        perft(make("flip-switch").new_initial_state(), 2)
