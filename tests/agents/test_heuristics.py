"""Each game's evaluation (``State.evaluate``) prefers an obviously better position, stays in
[-1, 1], is zero-sum, and is the true result once the game is over."""

from __future__ import annotations

import random

import pytest

from flipgames import game_names, make
from flipgames.core.game import State, random_action
from flipgames.games.checkered_flag.heuristics import solo_turns
from flipgames.games.flip_switch.heuristics import flip_chance, scoring_chance
from flipgames.games.rubiks_flip.heuristics import live_rows


def random_states(name: str, count: int, seed: int) -> list[State]:
    """States along seeded random games, chance nodes and game ends included."""
    rng = random.Random(seed)
    game = make(name)
    states: list[State] = []
    while len(states) < count:
        state = game.new_initial_state()
        states.append(state)
        while not state.is_terminal() and len(states) < count:
            state = state.apply(random_action(state, rng))
            states.append(state)
    return states


@pytest.mark.parametrize("name", game_names())
def test_bounded_zero_sum_and_exact_at_the_end(name: str) -> None:
    for state in random_states(name, 300, seed=1):
        mine, theirs = state.evaluate(0), state.evaluate(1)
        assert -1 <= mine <= 1
        assert mine == pytest.approx(-theirs)
        if state.is_terminal():
            assert (mine, theirs) == tuple(float(r) for r in state.returns())


# --- FlipFlop ----------------------------------------------------------------------------


def test_flipflop_prefers_more_pieces() -> None:
    game = make("flipflop-3x3")
    # Black has taken two White pieces and lost one: two pieces against one.
    ahead = game.state_from_actions(["a1-a2", "b3xb1", "a2xb1", "a3-a2", "b1-b3", "a2xb3"])
    level = game.new_initial_state()
    assert ahead.evaluate(1) > level.evaluate(1)
    assert ahead.evaluate(1) > 0.5


def test_flipflop_prefers_shutting_the_enemy_out_of_its_goal() -> None:
    """5x5: Black's c5 piece sees down the open c-file to c1 (it could capture there and give
    check). White's d2-c3 closes the file; d2-e3 leaves it open."""
    game = make("flipflop")
    closed = game.state_from_actions(["d1-d2", "e5-e4", "d2-c3"])
    open_file = game.state_from_actions(["d1-d2", "e5-e4", "d2-e3"])
    assert "c5xc1" in [open_file.action_to_string(a) for a in open_file.legal_actions()]
    assert "c5xc1" not in [closed.action_to_string(a) for a in closed.legal_actions()]
    assert closed.evaluate(0) > open_file.evaluate(0)


# --- Rubik's Flip ------------------------------------------------------------------------


def test_rubiks_flip_prefers_a_live_row_of_one_colour() -> None:
    game = make("rubiks-flip")
    # The first player's a1 and b1 both show blue: two of a row a1-b1-c1, no enemy tile in it.
    same = game.state_from_actions(["a1R", "a1/c3Y", "c3/b1B"])
    # The same squares, but b1 shows red: a mixed row the opponent will never repair.
    mixed = game.state_from_actions(["a1R", "a1/c3Y", "c3/b1R"])
    assert same.evaluate(0) > mixed.evaluate(0)
    assert same.evaluate(0) > 0


def test_rubiks_flip_values_locked_tiles() -> None:
    """The first player's c1 and d1 both show blue. The second player's last placement on c2
    fills d1's last empty neighbour, so d1 can never be flipped again; on b4 it does not."""
    game = make("rubiks-flip")
    before = ["a4R", "a4/d2Y", "d2/d1B", "a4/a3Y", "a3/c1B"]
    locked = game.state_from_actions([*before, "a4/c2Y"])
    unlocked = game.state_from_actions([*before, "a4/b4Y"])
    assert locked.is_locked("d1") and not unlocked.is_locked("d1")
    assert locked.tile("c1") == locked.tile("d1") == unlocked.tile("d1") == "B"
    assert live_rows(locked, 0) > live_rows(unlocked, 0)


# --- Flip Switch -------------------------------------------------------------------------


def test_flip_switch_prefers_a_credited_shape() -> None:
    game = make("flip-switch")
    scored = game.state_from_actions(["a1", "heart", "b1", "heart", "c1", "heart"])
    assert scored.observation(0)["board"]["credited"] == [["heart"], []]
    assert scored.evaluate(0) > 0.5
    assert scored.evaluate(0) > game.new_initial_state().evaluate(0)


def test_flip_switch_counts_the_scoring_chance_of_the_side_to_move() -> None:
    game = make("flip-switch")
    near = game.state_from_actions(["a1", "heart", "b1", "heart"])  # player 1 (id 0) to move
    assert flip_chance(near, near.parse_action("c1")) == pytest.approx(1 / 7)
    assert scoring_chance(near) == pytest.approx(1 / 7)
    assert near.evaluate(0) > 0 > near.evaluate(1)
    # A sure switch beats a chance flip: c1-c2 lines up three hearts.
    sure = game.state_from_actions(["a1", "heart", "b1", "heart", "c1", "star", "c2", "heart"])
    assert scoring_chance(sure) == 1.0
    assert sure.evaluate(0) > near.evaluate(0)


# --- Checkered Flag ----------------------------------------------------------------------


def test_checkered_flag_prefers_the_car_ahead() -> None:
    game = make("checkered-flag", start="first")
    ahead = game.state_from_actions(["1", "3", "1", "1"])  # player 0 at 3, player 1 at 1
    behind = game.state_from_actions(["1", "1", "1", "3"])  # player 0 at 1, player 1 at 3
    assert ahead.distances == (3, 1) and behind.distances == (1, 3)
    assert ahead.evaluate(0) > 0 > behind.evaluate(0)


def test_checkered_flag_values_gear_and_fears_crashes() -> None:
    game = make("checkered-flag")
    table = solo_turns(game)
    neutral, first, second, third, crash2, crash3 = table[10][:6]
    assert third < first < neutral < crash2 < crash3  # higher gear, sooner home
    assert second <= first
    # 12 more spaces to the goal cost time: further back is worse in every gear.
    assert all(table[0][g] > table[12][g] for g in range(6))
