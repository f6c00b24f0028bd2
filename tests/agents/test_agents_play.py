"""Every agent plays legal actions in every game, reproducibly from a seed."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from flipgames import game_names, make, sample_chance
from flipgames.agents import (
    Agent,
    AlphaBetaAgent,
    MCTSAgent,
    RandomAgent,
    levels_for,
    make_level_agent,
)
from flipgames.core.game import Game, State

Factory = Callable[[random.Random], Agent]

# Small budgets: these tests are about legality and reproducibility, not strength.
AGENTS: dict[str, Factory] = {
    "random": RandomAgent,
    "mcts": lambda rng: MCTSAgent(rng, iterations=30, rollout_limit=30),
    "mcts-eval": lambda rng: MCTSAgent(rng, iterations=30, rollout_limit=0),
    "alphabeta": lambda rng: AlphaBetaAgent(rng, depth=2),
    "alphabeta-nodes": lambda rng: AlphaBetaAgent(rng, depth=8, max_nodes=1500),
}


def play(game: Game, agent: Agent, seed: int, max_plies: int) -> State:
    """Let ``agent`` play both sides from the start; chance comes from its own seeded draw.
    Every chosen action must be legal."""
    chance = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(max_plies):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state = state.apply(sample_chance(state, chance))
            continue
        action = agent.choose(state)
        assert action in state.legal_actions(), (
            f"{agent.name} chose {action} after {state.history_notation()}"
        )
        state = state.apply(action)
    return state


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("kind", AGENTS)
def test_each_agent_plays_legal_actions_in_each_game(name: str, kind: str) -> None:
    game = make(name)
    state = play(game, AGENTS[kind](random.Random(1)), seed=2, max_plies=24)
    assert len(state.history) > 0


@pytest.mark.parametrize("name", ["flipflop-3x3", "flip-switch", "checkered-flag"])
@pytest.mark.parametrize("kind", ["mcts", "alphabeta-nodes"])
def test_same_seed_same_moves(name: str, kind: str) -> None:
    game = make(name)
    first = play(game, AGENTS[kind](random.Random(11)), seed=3, max_plies=30)
    again = play(game, AGENTS[kind](random.Random(11)), seed=3, max_plies=30)
    assert first.history_notation() == again.history_notation()


def test_another_seed_varies_the_play() -> None:
    """The seed is really used: over a few seeds, MCTS does not always play the same game."""
    game = make("flipflop")
    games = {
        tuple(play(game, AGENTS["mcts"](random.Random(seed)), seed=0, max_plies=8).history)
        for seed in range(4)
    }
    assert len(games) > 1


@pytest.mark.parametrize("name", game_names())
def test_every_level_chooses_a_legal_action(name: str) -> None:
    """Each level of each game, from a position a few random plies in (hard is searched with
    its full budget here, about a second a game). Flip Switch plays a match of rounds by
    default, which has no perfect level (its one-round solution takes minutes to build; the
    stochastic solver's own tests cover it); Checkered Flag's, solved in seconds, tests the
    perfect player on a chance game."""
    game = make(name)
    state = play(game, RandomAgent(random.Random(4)), seed=4, max_plies=6)
    while state.is_chance_node():
        state = state.apply(sample_chance(state, random.Random(5)))
    assert not state.is_terminal()
    for level in ["random", *levels_for(game)]:
        agent = make_level_agent(game, level, random.Random(6))
        assert agent.choose(state) in state.legal_actions(), level


def test_mcts_time_budget_still_searches() -> None:
    state = make("flipflop").new_initial_state()
    agent = MCTSAgent(random.Random(1), iterations=None, seconds=0.01)
    assert agent.choose(state) in state.legal_actions()
    assert agent.last_iterations >= 1


def test_agents_refuse_chance_and_terminal_states() -> None:
    game = make("flip-switch")
    state = game.new_initial_state()
    chance = state.apply(state.parse_action("b2"))
    for agent in (MCTSAgent(random.Random(1), iterations=5), AlphaBetaAgent(random.Random(1))):
        with pytest.raises(ValueError, match="player is to move"):
            agent.choose(chance)


def test_bad_budgets_are_refused() -> None:
    rng = random.Random(1)
    with pytest.raises(ValueError, match="budget"):
        MCTSAgent(rng, iterations=None)
    with pytest.raises(ValueError, match="at least one iteration"):
        MCTSAgent(rng, iterations=0)
    with pytest.raises(ValueError, match="depth"):
        AlphaBetaAgent(rng, depth=0)
    with pytest.raises(ValueError, match="depth_step"):
        AlphaBetaAgent(rng, depth=3, depth_step=3)


class DepthSpy(AlphaBetaAgent):
    """Records the depth of every iteration of the deepening."""

    def __init__(self, rng: random.Random, **options: int) -> None:
        super().__init__(rng, **options)
        self.iterations: list[int] = []

    def _root_scores(
        self, state: State, depth: int, player: int, order: list[int]
    ) -> dict[int, float]:
        self.iterations.append(depth)
        return super()._root_scores(state, depth, player, order)


@pytest.mark.parametrize(("depth", "step", "reached"), [(5, 2, [1, 3, 5]), (4, 2, [2, 4])])
def test_depth_step_keeps_the_horizon_on_one_side(
    depth: int, step: int, reached: list[int]
) -> None:
    state = make("flipflop-3x3").new_initial_state()  # no result is proven within 5 plies
    agent = DepthSpy(random.Random(1), depth=depth, depth_step=step)
    assert agent.search(state).depth == depth
    assert agent.iterations == reached
