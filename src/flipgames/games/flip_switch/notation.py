"""Flip Switch notation and action ids: squares, flips, switches, ``pass`` and shapes.

Squares are named file letter then rank number (``a1`` is the first player's left corner) and
numbered rank-major from ``a1 = 0``: on 3x3 ``b1 = 1``, ``a2 = 3``, ``c3 = 8``.

Action ids are dense, in this order (``n = size * size`` squares, ``m = 2 * size * (size - 1)``
orthogonally adjacent pairs, ``k`` shapes):

====================  ===============================  ==========================
ids                   action                           notation
====================  ===============================  ==========================
``0 .. n-1``          flip the tile on square ``id``   ``b2``
``n .. n+m-1``        switch pair ``id - n``           ``a1-a2``
``n+m``               pass (option ``no_move=pass``)   ``pass``
``n+m+1 .. n+m+k``    chance: the flip shows shape     ``heart``
====================  ===============================  ==========================

Pairs are listed by their lower square, then the right neighbour before the upper one; a
switch prints lower square first. On the standard 3x3 board with 3 shapes that is flips
``0..8``, switches ``9..20`` (``a1-b1``, ``a1-a2``, ``b1-c1``, ``b1-b2``, ...), ``pass`` 21 and
``heart`` 22, ``square`` 23, ``star`` 24.

Input is case-insensitive and may carry surrounding spaces; a switch may name its squares in
either order; a shape may be abbreviated to any prefix that names only one of the game's
shapes (``h``, ``sq``, ``st``).

>>> layout = action_layout(3, 3)
>>> layout.parse("b2"), layout.parse("a2-A1"), layout.parse("pass"), layout.parse("St")
(4, 10, 21, 24)
>>> [layout.to_string(a) for a in (4, 10, 21, 24)]
['b2', 'a1-a2', 'pass', 'star']
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

from flipgames.core.errors import IllegalActionError, NotationError, quote
from flipgames.core.grid import grid

#: A tile square holding no revealed shape (face down).
FACE_DOWN: Final = -1
#: ``owners[shape]`` for a shape not yet nullified; otherwise the crediting player.
UNCLAIMED: Final = -1
#: ``last`` when the previous turn was not a switch (a flip, a pass, or none yet).
NO_SWITCH: Final = -1
#: A round result meaning the round was drawn (otherwise the winning player).
DRAWN: Final = -1

#: Shape names in order; a game with ``k`` shapes uses the first ``k``.
SHAPE_NAMES: Final = (
    "heart",
    "square",
    "star",
    "circle",
    "triangle",
    "diamond",
    "cross",
    "moon",
)

# Explicit ASCII classes: ``\d`` and ``\w`` would also accept other scripts' characters.
_SQUARE = re.compile(r"([a-z])([0-9]{1,2})")
_SWITCH = re.compile(r"([a-z][0-9]{1,2})-([a-z][0-9]{1,2})")
_WORD = re.compile(r"[a-z]+")


def square_name(square: int, size: int) -> str:
    """The name of ``square`` on a ``size`` x ``size`` board.

    >>> square_name(0, 3), square_name(4, 3), square_name(15, 4)
    ('a1', 'b2', 'd4')
    """
    return grid(size).name(square)


def orthogonal_pairs(size: int) -> tuple[tuple[int, int], ...]:
    """Every orthogonally adjacent pair of squares, in action id order.

    >>> orthogonal_pairs(2)
    ((0, 1), (0, 2), (1, 3), (2, 3))
    """
    pairs: list[tuple[int, int]] = []
    for square in range(size * size):
        if square % size < size - 1:
            pairs.append((square, square + 1))
        if square + size < size * size:
            pairs.append((square, square + size))
    return tuple(pairs)


class ActionLayout:
    """Action ids <-> notation for one board size and shape count (see the module doc)."""

    __slots__ = (
        "size",
        "squares",
        "shapes",
        "pairs",
        "switch_base",
        "pass_id",
        "outcome_base",
        "num_actions",
        "_square_ids",
        "_pair_ids",
    )

    def __init__(self, size: int, shapes: int) -> None:
        self.size = size
        self.squares = tuple(square_name(s, size) for s in range(size * size))
        self.shapes: tuple[str, ...] = SHAPE_NAMES[:shapes]
        self.pairs = orthogonal_pairs(size)
        self.switch_base = len(self.squares)
        self.pass_id = self.switch_base + len(self.pairs)
        self.outcome_base = self.pass_id + 1
        self.num_actions = self.outcome_base + shapes
        self._square_ids = grid(size).index
        self._pair_ids = {pair: p for p, pair in enumerate(self.pairs)}

    def to_string(self, action: int) -> str:
        """The canonical notation of ``action``.

        >>> action_layout(3, 3).to_string(25)
        Traceback (most recent call last):
        ...
        flipgames.core.errors.IllegalActionError: no Flip Switch action has id 25: ids run 0 to 24
        """
        if 0 <= action < self.switch_base:
            return self.squares[action]
        if self.switch_base <= action < self.pass_id:
            low, high = self.pairs[action - self.switch_base]
            return f"{self.squares[low]}-{self.squares[high]}"
        if action == self.pass_id:
            return "pass"
        if self.outcome_base <= action < self.num_actions:
            return self.shapes[action - self.outcome_base]
        raise IllegalActionError(
            f"no Flip Switch action has id {action}: ids run 0 to {self.num_actions - 1}"
        )

    def parse(self, text: str) -> int:
        """The action id ``text`` names, whether or not it is legal in some position.

        Raises :class:`NotationError` for text that names no action, and
        :class:`IllegalActionError` for a switch of two squares that are not orthogonal
        neighbours (well formed, but never legal).

        >>> action_layout(3, 3).parse("a1-c3")
        Traceback (most recent call last):
        ...
        flipgames.core.errors.IllegalActionError: 'a1-c3' is not legal: a switch swaps two \
orthogonally adjacent tiles, and a1 and c3 are not neighbours
        >>> action_layout(3, 3).parse("s")
        Traceback (most recent call last):
        ...
        flipgames.core.errors.NotationError: 's' is ambiguous: it could be square or star
        """
        if not isinstance(text, str):
            raise NotationError(f"{quote(text)} is not text: {self.expected()}")
        cleaned = text.strip().lower()
        if _SQUARE.fullmatch(cleaned):
            return self._square(cleaned, text)
        switch = _SWITCH.fullmatch(cleaned)
        if switch is not None:
            first, second = self._square(switch[1], text), self._square(switch[2], text)
            low, high = min(first, second), max(first, second)
            pair = self._pair_ids.get((low, high))
            if pair is None:
                why = (
                    "a tile cannot switch with itself"
                    if low == high
                    else f"{self.squares[low]} and {self.squares[high]} are not neighbours"
                )
                raise IllegalActionError(
                    f"{quote(text)} is not legal: a switch swaps two orthogonally adjacent tiles, "
                    f"and {why}"
                )
            return self.switch_base + pair
        if cleaned == "pass":
            return self.pass_id
        if _WORD.fullmatch(cleaned):
            matches = [k for k, name in enumerate(self.shapes) if name.startswith(cleaned)]
            if len(matches) == 1:
                return self.outcome_base + matches[0]
            if matches:
                names = " or ".join(self.shapes[k] for k in matches)
                raise NotationError(f"{quote(text)} is ambiguous: it could be {names}")
        raise NotationError(f"{quote(text)} is not Flip Switch notation: {self.expected()}")

    def _square(self, name: str, text: str) -> int:
        square = self._square_ids.get(name)
        if square is None:
            raise NotationError(
                f"{quote(text)} names no square of the {self.size}x{self.size} board: squares run "
                f"a1 to {self.squares[-1]}"
            )
        return square

    def notation_help(self) -> str:
        """How to write an action, with examples (the terminal's in-game ``help``)."""
        return (
            "Flip a face-down tile: its square, e.g. b2. Switch two adjacent face-up tiles:\n"
            f"both squares, e.g. a1-a2. With no_move=pass: pass. Squares a1 to {self.squares[-1]}"
            ", any case.\nChance outcomes (drawn by the game) are the shape revealed: "
            f"{', '.join(self.shapes)}."
        )

    def expected(self) -> str:
        """The forms of notation, with examples, for error messages."""
        return (
            "expected a flip like 'b2', a switch like 'a1-a2', 'pass', or at a chance node "
            f"the shape the flip shows ({', '.join(self.shapes)})"
        )


@cache
def action_layout(size: int, shapes: int) -> ActionLayout:
    """The (shared, immutable) layout for a board size and shape count."""
    return ActionLayout(size, shapes)
