"""FlipFlop position evaluation for depth-limited search (both board sizes).

Everything here is a pure function of the bitboards (see :mod:`flipgames.games.flipflop.rules`
for their layout) and reuses the engine's move tables, so it costs a few dictionary lookups
per piece. The game is won by holding the enemy goal or by leaving the enemy without a move,
so the evaluation counts, for each side:

* **material**: pieces left (a side with none has lost; every piece is a potential attacker
  or defender, and pieces are lost only on the goals);
* **mobility**: moves available (no move loses, and a side with few moves is close to that);
* **attackers**: pieces that can reach the enemy goal now (each gives check next move);
* **guards**: pieces that could capture an enemy piece arriving on their own goal (with none,
  an attacker's check is mate).

The side to move also gets a small tempo bonus: with equal counts it is the one that strikes
first. The weighted difference is squashed into (-1, 1) by ``tanh``.

>>> from flipgames import make
>>> state = make("flipflop").new_initial_state()
>>> state.evaluate(0) == -state.evaluate(1), 0 < state.evaluate(0) < 0.1
(True, True)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from flipgames.games.flipflop.board import Board
    from flipgames.games.flipflop.rules import FlipFlopState

MATERIAL: Final = 0.5
MOBILITY: Final = 0.04
ATTACKER: Final = 0.3
GUARD: Final = 0.15
TEMPO: Final = 0.05


def side_features(
    board: Board, mine: int, enemy: int, bishops: int, colour: int
) -> tuple[int, int, int, int]:
    """(pieces, moves, attackers, guards) of the side owning ``mine`` (colour ``colour``).

    Moves ignore the check rule (it restricts only the side to move, for one ply).

    >>> from flipgames.games.flipflop.board import board_of
    >>> board = board_of(3)
    >>> side_features(board, 0b111, 0b111 << 6, 0, 0)  # White at the start of 3x3
    (3, 4, 1, 2)
    """
    area = board.area
    own_goal_bit = 1 << board.goal[colour]
    enemy_goal = board.goal[1 - colour]
    occupied = mine | enemy
    key = occupied | (enemy & board.goals) << area
    # As if an enemy piece stood on our goal: who could capture it there?
    guard_key = occupied | own_goal_bit | ((enemy & board.goals) | own_goal_bit) << area
    rook, bishop = board.tables
    moves = attackers = guards = 0
    pieces = mine
    while pieces:
        bit = pieces & -pieces
        pieces ^= bit
        mask, table = (bishop if bishops & bit else rook)[bit]
        actions = table[key & mask]
        moves += len(actions)
        if any(a % area == enemy_goal for a in actions):
            attackers += 1
        if bit != own_goal_bit and any(
            a % area == board.goal[colour] for a in table[guard_key & mask]
        ):
            guards += 1
    return mine.bit_count(), moves, attackers, guards


def evaluate(state: FlipFlopState, player: int) -> float:
    """Estimate ``state.returns()[player]`` in (-1, 1); the true return once the game is over.

    >>> from flipgames import make
    >>> state = make("flipflop-3x3").state_from_actions(["a1-a2"])
    >>> state.evaluate(0) == -state.evaluate(1)
    True
    """
    if state.is_terminal():
        return float(state.returns()[player])
    sides = (state.white, state.black)
    score = 0.0
    for colour in (0, 1):
        pieces, moves, attackers, guards = side_features(
            state.board, sides[colour], sides[1 - colour], state.bishops, colour
        )
        value = MATERIAL * pieces + MOBILITY * moves + ATTACKER * attackers + GUARD * guards
        score += value if colour == player else -value
    score += TEMPO if state.side == player else -TEMPO
    return math.tanh(score)
