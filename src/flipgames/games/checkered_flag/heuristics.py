"""Checkered Flag position evaluation for depth-limited search (expectiminimax).

A race is won by the car that needs fewer turns to reach the goal, so the evaluation compares
each car's **expected turns to finish if it raced alone**: the least expected number of turns
from its distance and gear circle, choosing gears well, with the game's own spinners and the
track's crash spaces (a crash in 2nd costs the turn on Crash 2 and a restart from neutral, in
3rd one more turn on Crash 3). That one number weighs the **distance lead**, the **gear** (a
car in 3rd is worth several spaces more than one in neutral at the same spot) and the **crash
risk** of where each car stands. It is computed once per game by working backwards from the
goal (every turn either moves a car on or moves its marker towards neutral, so the backwards
order is well founded).

The player about to act gets half a turn, since the cars take turns. The difference in turns is
squashed into (-1, 1) by ``tanh``. The other car is left out of the solo race (blocking on
no-passing spaces, racing to finish first); the search accounts for it with exact
probabilities.

>>> from flipgames import make
>>> make("checkered-flag", start="first").new_initial_state().evaluate(0) > 0
True
"""

from __future__ import annotations

from functools import cache
from math import tanh
from typing import TYPE_CHECKING, Final

from flipgames.games.checkered_flag.notation import C3, GEAR_NAMES, N

if TYPE_CHECKING:
    from flipgames.games.checkered_flag.rules import CheckeredFlag, CheckeredFlagState

#: Turns of lead that make the evaluation about 0.76 (tanh 1).
TURNS_SCALE: Final = 2.0
#: Gears the marker may move to from each circle (N, 1, 2, 3), as the rules allow.
_CHOICES: Final = ((1,), (1, 2), (1, 2, 3), (2, 3))


@cache  # per game and options: a table of (goal x 6 circles) entries
def solo_turns(game: CheckeredFlag) -> tuple[tuple[float, ...], ...]:
    """``table[distance][g]``: expected turns to finish alone from ``distance`` with the marker
    on circle ``g`` (N, 1, 2, 3, C2, C3), then three more columns for a car whose gear 1, 2 or 3
    is already chosen for this turn (it spins next).

    >>> from flipgames import make
    >>> table = solo_turns(make("checkered-flag"))
    >>> [round(t, 2) for t in table[0][:6]]  # from the start line, by circle
    [14.38, 13.89, 13.38, 13.38, 15.38, 16.38]
    """
    goal, length = game.goal, game.track.length
    a, b = game.spinners.a, game.spinners.b
    total_a, total_b = sum(w for _, w in a), sum(w for _, w in b)
    spins = (
        (),
        tuple((v, w / total_a) for v, w in a),
        tuple((v, w / total_b) for v, w in b),
        tuple((va + vb, wa * wb / (total_a * total_b)) for va, wa in a for vb, wb in b),
    )
    table: list[tuple[float, ...]] = [()] * goal

    def after(distance: int, gear: int) -> float:
        """Turns still needed at the start of the next turn, after driving to ``distance``."""
        if distance >= goal:
            return 0.0
        if gear >= 2 and game.crash_at[distance % length]:
            return table[distance][gear + 2]  # 2nd -> C2, 3rd -> C3
        return table[distance][gear]

    for distance in range(goal - 1, -1, -1):
        # A spin always moves a car forward, so every later distance is already known.
        chosen = [0.0] + [
            1 + sum(p * after(distance + v, g) for v, p in spins[g]) for g in (1, 2, 3)
        ]
        circles = [min(chosen[g] for g in _CHOICES[c]) for c in range(4)]
        crash2 = 1 + circles[N]
        crash3 = 1 + crash2
        table[distance] = (*circles, crash2, crash3, *chosen[1:])
    return tuple(table)


def evaluate(state: CheckeredFlagState, player: int) -> float:
    """Estimate ``state.returns()[player]`` in (-1, 1); the true return once the race is over.

    >>> from flipgames import make
    >>> game = make("checkered-flag", start="first")
    >>> ahead = game.state_from_actions(["1", "3", "1", "1", "2", "5"])  # 8 to 1, 2nd vs 1st
    >>> behind = game.state_from_actions(["1", "1", "1", "3", "1", "1"])  # 2 to 3, both 1st
    >>> ahead.evaluate(0) == -ahead.evaluate(1), behind.evaluate(0) < 0 < ahead.evaluate(0)
    (True, True)
    """
    if state.is_terminal():
        return float(state.returns()[player])
    table = solo_turns(state.game)
    phase, mover = state.phase, state.mover
    turns = []
    for car, (distance, name) in enumerate(zip(state.distances, state.gears, strict=True)):
        gear = GEAR_NAMES.index(name)
        if phase == "spin" and car == mover:
            gear = C3 + gear  # columns 6-8: this turn's gear already chosen
        turns.append(table[distance][gear])
    if phase != "start-spin":
        turns[mover] -= 0.5  # the car about to act is half a turn ahead of the other
    return tanh((turns[1 - player] - turns[player]) / TURNS_SCALE)
