"""Flip Switch's compiled MCTS (every option set the kernel has: any ``lines``, ``no_move``
and ``rounds``): the reference MCTS's algorithm over :mod:`.kernel`, chance nodes, repetition
draws and the whole match included.

The information rules are the reference engine's, because the position is: a face-down tile
has no shape anywhere (the packed key stores 0 for it, as the reference stores
``FACE_DOWN``), so no hidden layout exists to leak. A flip is a chance node whose outcomes are
the shapes with tiles still face down, each drawn with weight "how many of its tiles are still
face down" (:func:`.kernel.chance_weights`, the reference's ``chance_outcomes()``). As in
Checkered Flag's kernel, a chance node lists every possible shape as an edge, in the
reference's order; each pass draws one with its exact weight, goes on to its child, or adds
the child and plays the rollout from there.

A node holds three words: the round's packed key (:mod:`.kernel`), the match so far (rounds
won by each player and rounds played, :func:`_results`) and, in the tree's ``since``, the
reversible plies (switches and passes that scored nothing) since the last flip, score or
round start: the reference's ``_rev``. The repetition rule compares the key with every second
position back over that stretch, which the line of play in ``history`` holds (the root's
stretch from the reference state's ancestors, then the tree path and the rollout). A finished
round starts the next one, as the reference does, until ``rounds`` have been played. Rollouts
cut at their ply limit are scored by a port of :func:`.heuristics.evaluate`.

>>> import random
>>> from flipgames import make
>>> game = make("flip-switch")
>>> state = game.new_initial_state()
>>> stats = game.kernel().mcts().search(state, random.Random(1), 300, None)
>>> stats.iterations, sorted(stats.actions) == sorted(state.legal_actions())
(300, True)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from flipgames.core.game import CHANCE
from flipgames.core.kernel import DRAWN, FIRST_WINS, ONGOING, SECOND_WINS
from flipgames.games.flip_switch.heuristics import CHANCE as CHANCE_WEIGHT
from flipgames.games.flip_switch.heuristics import ROUND, SHAPE
from flipgames.games.flip_switch.kernel import (
    FLIP_SHIFT,
    MAX_ACTIONS,
    MOVER_SHIFT,
    OUTCOME_BASE,
    OVER_DRAWN,
    OVER_SHIFT,
    PAIRS,
    REVERSIBLE,
    SHAPES,
    SQUARES,
    SWITCH_BASE,
    _step,
    chance_weights,
    completed_shape,
    legal_actions,
    unpack,
)
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
    from flipgames.games.flip_switch.kernel import FlipSwitchKernel
    from flipgames.games.flip_switch.rules import FlipSwitchState

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
#: The kernel's tables: lines through each square, the switch pairs, passing, rounds.
Tables = tuple[I64, I64, bool, int]
#: Scratch rows: tiles, owners, weights / actions, the step's scratch, a second tiles row.
Scratch = tuple[I64, I64, I64, I64, I64]

#: Bit fields of the results word: rounds won by player 0, by player 1, rounds played.
WINS1_SHIFT: Final = 8
PLAYED_SHIFT: Final = 16


@jit
def _results(wins0: int, wins1: int, played: int) -> int:
    return wins0 | (wins1 << WINS1_SHIFT) | (played << PLAYED_SHIFT)


@jit
def _status(results: int, rounds: int) -> int:
    """The match's status: over once every round is played, won by more rounds won."""
    wins0 = results & 255
    wins1 = (results >> WINS1_SHIFT) & 255
    if results >> PLAYED_SHIFT < rounds:
        return ONGOING
    if wins0 > wins1:
        return FIRST_WINS
    if wins1 > wins0:
        return SECOND_WINS
    return DRAWN


@jit
def _mover(key: int) -> int:
    """The player to move, or CHANCE while a flip is being revealed."""
    return CHANCE if (key >> FLIP_SHIFT) & 15 else (key >> MOVER_SHIFT) & 1


@jit
def _options(key: int, t: Tables, s: Scratch) -> int:
    """The legal actions of an ongoing position into ``s[3]`` (a chance node: the shapes
    still face down, their weights in ``s[2]``); returns how many."""
    tiles, owners, weights, actions = s[0], s[1], s[2], s[3]
    last, _, flip = unpack(key, tiles, owners)
    if flip < 0:
        return legal_actions(tiles, owners, last, t[1], t[2], actions)
    chance_weights(tiles, weights)
    n = 0
    for k in range(SHAPES):
        if weights[k] > 0:
            actions[n] = OUTCOME_BASE + k
            weights[n] = weights[k]
            n += 1
    return n


@jit
def _play(
    key: int, results: int, rev: int, action: int, history: I64, at: int, t: Tables, s: Scratch
) -> tuple[int, int, int]:
    """The position after ``action`` from the one at ``history[at]``: (key, results, rev),
    with the new key written to ``history[at + 1]``. A round that ends (a majority of shapes,
    no legal action, a third occurrence) starts the next one, as the reference does; once the
    last round is played the key is left as the finished round's code."""
    after, flags = _step(key, action, t[0], t[1], t[2], s[0], s[1], s[4])
    over = after >> OVER_SHIFT
    if over == 0:
        if flags & REVERSIBLE:
            # Only every second position back has the same side to move.
            rev += 1
            count = 1
            back = at + 1 - 2
            for _ in range(rev // 2):
                if history[back, 0] == after:
                    count += 1
                back -= 2
            if count >= 3:
                over = OVER_DRAWN
        else:
            rev = 0
    if over == 0:
        history[at + 1, 0] = after
        return after, results, rev
    wins0 = results & 255
    wins1 = (results >> WINS1_SHIFT) & 255
    played = (results >> PLAYED_SHIFT) + 1
    if over == 1:
        wins0 += 1
    elif over == 2:
        wins1 += 1
    results = _results(wins0, wins1, played)
    # A fresh face-down grid (player 1 starts odd rounds, player 2 even ones), or the end.
    after = (played % 2) << MOVER_SHIFT if played < t[3] else over << OVER_SHIFT
    history[at + 1, 0] = after
    return after, results, 0


@jit
def _flip_chance(
    tiles: I64, owners: I64, weights: I64, hidden: int, square: int, lines: I64
) -> float:
    """:func:`.heuristics.flip_chance` (``weights``: per shape, its tiles still face down)."""
    chance = 0.0
    for k in range(SHAPES):
        if weights[k]:
            tiles[square] = k
            if completed_shape(tiles, owners, square, lines) >= 0:
                chance += weights[k] / hidden
    tiles[square] = -1
    return chance


@jit
def _switch_scores(tiles: I64, owners: I64, last: int, lines: I64, pairs: I64) -> bool:
    """:func:`.heuristics.switch_scores`."""
    for p in range(PAIRS):
        i, j = pairs[p, 0], pairs[p, 1]
        a, b = tiles[i], tiles[j]
        if a < 0 or b < 0 or a == b or (owners[a] >= 0 and owners[b] >= 0) or p == last:
            continue
        tiles[i], tiles[j] = b, a
        scores = (
            completed_shape(tiles, owners, i, lines) >= 0
            or completed_shape(tiles, owners, j, lines) >= 0
        )
        tiles[i], tiles[j] = a, b
        if scores:
            return True
    return False


@jit
def _estimate(key: int, results: int, t: Tables, s: Scratch) -> float:
    """:func:`.heuristics.evaluate` for the first player at an ongoing position."""
    tiles, owners, weights = s[0], s[1], s[2]
    last, mover, flip = unpack(key, tiles, owners)
    hidden = chance_weights(tiles, weights)
    if flip >= 0:
        chance = _flip_chance(tiles, owners, weights, hidden, flip, t[0])
    elif _switch_scores(tiles, owners, last, t[0], t[1]):
        chance = 1.0
    else:
        chance = 0.0
        for square in range(SQUARES):
            if tiles[square] < 0:
                chance = max(chance, _flip_chance(tiles, owners, weights, hidden, square, t[0]))
    credited = 0
    for k in range(SHAPES):
        if owners[k] == 0:
            credited += 1
        elif owners[k] == 1:
            credited -= 1
    rounds = (results & 255) - ((results >> WINS1_SHIFT) & 255)
    score = SHAPE * credited + CHANCE_WEIGHT * (chance if mover == 0 else -chance)
    return math.tanh(score + ROUND * rounds)


@jit
def _rollout(
    key: int, results: int, rev: int, history: I64, at: int, rng: U64, limit: int,
    t: Tables, s: Scratch,
) -> float:  # fmt: skip
    """The first player's return of a random game from the position at ``history[at]``
    (uniform actions, flips revealed with their weights), cut after ``limit`` plies and then
    estimated."""
    for ply in range(limit):
        if _status(results, t[3]) != ONGOING:
            break
        count = _options(key, t, s)
        if (key >> FLIP_SHIFT) & 15:
            action = s[3][weighted(rng, s[2], count)]
        else:
            action = s[3][uniform(rng, count)]
        key, results, rev = _play(key, results, rev, action, history, at + ply, t, s)
    status = _status(results, t[3])
    if status != ONGOING:
        return first_return(status)
    return _estimate(key, results, t, s)


@jit
def _new_node(tree: TreeArrays, key: int, results: int, rev: int, t: Tables, s: Scratch) -> int:
    """A node for the position with its legal actions (a chance node: its outcomes, no child
    yet)."""
    status = _status(results, t[3])
    count = _options(key, t, s) if status == ONGOING else 0
    mover = _mover(key) if status == ONGOING else 0
    node = add_node(tree, mover, status, rev, count)
    tree[0][node, 0] = key
    tree[0][node, 1] = results
    first, edge_action, edge_child = tree[6][node], tree[9], tree[10]
    edge_action[first : first + count] = s[3][:count]
    if mover == CHANCE:
        edge_child[first : first + count] = -1
        tree[8][node] = count  # never expanded by choice: outcomes come from sampling
    return node


@jit
def _rollouts(
    n: int, key: int, results: int, rev: int, history: I64, at: int, rng: U64, limit: int,
    t: Tables, s: Scratch,
) -> F64:  # fmt: skip
    """``n`` rollouts from the root."""
    out = np.empty(n, dtype=np.float64)
    for g in range(n):
        out[g] = _rollout(key, results, rev, history, at, rng, limit, t, s)
    return out


@jit
def _run(
    tree: TreeArrays, iterations: int, exploration: float, limit: int, history: I64,
    root_index: int, rng: U64, t: Tables, s: Scratch,
) -> int:  # fmt: skip
    """Up to ``iterations`` MCTS iterations; returns how many ran (fewer once the arrays are
    full)."""
    pos, mover, status, since, first = tree[0], tree[1], tree[2], tree[3], tree[6]
    edge_action, edge_child = tree[9], tree[10]
    path = np.empty(len(tree[4]) + 1, dtype=np.int64)
    for done in range(iterations):
        if not room(tree, MAX_ACTIONS, history, root_index, limit):
            return done
        node, depth = 0, 0
        path[0] = 0
        child = -1
        while status[node] == ONGOING:
            # The line of play so far, for the repetition rule below this node.
            history[root_index + depth, 0] = pos[node, 0]
            if mover[node] == CHANCE:
                count = _options(pos[node, 0], t, s)
                edge = first[node] + weighted(rng, s[2], count)
                if edge_child[edge] >= 0:
                    node = edge_child[edge]
                    depth += 1
                    path[depth] = node
                    continue
            elif expandable(tree, node):
                edge = untried(tree, node, rng)
            else:
                node = select(tree, node, exploration, rng)
                depth += 1
                path[depth] = node
                continue
            key, results, rev = _play(
                pos[node, 0], pos[node, 1], since[node], int(edge_action[edge]), history,
                root_index + depth, t, s,
            )  # fmt: skip
            child = _new_node(tree, key, results, rev, t, s)
            depth += 1
            attach(tree, edge, child, depth)
            path[depth] = child
            break
        if child < 0:
            result = first_return(status[node])
        elif status[child] == ONGOING:
            result = _rollout(
                pos[child, 0], pos[child, 1], since[child], history, root_index + depth, rng,
                limit, t, s,
            )  # fmt: skip
        else:
            result = first_return(status[child])
        backup(tree, path, depth + 1, result)
    return iterations


def _stretch(state: FlipSwitchState) -> list[FlipSwitchState]:
    """The positions since the last flip, score or round start, oldest first, ending with
    ``state``: those a switch or pass can repeat (the reference's ``_rev`` plies back)."""
    actions = state.history
    line = [state]
    node = state
    while node.parent is not None and not node.parent.is_chance_node():
        before: FlipSwitchState = node.parent  # type: ignore[assignment]
        # Only a switch or pass that scored nothing keeps the owners and the round.
        if actions[-len(line)] < SWITCH_BASE:
            break
        if before.owners != node.owners or before.results != node.results:
            break
        line.append(before)
        node = before
    return line[::-1]


class FlipSwitchMCTS(KernelMCTS["FlipSwitchKernel"]):
    """The compiled MCTS of one Flip Switch option set; see the module docstring."""

    max_moves = MAX_ACTIONS

    def __init__(self, kernel: FlipSwitchKernel) -> None:
        super().__init__(kernel)
        self.tables: Tables = (kernel.lines, kernel.pairs, kernel.passing, kernel.rounds)
        self.scratch: Scratch = (
            np.zeros(SQUARES, np.int64), np.zeros(SHAPES, np.int64),
            np.zeros(MAX_ACTIONS, np.int64), np.zeros(MAX_ACTIONS, np.int64),
            np.zeros(MAX_ACTIONS, np.int64),
        )  # fmt: skip
        self.results = 0

    def _root(self, state: State) -> None:
        if state.game.name != self.kernel.name or state.game.options != self.kernel.game.options:
            raise ValueError(f"a {state.game.name} state given to another option set's kernel")
        fs: FlipSwitchState = state  # type: ignore[assignment]
        wins = fs.results.count(0), fs.results.count(1)
        self.results = _results(wins[0], wins[1], len(fs.results))
        line = [(self.kernel.raw_key(s), 0, 0) for s in _stretch(fs)]
        self._set_root(
            (line[-1][0], self.results), fs.current_player, list(fs.legal_actions()), line
        )
        self.tree.since[0] = len(line) - 1

    def _rollouts(self, n: int, rollout_limit: int) -> F64:
        t = self.tree
        return _rollouts(
            n, int(t.pos[0, 0]), int(t.pos[0, 1]), int(t.since[0]), self.history,
            self.root_index, self.rng, rollout_limit, self.tables, self.scratch,
        )  # fmt: skip

    def _run(self, iterations: int, exploration: float, rollout_limit: int) -> int:
        ran = _run(
            self.tree.arrays(), iterations, exploration, rollout_limit, self.history,
            self.root_index, self.rng, self.tables, self.scratch,
        )  # fmt: skip
        return int(ran)
