"""Building a :class:`~flipgames.core.kernel.PositionGraph` layer by layer with numpy alone.

The twin of :func:`flipgames.kernels.graphs.build_graph` (same ``expand`` contract, same node
numbers: breadth first, each key numbered when first seen) for a game whose expansion is
written in numpy: that one keeps its key index in a compiled hash table, and loading numba
and its machine code costs more than a small game's whole enumeration. Here the index is a
sorted array of the keys seen so far and their node numbers, searched and merged once per
layer.

>>> import numpy as np
>>> def expand(keys):  # a counter from 0 to 3; 3 is a win for player 0
...     n = len(keys)
...     over = keys == 3
...     return Expansion(
...         to_move=np.where(over, -2, 0).astype(np.int8),
...         terminal_return=over.astype(np.int8),
...         counts=np.where(over, 0, 1).astype(np.int64),
...         children=(keys[~over] + 1).astype(np.int64),
...         weights=np.ones(int((~over).sum()), np.int64),
...     )
>>> graph = build_graph(0, expand)
>>> graph.keys.tolist(), graph.edge_child.tolist(), graph.terminal_return.tolist()
([0, 1, 2, 3], [1, 2, 3], [0, 0, 0, 1])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from flipgames.core.kernel import PositionGraph
from flipgames.core.progress import Progress, silent

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Expansion:
    """What a batch of positions leads to: per position its player code (as
    :attr:`PositionGraph.to_move`), terminal return and number of children; the children's
    keys and weights concatenated in the same order. (Both builders take it; it lives here
    because this module loads no numba.)"""

    to_move: npt.NDArray[np.int8]
    terminal_return: npt.NDArray[np.int8]
    counts: I64
    children: I64
    weights: I64


def build_graph(
    root: int,
    expand: Callable[[I64], Expansion],
    progress: Progress = silent,
    symmetries: int = 1,
) -> PositionGraph:
    """Every position reachable from ``root``, breadth first; node ``i`` is the ``i``-th key
    seen (as :func:`flipgames.kernels.graphs.build_graph` numbers them)."""
    known = np.array([root], np.int64)  # the keys seen, sorted
    known_ids = np.zeros(1, np.int64)  # their node numbers
    frontier = known.copy()
    count = 1
    parts: dict[str, list[npt.NDArray[np.generic]]] = {
        name: [] for name in ("keys", "to_move", "terminal_return", "counts", "child", "weight")
    }
    layer = 0
    while len(frontier):
        step = expand(frontier)
        children = step.children
        at = np.searchsorted(known, children)
        hit = known[np.minimum(at, len(known) - 1)] == children
        found = np.empty(len(children), np.int64)
        found[hit] = known_ids[at[hit]]
        # New keys are numbered in the order they are first seen in this layer.
        fresh, first, inverse = np.unique(children[~hit], return_index=True, return_inverse=True)
        numbers = np.empty(len(fresh), np.int64)
        numbers[np.argsort(first, kind="stable")] = np.arange(count, count + len(fresh))
        found[~hit] = numbers[inverse]
        count += len(fresh)
        place = np.searchsorted(known, fresh)
        known = np.insert(known, place, fresh)
        known_ids = np.insert(known_ids, place, numbers)
        parts["keys"].append(frontier)
        parts["to_move"].append(step.to_move)
        parts["terminal_return"].append(step.terminal_return)
        parts["counts"].append(step.counts)
        parts["child"].append(found.astype(np.int32))
        parts["weight"].append(step.weights)
        frontier = fresh[np.argsort(numbers)]
        layer += 1
        progress(f"enumerated positions to ply {layer}", done=count)
    counts = np.concatenate(parts["counts"])
    edge_start = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=edge_start[1:])
    return PositionGraph(
        keys=np.concatenate(parts["keys"]).astype(np.int64),
        to_move=np.concatenate(parts["to_move"]).astype(np.int8),
        terminal_return=np.concatenate(parts["terminal_return"]).astype(np.int8),
        edge_start=edge_start,
        edge_child=np.concatenate(parts["child"]).astype(np.int32),
        edge_weight=np.concatenate(parts["weight"]).astype(np.int64),
        symmetries=symmetries,
    )
