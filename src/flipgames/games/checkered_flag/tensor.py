"""Checkered Flag's observation tensor: a float32 vector of ``2 * (L + 7) + 5`` entries for a
track of ``L`` spaces, seen by one player (the race has no grid, so no planes).

========================  ===================================================================
entries                   meaning
========================  ===================================================================
0                         the viewer's distance driven / the goal (at most 1)
1 .. L                    one-hot: the viewer's distance mod L (where on the lap the car is)
L+1 .. L+6                one-hot: the viewer's gear circle (N, 1, 2, 3, C2, C3)
L+7 .. 2L+13              the same 7 + L entries for the opponent
2L+14 .. 2L+17            one-hot: the phase (start spin, choose gear, spin, over)
2L+18                     1 when the viewer is the car choosing or spinning
========================  ===================================================================

>>> from flipgames import make
>>> state = make("checkered-flag", start="first").new_initial_state()
>>> vector = state.observation_tensor(0)
>>> vector.shape, vector[[1, -4, -1]].tolist()  # space 0, phase choose-gear, to choose
((115,), [1.0, 1.0, 1.0])
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

_GEARS: Final = 6
_PHASES: Final = 4


def size(length: int) -> int:
    """The vector length for a track of ``length`` spaces."""
    return 2 * (1 + length + _GEARS) + _PHASES + 1


def encode(
    length: int,
    goal: int,
    pos: tuple[int, int, int, int, int, int],
    current_player: int,
    player: int,
) -> npt.NDArray[np.float32]:
    """The vector above from the state tuple ``(phase, mover, d0, d1, gear0, gear1)``."""
    phase, mover = pos[0], pos[1]
    vector = np.zeros(size(length), dtype=np.float32)
    block = 1 + length + _GEARS
    for slot, who in enumerate((player, 1 - player)):
        base = slot * block
        distance = pos[2 + who]
        # A winning move can drive past the goal; the entry stays in [0, 1].
        vector[base] = min(distance, goal) / goal
        vector[base + 1 + distance % length] = 1.0
        vector[base + 1 + length + pos[4 + who]] = 1.0
    vector[2 * block + phase] = 1.0
    # The mover is meaningful while choosing or spinning (phases 1 and 2).
    vector[2 * block + _PHASES] = float(phase in (1, 2) and mover == player)
    return vector
