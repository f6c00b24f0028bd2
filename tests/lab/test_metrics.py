"""Ludii's metrics on hand-built game records: every expected figure is worked out in the
comments from the definitions in docs/lab-metrics.md."""

from __future__ import annotations

import pytest

from flipgames import make
from flipgames.lab import metrics
from flipgames.lab.metrics import DRAW, GameRecord, game_metrics


def test_a_comeback_is_dramatic_and_late_decided() -> None:
    # The first player is behind by 0.5, then 0.25, then ahead 0.5 and 1.0, and wins.
    evaluations = (-0.5, -0.25, 0.5, 1.0)
    record = GameRecord(winner=0, branching=(3, 1, 2, 2), evaluations=evaluations)
    found = game_metrics(record)
    # Drama: the best evaluation minus the winner's, per move: 1.0, 0.5, 0, 0 -> mean 0.375.
    assert found["drama"] == pytest.approx(0.375)
    # Stability: mean 0.1875; squared gaps 0.4727, 0.1914, 0.0977, 0.6602 -> variance 0.3555;
    # both players' variances added: 0.7109375.
    assert found["stability"] == pytest.approx(0.7109375)
    # Uncertainty: 1 - |e|: 0.5, 0.75, 0.5, 0 -> mean 0.4375.
    assert found["uncertainty"] == pytest.approx(0.4375)
    # The loser's best evaluation is +0.5 (at the first move); the winner first rises above it
    # at move 3 (index 3, +1.0): 3 of 4 moves were played before, 0.75.
    assert found["decisiveness"] == pytest.approx(0.75)
    # |e - (-e)|: 1.0, 0.5, 1.0, 2.0 -> mean 1.125.
    assert found["state_evaluation_difference"] == pytest.approx(1.125)
    # Three of four moves had a choice; those had 3, 2 and 2 actions.
    assert found["decision_moves"] == pytest.approx(0.75)
    assert found["decision_factor"] == pytest.approx(7 / 3)
    # 4 moves * log10(mean 2.0).
    assert found["game_tree_complexity"] == pytest.approx(4 * 0.30103, abs=1e-5)


def test_a_winner_ahead_throughout_has_no_drama() -> None:
    found = game_metrics(GameRecord(winner=1, branching=(2, 2), evaluations=(-0.5, -0.5)))
    assert found["drama"] == 0.0 and found["stability"] == 0.0
    # The loser's best is -0.5, the winner's +0.5 from the first move: decided at once.
    assert found["decisiveness"] == 0.0


def test_draws_have_no_decisiveness_and_count_the_absolute_evaluation() -> None:
    found = game_metrics(GameRecord(winner=DRAW, branching=(2,), evaluations=(0.25,)))
    assert found["decisiveness"] is None
    # Both players count as winners: (0.25 - 0.25) and (0.25 + 0.25) averaged.
    assert found["drama"] == pytest.approx(0.25)


def test_clarity_from_the_values_of_every_legal_action() -> None:
    # Move 1: values 1, 0, 0, 0: mean 0.25, threshold 0.25 + 0.75 * 0.75 = 0.8125: one of
    # four above; variance 0.1875. Move 2: 0.5, 0.5: nobody above the mean; variance 0.
    values = ((1.0, 0.0, 0.0, 0.0), (0.5, 0.5))
    found = game_metrics(GameRecord(winner=0, branching=(4, 2), values=values))
    assert found["clarity_narrowness"] == pytest.approx((0.25 + 0.0) / 2)
    assert found["clarity_variance"] == pytest.approx((0.1875 + 0.0) / 2)


def test_board_coverage_piece_number_and_move_distance() -> None:
    # A 2x2 board: a piece on a1 at the start, a1-b2 (one diagonal king step), a drop on a2.
    occupied = (frozenset({"a1"}), frozenset({"b2"}), frozenset({"b2", "a2"}))
    record = GameRecord(winner=0, branching=(2, 2), occupied=occupied, sites=4, distances=(1,))
    found = game_metrics(record)
    assert found["board_coverage"] == pytest.approx(3 / 4)  # a1, b2, a2 of four sites
    assert found["piece_number"] == pytest.approx(4 / 3)  # 1, 1, 2 pieces
    assert found["move_distance"] == 1.0
    assert metrics.square_distance("a1", "e3") == 4 and metrics.square_distance("b2", "b2") == 0


def test_metrics_without_their_data_are_none_not_zero() -> None:
    found = game_metrics(GameRecord(winner=0, branching=()))
    assert all(value is None for value in found.values()), found
    found = game_metrics(GameRecord(winner=0, branching=(1, 1)))
    # Forced moves only: no decision, so no decision factor; the tree has one line: 0 digits.
    assert found["decision_moves"] == 0.0 and found["decision_factor"] is None
    assert found["game_tree_complexity"] == 0.0


def test_outcome_uniformity() -> None:
    # 6 first-seat wins, 2 second-seat wins, 2 draws of 10: mean 0.4, mean square 0.8,
    # variance 0.64 -> 0.36.
    assert metrics.outcome_uniformity(6, 2, 10) == pytest.approx(0.36)
    assert metrics.outcome_uniformity(0, 0, 0) is None


def test_reasons_for_metrics_that_do_not_apply() -> None:
    def reason(metric: str, **facts: object) -> str | None:
        given: dict[str, object] = {"evaluation": True, "clarity": True, "sites": 9, "board": True}
        given.update(facts)
        return metrics.not_applicable(metric, **given)  # type: ignore[arg-type]

    assert reason("drama") is None and reason("board_coverage") is None
    assert "no evaluation" in (reason("stability", evaluation=False) or "")
    assert "--metrics all" in (reason("clarity_variance", clarity=False) or "")
    assert "no board sites" in (reason("piece_number", sites=None) or "")
    assert "lists no pieces" in (reason("board_coverage", board=False) or "")


def test_what_the_games_expose_through_the_protocol() -> None:
    # A grid game has board sites and pieces by square; a race has neither.
    assert metrics.board_sites(make("flipfour")) == 25
    assert metrics.board_sites(make("checkered-flag")) is None
    state = make("flipfour").new_initial_state()
    assert metrics.occupied_sites(state) == frozenset()
    after = state.apply(state.parse_action("R@c3"))
    assert metrics.occupied_sites(after) == frozenset({"c3"})
    # A drop comes from no square: no distance.
    assert metrics.action_distance(state, state.parse_action("R@c3")) is None
