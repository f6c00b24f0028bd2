"""A round of a Flip Switch match as the one-round game the solver solves, for the game
review (:mod:`flipgames.lab.review`; named by this game's manifest, ``ReviewFacts.round_of``).

Each round starts on a fresh face-down grid and only its tiles, credits and mover matter to
how it ends, so a position inside round ``k`` is a position of the one-round game (``rounds=1``
with the same rules), except that player 2 starts the even rounds: there the seats are
swapped (credits and mover), and the value comes back for the other player. The round's
value is not the match's (earlier rounds count too); the review says it values each round.
The position carries no history, so a repetition under way is not seen (as with a position
notation), and rules with a switch limit, which counts turns back through the history, are
not mapped.

>>> from flipgames import make
>>> match = make("flip-switch")
>>> state = match.new_initial_state()
>>> single, swapped = round_position(state)
>>> one = make("flip-switch", rounds=1)
>>> single.game == one, swapped, single.key() == one.new_initial_state().key()
(True, False, True)
>>> round_position(make("flip-switch", rounds=1).new_initial_state()) is None
True
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, cast

from flipgames.core.game import Game, State

if TYPE_CHECKING:
    from flipgames.games.flip_switch.rules import FlipSwitch, FlipSwitchState


@cache
def _single(kind: type[Game], options: tuple[tuple[str, object], ...]) -> FlipSwitch:
    return cast("FlipSwitch", kind({**dict(options), "rounds": 1}))


def round_position(state: State) -> tuple[State, bool] | None:
    """``state`` as a position of the one-round game and whether the seats are swapped, or
    None for a one-round game, a finished match or rules with a switch limit."""
    match = cast("FlipSwitchState", state)
    game = match.game
    if game.rounds == 1 or state.is_terminal():
        return None
    if game.switch_limit:
        # The limit counts turns back through the history, which a lone position has not.
        return None
    single = _single(type(game), tuple(sorted(game.options.items())))
    swapped = len(match.results) % 2 == 1
    return match.as_round(single, swapped), swapped
