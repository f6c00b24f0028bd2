"""``hard``'s move budget: CPU seconds of the thinking thread with a wall-clock cap
(agents/budget.py), what the levels build, and that the cap ends a search that gets no CPU.
The clocks here are the tests' own, so nothing is timed."""

from __future__ import annotations

import random

import pytest

from flipgames import make
from flipgames.agents.budget import MoveClock, timing, wall_cap
from flipgames.agents.endgame import EndgameAgent
from flipgames.agents.exact import WATCH_NEW, ExactSearchAgent
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.agents.levels import Budget, make_level_agent
from flipgames.agents.search import AlphaBetaAgent
from flipgames.core.manifest import HARD_SECONDS


class Ticks:
    """A clock that reads ``step`` more at every reading."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_clock_reads_cpu_seconds_or_the_scaled_wall_whichever_is_more() -> None:
    cpu, wall = [10.0], [100.0]
    clock = MoveClock(0.9, cpu=lambda: cpu[0], wall=lambda: wall[0])
    with timing(clock):
        assert clock() == 0
        cpu[0], wall[0] = 10.5, 100.6  # a quiet core: CPU time counts
        assert clock() == pytest.approx(0.5)
        wall[0] = 100 + wall_cap(0.9)  # a starved process: the cap spends the budget
        assert clock() == pytest.approx(0.9)
        with timing(clock):  # a search inside the move does not start it again
            assert clock() == pytest.approx(0.9)
    with timing(clock):  # the next move starts from zero
        assert clock() == 0
    assert wall_cap(0.9) == 3.2 and wall_cap(2) == 6.5
    with pytest.raises(ValueError, match="positive number of seconds"):
        MoveClock(0)


def test_hard_counts_cpu_seconds_everywhere() -> None:
    """Every game's hard thinks by a MoveClock of HARD_SECONDS (the exact search and its
    heuristic share one; the endgame player's search has one)."""
    rng = random.Random(1)
    clocks = []
    for name in ("flipflop", "flipflop-3x3", "flipfour", "rubiks-flip", "flip-switch"):
        agent = make_level_agent(make(name), "hard", rng)
        if isinstance(agent, EndgameAgent):
            clocks.append(agent.search.clock)
        elif isinstance(agent, ExactSearchAgent):
            assert agent.heuristic.clock is agent.clock
            clocks.append(agent.clock)
        else:
            assert isinstance(agent, KernelAlphaBetaAgent | AlphaBetaAgent), name
            clocks.append(agent.clock)
    assert all(isinstance(c, MoveClock) and c.seconds == HARD_SECONDS for c in clocks)


@pytest.mark.parametrize("name", ["flipfour", "rubiks-flip", "flip-switch"])
def test_the_wall_cap_ends_a_move_that_gets_no_cpu(name: str) -> None:
    """A process that gets no CPU at all (its CPU clock stands still) still moves: the wall
    clock, a second a reading here, spends the budget after a few readings."""
    game = make(name)
    state = game.new_initial_state()
    wall = Ticks(1.0)
    clock = MoveClock(HARD_SECONDS, cpu=lambda: 0.0, wall=wall)
    if name == "rubiks-flip":
        agent: KernelAlphaBetaAgent | ExactSearchAgent | AlphaBetaAgent = ExactSearchAgent(
            random.Random(1), game, HARD_SECONDS, clock=clock
        )
    elif name == "flipfour":
        agent = KernelAlphaBetaAgent(random.Random(1), game, seconds=HARD_SECONDS, clock=clock)
    else:
        agent = AlphaBetaAgent(random.Random(1), depth=8, seconds=HARD_SECONDS, clock=clock)
    assert agent.choose(state) in state.legal_actions()
    # Every reading is a second: the move ended a few readings after the cap's 3.2 s.
    assert wall.now <= 12, wall.now


def test_a_budget_replaces_the_levels_own_and_keeps_its_algorithm() -> None:
    game = make("flipfour")
    nodes = make_level_agent(game, "hard", random.Random(1), budget=Budget(nodes=500))
    assert isinstance(nodes, KernelAlphaBetaAgent)
    assert nodes.max_nodes == 500 and nodes.seconds is None
    timed = make_level_agent(game, "hard", random.Random(1), budget=Budget(seconds=0.2))
    assert isinstance(timed, KernelAlphaBetaAgent) and timed.seconds == 0.2
    assert not isinstance(timed.clock, MoveClock)  # a controller's movetime: the wall clock
    with pytest.raises(ValueError, match="seconds or nodes"):
        Budget()
    with pytest.raises(ValueError, match="seconds or nodes"):
        Budget(seconds=1, nodes=1)


def test_a_fresh_exact_agent_on_the_clock_compares_few_opponent_moves() -> None:
    """Rubik's Flip's hard compares each opponent move with its searcher model (about 40 ms
    each); a fresh agent (one a move, as a web AI worker builds) would redo the whole game's
    every move. On the clock a move compares at most WATCH_NEW anew (the latest first); on a
    node budget it compares them all."""
    game = make("rubiks-flip")
    state, rng = game.new_initial_state(), random.Random(4)
    for _ in range(11):
        state = state.apply(rng.choice(state.legal_actions()))
    untimed = ExactSearchAgent(random.Random(1), game, max_nodes=200_000)
    untimed._watch(state)
    assert len(untimed.watched) > WATCH_NEW
    timed = ExactSearchAgent(random.Random(1), game, HARD_SECONDS)
    assert timed.choose(state) in state.legal_actions()
    assert len(timed.watched) == WATCH_NEW
    latest = sorted(untimed.watched, key=len)[-WATCH_NEW:]
    assert sorted(timed.watched, key=len) == latest
