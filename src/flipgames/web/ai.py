"""Solved games, as the arcade's analysis needs them.

The AI levels themselves come from :mod:`flipgames.agents.levels`. Analysis lists a value for
every legal action, which the retrograde solution of a deterministic game gives directly; a
solution is computed once per game and options and kept for the app's lifetime (about 2.5 s
for FlipFlop 3x3).

>>> from flipgames import make
>>> Solutions.supports(make("flipflop-3x3")), Solutions.supports(make("flipflop"))
(True, False)
"""

from __future__ import annotations

import threading

from flipgames.agents.levels import is_solved
from flipgames.core.game import Game
from flipgames.solvers import retrograde


class Solutions:
    """Retrograde solutions of the solved deterministic games, solved on first use."""

    def __init__(self) -> None:
        self._solved: dict[Game, retrograde.Solution] = {}
        self._lock = threading.Lock()

    @staticmethod
    def supports(game: Game) -> bool:
        """True when ``game`` (with its options) has per-action values to show."""
        return game.deterministic and is_solved(game)

    def get(self, game: Game) -> retrograde.Solution:
        """The solution of ``game``; one solve however many requests ask at once."""
        with self._lock:
            if game not in self._solved:
                self._solved[game] = retrograde.solve(game)
            return self._solved[game]
