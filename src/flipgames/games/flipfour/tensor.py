"""FlipFour's observation tensor: ``(8, 5, 5)`` float32 planes, seen by one player.

Plane ``[p, rank, file]`` (``[p, 0, 0]`` is a1):

== =====================================================================
0  the viewer's pieces showing ``+`` (rook face)
1  the viewer's pieces showing ``x`` (bishop face)
2  the opponent's pieces showing ``+``
3  the opponent's pieces showing ``x``
4  the viewer's pieces in hand / 4, on every square
5  the opponent's pieces in hand / 4, on every square
6  all ones when the viewer is to move (and the game is not over)
7  all ones when this position has occurred before (a third time would draw)
== =====================================================================

>>> from flipgames import make
>>> state = make("flipfour").new_initial_state()
>>> state = state.apply(state.parse_action("B@c3"))
>>> planes = state.observation_tensor(0)
>>> float(planes[1, 2, 2]), planes[[4, 5, 6], 0, 0].tolist()
(1.0, [0.75, 1.0, 0.0])
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from flipgames.games.flipfour.board import NUM_SQUARES, SIZE

PLANES: Final = 8
SHAPE: Final = (PLANES, SIZE, SIZE)
_HAND: Final = 4.0


def _bits(mask: int) -> npt.NDArray[np.float32]:
    return np.array([mask >> s & 1 for s in range(NUM_SQUARES)], dtype=np.float32)


def encode(
    pieces: tuple[int, int],
    bishops: int,
    hands: tuple[int, int],
    side: int,
    occurrences: int,
    terminal: bool,
    player: int,
) -> npt.NDArray[np.float32]:
    """The planes above from the bitboards (``pieces`` per colour) for ``player``."""
    mine, theirs = pieces[player], pieces[1 - player]
    planes = np.zeros((PLANES, NUM_SQUARES), dtype=np.float32)
    planes[0] = _bits(mine & ~bishops)
    planes[1] = _bits(mine & bishops)
    planes[2] = _bits(theirs & ~bishops)
    planes[3] = _bits(theirs & bishops)
    planes[4] = hands[player] / _HAND
    planes[5] = hands[1 - player] / _HAND
    planes[6] = float(side == player and not terminal)
    planes[7] = float(occurrences >= 2)
    return planes.reshape(SHAPE)
