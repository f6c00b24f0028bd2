"""``flipgames.solvers.ground_truth``: batch answers equal the solvers' own, row for row, and
games or states no solver answers are refused by name."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import Game, State, sample_chance
from flipgames.solvers import alphabeta
from flipgames.solvers.catalog import solution
from flipgames.solvers.ground_truth import (
    GroundTruthError,
    SearchOracle,
    SolutionOracle,
    answers,
    ground_truth,
)
from flipgames.solvers.stochastic import solve_stochastic


def random_states(game: Game, count: int, seed: int) -> list[State]:
    """Positions along seeded random games, chance nodes and finished games included."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = game.new_initial_state()
        while len(found) < count:
            found.append(state)
            if state.is_terminal():
                break
            if state.is_chance_node():
                state = state.apply(sample_chance(state, rng))
            else:
                state = state.apply(rng.choice(state.legal_actions()))
    return found


@pytest.mark.parametrize(
    ("name", "options", "solver"),
    [
        ("flipflop-3x3", {}, "retrograde"),
        ("flip-switch", {"rounds": 1}, "stochastic"),
        ("checkered-flag", {"start": "first"}, "stochastic"),
    ],
)
def test_batch_rows_are_the_solutions_answers(
    name: str, options: dict[str, Any], solver: str
) -> None:
    game = make(name, options)
    states = random_states(game, 300, seed=8)
    truth = ground_truth(game, states)
    solved = solution(game)
    assert truth.solver == solver and len(truth) == 300
    for i, state in enumerate(states):
        value = solved.value(state)
        assert truth.expected[i] == value.expected and truth.value[i] == float(value.expected)
        assert (truth.win[i], truth.draw[i], truth.loss[i]) == tuple(
            map(float, (value.win, value.draw, value.loss))
        )
        assert truth.remoteness[i] == (-1 if value.remoteness is None else value.remoteness)
        assert np.array_equal(truth.legal[i], state.legal_action_mask())
        if state.current_player < 0:
            assert truth.player[i] == 0 and not truth.best[i].any()
            assert np.isnan(truth.action_value[i]).all()
            continue
        assert truth.player[i] == state.current_player
        assert np.flatnonzero(truth.best[i]).tolist() == solved.best_actions(state)
        for action, v in solved.action_values(state).items():
            assert truth.action_value[i, action] == np.float32(float(v.expected))


def test_rubiks_flip_is_answered_by_the_exact_search_where_it_finishes() -> None:
    game = make("rubiks-flip")
    late = [s for s in random_states(game, 200, seed=3) if len(s.history) >= 11]
    truth = ground_truth(game, late)
    over = np.array([s.is_terminal() for s in late])
    assert truth.solver == "alphabeta" and over.any() and not over.all()
    # The search knows no remoteness; a finished game is 0 plies from its end.
    assert (truth.remoteness[~over] == -1).all() and (truth.remoteness[over] == 0).all()
    kernel = alphabeta.searchable(game)
    assert kernel is not None
    table = np.zeros(alphabeta.table_entries(8 << 20), dtype=np.int64)
    for i, state in enumerate(late):
        if state.is_terminal():
            assert truth.value[i] == state.returns()[0]
            continue
        best = alphabeta.best_actions(kernel, state, table, 10_000_000)
        assert np.flatnonzero(truth.best[i]).tolist() == best
        assert truth.value[i] == max(truth.action_value[i][truth.legal[i] == 1])


def test_a_search_beyond_its_budget_is_refused_naming_the_state() -> None:
    game = make("rubiks-flip")
    start = game.new_initial_state()
    late = random_states(game, 15, seed=1)[-1]
    # The start is searched only through a cached proof; the tests' cache has none.
    with pytest.raises(GroundTruthError, match=r"state 1 of rubiks-flip: .*node budget"):
        ground_truth(game, [late, start], max_nodes=2_000)
    # Fifteen plies in, one ply is left: the search answers at once.
    assert SearchOracle(game, max_nodes=2_000).answer(late) is not None


@pytest.mark.parametrize(
    ("name", "options", "words"),
    [
        ("flip-switch", {"rounds": 3, "switch_limit": 4}, "single round: flip-switch"),
        ("flip-switch", {"rounds": 1, "must_flip": "yes"}, "must_flip=yes"),
    ],
)
def test_unsolved_games_are_refused_by_name(name: str, options: dict[str, Any], words: str) -> None:
    game = make(name, options)
    with pytest.raises(GroundTruthError) as caught:
        ground_truth(game, [game.new_initial_state()])
    assert words in str(caught.value)


def test_states_of_another_game_or_not_states_are_refused() -> None:
    game = make("checkered-flag")
    other = make("checkered-flag", start="first").new_initial_state()
    with pytest.raises(GroundTruthError, match=r"state 1 is a position of checkered-flag"):
        ground_truth(game, [game.new_initial_state(), other])
    with pytest.raises(GroundTruthError, match=r"state 0: expected a flipgames State"):
        ground_truth(game, ["a1-a2"])  # type: ignore[list-item]


def test_a_position_the_solution_does_not_hold_is_refused() -> None:
    game = make("checkered-flag", track="short", start="first")
    start = game.new_initial_state()
    later = start.apply(start.legal_actions()[0])
    while later.is_chance_node():
        later = later.apply(later.legal_actions()[-1])
    # A solution of the positions below `later` only: the start is not one of them.
    partial = SolutionOracle(solve_stochastic(game, root=later), "stochastic")
    assert answers(partial, [later])[0].value == solution(game).value(later).expected
    with pytest.raises(GroundTruthError, match=r"state 1 of checkered-flag: .*not reachable"):
        answers(partial, [later, start])


def test_exact_values_are_fractions_and_probabilities_add_up() -> None:
    game = make("flip-switch", rounds=1)
    truth = ground_truth(game, random_states(game, 200, seed=2))
    assert all(isinstance(v, Fraction) for v in truth.expected)
    assert np.allclose(truth.win + truth.draw + truth.loss, 1)
    assert np.allclose(truth.win - truth.loss, truth.value)
