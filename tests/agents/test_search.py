"""Alpha-beta finds forced wins and avoids losses; expectiminimax and MCTS weigh chance.

The FlipFlop 3x3 positions were picked with the retrograde solution and are reached by moves
in notation; the solution also checks the search over many positions."""

from __future__ import annotations

import random
from collections.abc import Hashable
from fractions import Fraction

import pytest

from flipgames import make
from flipgames.agents import AlphaBetaAgent, MCTSAgent
from flipgames.agents.search import PROVEN, WIN
from flipgames.core.game import CHANCE, JSON, TERMINAL, Game, State
from flipgames.solvers.retrograde import RetrogradeSolution as Solution
from flipgames.solvers.retrograde import solve


@pytest.fixture(scope="module")
def solution() -> Solution:
    return solve(make("flipflop-3x3"))


def position(moves: str) -> State:
    return make("flipflop-3x3").state_from_actions(moves.split())


def test_takes_the_mate_in_one() -> None:
    # Black to move: b3xb1 lands on White's goal and White cannot capture it there.
    state = position("a1-a2 c3-c2 a2xb3 c2xb3 c1-c3")
    result = AlphaBetaAgent(random.Random(1), depth=4).search(state)
    assert state.action_to_string(result.action) == "b3xb1"
    assert result.score == WIN - 1
    assert state.apply(result.action).result() == "0-1"


@pytest.mark.parametrize(
    ("moves", "winning", "plies"),
    [
        ("b1xb3 c3xb3 c1-c2 b3-a2 a1-c1", "a2-b2", 3),
        ("a1-a2 b3-b2 a2-b3 c3xb3 c1-c2 b2-c1 b1-a1 b3-a2", "a1-b2", 7),
    ],
)
def test_finds_the_only_forced_win(moves: str, winning: str, plies: int) -> None:
    """Four legal moves, one wins by force (in ``plies`` plies); the search finds it, with
    the right distance, and plays it out against a defending search."""
    state = position(moves)
    assert len(state.legal_actions()) == 4
    result = AlphaBetaAgent(random.Random(1), depth=plies).search(state)
    assert state.action_to_string(result.action) == winning
    assert result.score == WIN - plies
    winner = state.current_player
    attacker = AlphaBetaAgent(random.Random(2), depth=plies)
    defender = AlphaBetaAgent(random.Random(3), depth=plies)
    while not state.is_terminal():
        agent = attacker if state.current_player == winner else defender
        state = state.apply(agent.choose(state))
    assert state.returns()[winner] == 1
    assert len(state.history) == len(moves.split()) + plies


def test_avoids_the_move_that_loses_at_once(solution: Solution) -> None:
    state = position("c1-c2 b3-b2 b1-c1 a3-b3")
    losing = state.parse_action("c2-b1")  # steps off the defence: Black mates next move
    value = solution.action_values(state)[losing]
    assert (value.outcome, value.remoteness) == ("loss", 2)
    for seed in range(5):
        assert AlphaBetaAgent(random.Random(seed), depth=2).choose(state) != losing


def test_search_agrees_with_the_solution_on_short_wins(solution: Solution) -> None:
    """In every sampled position the solution calls a win within 5 plies, a 5-ply search
    proves a win and plays a move the solution also calls winning."""
    game = make("flipflop-3x3")
    rng = random.Random(9)
    checked = 0
    while checked < 40:
        state = game.new_initial_state()
        for _ in range(rng.randrange(12)):
            if state.is_terminal():
                break
            state = state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        solved = solution.value(state)
        remoteness = solved.remoteness
        if solved.outcome != "win" or remoteness is None or remoteness > 5:
            continue
        result = AlphaBetaAgent(random.Random(checked), depth=5).search(state)
        assert result.score == WIN - remoteness, state.history_notation()
        assert solution.action_values(state)[result.action].outcome == "win"
        checked += 1


def test_exact_scores_score_every_root_action(solution: Solution) -> None:
    state = position("a1-a2 b3-b2 b1-a1 a3-b3")  # White wins in 5 with c1-c2 or a2xb3
    result = AlphaBetaAgent(random.Random(1), depth=6, exact_scores=True).search(state)
    truth = solution.action_values(state)
    for action, score in result.scores.items():
        value, remoteness = truth[action].outcome, truth[action].remoteness
        # Only real wins and losses can be proven, and those within the horizon must be.
        within = remoteness is not None and remoteness <= 6
        assert score < PROVEN or value == "win"
        assert score > -PROVEN or value == "loss"
        if within and value == "win":
            assert score == WIN - remoteness
        if within and value == "loss":
            assert score == remoteness - WIN
    assert sorted(result.scores) == sorted(state.legal_actions())
    assert result.pv[0] == result.action


# --- a tiny chance game, to test how searches weigh outcomes ---------------------------------


class Gamble(Game):
    """Player 0 picks a bet, a coin decides it, the game ends; a draw bet ends at once.

    Actions: 0 = ``draw`` (ends drawn), 1 = ``bold`` (wins with probability ``p``, else loses),
    2 = ``fair`` (wins with probability 1/2). Chance outcomes: 10 = win, 11 = loss.
    """

    name = "gamble"
    title = "Gamble"
    has_chance = True

    def __init__(self, p: Fraction) -> None:
        super().__init__()
        self.p = p

    def new_initial_state(self) -> GambleState:
        return GambleState(self, "start")

    def rules_summary(self) -> str:
        return "pick a bet"


class GambleState(State):
    __slots__ = ("stage",)
    game: Gamble

    def __init__(
        self, game: Gamble, stage: str, parent: State | None = None, action: int | None = None
    ) -> None:
        super().__init__(game, parent, action)
        self.stage = stage

    @property
    def current_player(self) -> int:
        if self.stage == "start":
            return 0
        return CHANCE if self.stage in ("bold", "fair") else TERMINAL

    def _legal_actions(self) -> tuple[int, ...]:
        if self.stage == "start":
            return (0, 1, 2)
        return (10, 11) if self.current_player == CHANCE else ()

    def chance_outcomes(self) -> tuple[tuple[int, Fraction], ...]:
        p = self.game.p if self.stage == "bold" else Fraction(1, 2)
        return ((10, p), (11, 1 - p))

    def _apply(self, action: int) -> GambleState:
        stages = {0: "drawn", 1: "bold", 2: "fair", 10: "won", 11: "lost"}
        return GambleState(self.game, stages[action], self, action)

    def action_to_string(self, action: int) -> str:
        return {0: "draw", 1: "bold", 2: "fair", 10: "win", 11: "loss"}[action]

    def parse_action(self, text: str) -> int:
        return {"draw": 0, "bold": 1, "fair": 2, "win": 10, "loss": 11}[text]

    def returns(self) -> tuple[int, ...]:
        return {"won": (1, -1), "lost": (-1, 1)}.get(self.stage, (0, 0))

    def key(self) -> Hashable:
        return self.stage

    def observation(self, player: int | None) -> JSON:
        return {"stage": self.stage}

    def render(self) -> str:
        return self.stage


@pytest.mark.parametrize(
    ("p", "best"),
    [
        (Fraction(2, 3), {"bold"}),
        (Fraction(1, 3), {"draw", "fair"}),
        (Fraction(1, 2), {"draw", "bold", "fair"}),
    ],
)
def test_expectiminimax_weighs_outcomes_by_probability(p: Fraction, best: set[str]) -> None:
    """bold is worth 2p - 1 (as a fraction of a win), fair 0 and draw 0; the seeded choice
    varies among the best bets only."""
    state = Gamble(p).new_initial_state()
    result = AlphaBetaAgent(random.Random(1), depth=2, exact_scores=True).search(state)
    names = {state.action_to_string(a): score for a, score in result.scores.items()}
    assert names["draw"] == 0
    assert names["fair"] == pytest.approx(0.5 * (WIN - 2) - 0.5 * (WIN - 2))
    assert names["bold"] == pytest.approx(float(p) * (WIN - 2) - float(1 - p) * (WIN - 2))
    chosen = {
        state.action_to_string(AlphaBetaAgent(random.Random(seed), depth=2).choose(state))
        for seed in range(20)
    }
    assert chosen == best


def test_mcts_samples_chance_and_prefers_the_better_bet() -> None:
    state = Gamble(Fraction(9, 10)).new_initial_state()
    agent = MCTSAgent(random.Random(1), iterations=400)
    values = agent.action_values(state)
    assert sum(visits for visits, _ in values.values()) == 400
    assert max(values, key=lambda a: values[a][0]) == 1  # bold: worth 0.8
    assert values[1][1] == pytest.approx(0.8, abs=0.15)
    assert values[0] == (values[0][0], 0.0)  # the draw bet is exactly worth nothing


def test_expectiminimax_takes_a_sure_score_in_flip_switch() -> None:
    """Player 1 to move can switch c1-c2 to line up three hearts (a sure shape), or flip
    (a chance of a shape at best): the search switches."""
    moves = ["a1", "heart", "b1", "heart", "c1", "star", "c2", "heart"]
    state = make("flip-switch").state_from_actions(moves)
    action = AlphaBetaAgent(random.Random(1), depth=3).choose(state)
    assert state.action_to_string(action) == "c1-c2"


def test_mcts_in_a_chance_game_uses_chance_nodes() -> None:
    state = make("checkered-flag", start="first").state_from_actions(["1", "2", "1", "3"])
    agent = MCTSAgent(random.Random(1), iterations=200)
    root = agent.search(state)
    # Choosing a gear leads to a spin: a chance node whose children are sampled outcomes.
    chance_children = [child for child in root.children.values() if child.children]
    assert chance_children
    for child in chance_children:
        assert child.state.is_chance_node()
        outcomes = {o for o, _ in child.state.chance_outcomes()}
        assert set(child.children) <= outcomes
        assert sum(c.visits for c in child.children.values()) == child.visits - 1
