"""FlipFour's compiled MCTS: the reference MCTS's algorithm over the kernel.

Iterations run in machine code over :mod:`flipgames.kernels.mcts`'s tree, with
:mod:`.kernel`'s move generator and apply; a rollout that reaches its ply limit (most random
FlipFour games do: they are long) is scored by :mod:`.search_kernel`'s port of
:mod:`.heuristics` (``tanh`` of its value, as ``State.evaluate``). The end of a game follows
the rules' order: a four wins, no legal action loses, the third occurrence of a position since
the last drop draws, counted over the game's positions before the root, the tree path and the
rollout.

>>> import random
>>> from flipgames import make
>>> game = make("flipfour")
>>> state = game.state_from_actions("R@a1 R@e5 R@b1 R@e4 R@c1 R@a5".split())
>>> stats = game.kernel().mcts().search(state, random.Random(1), 2000, None)
>>> state.action_to_string(stats.best())  # four in a row at once
'R@d1'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import ONGOING
from flipgames.games.flipfour.kernel import MAX_ACTIONS, _apply, _generate, _status
from flipgames.games.flipfour.search_kernel import _WINDOW_WEIGHT, _WINDOWS, evaluate
from flipgames.kernels.jit import below, jit, occurrences
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
    from flipgames.games.flipfour.kernel import FlipFourKernel
    from flipgames.games.flipfour.rules import FlipFourState

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
Tables = tuple[I64, I64, I64, I64, I64, I64]


@jit
def _step(
    pos: tuple[int, int, int, int, int], player: int, action: int, tables: Tables
) -> tuple[tuple[int, int, int, int, int], bool]:
    """The position words after ``action`` and whether it made four in a row."""
    _, _, move_from, move_to, through, through_count = tables
    white, black, bishops, hand0, hand1 = pos
    w, b, bi, h0, h1, four = _apply(
        white, black, bishops, hand0, hand1, player, action, move_from, move_to, through,
        through_count,
    )  # fmt: skip
    return (w, b, bi, h0, h1), four


@jit
def _state(
    pos: tuple[int, int, int, int, int], player: int, four: bool, count: int, tables: Tables,
    moves: I64,
) -> tuple[int, int]:  # fmt: skip
    """(status, legal actions written into ``moves``) of a position reached by a move."""
    reach, ids = tables[0], tables[1]
    white, black, bishops, hand0, hand1 = pos
    n = 0
    if not four:
        hand = hand1 if player else hand0
        n = _generate(white, black, bishops, hand, player, reach, ids, moves)
    return _status(four, n, count, player), n


@jit
def _rollout(
    pos: tuple[int, int, int, int, int], player: int, index: int, since: int, history: I64,
    seen: I64, moves: I64, rng: U64, limit: int, tables: Tables,
) -> float:  # fmt: skip
    """The first player's return of a uniformly random game from a live position (the line's
    ``history[index]``, repetition counted since ``since``, ``seen`` holding that stretch),
    cut after ``limit`` plies and then estimated."""
    _, n = _state(pos, player, False, 1, tables, moves)
    for _ in range(limit):
        action = moves[below(rng, n)]
        pos, four = _step(pos, player, action, tables)
        player ^= 1
        index += 1
        history[index, 0], history[index, 1], history[index, 2] = pos[0], pos[1], pos[2]
        if action < 50:
            since = index
            seen[:] = 0
        count = occurrences(history, index, since, seen)
        status, n = _state(pos, player, four, count, tables, moves)
        if status != ONGOING:
            return first_return(status)
    white, black, bishops, hand0, hand1 = pos
    value = evaluate(
        white, black, bishops, hand0, hand1, player, tables[0], _WINDOWS, _WINDOW_WEIGHT
    )
    return estimate(value, player)


@jit
def _rollouts(
    n: int, pos: tuple[int, int, int, int, int], player: int, history: I64, root_index: int,
    seen: I64, moves: I64, rng: U64, limit: int, tables: Tables,
) -> F64:  # fmt: skip
    """``n`` rollouts from the root (the line's ``history[root_index]``)."""
    results = np.empty(n, dtype=np.float64)
    for g in range(n):
        rebuild_seen(history, root_index, 0, seen)
        results[g] = _rollout(pos, player, root_index, 0, history, seen, moves, rng, limit, tables)
    return results


@jit
def _run(
    tree: TreeArrays, iterations: int, exploration: float, limit: int, history: I64,
    root_index: int, seen: I64, moves: I64, rng: U64, tables: Tables,
) -> int:  # fmt: skip
    """Up to ``iterations`` MCTS iterations; returns how many ran (fewer once the arrays are
    full)."""
    pos, mover, status, since_of = tree[0], tree[1], tree[2], tree[3]
    first, edge_action = tree[6], tree[9]
    path = np.empty(len(tree[4]) + 1, dtype=np.int64)
    for done in range(iterations):
        if not room(tree, MAX_ACTIONS, history, root_index, limit):
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
        action = int(edge_action[edge])
        words = (pos[node, 0], pos[node, 1], pos[node, 2], pos[node, 3], pos[node, 4])
        after, four = _step(words, mover[node], action, tables)
        player = 1 - mover[node]
        depth += 1
        index = root_index + depth
        history[index, 0], history[index, 1], history[index, 2] = after[0], after[1], after[2]
        since = index if action < 50 else since_of[node]
        count = rebuild_seen(history, index, since, seen)
        state, n = _state(after, player, four, count, tables, moves)
        child = add_node(tree, player, state, since, n if state == ONGOING else 0)
        for k in range(5):
            pos[child, k] = after[k]
        if state == ONGOING:
            edge_action[first[child] : first[child] + n] = moves[:n]
        attach(tree, edge, child, depth)
        path[depth] = child
        if state == ONGOING:
            result = _rollout(after, player, index, since, history, seen, moves, rng, limit, tables)
        else:
            result = first_return(state)
        backup(tree, path, depth + 1, result)
    return iterations


class FlipFourMCTS(KernelMCTS["FlipFourKernel"]):
    """FlipFour's compiled MCTS; see the module docstring."""

    max_moves = MAX_ACTIONS

    def __init__(self, kernel: FlipFourKernel) -> None:
        super().__init__(kernel)
        self.moves = np.zeros(MAX_ACTIONS, dtype=np.int64)

    def _root(self, state: State) -> None:
        self.kernel.check_state(state)
        root = cast("FlipFourState", state)
        line = [root]
        while True:
            parent = cast("FlipFourState | None", line[-1].parent)
            if parent is None or parent.hands != root.hands:
                break
            line.append(parent)
        line.reverse()
        hand0, hand1 = root.hands
        self._set_root(
            (root.white, root.black, root.bishops, hand0, hand1),
            root.to_move,
            list(state.legal_actions()),
            [(s.white, s.black, s.bishops) for s in line],
        )

    def _rollouts(self, n: int, rollout_limit: int) -> F64:
        t = self.tree
        w, b, bi, h0, h1 = (int(x) for x in t.pos[0, :5])
        return _rollouts(
            n, (w, b, bi, h0, h1), int(t.mover[0]), self.history, self.root_index, self.seen,
            self.moves, self.rng, rollout_limit, self.kernel.tables,
        )  # fmt: skip

    def _run(self, iterations: int, exploration: float, rollout_limit: int) -> int:
        ran = _run(
            self.tree.arrays(), iterations, exploration, rollout_limit, self.history,
            self.root_index, self.seen, self.moves, self.rng, self.kernel.tables,
        )  # fmt: skip
        return int(ran)
