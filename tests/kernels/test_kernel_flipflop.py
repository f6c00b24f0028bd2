"""The FlipFlop kernel (5x5 and 3x3) against the reference engine in ``rules.py``.

Every game the kernel plays in a seeded batch is replayed in the reference: the same actions
are legal, the kernel's legal action ids at every ply are exactly the reference's, the status
at every ply (going on, who won, third repetition) agrees, and so do each game's length and
result and the batch's count of games stopped at the ply cap. Uniformly random games almost
never repeat a position, so a second set of lines chases repetitions on purpose. perft from
the start is checked against golden counts and from midgame positions against the
reference's own perft.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import TERMINAL, State
from flipgames.core.kernel import (
    DRAWN,
    FIRST_WINS,
    ONGOING,
    SECOND_WINS,
    PositionGraph,
    kernel_for,
)
from flipgames.games.flipflop.kernel import FlipFlop3x3Kernel, FlipFlopKernel
from flipgames.games.flipflop.rules import FlipFlopState
from flipgames.solvers.perft import perft, perft_counts, reference_perft

# Golden counts: tests/flipflop/test_flipflop_perft.py (engine and an independent naive
# generator agree there); perft(6) on 5x5 also printed by the C yardstick
# (bench/bench_yardstick.py).
GOLDEN = {
    "flipflop": [16, 209, 3076, 41666, 613932, 8659044],
    "flipflop-3x3": [4, 10, 36, 108, 336, 1060, 3144, 8982, 26276, 75146, 215312, 608604],
}
# Games per seeded batch: thousands in all, each replayed ply by ply in the reference.
GAMES = {"flipflop": 1000, "flipflop-3x3": 2000}
NAMES = sorted(GAMES)


def kernel_of(name: str) -> FlipFlopKernel:
    kernel = make(name).kernel()
    assert isinstance(kernel, FlipFlopKernel)
    return kernel


def reference_status(state: State) -> int:
    """The kernel's status code for a reference state."""
    assert isinstance(state, FlipFlopState)
    if not state.is_terminal():
        return ONGOING
    if state.occurrences >= 3:
        return DRAWN
    return FIRST_WINS if state.returns()[0] > 0 else SECOND_WINS


def check_line(name: str, actions: list[int], notation: bool = False) -> State:
    """Replay ``actions`` in the kernel and the reference, comparing every ply (with
    ``notation``, also that each kernel action prints and parses back to itself in the
    reference's notation); return the reference's final state."""
    replay = kernel_of(name).replay(actions)
    assert replay.actions == actions, "the kernel refused an action the reference played"
    state = make(name).new_initial_state()
    for ply, (legal, status) in enumerate(zip(replay.legal, replay.status, strict=True)):
        expected = list(state.legal_actions())
        assert legal == expected, f"ply {ply} after {state.history_notation()}"
        assert status == reference_status(state), f"ply {ply} after {state.history_notation()}"
        if notation:
            assert [state.parse_action(state.action_to_string(a)) for a in legal] == legal
        if ply < len(actions):
            state = state.apply(actions[ply])
    assert len(replay.status) == len(actions) + 1
    return state


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_random_playouts_agree_with_the_reference_ply_by_ply(name: str, seed: int) -> None:
    kernel = kernel_of(name)
    games = GAMES[name]
    batch, traces = kernel.traced_playouts(games, seed, max_plies=200)
    plain = kernel.playouts(games, seed, max_plies=200)
    assert np.array_equal(plain.returns, batch.returns)
    assert np.array_equal(plain.lengths, batch.lengths)
    capped = 0
    for g in range(games):
        actions = [int(a) for a in traces[g] if a >= 0]
        assert len(actions) == batch.lengths[g]
        final = check_line(name, actions, notation=g < 100)
        if final.is_terminal():
            assert batch.returns[g] == final.returns()[0]
        else:
            assert len(actions) == 200 and batch.returns[g] == 0
            capped += 1
    assert capped == batch.capped
    # Both sides win some: the comparison covered checkmates and blocked sides.
    assert set(batch.returns.tolist()) >= {-1, 1}


STEPS = (((1, 0), (-1, 0), (0, 1), (0, -1)), ((1, 1), (1, -1), (-1, 1), (-1, -1)))


def closed_walks(state: State, size: int) -> list[list[int]]:
    """Four quiet moves of one piece of the side to move that bring it back to its square
    with its face (four flips), the other pieces standing still: a cycle the side can play."""
    area = size * size
    key = state.key()
    assert isinstance(key, int)
    white, black, bishops = key & (1 << area) - 1, key >> area & (1 << area) - 1, key >> 2 * area
    side = key >> 3 * area
    walks = []
    for start in range(area):
        if not (black if side else white) >> start & 1:
            continue
        others = (white | black) & ~(1 << start)
        # Depth-first over (square, face, moves so far) of this piece alone.
        stack = [(start, bishops >> start & 1, list[int]())]
        while stack:
            square, face, path = stack.pop()
            if len(path) == 4:
                if square == start:
                    walks.append(path)
                continue
            for df, dr in STEPS[face]:
                file, rank = square % size + df, square // size + dr
                while 0 <= file < size and 0 <= rank < size:
                    target = rank * size + file
                    if others >> target & 1:
                        break
                    stack.append((target, 1 - face, [*path, square * area + target]))
                    file, rank = file + df, rank + dr
    return walks


def repetition_line(name: str, seed: int, plies: int = 150) -> list[int]:
    """A reference line with a random opening, after which each side plays closed walks
    (three rounds of one, then another) whenever the walk's next move is legal: the
    position then comes back until a third repetition draws, unless a capture, a check
    or a blocked line breaks the cycle (then the line goes on at random)."""
    rng = random.Random(seed)
    game = make(name)
    size = 5 if name == "flipflop" else 3
    state = game.new_initial_state()
    opening = rng.randrange(0, 20)
    plans: dict[int, list[int]] = {0: [], 1: []}
    actions: list[int] = []
    while not state.is_terminal() and len(actions) < plies:
        legal = state.legal_actions()
        side = len(actions) % 2
        if len(actions) >= opening and not plans[side]:
            walks = closed_walks(state, size)
            plans[side] = rng.choice(walks) * 3 if walks else []
        if plans[side] and plans[side][0] in legal:
            action = plans[side].pop(0)
        else:
            plans[side] = []
            action = rng.choice(legal)
        state = state.apply(action)
        actions.append(action)
    return actions


@pytest.mark.parametrize("name", NAMES)
def test_lines_that_chase_repetitions_agree_with_the_reference(name: str) -> None:
    endings = [check_line(name, repetition_line(name, seed)) for seed in range(60)]
    assert isinstance(endings[0], FlipFlopState)
    drawn = [s for s in endings if reference_status(s) == DRAWN]
    assert len(drawn) >= 10, "the lines should reach third repetitions"


def test_replay_names_the_only_legal_replies_in_check() -> None:
    """3x3 after b1xb3: Black is in check and may only recapture on b3."""
    state = make("flipflop-3x3").new_initial_state()
    capture = state.parse_action("b1xb3")
    replay = kernel_of("flipflop-3x3").replay([capture])
    after = state.apply(capture)
    assert [after.action_to_string(a) for a in replay.legal[1]] == ["a3xb3", "c3xb3"]


def test_replay_stops_at_an_action_the_kernel_finds_illegal() -> None:
    state = make("flipflop-3x3").new_initial_state()
    illegal = 0 * 9 + 4  # a1 to b2: a rook cannot go diagonally
    assert illegal not in state.legal_actions()
    replay = kernel_of("flipflop-3x3").replay([state.parse_action("a1-a2"), illegal, 5])
    assert len(replay.actions) == 1 and replay.status == [ONGOING]


@pytest.mark.parametrize("name", NAMES)
def test_perft_from_the_start_is_golden(name: str) -> None:
    start = make(name).new_initial_state()
    kernel = kernel_of(name)
    assert [kernel.perft(start, d) for d in range(len(GOLDEN[name]) + 1)] == [1, *GOLDEN[name]]


def midgame(name: str, seed: int) -> State:
    """A seeded random position 6-40 plies in (the game may be over there)."""
    rng = random.Random(seed)
    state = make(name).new_initial_state()
    for _ in range(rng.randrange(6, 40)):
        if not state.perft_actions():
            break
        state = state.apply_perft(rng.choice(state.perft_actions()))
    return state


@pytest.mark.parametrize(("name", "depth"), [("flipflop", 4), ("flipflop-3x3", 7)])
def test_perft_from_midgame_positions_matches_the_reference(name: str, depth: int) -> None:
    kernel = kernel_of(name)
    for seed in range(12):
        state = midgame(name, seed)
        counts = [kernel.perft(state, d) for d in range(1, depth + 1)]
        assert counts == [reference_perft(state, d) for d in range(1, depth + 1)], seed


@pytest.mark.parametrize("name", NAMES)
def test_perft_ignores_repetition_draws_as_the_reference_does(name: str) -> None:
    """From a third repetition (game over) perft still counts the moves."""
    ends = (check_line(name, repetition_line(name, seed)) for seed in range(60))
    state = next(end for end in ends if reference_status(end) == DRAWN)
    assert state.is_terminal() and not state.legal_actions()
    assert kernel_of(name).perft(state, 3) == reference_perft(state, 3) > 0


def test_the_perft_entry_point_uses_the_kernel_unless_told_not_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = make("flipflop")
    assert kernel_for(game) is game.kernel()
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    assert kernel_for(game) is None
    start = game.new_initial_state()
    assert perft_counts(start, 3) == GOLDEN["flipflop"][:3]
    monkeypatch.setenv("FLIPGAMES_KERNEL", "fast")
    assert perft(start, 6) == GOLDEN["flipflop"][5]


def test_a_seed_fixes_the_batch() -> None:
    kernel = kernel_of("flipflop")
    first, again, other = (kernel.playouts(200, seed) for seed in (5, 5, 6))
    assert np.array_equal(first.lengths, again.lengths)
    assert np.array_equal(first.returns, again.returns)
    assert not np.array_equal(first.lengths, other.lengths)
    assert first.plies == int(first.lengths.sum())


def test_the_ply_cap_stops_games() -> None:
    batch = kernel_of("flipflop").playouts(300, 3, max_plies=10)
    assert batch.lengths.max() == 10
    assert batch.capped == int(((batch.lengths == 10) & (batch.returns == 0)).sum()) > 0


def test_a_state_of_another_game_is_refused() -> None:
    with pytest.raises(ValueError, match="flipflop-3x3 state given to the flipflop kernel"):
        kernel_of("flipflop").perft(make("flipflop-3x3").new_initial_state(), 1)


# --- the 3x3 position graph -------------------------------------------------------------------


def kernel_3x3() -> FlipFlop3x3Kernel:
    kernel = make("flipflop-3x3").kernel()
    assert isinstance(kernel, FlipFlop3x3Kernel)
    return kernel


def mirror_action(action: int) -> int:
    """The 3x3 action reflected left-right (file a <-> c)."""
    origin, target = divmod(action, 9)
    return (origin // 3 * 3 + 2 - origin % 3) * 9 + target // 3 * 3 + 2 - target % 3


def test_the_unfolded_graph_has_every_reachable_position() -> None:
    """As many nodes as the reference retrograde solver's positions (213,270 in
    tests/solvers/test_retrograde.py), keyed exactly as the reference keys them."""
    graph = kernel_3x3().unfolded_graph()
    assert graph.symmetries == 1 and graph.nodes == 213_270
    assert int(graph.keys[0]) == make("flipflop-3x3").new_initial_state().key()
    assert len(np.unique(graph.keys)) == graph.nodes


def test_folding_merges_exactly_the_mirror_pairs() -> None:
    kernel = kernel_3x3()
    unfolded, folded = kernel.unfolded_graph(), kernel.graph()
    # The left-right mirror of every 9-bit board, then of every key (three boards and the
    # side to move, which stays).
    board_mirror = np.array(
        [sum(1 << sq // 3 * 3 + 2 - sq % 3 for sq in range(9) if b >> sq & 1) for b in range(512)]
    )
    keys = unfolded.keys
    mirrored = keys >> 27 << 27
    for part in range(3):
        mirrored |= board_mirror[keys >> 9 * part & 511] << 9 * part
    canonical = np.minimum(keys, mirrored)
    assert folded.nodes == (unfolded.nodes + int((mirrored == keys).sum())) // 2
    assert np.array_equal(np.unique(canonical), np.sort(folded.keys))
    # One edge per legal action of each node kept.
    degrees = np.diff(unfolded.edge_start)
    assert folded.edges == int(degrees[canonical == keys].sum())


@cache
def graph_3x3() -> PositionGraph:
    return kernel_3x3().graph()


@pytest.mark.parametrize("seed", range(40))
def test_graph_nodes_agree_with_the_reference_along_random_lines(seed: int) -> None:
    """Along a random line and its mirror image: the same node, the side to move, the
    children of each legal action, and at the end (no legal move) the loser."""
    kernel, graph = kernel_3x3(), graph_3x3()
    node_of = {int(k): i for i, k in enumerate(graph.keys)}
    rng = random.Random(seed)
    state = mirror = make("flipflop-3x3").new_initial_state()
    while True:
        node = node_of[kernel.encode(state)]
        assert node_of[kernel.encode(mirror)] == node
        actions = state.perft_actions()
        edges = graph.edge_child[graph.edge_start[node] : graph.edge_start[node + 1]]
        expected = [node_of[kernel.encode(state.apply_perft(a))] for a in actions]
        assert sorted(edges.tolist()) == sorted(expected)
        side = state.key() >> 27
        if not actions:
            assert graph.to_move[node] == TERMINAL
            assert graph.terminal_return[node] == (-1 if side == 0 else 1)
            break
        assert graph.to_move[node] == side and graph.terminal_return[node] == 0
        action = rng.choice(actions)
        state, mirror = state.apply_perft(action), mirror.apply_perft(mirror_action(action))
