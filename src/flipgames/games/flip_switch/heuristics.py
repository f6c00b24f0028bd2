"""Flip Switch position evaluation for depth-limited search (expectiminimax).

A round is won by the first player credited with a majority of the shapes (2 of 3), and a
shape is credited to whoever completes a line of three of it. So the evaluation of a round
counts, for the player it is asked for:

* **shapes credited** to each player this round (the difference, and nothing else, decides
  a round that ends now);
* the **scoring chance** of the player about to act: 1 if a legal switch completes a line of
  a shape nobody has yet, otherwise the best chance that flipping one face-down tile does
  (the probability its shape is the one that completes a near-line, i.e. two face-up tiles of
  an unclaimed shape in a line with it). At a chance node it is the chance of the flip being
  revealed. That chance belongs to whoever acts, so it counts for or against the player.

Over a match of several rounds the lead in rounds won is added. The sum is squashed into
(-1, 1) by ``tanh``. Nothing hidden is used: shapes of face-down tiles enter only as the
counts of unrevealed shapes that every player sees.

>>> from flipgames import make
>>> make("flip-switch").new_initial_state().evaluate(0)
0.0
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

from flipgames.games.flip_switch.notation import FACE_DOWN, UNCLAIMED

if TYPE_CHECKING:
    from flipgames.games.flip_switch.rules import FlipSwitchState

#: Weight of one credited shape, of the acting player's scoring chance, of one round won.
SHAPE: Final = 1.0
CHANCE: Final = 0.6
ROUND: Final = 1.5


def _completes(state: FlipSwitchState, tiles: tuple[int, ...] | list[int], square: int) -> bool:
    """True if a line through ``square`` shows three tiles of one unclaimed shape."""
    owners = state.owners
    for line in state.game.lines[square]:
        shape = tiles[line[0]]
        if (
            shape != FACE_DOWN
            and all(tiles[s] == shape for s in line)
            and owners[shape] == UNCLAIMED
        ):
            return True
    return False


def flip_chance(state: FlipSwitchState, square: int) -> float:
    """The probability that flipping the face-down ``square`` completes an unclaimed line.

    >>> from flipgames import make
    >>> state = make("flip-switch").state_from_actions(["a1", "heart", "b1", "heart"])
    >>> flip_chance(state, 2), flip_chance(state, 4)  # c1 completes a1 b1; b2 does not
    (0.14285714285714285, 0.0)
    """
    tiles = list(state.tiles)
    remaining = state.unrevealed()
    hidden = sum(remaining)
    chance = 0.0
    for shape, left in enumerate(remaining):
        if left:
            tiles[square] = shape
            if _completes(state, tiles, square):
                chance += left / hidden
    return chance


def switch_scores(state: FlipSwitchState) -> bool:
    """True if some legal switch of the player to move completes an unclaimed line.

    >>> from flipgames import make
    >>> moves = ["a1", "heart", "b1", "heart", "c1", "star", "c2", "heart"]
    >>> switch_scores(make("flip-switch").state_from_actions(moves))  # c1-c2: a1 b1 c1 hearts
    True
    """
    tiles = list(state.tiles)
    owners = state.owners
    for pair, (i, j) in enumerate(state.game.layout.pairs):
        a, b = tiles[i], tiles[j]
        if (
            FACE_DOWN in (a, b)
            or a == b
            or (owners[a] != UNCLAIMED and owners[b] != UNCLAIMED)
            or pair == state.last
        ):
            continue
        tiles[i], tiles[j] = b, a
        scores = _completes(state, tiles, i) or _completes(state, tiles, j)
        tiles[i], tiles[j] = a, b
        if scores:
            return True
    return False


def scoring_chance(state: FlipSwitchState) -> float:
    """The acting player's chance to be credited a shape with this action (see above)."""
    if state.pending >= 0:
        return flip_chance(state, state.pending)
    if switch_scores(state):
        return 1.0
    hidden = [s for s, t in enumerate(state.tiles) if t == FACE_DOWN]
    return max((flip_chance(state, s) for s in hidden), default=0.0)


def evaluate(state: FlipSwitchState, player: int) -> float:
    """Estimate ``state.returns()[player]`` in (-1, 1); the true return once the match is over.

    >>> from flipgames import make
    >>> moves = ["a1", "heart", "b1", "heart", "c1", "star", "c2", "heart"]
    >>> state = make("flip-switch").state_from_actions(moves)  # c1-c2 would score now
    >>> state.evaluate(1) < 0 < state.evaluate(0)
    True
    """
    if state.is_terminal():
        return float(state.returns()[player])
    owners = state.owners
    credited = owners.count(player) - owners.count(1 - player)
    chance = scoring_chance(state)
    acting = state.mover
    rounds = state.results.count(player) - state.results.count(1 - player)
    score = SHAPE * credited + CHANCE * (chance if acting == player else -chance)
    return math.tanh(score + ROUND * rounds)
