"""A second, independent checker of flipgames proof files (FlipFlop 5x5 and 3x3, FlipFour).

This script imports nothing from flipgames: its rules are written again here from the
rulebook and the project's rulings (docs/rulings.md), with their own board, move generator
and notation parser, so that a proof accepted by both this script and
``flipgames solve GAME --check FILE`` (the package's checker on the reference rules) rests
on two separate readings of the rules. Standard library only; run it with any Python 3.10+:

    python3 tools/check_proof.py PROOF.jsonl

It prints what the proof proves and exits 0, or names the first bad position and exits 1.

The format (docs/solvers.md): the first line is the claim ``{"game", "start", "value"}``,
``value`` being ``win`` or ``loss`` for the side to move at ``start``; every other line is a
prover position ``{"position", "value": "win", "move"}``. Positions may be stored up to the
game's symmetries (FlipFlop: the left-right mirror; FlipFour: the square's 8). The check: at
every prover position reached from the start a listed move is legal; after it, the game is
won, or every legal reply reaches a listed prover position or a prover win; and no line
meets a position (up to symmetry) twice, so no repetition can rescue the defender. Draw
claims are not checked here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

WHITE, BLACK = 0, 1
ROOK_LINES = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_LINES = ((1, 1), (1, -1), (-1, 1), (-1, -1))

#: A board: one entry per square (index rank * size + file, a1 = 0), None or (side, face)
#: with face "R" (the + side, rook moves) or "B" (the x side, bishop moves).
Piece = tuple[int, str]


@dataclass(frozen=True)
class Position:
    board: tuple[Piece | None, ...]
    to_move: int
    #: FlipFour: the pieces in hand (White's, Black's); FlipFlop: None.
    hand: tuple[int, int] | None


class BadProof(Exception):
    """The proof does not prove its claim."""


@dataclass(frozen=True)
class Rules:
    game: str
    size: int

    @property
    def flipfour(self) -> bool:
        return self.game == "flipfour"

    # Notation -------------------------------------------------------------------------
    def square(self, name: str) -> int:
        file, rank = ord(name[0]) - ord("a"), int(name[1:]) - 1
        if not (0 <= file < self.size and 0 <= rank < self.size):
            raise BadProof(f"no square {name!r} on this board")
        return rank * self.size + file

    def name(self, square: int) -> str:
        return f"{chr(ord('a') + square % self.size)}{square // self.size + 1}"

    def parse(self, text: str) -> Position:
        fields = text.split()
        expected = 3 if self.flipfour else 2
        if len(fields) != expected:
            raise BadProof(f"position {text!r}: expected {expected} fields")
        ranks = fields[0].split("/")
        if len(ranks) != self.size:
            raise BadProof(f"position {text!r}: expected {self.size} ranks")
        board: list[Piece | None] = [None] * (self.size * self.size)
        for row, rank_text in enumerate(ranks):
            rank, file = self.size - 1 - row, 0
            for char in rank_text:
                if char.isdigit():
                    file += int(char)
                    continue
                if char.upper() not in "RB" or file >= self.size:
                    raise BadProof(f"position {text!r}: bad rank {rank_text!r}")
                side = WHITE if char.isupper() else BLACK
                board[rank * self.size + file] = (side, char.upper())
                file += 1
            if file != self.size:
                raise BadProof(f"position {text!r}: rank {rank_text!r} is not {self.size} wide")
        if fields[1] not in ("w", "b"):
            raise BadProof(f"position {text!r}: side to move must be w or b")
        hand = None
        if self.flipfour:
            if len(fields[2]) != 2 or not fields[2].isdigit():
                raise BadProof(f"position {text!r}: pieces in hand must be two digits")
            hand = (int(fields[2][0]), int(fields[2][1]))
        return Position(tuple(board), WHITE if fields[1] == "w" else BLACK, hand)

    # Symmetry ------------------------------------------------------------------------
    def images(self, position: Position) -> Iterator[Position]:
        """The position under each symmetry of the rules (itself first)."""
        n = self.size
        maps: list[Callable[[int, int], tuple[int, int]]] = [
            lambda f, r: (f, r),
            lambda f, r: (n - 1 - f, r),
        ]
        if self.flipfour:  # the square's 8: FlipFour's rules have no goal or direction
            maps += [
                lambda f, r: (f, n - 1 - r),
                lambda f, r: (n - 1 - f, n - 1 - r),
                lambda f, r: (r, f),
                lambda f, r: (n - 1 - r, f),
                lambda f, r: (r, n - 1 - f),
                lambda f, r: (n - 1 - r, n - 1 - f),
            ]
        for move in maps:
            board: list[Piece | None] = [None] * (n * n)
            for square, piece in enumerate(position.board):
                file, rank = move(square % n, square // n)
                board[rank * n + file] = piece
            yield Position(tuple(board), position.to_move, position.hand)

    # Moves -----------------------------------------------------------------------------
    def goal(self, side: int) -> int:
        """The goal square that belongs to ``side`` (FlipFlop: the middle of its first rank)."""
        middle = self.size // 2
        return middle if side == WHITE else (self.size - 1) * self.size + middle

    def rays(self, square: int, face: str) -> Iterator[list[int]]:
        n = self.size
        for df, dr in ROOK_LINES if face == "R" else BISHOP_LINES:
            file, rank, ray = square % n + df, square // n + dr, []
            while 0 <= file < n and 0 <= rank < n:
                ray.append(rank * n + file)
                file, rank = file + df, rank + dr
            yield ray

    def moves(self, p: Position) -> dict[str, Position]:
        """Every legal move of the side to move, by its notation, and where it leads."""
        result: dict[str, Position] = {}
        if self.flipfour and p.hand is not None and p.hand[p.to_move] > 0:
            hand = list(p.hand)
            hand[p.to_move] -= 1
            for square, piece in enumerate(p.board):
                if piece is None:
                    for face in "RB":
                        board = list(p.board)
                        board[square] = (p.to_move, face)
                        result[f"{face}@{self.name(square)}"] = Position(
                            tuple(board), 1 - p.to_move, (hand[0], hand[1])
                        )
        own_goal = None if self.flipfour else self.goal(p.to_move)
        in_check = own_goal is not None and _side(p.board[own_goal]) == 1 - p.to_move
        goals = () if self.flipfour else (self.goal(WHITE), self.goal(BLACK))
        for square, piece in enumerate(p.board):
            if piece is None or piece[0] != p.to_move:
                continue
            for ray in self.rays(square, piece[1]):
                for target in ray:
                    occupant = p.board[target]
                    if occupant is not None:
                        if self.flipfour:
                            continue  # FlipFour pieces leap over others, never capture
                        if occupant[0] != p.to_move and target in goals:
                            self._add(result, p, square, target, "x", in_check, own_goal)
                        break  # FlipFlop pieces never leap
                    self._add(result, p, square, target, "-", in_check, own_goal)
        return result

    def _add(
        self,
        result: dict[str, Position],
        p: Position,
        source: int,
        target: int,
        sign: str,
        in_check: bool,
        own_goal: int | None,
    ) -> None:
        if in_check and not (sign == "x" and target == own_goal):
            return  # in check, only a capture of the piece on one's own goal is legal
        board = list(p.board)
        side, face = board[source]  # type: ignore[misc]
        board[source] = None
        board[target] = (side, "B" if face == "R" else "R")  # the moved piece flips
        name = f"{self.name(source)}{sign}{self.name(target)}"
        result[name] = Position(tuple(board), 1 - p.to_move, p.hand)

    def winner(self, p: Position, mover: int) -> int | None:
        """Who has won after ``mover``'s action led to ``p``, or None (play goes on)."""
        if self.flipfour and self._four(p.board, mover):
            return mover
        if not self.moves(p):
            return mover  # the side to move has no legal move (checkmate, no pieces): it loses
        return None

    def _four(self, board: tuple[Piece | None, ...], side: int) -> bool:
        n = self.size
        for square in range(n * n):
            for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                file, rank = square % n, square // n
                cells = [(file + k * df, rank + k * dr) for k in range(4)]
                if all(0 <= f < n and 0 <= r < n for f, r in cells) and all(
                    _side(board[r * n + f]) == side for f, r in cells
                ):
                    return True
        return False


def _side(piece: Piece | None) -> int | None:
    return None if piece is None else piece[0]


def rules_for(game: str) -> Rules:
    sizes = {"flipflop": 5, "flipflop-3x3": 3, "flipfour": 5}
    if game not in sizes:
        raise BadProof(f"this checker knows FlipFlop and FlipFour, not {game!r}")
    return Rules(game, sizes[game])


def check(lines: list[dict[str, str]]) -> tuple[str, int]:
    """Check a proof's lines; returns the claim's value and how many prover positions the
    replay reached. Raises BadProof naming the first position that fails."""
    if not lines or "game" not in lines[0]:
        raise BadProof('the first line must be the claim {"game", "start", "value"}')
    claim = lines[0]
    rules = rules_for(claim["game"])
    if not isinstance(claim.get("start"), str):
        raise BadProof('the claim names no "start" position')
    if claim.get("value") not in ("win", "loss"):
        raise BadProof(f"claim {claim.get('value')!r}: this checker checks wins and losses")
    strategy: dict[Position, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = (line.get("position"), line.get("move"))
        if line.get("value") != "win" or not all(isinstance(f, str) for f in fields):
            raise BadProof(f"line {number}: expected a prover position with value win")
        strategy[rules.parse(line["position"])] = line["move"]
    start = rules.parse(claim["start"])
    prover = start.to_move if claim["value"] == "win" else 1 - start.to_move
    done: set[Position] = set()
    on_line: set[Position] = set()

    def listed(p: Position, text: str) -> tuple[Position, Position]:
        """The stored image of prover position ``p`` and its class key."""
        images = list(rules.images(p))
        key = min(images, key=repr)
        for image in images:
            if image in strategy:
                return image, key
        raise BadProof(f"prover position {text} is not in the proof")

    # Depth-first, with an explicit stack: a proof line can be hundreds of plies long.
    stack: list[tuple[Position, Iterator[Position] | None]] = []

    def enter(p: Position) -> None:
        """Push prover position ``p`` with the opponent positions its listed move leads to."""
        image, key = listed(p, describe(rules, p))
        if key in on_line:
            raise BadProof(f"position {describe(rules, p)} repeats on a line of the proof")
        if key in done:
            stack.append((key, None))
            return
        on_line.add(key)
        move = strategy[image]
        after = rules.moves(image).get(move)
        if after is None:
            raise BadProof(f"at {describe(rules, image)} the listed move {move} is not legal")
        if rules.winner(after, prover) == prover:
            stack.append((key, iter(())))
            return
        stack.append((key, replies(after)))

    def replies(p: Position) -> Iterator[Position]:
        for reply, next_position in rules.moves(p).items():
            outcome = rules.winner(next_position, 1 - prover)
            if outcome == 1 - prover:
                raise BadProof(f"at {describe(rules, p)} the reply {reply} wins for the defender")
            yield next_position

    if prover == start.to_move:
        enter(start)
    else:
        stack.append((start, replies(start)))
    while stack:
        key, pending = stack[-1]
        following = next(pending, None) if pending is not None else None
        if following is None:
            stack.pop()
            if pending is not None and key in on_line:
                on_line.discard(key)
                done.add(key)
            continue
        enter(following)
    return claim["value"], len(done)


def describe(rules: Rules, p: Position) -> str:
    """A position in the proof's notation."""
    ranks = []
    for rank in range(rules.size - 1, -1, -1):
        text, empty = "", 0
        for file in range(rules.size):
            piece = p.board[rank * rules.size + file]
            if piece is None:
                empty += 1
                continue
            text += (str(empty) if empty else "") + (
                piece[1] if piece[0] == WHITE else piece[1].lower()
            )
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    tail = "" if p.hand is None else f" {p.hand[0]}{p.hand[1]}"
    return f"{'/'.join(ranks)} {'w' if p.to_move == WHITE else 'b'}{tail}"


def read(path: str) -> list[dict[str, str]]:
    """The proof's lines, or BadProof naming the file's problem and the line."""
    try:
        with open(path, encoding="utf-8") as handle:
            texts = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadProof(f"cannot read it ({exc.__class__.__name__}: {exc})") from None
    lines = []
    for number, text in enumerate(texts, start=1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
        except ValueError as exc:
            raise BadProof(f"line {number} is not JSON ({exc})") from None
        if not isinstance(line, dict):
            raise BadProof(f"line {number} is not a JSON object")
        lines.append(line)
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 tools/check_proof.py PROOF.jsonl", file=sys.stderr)
        return 2
    try:
        lines = read(argv[1])
        value, reached = check(lines)
    except BadProof as exc:
        print(f"check_proof: {argv[1]}: {exc}", file=sys.stderr)
        return 1
    claim = lines[0]
    side = "the side to move" if value == "win" else "the side not to move"
    print(
        f"{claim['game']} from {claim['start']}: {side} wins; proof accepted "
        f"({reached:,} prover positions reached of {len(lines) - 1:,} listed)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
