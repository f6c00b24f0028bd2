"""The compiled alpha-beta (``hard`` where a game has a kernel): proofs agree with the
retrograde solution, the ported evaluations agree with the reference ones, immediate wins
are taken, node budgets make it reproducible, and games without a kernel fall back."""

from __future__ import annotations

import math
import random

import pytest

from flipgames import make
from flipgames.agents import describe_level, make_level_agent
from flipgames.agents.endgame import EndgameAgent
from flipgames.agents.exact import ExactSearchAgent
from flipgames.agents.kernel_search import (
    KernelAlphaBetaAgent,
    NoKernelSearchError,
    has_kernel_search,
)
from flipgames.agents.search import AlphaBetaAgent
from flipgames.core.game import Game, State
from flipgames.kernels.search import MAX_PLY, WIN
from flipgames.solvers.retrograde import RetrogradeSolution, solve

pytestmark = pytest.mark.skipif(
    not has_kernel_search(make("flipflop")), reason="kernels switched off (FLIPGAMES_KERNEL)"
)


@pytest.fixture(scope="module")
def solution() -> RetrogradeSolution:
    return solve(make("flipflop-3x3"))


def random_positions(game: Game, count: int, seed: int, max_plies: int) -> list[State]:
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = game.new_initial_state()
        for _ in range(rng.randrange(max_plies)):
            if state.is_terminal():
                break
            state = state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            found.append(state)
    return found


def test_proves_flipflop_3x3_from_the_start() -> None:
    """The first player wins in 15 plies (the retrograde solution's distance)."""
    game = make("flipflop-3x3")
    agent = KernelAlphaBetaAgent(random.Random(1), game, depth=30, max_nodes=1_000_000)
    result = agent.search(game.new_initial_state())
    assert result.score == WIN - 15


def test_proofs_agree_with_the_retrograde_solution(solution: RetrogradeSolution) -> None:
    """Wherever a 12-ply search proves a result in sampled 3x3 positions, the solution has
    the same result at the same distance, and the chosen move keeps it."""
    game = make("flipflop-3x3")
    proven = 0
    for index, state in enumerate(random_positions(game, 60, seed=4, max_plies=14)):
        agent = KernelAlphaBetaAgent(random.Random(index), game, depth=12, max_nodes=500_000)
        result = agent.search(state)
        if abs(result.score) <= WIN - MAX_PLY:
            continue
        proven += 1
        value = solution.value(state)
        plies = WIN - abs(result.score)
        assert (value.outcome, value.remoteness) == ("win" if result.score > 0 else "loss", plies)
        if result.score > 0:
            chosen = solution.action_values(state)[result.action]
            assert (chosen.outcome, chosen.remoteness) == ("win", plies)
    assert proven >= 20


def test_the_ported_evaluations_equal_the_reference_ones() -> None:
    """Kernel evaluations are the reference's weighted sums in thousandths (before tanh)."""
    from flipgames.games.flipflop import search_kernel as flipflop
    from flipgames.games.flipflop.bitboard import Bitboard
    from flipgames.games.flipfour import search_kernel as flipfour

    for name in ("flipflop", "flipflop-3x3"):
        game = make(name)
        tables = Bitboard.of(game.size).args()[1:]  # type: ignore[attr-defined]
        for s in random_positions(game, 100, seed=5, max_plies=40):
            side = s._side  # type: ignore[attr-defined]
            value = flipflop.evaluate(s._white, s._black, s._bishops, side, *tables)  # type: ignore[attr-defined]
            assert math.tanh(value / 1000) == pytest.approx(s.evaluate(side), abs=1e-12)
    game = make("flipfour")
    reach = game.kernel().tables[0]  # type: ignore[union-attr]
    for s in random_positions(game, 100, seed=6, max_plies=60):
        hands, player = s._hands, s._player  # type: ignore[attr-defined]
        value = flipfour.evaluate(
            s._white, s._black, s._bishops, hands[0], hands[1], player,  # type: ignore[attr-defined]
            reach, flipfour._WINDOWS, flipfour._WINDOW_WEIGHT,
        )  # fmt: skip
        assert math.tanh(value / 1000) == pytest.approx(s.evaluate(player), abs=1e-12)


def test_takes_the_mate_in_one() -> None:
    # Black to move: b3xb1 lands on White's goal and White cannot capture it there.
    game = make("flipflop-3x3")
    state = game.state_from_actions(["a1-a2", "c3-c2", "a2xb3", "c2xb3", "c1-c3"])
    result = KernelAlphaBetaAgent(random.Random(1), game, max_nodes=10_000).search(state)
    assert state.action_to_string(result.action) == "b3xb1"
    assert result.score == WIN - 1


def test_completes_a_four_and_blocks_one() -> None:
    game = make("flipfour")
    state = game.state_from_actions(["R@a1", "R@e5", "R@b1", "R@e4", "R@c1"])
    # Black must stop d1 (a drop there, either face) or lose at once.
    result = KernelAlphaBetaAgent(random.Random(1), game, max_nodes=200_000).search(state)
    assert state.action_to_string(result.action) in ("R@d1", "B@d1")
    state = state.apply(state.parse_action("R@a5"))
    result = KernelAlphaBetaAgent(random.Random(1), game, max_nodes=10_000).search(state)
    assert state.action_to_string(result.action) in ("R@d1", "B@d1")
    assert result.score == WIN - 1


@pytest.mark.parametrize("name", ["flipflop", "flipfour"])
def test_a_node_budget_replays_exactly(name: str) -> None:
    """Two fresh agents with the same seed and node budget play the same game."""
    game = make(name)

    def line(seed: int) -> list[int]:
        agents = [
            KernelAlphaBetaAgent(random.Random(seed), game, max_nodes=3_000),
            KernelAlphaBetaAgent(random.Random(seed + 1), game, max_nodes=3_000),
        ]
        state = game.new_initial_state()
        for _ in range(16):
            if state.is_terminal():
                break
            state = state.apply(agents[state.current_player].choose(state))
        return list(state.history)

    assert line(1) == line(1)


def test_hard_uses_the_kernel_where_there_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    flipflop = make("flipflop")
    assert "compiled alpha-beta" in describe_level(flipflop, "hard")
    # FlipFlop 5x5: the compiled alpha-beta, with endgame tables for few pieces.
    hard = make_level_agent(flipflop, "hard", random.Random(1))
    assert isinstance(hard, EndgameAgent) and isinstance(hard.search, KernelAlphaBetaAgent)
    for name in ("flipflop-3x3", "flipfour"):
        agent = make_level_agent(make(name), "hard", random.Random(1))
        assert isinstance(agent, KernelAlphaBetaAgent), name
    # Rubik's Flip, proved by search: exact where it answers, the compiled alpha-beta else.
    rubiks = make_level_agent(make("rubiks-flip"), "hard", random.Random(1))
    assert isinstance(rubiks, ExactSearchAgent)
    assert isinstance(rubiks.heuristic, KernelAlphaBetaAgent)
    switch = make("flip-switch")  # a chance game: no compiled search
    assert isinstance(make_level_agent(switch, "hard", random.Random(1)), AlphaBetaAgent)
    with pytest.raises(NoKernelSearchError, match="flip-switch has no compiled search"):
        KernelAlphaBetaAgent(random.Random(1), switch, max_nodes=100)
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    assert isinstance(make_level_agent(flipflop, "hard", random.Random(1)), AlphaBetaAgent)
    assert "compiled" not in describe_level(flipflop, "hard")


def test_bad_budgets_are_refused() -> None:
    game = make("flipflop")
    with pytest.raises(ValueError, match="budget"):
        KernelAlphaBetaAgent(random.Random(1), game)
    with pytest.raises(ValueError, match="depth"):
        KernelAlphaBetaAgent(random.Random(1), game, depth=0, max_nodes=10)


def test_rubiks_flip_evaluation_and_late_proofs_agree_with_the_reference() -> None:
    """The ported live-row evaluation equals the reference's (to the thousandth it is
    rounded to); with few empty squares left the compiled search and the reference
    alpha-beta both search to the end and agree on the result and its distance."""
    from flipgames.agents.search import WIN as REFERENCE_WIN
    from flipgames.games.rubiks_flip import search_kernel as rubiks
    from flipgames.games.rubiks_flip.kernel import pack

    game = make("rubiks-flip")
    king = game.kernel().flags[1]  # type: ignore[union-attr]
    for state in random_positions(game, 100, seed=7, max_plies=14):
        first, second, faces = pack(state)
        value = rubiks.evaluate(first, second, faces, king, rubiks._ROW_WEIGHT)
        mover = state.current_player
        assert math.tanh(value / 1000) == pytest.approx(state.evaluate(mover), abs=2e-3)
    checked = 0
    for index, state in enumerate(random_positions(game, 40, seed=8, max_plies=16)):
        if len(state.history) < 12:
            continue
        agent = KernelAlphaBetaAgent(random.Random(index), game, depth=16, max_nodes=2_000_000)
        result = agent.search(state)
        reference = AlphaBetaAgent(random.Random(index), depth=16).search(state)
        if abs(reference.score) >= REFERENCE_WIN - 100:
            assert WIN - abs(result.score) == REFERENCE_WIN - abs(reference.score)
            assert (result.score > 0) == (reference.score > 0)
        else:
            assert result.score == 0 == round(reference.score)
        checked += 1
    assert checked >= 5
