"""FlipFlop's bitboard kernel (``games/flipflop/bitboard.py``) against the reference engine.

perft from the start against the golden counts (perft(7) of 5x5, 126,356,418, in the slow
set), from midgame positions against the reference's own perft; every seeded random game
replayed in the reference with the legal action set and the status equal at every ply and
the same result and length; lines that chase third repetitions; conversion to and from the
reference states; and bad input refused.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import State
from flipgames.core.kernel import DRAWN, FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.games.flipflop.bitboard import Bitboard
from flipgames.games.flipflop.rules import FlipFlopState
from flipgames.solvers.perft import reference_perft

SIZES = {"flipflop": 5, "flipflop-3x3": 3}
NAMES = sorted(SIZES)
# tests/flipflop/test_flipflop_perft.py checks these against an independent generator.
GOLDEN = {
    "flipflop": [16, 209, 3076, 41666, 613932],
    "flipflop-3x3": [4, 10, 36, 108, 336, 1060, 3144, 8982, 26276, 75146, 215312, 608604],
}
GAMES = {"flipflop": 1000, "flipflop-3x3": 2000}


def board_of(name: str) -> Bitboard:
    return Bitboard.of(SIZES[name])


def reference_status(state: State) -> int:
    assert isinstance(state, FlipFlopState)
    if not state.is_terminal():
        return ONGOING
    if state.occurrences >= 3:
        return DRAWN
    return FIRST_WINS if state.returns()[0] > 0 else SECOND_WINS


def check_line(name: str, actions: list[int]) -> State:
    """Replay ``actions`` in the bitboard and the reference, comparing the legal actions and
    the status at every ply; return the reference's final state."""
    replay = board_of(name).replay(actions)
    assert replay.actions == actions, "the bitboard refused an action the reference played"
    state = make(name).new_initial_state()
    for ply, (legal, status) in enumerate(zip(replay.legal, replay.status, strict=True)):
        assert legal == list(state.legal_actions()), f"ply {ply} after {state.history_notation()}"
        assert status == reference_status(state), f"ply {ply} after {state.history_notation()}"
        if ply < len(actions):
            state = state.apply(actions[ply])
    assert len(replay.status) == len(actions) + 1
    return state


@pytest.mark.parametrize("name", NAMES)
def test_perft_from_the_start_is_golden(name: str) -> None:
    start = make(name).new_initial_state()
    board = board_of(name)
    assert [board.perft(start, d) for d in range(len(GOLDEN[name]) + 1)] == [1, *GOLDEN[name]]


@pytest.mark.slow
def test_perft_7_of_5x5_is_golden() -> None:
    start = make("flipflop").new_initial_state()
    assert Bitboard.of(5).perft(start, 6) == 8659044
    assert Bitboard.of(5).perft(start, 7) == 126356418


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
    board = board_of(name)
    for seed in range(12):
        state = midgame(name, seed)
        counts = [board.perft(state, d) for d in range(1, depth + 1)]
        assert counts == [reference_perft(state, d) for d in range(1, depth + 1)], seed


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_random_playouts_agree_with_the_reference_ply_by_ply(name: str, seed: int) -> None:
    board = board_of(name)
    games = GAMES[name]
    batch, traces = board.traced_playouts(games, seed, max_plies=200)
    plain = board.traced_playouts(games, seed, max_plies=200, record=0)[0]
    assert np.array_equal(plain.returns, batch.returns)
    assert np.array_equal(plain.lengths, batch.lengths)
    capped = 0
    for g in range(games):
        actions = [int(a) for a in traces[g] if a >= 0]
        assert len(actions) == batch.lengths[g]
        final = check_line(name, actions)
        if final.is_terminal():
            assert batch.returns[g] == final.returns()[0]
        else:
            assert len(actions) == 200 and batch.returns[g] == 0
            capped += 1
    assert capped == batch.capped
    assert set(batch.returns.tolist()) >= {-1, 1}


def test_the_ply_cap_stops_games_and_a_finished_position_there_still_counts() -> None:
    board = board_of("flipflop-3x3")
    batch, traces = board.traced_playouts(500, 3, max_plies=10)
    for g in range(500):
        final = check_line("flipflop-3x3", [int(a) for a in traces[g] if a >= 0])
        assert batch.returns[g] == (final.returns()[0] if final.is_terminal() else 0)
    assert 0 < batch.capped < 500


def closed_walk(state: State, size: int, rng: random.Random) -> list[int]:
    """Four quiet moves of one piece of the side to move that bring it back to its square
    and face, the other pieces standing still (empty when there is none)."""
    assert isinstance(state, FlipFlopState)
    area = size * size
    mine = state.black if state.side else state.white
    steps = (((1, 0), (-1, 0), (0, 1), (0, -1)), ((1, 1), (1, -1), (-1, 1), (-1, -1)))
    walks = []
    for start in range(area):
        if not mine >> start & 1:
            continue
        others = (state.white | state.black) & ~(1 << start)
        stack = [(start, state.bishops >> start & 1, list[int]())]
        while stack:
            square, face, path = stack.pop()
            if len(path) == 4:
                walks += [path] if square == start else []
                continue
            for df, dr in steps[face]:
                file, rank = square % size + df, square // size + dr
                while (
                    0 <= file < size and 0 <= rank < size and not others >> (rank * size + file) & 1
                ):
                    target = rank * size + file
                    stack.append((target, 1 - face, [*path, square * area + target]))
                    file, rank = file + df, rank + dr
    return rng.choice(walks) if walks else []


def repetition_line(name: str, seed: int) -> list[int]:
    """A random opening, then each side repeats a closed walk three times whenever its next
    move is legal (random moves otherwise): third repetitions follow."""
    rng = random.Random(seed)
    state = make(name).new_initial_state()
    opening = rng.randrange(0, 20)
    plans: dict[int, list[int]] = {0: [], 1: []}
    actions: list[int] = []
    while not state.is_terminal() and len(actions) < 150:
        side, legal = len(actions) % 2, state.legal_actions()
        if len(actions) >= opening and not plans[side]:
            plans[side] = closed_walk(state, SIZES[name], rng) * 3
        if plans[side] and plans[side][0] in legal:
            action = plans[side].pop(0)
        else:
            plans[side], action = [], rng.choice(legal)
        state = state.apply(action)
        actions.append(action)
    return actions


@pytest.mark.parametrize("name", NAMES)
def test_lines_that_chase_repetitions_agree_with_the_reference(name: str) -> None:
    endings = [check_line(name, repetition_line(name, seed)) for seed in range(60)]
    assert sum(reference_status(end) == DRAWN for end in endings) >= 10


def test_replay_stops_at_an_illegal_action() -> None:
    state = make("flipflop-3x3").new_initial_state()
    illegal = 0 * 9 + 4  # a1 to b2: a rook cannot go diagonally
    replay = board_of("flipflop-3x3").replay([state.parse_action("a1-a2"), illegal, 5])
    assert len(replay.actions) == 1 and replay.status == [ONGOING]


@pytest.mark.parametrize("name", NAMES)
def test_positions_convert_both_ways_and_moves_match_the_reference(name: str) -> None:
    game, board = make(name), board_of(name)
    for seed in range(40):
        state = midgame(name, seed)
        position = board.from_state(state)
        back = board.to_state(game, position)
        assert back.key() == state.key()
        assert board.legal_actions(position) == list(back.perft_actions())
        for action in back.perft_actions():
            assert board.from_state(back.apply_perft(action)) == board.apply(position, action)


def test_bad_input_is_refused() -> None:
    board = board_of("flipflop-3x3")
    start = make("flipflop-3x3").new_initial_state()
    with pytest.raises(ValueError, match="depth"):
        board.perft(start, -1)
    with pytest.raises(ValueError, match="not legal"):
        board.apply(board.from_state(start), 4)
    with pytest.raises(ValueError, match="3x3"):
        board.from_state(make("flipflop").new_initial_state())
    with pytest.raises(ValueError, match="not FlipFlop 3x3"):
        board.to_state(make("flipfour"), board.from_state(start))
    with pytest.raises(ValueError, match="n >= 0"):
        board.traced_playouts(-1, 0)
