"""Fixed-policy evaluation: exact probabilities, best responses and the gear policies."""

from __future__ import annotations

import math
import random

import pytest

from flipgames import make
from flipgames.core.game import Game, State, sample_chance
from flipgames.solvers.policies import GEAR_POLICIES, GearUpTo, evaluate_policy
from flipgames.solvers.retrograde import SolverError
from flipgames.solvers.stochastic import Policy, solve_stochastic


def short_track() -> Game:
    return make("checkered-flag", track="short", start="first")


def gears(state: State) -> list[str]:
    return [car["gear"] for car in state.observation(None)["board"]["cars"]]


def test_gear_up_to_reads_the_notation() -> None:
    game = short_track()
    # Player 0 shifts N -> 1, then 1 -> 2 and 2 -> 3 on later turns; player 1 stays in 1st.
    state = game.state_from_actions(["1", "1", "1", "1", "2", "1", "1", "1"])
    assert gears(state) == ["2", "1"] and state.current_player == 0
    picks = {p.name: state.action_to_string(p(state)) for p in GEAR_POLICIES}
    assert picks == {"always 1st": "1", "up to 2nd": "2", "up to 3rd": "3"}
    crashed = game.state_from_actions(
        ["1", "1", "1", "1", "2", "1", "1", "1", "3", "1+3", "1", "1"]
    )
    assert gears(crashed)[0] == "C3"  # 2 + 4 spaces in 3rd ended on crash space 6
    assert [crashed.action_to_string(GearUpTo(3)(crashed))] == ["C2"]  # no digit: the only one


def play(game: Game, policies: tuple[Policy, Policy], rng: random.Random) -> int:
    """Player 0's return in one game with both players following their policies."""
    state: State = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state = state.apply(sample_chance(state, rng))
        else:
            state = state.apply(policies[state.current_player](state))
    return state.returns()[0]


@pytest.mark.parametrize("pair", [(1, 3), (3, 2)])
def test_fixed_policies_agree_with_simulation(pair: tuple[int, int]) -> None:
    game = short_track()
    policies = (GearUpTo(pair[0]), GearUpTo(pair[1]))
    exact = evaluate_policy(game, *policies)
    assert exact.players == (policies[0].name, policies[1].name)
    assert exact.win + exact.draw + exact.loss == 1 and exact.draw == 0
    rng = random.Random(20240601)
    games = 3000
    wins = sum(play(game, policies, rng) == 1 for _ in range(games))
    p = float(exact.win)
    # Five standard errors: a seeded run that fails this is a real disagreement.
    assert abs(wins / games - p) < 5 * math.sqrt(p * (1 - p) / games)


def test_best_response_beats_the_optimum_against_a_fixed_policy() -> None:
    game = short_track()
    start = game.new_initial_state()
    optimal = solve_stochastic(game)
    win, draw, loss = optimal.probabilities(start)
    both = evaluate_policy(game, None, None)
    assert (both.win, both.draw, both.loss) == (win, draw, loss)
    assert both.players == ("optimal", "optimal")
    for policy in GEAR_POLICIES:
        against_0 = evaluate_policy(game, policy, None)  # player 1 exploits player 0's policy
        assert against_0.loss >= loss
        against_1 = evaluate_policy(game, None, policy)
        assert against_1.win >= win
        fixed = evaluate_policy(game, policy, GEAR_POLICIES[0])
        best = evaluate_policy(game, None, GEAR_POLICIES[0])
        assert best.win >= fixed.win


def test_a_policy_must_choose_a_legal_action() -> None:
    def reckless(state: State) -> int:
        return 3  # 3rd gear, illegal from N

    with pytest.raises(SolverError, match="policy reckless chose 3, not a legal action"):
        evaluate_policy(short_track(), reckless, None)
