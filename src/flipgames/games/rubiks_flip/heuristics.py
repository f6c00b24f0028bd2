"""Rubik's Flip position evaluation for depth-limited search.

A player wins with a *locked row*: three of their own tiles showing one colour on a line, every
square around them occupied. So the evaluation scores each player's **live rows**: rows (of the
24) holding only that player's tiles, all showing one colour. A row with a tile of the other
player can never be theirs (with ``flip=inplace`` tiles never move), and a row showing both of
their colours needs the opponent to flip one of them for it, which the opponent will not do.

A live row counts more

* with more tiles in it (one, two or three: three is one locking away from the win);
* per **locked** tile in it: a locked tile can never be flipped, so that part of the row is
  permanent, while every unlocked tile is one mandatory flip from spoiling the row;
* the fewer empty squares remain around it, i.e. the closer it is to locking.

The difference between the players is squashed into (-1, 1) by ``tanh``.

>>> from flipgames import make
>>> state = make("rubiks-flip").new_initial_state()
>>> state.evaluate(0)
0.0
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

from flipgames.games.rubiks_flip.board import FULL, LINES

if TYPE_CHECKING:
    from flipgames.games.rubiks_flip.rules import RubiksFlipState

#: Value of a live row by the number of the player's tiles in it (0 to 3).
ROW_WEIGHT: Final = (0.0, 0.03, 0.12, 0.4)
#: Extra value per locked tile in a live row, as a fraction of the row's weight.
LOCKED_BONUS: Final = 0.5


def live_rows(state: RubiksFlipState, player: int) -> float:
    """The weighted sum of ``player``'s live rows (see the module docstring).

    >>> from flipgames import make
    >>> game = make("rubiks-flip")
    >>> # First: a1 red; second flips it to blue and places c3 yellow; first flips c3 to white
    >>> # and places b1 blue: a1 b1 are a live blue pair for the first player.
    >>> state = game.state_from_actions(["a1R", "a1/c3Y", "c3/b1B"])
    >>> live_rows(state, 0) > live_rows(state, 1) > 0
    True
    """
    tiles = state.tiles
    mine, theirs = tiles[player], tiles[1 - player]
    faces = state.faces
    occupied = mine | theirs
    empty = FULL ^ occupied
    locked = state.locked_mask()
    spread = state.spread
    total = 0.0
    for line in LINES:
        own = mine & line
        if not own or theirs & line:
            continue
        shown = faces & own
        if shown and shown != own:
            continue  # both colours: only the opponent could fix that
        weight = ROW_WEIGHT[own.bit_count()] * (1 + LOCKED_BONUS * (locked & own).bit_count())
        # Squares still to fill before the whole row is locked (its own empties included).
        missing = (spread(line) & empty).bit_count()
        total += weight / (1 + missing / 4)
    return total


def evaluate(state: RubiksFlipState, player: int) -> float:
    """Estimate ``state.returns()[player]`` in (-1, 1); the true return once the game is over.

    >>> from flipgames import make
    >>> state = make("rubiks-flip").state_from_actions(["a1R", "a1/c3Y", "c3/b1B"])
    >>> state.evaluate(0) == -state.evaluate(1) and state.evaluate(0) > 0
    True
    """
    if state.is_terminal():
        return float(state.returns()[player])
    return math.tanh(live_rows(state, player) - live_rows(state, 1 - player))
