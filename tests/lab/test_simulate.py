"""simulate on the toy Ladder (every answer derived by hand in the comments) and on a real
game (reproducible, the same in one process and in worker processes, interruptible)."""

from __future__ import annotations

import os
import signal

import pytest
from toy import CAP, Ladder, PlainLadder

from flipgames import make
from flipgames.agents.levels import UnknownAgentError
from flipgames.lab.simulate import (
    SimulationError,
    _interrupt_after,
    has_evaluation,
    play_game,
    simulate,
)
from flipgames.lab.stats import DRAW


def ladder(**options: object) -> Ladder:
    return Ladder(options)


def test_first_player_wins_every_game() -> None:
    result = simulate(ladder(length=6), ("random", "random"), games=5, seed=1)
    data = result.to_json()
    # Seat 0 wins all 5; A has seat 0 in games 0, 2, 4 and B in games 1 and 3.
    assert data["wins"] == [5, 0] and data["draws"] == 0
    assert data["agent_wins"] == [3, 2]
    assert data["win_rates"] == [1.0, 0.0]
    assert data["agent_win_rates"] == [0.6, 0.4]
    assert data["first_player_win_rate"] == 1.0
    assert data["first_player_score"] == 1.0 and data["first_player_advantage"] == 0.5
    assert data["decided"] == 1.0
    # Six moves, all games alike.
    assert data["length"] == {
        "unit": "moves",
        "mean": 6.0,
        "median": 6.0,
        "p90": 6,
        "min": 6,
        "max": 6,
        "histogram": [[6, 5]],
    }
    # (ply % 3) + 1 legal actions at plies 0..5: 1 2 3 1 2 3, mean 2.
    assert data["branching"] == {
        "mean": 2.0,
        "by_ply": [1.0, 2.0, 3.0, 1.0, 2.0, 3.0],
        "games_by_ply": [5] * 6,
    }
    # Before the first player's moves the evaluation is +0.4, -0.2, -0.5 (ahead, behind,
    # behind), then the first player wins: two lead changes in every game.
    assert data["lead_changes"] == {"mean": 2.0, "games_with_change": 5, "share": 1.0}
    assert data["repetition_draws"] == 0 and data["capped"] == 0 and data["cap"] == CAP
    # Each agent chose 3 moves a game: 15 each.
    assert result.tally.agent_moves == [15, 15]
    assert data["games"] == 5 and data["interrupted"] is False


def test_second_player_wins_every_game() -> None:
    data = simulate(ladder(ending="second"), ("random", "random"), 5, seed=2).to_json()
    # A is the second seat in games 1 and 3.
    assert data["wins"] == [0, 5] and data["agent_wins"] == [2, 3]
    assert data["first_player_advantage"] == -0.5
    # Evaluation +0.4 then -0.2 before the first player's moves (one change), then the
    # second player wins (still behind): one lead change.
    assert data["lead_changes"] == {"mean": 1.0, "games_with_change": 5, "share": 1.0}


def test_draws_by_repetition_and_plain_draws() -> None:
    repeated = simulate(ladder(ending="repeat"), ("random", "random"), 4, seed=3).to_json()
    # Keys 0 1 0 1 0: the final position is the third occurrence of key 0.
    assert repeated["draws"] == 4 and repeated["repetition_draws"] == 4
    assert repeated["decided"] == 0.0 and repeated["first_player_score"] == 0.5
    plain = simulate(ladder(ending="draw"), ("random", "random"), 4, seed=3).to_json()
    assert plain["draws"] == 4 and plain["repetition_draws"] == 0
    # Rules without repetition draws: the count is not available, not zero.
    other = simulate(PlainLadder({"ending": "repeat"}), ("random", "random"), 2, 3).to_json()
    assert other["repetition_draws"] is None and other["draws"] == 2


def test_endless_games_stop_at_the_cap_as_draws() -> None:
    data = simulate(ladder(ending="endless"), ("random", "random"), 3, seed=4).to_json()
    assert data["capped"] == 3 and data["draws"] == 3 and data["repetition_draws"] == 0
    assert data["length"]["histogram"] == [[CAP, 3]]  # type: ignore[index]


def test_chance_outcomes_are_not_moves() -> None:
    stats = play_game(ladder(chance="yes", length=4), ("random", "random"), 1, 0, leads=False)
    # Ply 0 is chance; plies 1, 2, 3 are moves with 2, 3, 1 legal actions.
    assert (stats.plies, stats.moves, stats.branching) == (4, 3, (2, 3, 1))
    assert stats.winner == 0 and stats.lead_changes is None
    # A (seat 0) moved at plies 1 and 3, B at ply 2.
    assert stats.agent_moves == (2, 1)


def test_lead_changes_are_not_available_without_an_evaluation() -> None:
    game = ladder(evaluation="no")
    assert not has_evaluation(game) and has_evaluation(ladder())
    data = simulate(game, ("random", "random"), 2, seed=1).to_json()
    assert data["lead_changes"] is None


def test_a_drawn_lead_is_no_change() -> None:
    stats = play_game(ladder(ending="draw", length=6), ("random", "random"), 1, 0, leads=True)
    # +0.4, -0.2, -0.5, then a draw (level): one change.
    assert stats.winner == DRAW and stats.lead_changes == 1


def test_same_seed_same_games_and_any_worker_count() -> None:
    game = make("flipflop-3x3")
    one = simulate(game, ("random", "easy"), 24, seed=7)
    again = simulate(game, ("random", "easy"), 24, seed=7)
    assert one == again
    assert one.to_json()["seconds"] != 0  # timing is measured but not compared
    other = simulate(game, ("random", "easy"), 24, seed=8)
    assert other != one
    two = simulate(game, ("random", "easy"), 24, seed=7, workers=2)
    assert two == one
    strip = {"seconds", "seconds_per_move"}
    assert {k: v for k, v in two.to_json().items() if k not in strip} == {
        k: v for k, v in one.to_json().items() if k not in strip
    }


def test_interrupted_simulation_keeps_the_finished_games() -> None:
    seen: list[int] = []

    def interrupt_after_three(
        message: str, *, done: int | None = None, total: int | None = None
    ) -> None:
        assert done is not None
        seen.append(done)
        if done == 3:
            raise KeyboardInterrupt

    result = simulate(ladder(), ("random", "random"), 10, seed=1, progress=interrupt_after_three)
    assert result.interrupted and result.games == 3 and result.requested == 10
    assert seen == [1, 2, 3]
    assert result.to_json()["wins"] == [3, 0]


def test_bad_arguments_are_refused_before_any_game() -> None:
    game = ladder()
    with pytest.raises(UnknownAgentError, match="unknown level 'grandmaster'"):
        simulate(game, ("random", "grandmaster"), 2, seed=1)
    with pytest.raises(SimulationError, match="at least one game"):
        simulate(game, ("random", "random"), 0, seed=1)
    with pytest.raises(SimulationError, match="not both"):
        simulate(game, ("random", "random"), 2, seed=1, workers=2, ray="auto")


def test_ctrl_c_during_a_merge_waits_for_the_merge() -> None:
    # Python's own Ctrl-C handler, whoever started the tests: a shell's background job ignores
    # SIGINT, and a Python started that way never installs the handler.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        finished = []
        with pytest.raises(KeyboardInterrupt), _interrupt_after():
            os.kill(os.getpid(), signal.SIGINT)
            finished.append(True)  # reached: the interrupt waits for the block's end
        assert finished == [True]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ludii_metrics_of_the_ladder() -> None:
    data = simulate(ladder(length=6), ("random", "random"), 4, seed=1).to_json()
    found = {name: entry["value"] for name, entry in data["metrics"].items()}  # type: ignore[union-attr]
    # The first player's evaluation before plies 0..5 is 0.4, 0.9, -0.2, 0.9, -0.5, 0.9 and
    # the first player wins. Drama: behind by 0.4 and 1.0 (|e| - e) at plies 2 and 4: 1.4 / 6.
    assert found["drama"] == pytest.approx(1.4 / 6)
    # Uncertainty, 1 - |e|: 0.6, 0.1, 0.8, 0.1, 0.5, 0.1 -> 2.2 / 6.
    assert found["uncertainty"] == pytest.approx(2.2 / 6)
    # The loser's best is +0.5 (ply 4); the winner is above it first at ply 1 (0.9): 1 / 6.
    assert found["decisiveness"] == pytest.approx(1 / 6)
    # Legal actions 1, 2, 3, 1, 2, 3: four moves with a choice, 2.5 actions among them.
    assert found["decision_moves"] == pytest.approx(4 / 6)
    assert found["decision_factor"] == pytest.approx(2.5)
    assert found["game_tree_complexity"] == pytest.approx(6 * 0.30103, abs=1e-5)
    # Clarity is opt-in; the toy has no board and describes no action as data.
    entries = data["metrics"]
    assert isinstance(entries, dict)
    assert "--metrics all" in entries["clarity_variance"]["not_applicable"]
    assert "no board sites" in entries["board_coverage"]["not_applicable"]
    assert entries["move_distance"]["value"] is None and entries["move_distance"]["not_applicable"]
    assert entries["drama"]["games"] == 4 and entries["drama"]["not_applicable"] is None
    # The first seat's result is +1 in every game (variance 0): outcome uniformity 1.
    assert data["outcome_uniformity"] == 1.0
    assert data["decided"] == 1.0 and data["completion"] == 1.0 and "decisiveness" not in data


def test_clarity_on_request() -> None:
    data = simulate(ladder(length=6), ("random", "random"), 2, 1, metric_set="all").to_json()
    entries = data["metrics"]
    assert isinstance(entries, dict)
    # Every action of a ply leads to the same position: all alike, nobody stands out.
    assert entries["clarity_narrowness"]["value"] == 0.0
    assert entries["clarity_variance"]["value"] == 0.0
    with pytest.raises(SimulationError, match="--metrics 'most': choose default or all"):
        simulate(ladder(), ("random", "random"), 2, seed=1, metric_set="most")


def test_drawishness_leaves_out_games_stopped_at_the_cap() -> None:
    endless = simulate(ladder(ending="endless"), ("random", "random"), 3, seed=4).to_json()
    assert endless["draws"] == 3 and endless["natural_draws"] == 0
    assert endless["drawishness"] == 0.0 and endless["decided"] == 0.0
    plain = simulate(ladder(ending="draw"), ("random", "random"), 2, seed=4).to_json()
    assert plain["drawishness"] == 1.0 and plain["natural_draws"] == 2


def test_board_metrics_on_a_real_game_agree_in_any_worker_count() -> None:
    game = make("flipflop-3x3")
    one = simulate(game, ("random", "random"), 6, seed=5).to_json()
    two = simulate(game, ("random", "random"), 6, seed=5, workers=2).to_json()
    assert one["metrics"] == two["metrics"]
    entries = one["metrics"]
    assert isinstance(entries, dict)
    coverage = entries["board_coverage"]["value"]
    # Six pieces start on six of the nine squares; every piece move goes one or two squares.
    assert isinstance(coverage, float) and 6 / 9 <= coverage <= 1
    assert 1 <= entries["move_distance"]["value"] <= 2


def test_agents_that_contradict_the_solved_value_are_flagged() -> None:
    # One round of Flip Switch is solved: perfect play draws it. Random play decides rounds.
    result = simulate(make("flip-switch", rounds=1), ("random", "random"), 8, seed=1)
    data = result.to_json()
    assert data["solved"] == {
        "expected": 0.0,
        "win": 0.0,
        "draw": 1.0,
        "loss": 0.0,
        "remoteness": None,
    }
    assert data["natural_draws"] < 8  # not every game drawn: the interval misses 100%
    (warning,) = [w for w in result.warnings if "drew" in w]
    assert "where perfect play draws 100.0%" in warning
    # A game not solved here has no solved value and no warning.
    other = simulate(ladder(), ("random", "random"), 2, seed=1).to_json()
    assert other["solved"] is None and other["warnings"] == []
