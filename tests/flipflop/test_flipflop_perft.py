"""perft for FlipFlop 5x5 and 3x3, cross-checked against a second, deliberately simple generator.

The reference below knows the rules from docs/rulings.md and nothing of the engine: a dict of
(file, rank) -> (colour, face), moves as text, no tables. perft ignores repetition draws, as
the ruling says, and so does the reference (it has no history). On a mismatch the assertion
prints the per-move subtotals (divide) of both.
"""

from __future__ import annotations

import random

import pytest

from flipgames import make
from flipgames.core.game import State
from flipgames.solvers.perft import divide, perft_counts

# Golden values (also in docs/games/flipflop.md).
GOLDEN = {
    "flipflop": [16, 209, 3076, 41666, 613932],
    "flipflop-3x3": [4, 10, 36, 108, 336, 1060, 3144, 8982, 26276, 75146, 215312, 608604],
}

Square = tuple[int, int]
Board = dict[Square, tuple[str, str]]  # (colour "W"/"B", face "+"/"x")

ROOK_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_STEPS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


class Reference:
    """A FlipFlop position, written plainly: board dict, side to move, board size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.board: Board = {}
        for file in range(size):
            self.board[(file, 0)] = ("W", "+")
            self.board[(file, size - 1)] = ("B", "+")
        self.side = "W"
        self.goals = {"W": (size // 2, 0), "B": (size // 2, size - 1)}

    def name(self, square: Square) -> str:
        return "abcde"[square[0]] + str(square[1] + 1)

    def square(self, text: str) -> Square:
        return "abcde".index(text[0]), int(text[1]) - 1

    def moves(self) -> list[str]:
        enemy = "B" if self.side == "W" else "W"
        result = []
        for origin, (colour, face) in self.board.items():
            if colour != self.side:
                continue
            for df, dr in ROOK_STEPS if face == "+" else BISHOP_STEPS:
                file, rank = origin[0] + df, origin[1] + dr
                while 0 <= file < self.size and 0 <= rank < self.size:
                    here = self.board.get((file, rank))
                    if here is None:
                        result.append(self.name(origin) + "-" + self.name((file, rank)))
                    else:
                        if here[0] == enemy and (file, rank) in self.goals.values():
                            result.append(self.name(origin) + "x" + self.name((file, rank)))
                        break
                    file, rank = file + df, rank + dr
        own_goal = self.goals[self.side]
        if self.board.get(own_goal, ("", ""))[0] == enemy:
            result = [m for m in result if m.endswith("x" + self.name(own_goal))]
        return result

    def play(self, move: str) -> Reference:
        child = Reference(self.size)
        child.board = dict(self.board)
        origin, target = self.square(move[:2]), self.square(move[3:])
        colour, face = child.board.pop(origin)
        child.board[target] = (colour, "x" if face == "+" else "+")
        child.side = "B" if self.side == "W" else "W"
        return child


def reference_perft(position: Reference, depth: int) -> int:
    if depth == 0:
        return 1
    moves = position.moves()
    if depth == 1:
        return len(moves)
    return sum(reference_perft(position.play(m), depth - 1) for m in moves)


def reference_position(name: str, history: list[str]) -> Reference:
    position = Reference(5 if name == "flipflop" else 3)
    for move in history:
        assert move in position.moves(), f"reference rejects {move} after {history}"
        position = position.play(move)
    return position


def check_against_reference(state: State, depth: int) -> list[int]:
    """Assert engine perft == reference perft for depths 1..depth; return the counts."""
    reference = reference_position(state.game.name, state.history_notation())
    counts = perft_counts(state, depth)
    expected = [reference_perft(reference, d) for d in range(1, depth + 1)]
    if counts != expected:
        first = next(d for d in range(depth) if counts[d] != expected[d]) + 1
        ours = divide(state, first)
        theirs = {m: reference_perft(reference.play(m), first - 1) for m in reference.moves()}
        diff = {
            m: (ours.get(m), theirs.get(m))
            for m in sorted(set(ours) | set(theirs))
            if ours.get(m) != theirs.get(m)
        }
        pytest.fail(
            f"perft mismatch after {state.history_notation()} at depth {first}: engine "
            f"{counts}, reference {expected}; divide (engine, reference) differs at {diff}"
        )
    return counts


@pytest.mark.parametrize(("name", "depth"), [("flipflop", 5), ("flipflop-3x3", 11)])
def test_perft_from_the_start_matches_reference_and_golden(name: str, depth: int) -> None:
    """perft from the initial position: engine == independent reference == golden values."""
    counts = check_against_reference(make(name).new_initial_state(), depth)
    assert counts == GOLDEN[name][:depth]


def test_perft_12_on_3x3_from_the_start_is_golden() -> None:
    """perft(12) on 3x3 from the start (the engine alone; depths 1-11 are cross-checked)."""
    assert perft_counts(make("flipflop-3x3").new_initial_state(), 12) == GOLDEN["flipflop-3x3"]


def random_midgame(name: str, seed: int) -> State:
    """A seeded random position 6-30 plies in, steering clear of moves that end the game."""
    rng = random.Random(seed)
    state = make(name).new_initial_state()
    for _ in range(rng.randrange(6, 30)):
        children = [state.apply_perft(a) for a in state.perft_actions()]
        alive = [child for child in children if child.perft_actions()]
        if not alive:
            break
        state = rng.choice(alive)
    return state


@pytest.mark.parametrize(("name", "depth"), [("flipflop", 4), ("flipflop-3x3", 8)])
@pytest.mark.parametrize("seed", range(1, 7))
def test_perft_from_random_midgame_positions_matches_reference(
    name: str, depth: int, seed: int
) -> None:
    """perft from seeded random midgame positions agrees with the reference."""
    state = random_midgame(name, seed)
    assert len(state.history) >= 6
    assert check_against_reference(state, depth)[0] > 0
