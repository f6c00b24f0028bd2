"""An independent checker of game proofs written as JSON lines (``flipgames solve --proof``).

A proof file is one JSON object a line. The first is the claim, ``{"game": "flipfour",
"start": "<position>", "value": "win" | "draw" | "loss"}`` (the value for the side to move at
``start``); every other line is one position of a strategy, ``{"position": "<position>",
"value": ..., "move": "<action>"}``: the side to move there plays ``move`` and keeps
``value``. Positions may be stored up to the symmetries of the game's rules (the checker
tries each; :func:`images_for`): FlipFour's 8 of the square board, FlipFlop's left-right
mirror alone (its goals sit on the middle file of the first and last ranks), none for another
game; ``symmetric=False`` tries none.

The checker trusts nothing in the file: it replays every line with the game's reference rules
(:meth:`~flipgames.core.game.Game.from_position`, ``legal_actions``, ``apply``), never a
compiled kernel nor an endgame table (a prover that answered positions from tables, FlipFlop's,
lists their play to the end like any other), and checks:

- **win** (``loss``: the same for the other side, the *prover*): from the start, at each of
  the prover's positions a legal move is listed; after it, every legal reply of the opponent
  leads to a listed prover position or ends the game in a prover win, and no line from the
  start meets a listed position twice (the proof graph is acyclic, so no repetition is needed
  and none can rescue the opponent);
- **draw**: both sides hold a non-losing strategy: each side's listed positions form a closed
  set (every reply to a listed move reaches a listed position of that side or an end that is
  not its loss); a line that goes on forever is drawn by repetition. A line belongs to the
  strategy of the side to move in its position (each side only chooses where it moves), so
  a draw's lines need no other tag than their position's side to move.

>>> from flipgames import make
>>> game = make("flipfour")
>>> lines = [
...     {"game": "flipfour", "start": "5/5/RRR1b/bb3/b4 w 10", "value": "win"},
...     {"position": "5/5/RRR1b/bb3/b4 w 10", "value": "win", "move": "R@d3"},
... ]
>>> check(game, lines).value
'win'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flipgames.core.errors import FlipgamesError, quote
from flipgames.core.game import Game, State
from flipgames.core.manifest import has_manifest, manifest_of

VALUES = ("win", "draw", "loss")


class ProofCheckError(FlipgamesError, ValueError):
    """A proof that does not prove its claim; the message names the first bad position."""


@dataclass(frozen=True)
class Checked:
    """What a proof proved and how much of it the check used."""

    value: str
    start: str
    #: Strategy lines in the file, and the distinct ones the replay reached.
    listed: int
    used: int


def board_images(position: str) -> list[str]:
    """The position under the 8 symmetries of the square board (itself first): the board
    field (ranks separated by ``/``, digits counting empty squares) turned and mirrored, the
    other fields unchanged.

    >>> board_images("2R2/5/5/5/b4 w 33")[:3]
    ['2R2/5/5/5/b4 w 33', '2R2/5/5/5/4b w 33', 'b4/5/4R/5/5 w 33']
    """
    field, _, rest = position.partition(" ")
    rows = [_expand(rank) for rank in field.split("/")]
    size = len(rows)
    if any(len(row) != size for row in rows):
        return [position]
    images = []
    for turns in range(4):
        for mirrored in (False, True):
            grid = [row[::-1] for row in rows] if mirrored else rows
            for _ in range(turns):
                grid = ["".join(grid[size - 1 - r][c] for r in range(size)) for c in range(size)]
            images.append(f"{'/'.join(_compress(row) for row in grid)} {rest}")
    return images


def mirror_images(position: str) -> list[str]:
    """The position and its left-right mirror image (the files reversed).

    >>> mirror_images("rr1rr/5/5/5/RRRR1 w")
    ['rr1rr/5/5/5/RRRR1 w', 'rr1rr/5/5/5/1RRRR w']
    """
    return board_images(position)[:2]


#: The images of a position under each ``proof_symmetry`` of the manifests (as text).
SYMMETRIES: dict[str, Callable[[str], list[str]]] = {
    "none": lambda position: [position],
    "mirror": mirror_images,
    "square": board_images,
}


def images_for(game: Game) -> Callable[[str], list[str]]:
    """The images of a position under ``game``'s symmetries: its manifest's
    ``proof_symmetry`` (itself alone for a game without a manifest: no symmetry assumed)."""
    if not has_manifest(game):
        return SYMMETRIES["none"]
    return SYMMETRIES[manifest_of(game).proof_symmetry]


def _expand(rank: str) -> str:
    return "".join("." * int(c) if c.isdigit() else c for c in rank)


def _compress(row: str) -> str:
    out, empty = [], 0
    for c in row:
        if c == ".":
            empty += 1
            continue
        if empty:
            out.append(str(empty))
            empty = 0
        out.append(c)
    if empty:
        out.append(str(empty))
    return "".join(out)


def winner_of(state: State) -> int | None:
    """The winner of a finished two-player game by its returns, None for a draw."""
    first, second = state.returns()[:2]
    return None if first == second else (0 if first > second else 1)


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a proof file, one a line (blank lines skipped)."""
    try:
        with path.open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if not text.strip():
                    continue
                try:
                    item = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise ProofCheckError(f"{path}:{number}: not JSON ({exc.msg})") from None
                if not isinstance(item, dict):
                    raise ProofCheckError(f"{path}:{number}: not a JSON object")
                yield item
    except OSError as exc:
        raise ProofCheckError(f"cannot read {path}: {exc.strerror}") from None


class _Checker:
    """One check: the listed positions by canonical image, and the replay."""

    def __init__(self, game: Game, symmetric: bool) -> None:
        self.game = game
        self.images = images_for(game) if symmetric else None
        self.listed: dict[str, tuple[str, str, str]] = {}  # canonical -> position, value, move
        self.states: dict[str, State] = {}

    def canonical(self, position: str) -> str:
        return position if self.images is None else min(self.images(position))

    def add(self, item: dict[str, Any]) -> None:
        position, value, move = item.get("position"), item.get("value"), item.get("move")
        if not isinstance(position, str) or value not in VALUES or not isinstance(move, str):
            raise ProofCheckError(
                f"line {quote(item)}: needs a position, a value (win, draw or loss) and a move"
            )
        try:
            self.game.from_position(position)
        except FlipgamesError as exc:
            raise ProofCheckError(f"{position}: not a position ({exc})") from None
        self.listed.setdefault(self.canonical(position), (position, value, move))

    def after_listed(self, key: str, value: str) -> State:
        """The position after the listed move of the listed position ``key``."""
        position, listed_value, move = self.listed[key]
        if listed_value != value:
            raise ProofCheckError(f"{position}: value {listed_value}, but the claim needs {value}")
        state = self.game.from_position(position)
        try:
            action = state.parse_action(move)
        except FlipgamesError as exc:
            raise ProofCheckError(f"{position}: move {quote(move)} is not legal ({exc})") from None
        return state.apply(action)

    def successors(self, state: State, side: int, value: str) -> list[str]:
        """The listed positions of ``side`` that the opponent's replies at ``state`` reach
        (``state`` itself when ``side`` is to move there); an end or an unlisted position that
        the value does not allow is an error naming ``state``."""
        if state.is_terminal() or state.current_player == side:
            return self._reached(state, side, value, state)
        found: list[str] = []
        for action in state.legal_actions():
            found += self._reached(state.apply(action), side, value, state)
        return found

    def _reached(self, state: State, side: int, value: str, origin: State) -> list[str]:
        if state.is_terminal():
            winner = winner_of(state)
            if winner == side or (value == "draw" and winner is None):
                return []
            action = state.action
            how = "" if action is None else f"after {origin.action_to_string(action)} "
            raise ProofCheckError(
                f"{origin.position()}: {how}the game ends: {state.status_text()}, which a "
                f"{value} for {self.game.player_names[side]} does not allow"
            )
        key = self.canonical(state.position())
        if key not in self.listed:
            raise ProofCheckError(
                f"{origin.position()}: the reply reaching {state.position()} leads to no "
                f"listed position of {self.game.player_names[side]}"
            )
        return [key]

    def strategy(self, start: State, side: int, value: str, acyclic: bool) -> int:
        """Check ``side``'s strategy from ``start``; return how many listed positions it
        used. Depth first, so that a listed position met again on the current line is a
        cycle (refused when ``acyclic``)."""
        done: set[str] = set()
        on_line: set[str] = set()
        stack: list[tuple[str, Iterator[str]]] = []
        for root in self.successors(start, side, value):
            if root in done:
                continue
            stack.append((root, iter(self.successors(self.after_listed(root, value), side, value))))
            on_line.add(root)
            while stack:
                key, following = stack[-1]
                nxt = next(following, None)
                if nxt is None:
                    stack.pop()
                    on_line.discard(key)
                    done.add(key)
                elif nxt in on_line and acyclic:
                    raise ProofCheckError(
                        f"{self.listed[nxt][0]}: the proof returns to this position (a cycle: "
                        "a win must not need a repetition)"
                    )
                elif nxt not in done and nxt not in on_line:
                    after = self.after_listed(nxt, value)
                    stack.append((nxt, iter(self.successors(after, side, value))))
                    on_line.add(nxt)
        return len(done)


def check(game: Game, lines: Iterable[dict[str, Any]], symmetric: bool = True) -> Checked:
    """Check a proof (its JSON objects, the claim first); :class:`ProofCheckError` naming the
    first bad position, else what it proved."""
    items = iter(lines)
    claim = next(items, None)
    if claim is None or "start" not in claim:
        raise ProofCheckError('the first line must be the claim: {"game", "start", "value"}')
    if claim.get("game") != game.name:
        raise ProofCheckError(f"the proof is for {quote(claim.get('game'))}, not {game.name}")
    value, start_text = claim.get("value"), claim.get("start")
    if value not in VALUES or not isinstance(start_text, str):
        raise ProofCheckError("the claim needs a start position and a value: win, draw or loss")
    try:
        start = game.from_position(start_text)
    except FlipgamesError as exc:
        raise ProofCheckError(f"{start_text}: not a position ({exc})") from None
    if start.is_terminal():
        raise ProofCheckError(f"{start_text}: the game is over there ({start.status_text()})")
    checker = _Checker(game, symmetric)
    for item in items:
        checker.add(item)
    mover = start.current_player
    if value == "draw":
        used = sum(checker.strategy(start, side, "draw", acyclic=False) for side in (0, 1))
    else:
        used = checker.strategy(start, mover if value == "win" else 1 - mover, "win", acyclic=True)
    return Checked(value=value, start=start_text, listed=len(checker.listed), used=used)


def check_file(game: Game, path: Path, symmetric: bool = True) -> Checked:
    """:func:`check` on a proof file."""
    return check(game, read_lines(path), symmetric)
