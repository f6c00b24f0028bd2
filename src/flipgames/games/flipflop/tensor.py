"""FlipFlop's observation tensor: ``(8, N, N)`` float32 planes, seen by one player.

Plane ``[p, rank, file]`` (``[p, 0, 0]`` is a1):

== =====================================================================
0  the viewer's pieces showing ``+`` (rook face)
1  the viewer's pieces showing ``x`` (bishop face)
2  the opponent's pieces showing ``+``
3  the opponent's pieces showing ``x``
4  the viewer's goal square
5  the opponent's goal square
6  all ones when the viewer is to move (and the game is not over)
7  all ones when this position has occurred before (a third time would draw)
== =====================================================================

>>> from flipgames import make
>>> state = make("flipflop-3x3").new_initial_state()
>>> state.observation_tensor(0)[0].tolist()  # White's rook faces on rank 1
[[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
>>> state.observation_tensor(1)[0].tolist()  # Black sees its own pieces on rank 3
[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

PLANES = 8


def shape(size: int) -> tuple[int, int, int]:
    """The tensor shape on a ``size`` x ``size`` board."""
    return (PLANES, size, size)


def _bits(mask: int, area: int) -> npt.NDArray[np.float32]:
    return np.array([mask >> s & 1 for s in range(area)], dtype=np.float32)


def encode(
    size: int,
    pieces: tuple[int, int],
    bishops: int,
    goals: tuple[int, int],
    side: int,
    occurrences: int,
    terminal: bool,
    player: int,
) -> npt.NDArray[np.float32]:
    """The planes above from the bitboards (``pieces`` per colour) for ``player``."""
    area = size * size
    mine, theirs = pieces[player], pieces[1 - player]
    planes = np.zeros((PLANES, area), dtype=np.float32)
    planes[0] = _bits(mine & ~bishops, area)
    planes[1] = _bits(mine & bishops, area)
    planes[2] = _bits(theirs & ~bishops, area)
    planes[3] = _bits(theirs & bishops, area)
    planes[4, goals[player]] = 1.0
    planes[5, goals[1 - player]] = 1.0
    planes[6] = float(side == player and not terminal)
    planes[7] = float(occurrences >= 2)
    return planes.reshape(PLANES, size, size)
