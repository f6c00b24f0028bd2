"""Checkered Flag notation and the dense action id layout.

Text notation (one form per action; parsing ignores surrounding spaces and letter case):

* gear choice ``1``, ``2``, ``3``; leaving a crash circle ``C2`` (from C3) or ``N`` (from C2):
  the gear circle the marker moves to;
* a spin in 1st or 2nd gear: the face value, ``4``; in 3rd gear Spinner A ``+`` Spinner B,
  ``2+5``;
* the start spin (``start=spin``): player 0's Spinner B ``:`` player 1's, ``5:3``.

Action ids, for spinners with ``nA`` faces on A and ``nB`` on B (faces in ascending order)::

    0 .. 4                        N, 1, 2, 3, C2 (the id is the gear circle code)
    5 .. 5+nA-1                   1st-gear spin, A face i
    then nB ids                   2nd-gear spin, B face j
    then nA*nB ids                3rd-gear spin, A face i and B face j: base + i*nB + j
    then nB*nB ids                start spin, player 0 face j0, player 1 face j1: base + j0*nB + j1
                                  (ties, j0 == j1, are never legal: ties spin again)

With the default spinners that is 68 ids: 0-4 gears, 5-7 A, 8-13 B, 14-31 A+B, 32-67 start.

>>> from flipgames.games.checkered_flag.tracks import load_spinners
>>> layout = ActionLayout(load_spinners("default"))
>>> layout.size, layout.to_string(2), layout.to_string(7), layout.to_string(31)
(68, '2', '3', '3+6')
>>> parse_token(" c2 "), parse_token("3")
(Token(kind='circle', values=(4,)), Token(kind='number', values=(3,)))
>>> parse_token("2+5"), parse_token("5:3")
(Token(kind='pair', values=(2, 5)), Token(kind='start', values=(5, 3)))
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from flipgames.core.errors import IllegalActionError, NotationError, quote
from flipgames.games.checkered_flag.tracks import Spinners

#: Phases of a position, as stored in the state (see :mod:`.rules`): the start spin, a gear
#: choice, a spin in the chosen gear (both chance), and the race over.
START: Final = 0
CHOOSE: Final = 1
SPIN: Final = 2
OVER: Final = 3

# Gear circle codes, as stored in the state. Codes 0-4 double as the ids of the actions that
# move the marker to that circle.
N: Final = 0
C2: Final = 4
C3: Final = 5
GEAR_NAMES: Final = ("N", "1", "2", "3", "C2", "C3")
#: Player action ids, one per circle the marker can be moved to (never C3: only a crash).
GEAR_ACTIONS: Final = 5

_CIRCLES = {"N": N, "C2": C2}
_TOKEN = re.compile(
    r"\s*(?:(?P<circle>[nN]|[cC]2)|(?P<x>[0-9]{1,6})(?:(?P<op>[+:])(?P<y>[0-9]{1,6}))?)\s*",
    re.ASCII,
)

EXPECTED: Final = (
    "a gear (1, 2 or 3, or C2 / N to leave a crash circle), a spin value (e.g. '4'; "
    "'2+5' for Spinner A + B in 3rd gear) or the start spins of B (e.g. '5:3')"
)


class Token(NamedTuple):
    """A well-formed action, before it is checked against a state.

    ``kind`` is ``circle`` (``N`` or ``C2``; values: the circle code), ``number`` (a gear
    ``1``-``3`` at a gear choice, a face value at a spin), ``pair`` (A face, B face) or
    ``start`` (player 0's B face, player 1's B face). What a number means depends on the
    state, so the state resolves tokens to ids.
    """

    kind: str
    values: tuple[int, ...]


def parse_token(text: str) -> Token:
    """Parse text in any of the notation's forms; raise :class:`NotationError` if malformed.

    >>> parse_token("first")
    Traceback (most recent call last):
    ...
    flipgames.core.errors.NotationError: malformed action 'first': expected a gear (1, 2 or 3, \
or C2 / N to leave a crash circle), a spin value (e.g. '4'; '2+5' for Spinner A + B in 3rd \
gear) or the start spins of B (e.g. '5:3')
    """
    if not isinstance(text, str):
        raise NotationError(f"action text must be a string, got {quote(text)}")
    match = _TOKEN.fullmatch(text)
    if match is None:
        raise NotationError(f"malformed action {quote(text)}: expected {EXPECTED}")
    if match["circle"] is not None:
        return Token("circle", (_CIRCLES[match["circle"].upper()],))
    x = int(match["x"])
    if match["op"] is None:
        return Token("number", (x,))
    return Token("pair" if match["op"] == "+" else "start", (x, int(match["y"])))


def notation_help() -> str:
    """How to write an action, with examples (the terminal's in-game ``help``)."""
    return (
        "Choose a gear: 1, 2 or 3, e.g. 3. On a crash circle the turn is moving the marker:\n"
        "C2 (from C3) or N (from C2), any case. Chance outcomes (drawn by the game): a spin\n"
        "value such as 4, Spinner A+B in 3rd gear such as 2+5, the start spins player 1:player 2\n"
        "such as 5:3."
    )


class ActionLayout:
    """The action ids of one spinner pair, with what each chance outcome means."""

    __slots__ = (
        "_a_index",
        "_b_index",
        "a_faces",
        "ab_base",
        "b_base",
        "b_faces",
        "moves",
        "size",
        "start_base",
        "start_first",
    )

    def __init__(self, spinners: Spinners) -> None:
        self.a_faces = tuple(face for face, _ in spinners.a)
        self.b_faces = tuple(face for face, _ in spinners.b)
        na, nb = len(self.a_faces), len(self.b_faces)
        self._a_index = {face: i for i, face in enumerate(self.a_faces)}
        self._b_index = {face: j for j, face in enumerate(self.b_faces)}
        self.b_base = GEAR_ACTIONS + na
        self.ab_base = self.b_base + nb
        self.start_base = self.ab_base + na * nb
        self.size = self.start_base + nb * nb
        # Spaces moved by each id (0 for ids that are not spins), so a spin is one lookup.
        moves = [0] * self.size
        for i, a in enumerate(self.a_faces):
            moves[GEAR_ACTIONS + i] = a
            for j, b in enumerate(self.b_faces):
                moves[self.ab_base + i * nb + j] = a + b
        for j, b in enumerate(self.b_faces):
            moves[self.b_base + j] = b
        self.moves = tuple(moves)
        # Who moves first after each start outcome (-1 for the never-legal ties).
        first = [-1] * self.size
        for j0, b0 in enumerate(self.b_faces):
            for j1, b1 in enumerate(self.b_faces):
                if b0 != b1:
                    first[self.start_base + j0 * nb + j1] = 0 if b0 > b1 else 1
        self.start_first = tuple(first)

    def a_id(self, face: int) -> int | None:
        """The 1st-gear spin id of Spinner A ``face``, None if A has no such face."""
        i = self._a_index.get(face)
        return None if i is None else GEAR_ACTIONS + i

    def b_id(self, face: int) -> int | None:
        """The 2nd-gear spin id of Spinner B ``face``, None if B has no such face."""
        j = self._b_index.get(face)
        return None if j is None else self.b_base + j

    def ab_id(self, a: int, b: int) -> int | None:
        """The 3rd-gear spin id of faces ``a`` (A) and ``b`` (B), None if either is missing."""
        i, j = self._a_index.get(a), self._b_index.get(b)
        return None if i is None or j is None else self.ab_base + i * len(self.b_faces) + j

    def start_id(self, b0: int, b1: int) -> int | None:
        """The start-spin id of player 0's ``b0`` and player 1's ``b1``, None if not faces."""
        j0, j1 = self._b_index.get(b0), self._b_index.get(b1)
        return None if j0 is None or j1 is None else self.start_base + j0 * len(self.b_faces) + j1

    def to_string(self, action: int) -> str:
        """The notation of any id of this layout (ids mean the same in every state)."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < self.size:
            raise IllegalActionError(f"no action has id {quote(action)}: ids are 0-{self.size - 1}")
        nb = len(self.b_faces)
        if action < GEAR_ACTIONS:
            return GEAR_NAMES[action]
        if action < self.b_base:
            return str(self.a_faces[action - GEAR_ACTIONS])
        if action < self.ab_base:
            return str(self.b_faces[action - self.b_base])
        if action < self.start_base:
            i, j = divmod(action - self.ab_base, nb)
            return f"{self.a_faces[i]}+{self.b_faces[j]}"
        j0, j1 = divmod(action - self.start_base, nb)
        return f"{self.b_faces[j0]}:{self.b_faces[j1]}"
