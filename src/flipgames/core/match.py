"""A match of rounds seen from its current round: what composes round values into match values.

A game whose manifest names a ``rounds`` splitter plays a match of independent rounds, each
from a fresh start with its own first player, the rounds won deciding the match (Flip Switch
with ``rounds=N``). The splitter maps a position of the match onto a :class:`MatchPosition`:
the current round as a position of the same game with one round (its first player as player
0) and what the finished and the later rounds are, so an exact solution of one round answers
for the match (:mod:`flipgames.solvers.ground_truth` adds the rounds' values).

>>> from flipgames import make
>>> game = make("flip-switch", rounds=3)
>>> split = splitter(game)
>>> seen = split(game.new_initial_state())
>>> seen.round_state.game.options["rounds"], seen.swapped, seen.score, seen.later
(1, False, 0, (1, 0))
>>> splitter(make("flip-switch", rounds=1)) is None, splitter(make("flipflop-3x3")) is None
(True, True)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from flipgames.core.game import Game, State
from flipgames.core.manifest import has_manifest, manifest_of


@dataclass(frozen=True)
class MatchPosition:
    """A match position as its current round (see the module docstring)."""

    #: The current round as a position of the one-round game, its first player being player
    #: 0 (the same actions from the round's start); None once the match is over.
    round_state: State | None
    #: True when the match's player 1 started the current round: the round's player 0 is
    #: the match's player 1.
    swapped: bool
    #: Rounds won by the match's player 0 minus rounds won by its player 1, finished rounds.
    score: int
    #: The match player who starts each round still to come after the current one.
    later: tuple[int, ...]


def splitter(game: Game) -> Callable[[State], MatchPosition] | None:
    """``game``'s splitter when its manifest names one and ``game`` is a match of more than
    one round; None otherwise (a single round is its own round)."""
    if not has_manifest(game):
        return None
    target = manifest_of(game).rounds
    if target is None or game.options.get("rounds", 1) == 1:
        return None
    module_name, _, function = target.partition(":")
    found: Callable[[State], MatchPosition] = getattr(
        importlib.import_module(module_name), function
    )
    return found
