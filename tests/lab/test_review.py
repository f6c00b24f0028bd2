"""The review's valuing without the web: the thresholds, and a game with neither a solution
nor a compiled search (the tests' toy game registered unsolved) valued by the reference
expectiminimax, through the registry alone."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from flipgames import make
from flipgames.core import registry
from flipgames.lab.review import THRESHOLDS, Evaluator, classify, review_game
from support.toy_game import MANIFEST, NAME


@pytest.fixture
def unsolved_toy() -> Iterator[None]:
    registry.register({NAME: dataclasses.replace(MANIFEST, solved=())})
    yield
    registry.unregister(NAME)


def test_the_thresholds_are_the_documented_ones() -> None:
    assert dict(THRESHOLDS) == {"blunder": 0.15, "mistake": 0.10, "inaccuracy": 0.05}
    assert [classify(d) for d in (1.0, 0.15, 0.149, 0.10, 0.05, 0.049, 0.0)] == [
        "blunder",
        "blunder",
        "mistake",
        "mistake",
        "inaccuracy",
        None,
        None,
    ]


def test_a_game_without_solution_or_kernel_is_valued_by_the_reference_search(
    unsolved_toy: None,
) -> None:
    # 4 coins: no other test solves this size, so no solution is in the process memo.
    game = make(NAME, coins=4)
    assert Evaluator(game).kind == "engine"
    state, rng = game.new_initial_state(), random.Random(3)
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_actions()))
    review = review_game(state)
    points = review.points
    assert len(points) == len(state.history) + 1
    assert points[-1].source == "end" and points[-1].value in (0.0, 1.0)
    for point in points[:-1]:
        assert point.source == "engine" and not point.exact
        assert point.value is not None and 0 <= point.value <= 1 and point.best
    for point in points[1:]:
        assert point.drop is not None and point.mark == classify(point.drop)
