"""Rubik's Flip ``hard`` (agents.exact): exact values and traps checked against a plain
minimax over the reference engine, and the heuristic fallback where the exact search does
not answer within its budget."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from flipgames import make
from flipgames.agents.base import Agent
from flipgames.agents.exact import MCTS_SAMPLES, ExactSearchAgent
from flipgames.agents.kernel_mcts import KernelMCTSAgent
from flipgames.agents.kernel_search import (
    KernelAlphaBetaAgent,
    NoKernelSearchError,
    kernel_searcher,
)
from flipgames.agents.opponent_models import (
    MCTS_ITERATIONS,
    LureProbe,
    deeper_choices,
    searcher_choices,
)
from flipgames.core.game import Game, State
from flipgames.games.rubiks_flip.rules import RubiksFlipState
from flipgames.kernels.search import Searcher
from flipgames.solvers.alphabeta import prove


def _minimax(state: State, memo: dict[tuple[int, ...], int]) -> int:
    """The value for the player to move, the slow and obvious way (memoised on the boards)."""
    assert isinstance(state, RubiksFlipState)
    key = state.key()
    if key not in memo:
        memo[key] = max(_after(state, action, memo) for action in state.legal_actions())
    return memo[key]


def _after(state: State, action: int, memo: dict[tuple[int, ...], int]) -> int:
    """The value for the player to move in ``state`` of playing ``action``."""
    assert isinstance(state, RubiksFlipState)
    child = state.apply(action)
    assert isinstance(child, RubiksFlipState)
    if child.is_terminal():
        return 0 if child.winner is None else 1 if child.winner == state.to_move else -1
    return -_minimax(child, memo)


def _positions(plies: int, count: int, seed: int) -> list[State]:
    game = make("rubiks-flip")
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = game.new_initial_state()
        for _ in range(plies):
            if state.is_terminal():
                break
            state = state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            found.append(state)
    return found


@pytest.mark.slow
def test_late_positions_keep_their_value_and_set_the_strongest_trap() -> None:
    """Thirteen tiles down every action's value is found; the move keeps the value, and among
    drawing moves it is one with the strongest lure (the higher of the opponent models'
    figures measured), then the searcher's strongest pull, then the most losing replies
    (shares checked by minimax; a lure needs a losing reply)."""
    game = make("rubiks-flip")
    memo: dict[tuple[int, ...], int] = {}
    trapped = 0
    models: set[str] = set()
    for state in _positions(13, 8, seed=5):
        agent = ExactSearchAgent(random.Random(1), game, max_nodes=2_000_000)
        action = agent.choose(state)
        report = agent.last
        value = _minimax(state, memo)
        keeping = [a for a in state.legal_actions() if _after(state, a, memo) == value]
        assert report.exact and report.value == value
        assert sorted(report.keeping) == sorted(keeping)
        assert action in keeping
        if value == 0 and len(keeping) > 1:
            # The models the opponent's moves so far called for (random moves here: mostly
            # the MCTS model alone); the other one is not measured.
            measured = {
                "both": (report.sampled, report.searched),
                "mcts": (report.sampled,),
                "searcher": (report.searched,),
            }[report.models]
            for skipped in (report.sampled, report.searched):
                assert skipped == {} or any(skipped is figures for figures in measured)
            for move in keeping:
                child = state.apply(move)
                replies = [] if child.is_terminal() else list(child.legal_actions())
                losing = sum(_after(child, r, memo) == -1 for r in replies)
                assert report.traps[move] == (losing / len(replies) if replies else 0.0)
                for figure in (report.lures, *measured):
                    assert 0.0 <= figure[move] <= 1.0
                    assert figure[move] == 0.0 or losing > 0
                assert report.lures[move] == max(figures[move] for figures in measured)
            strongest = max(report.lures.values())
            assert report.lures[action] == strongest
            tied = [m for m in keeping if report.lures[m] == strongest]
            if report.searched:
                pull = max(report.searched[m] for m in tied)
                assert report.searched[action] == pull
                tied = [m for m in tied if report.searched[m] == pull]
            assert report.traps[action] == max(report.traps[m] for m in tied)
            models.add(report.models)
            trapped += strongest > 0
    assert trapped > 0  # the positions above include lures to set
    assert "mcts" in models  # random opponents' moves are not a shallow searcher's


def test_a_win_is_taken() -> None:
    game = make("rubiks-flip")
    memo: dict[tuple[int, ...], int] = {}
    won = [s for s in _positions(13, 40, seed=9) if _minimax(s, memo) == 1][:3]
    assert won
    for state in won:
        action = ExactSearchAgent(random.Random(2), game, max_nodes=2_000_000).choose(state)
        assert _after(state, action, memo) == 1


def test_the_opening_falls_back_to_the_heuristic_search() -> None:
    """At the start the exact search runs out of nodes: the compiled alpha-beta plays, and
    the exact search is not tried again at that many tiles or fewer."""
    game = make("rubiks-flip")
    agent = ExactSearchAgent(random.Random(3), game, max_nodes=5_000)
    state = game.new_initial_state()
    assert agent.choose(state) in state.legal_actions()
    assert not agent.last.exact and agent.too_big == 0


def test_budgets_and_games_are_checked() -> None:
    with pytest.raises(ValueError, match="one budget"):
        ExactSearchAgent(random.Random(1), make("rubiks-flip"))
    with pytest.raises(ValueError, match="one budget"):
        ExactSearchAgent(random.Random(1), make("rubiks-flip"), seconds=1, max_nodes=10)
    with pytest.raises(NoKernelSearchError, match="flipflop has no exact search"):
        ExactSearchAgent(random.Random(1), make("flipflop"), max_nodes=10)


OPPONENTS: dict[str, Callable[[random.Random, Game], Agent]] = {
    "one-ply searcher": lambda rng, game: KernelAlphaBetaAgent(rng, game, depth=1, max_nodes=10**6),
    "short MCTS": lambda rng, game: KernelMCTSAgent(rng, game, iterations=300, exploration=2.0),
}


@pytest.mark.slow
@pytest.mark.parametrize("opponent", OPPONENTS)
def test_fallible_opponents_fall_into_the_traps(opponent: str) -> None:
    """From positions nine tiles in that are draws (proved by the compiled search), ``hard``
    (node budgets, reproducible) against the two kinds of fallible opponent its lures model
    (a searcher with a short horizon, an MCTS with random rollouts) never loses and wins."""
    game = make("rubiks-flip")
    starts = [s for s in _positions(9, 12, seed=21) if prove(game, 2**25, state=s).value == 0]
    results = []
    for index, start in enumerate(starts[:8]):
        hard = ExactSearchAgent(random.Random(index), game, max_nodes=1_000_000)
        other = OPPONENTS[opponent](random.Random(index), game)
        seat = start.current_player
        state = start
        while not state.is_terminal():
            agent = hard if state.current_player == seat else other
            state = state.apply(agent.choose(state))
        results.append(state.returns()[seat])
    assert len(results) == 8 and min(results) >= 0  # every draw kept
    assert max(results) > 0  # and a trap sprung


class _Ticks:
    """A clock that advances one second each time it is read: the agent's checks of its
    deadline, not the machine's speed, decide how far the measuring of traps gets."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def _drawn_with_choices() -> State:
    """A drawn position with at least eight drawing actions, after a game whose first
    player (the opponent of the player to move) played the searcher model's choices in only
    about half its moves: the watch does not decide, and both models are measured."""
    game = make("rubiks-flip")
    for seed in range(20):
        state = _line(13, seed, "mixed")
        full = ExactSearchAgent(random.Random(1), game, max_nodes=2_000_000)
        full.choose(state)
        if full.last.models == "both" and full.last.value == 0 and len(full.last.keeping) >= 8:
            return state
    raise AssertionError("no drawn position with eight drawing actions")


@pytest.mark.parametrize("searched", [0, 3])
def test_time_running_out_leaves_the_mcts_figures_where_the_searcher_did_not_reach(
    searched: int,
) -> None:
    """The MCTS model is measured for every drawing action first, then the searcher model. If
    the time runs out after ``searched`` of the second, those actions' lure is the higher of
    their two figures and every other action's its MCTS figure; the chosen action is the
    strongest lure of all."""
    game = make("rubiks-flip")
    state = _drawn_with_choices()
    full = ExactSearchAgent(random.Random(1), game, max_nodes=2_000_000)
    full.choose(state)
    keeping = full.last.keeping
    # The deadline counts from the move's start; the clock is read four times more before the
    # trap phase (the exact search's one slice: its deadline check, start and end; then the
    # traps' node budget), then once per action measured (MCTS model, then searcher model).
    # Traps may use 0.9 of the move's time.
    seconds = (4 + len(keeping) + searched + 0.5) / 0.9
    agent = ExactSearchAgent(random.Random(1), game, seconds=seconds, clock=_Ticks())
    action = agent.choose(state)
    report = agent.last
    assert report.exact and sorted(report.keeping) == sorted(keeping)
    assert sorted(report.sampled) == sorted(report.lures) == sorted(keeping)
    assert len(report.searched) == searched
    for move in keeping:
        if move in report.searched:
            assert report.lures[move] == max(report.sampled[move], report.searched[move])
        else:
            assert report.lures[move] == report.sampled[move]
    assert report.lures[action] == max(report.lures.values())


def _line(plies: int, seed: int, kind: str) -> State:
    """A game of ``plies`` plies in which every move is one of the searcher model's first
    choices (``kind`` "searcher"), a random action ("random"), or, for "mixed", the first
    player's moves alternate between the two (searcher first) and the second player's are
    the searcher's."""
    game = make("rubiks-flip")
    rng = random.Random(seed)
    state = game.new_initial_state()
    for ply in range(plies):
        searches = kind == "searcher" or (kind == "mixed" and ply % 4 != 2)
        if searches:
            searcher = kernel_searcher(game)
            assert searcher is not None
            action = rng.choice(searcher_choices(searcher, state, rng))
        else:
            action = rng.choice(state.legal_actions())
        state = state.apply(action)
    assert not state.is_terminal() and state.current_player == 1
    return state


@pytest.mark.parametrize("seed", [1, 2])
def test_an_opponent_that_plays_like_a_shallow_searcher_gets_the_searchers_traps_alone(
    seed: int,
) -> None:
    """Opponent moves that are all among the searcher model's first choices mark it a shallow
    searcher: the traps are then measured with that model alone (no MCTS figures), and the
    move is the strongest of them."""
    game = make("rubiks-flip")
    state = _line(13, seed, "searcher")
    agent = ExactSearchAgent(random.Random(1), game, max_nodes=2_000_000)
    action = agent.choose(state)
    report = agent.last
    assert report.models == "searcher"
    assert len([agreed for agreed in agent.watched.values() if agreed is not None]) >= 3
    assert all(agreed is not False for agreed in agent.watched.values())
    assert report.exact and report.value == 0 and len(report.keeping) > 1
    assert report.sampled == {}
    assert report.lures == report.searched and sorted(report.lures) == sorted(report.keeping)
    assert report.lures[action] == max(report.lures.values())


@pytest.mark.parametrize("seed", [1, 2])
def test_an_opponent_that_plays_unlike_a_shallow_searcher_gets_the_mcts_traps_alone(
    seed: int,
) -> None:
    """Opponent moves that are mostly not the searcher model's first choices (here random
    ones) mark it another kind of player: the traps are then measured with the MCTS model
    alone, and the move is the strongest of them."""
    game = make("rubiks-flip")
    state = _line(13, seed, "random")
    agent = ExactSearchAgent(random.Random(1), game, max_nodes=2_000_000)
    action = agent.choose(state)
    report = agent.last
    assert report.models == "mcts"
    assert sum(1 for agreed in agent.watched.values() if agreed is False) >= 3
    assert report.exact and report.value == 0 and len(report.keeping) > 1
    assert report.searched == {}
    assert report.lures == report.sampled and sorted(report.lures) == sorted(report.keeping)
    assert report.lures[action] == max(report.lures.values())


def test_the_mcts_figure_is_the_mean_of_several_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    """With time left, every drawing action's MCTS figure is the mean of MCTS_SAMPLES searches.
    With a stand-in MCTS model under which one action looks best in its first search only and
    another is steadily good, the steady one is chosen."""
    game = make("rubiks-flip")
    state = _line(13, 1, "random")
    first = ExactSearchAgent(random.Random(1), game, max_nodes=2_000_000)
    first.choose(state)
    lucky, steady = [a for a in first.last.keeping if not state.apply(a).is_terminal()][:2]
    searches: dict[int, int] = {}

    def stand_in(probe: LureProbe, iterations: int = MCTS_ITERATIONS) -> float:
        action = probe.child.history[-1]
        searches[action] = searches.get(action, 0) + 1
        if action == lucky:
            return 0.9 if searches[action] == 1 else 0.0
        return 0.3 if action == steady else 0.0

    monkeypatch.setattr(LureProbe, "sampled", stand_in)
    agent = ExactSearchAgent(random.Random(1), game, max_nodes=2_000_000)
    assert agent.choose(state) == steady
    report = agent.last
    assert report.models == "mcts"
    assert set(searches.values()) == {MCTS_SAMPLES}
    assert report.sampled[lucky] == pytest.approx(0.9 / MCTS_SAMPLES)
    assert report.sampled[steady] == pytest.approx(0.3)


def test_the_searcher_figure_checks_more_of_the_searchers_choices_with_time_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With time left, more of the searcher model's tied first choices are checked, round
    after round, until all are. With a stand-in searcher that ranks every reply first (8-20
    here, against 4 checked at first), the searcher figure of every drawing action ends as the
    share of its replies that lose, which the agent also counts exactly (``traps``)."""
    import flipgames.agents.opponent_models as models

    def stand_in(searcher: object, state: State, rng: random.Random) -> list[int]:
        return list(state.legal_actions())

    monkeypatch.setattr(models, "shallow_choices", stand_in)
    monkeypatch.setattr(models, "deeper_choices", lambda *args: None)
    game = make("rubiks-flip")
    state = _line(13, 1, "searcher")
    agent = ExactSearchAgent(random.Random(1), game, max_nodes=2_000_000)
    agent.choose(state)
    report = agent.last
    live = [a for a in report.keeping if not state.apply(a).is_terminal()]
    assert len(live) > 1
    assert any(len(state.apply(a).legal_actions()) > models.SEARCHER_CHECKED for a in live)
    for action in live:
        assert report.searched[action] == pytest.approx(report.traps[action])
        assert report.lures[action] == max(report.sampled.get(action, 0.0), report.searched[action])


def _probe_with_losing_replies() -> tuple[LureProbe, list[int], list[int]]:
    """A probe of a drawing action whose replies include losing ones and others, with the
    losing replies and the others."""
    game = make("rubiks-flip")
    state = _line(13, 1, "searcher")
    agent = ExactSearchAgent(random.Random(1), game, max_nodes=2_000_000)
    agent.choose(state)
    for action in agent.last.keeping:
        child = state.apply(action)
        if child.is_terminal():
            continue
        probe = LureProbe(agent, child, agent.kernel.position(child))
        losing = [r for r in probe.replies if probe.loses(r)]
        other = [r for r in probe.replies if r not in losing]
        if losing and other:
            return probe, losing, other
    raise AssertionError("no drawing action with losing and other replies")


def test_the_searcher_figure_weighs_the_last_depth_by_the_chance_it_finishes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The searcher model plays from its shallower depth unless it finishes the last one,
    which it does with a chance set by that search's nodes: with stand-in searches whose
    shallower depth chooses losing replies only and whose last depth, finished with a
    chance of 1/4, chooses none, the figure is 3/4. The last depth is searched only once a
    losing shallower choice is found: with only other replies chosen it is not searched."""
    import flipgames.agents.opponent_models as models

    probe, losing, other = _probe_with_losing_replies()
    deeper_calls: list[int] = []

    def deeper(*args: object) -> tuple[float, list[int]]:
        deeper_calls.append(1)
        return 0.25, other

    monkeypatch.setattr(models, "shallow_choices", lambda *args: losing)
    monkeypatch.setattr(models, "deeper_choices", deeper)
    while not probe.searched_exactly:
        figure = probe.searched()
    assert figure == pytest.approx(0.75)
    assert deeper_calls == [1]

    fresh = LureProbe(probe.agent, probe.child, probe.agent.kernel.position(probe.child))
    monkeypatch.setattr(models, "shallow_choices", lambda *args: other)
    while not fresh.searched_exactly:
        figure = fresh.searched()
    assert figure == 0.0
    assert deeper_calls == [1]


def test_a_forgetting_searcher_searches_as_a_new_one() -> None:
    """The searcher model clears its searcher before each search, as an opponent's own
    search starts empty: after ``forget`` a search visits the same nodes and scores the same
    as a new searcher's, whatever was searched before (with the table kept, searching a
    position again is cheaper)."""
    from flipgames.kernels.search import iterative_deepening

    game = make("rubiks-flip")
    reused = kernel_searcher(game, 16)
    assert reused is not None

    def search(searcher: Searcher, state: State) -> tuple[int, dict[int, int]]:
        result = iterative_deepening(searcher, state, random.Random(0), 3, depth_step=2)
        return result.nodes, result.scores

    compared = 0
    for state in _positions(9, 6, seed=8):
        new = kernel_searcher(game, 16)
        assert new is not None
        first = search(new, state)
        if first[0] < 1000:
            continue  # a result proved at once: nothing for a table to save
        assert search(new, state)[0] < first[0]  # the kept table makes searching again cheaper
        reused.forget()
        assert search(reused, state) == first
        compared += 1
    assert compared >= 3


def test_near_the_end_the_searcher_model_sees_the_loss() -> None:
    """Twelve tiles down, the searcher model's last depth reaches the end of the game: it
    surely finishes (or a shallower depth has proved the result already), and the model
    never chooses a reply worse than the best one (checked by minimax)."""
    game = make("rubiks-flip")
    searcher = kernel_searcher(game, 16)
    assert searcher is not None
    memo: dict[tuple[int, ...], int] = {}
    for state in _positions(12, 4, seed=9):
        deeper = deeper_choices(searcher, state, random.Random(0))
        assert deeper is None or deeper[0] == 1.0
        best = _minimax(state, memo)
        choices = searcher_choices(searcher, state, random.Random(0))
        assert all(_after(state, a, memo) == best for a in choices)


class _NodeClock:
    """A clock that runs only while the exact search searches: its nodes at a rate that
    alternates between ``rates`` from one search call to the next (a real core's rate varies
    between positions by about a third; these vary by a factor of two)."""

    def __init__(self, rates: tuple[float, ...]) -> None:
        self.now = 0.0
        self.rates = rates
        self.calls = 0
        #: When each search call ended, and how many were cut short by their node limit.
        self.ends: list[float] = []
        self.cut = 0

    def __call__(self) -> float:
        return self.now

    def timed(self, agent: ExactSearchAgent) -> None:
        """Make ``agent``'s exact searches advance this clock."""
        kernel, stats = agent.kernel, agent.stats
        search = kernel.search

        def timed_search(*args: object) -> int:
            before = int(stats[0])
            value = search(*args)  # type: ignore[arg-type]
            self.now += (int(stats[0]) - before) / self.rates[self.calls % len(self.rates)]
            self.calls += 1
            self.ends.append(self.now)
            self.cut += int(stats[2])
            return value

        kernel.search = timed_search  # type: ignore[method-assign,assignment]


def _on_node_clock(seconds: float) -> tuple[ExactSearchAgent, _NodeClock]:
    game = make("rubiks-flip")
    clock = _NodeClock((700_000.0, 1_400_000.0))
    agent = ExactSearchAgent(random.Random(1), game, seconds=seconds, clock=clock)
    clock.timed(agent)
    # The heuristic search (which does not advance the node clock) gets a clock that runs.
    agent.heuristic.clock = _Ticks()
    return agent, clock


def test_on_the_clock_the_exact_search_stops_within_its_share_of_the_move() -> None:
    """In the opening the exact search does not answer: searched in slices, each planned at
    the rate the last one ran at, it ends by its share of the move (0.8) plus at most one
    slice's overrun (a tenth of the move at a rate half the planned one), although the rate
    changes twofold between calls. (Planned at the first rate for the whole share, it would
    have run to 1.14 s.)"""
    agent, clock = _on_node_clock(seconds=1.0)
    state = make("rubiks-flip").new_initial_state()
    assert agent.choose(state) in state.legal_actions()
    assert not agent.last.exact
    assert clock.cut == len(clock.ends) >= 6  # slices, each cut short in its first call
    assert 0.7 <= clock.ends[-1] <= 0.9


@pytest.mark.slow
def test_a_position_solved_in_several_slices_gets_the_values_of_one_search() -> None:
    """A ninth-tile position takes hundreds of thousands of nodes: on a clock whose slices
    buy about a hundred thousand, it is solved across several, with the same value and
    value-keeping actions as one search with nodes to spare."""
    (state,) = _positions(9, 1, seed=5)
    whole = ExactSearchAgent(random.Random(1), state.game, max_nodes=20_000_000)
    whole.choose(state)
    agent, clock = _on_node_clock(seconds=1.5)
    agent.choose(state)
    assert whole.last.exact and agent.last.exact
    assert agent.last.value == whole.last.value
    assert sorted(agent.last.keeping) == sorted(whole.last.keeping)
    assert clock.cut >= 2  # so at least one slice of the values (traps end at the first)
    assert clock.ends[-1] <= 1.5 * 0.9 + 0.15  # the traps' share, then one probe's overrun
