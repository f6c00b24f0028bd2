"""perft for Rubik's Flip, cross-checked against a second, deliberately simple move generator.

The reference below shares no code with the engine: a position is a plain dict from
``(file, rank)`` to ``(owner, letter)`` plus the winner, moves are notation strings, and locks
and rows are found by walking coordinates. Golden counts from the initial position (the
``both`` option cannot change them: no row can be locked within four plies):

| flip    | lock       | perft 1..3          | perft 4    |
| ------- | ---------- | ------------------- | ---------- |
| inplace | king       | 32, 960, 26880      | 1397760    |
| inplace | orthogonal | 32, 960, 26880      | 1394432    |
| flap    | king       | 32, 2880, 224000    | (slow)     |
| flap    | orthogonal | 32, 2880, 224000    | (slow)     |

By hand: turn 1 is 16 squares x 2 colours; turn 2 must flip the one tile (in place: 1 way;
flap: 2, 3 or 4 empty orthogonal neighbours, 48 over the 16 squares) then place on 15 x 2.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from flipgames import make
from flipgames.core.game import State
from flipgames.solvers.perft import divide, perft_counts

Coord = tuple[int, int]
Board = dict[Coord, tuple[int, str]]

LETTERS = ("RB", "YW")
EVERY_SQUARE = [(f, r) for r in range(4) for f in range(4)]


def name(c: Coord) -> str:
    return "abcd"[c[0]] + str(c[1] + 1)


def coord(text: str) -> Coord:
    return "abcd".index(text[0]), int(text[1]) - 1


def on_board(c: Coord) -> bool:
    return 0 <= c[0] < 4 and 0 <= c[1] < 4


def neighbours(c: Coord, king: bool) -> list[Coord]:
    out = []
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if (df, dr) != (0, 0) and (king or df == 0 or dr == 0):
                n = (c[0] + df, c[1] + dr)
                if on_board(n):
                    out.append(n)
    return out


class Reference:
    """The rules of docs/rulings.md, written the slow and obvious way."""

    def __init__(self, options: dict[str, str]) -> None:
        self.flap = options.get("flip", "inplace") == "flap"
        self.king = options.get("lock", "king") == "king"
        self.mover_first = options.get("both", "mover") == "mover"

    def start(self) -> dict[str, Any]:
        return {"board": {}, "winner": None}

    def locked(self, board: Board, c: Coord) -> bool:
        return all(n in board for n in neighbours(c, self.king))

    def flips(self, board: Board, me: int) -> list[tuple[Coord, Coord]]:
        found = []
        for c, (owner, _) in board.items():
            if owner == me:
                continue
            if self.flap:
                for n in neighbours(c, king=False):
                    if n not in board:
                        found.append((c, n))
            elif not self.locked(board, c):
                found.append((c, c))
        return found

    def flipped(self, board: Board, flip: tuple[Coord, Coord]) -> Board:
        source, target = flip
        owner, letter = board[source]
        other = LETTERS[owner][1] if letter == LETTERS[owner][0] else LETTERS[owner][0]
        new = dict(board)
        del new[source]
        new[target] = (owner, other)
        return new

    def moves(self, pos: dict[str, Any]) -> list[str]:
        board: Board = pos["board"]
        if pos["winner"] is not None or len(board) == 16:
            return []
        me = len(board) % 2
        out = []
        flips: list[tuple[Coord, Coord] | None] = list(self.flips(board, me)) or [None]
        for flip in flips:
            after = board if flip is None else self.flipped(board, flip)
            prefix = ""
            if flip is not None:
                prefix = name(flip[0]) + ("-" + name(flip[1]) if self.flap else "") + "/"
            for c in EVERY_SQUARE:
                if c not in after:
                    out.extend(prefix + name(c) + letter for letter in LETTERS[me])
        return out

    def play(self, pos: dict[str, Any], text: str) -> dict[str, Any]:
        board: Board = pos["board"]
        me = len(board) % 2
        *flip_part, place = text.split("/")
        if flip_part:
            ends = flip_part[0].split("-")
            board = self.flipped(board, (coord(ends[0]), coord(ends[-1])))
        board = dict(board)
        board[coord(place[:2])] = (me, place[2])
        has_row = [self.has_row(board, p) for p in (0, 1)]
        order = (me, 1 - me) if self.mover_first else (1 - me, me)
        winner = next((p for p in order if has_row[p]), None)
        return {"board": board, "winner": winner}

    def has_row(self, board: Board, player: int) -> bool:
        for start in EVERY_SQUARE:
            for step in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(start[0] + i * step[0], start[1] + i * step[1]) for i in range(3)]
                if not all(c in board and board[c][0] == player for c in cells):
                    continue
                if len({board[c][1] for c in cells}) == 1 and all(
                    self.locked(board, c) for c in cells
                ):
                    return True
        return False

    def returns(self, pos: dict[str, Any]) -> tuple[int, int]:
        if pos["winner"] is None:
            return (0, 0)
        return (1, -1) if pos["winner"] == 0 else (-1, 1)

    def perft(self, pos: dict[str, Any], depth: int) -> int:
        moves = self.moves(pos)
        if depth == 1:
            return len(moves)
        return sum(self.perft(self.play(pos, m), depth - 1) for m in moves)


OPTION_SETS = [
    {"flip": "inplace", "lock": "king"},
    {"flip": "inplace", "lock": "orthogonal"},
    {"flip": "flap", "lock": "king"},
    {"flip": "flap", "lock": "orthogonal"},
]
GOLDEN_3 = {
    ("inplace", "king"): [32, 960, 26880],
    ("inplace", "orthogonal"): [32, 960, 26880],
    ("flap", "king"): [32, 2880, 224000],
    ("flap", "orthogonal"): [32, 2880, 224000],
}


def _id(options: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def lockstep(state: State, ref: Reference, pos: dict[str, Any], depth: int) -> int:
    """perft(depth), comparing the engine's moves and returns with the reference at every
    inner node; a mismatch names the line and the first differing moves."""
    engine = sorted(state.action_to_string(a) for a in state.legal_actions())
    simple = sorted(ref.moves(pos))
    line = " ".join(state.history_notation())
    assert engine == simple, (
        f"after [{line}]: engine only {sorted(set(engine) - set(simple))[:8]}, "
        f"reference only {sorted(set(simple) - set(engine))[:8]}"
    )
    assert state.returns() == ref.returns(pos), f"after [{line}]: returns differ"
    if depth <= 1:
        return len(engine) if depth == 1 else 1
    return sum(
        lockstep(state.apply(a), ref, ref.play(pos, state.action_to_string(a)), depth - 1)
        for a in state.legal_actions()
    )


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_perft_from_the_start_matches_golden_counts_and_the_reference(options):
    """perft 1..3 from the empty board: engine == reference == golden counts."""
    game = make("rubiks-flip", options)
    golden = GOLDEN_3[(options["flip"], options["lock"])]
    counts = perft_counts(game.new_initial_state(), 3)
    ref = Reference(options)
    assert counts == golden, divide(game.new_initial_state(), 3)
    assert [ref.perft(ref.start(), d) for d in (1, 2, 3)] == golden


@pytest.mark.parametrize(
    ("options", "golden"),
    [({"lock": "king"}, 1397760), ({"lock": "orthogonal"}, 1394432)],
    ids=["king", "orthogonal"],
)
def test_perft_4_in_place(options, golden):
    """perft(4) with in-place flips (orthogonal locks differ: a corner locks with 2 tiles)."""
    assert perft_counts(make("rubiks-flip", options).new_initial_state(), 4)[-1] == golden


def _random_position(game_options: dict[str, str], seed: int, plies: int) -> State:
    rng = random.Random(seed)
    state = make("rubiks-flip", game_options).new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(rng.choice(state.legal_actions()))
    return state


#: 2 to 5 s of CPU per option set: the fast loop counts late positions with in-place flips and
#: orthogonal locks (the cheapest), CI (-m slow) with the other three too; whole random games
#: of every option set are checked move by move below in both.
LATE_OPTION_SETS = [
    pytest.param(
        o, marks=() if o == {"flip": "inplace", "lock": "orthogonal"} else pytest.mark.slow
    )
    for o in OPTION_SETS
]


@pytest.mark.parametrize("options", LATE_OPTION_SETS, ids=_id)
def test_perft_3_from_random_late_positions_matches_the_reference(options):
    """Late in the game (locks, wins and full boards happen) both generators agree."""
    ref = Reference(options)
    counts = []
    for seed in range(4):
        state = _random_position(options, seed, plies=10 + seed % 3)
        pos = ref.start()
        for text in state.history_notation():
            pos = ref.play(pos, text)
        counts.append(lockstep(state, ref, pos, 3))
        assert counts[-1] == perft_counts(state, 3)[-1]
    assert sum(counts) > 0


@pytest.mark.parametrize("both", ["mover", "opponent"])
@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_random_games_agree_move_by_move_with_the_reference(options, both):
    """Whole random games: same legal moves at every ply and the same result."""
    options = {**options, "both": both}
    ref = Reference(options)
    game = make("rubiks-flip", options)
    rng = random.Random(2026)
    for _ in range(60):
        state, pos = game.new_initial_state(), ref.start()
        while True:
            lockstep(state, ref, pos, 0)
            if state.is_terminal():
                break
            action = rng.choice(state.legal_actions())
            pos = ref.play(pos, state.action_to_string(action))
            state = state.apply(action)
