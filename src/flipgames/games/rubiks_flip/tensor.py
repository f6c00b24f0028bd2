"""Rubik's Flip's observation tensor: ``(8, 4, 4)`` float32 planes, seen by one player.

Plane ``[p, rank, file]`` (``[p, 0, 0]`` is a1):

== =====================================================================
0  the viewer's tiles showing their first colour (R for the first player, Y for the second)
1  the viewer's tiles showing their second colour (B, W)
2  the opponent's tiles showing their first colour
3  the opponent's tiles showing their second colour
4  locked tiles (every neighbour inside the board occupied)
5  the viewer's tiles in hand / 8, on every square
6  the opponent's tiles in hand / 8, on every square
7  all ones when the viewer is to move (and the game is not over)
== =====================================================================

>>> from flipgames import make
>>> state = make("rubiks-flip").new_initial_state()
>>> state = state.apply(state.parse_action("a1B"))
>>> planes = state.observation_tensor(1)
>>> planes[[3, 5, 6, 7], 0, 0].tolist()  # their B on a1, hands, Yellow/White to move
[1.0, 1.0, 0.875, 1.0]
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

_SIZE: Final = 4
_SQUARES: Final = _SIZE * _SIZE
PLANES: Final = 8
SHAPE: Final = (PLANES, _SIZE, _SIZE)
_HAND: Final = 8.0


def _bits(mask: int) -> npt.NDArray[np.float32]:
    return np.array([mask >> s & 1 for s in range(_SQUARES)], dtype=np.float32)


def encode(
    tiles: tuple[int, int],
    faces: int,
    locked: int,
    in_hand: tuple[int, int],
    to_move: int,
    player: int,
) -> npt.NDArray[np.float32]:
    """The planes above from the bitboards (``to_move`` is negative once over)."""
    mine, theirs = tiles[player], tiles[1 - player]
    planes = np.zeros((PLANES, _SQUARES), dtype=np.float32)
    planes[0] = _bits(mine & ~faces)
    planes[1] = _bits(mine & faces)
    planes[2] = _bits(theirs & ~faces)
    planes[3] = _bits(theirs & faces)
    planes[4] = _bits(locked)
    planes[5] = in_hand[player] / _HAND
    planes[6] = in_hand[1 - player] / _HAND
    planes[7] = float(to_move == player)
    return planes.reshape(SHAPE)
