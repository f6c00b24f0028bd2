"""What the research wrappers share: chance resolved inside with a seeded generator, and a
game's length cap reported as truncation.

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
"""

from __future__ import annotations

import random
import re

from flipgames.core.game import Game, State, sample_chance
from flipgames.core.registry import game_class


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
