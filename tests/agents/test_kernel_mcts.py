"""The compiled MCTS (``KernelMCTSAgent``): its trees hold exactly the reference engine's legal
actions and results, it picks legal actions, takes a win in one and avoids a loss in one, is
reproducible with a seeded generator, its rollouts agree in distribution with reference random
games, and it agrees with the reference MCTS and the exact solution on small positions."""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import pytest

from flipgames import make
from flipgames.agents.kernel_mcts import KernelMCTSAgent, NoKernelMCTSError, has_kernel_mcts
from flipgames.agents.mcts import MCTSAgent
from flipgames.core.game import Game, State, random_action
from flipgames.core.kernel import DRAWN, FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.games.flip_switch.rules import FlipSwitchState
from flipgames.solvers.retrograde import solve

pytestmark = pytest.mark.skipif(
    not has_kernel_mcts(make("flipflop")), reason="kernels switched off (FLIPGAMES_KERNEL)"
)

#: The games with a compiled MCTS; the deterministic ones first.
DETERMINISTIC = ("flipflop", "flipflop-3x3", "flipfour", "rubiks-flip")
GAMES = (*DETERMINISTIC, "checkered-flag", "flip-switch")
#: Random positions are taken up to this many plies into a game (long enough for FlipFlop's
#: and FlipFour's repetitions to matter).
DEPTHS = {
    "flipflop": 120,
    "flipflop-3x3": 20,
    "flipfour": 150,
    "rubiks-flip": 15,
    "checkered-flag": 60,
    # Three rounds (the default match) of about 20 to 150 plies each.
    "flip-switch": 300,
}


def positions(game: Game, seed: int) -> Iterator[State]:
    """Positions where a player is to move, after a random number of uniformly random plies
    (chance outcomes with their probabilities), without end."""
    rng = random.Random(seed)
    while True:
        state = game.new_initial_state()
        for _ in range(rng.randrange(DEPTHS[game.name])):
            if state.is_terminal():
                break
            state = state.apply(random_action(state, rng))
        if not state.is_terminal() and not state.is_chance_node():
            yield state


def random_positions(game: Game, count: int, seed: int) -> list[State]:
    return list(islice(positions(game, seed), count))


def check_tree(agent: KernelMCTSAgent, root: State) -> tuple[int, int]:
    """Walk the last search's tree with the reference engine: every node's status, side to
    move, legal actions and visit counts are right. Returns the nodes checked and how many
    were drawn (by repetition: the games tested have no other draw)."""
    tree = agent.kernel_search.tree
    expected_status = {1: FIRST_WINS, -1: SECOND_WINS, 0: DRAWN}
    stack: list[tuple[int, State]] = [(0, root)]
    checked = drawn = 0
    while stack:
        node, state = stack.pop()
        checked += 1
        status = int(tree.status[node])
        if state.is_terminal():
            assert status == expected_status[int(state.returns()[0])]
            drawn += status == DRAWN
            continue
        assert status == ONGOING and int(tree.mover[node]) == state.current_player
        start, count, tried = (int(tree.first[node]), int(tree.count[node]), int(tree.tried[node]))
        assert sorted(tree.edge_action[start : start + count].tolist()) == sorted(
            state.legal_actions()
        )
        # A chance node lists every outcome; those not drawn yet have no child (-1).
        edges = [e for e in range(start, start + tried) if tree.edge_child[e] >= 0]
        if not state.is_chance_node():
            assert len(edges) == tried
        # A node is visited once when it is made (its rollout), then once per child visit.
        below = sum(int(tree.visits[tree.edge_child[e]]) for e in edges)
        assert int(tree.visits[node]) == below + (node != 0)
        for e in edges:
            stack.append((int(tree.edge_child[e]), state.apply(int(tree.edge_action[e]))))
    return checked, drawn


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_trees_hold_the_reference_rules_and_choices_are_legal(name: str) -> None:
    """On 1,000 random positions per game: the chosen action is legal and every root action
    gets searched; on the first 150, every node of the tree agrees with the reference engine
    (legal actions, repetition draws, wins, the side to move) and the visits add up."""
    game = make(name)
    nodes = 0
    for index, state in enumerate(random_positions(game, 1000, seed=11)):
        legal = state.legal_actions()
        iterations = max(2 * len(legal), 30) if index < 150 else 12
        agent = KernelMCTSAgent(random.Random(index), game, iterations=iterations)
        stats = agent.search(state)
        assert stats.best() in legal
        assert sum(v for v, _ in stats.actions.values()) == iterations
        if index < 150:
            assert sorted(stats.actions) == sorted(legal)
            nodes += check_tree(agent, state)[0]
    assert nodes > 150 * 10


#: Iterations to see every reply to every action (FlipFour: about 50 x 50) a few times over.
AVOID_BUDGET = {"flipflop": 10_000, "flipflop-3x3": 2000, "flipfour": 5000, "rubiks-flip": 5000}


@pytest.mark.parametrize("name", ["flipflop", "rubiks-flip"])
def test_a_tree_that_outgrows_its_arrays_stays_whole(name: str) -> None:
    """3,000 iterations need more than the first arrays' 1,024 nodes (and, in Rubik's Flip,
    16,384 edges): after the doubling every node still agrees with the reference engine."""
    game = make(name)
    state = random_positions(game, 1, seed=4)[0]
    agent = KernelMCTSAgent(random.Random(2), game, iterations=3000)
    agent.search(state)
    assert len(agent.kernel_search.tree.visits) > 1024
    assert check_tree(agent, state)[0] > 1024


#: A FlipFour line that comes back to where it started (each piece flips twice on the way
#: round): after ``R@a1 R@e5`` and this once, the next time round ends in a third occurrence.
FLIPFOUR_CYCLE = ["a1-a3", "e5-e1", "a3-c1", "e1-d2", "c1-c3", "d2-b2", "c3-a1", "b2-e5"]


def test_repetition_draws_in_flipfour_trees_follow_the_reference() -> None:
    """From every point of the second time round, the tree (deep enough to reach the third
    occurrence) agrees with the reference engine node by node, draws included."""
    game = make("flipfour")
    line = ["R@a1", "R@e5", *FLIPFOUR_CYCLE]
    draws = []
    for k in range(4, len(FLIPFOUR_CYCLE)):
        root = game.state_from_actions(line + FLIPFOUR_CYCLE[:k])
        agent = KernelMCTSAgent(random.Random(k), game, iterations=3000)
        agent.search(root)
        draws.append(check_tree(agent, root)[1])
    # The third occurrence is two plies below the root at k = 6, one ply at k = 7.
    assert draws[-2] >= 1 and draws[-1] >= 1


def test_repetition_draws_in_flipflop_trees_follow_the_reference() -> None:
    """FlipFlop 3x3 positions (the code is the 5x5's) reached by wandering without captures,
    where an action makes a third occurrence: every tree node agrees with the reference."""
    game = make("flipflop-3x3")
    rng = random.Random(1)
    found = 0
    for _ in range(300):
        state = game.new_initial_state()
        for _ in range(300):
            actions = state.legal_actions()
            quiet = [a for a in actions if not state.apply(a).is_terminal()]
            state = state.apply(rng.choice(quiet or actions))
            if state.is_terminal():
                break
            if any(
                (after := state.apply(a)).is_terminal() and after.returns()[0] == 0
                for a in state.legal_actions()
            ):
                agent = KernelMCTSAgent(random.Random(found), game, iterations=200)
                agent.search(state)
                assert check_tree(agent, state)[1] > 0
                found += 1
                break
        if found == 10:
            break
    assert found == 10


def wins_at_once(state: State) -> set[int]:
    mover = state.current_player
    return {
        a
        for a in state.legal_actions()
        if (after := state.apply(a)).is_terminal() and after.returns()[mover] > 0
    }


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_takes_a_win_in_one(name: str) -> None:
    game = make(name)
    found = 0
    for index, state in enumerate(islice(positions(game, seed=5), 3000)):
        wins = wins_at_once(state)
        if not wins or len(wins) == len(state.legal_actions()):
            continue
        agent = KernelMCTSAgent(random.Random(index), game, iterations=3000)
        assert agent.choose(state) in wins, state
        found += 1
        if found == 10:
            break
    assert found == 10


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_avoids_a_loss_in_one(name: str) -> None:
    """Where the mover cannot win at once and some actions (not all) let the opponent win at
    once, it plays one of the others."""
    game = make(name)
    found = 0
    for index, state in enumerate(islice(positions(game, seed=6), 3000)):
        if wins_at_once(state):
            continue
        safe = {
            a
            for a in state.legal_actions()
            if (after := state.apply(a)).is_terminal() or not wins_at_once(after)
        }
        if not safe or len(safe) == len(state.legal_actions()):
            continue
        agent = KernelMCTSAgent(random.Random(index), game, iterations=AVOID_BUDGET[name])
        assert agent.choose(state) in safe, state
        found += 1
        if found == 6:
            break
    assert found == 6


@pytest.mark.parametrize("name", GAMES)
def test_a_seeded_search_is_reproducible(name: str) -> None:
    game = make(name)
    state = random_positions(game, 1, seed=3)[0]

    def search(seed: int) -> dict[int, tuple[int, float]]:
        return KernelMCTSAgent(random.Random(seed), game, iterations=2000).search(state).actions

    assert search(7) == search(7)
    assert search(7) != search(8)


def reference_rollout(state: State, rng: random.Random, limit: int) -> float:
    """The first player's return of one reference MCTS rollout (``MCTSAgent._rollout``)."""
    for _ in range(limit):
        if state.is_terminal():
            break
        state = state.apply(random_action(state, rng))
    return float(state.returns()[0]) if state.is_terminal() else state.evaluate(0)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("limit", [200, 6])
def test_rollouts_agree_with_reference_random_games(name: str, limit: int) -> None:
    """From the start (where a player moves first) and a mid-game position: the mean
    first-player return of kernel rollouts is within 0.15 of the reference's (fixed seeds, so
    it cannot flake; the standard error of the difference is under 0.04), and so are the
    shares of wins either way. A 6-ply limit ends most rollouts in the ported evaluation."""
    game = make(name)
    search = KernelMCTSAgent(random.Random(0), game).kernel_search
    references = 600 if name == "flipfour" and limit == 200 else 1500
    start = game.new_initial_state()
    states = random_positions(game, 1, seed=9)
    for state in ([] if start.is_chance_node() else [start]) + states:
        kernel = search.rollouts(state, 6000, random.Random(1), limit).tolist()
        rng = random.Random(2)
        reference = [reference_rollout(state, rng, limit) for _ in range(references)]
        assert all(-1.0 <= r <= 1.0 for r in kernel)
        assert abs(statistics.fmean(kernel) - statistics.fmean(reference)) < 0.15
        for outcome in (1.0, -1.0):
            share = kernel.count(outcome) / len(kernel)
            assert abs(share - reference.count(outcome) / len(reference)) < 0.1


def test_agrees_with_the_reference_mcts_and_the_solution_on_small_positions() -> None:
    """On FlipFlop 3x3 positions a few plies from a forced win, both MCTS (reference and
    kernel, same budget) choose a winning action, with a clearly positive mean for it."""
    game = make("flipflop-3x3")
    solution = solve(game)
    checked = 0
    for index, state in enumerate(islice(positions(game, seed=8), 2000)):
        value = solution.value(state)
        winning = {a for a, v in solution.action_values(state).items() if v.outcome == "win"}
        if value.outcome != "win" or (value.remoteness or 0) > 5:
            continue
        if len(winning) == len(state.legal_actions()):
            continue
        kernel = KernelMCTSAgent(random.Random(index), game, iterations=5000)
        reference = MCTSAgent(random.Random(index), iterations=5000)
        kernel_values = kernel.action_values(state)
        reference_values = reference.action_values(state)
        for values in (kernel_values, reference_values):
            best = max(values.items(), key=lambda item: (item[1][0], -item[0]))
            assert best[0] in winning and best[1][1] > 0.5
        checked += 1
        if checked == 10:
            break
    assert checked == 10


@pytest.mark.parametrize("spinners", ["default", "lopsided"])
def test_chance_nodes_follow_the_reference_mcts(spinners: str, tmp_path: Path) -> None:
    """Checkered Flag, where every turn is a gear choice then a spin: over many positions the
    mean value of each searched action agrees with the reference MCTS's within 0.15 when both
    give it many visits (same budget; fixed seeds). The lopsided spinners (mostly short moves
    on A, mostly 6 on B) make an outcome drawn with the wrong odds show."""
    if spinners == "lopsided":
        path = tmp_path / "lopsided.json"
        faces = {"name": "lopsided", "A": {"1": 6, "3": 1}, "B": {"1": 1, "6": 8}}
        path.write_text(json.dumps(faces))
        spinners = str(path)
    game = make("checkered-flag", spinners=spinners)
    compared = spins = 0
    for index, state in enumerate(random_positions(game, 12, seed=10)):
        agent = KernelMCTSAgent(random.Random(index), game, iterations=4000)
        kernel = agent.action_values(state)
        spins += check_spins(agent, state)
        reference = MCTSAgent(random.Random(index), iterations=4000).action_values(state)
        assert sorted(kernel) == sorted(reference) == sorted(state.legal_actions())
        for action, (visits, mean) in kernel.items():
            if visits >= 500 and reference[action][0] >= 500:
                assert abs(mean - reference[action][1]) < 0.15
                compared += 1
    assert compared >= 12 and spins >= 12


def check_spins(agent: KernelMCTSAgent, root: State) -> int:
    """At every chance node of the last search's tree passed at least 1,000 times, each
    outcome's share of the passes is within 0.05 of its probability (the standard error is at
    most 0.016). Returns how many chance nodes were checked."""
    tree = agent.kernel_search.tree
    stack: list[tuple[int, State]] = [(0, root)]
    checked = 0
    while stack:
        node, state = stack.pop()
        if state.is_terminal() or int(tree.visits[node]) < 1000:
            continue
        start, tried = int(tree.first[node]), int(tree.tried[node])
        edges = [e for e in range(start, start + tried) if tree.edge_child[e] >= 0]
        if state.is_chance_node():
            probability = dict(state.chance_outcomes())
            passes = int(tree.visits[node]) - 1  # its first visit made it
            for e in edges:
                share = int(tree.visits[tree.edge_child[e]]) / passes
                assert abs(share - float(probability[int(tree.edge_action[e])])) < 0.05
            checked += 1
        for e in edges:
            stack.append((int(tree.edge_child[e]), state.apply(int(tree.edge_action[e]))))
    return checked


def test_games_without_a_compiled_mcts_refuse_clearly() -> None:
    # Flip Switch's candidate fixes and larger boards have no kernel, so no compiled MCTS.
    for game in (
        make("flip-switch", must_flip="yes"),
        make("flip-switch", size=4, shapes=4, copies=4),
    ):
        assert not has_kernel_mcts(game)
        with pytest.raises(NoKernelMCTSError, match="flip-switch has no compiled MCTS"):
            KernelMCTSAgent(random.Random(1), game)


def test_budgets_are_checked() -> None:
    game = make("flipflop-3x3")
    for kwargs, message in [
        ({"iterations": None}, "needs a budget"),
        ({"iterations": 0}, "at least one iteration"),
        ({"seconds": 0.0}, "positive number of seconds"),
        ({"rollout_limit": -1}, "rollout_limit"),
    ]:
        with pytest.raises(ValueError, match=message):
            KernelMCTSAgent(random.Random(1), game, **kwargs)  # type: ignore[arg-type]
    over = game.state_from_actions(["b1xb3"])
    while not over.is_terminal():
        over = over.apply(over.legal_actions()[0])
    with pytest.raises(ValueError, match="a player is to move"):
        KernelMCTSAgent(random.Random(1), game).choose(over)


def test_a_time_budget_runs_at_least_one_iteration() -> None:
    game = make("rubiks-flip")
    agent = KernelMCTSAgent(random.Random(1), game, iterations=None, seconds=1e-9)
    assert agent.choose(game.new_initial_state()) in game.new_initial_state().legal_actions()
    assert agent.last_iterations >= 1


# --- Flip Switch: flips are chance nodes, rounds make a match ----------------------------------

#: Option sets the kernel has (any lines, no_move and rounds), beyond the default match.
FLIP_SWITCH_OPTIONS: list[dict[str, object]] = [
    {"rounds": 1},
    {"lines": "edges", "no_move": "pass"},
    {"rounds": 2, "no_move": "pass", "lines": "edges"},
]


def tree_states(agent: KernelMCTSAgent, root: State) -> Iterator[tuple[int, State]]:
    """Every node of the last search's tree with its reference state (replayed from the root)."""
    tree = agent.kernel_search.tree
    stack: list[tuple[int, State]] = [(0, root)]
    while stack:
        node, state = stack.pop()
        yield node, state
        start, tried = int(tree.first[node]), int(tree.tried[node])
        for e in range(start, start + tried):
            if tree.edge_child[e] >= 0:
                after = state.apply(int(tree.edge_action[e]))
                stack.append((int(tree.edge_child[e]), after))


def face_up_positions(game: Game, count: int, seed: int) -> list[State]:
    """Positions where every tile is face up and a player is to move (switching only)."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            fs: FlipSwitchState = state  # type: ignore[assignment]
            if not state.is_chance_node() and -1 not in fs.tiles and not fs.results:
                found.append(state)
                break
            state = state.apply(random_action(state, rng))
    return found


@pytest.mark.parametrize("options", FLIP_SWITCH_OPTIONS)
def test_flip_switch_trees_hold_the_reference_rules_under_every_option_set(
    options: dict[str, object],
) -> None:
    """On 60 random positions per option set, every node agrees with the reference engine."""
    game = make("flip-switch", **options)
    nodes = 0
    for index, state in enumerate(random_positions(game, 60, seed=12)):
        agent = KernelMCTSAgent(random.Random(index), game, iterations=300)
        stats = agent.search(state)
        assert sorted(stats.actions) == sorted(state.legal_actions())
        nodes += check_tree(agent, state)[0]
    assert nodes > 60 * 100


def test_flip_switch_repetition_draws_follow_the_reference() -> None:
    """Single rounds with passing on (so every draw is a third occurrence), wandering by
    switches that score nothing from positions with every tile face up, until an action makes
    a third occurrence: every node of the tree, draws included, agrees with the reference."""
    game = make("flip-switch", rounds=1, no_move="pass")
    rng = random.Random(1)
    found = 0
    for state in face_up_positions(game, 40, seed=3):
        for _ in range(200):
            if any(
                (after := state.apply(a)).is_terminal() and after.returns()[0] == 0
                for a in state.legal_actions()
            ):
                agent = KernelMCTSAgent(random.Random(found), game, iterations=300)
                agent.search(state)
                assert check_tree(agent, state)[1] > 0
                found += 1
                break
            quiet = [a for a in state.legal_actions() if not state.apply(a).is_terminal()]
            if not quiet:
                break
            state = state.apply(rng.choice(quiet))
        if found == 10:
            break
    assert found == 10


def test_flip_switch_trees_go_on_into_the_next_round() -> None:
    """In a three-round match, from positions where a switch wins the round, the tree holds
    nodes of the next round (a fresh face-down grid, the other player to start) and every node
    still agrees with the reference engine."""
    game = make("flip-switch")
    checked = 0
    for index, state in enumerate(islice(positions(game, seed=13), 3000)):
        ends_round = [
            a for a in state.legal_actions() if len(state.apply(a).results) > len(state.results)
        ]
        if not ends_round:
            continue
        agent = KernelMCTSAgent(random.Random(index), game, iterations=500)
        agent.search(state)
        check_tree(agent, state)
        later = [s for _, s in tree_states(agent, state) if len(s.results) > len(state.results)]
        assert later
        checked += 1
        if checked == 10:
            break
    assert checked == 10


def test_flip_switch_flips_are_revealed_with_the_reference_odds() -> None:
    """At every chance node passed 1,000 times, each shape's share is within 0.05 of its
    probability from the tiles not yet seen. The positions have unequal odds (a shape with
    fewer tiles left), so a draw that ignored the weights would fail: at 15 or more checked
    nodes some outcome's probability is over 0.1 from uniform."""
    game = make("flip-switch", rounds=1)
    checked = lopsided = 0
    for index, state in enumerate(random_positions(game, 40, seed=14)):
        fs: FlipSwitchState = state  # type: ignore[assignment]
        if fs.tiles.count(-1) < 3:
            continue
        agent = KernelMCTSAgent(random.Random(index), game, iterations=20_000, rollout_limit=4)
        agent.search(state)
        checked += check_spins(agent, state)
        for node, after in tree_states(agent, state):
            if after.is_chance_node() and int(agent.kernel_search.tree.visits[node]) >= 1000:
                odds = [float(p) for _, p in after.chance_outcomes()]
                lopsided += any(abs(p - 1 / len(odds)) > 0.1 for p in odds)
    assert checked >= 40 and lopsided >= 15


def test_flip_switch_search_sees_only_what_the_players_see() -> None:
    """The hidden-information guarantee. A face-down tile has no shape until its flip is
    revealed, so the search can depend only on the visible position and the line of play:
    the same visible position reached by flipping in another order (the shapes seen at other
    moments) gives identical root statistics with the same seed, and no node of the tree
    shows a shape on a square whose flip its line of play has not revealed."""
    game = make("flip-switch")
    one = game.state_from_actions(["a1", "heart", "c3", "star", "b2", "heart"])
    other = game.state_from_actions(["b2", "heart", "c3", "star", "a1", "heart"])
    assert one.key() == other.key()

    def search(state: State) -> tuple[KernelMCTSAgent, dict[int, tuple[int, float]]]:
        agent = KernelMCTSAgent(random.Random(5), game, iterations=3000)
        return agent, agent.search(state).actions

    first, stats = search(one)
    assert stats == search(other)[1]
    assert len(stats) == 6 and sum(v for v, _ in stats.values()) == 3000
    revealed = 0
    for node, state in tree_states(first, one):
        key = int(first.kernel_search.tree.pos[node, 0])
        fs: FlipSwitchState = state  # type: ignore[assignment]
        if state.is_terminal():
            continue
        for square, shape in enumerate(fs.tiles):
            field = (key >> (2 * square)) & 3
            assert field == (0 if shape == -1 else shape + 1)
            revealed += shape != -1
    assert revealed > 0


def test_flip_switch_rollout_cut_at_once_is_the_reference_evaluation() -> None:
    """With ``rollout_limit=0`` a rollout is the ported evaluation alone: on 300 random
    positions of a three-round match (credited shapes, scoring chances, rounds won) it equals
    ``State.evaluate(0)`` to rounding."""
    game = make("flip-switch")
    search = KernelMCTSAgent(random.Random(0), game).kernel_search
    values = set()
    for state in random_positions(game, 300, seed=15):
        value = float(search.rollouts(state, 1, random.Random(1), 0)[0])
        assert value == pytest.approx(state.evaluate(0), abs=1e-12)
        values.add(round(value, 6))
    assert len(values) > 10


def test_flip_switch_search_follows_the_reference_mcts() -> None:
    """Single rounds, rollouts cut at 20 plies (so the ported evaluation scores most of them):
    on random positions of a round, the mean value of each action both searches visit
    often agrees within 0.15 with the reference MCTS's (same budget, fixed seeds)."""
    game = make("flip-switch", rounds=1)
    compared = 0
    for index, state in enumerate(random_positions(game, 6, seed=16)):
        kernel = KernelMCTSAgent(
            random.Random(index), game, iterations=2000, rollout_limit=20
        ).action_values(state)
        reference = MCTSAgent(
            random.Random(index), iterations=2000, rollout_limit=20
        ).action_values(state)
        assert sorted(kernel) == sorted(reference) == sorted(state.legal_actions())
        for action, (visits, mean) in kernel.items():
            if visits >= 300 and reference[action][0] >= 300:
                assert abs(mean - reference[action][1]) < 0.15
                compared += 1
    assert compared >= 6
