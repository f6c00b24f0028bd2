"""FlipFour position evaluation for depth-limited search.

Four of your pieces in a straight line win, so the evaluation looks at the 28 windows of four
squares (see :data:`~flipgames.games.flipfour.board.WINDOWS`). For each player it counts:

* **line potential**: every window holding none of the enemy's pieces, weighted by how many
  of the player's pieces are already in it (one, two or three: three is one short of a win);
* **threats**: the empty squares that would complete a window of three for the player, *and*
  that the player can actually fill on their next turn: by a drop while pieces are left in
  hand, or by a move of one of their pieces from outside the window whose current face
  reaches the square (pieces leap, so only the face and the square matter). One threat the
  side to move holds wins at once; two held by the other side are hard to stop both.

The difference between the players, plus a small bonus for the side to move, is squashed into
(-1, 1) by ``tanh``.

>>> from flipgames import make
>>> make("flipfour").new_initial_state().evaluate(0) > 0  # only the first move's tempo
True
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

from flipgames.games.flipfour.board import REACH, WINDOWS, squares

if TYPE_CHECKING:
    from flipgames.games.flipfour.rules import FlipFourState

#: Value of a window free of enemy pieces, by the number of the player's pieces in it.
WINDOW_WEIGHT: Final = (0.0, 0.02, 0.08, 0.25)
#: Value of each distinct square where the player can complete a four next turn.
THREAT: Final = 0.5
#: The side to move acts first: worth a little with everything else equal.
TEMPO: Final = 0.05


def threats(mine: int, enemy: int, bishops: int, in_hand: int) -> int:
    """The empty squares where a piece arriving next turn would complete a four for the
    player owning ``mine``, as a bitboard.

    >>> from flipgames.games.flipfour.board import SQUARE_INDEX
    >>> row = sum(1 << SQUARE_INDEX[s] for s in ("a1", "b1", "c1"))
    >>> [squares(threats(row, 0, 0, 1)), squares(threats(row, 0, 0, 0))]  # d1 by a drop
    [[3], []]
    """
    empty_all = ~(mine | enemy)
    found = 0
    for window in WINDOWS:
        own = mine & window
        if enemy & window or own.bit_count() != 3:
            continue
        gap = window & empty_all
        if in_hand:
            found |= gap
            continue
        for square in squares(mine & ~window):
            if REACH[bishops >> square & 1][square] & gap:
                found |= gap
                break
    return found


def potential(mine: int, enemy: int) -> float:
    """The weighted count of windows free of ``enemy`` (see the module docstring).

    >>> potential(0b1, 0) > potential(0b1, 0b10) > 0  # an enemy on b1 spoils a1's row
    True
    """
    total = 0.0
    for window in WINDOWS:
        if not enemy & window:
            total += WINDOW_WEIGHT[(mine & window).bit_count()]
    return total


def evaluate(state: FlipFourState, player: int) -> float:
    """Estimate ``state.returns()[player]`` in (-1, 1); the true return once the game is over.

    >>> from flipgames import make
    >>> state = make("flipfour").state_from_actions("R@a1 R@e5 R@b1 R@e4 R@c1".split())
    >>> state.evaluate(0) > 0.5 > -0.5 > state.evaluate(1)  # White threatens d1
    True
    """
    if state.is_terminal():
        return float(state.returns()[player])
    sides = (state.white, state.black)
    score = 0.0
    for colour in (0, 1):
        mine, enemy = sides[colour], sides[1 - colour]
        value = potential(mine, enemy)
        value += THREAT * threats(mine, enemy, state.bishops, state.hands[colour]).bit_count()
        score += value if colour == player else -value
    score += TEMPO if state.to_move == player else -TEMPO
    return math.tanh(score)
