"""Levels per game, the perfect player, and bad names."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from flipgames import make
from flipgames.agents import (
    LevelUnavailableError,
    PerfectAgent,
    UnknownAgentError,
    describe_level,
    levels_for,
    make_agent,
    make_level_agent,
    play_match,
)
from flipgames.agents.base import Agent
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import State
from flipgames.games.flipflop.rules import FlipFlop3x3
from flipgames.solvers.retrograde import RetrogradeSolution as Solution


@pytest.fixture(scope="module")
def solution() -> Solution:
    """The solution the perfect level plays from (solved once per process)."""
    agent = make_level_agent(make("flipflop-3x3"), "perfect", random.Random(0))
    assert isinstance(agent, PerfectAgent) and isinstance(agent.solution, Solution)
    return agent.solution


def test_levels_per_game() -> None:
    assert levels_for(make("flipflop-3x3")) == ["easy", "medium", "hard", "perfect"]
    # Rubik's Flip: exact search where it answers in time, else hard (agents.proof).
    assert levels_for(make("rubiks-flip")) == ["easy", "medium", "hard", "perfect"]
    for name in ("flipflop", "flipfour"):
        assert levels_for(make(name)) == ["easy", "medium", "hard"]
    # A match of several rounds is not what the solver solves.
    assert "perfect" not in levels_for(make("flip-switch", rounds=3))


def test_every_level_is_described() -> None:
    game = make("flipflop")
    descriptions = {level: describe_level(game, level) for level in ["random", *levels_for(game)]}
    assert "random" in descriptions["random"]
    assert "MCTS" in descriptions["easy"]
    assert "alpha-beta" in descriptions["hard"]


def test_unknown_agent_names_the_known_ones() -> None:
    with pytest.raises(UnknownAgentError, match=r"'minimax'.*random, mcts, alphabeta"):
        make_agent("minimax", random.Random(1))


def test_unknown_level_names_the_valid_ones() -> None:
    game = make("flipflop-3x3")
    with pytest.raises(UnknownAgentError) as caught:
        make_level_agent(game, "expert", random.Random(1))
    assert str(caught.value) == (
        "unknown level 'expert' for flipflop-3x3: choose random, easy, medium, hard, perfect"
    )
    assert isinstance(caught.value, FlipgamesError)
    with pytest.raises(UnknownAgentError):
        describe_level(game, "Easy")  # names are exact


def test_perfect_on_an_unsolved_game_is_refused() -> None:
    with pytest.raises(LevelUnavailableError) as caught:
        make_level_agent(make("flipflop"), "perfect", random.Random(1))
    assert "flipflop is not solved; its levels are easy, medium, hard" in str(caught.value)
    assert isinstance(caught.value, FlipgamesError)
    with pytest.raises(LevelUnavailableError, match="rounds=3"):
        make_level_agent(make("flip-switch", rounds=3), "perfect", random.Random(1))


def test_make_agent_builds_each_kind() -> None:
    for kind in ("random", "mcts", "alphabeta"):
        assert make_agent(kind, random.Random(1)).name == kind


def _play_from(state: State, agents: dict[int, Agent]) -> State:
    while not state.is_terminal():
        state = state.apply(agents[state.current_player].choose(state))
    return state


def _value_for(solution: Solution, state: State, player: int) -> int:
    """The solved value of ``state`` for ``player`` (+1 win, 0 draw, -1 loss)."""
    return int(solution.value(state, player).expected)


@pytest.mark.parametrize("opponent", ["random", "easy", "medium"])
def test_the_perfect_player_never_gives_anything_away(solution: Solution, opponent: str) -> None:
    """From 40 random positions, perfect against another agent: the solved value of the
    position for the perfect side never drops along the game, and the result is at least
    the value it started from (a won position is won, a draw is never lost)."""
    game = make("flipflop-3x3")
    rng = random.Random(f"perfect-{opponent}")
    for trial in range(40):
        state = game.new_initial_state()
        for _ in range(rng.randrange(10)):
            if state.is_terminal():
                break
            state = state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        me = state.current_player
        agents: dict[int, Agent] = {
            me: make_level_agent(game, "perfect", random.Random(trial)),
            1 - me: make_level_agent(game, opponent, random.Random(trial)),
        }
        start = _value_for(solution, state, me)
        values = [start]
        while not state.is_terminal():
            state = state.apply(agents[state.current_player].choose(state))
            values.append(_value_for(solution, state, me))
        assert all(b >= a for a, b in pairwise(values)), values
        result = state.returns()[me]
        assert result >= start
        if start == 0:
            assert result != -1


def test_the_perfect_player_takes_the_quickest_win(solution: Solution) -> None:
    game = make("flipflop-3x3")
    agent = PerfectAgent(random.Random(1), solution)
    state = _play_from(game.new_initial_state(), {0: agent, 1: agent})
    assert len(state.history) == 15  # the solved distance: a first-player win in 15 plies
    assert state.result() == "1-0"


def test_levels_are_ordered_on_flipflop_3x3() -> None:
    """Small seeded arenas: each level against the one below it (both seats each)."""
    game = make("flipflop-3x3")
    ladder = ["random", "easy", "medium", "hard", "perfect"]
    for weaker, stronger in pairwise(ladder):
        result = play_match(
            game,
            lambda rng, level=stronger: make_level_agent(game, level, rng),
            lambda rng, level=weaker: make_level_agent(game, level, rng),
            games=10,
            seed=1,
        )
        assert result.score >= 0.5, (stronger, weaker, result.summary())
        if stronger != "perfect":  # hard plays 3x3 perfectly already: perfect only ties it
            assert result.wins > result.losses, (stronger, weaker, result.summary())


def test_a_game_without_tuned_levels_gets_mcts_levels() -> None:
    """A game the level table does not know (a new one) still gets easy, medium and hard."""

    class Variant(FlipFlop3x3):
        name = "flipflop-3x3-variant"

    game = Variant()
    assert levels_for(game) == ["easy", "medium", "hard"]
    assert describe_level(game, "medium").startswith("MCTS (UCT), 1,000 iterations")
    agent = make_level_agent(game, "easy", random.Random(1))
    state = game.new_initial_state()
    assert agent.choose(state) in state.legal_actions()
