"""The Checkered Flag designer study, checked against independent computations on the
reference engine: the starter's exact edge by an expectimax of its own, the expected race
length by a recursion over the solver's canonical strategy (the study propagates reach
probabilities forwards instead), and properties any exact answer must have."""

from __future__ import annotations

import importlib.util
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from flipgames import make
from flipgames.core.game import State
from flipgames.solvers import catalog

# The study is a script under studies/, not part of the package: load it from its file.
_PATH = Path(__file__).resolve().parents[2] / "studies/checkered-flag/checkered_flag_study.py"
_SPEC = importlib.util.spec_from_file_location("checkered_flag_study", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
study = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = study  # dataclasses look their module up there
_SPEC.loader.exec_module(study)
policy_figure, study_track, table = study.policy_figure, study.study_track, study.table


def expectimax(state: State, memo: dict[object, Fraction]) -> Fraction:
    """Player 0's exact chance to win, each player maximising their own."""
    if state.is_terminal():
        return Fraction(int(state.returns()[0] > 0))
    key = state.key()
    if key not in memo:
        if state.is_chance_node():
            value = sum(
                (p * expectimax(state.apply(a), memo) for a, p in state.chance_outcomes()),
                Fraction(0),
            )
        else:
            values = [expectimax(state.apply(a), memo) for a in state.legal_actions()]
            value = max(values) if state.current_player == 0 else min(values)
        memo[key] = value
    return memo[key]


def expected_turns(state: State, solution: object, memo: dict[object, Fraction]) -> Fraction:
    """Turns still to come under the solver's canonical strategies, exactly."""
    if state.is_terminal():
        return Fraction(0)
    key = state.key()
    if key not in memo:
        if state.is_chance_node():
            memo[key] = sum(
                (
                    p * expected_turns(state.apply(a), solution, memo)
                    for a, p in state.chance_outcomes()
                ),
                Fraction(0),
            )
        else:
            action = solution.canonical_action(state)  # type: ignore[attr-defined]
            memo[key] = 1 + expected_turns(state.apply(action), solution, memo)
    return memo[key]


@pytest.fixture(scope="module")
def short() -> object:
    return study_track("short")


def test_the_starters_edge_is_exact(short) -> None:
    start = make("checkered-flag", track="short", start="first").new_initial_state()
    assert short.starter_win == expectimax(start, {})
    assert short.starter_win > Fraction(1, 2)  # on this track, moving first is worth something


def test_expected_race_length_matches_a_recursion(short) -> None:
    game = make("checkered-flag", track="short", start="first")
    exact = expected_turns(game.new_initial_state(), catalog.solution(game), {})
    assert short.turns == pytest.approx(float(exact), rel=1e-9)


def test_gear_shares_are_distributions_over_the_track(short) -> None:
    assert len(short.gear_share) == 16
    assert short.gear_share[0] == (0.0, 0.0, 0.0)  # from neutral, 1st is the only gear
    for share in short.gear_share:
        assert sum(share) == pytest.approx(1.0) or sum(share) == 0.0
        assert all(0.0 <= s <= 1.0 for s in share)
    assert 0.0 < short.stake < 1.0 and 0.0 <= short.restraint <= 1.0


def test_a_perfect_player_beats_every_fixed_policy_with_a_fair_start(short) -> None:
    assert set(short.against) == {"always 1st", "up to 2nd", "up to 3rd"}
    for win in short.against.values():
        assert win >= Fraction(1, 2)
    assert short.against["always 1st"] > Fraction(1, 2)  # crawling in 1st can be beaten


def test_table_and_figure_show_every_track(short) -> None:
    text = table([short])
    assert "`short`" in text and f"{float(short.starter_win):.2%}" in text
    figure = policy_figure([short, short])
    assert len(figure.axes) == 2
    assert figure.axes[0].get_title(loc="left").startswith("short: starter wins")
