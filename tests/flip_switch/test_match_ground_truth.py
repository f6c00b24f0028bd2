"""Ground truth of a Flip Switch match: the rounds' values added, checked against the one-round
solution on rounds the test follows itself (played on a one-round game beside the match)."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import State, sample_chance
from flipgames.games.flip_switch.match import split
from flipgames.games.flip_switch.rules import FlipSwitchState
from flipgames.lab.dataset import export
from flipgames.solvers.catalog import solution
from flipgames.solvers.ground_truth import GroundTruthError, ground_truth


def followed_match(seed: int, rounds: int = 3) -> list[tuple[State, State]]:
    """Every position of a seeded random match beside the same round on a one-round game."""
    match = make("flip-switch", rounds=rounds)
    one = make("flip-switch", rounds=1)
    rng = random.Random(seed)
    state: State = match.new_initial_state()
    single: State = one.new_initial_state()
    pairs = [(state, single)]
    while not state.is_terminal():
        action = (
            sample_chance(state, rng)
            if state.is_chance_node()
            else rng.choice(state.legal_actions())
        )
        before = len(results(state))
        state, single = state.apply(action), single.apply(action)
        if len(results(state)) != before:
            single = one.new_initial_state()  # a round ended: the next starts afresh
        pairs.append((state, single))
    return pairs


def results(state: State) -> tuple[int, ...]:
    assert isinstance(state, FlipSwitchState)
    return state.results


@pytest.mark.parametrize("seed", [1, 2])
def test_match_values_are_the_score_plus_the_round_value(seed: int) -> None:
    game = make("flip-switch", rounds=3)
    pairs = followed_match(seed)
    truth = ground_truth(game, [state for state, _ in pairs])
    assert truth.solver == "stochastic, rounds added"
    one = solution(make("flip-switch", rounds=1))
    start = one.value(make("flip-switch", rounds=1).new_initial_state())
    assert start.expected == 0 and start.draw == 1  # so later rounds add nothing
    for i, (state, single) in enumerate(pairs):
        done = results(state)
        score = done.count(0) - done.count(1)
        viewer = max(state.current_player, 0)
        sign = 1 if viewer == 0 else -1
        assert truth.player[i] == viewer
        if state.is_terminal():
            assert truth.expected[i] == sign * score
            continue
        # The round's player 0 is the match's player 1 in even rounds (player 2 starts).
        swapped = len(done) % 2 == 1
        round_value = one.value(single, player=1 if swapped else 0)
        assert truth.expected[i] == sign * (score + round_value.expected)
        # Later rounds are drawn by the canonical strategies: the match is the score plus
        # this round's result.
        win, draw, loss = round_value.win, round_value.draw, round_value.loss
        cases = {score + 1: win, score: draw, score - 1: loss}
        ahead = sum((p for s, p in cases.items() if s * sign > 0), Fraction(0))
        assert truth.win[i] == float(ahead)
        if state.current_player >= 0:
            assert np.flatnonzero(truth.best[i]).tolist() == one.best_actions(single)
            assert np.array_equal(truth.legal[i], state.legal_action_mask())
            shift = sign * score
            for action, v in one.action_values(single).items():
                assert truth.action_value[i, action] == np.float32(float(v.expected + shift))
    assert any(len(results(s)) == 2 for s, _ in pairs)  # the match reached its third round


def test_split_matches_the_followed_round() -> None:
    for state, single in followed_match(3, rounds=2):
        seen = split(state)
        if state.is_terminal():
            assert seen.round_state is None
            continue
        assert seen.round_state is not None and seen.round_state.key() == single.key()
        assert seen.swapped == (len(results(state)) % 2 == 1)


def test_match_dataset_rows_agree_with_the_batch_api_in_every_situation(tmp_path: Path) -> None:
    game = make("flip-switch", rounds=3)
    summary = export(game, tmp_path / "match.npz", limit=2_000)
    assert summary.rows == 2_000 and not summary.complete
    with np.load(tmp_path / "match.npz", allow_pickle=False) as data:
        history, observation = data["history"], data["observation"]
        value, best = data["value"], data["best_mask"]
        assert str(data["solver"]) == "stochastic, rounds added"
        assert json.loads(str(data["options"]))["rounds"] == 3
    states = []
    for row in random.Random(5).sample(range(2_000), 300):
        state = game.new_initial_state()
        for action in history[row][history[row] >= 0]:
            state = state.apply(int(action))
        states.append((row, state))
    truth = ground_truth(game, [s for _, s in states])
    for i, (row, state) in enumerate(states):
        assert np.array_equal(observation[row], state.observation_tensor(state.current_player))
        assert value[row] == truth.value[i]
        assert np.array_equal(best[row], truth.best[i])
    # All ten situations of a 3-round match are there: rounds won show on two planes.
    wins = {tuple(o[13:15, 0, 0].round(3)) for o in observation}
    round_index = {len(results(s)) for _, s in states}
    assert len(wins) == 6 and round_index == {0, 1, 2}


def test_a_match_whose_round_is_unsolved_is_refused() -> None:
    game = make("flip-switch", rounds=3, must_flip="yes")
    with pytest.raises(GroundTruthError, match=r"flip-switch's single round: .*must_flip=yes"):
        ground_truth(game, [game.new_initial_state()])
