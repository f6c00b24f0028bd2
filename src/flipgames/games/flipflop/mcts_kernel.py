"""FlipFlop's compiled MCTS (both sizes): the reference MCTS's algorithm over the kernel.

Iterations run in machine code over :mod:`flipgames.kernels.mcts`'s tree, with
:mod:`.bitboard`'s move generator, apply and random move (a rollout draws each move without
listing the moves, the same one it would draw from the sorted list; node edges hold the
legal actions in increasing id, as ``State.legal_actions``); a rollout that reaches its ply
limit is scored by :mod:`.search_kernel`'s port of :mod:`.heuristics` (``tanh`` of its
value, as ``State.evaluate``). Repetition follows the rules: the third occurrence of a
position since the last capture draws, counted over the game's positions before the root, the
tree path and the rollout.

>>> import random
>>> from flipgames import make
>>> game = make("flipflop-3x3")
>>> state = game.new_initial_state()
>>> stats = game.kernel().mcts().search(state, random.Random(1), 300, None)
>>> stats.iterations, sorted(stats.actions) == sorted(state.legal_actions())
(300, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import ONGOING
from flipgames.games.flipflop.bitboard import (
    MAX_MOVES,
    Bitboard,
    _apply,
    _generate,
    _random_move,
    _status,
)
from flipgames.games.flipflop.search_kernel import evaluate
from flipgames.kernels.jit import jit, occurrences
from flipgames.kernels.mcts import (
    KernelMCTS,
    TreeArrays,
    add_node,
    attach,
    backup,
    estimate,
    expandable,
    first_return,
    rebuild_seen,
    room,
    select,
    untried,
)

if TYPE_CHECKING:
    from flipgames.core.game import State
    from flipgames.games.flipflop.kernel import FlipFlopKernel
    from flipgames.games.flipflop.rules import FlipFlopState

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
#: The bitboard's tables (:meth:`.Bitboard.args`): area, goals, own goals, masks, magics,
#: attacks.
Tables = tuple[int, int, I64, I64, I64, I64]


@jit
def _rollout(
    white: int, black: int, bishops: int, side: int, index: int, since: int,
    history: I64, seen: I64, scratch: I64, rng: U64, limit: int, tables: Tables,
) -> float:  # fmt: skip
    """The first player's return of a uniformly random game from a live position (the line's
    ``history[index]``, repetition counted since ``since``, ``seen`` holding that stretch),
    cut after ``limit`` plies and then estimated (``scratch``: room for two entries per
    piece)."""
    area, goals, own_goal, masks, magics, attacks = tables
    origins, reach = scratch[:32], scratch[32:64]
    action = _random_move(
        white, black, bishops, side, rng, area, goals, own_goal, masks, magics, attacks,
        origins, reach,
    )  # fmt: skip
    for _ in range(limit):
        white, black, bishops, captured = _apply(white, black, bishops, side, action, area)
        side ^= 1
        index += 1
        history[index, 0], history[index, 1], history[index, 2] = white, black, bishops
        if captured:
            since = index
            seen[:] = 0
        count = occurrences(history, index, since, seen)
        action = _random_move(
            white, black, bishops, side, rng, area, goals, own_goal, masks, magics, attacks,
            origins, reach,
        )  # fmt: skip
        status = _status(count, 0 if action < 0 else 1, side)
        if status != ONGOING:
            return first_return(status)
    value = evaluate(white, black, bishops, side, goals, own_goal, masks, magics, attacks)
    return estimate(value, side)


@jit
def _rollouts(
    n: int, white: int, black: int, bishops: int, side: int, history: I64, root_index: int,
    seen: I64, moves: I64, rng: U64, limit: int, tables: Tables,
) -> F64:  # fmt: skip
    """``n`` rollouts from the root (the line's ``history[root_index]``)."""
    results = np.empty(n, dtype=np.float64)
    for g in range(n):
        rebuild_seen(history, root_index, 0, seen)
        results[g] = _rollout(
            white, black, bishops, side, root_index, 0, history, seen, moves, rng, limit, tables
        )
    return results


@jit
def _run(
    tree: TreeArrays, iterations: int, exploration: float, limit: int, history: I64,
    root_index: int, seen: I64, moves: I64, rng: U64, tables: Tables,
) -> int:  # fmt: skip
    """Up to ``iterations`` MCTS iterations; returns how many ran (fewer once the arrays are
    full)."""
    area, goals, own_goal, masks, magics, attacks = tables
    pos, mover, status, since_of = tree[0], tree[1], tree[2], tree[3]
    first, edge_action = tree[6], tree[9]
    path = np.empty(len(tree[4]) + 1, dtype=np.int64)
    for done in range(iterations):
        if not room(tree, MAX_MOVES, history, root_index, limit):
            return done
        node, depth = 0, 0
        path[0] = 0
        while status[node] == ONGOING and not expandable(tree, node):
            node = select(tree, node, exploration, rng)
            depth += 1
            path[depth] = node
            history[root_index + depth, :] = pos[node, :3]
        if status[node] != ONGOING:
            backup(tree, path, depth + 1, first_return(status[node]))
            continue
        edge = untried(tree, node, rng)
        w, b, bi, captured = _apply(
            pos[node, 0], pos[node, 1], pos[node, 2], mover[node], int(edge_action[edge]), area
        )
        side = 1 - mover[node]
        depth += 1
        index = root_index + depth
        history[index, 0], history[index, 1], history[index, 2] = w, b, bi
        since = index if captured else since_of[node]
        count = rebuild_seen(history, index, since, seen)
        n = _generate(w, b, bi, side, area, goals, own_goal, masks, magics, attacks, moves)
        state = _status(count, n, side)
        child = add_node(tree, side, state, since, n if state == ONGOING else 0)
        pos[child, 0], pos[child, 1], pos[child, 2] = w, b, bi
        if state == ONGOING:
            edge_action[first[child] : first[child] + n] = moves[:n]
        attach(tree, edge, child, depth)
        path[depth] = child
        if state == ONGOING:
            result = _rollout(
                w, b, bi, side, index, since, history, seen, moves, rng, limit, tables
            )
        else:
            result = first_return(state)
        backup(tree, path, depth + 1, result)
    return iterations


class FlipFlopMCTS(KernelMCTS["FlipFlopKernel"]):
    """The compiled MCTS of one FlipFlop size; see the module docstring."""

    max_moves = MAX_MOVES

    def __init__(self, kernel: FlipFlopKernel) -> None:
        super().__init__(kernel)
        self.tables = Bitboard.of(kernel.geometry.size).args()
        self.moves = np.zeros(MAX_MOVES, dtype=np.int64)

    def _root(self, state: State) -> None:
        self.kernel.check_state(state)
        root = cast("FlipFlopState", state)
        line = [root]
        for _ in range(root.quiet):
            parent = line[-1].parent
            if parent is None:
                break
            line.append(cast("FlipFlopState", parent))
        line.reverse()
        self._set_root(
            (root.white, root.black, root.bishops),
            root.side,
            list(state.legal_actions()),
            [(s.white, s.black, s.bishops) for s in line],
        )

    def _rollouts(self, n: int, rollout_limit: int) -> F64:
        t = self.tree
        white, black, bishops = (int(w) for w in t.pos[0, :3])
        return _rollouts(
            n, white, black, bishops, int(t.mover[0]), self.history, self.root_index, self.seen,
            self.moves, self.rng, rollout_limit, self.tables,
        )  # fmt: skip

    def _run(self, iterations: int, exploration: float, rollout_limit: int) -> int:
        ran = _run(
            self.tree.arrays(), iterations, exploration, rollout_limit, self.history,
            self.root_index, self.seen, self.moves, self.rng, self.tables,
        )  # fmt: skip
        return int(ran)
