"""A Flip Switch match seen from its current round (:mod:`flipgames.core.match`; named by this
game's manifest, ``Manifest.rounds``).

Each round of a match starts on a fresh face-down grid, player 1 starting the odd rounds and
player 2 the even ones, and only its own tiles, credits and mover decide how it ends. So the
current round is a position of the one-round game (``rounds=1``, the same rules) reached by the
same actions from its start, the seats swapped in the rounds player 2 starts. The actions are
replayed, so the round keeps its history (a third repetition under way is the same there).

>>> from flipgames import make
>>> state = make("flip-switch", rounds=2).new_initial_state()
>>> while len(state.results) < 1:  # play round 1 to its end: first legal action, first shape
...     state = state.apply(state.legal_actions()[0])
>>> seen = split(state.apply(state.legal_actions()[0]))
>>> seen.swapped, seen.later, seen.round_state.history == (state.legal_actions()[0],)
(True, (), True)
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, cast

from flipgames.core.game import Game, State
from flipgames.core.match import MatchPosition

if TYPE_CHECKING:
    from flipgames.games.flip_switch.rules import FlipSwitchState


@cache
def _one_round(kind: type[Game], options: tuple[tuple[str, object], ...]) -> Game:
    return kind({**dict(options), "rounds": 1})


def split(state: State) -> MatchPosition:
    """``state`` (a position of a Flip Switch match) as its current round."""
    results = _results(state)
    score = results.count(0) - results.count(1)
    if state.is_terminal():
        return MatchPosition(None, False, score, ())
    current = len(results)
    # Back to the round's first position: its parent, if any, ended the previous round.
    actions: list[int] = []
    node: State = state
    while node.parent is not None and len(_results(node.parent)) == current:
        assert node.action is not None
        actions.append(node.action)
        node = node.parent
    options = tuple(sorted(state.game.options.items()))
    single = _one_round(type(state.game), options).new_initial_state()
    for action in reversed(actions):
        single = single.apply(action)
    later = tuple(r % 2 for r in range(current + 1, int(str(state.game.options["rounds"]))))
    return MatchPosition(single, current % 2 == 1, score, later)


def _results(state: State) -> tuple[int, ...]:
    """Per finished round, its winner or DRAWN (the helper reads the rules' state, which it
    imports for typing only)."""
    if not hasattr(state, "results"):
        raise TypeError(f"a Flip Switch match position is needed, not {state!r}")
    return cast("FlipSwitchState", state).results
