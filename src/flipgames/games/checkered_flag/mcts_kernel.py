"""Checkered Flag's compiled MCTS (every option set): the reference MCTS's algorithm over the
kernel, chance nodes included.

Iterations run in machine code over :mod:`flipgames.kernels.mcts`'s tree, with
:mod:`.kernel`'s ``options`` and ``step``. As in the reference, a spin is a chance node whose
children are the outcomes drawn so far: each pass draws an outcome with its exact probability
(the kernel's integer weights), goes on to its child, or adds it and plays the rollout from
there. A chance node lists every outcome as an edge, in the kernel's order, so the drawn
index is the edge; an outcome not drawn yet has no child (-1). Rollouts cut at their ply limit
are scored by :mod:`.heuristics`' solo-race turns (the same table, looked up in machine code).

>>> import random
>>> from flipgames import make
>>> game = make("checkered-flag")
>>> state = game.state_from_actions(["5:3"])  # the start spin: player 1 moves first
>>> stats = game.kernel().mcts().search(state, random.Random(1), 300, None)
>>> stats.iterations, sorted(stats.actions) == sorted(state.legal_actions())
(300, True)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from flipgames.core.game import CHANCE
from flipgames.core.kernel import FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.games.checkered_flag.batch_graph import MOVER_SHIFT
from flipgames.games.checkered_flag.heuristics import TURNS_SCALE, solo_turns
from flipgames.games.checkered_flag.kernel import options, step, unpack
from flipgames.games.checkered_flag.notation import C3, CHOOSE, OVER, SPIN, START
from flipgames.kernels.jit import jit
from flipgames.kernels.mcts import (
    KernelMCTS,
    TreeArrays,
    add_node,
    attach,
    backup,
    expandable,
    first_return,
    room,
    select,
    untried,
)
from flipgames.kernels.sampling import uniform, weighted

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.checkered_flag.kernel import CheckeredFlagKernel

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
B1 = npt.NDArray[np.bool_]
#: The kernel's tables: outcome ids and weights, moves, start_first, crash_at, no_passing_at,
#: the goal, and the solo-race turns of :func:`.heuristics.solo_turns`.
Tables = tuple[I64, I64, I64, I64, B1, B1, int, F64]


@jit
def _after(key: int, action: int, t: Tables) -> int:
    return step(key, action, t[2], t[3], t[4], t[5], t[6])


@jit
def _status(key: int) -> int:
    """A finished race is won by the mover bit's car; else the race goes on."""
    if (key & 3) != OVER:
        return ONGOING
    return FIRST_WINS if (key >> MOVER_SHIFT) & 1 == 0 else SECOND_WINS


@jit
def _mover(key: int) -> int:
    """The car to choose a gear, or CHANCE at a spin (the start spin included)."""
    phase = key & 3
    return CHANCE if phase in (START, SPIN) else (key >> MOVER_SHIFT) & 1


@jit
def _estimate(key: int, turns: F64) -> float:
    """:func:`.heuristics.evaluate` for the first player: ``tanh`` of the solo-race turns
    difference, the car about to act half a turn ahead."""
    phase, mover, d0, d1, g0, g1 = unpack(key)
    column0, column1 = g0, g1
    if phase == SPIN:
        # This turn's gear is already chosen: the table's last three columns.
        if mover == 0:
            column0 = C3 + g0
        else:
            column1 = C3 + g1
    t0, t1 = turns[d0, column0], turns[d1, column1]
    if phase != START:
        if mover == 0:
            t0 -= 0.5
        else:
            t1 -= 0.5
    return math.tanh((t1 - t0) / TURNS_SCALE)


@jit
def _rollout(key: int, actions: I64, weights: I64, rng: U64, limit: int, t: Tables) -> float:
    """The first player's return of a random race from ``key`` (gear choices uniform, spins
    with their probabilities), cut after ``limit`` plies and then estimated."""
    for _ in range(limit):
        if (key & 3) == OVER:
            break
        count = options(key, t[0], t[1], actions, weights)
        if (key & 3) == CHOOSE:
            action = actions[uniform(rng, count)]
        else:
            action = actions[weighted(rng, weights, count)]
        key = _after(key, action, t)
    if (key & 3) == OVER:
        return first_return(_status(key))
    return _estimate(key, t[7])


@jit
def _new_node(tree: TreeArrays, key: int, actions: I64, weights: I64, t: Tables) -> int:
    """A node for ``key`` with its legal actions (a chance node: its outcomes, no child yet)."""
    status = _status(key)
    count = options(key, t[0], t[1], actions, weights) if status == ONGOING else 0
    mover = _mover(key)
    node = add_node(tree, mover, status, 0, count)
    tree[0][node, 0] = key
    first, edge_action, edge_child = tree[6][node], tree[9], tree[10]
    edge_action[first : first + count] = actions[:count]
    if mover == CHANCE:
        edge_child[first : first + count] = -1
        tree[8][node] = count  # never expanded by choice: outcomes come from sampling
    return node


@jit
def _rollouts(n: int, key: int, actions: I64, weights: I64, rng: U64, limit: int, t: Tables) -> F64:
    """``n`` rollouts from ``key``."""
    results = np.empty(n, dtype=np.float64)
    for g in range(n):
        results[g] = _rollout(key, actions, weights, rng, limit, t)
    return results


@jit
def _run(
    tree: TreeArrays, iterations: int, exploration: float, limit: int, history: I64,
    actions: I64, weights: I64, rng: U64, t: Tables,
) -> int:  # fmt: skip
    """Up to ``iterations`` MCTS iterations; returns how many ran (fewer once the arrays are
    full)."""
    pos, mover, status, first = tree[0], tree[1], tree[2], tree[6]
    edge_action, edge_child = tree[9], tree[10]
    path = np.empty(len(tree[4]) + 1, dtype=np.int64)
    for done in range(iterations):
        if not room(tree, actions.shape[0], history, 0, limit):
            return done
        node, depth = 0, 0
        path[0] = 0
        child = -1
        while status[node] == ONGOING:
            if mover[node] == CHANCE:
                count = options(pos[node, 0], t[0], t[1], actions, weights)
                edge = first[node] + weighted(rng, weights, count)
                if edge_child[edge] < 0:
                    after = _after(pos[node, 0], int(edge_action[edge]), t)
                    child = _new_node(tree, after, actions, weights, t)
                    depth += 1
                    attach(tree, edge, child, depth)
                    path[depth] = child
                    break
                node = edge_child[edge]
            elif expandable(tree, node):
                edge = untried(tree, node, rng)
                after = _after(pos[node, 0], int(edge_action[edge]), t)
                child = _new_node(tree, after, actions, weights, t)
                depth += 1
                attach(tree, edge, child, depth)
                path[depth] = child
                break
            else:
                node = select(tree, node, exploration, rng)
            depth += 1
            path[depth] = node
        if child < 0:
            result = first_return(status[node])
        elif status[child] == ONGOING:
            result = _rollout(pos[child, 0], actions, weights, rng, limit, t)
        else:
            result = first_return(status[child])
        backup(tree, path, depth + 1, result)
    return iterations


class CheckeredFlagMCTS(KernelMCTS["CheckeredFlagKernel"]):
    """The compiled MCTS of one Checkered Flag option set; see the module docstring."""

    def __init__(self, kernel: CheckeredFlagKernel) -> None:
        super().__init__(kernel)
        width = kernel.outcome_ids.shape[1] + 3
        self.max_moves = width
        self.actions = np.zeros(width, dtype=np.int64)
        self.weights = np.zeros(width, dtype=np.int64)
        self.tables: Tables = (
            kernel.outcome_ids, kernel.outcome_weights, kernel.moves, kernel.start_first,
            kernel.crash_at, kernel.no_passing_at, kernel.goal,
            np.array(solo_turns(kernel.game), dtype=np.float64),
        )  # fmt: skip

    def _root(self, state: State) -> None:
        self.kernel.check_state(state)
        key = self.kernel.encode(state)
        # No repetition in a race: the line of play is the root alone (unused).
        self._set_root((key,), state.current_player, list(state.legal_actions()), [(0, 0, 0)])

    def _rollouts(self, n: int, rollout_limit: int) -> F64:
        key = int(self.tree.pos[0, 0])
        return _rollouts(n, key, self.actions, self.weights, self.rng, rollout_limit, self.tables)

    def _run(self, iterations: int, exploration: float, rollout_limit: int) -> int:
        ran = _run(
            self.tree.arrays(), iterations, exploration, rollout_limit, self.history,
            self.actions, self.weights, self.rng, self.tables,
        )  # fmt: skip
        return int(ran)
