"""FlipFour perft, cross-checked against a second, deliberately simple move generator.

The reference below knows nothing of the engine's bitboards, tables or action ids: a position
is a dict from (file, rank) to (owner, face letter), moves are found by walking each line square
by square, and actions are compared as notation strings. Golden counts (perft ignores
repetition draws, as ruling R3 defines it):

- from the start: 50, 2400, 125120, 6272736 (the engine takes about 0.5 s for depth 4,
  the reference about 3 s)
- from each position after all eight drops and a few moves (``DROPPED``): the counts there;
  these positions have wins within two plies, so the win test is cross-checked too
"""

from __future__ import annotations

import random

import pytest

from flipgames import make
from flipgames.solvers.perft import divide, perft_counts

FILES = "abcde"
SQUARES = [(f, r) for r in range(5) for f in range(5)]
ORTHOGONAL = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAGONAL = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
# Every run of four squares in a straight line that fits on the board.
FOURS = [
    [(f + i * df, r + i * dr) for i in range(4)]
    for f, r in SQUARES
    for df, dr in [(1, 0), (0, 1), (1, 1), (1, -1)]
    if 0 <= f + 3 * df < 5 and 0 <= r + 3 * dr < 5
]


def name(square: tuple[int, int]) -> str:
    return f"{FILES[square[0]]}{square[1] + 1}"


class Reference:
    """A FlipFour position written plainly: board dict, pieces in hand, side to move."""

    def __init__(self) -> None:
        self.board: dict[tuple[int, int], tuple[int, str]] = {}
        self.hand = [4, 4]
        self.mover = 0
        self.won = False

    def copy(self) -> Reference:
        other = Reference()
        other.board = dict(self.board)
        other.hand = list(self.hand)
        other.mover = self.mover
        other.won = self.won
        return other

    def actions(self) -> list[str]:
        if self.won:
            return []
        found = []
        if self.hand[self.mover] > 0:
            for face in "RB":
                found += [f"{face}@{name(s)}" for s in SQUARES if s not in self.board]
        for (f, r), (owner, face) in self.board.items():
            if owner != self.mover:
                continue
            for df, dr in ORTHOGONAL if face == "R" else DIAGONAL:
                x, y = f + df, r + dr
                while 0 <= x < 5 and 0 <= y < 5:
                    if (x, y) not in self.board:  # leap over anything, land only on empty
                        found.append(f"{name((f, r))}-{name((x, y))}")
                    x, y = x + df, y + dr
        return found

    def play(self, text: str) -> Reference:
        child = self.copy()
        if "@" in text:
            face, square = text.split("@")
            target = (FILES.index(square[0]), int(square[1]) - 1)
            child.board[target] = (self.mover, face)
            child.hand[self.mover] -= 1
        else:
            frm, to = text.split("-")
            start = (FILES.index(frm[0]), int(frm[1]) - 1)
            target = (FILES.index(to[0]), int(to[1]) - 1)
            owner, face = child.board.pop(start)
            child.board[target] = (owner, "B" if face == "R" else "R")
        child.won = child.has_four(self.mover)
        child.mover = 1 - self.mover
        return child

    def has_four(self, player: int) -> bool:
        mine = {s for s, (owner, _) in self.board.items() if owner == player}
        return any(all(s in mine for s in four) for four in FOURS)


def reference_perft(position: Reference, depth: int) -> int:
    actions = position.actions()
    if depth == 1:
        return len(actions)
    return sum(reference_perft(position.play(a), depth - 1) for a in actions)


def engine_and_reference(moves: list[str]):
    state = make("flipfour").new_initial_state()
    reference = Reference()
    for text in moves:
        state = state.apply(state.parse_action(text))
        reference = reference.play(text)
    return state, reference


def random_dropped_line(seed: int) -> list[str]:
    """A random line of eight drops, then ``seed`` random moves, that nobody has won yet."""
    rng = random.Random(seed)
    while True:
        state = make("flipfour").new_initial_state()
        line = []
        while len(line) < 8 + seed and not state.is_terminal():
            actions = state.legal_actions()
            drops = [a for a in actions if "@" in state.action_to_string(a)]
            action = rng.choice(drops if len(line) < 8 else actions)
            line.append(state.action_to_string(action))
            state = state.apply(action)
        if not state.is_terminal():
            return line


# (seed of the random line, perft counts to depth 3) for positions with every piece on board.
DROPPED = [
    (1, [16, 303, 5390]),
    (2, [21, 487, 8462]),
    (3, [22, 313, 6093]),
    (4, [20, 416, 7551]),
    (5, [17, 262, 4318]),
]


def test_perft_from_the_start_matches_the_golden_counts():
    """perft(1..3) from the empty board: 50 drops, then 48 each, then drops and first moves."""
    assert perft_counts(make("flipfour").new_initial_state(), 3) == [50, 2400, 125120]


def test_perft_from_the_start_matches_the_reference_generator():
    """The engine and the plain reference agree on perft(1..3) from the start."""
    state, reference = engine_and_reference([])
    assert [reference_perft(reference, d) for d in (1, 2, 3)] == perft_counts(state, 3)


def test_perft_4_from_the_start_matches_the_golden_count():
    """perft(4) from the start: the first moves of White's first piece join the drops."""
    assert perft_counts(make("flipfour").new_initial_state(), 4)[-1] == 6272736


@pytest.mark.slow
def test_reference_perft_4_from_the_start_matches_the_golden_count():
    """The reference agrees on perft(4) from the start (about 3 s)."""
    assert reference_perft(Reference(), 4) == 6272736


@pytest.mark.parametrize(("seed", "counts"), DROPPED)
def test_perft_after_all_drops_matches_reference_and_golden_counts(seed, counts):
    """With every piece on the board moves, flips, leaps and wins decide the counts."""
    line = random_dropped_line(seed)
    state, reference = engine_and_reference(line)
    assert state.pieces_in_hand(0) == state.pieces_in_hand(1) == 0
    engine = perft_counts(state, 3)
    if engine != [reference_perft(reference, d) for d in (1, 2, 3)]:
        # Per-action subtotals point at the first action whose subtree differs.
        mine = divide(state, 3)
        theirs = {a: reference_perft(reference.play(a), 2) for a in reference.actions()}
        diff = {a: (mine.get(a), theirs.get(a)) for a in mine.keys() | theirs.keys()}
        pytest.fail(f"{line}: {[(a, d) for a, d in diff.items() if d[0] != d[1]]}")
    assert engine == counts


def test_wins_occur_in_the_cross_checked_subtrees():
    """Some line of two plies from the DROPPED positions ends in four in a row."""
    wins = 0
    for seed, _ in DROPPED:
        _, reference = engine_and_reference(random_dropped_line(seed))
        for first in reference.actions():
            after = reference.play(first)
            wins += after.won + sum(after.play(second).won for second in after.actions())
    assert wins > 0


def test_reference_and_engine_list_the_same_actions_along_random_games():
    """Action by action along random games, both generators list the same set of actions."""
    rng = random.Random(11)
    for _ in range(20):
        state, reference = engine_and_reference([])
        while not state.is_terminal():
            engine_actions = {state.action_to_string(a) for a in state.legal_actions()}
            assert engine_actions == set(reference.actions()), state.history_notation()
            text = rng.choice(sorted(engine_actions))
            state = state.apply(state.parse_action(text))
            reference = reference.play(text)
            if state.is_terminal() and state.end_reason() != "third repetition":
                assert reference.actions() == []
        assert state.end_reason() is not None
