"""The FlipFour kernel against the reference engine in ``rules.py``.

Every game of a seeded kernel batch is replayed in the reference, comparing at every ply the
legal action ids (in the reference's order) and the status (going on, four in a row or no
legal move, third repetition), then each game's length and result and the batch's count of
games stopped at the ply cap. Random games almost never repeat a position, so a second set of
lines shuttles pieces back and forth after the drops until a third repetition. perft is
checked against the golden counts and from midgame positions against the reference's perft.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import State
from flipgames.core.kernel import DRAWN, FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.games.flipfour.board import WINDOWS
from flipgames.games.flipfour.kernel import (
    _MOVE_IDS,
    _REACH,
    FlipFourKernel,
    _count,
    _four,
    _generate,
    _nth,
)
from flipgames.games.flipfour.notation import MOVE_BASE, MOVES, move_id
from flipgames.games.flipfour.rules import FlipFourState
from flipgames.solvers.perft import reference_perft

# Golden counts from tests/flipfour/test_flipfour_perft.py (engine and a plain reference
# generator agree there).
GOLDEN = [50, 2400, 125120, 6272736]
GAMES = 400  # per seed; most run to the 200-ply cap


def kernel() -> FlipFourKernel:
    found = make("flipfour").kernel()
    assert isinstance(found, FlipFourKernel)
    return found


def reference_status(state: State) -> int:
    assert isinstance(state, FlipFourState)
    reason = state.end_reason()
    if reason is None:
        return ONGOING
    if reason == "third repetition":
        return DRAWN
    return FIRST_WINS if state.winner == 0 else SECOND_WINS


def check_line(actions: list[int], notation: bool = False) -> FlipFourState:
    """Replay ``actions`` in the kernel and the reference, comparing every ply (with
    ``notation``, also that each kernel action prints and parses back to itself in the
    reference's notation)."""
    replay = kernel().replay(actions)
    assert replay.actions == actions, "the kernel refused an action the reference played"
    state = make("flipfour").new_initial_state()
    for ply, (legal, status) in enumerate(zip(replay.legal, replay.status, strict=True)):
        assert legal == list(state.legal_actions()), f"ply {ply}: {state.history_notation()}"
        assert status == reference_status(state), f"ply {ply}: {state.history_notation()}"
        if notation:
            assert [state.parse_action(state.action_to_string(a)) for a in legal] == legal
        if ply < len(actions):
            state = state.apply(actions[ply])
    assert isinstance(state, FlipFourState)
    return state


@pytest.mark.parametrize("seed", [1, 2])
def test_random_playouts_agree_with_the_reference_ply_by_ply(seed: int) -> None:
    batch, traces = kernel().traced_playouts(GAMES, seed, max_plies=200)
    plain = kernel().playouts(GAMES, seed, max_plies=200)
    assert np.array_equal(plain.returns, batch.returns)
    assert np.array_equal(plain.lengths, batch.lengths)
    capped = 0
    for g in range(GAMES):
        actions = [int(a) for a in traces[g] if a >= 0]
        assert len(actions) == batch.lengths[g]
        final = check_line(actions, notation=g < 20)
        if final.is_terminal():
            assert batch.returns[g] == final.returns()[0]
        else:
            assert len(actions) == 200 and batch.returns[g] == 0
            capped += 1
    assert capped == batch.capped
    assert set(batch.returns.tolist()) == {-1, 0, 1}


def closed_walks(state: FlipFourState) -> list[list[int]]:
    """Four moves of one piece of the side to move that bring it back to its square with its
    face (a rook step and a bishop step in turn), the other pieces standing still."""
    walks = []
    occupied = {s for s in range(25) if state.piece_at(s) is not None}
    for start in sorted(occupied):
        owner, face = state.piece_at(start) or (-1, 0)
        if owner != state.to_move:
            continue
        stack = [(start, face, list[int]())]
        while stack:
            square, face, path = stack.pop()
            if len(path) == 4:
                if square == start:
                    walks.append(path)
                continue
            for target in range(25):
                if target == square or (target in occupied and target != start):
                    continue
                df, dr = target % 5 - square % 5, target // 5 - square // 5
                if (df == 0 or dr == 0) if face == 0 else abs(df) == abs(dr):
                    move = move_id(square, target)
                    assert move is not None
                    stack.append((target, 1 - face, [*path, move]))
    return walks


def shuttle_line(seed: int) -> list[int]:
    """Random drops until every piece is down, a few random moves, then each side plays
    closed walks (three rounds of one, on squares the other side's walk does not use)
    whenever the walk's next move is legal, so positions recur until a third repetition
    draws; random moves otherwise."""
    rng = random.Random(seed)
    state = make("flipfour").new_initial_state()
    assert isinstance(state, FlipFourState)
    plans: dict[int, list[int]] = {0: [], 1: []}
    actions: list[int] = []
    wander = rng.randrange(0, 12)  # random moves between the drops and the walks
    while not state.is_terminal() and len(actions) < 150:
        legal = state.legal_actions()
        side = state.to_move
        dropping = state.pieces_in_hand(0) + state.pieces_in_hand(1) > 0
        if not dropping and wander:
            wander -= 1
        elif not dropping and not plans[side]:
            busy = {square for move in plans[1 - side] for square in MOVES[move - MOVE_BASE]}
            walks = [
                walk
                for walk in closed_walks(state)
                if not busy & {square for move in walk for square in MOVES[move - MOVE_BASE]}
            ]
            plans[side] = rng.choice(walks) * 3 if walks else []
        if plans[side] and plans[side][0] in legal:
            action = plans[side].pop(0)
        else:
            plans[side] = []
            action = rng.choice([a for a in legal if a < MOVE_BASE] if dropping else legal)
        state = state.apply(action)
        assert isinstance(state, FlipFourState)
        actions.append(action)
    return actions


def test_shuttling_lines_reach_third_repetitions_as_in_the_reference() -> None:
    endings = [check_line(shuttle_line(seed)) for seed in range(40)]
    assert sum(reference_status(s) == DRAWN for s in endings) >= 10


def test_no_legal_move_loses_in_the_kernel_too() -> None:
    """The rulings' example: four White bishops shut in by Black pieces, White to move."""
    texts = ["B@b1", "R@c2", "B@a2", "R@b3", "B@e4", "R@d3", "B@d5", "R@c4"]
    state = make("flipfour").new_initial_state()
    for text in texts:
        state = state.apply(state.parse_action(text))
    assert reference_status(state) == SECOND_WINS
    assert check_line(list(state.history)).end_reason() == "no legal move"
    assert kernel().replay(list(state.history)).status[-1] == SECOND_WINS


def test_perft_from_the_start_is_golden() -> None:
    start = make("flipfour").new_initial_state()
    assert [kernel().perft(start, d) for d in range(5)] == [1, *GOLDEN]
    # perft(5): the count of the kernel's earlier square-by-square loops and of the C
    # yardstick bench/c/flipfour_bitboard.c (tests/test_yardstick_flipfour.py).
    assert kernel().perft(start, 5) == 332_710_576


def test_four_by_shifts_is_four_in_a_window() -> None:
    """perft's four-in-a-row test (shifts, no tables) against the 28 windows: every window,
    every window missing one square or with its side's other squares filled, and random
    masks of 4 to 12 pieces."""
    rng = random.Random(11)
    masks = [*WINDOWS, *(w & ~(w & -w) for w in WINDOWS)]
    masks += [w ^ (1 << s) for w in WINDOWS for s in range(25) if w >> s & 1]
    masks += [sum(1 << s for s in rng.sample(range(25), rng.randrange(4, 13))) for _ in range(5000)]
    for mask in masks:
        assert _four(mask) == any(w & mask == w for w in WINDOWS), bin(mask)
    assert not _four(0b11110 << 3)  # e1 a2 b2 c2 would wrap round the board's side


def test_perft_from_midgame_positions_matches_the_reference() -> None:
    """Positions with all eight pieces down and some moved, wins within reach."""
    for seed in range(10):
        rng = random.Random(seed)
        state = make("flipfour").new_initial_state()
        for _ in range(8 + rng.randrange(0, 12)):
            if not state.perft_actions():
                break
            state = state.apply_perft(rng.choice(state.perft_actions()))
        counts = [kernel().perft(state, d) for d in (1, 2, 3)]
        assert counts == [reference_perft(state, d) for d in (1, 2, 3)], seed


def test_perft_of_a_won_position_is_zero() -> None:
    state = make("flipfour").new_initial_state()
    for text in ["R@a1", "B@e5", "R@a2", "B@e4", "R@a3", "B@e3", "a3-c3", "B@e2"]:
        state = state.apply(state.parse_action(text))
    assert state.end_reason() == "four in a row"
    assert kernel().perft(state, 2) == reference_perft(state, 2) == 0
    key = state.key()
    assert isinstance(key, int)
    assert kernel().legal_actions(key) == []


def test_counted_and_indexed_actions_are_the_listed_ones() -> None:
    """Random playouts count the actions and pick the drawn one by index, listing nothing:
    at every position of random lines (drops and moves, pieces in hand or not) the count is
    the length of the list and each index gives that entry of the list."""
    rng = random.Random(3)
    out = np.zeros(128, dtype=np.int64)
    checked = 0
    for _ in range(30):
        state = make("flipfour").new_initial_state()
        assert isinstance(state, FlipFourState)
        for _ in range(40):
            if state.is_terminal():
                break
            white, black, bishops = state.white, state.black, state.bishops
            player = state.to_move
            hand = state.pieces_in_hand(player)
            n = _generate(white, black, bishops, hand, player, _REACH, _MOVE_IDS, out)
            assert list(out[:n]) == list(state.legal_actions())
            assert _count(white, black, bishops, hand, player, _REACH) == n
            picked = [
                _nth(white, black, bishops, hand, player, _REACH, _MOVE_IDS, i) for i in range(n)
            ]
            assert picked == list(out[:n])
            checked += 1
            state = state.apply(rng.choice(state.legal_actions()))
            assert isinstance(state, FlipFourState)
    assert checked > 600
