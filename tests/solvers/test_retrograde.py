"""Retrograde analysis: self-consistency of the strong solution of FlipFlop 3x3."""

from __future__ import annotations

import random

import pytest

from flipgames import TERMINAL, Game, State, make
from flipgames.solvers.retrograde import SolverError, solve
from flipgames.solvers.solution import Value


def pair(value: Value) -> tuple[str | None, int | None]:
    return value.outcome, value.remoteness


@pytest.fixture(scope="module")
def solution():
    return solve(make("flipflop-3x3"))


def test_the_start_is_a_first_player_win_in_15(solution):
    """213,270 positions by ``State.key()``; the FlipFlop kernel's graph folds the left-right
    mirror (107,439)."""
    game = make("flipflop-3x3")
    assert pair(solution.value(game.new_initial_state())) == ("win", 15)
    assert solution.positions == (213_270 if game.kernel() is None else 107_439)


def test_every_position_is_the_best_of_its_children(solution):
    """Negamax consistency on a sample of positions reached by random play."""
    game = make("flipflop-3x3")
    rng = random.Random(1)
    checked = 0
    while checked < 3000:
        state = game.new_initial_state()
        while not state.is_terminal() and checked < 3000:
            value = solution.value(state)
            children = solution.action_values(state)
            best = max(v.expected for v in children.values())
            assert value.expected == best
            rems = [v.remoteness for v in children.values() if v.expected == best]
            if value.outcome == "win":
                assert value.remoteness == min(r for r in rems if r is not None)
            elif value.outcome == "loss":
                assert value.remoteness == max(r for r in rems if r is not None)
            else:
                assert value.remoteness is None
            checked += 1
            state = state.apply(rng.choice(state.legal_actions()))


def test_terminal_positions_match_the_rules(solution):
    game = make("flipflop-3x3")
    state = game.new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_actions()))
    last_mover = state.parent.current_player
    value = solution.value(state, player=last_mover)
    assert pair(value) == ("win", 0)
    assert state.returns()[last_mover] == 1


def test_perfect_play_never_loses_a_won_position_and_wins(solution):
    """Following best_actions from a won position ends in a win for that side, in exactly
    the promised number of plies, whatever the loser does."""
    game = make("flipflop-3x3")
    rng = random.Random(2)
    for _ in range(20):
        state = game.new_initial_state()
        winner = state.current_player
        rem = solution.value(state).remoteness
        plies = 0
        while not state.is_terminal():
            if state.current_player == winner:
                state = state.apply(solution.best_actions(state)[0])
            else:
                state = state.apply(rng.choice(state.legal_actions()))
            plies += 1
        assert state.returns()[winner] == 1
        assert rem is not None and plies <= rem


def test_games_with_chance_are_refused():
    with pytest.raises(SolverError, match="deterministic"):
        solve(make("flip-switch"))


class Shuttle(Game):
    """A toy game with a cycle: a counter 0..3, each move adds or subtracts one, and the
    player who reaches 3 wins. From 1 the mover can retreat to 0 forever: a draw."""

    name = "shuttle"
    title = "Shuttle"
    repetition_draws = True

    def __init__(self, start: int) -> None:
        super().__init__()
        self.start = start

    def new_initial_state(self) -> ShuttleState:
        return ShuttleState(self, self.start, 0)

    def rules_summary(self) -> str:
        return "toy"


class ShuttleState(State):
    __slots__ = ("n", "player")

    def __init__(self, game: Game, n: int, player: int, parent=None, action=None) -> None:
        super().__init__(game, parent, action)
        self.n, self.player = n, player

    @property
    def current_player(self) -> int:
        return TERMINAL if self.n == 3 else self.player

    def _legal_actions(self) -> tuple[int, ...]:
        if self.n == 3:
            return ()
        return (0, 1) if self.n > 0 else (1,)

    def _apply(self, action: int) -> ShuttleState:
        step = 1 if action else -1
        return ShuttleState(self.game, self.n + step, 1 - self.player, self, action)

    def returns(self) -> tuple[int, ...]:
        if self.n != 3:
            return (0, 0)
        winner = 1 - self.player
        return (1, -1) if winner == 0 else (-1, 1)

    def action_to_string(self, action: int) -> str:
        return "+" if action else "-"

    def parse_action(self, text: str) -> int:
        return 1 if text == "+" else 0

    def key(self) -> tuple[int, int]:
        return (self.n, self.player)

    def observation(self, player: int | None) -> dict:
        return {"n": self.n}

    def render(self) -> str:
        return str(self.n)


@pytest.mark.parametrize(
    ("start", "expected"), [(2, ("win", 1)), (1, ("draw", None)), (0, ("draw", None))]
)
def test_cycles_are_draws_without_remoteness(start, expected):
    game = Shuttle(start)
    assert pair(solve(game).value(game.new_initial_state())) == expected


def test_best_actions_take_the_win_and_a_retreat_keeps_the_draw():
    """At 2 the only best action is to reach 3; after a retreat to 1 the opponent draws."""
    game = Shuttle(2)
    solution = solve(game)
    state = game.new_initial_state().apply(0)  # 2 -> 1, opponent to move at 1
    assert pair(solution.value(state)) == ("draw", None)
    assert solution.best_actions(game.new_initial_state()) == [1]


def test_a_solution_round_trips_through_its_cache_payload(solution):
    import json

    payload = json.loads(json.dumps(solution.to_payload()))
    restored = type(solution).from_payload(solution.game, payload)
    assert restored.positions == solution.positions
    rng = random.Random(3)
    state = solution.game.new_initial_state()
    while not state.is_terminal():
        assert restored.value(state) == solution.value(state)
        state = state.apply(rng.choice(state.legal_actions()))


def test_a_malformed_payload_is_refused(solution):
    good = solution.to_payload()
    broken = [
        {},
        {**good, "positions": good["positions"] + 1},
        {**good, "values": "not base64!"},
        {**good, "locator": {"kind": "mystery", "keys": ""}},
    ]
    for payload in broken:
        with pytest.raises(ValueError, match="malformed"):
            type(solution).from_payload(solution.game, payload)


def test_a_game_too_large_stops_at_the_budget_and_says_how_far_it_got():
    with pytest.raises(SolverError, match=r"more than 1,000 positions.*up to ply \d+ was expanded"):
        solve(make("rubiks-flip"), max_positions=1000)
