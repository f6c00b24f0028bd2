"""Retrograde propagation in numpy (:func:`flipgames.solvers.retrograde.propagate`) against a
plain queue-based propagation on random graphs with cycles, draws and repeated edges."""

from __future__ import annotations

import random
from collections import deque

import numpy as np
import pytest

from flipgames.core.game import TERMINAL
from flipgames.solvers.retrograde import propagate


def queue_propagate(
    children: list[list[int]], to_move: list[int], returns: list[int]
) -> tuple[list[int], list[int]]:
    """The textbook algorithm, one node at a time: a node is won for its mover by the first
    child found won for them, lost when the last of its edges is counted down."""
    n = len(children)
    parents: list[list[int]] = [[] for _ in range(n)]
    for node, kids in enumerate(children):
        for child in kids:
            parents[child].append(node)
    value, remoteness = [0] * n, [-1] * n
    unresolved = [len(kids) for kids in children]
    queue = deque(node for node in range(n) if to_move[node] == TERMINAL and returns[node] != 0)
    for node in queue:
        value[node], remoteness[node] = returns[node], 0
    while queue:
        child = queue.popleft()
        for node in parents[child]:
            if remoteness[node] >= 0:
                continue
            mine = value[child] if to_move[node] == 0 else -value[child]
            if mine <= 0:
                unresolved[node] -= 1
                if unresolved[node]:
                    continue
            value[node], remoteness[node] = value[child], remoteness[child] + 1
            queue.append(node)
    return value, remoteness


@pytest.mark.parametrize("seed", range(40))
def test_propagate_agrees_with_the_queue(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 300)
    to_move = [rng.choice([0, 1, 0, 1, TERMINAL]) for _ in range(n)]
    returns = [rng.choice([-1, 0, 1]) if m == TERMINAL else 0 for m in to_move]
    children = [
        [] if m == TERMINAL else [rng.randrange(n) for _ in range(rng.randint(1, 4))]
        for m in to_move
    ]
    edge_start = np.cumsum([0, *map(len, children)])
    edge_child = np.array([c for kids in children for c in kids], dtype=np.int32)
    values, remoteness = propagate(
        edge_start.astype(np.int64),
        edge_child,
        np.array(to_move, dtype=np.int8),
        np.array(returns, dtype=np.int8),
    )
    expected = queue_propagate(children, to_move, returns)
    assert (values.tolist(), remoteness.tolist()) == expected
    assert (values.dtype, remoteness.dtype) == (np.int8, np.int32)


def test_the_comparison_sees_the_rules() -> None:
    """A case the oracle and :func:`propagate` must get right in the same way: the mover
    at 0 avoids the loss through 1 by the draw at 3; at 1 the win takes one ply."""
    children, to_move, returns = [[1, 3], [2], [], []], [0, 1, TERMINAL, TERMINAL], [0, 0, -1, 0]
    assert queue_propagate(children, to_move, returns) == ([0, -1, -1, 0], [-1, 1, 0, -1])
