"""What the research wrappers share: chance resolved inside with a seeded generator, a
game's length cap reported as truncation, uniform sampling of legal actions, checking an
opponent policy's actions, and a raster picture of a position.

>>> import random
>>> from flipgames import make
>>> episode = Episode(make("flip-switch"), random.Random(3))
>>> episode.state.is_chance_node()
False
>>> episode.step(4)  # flip b2: the shape is drawn inside, the opponent is to move
>>> episode.state.current_player, episode.plies
(1, 2)
>>> env_id("checkered-flag"), env_id("flipflop-3x3")
('CheckeredFlag', 'FlipFlop3x3')
>>> import numpy as np
>>> sample_legal(np.array([[0, 1, 0], [1, 0, 1]]), np.random.default_rng(0)).tolist()
[1, 0]
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game, State, sample_chance
from flipgames.core.registry import game_class

#: An opponent policy: observation(s) and legal-action mask(s) to action(s). A single
#: environment calls it with one observation and one mask and takes an action id back; a
#: vectorised one calls it once for the whole batch, ``(N, ...)`` observations and ``(N, A)``
#: masks to ``(N,)`` actions (rows whose mask is all zeros are not the opponent's to play:
#: their actions are ignored).
Policy = Callable[[npt.NDArray[Any], npt.NDArray[np.int8]], Any]


class IllegalOpponentActionError(FlipgamesError, ValueError):
    """An opponent policy chose an action outside the legal-action mask it was given."""


class NoLegalActionError(FlipgamesError, ValueError):
    """:func:`sample_legal` was given a mask row with no legal action."""


def dict_space(game: Game) -> spaces.Dict:
    """The observation space every env of ``game`` offers by default: the observation tensor
    beside the legal-action mask.

    >>> from flipgames import make
    >>> sorted(dict_space(make("flipflop-3x3")).spaces)
    ['action_mask', 'observation']
    """
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, game.observation_tensor_shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (game.num_distinct_actions,), dtype=np.int8),
        }
    )


def sample_legal(mask: npt.ArrayLike, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """One action per row of ``mask`` (``(N, A)``, or ``(A,)`` for one row), drawn uniformly
    from that row's legal actions (its nonzero entries) with ``rng``.

    Costs one uniform draw per row and a cumulative sum over the mask, never a random number
    per action. Raises :class:`NoLegalActionError`, naming the rows, when a row has no legal
    action (e.g. a finished game's all-zero row in a next-step autoreset batch: give such
    rows any action instead).
    """
    legal = np.asarray(mask) != 0
    rows = legal.reshape(-1, legal.shape[-1]) if legal.ndim else legal.reshape(1, 1)
    counts = rows.sum(axis=1)
    empty = np.flatnonzero(counts == 0)
    if len(empty):
        shown = ", ".join(map(str, empty[:10].tolist())) + (" ..." if len(empty) > 10 else "")
        raise NoLegalActionError(
            f"sample_legal: {len(empty)} mask row(s) have no legal action (rows {shown})"
        )
    # The k-th legal action of each row, k uniform in [0, count): the first column where the
    # running count of legal actions passes k.
    k = (rng.random(len(rows)) * counts).astype(np.int64)
    chosen: npt.NDArray[np.int64] = (np.cumsum(rows, axis=1) > k[:, None]).argmax(axis=1)
    return chosen.reshape(legal.shape[:-1])


def check_opponent_actions(
    actions: npt.ArrayLike, masks: npt.NDArray[np.int8], rows: npt.NDArray[np.intp]
) -> npt.NDArray[np.int64]:
    """``actions`` of an opponent policy as int64 ids, after checking that each of ``rows``
    chose an action its mask allows; raises :class:`IllegalOpponentActionError` (before
    anything is played) naming the first row that did not."""
    chosen = np.asarray(actions)
    if chosen.shape != masks.shape[:-1] or not np.issubdtype(chosen.dtype, np.integer):
        raise IllegalOpponentActionError(
            f"the opponent policy must return {masks.shape[:-1] or 'one'} integer action "
            f"id(s), got {chosen.dtype} of shape {chosen.shape}"
        )
    chosen = chosen.astype(np.int64).reshape(-1)
    flat = masks.reshape(-1, masks.shape[-1])
    for row in rows.tolist():
        action = int(chosen[row])
        if not (0 <= action < flat.shape[1] and flat[row, action]):
            legal = " ".join(map(str, np.flatnonzero(flat[row]).tolist()))
            where = f" in environment {row}" if masks.ndim > 1 else ""
            raise IllegalOpponentActionError(
                f"the opponent policy chose action {action}{where}, which is not legal "
                f"there: legal ids are {legal}"
            )
    return chosen


def env_id(name: str) -> str:
    """The environment name of registered game ``name``, from its title without prefix,
    spaces or punctuation: ``FlipFlop3x3``, ``RubiksFlip``, ``CheckeredFlag``."""
    title = game_class(name).title.rpartition(":")[2]
    return re.sub(r"[^A-Za-z0-9]", "", title)


class Episode:
    """One game in progress for a wrapper: the state (never a chance node unless over), the
    plies played (chance outcomes included) and whether the game's length cap cut it short.

    Chance outcomes are drawn from ``rng`` with their exact probabilities as soon as they
    come up, so an agent only ever sees decision points; a seeded generator makes episodes
    reproducible.
    """

    __slots__ = ("game", "plies", "rng", "state")

    def __init__(self, game: Game, rng: random.Random) -> None:
        self.game = game
        self.rng = rng
        self.state: State = game.new_initial_state()
        self.plies = 0
        self._resolve_chance()

    def step(self, action: int) -> None:
        """Apply a player's legal ``action``, then any chance outcomes after it."""
        self.state = self.state.apply(action)
        self.plies += 1
        self._resolve_chance()

    def _resolve_chance(self) -> None:
        while self.state.is_chance_node() and not self.truncated:
            self.state = self.state.apply(sample_chance(self.state, self.rng))
            self.plies += 1

    @property
    def terminated(self) -> bool:
        """The game ended by its rules."""
        return self.state.is_terminal()

    @property
    def truncated(self) -> bool:
        """The game reached its declared length cap (``Game.game_length_capped``) unfinished:
        it ends there as a draw."""
        return (
            self.game.game_length_capped
            and self.plies >= self.game.max_game_length
            and not self.state.is_terminal()
        )


#: A raster's colours: plane ``i`` of an observation tensor is drawn in ``PALETTE[i % 8]``.
PALETTE = np.array(
    [
        [230, 230, 230],
        [70, 130, 220],
        [220, 80, 70],
        [240, 170, 40],
        [80, 180, 90],
        [160, 90, 200],
        [60, 190, 190],
        [200, 120, 160],
    ],
    dtype=np.float32,
)
#: The background and the gaps between planes.
BACKGROUND = np.array([30, 30, 30], dtype=np.float32)


def raster(tensor: npt.NDArray[np.float32], cell: int = 12) -> npt.NDArray[np.uint8]:
    """An ``(H, W, 3)`` uint8 picture of an observation tensor, game by game the same way:
    each plane of a ``(planes, rows, columns)`` tensor is a panel of ``cell``-pixel squares
    (its colour where the value is 1, the background where 0, blended between), the panels
    side by side one square apart; a flat tensor is one row of squares. It shows what the
    tensor holds and nothing more, so nothing hidden is drawn.

    >>> raster(np.ones((2, 3, 4), np.float32), cell=2).shape
    (6, 18, 3)
    """
    planes = np.asarray(tensor, dtype=np.float32)
    if planes.ndim == 1:
        planes = planes.reshape(1, 1, -1)
    elif planes.ndim == 2:
        planes = planes[None]
    elif planes.ndim > 3:
        planes = planes.reshape(-1, *planes.shape[-2:])
    count, rows, columns = planes.shape
    image = np.empty((rows, count * (columns + 1) - 1, 3), dtype=np.float32)
    image[:] = BACKGROUND
    for i in range(count):
        value = np.clip(planes[i], 0.0, 1.0)[..., None]
        left = i * (columns + 1)
        image[:, left : left + columns] = BACKGROUND + value * (
            PALETTE[i % len(PALETTE)] - BACKGROUND
        )
    big = np.repeat(np.repeat(image, cell, axis=0), cell, axis=1)
    return big.round().astype(np.uint8)
