"""The stochastic solver on hand-built graphs (cycles, chance, ties) and on Checkered Flag."""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Hashable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from flipgames import make
from flipgames.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    State,
    repetition_count,
    sample_chance,
)
from flipgames.solvers import cache
from flipgames.solvers.payload import pack_integers
from flipgames.solvers.retrograde import SolverError
from flipgames.solvers.stochastic import (
    VERSION,
    Policy,
    StochasticSolution,
    cache_name,
    cached_solve,
    solve_stochastic,
)

# --- a game given as an explicit graph --------------------------------------------------------

#: node -> (kind, successors): "max" (player 0) and "min" (player 1) list child names, in
#: action id order; "chance" lists (child, probability); "end" gives player 0's return.
Graph = dict[str, tuple[str, Any]]


class GraphGame(Game):
    """A two-player chance game whose positions are the nodes of ``graph``; the third
    occurrence of a node on the path draws."""

    name = "graph"
    title = "Graph"
    has_chance = True
    repetition_draws = True

    def __init__(self, graph: Graph, start: str) -> None:
        super().__init__()
        self.graph, self.start = graph, start

    def new_initial_state(self) -> GraphState:
        return GraphState(self, self.start)

    def rules_summary(self) -> str:
        return "a test graph"


class GraphState(State):
    __slots__ = ("node", "repeated")
    game: GraphGame

    def __init__(
        self, game: GraphGame, node: str, parent: State | None = None, action: int | None = None
    ) -> None:
        super().__init__(game, parent, action)
        self.node = node
        self.repeated = repetition_count(self) >= 3

    @property
    def current_player(self) -> int:
        kind = "end" if self.repeated else self.game.graph[self.node][0]
        return {"max": 0, "min": 1, "chance": CHANCE, "end": TERMINAL}[kind]

    def _legal_actions(self) -> tuple[int, ...]:
        successors = self.game.graph[self.node][1]
        return () if self.is_terminal() else tuple(range(len(successors)))

    def chance_outcomes(self) -> tuple[tuple[int, Fraction], ...]:
        return tuple((i, p) for i, (_, p) in enumerate(self.game.graph[self.node][1]))

    def _apply(self, action: int) -> GraphState:
        kind, successors = self.game.graph[self.node]
        child = successors[action][0] if kind == "chance" else successors[action]
        return GraphState(self.game, child, self, action)

    def action_to_string(self, action: int) -> str:
        return str(action)

    def parse_action(self, text: str) -> int:
        return int(text)

    def returns(self) -> tuple[int, ...]:
        kind, r = self.game.graph[self.node]
        return (r, -r) if kind == "end" and not self.repeated else (0, 0)

    def key(self) -> str:
        return self.node

    def observation(self, player: int | None) -> dict[str, Any]:
        return {"node": self.node}

    def render(self) -> str:
        return self.node


def wdl(win: Fraction | int, draw: Fraction | int, loss: Fraction | int) -> tuple[Fraction, ...]:
    """Expected (win, draw, loss) probabilities as fractions."""
    return Fraction(win), Fraction(draw), Fraction(loss)


ENDS: Graph = {"W": ("end", 1), "D": ("end", 0), "L": ("end", -1)}
HALF = Fraction(1, 2)


def at(game: GraphGame, node: str) -> GraphState:
    return GraphState(game, node)


def expected_values(solution: StochasticSolution, state: State) -> dict[int, Fraction]:
    """Per legal action, its expected value for the player to move."""
    return {a: v.expected for a, v in solution.action_values(state).items()}


def test_chance_and_choices_by_hand() -> None:
    """A (player 0) chooses between a coin C and the draw D. C: heads (1/3) goes to B, where
    player 1 chooses between W and D (min: D, 0); tails (2/3) is W. So C = 1/3 * 0 + 2/3 * 1 =
    2/3 > 0 = D and A = 2/3, with A winning 2/3 of the time and drawing 1/3."""
    graph: Graph = {
        **ENDS,
        "A": ("max", ["C", "D"]),
        "C": ("chance", [("B", Fraction(1, 3)), ("W", Fraction(2, 3))]),
        "B": ("min", ["W", "D"]),
    }
    game = GraphGame(graph, "A")
    solution = solve_stochastic(game)
    start = game.new_initial_state()
    assert solution.positions == 5  # A, C, D, B and W; L is unreachable
    assert solution.value(start).expected == Fraction(2, 3)
    assert expected_values(solution, start) == {0: Fraction(2, 3), 1: 0}
    assert solution.best_actions(start) == [0] == [solution.canonical_action(start)]
    assert solution.probabilities(start) == wdl(Fraction(2, 3), Fraction(1, 3), 0)
    assert solution.value(at(game, "B")).expected == 0  # for player 1, to move there
    assert solution.value(at(game, "C")).expected == Fraction(2, 3)  # chance: player 0's view
    assert solution.value(at(game, "C"), player=1).expected == Fraction(-2, 3)
    assert solution.probabilities(at(game, "B"), player=0) == wdl(0, 1, 0)


def test_progress_inside_a_cycle() -> None:
    """P (player 0) can go to Q or take W; Q (player 0) can go back to P or take W. Both are
    worth 1 and every action keeps that value, but the smallest ids (P->Q, Q->P) would go
    round for ever: the canonical strategy must leave, so player 0 wins with probability 1.
    Best actions may pass through the other position only one way round."""
    game = GraphGame({**ENDS, "P": ("max", ["Q", "W"]), "Q": ("max", ["P", "W"])}, "P")
    solution = solve_stochastic(game)
    for node in "PQ":
        state = at(game, node)
        assert solution.value(state).expected == 1
        assert expected_values(solution, state) == {0: 1, 1: 1}
        assert solution.canonical_action(state) == 1
        assert solution.probabilities(state) == wdl(1, 0, 0)
    best = {node: solution.best_actions(at(game, node)) for node in "PQ"}
    assert sorted(best.values()) == [[0, 1], [1]]


def test_best_actions_make_progress_under_the_repetition_rule() -> None:
    """P (player 0) can take W or visit one of five side positions Q1..Q5, whose only way on
    (besides the draw D) is back to P. Every action is worth 1, yet choosing among them at
    random reaches P a third time, a draw, before taking W about (5/6)^2 = 69% of the time.
    Best actions list only W at P (the Q's are worth 1 only because P is), and P at each Q."""
    sides = [f"Q{i}" for i in range(1, 6)]
    graph: Graph = {**ENDS, "P": ("max", [*sides, "W"])}
    graph.update({q: ("max", ["P", "D"]) for q in sides})
    game = GraphGame(graph, "P")
    solution = solve_stochastic(game)
    start = game.new_initial_state()
    assert set(expected_values(solution, start).values()) == {1}
    assert solution.best_actions(start) == [5] == [solution.canonical_action(start)]
    assert all(solution.best_actions(at(game, q)) == [0] for q in sides)
    for seed in range(20):
        assert_best_actions_progress(solution, start, seed)
    # Once P has occurred twice, going back to it from a side position is the third
    # occurrence: worth the draw, like D.
    second = start.apply(0).apply(0).apply(1)  # P Q1 P Q2
    assert expected_values(solution, second) == {0: 0, 1: 0}


def test_endless_play_is_a_draw() -> None:
    """X (player 0) can go to Y or lose; Y (player 1) can go back to X or lose (player 0
    wins). Neither leaves: both are worth 0 and the canonical play cycles, a sure draw."""
    game = GraphGame({**ENDS, "X": ("max", ["Y", "L"]), "Y": ("min", ["X", "W"])}, "X")
    solution = solve_stochastic(game)
    for node in "XY":
        assert solution.value(at(game, node)).expected == 0
        assert solution.probabilities(at(game, node)) == wdl(0, 1, 0)
    assert expected_values(solution, at(game, "X")) == {0: 0, 1: -1}


def test_thresholds_with_chance_exits() -> None:
    """A cycle S (player 0) -> T (player 1) -> U (player 0) -> S with exits to coins: S may
    take E1 (W 3/4, L 1/4: worth 1/2), T may take E2 (W 1/4, L 3/4: -1/2), U may take E3
    (W 5/8, L 3/8: 1/4) or stay. Player 1 at T takes -1/2 at once rather than let U reach
    S; so T = -1/2 (for player 0), S = max(1/2, T) = 1/2 (by E1), U = max(1/4, S) = 1/2 (via
    S, then E1). Under the canonical strategies U wins 3/4 and loses 1/4 (through E1)."""
    graph: Graph = {
        **ENDS,
        "S": ("max", ["T", "E1"]),
        "T": ("min", ["U", "E2"]),
        "U": ("max", ["S", "E3"]),
        "E1": ("chance", [("W", Fraction(3, 4)), ("L", Fraction(1, 4))]),
        "E2": ("chance", [("W", Fraction(1, 4)), ("L", Fraction(3, 4))]),
        "E3": ("chance", [("W", Fraction(5, 8)), ("L", Fraction(3, 8))]),
    }
    game = GraphGame(graph, "S")
    solution = solve_stochastic(game)
    assert solution.value(at(game, "S")).expected == HALF
    assert solution.value(at(game, "T")).expected == HALF  # for player 1, to move there
    assert solution.value(at(game, "T"), player=0).expected == -HALF
    assert solution.value(at(game, "U")).expected == HALF
    assert solution.canonical_action(at(game, "U")) == 0
    assert solution.probabilities(at(game, "U")) == wdl(Fraction(3, 4), 0, Fraction(1, 4))
    assert_consistent(solution, game.new_initial_state())


def test_player_one_progress_and_a_self_loop() -> None:
    """M (player 1) may stay on M (a self-loop) or move to N; N (player 1) may go back to M or
    take L. Player 1 forces L: both are worth -1 for player 0, and the canonical play from M
    goes M -> N -> L even though staying (action 0) is listed first."""
    game = GraphGame({**ENDS, "M": ("min", ["M", "N"]), "N": ("min", ["M", "L"])}, "M")
    solution = solve_stochastic(game)
    start = game.new_initial_state()
    assert solution.value(start, player=0).expected == -1
    assert solution.canonical_action(start) == 1
    assert solution.probabilities(start) == wdl(1, 0, 0)  # player 1, to move, wins


def test_chance_inside_a_cycle_is_refused() -> None:
    game = GraphGame(
        {**ENDS, "K": ("chance", [("J", HALF), ("W", HALF)]), "J": ("max", ["K", "D"])}, "J"
    )
    with pytest.raises(SolverError, match="graph is unsupported: chance inside a cycle"):
        solve_stochastic(game)


def test_games_it_cannot_solve() -> None:
    with pytest.raises(SolverError, match="flipflop-3x3 is not one"):
        solve_stochastic(make("flipflop-3x3"))
    with pytest.raises(SolverError, match="solves one round; got rounds=3"):
        solve_stochastic(make("flip-switch", rounds=3))
    game = GraphGame({**ENDS, "A": ("max", ["W"]), "Z": ("min", ["L"])}, "A")
    with pytest.raises(SolverError, match="not reachable"):
        solve_stochastic(game).value(at(game, "Z"))
    with pytest.raises(SolverError, match="chance node"):
        solve_stochastic(game).action_values(at(GraphGame({"C": ("chance", [])}, "C"), "C"))


# --- checkered-flag ---------------------------------------------------------------------------


def positions(root: State, policies: tuple[Policy | None, ...] = (None, None)) -> Iterator[State]:
    """Every position reachable from ``root`` (where ``policies[p]`` is given, only by the
    action it chooses for player ``p``), once each, breadth first."""
    seen = {root.key()}
    queue = deque([root])
    while queue:
        state = queue.popleft()
        yield state
        player = state.current_player
        policy = policies[player] if player >= 0 else None
        for action in state.perft_actions() if policy is None else [policy(state)]:
            child = state.apply_perft(action)
            if child.key() not in seen:
                seen.add(child.key())
                queue.append(child)


def assert_consistent(solution: StochasticSolution, root: State) -> None:
    """Every position's value is the best of its children's, chance weighted; terminal values
    are the returns; win + draw + loss = 1 and win - loss = value."""
    for state in positions(root):
        player = state.current_player
        value = solution.value(state, player=0).expected
        if player == TERMINAL:
            assert value == state.returns()[0]
        elif player == CHANCE:
            children = [(state.apply(a), p) for a, p in state.chance_outcomes()]
            assert value == sum(p * solution.value(c, player=0).expected for c, p in children)
        else:
            best = max(expected_values(solution, state).values())
            assert solution.value(state).expected == best
            canonical = solution.canonical_action(state)
            assert canonical in solution.best_actions(state)
        win, draw, loss = solution.probabilities(state, player=0)
        assert win + draw + loss == 1 and min(win, draw, loss) >= 0
        assert win - loss == value


@pytest.mark.parametrize("start", ["first", "spin"])
def test_checkered_flag_short_track_is_consistent(start: str) -> None:
    game = make("checkered-flag", track="short", start=start)
    assert_consistent(solve_stochastic(game), game.new_initial_state())


def test_start_spin_is_fair() -> None:
    """The start spin is symmetric (either player is first with probability 1/2), so under
    optimal play each player wins exactly half the races and none is drawn."""
    game = make("checkered-flag", track="short")
    start = game.new_initial_state()
    assert start.is_chance_node()
    solution = solve_stochastic(game)
    assert solution.value(start).expected == 0
    assert solution.probabilities(start) == wdl(HALF, 0, HALF)
    assert solution.probabilities(start, player=1) == wdl(HALF, 0, HALF)


def test_tiny_track_by_hand(tmp_path: Path) -> None:
    """A 3-space loop, one lap; Spinner A shows 1 or 3, Spinner B always 2; player 0 starts.
    Player 0 must take 1st gear: 3 (1/2) wins at once, 1 (1/2) reaches distance 1. Player 1
    likewise wins with 1/2 or reaches 1. Player 0 at 1 in 1st then shifts to 2nd: B's 2 finishes
    for sure (1st would finish only with the 3). So player 0 wins 1/2 + 1/2 * 1/2 = 3/4."""
    track = tmp_path / "tiny.json"
    track.write_text(json.dumps({"name": "tiny", "length": 3, "crash": [], "no_passing": []}))
    spinners = tmp_path / "spinners.json"
    spinners.write_text(json.dumps({"A": {"1": 1, "3": 1}, "B": {"2": 1}}))
    game = make("checkered-flag", track=str(track), spinners=str(spinners), start="first")
    solution = solve_stochastic(game)
    start = game.new_initial_state()
    assert solution.probabilities(start) == wdl(Fraction(3, 4), 0, Fraction(1, 4))
    assert solution.value(start).expected == HALF
    later = game.state_from_actions(["1", "1", "1", "1"])  # both moved 1 space in 1st gear
    assert [later.action_to_string(a) for a in solution.best_actions(later)] == ["2"]
    assert expected_values(solution, later) == {1: 0, 2: 1}


# --- cache ------------------------------------------------------------------------------------


def test_cache_round_trip_and_corrupt_files(capsys: pytest.CaptureFixture[str]) -> None:
    game = make("checkered-flag", track="short", start="first")
    fresh = cached_solve(game)
    path = cache.cache_path(cache_name(game), VERSION, game)
    assert path.exists()
    again = cached_solve(game)
    assert again.positions == fresh.positions and again.seconds == fresh.seconds
    for state in list(positions(game.new_initial_state()))[::97]:
        assert again.value(state).expected == fresh.value(state).expected
        assert again.probabilities(state) == fresh.probabilities(state)
        if state.current_player >= 0:
            assert again.canonical_action(state) == fresh.canonical_action(state)

    path.write_bytes(b"not gzip at all")  # fails to parse: cache.py reports and rebuilds
    assert cached_solve(game).positions == fresh.positions
    assert "corrupt cache file" in capsys.readouterr().err

    payload = fresh.to_payload()
    payload["value"] = payload["value"][:-8]  # checksummed, but the wrong shape
    cache.store(cache_name(game), VERSION, game, payload)
    rebuilt = cached_solve(game)
    assert "ignoring cached checkered-flag solution" in capsys.readouterr().err
    assert (
        rebuilt.value(game.new_initial_state()).expected
        == fresh.value(game.new_initial_state()).expected
    )
    assert cached_solve(game).positions == fresh.positions  # the rebuilt file is good
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.pop("locator"),
        lambda p: p.update(numerators=pack_integers([1, 0, 2])[:-4]),
        lambda p: p.update(numerators=["1", "2"]),
        lambda p: p.update(denominator="0"),
        lambda p: p.update(numerators=pack_integers([0, 2 * int(p["denominator"])])),
        lambda p: p.update(positions=p["positions"] + 1),
        lambda p: p["locator"].update(keys=p["locator"]["keys"][:100]),
        lambda p: p["locator"].update(keys=p["value"]),
        lambda p: p["locator"].update(kind="mystery"),
        lambda p: p.update(numerators=pack_integers([0])),
        lambda p: p.update(canonical="*"),
        lambda p: p.update(policies=[1, None]),
    ],
)
def test_malformed_payloads_are_refused(damage: Any) -> None:
    game = make("checkered-flag", track="short", start="first")
    payload = json.loads(json.dumps(solve_stochastic(game).to_payload()))
    damage(payload)
    with pytest.raises(SolverError, match="malformed"):
        StochasticSolution.from_payload(game, payload)


def reference_values(root: State) -> dict[Hashable, Fraction]:
    """Player 0's values by value iteration from 0 over every position (an independent
    method): the values of the game cut off after k plies with 0 for an unfinished game. With
    chance outside the cycles, they stop changing once k passes the longest forced sequence,
    and then they are the exact values."""
    states = {state.key(): state for state in positions(root)}
    moves = {
        key: [(state.apply_perft(a).key(), p) for a, p in state.chance_outcomes()]
        if state.is_chance_node()
        else [(state.apply_perft(a).key(), Fraction(1)) for a in state.perft_actions()]
        for key, state in states.items()
    }
    values = {key: Fraction(state.returns()[0]) for key, state in states.items()}
    while True:
        update = dict(values)
        for key, state in states.items():
            children = [(values[child], p) for child, p in moves[key]]
            if state.is_chance_node():
                update[key] = sum((v * p for v, p in children), Fraction(0))
            elif not state.is_terminal():
                pick = max if state.current_player == 0 else min
                update[key] = pick(v for v, _ in children)
        if update == values:
            return values
        values = update


def assert_optimal(solution: StochasticSolution, game: Game, root: State) -> None:
    """Each side's canonical strategy guarantees the value against every reply: with one side
    fixed to it, the other side's best response gets exactly the solved value everywhere."""
    for fixed in (0, 1):
        policies: list[Policy | None] = [None, None]
        policies[fixed] = solution.canonical_action
        reply = solve_stochastic(game, root=root, policies=policies)
        for state in positions(root, tuple(policies)):
            assert reply.value(state, player=0).expected == solution.value(state, player=0).expected


def assert_best_actions_progress(solution: StochasticSolution, root: State, seed: int) -> None:
    """From every position a player is ahead in, both sides choosing at random among their best
    actions (and chance drawing outcomes) finish the game, with the side ahead never worse off
    than the value promises: a win if the value is 1, never a loss if it is positive."""
    rng = random.Random(seed)
    for start in positions(root):
        player = start.current_player
        if player < 0 or solution.value(start).expected <= 0:
            continue
        state = start
        for _ in range(200):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state = state.apply(sample_chance(state, rng))
            else:
                state = state.apply(rng.choice(solution.best_actions(state)))
        assert state.is_terminal()
        assert state.returns()[player] >= (1 if solution.value(start).expected == 1 else 0)


def test_canonical_strategies_are_optimal_on_graphs() -> None:
    graph: Graph = {
        **ENDS,
        "S": ("max", ["T", "E1", "S2"]),
        "S2": ("max", ["S", "T"]),
        "T": ("min", ["U", "E2", "T2"]),
        "T2": ("min", ["S2", "W", "T"]),
        "U": ("max", ["S", "E3", "D"]),
        "E1": ("chance", [("W", Fraction(3, 4)), ("L", Fraction(1, 4))]),
        "E2": ("chance", [("W", Fraction(1, 4)), ("U2", Fraction(3, 4))]),
        "E3": ("chance", [("U2", Fraction(5, 8)), ("L", Fraction(3, 8))]),
        "U2": ("min", ["U3", "W"]),
        "U3": ("max", ["U2", "L"]),
    }
    game = GraphGame(graph, "S")
    solution = solve_stochastic(game)
    assert_consistent(solution, game.new_initial_state())
    assert_optimal(solution, game, game.new_initial_state())
    assert_best_actions_progress(solution, game.new_initial_state(), seed=3)
    reference = reference_values(game.new_initial_state())
    assert all(
        solution.value(at(game, str(node)), player=0).expected == v for node, v in reference.items()
    )


# --- flip-switch ------------------------------------------------------------------------------

#: Player 1 lines up hearts on rank 1, player 2 squares on rank 2; then a switch moves a star
#: off rank 3 before its last tile is flipped, so the stars decide the round.
ENDGAME = "a1 heart b1 heart c1 heart a2 square b2 square c2 square a3 star b3 star a2-a3"


@pytest.mark.slow
@pytest.mark.parametrize(("kernel", "count"), [("fast", 2_732), ("python", 12_100)])
def test_flip_switch_endgame(monkeypatch: pytest.MonkeyPatch, kernel: str, count: int) -> None:
    """Whoever lines up the three stars wins; with one star still face down, chance reveals
    it, and the switches form cycles. The solution is consistent and optimal, and a player who
    can line the stars up in one move is worth a sure win. Keyed by the kernel, positions that
    are images of each other under the board's symmetries and shape relabellings are one
    (and a finished round is keyed by its result alone); by the reference engine, each
    ``State.key()`` is one."""
    monkeypatch.setenv("FLIPGAMES_KERNEL", kernel)
    game = make("flip-switch", rounds=1)
    root = game.state_from_actions(ENDGAME.split())
    solution = solve_stochastic(game, root=root)
    assert solution.positions == count
    assert_consistent(solution, root)
    assert_optimal(solution, game, root)
    threats = 0
    for state in positions(root):
        player = state.current_player
        if player >= 0 and any(
            (after := state.apply(a)).is_terminal() and after.returns()[player] == 1
            for a in state.legal_actions()
        ):
            threats += 1
            assert solution.value(state).expected == 1
            assert solution.probabilities(state) == wdl(1, 0, 0)
    assert threats > 100
    assert_best_actions_progress(solution, root, seed=7)


@pytest.mark.parametrize("kernel", ["fast", "python"])
def test_flip_switch_switching_endgame_matches_value_iteration(
    monkeypatch: pytest.MonkeyPatch, kernel: str
) -> None:
    """Once the last star is up, only switches remain: a deterministic game full of cycles,
    checked position by position against plain value iteration, with the kernel's folded keys
    and with the reference engine's keys."""
    monkeypatch.setenv("FLIPGAMES_KERNEL", kernel)
    game = make("flip-switch", rounds=1)
    root = game.state_from_actions([*ENDGAME.split(), "c3", "star"])
    solution = solve_stochastic(game, root=root)
    reference = reference_values(root)
    assert (len(reference) == solution.positions) == (kernel == "python")
    assert {v for v in reference.values()} == {-1, 0, 1}
    for state in positions(root):
        assert solution.value(state, player=0).expected == reference[state.key()]


def test_flip_switch_values_are_for_the_player_to_move() -> None:
    game = make("flip-switch", rounds=1)
    root = game.state_from_actions(ENDGAME.split())
    solution = solve_stochastic(game, root=root)
    for state in list(positions(root))[::50]:
        if state.current_player == 1:
            assert solution.value(state).expected == -solution.value(state, player=0).expected
            win, draw, loss = solution.probabilities(state)
            assert (loss, draw, win) == solution.probabilities(state, player=0)


def test_a_chance_game_too_large_stops_at_the_budget():
    # The fix options run on the reference walk (no kernel): without a budget a variant whose
    # graph outgrows memory would run until the machine has none left.
    game = make("flip-switch", rounds=1, switch_limit=2)
    with pytest.raises(SolverError, match=r"more than 1,000 positions"):
        solve_stochastic(game, max_positions=1000)
