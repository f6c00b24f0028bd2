"""Flip Switch's observation tensor: ``(3 * k + 6, N, N)`` float32 planes for ``k`` shapes on
an N x N board, seen by one player.

A face-down tile is one plane (0) and nothing else: its shape does not exist until the chance
node of its flip, so no plane can carry it. Plane ``[p, rank, file]`` (``[p, 0, 0]`` is a1):

=============  ==============================================================
0              face-down tiles
1 .. k         face-up tiles showing shape ``p - 1`` (heart, square, star, ...)
k+1 .. 2k      all ones when shape ``p - k - 1`` is nullified and credited to the viewer
2k+1 .. 3k     all ones when shape ``p - 2k - 1`` is nullified and credited to the opponent
3k+1           the tile being flipped (at a chance node)
3k+2           the two squares of the switch made in the preceding turn (the side to act may
               not repeat it)
3k+3           all ones when the viewer is to act
3k+4           the viewer's rounds won / rounds, on every square
3k+5           the opponent's rounds won / rounds, on every square
=============  ==============================================================

>>> from flipgames import make
>>> state = make("flip-switch").new_initial_state().apply(4)  # b2 is being flipped
>>> planes = state.observation_tensor(0)
>>> planes.shape, float(planes[0].sum()), float(planes[10, 1, 1])
((15, 3, 3), 9.0, 1.0)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: Planes besides the three per shape.
_FIXED = 6


def shape(size: int, shapes: int) -> tuple[int, int, int]:
    """The tensor shape for a ``size`` x ``size`` board and ``shapes`` shapes."""
    return (3 * shapes + _FIXED, size, size)


def encode(
    size: int,
    tiles: tuple[int, ...],
    owners: tuple[int, ...],
    pending: int,
    banned: tuple[int, ...],
    round_wins: tuple[int, int],
    rounds: int,
    current_player: int,
    player: int,
) -> npt.NDArray[np.float32]:
    """The planes above (``tiles``: a shape index or -1 per square; ``owners``: the credited
    player or -1 per shape; ``pending``: the square being flipped or -1)."""
    k = len(owners)
    planes = np.zeros((3 * k + _FIXED, size * size), dtype=np.float32)
    for square, tile in enumerate(tiles):
        planes[0 if tile < 0 else 1 + tile, square] = 1.0
    for shape_index, owner in enumerate(owners):
        if owner == player:
            planes[k + 1 + shape_index] = 1.0
        elif owner >= 0:
            planes[2 * k + 1 + shape_index] = 1.0
    if pending >= 0:
        planes[3 * k + 1, pending] = 1.0
    for square in banned:
        planes[3 * k + 2, square] = 1.0
    planes[3 * k + 3] = float(current_player == player)
    planes[3 * k + 4] = round_wins[player] / rounds
    planes[3 * k + 5] = round_wins[1 - player] / rounds
    return planes.reshape(3 * k + _FIXED, size, size)
