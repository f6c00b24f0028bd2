"""docs/solvers.md: ``value(state)`` and ``probabilities(state)`` are for the player to move
(player 0 at chance nodes and finished positions), not always for player 0 (issue 24, item 23)."""

from __future__ import annotations

from flipgames import make
from flipgames.core.game import State
from flipgames.solvers.stochastic import solve_stochastic


def second_player_to_move() -> State:
    state = make("checkered-flag", track="short", start="first").new_initial_state()
    while state.current_player != 1:
        state = state.apply(
            state.chance_outcomes()[-1][0] if state.is_chance_node() else state.legal_actions()[0]
        )
    return state


def test_probabilities_are_the_movers_and_the_other_player_gets_the_mirror():
    state = second_player_to_move()
    solution = solve_stochastic(state.game)
    mover = solution.probabilities(state)
    win, draw, loss = solution.probabilities(state, player=0)
    assert mover == solution.probabilities(state, player=1) == (loss, draw, win)
    assert win != loss  # the two points of view differ here, so the test can tell them apart
    assert solution.value(state).expected == -solution.value(state, player=0).expected
