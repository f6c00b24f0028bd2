"""Building a :class:`~flipgames.core.kernel.PositionGraph` layer by layer from a kernel.

A kernel only says what one position leads to, for a whole batch of positions at once (its
``expand`` function, compiled). This module does the rest once for every game: the
breadth-first layers, the key index (an open-addressing hash table in compiled code) and the
flat edge arrays. Python runs once per layer, never per position.

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

import numpy as np
import numpy.typing as npt
from numba import njit

from flipgames.core.kernel import PositionGraph
from flipgames.core.progress import Progress, silent
from flipgames.kernels.batch_graphs import Expansion

__all__ = ["Expansion", "build_graph"]

#: An empty slot of the hash table (no key is negative).
_EMPTY = -1


@njit(cache=True)
def _slot(table: npt.NDArray[np.int64], key: int) -> int:
    mask = table.shape[0] - 1
    slot = (key * 0x9E3779B97F4A7C15) & mask
    while table[slot] != _EMPTY and table[slot] != key:
        slot = (slot + 1) & mask
    return int(slot)


@njit(cache=True)
def _intern(
    table: npt.NDArray[np.int64],
    ids: npt.NDArray[np.int64],
    keys: npt.NDArray[np.int64],
    count: int,
    found: npt.NDArray[np.int64],
) -> int:
    """Node ids of ``keys`` into ``found``, numbering new keys from ``count``; returns the
    new count. New keys come out in first-seen order, which is breadth-first order."""
    for i in range(keys.shape[0]):
        slot = _slot(table, keys[i])
        if table[slot] == _EMPTY:
            table[slot] = keys[i]
            ids[slot] = count
            count += 1
        found[i] = ids[slot]
    return count


@njit(cache=True)
def _rehash(
    table: npt.NDArray[np.int64], ids: npt.NDArray[np.int64], size: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    new_table = np.full(size, _EMPTY, np.int64)
    new_ids = np.empty(size, np.int64)
    for i in range(table.shape[0]):
        if table[i] != _EMPTY:
            slot = _slot(new_table, table[i])
            new_table[slot] = table[i]
            new_ids[slot] = ids[i]
    return new_table, new_ids


def build_graph(
    root: int,
    expand: Callable[[npt.NDArray[np.int64]], Expansion],
    progress: Progress = silent,
    symmetries: int = 1,
) -> PositionGraph:
    """Every position reachable from ``root``, breadth first; node ``i`` is the ``i``-th key
    seen. ``expand`` must return keys already folded when ``symmetries`` > 1."""
    table = np.full(1 << 16, _EMPTY, np.int64)
    ids = np.empty(1 << 16, np.int64)
    frontier = np.array([root], np.int64)
    found = np.empty(1, np.int64)
    count = _intern(table, ids, frontier, 0, found)
    parts: dict[str, list[npt.NDArray[np.generic]]] = {
        name: [] for name in ("keys", "to_move", "terminal_return", "counts", "child", "weight")
    }
    layer = 0
    while len(frontier):
        step = expand(frontier)
        while 2 * (count + len(step.children)) > len(table):
            table, ids = _rehash(table, ids, 2 * len(table))
        found = np.empty(len(step.children), np.int64)
        before = count
        count = _intern(table, ids, step.children, count, found)
        parts["keys"].append(frontier)
        parts["to_move"].append(step.to_move)
        parts["terminal_return"].append(step.terminal_return)
        parts["counts"].append(step.counts)
        parts["child"].append(found.astype(np.int32))
        parts["weight"].append(step.weights)
        # The new keys of this layer, in first-seen (so node id) order.
        fresh = found >= before
        _, first = np.unique(found[fresh], return_index=True)
        frontier = step.children[fresh][np.sort(first)]
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
