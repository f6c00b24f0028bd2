"""Rubik's Flip's compiled MCTS (every option set): the reference MCTS's algorithm over the
kernel.

Iterations run in machine code over :mod:`flipgames.kernels.mcts`'s tree, with
:mod:`.kernel`'s move generator and ``play``. Tiles are only ever added, so there is no
repetition and every random game ends within 16 plies; only a rollout limit below that is
ever scored by :mod:`.search_kernel`'s port of :mod:`.heuristics` (``tanh`` of its value, as
``State.evaluate``).

>>> import random
>>> from flipgames import make
>>> game = make("rubiks-flip")
>>> state = game.new_initial_state()
>>> stats = game.kernel().mcts().search(state, random.Random(1), 500, None)
>>> stats.iterations, sum(visits for visits, _ in stats.actions.values())
(500, 500)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import DRAWN, FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.games.rubiks_flip.kernel import FULL, MAX_ACTIONS, generate, pack, play
from flipgames.games.rubiks_flip.search_kernel import _ROW_WEIGHT, evaluate
from flipgames.kernels.jit import below, jit
from flipgames.kernels.mcts import (
    KernelMCTS,
    TreeArrays,
    add_node,
    attach,
    backup,
    estimate,
    expandable,
    first_return,
    room,
    select,
    untried,
)

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.rubiks_flip.kernel import RubiksFlipKernel

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
Flags = tuple[int, int, int]


@jit
def _status(first: int, second: int, winner: int) -> int:
    """The status after a placement: its winner, else a full board draws."""
    if winner == 0:
        return FIRST_WINS
    if winner == 1:
        return SECOND_WINS
    if first | second == FULL:
        return DRAWN
    return ONGOING


@jit
def _mover(first: int, second: int) -> int:
    """The side to move: the parity of the tiles on the board."""
    occupied = first | second
    count = 0
    while occupied:
        occupied &= occupied - 1
        count += 1
    return count & 1


@jit
def _rollout(
    first: int, second: int, faces: int, moves: I64, rng: U64, limit: int, flags: Flags
) -> float:
    """The first player's return of a uniformly random game from a live position, cut after
    ``limit`` plies and then estimated."""
    flap, king, mover_first = flags
    for _ in range(limit):
        n = generate(first, second, flap, king, moves, 0)
        first, second, faces, winner = play(
            first, second, faces, moves[below(rng, n)], flap, king, mover_first
        )
        status = _status(first, second, winner)
        if status != ONGOING:
            return first_return(status)
    mover = _mover(first, second)
    return estimate(evaluate(first, second, faces, king, _ROW_WEIGHT), mover)


@jit
def _rollouts(
    n: int, first: int, second: int, faces: int, moves: I64, rng: U64, limit: int, flags: Flags
) -> F64:
    """``n`` rollouts from a live position."""
    results = np.empty(n, dtype=np.float64)
    for g in range(n):
        results[g] = _rollout(first, second, faces, moves, rng, limit, flags)
    return results


@jit
def _run(
    tree: TreeArrays, iterations: int, exploration: float, limit: int, history: I64,
    moves: I64, rng: U64, flags: Flags,
) -> int:  # fmt: skip
    """Up to ``iterations`` MCTS iterations; returns how many ran (fewer once the arrays are
    full)."""
    flap, king, mover_first = flags
    pos, status = tree[0], tree[2]
    first, edge_action = tree[6], tree[9]
    path = np.empty(len(tree[4]) + 1, dtype=np.int64)
    for done in range(iterations):
        if not room(tree, MAX_ACTIONS, history, 0, limit):
            return done
        node, depth = 0, 0
        path[0] = 0
        while status[node] == ONGOING and not expandable(tree, node):
            node = select(tree, node, exploration, rng)
            depth += 1
            path[depth] = node
        if status[node] != ONGOING:
            backup(tree, path, depth + 1, first_return(status[node]))
            continue
        edge = untried(tree, node, rng)
        f, s, x, winner = play(
            pos[node, 0],
            pos[node, 1],
            pos[node, 2],
            int(edge_action[edge]),
            flap,
            king,
            mover_first,
        )
        depth += 1
        state = _status(f, s, winner)
        n = generate(f, s, flap, king, moves, 0) if state == ONGOING else 0
        child = add_node(tree, _mover(f, s), state, 0, n)
        pos[child, 0], pos[child, 1], pos[child, 2] = f, s, x
        edge_action[first[child] : first[child] + n] = moves[:n]
        attach(tree, edge, child, depth)
        path[depth] = child
        if state == ONGOING:
            result = _rollout(f, s, x, moves, rng, limit, flags)
        else:
            result = first_return(state)
        backup(tree, path, depth + 1, result)
    return iterations


class RubiksFlipMCTS(KernelMCTS["RubiksFlipKernel"]):
    """The compiled MCTS of one Rubik's Flip option set; see the module docstring."""

    max_moves = MAX_ACTIONS

    def __init__(self, kernel: RubiksFlipKernel) -> None:
        super().__init__(kernel)
        self.moves = np.zeros(MAX_ACTIONS, dtype=np.int64)

    def _root(self, state: State) -> None:
        self.kernel.check_state(state)
        first, second, faces = pack(state)
        # No repetition in this game: the line of play is the root alone.
        self._set_root(
            (first, second, faces),
            state.current_player,
            list(state.legal_actions()),
            [(first, second, faces)],
        )

    def _rollouts(self, n: int, rollout_limit: int) -> F64:
        first, second, faces = (int(x) for x in self.tree.pos[0, :3])
        return _rollouts(
            n, first, second, faces, self.moves, self.rng, rollout_limit, self.kernel.flags
        )

    def _run(self, iterations: int, exploration: float, rollout_limit: int) -> int:
        ran = _run(
            self.tree.arrays(), iterations, exploration, rollout_limit, self.history,
            self.moves, self.rng, self.kernel.flags,
        )  # fmt: skip
        return int(ran)
