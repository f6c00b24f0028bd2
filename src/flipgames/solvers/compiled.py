"""The inner loops over a position graph that need compiled code (numba): strongly
connected components, chance heights and component levels (the stochastic solver, the
audit). (Retrograde propagation
is numpy: :func:`flipgames.solvers.retrograde.propagate`.)

Imported by the solvers only when they run, so ``flipgames --help`` never loads numba.

>>> import numpy as np
>>> # 0 -> 1 <-> 2 -> 3: components {3}, {1, 2}, {0}, children first
>>> members, start = components(np.array([0, 1, 2, 4, 4]), np.array([1, 2, 1, 3], np.int32))
>>> [sorted(members[start[i] : start[i + 1]].tolist()) for i in range(len(start) - 1)]
[[3], [1, 2], [0]]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit


@njit(cache=True)
def components(
    edge_start: npt.NDArray[np.int64], edge_child: npt.NDArray[np.int32]
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """Tarjan's algorithm without recursion. Component ``i`` is ``members[start[i]:
    start[i + 1]]``; components come in completion order, so every component a component's
    edges reach comes before it (children first)."""
    n = edge_start.shape[0] - 1
    index = np.full(n, -1, np.int64)
    low = np.zeros(n, np.int64)
    on_stack = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int32)
    calls = np.empty(n, np.int32)
    cursor = np.empty(n, np.int64)
    members = np.empty(n, np.int32)
    start = np.zeros(n + 1, np.int64)
    counter = 0
    sp = 0
    done = 0
    count = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        on_stack[root] = True
        calls[0] = root
        cursor[0] = edge_start[root]
        depth = 1
        while depth > 0:
            v = calls[depth - 1]
            e = cursor[depth - 1]
            if e < edge_start[v + 1]:
                cursor[depth - 1] = e + 1
                w = edge_child[e]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack[sp] = w
                    sp += 1
                    on_stack[w] = True
                    calls[depth] = w
                    cursor[depth] = edge_start[w]
                    depth += 1
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            depth -= 1
            if depth > 0 and low[v] < low[calls[depth - 1]]:
                low[calls[depth - 1]] = low[v]
            if low[v] == index[v]:
                while True:
                    sp -= 1
                    w = stack[sp]
                    on_stack[w] = False
                    members[done] = w
                    done += 1
                    if w == v:
                        break
                count += 1
                start[count] = done
    return members, start[: count + 1].copy()


@njit(cache=True)
def chance_height(
    edge_start: npt.NDArray[np.int64],
    edge_child: npt.NDArray[np.int32],
    to_move: npt.NDArray[np.int8],
    members: npt.NDArray[np.int32],
    start: npt.NDArray[np.int64],
) -> int:
    """The most chance nodes on any path of the graph (chance nodes must lie outside cycles:
    a component with a chance node and a cycle counts its chance nodes once each, which the
    solvers refuse anyway). Components are taken children first, as :func:`components`
    returns them."""
    n = edge_start.shape[0] - 1
    height = np.zeros(n, np.int64)
    component = np.empty(n, np.int64)
    for c in range(start.shape[0] - 1):
        for i in range(start[c], start[c + 1]):
            component[members[i]] = c
    for c in range(start.shape[0] - 1):
        best = 0
        chance = 0
        for i in range(start[c], start[c + 1]):
            v = members[i]
            if to_move[v] == -1:
                chance += 1
            for e in range(edge_start[v], edge_start[v + 1]):
                w = edge_child[e]
                if component[w] != c and height[w] > best:
                    best = height[w]
        for i in range(start[c], start[c + 1]):
            height[members[i]] = best + chance
    top = 0
    for v in range(n):
        if height[v] > top:
            top = height[v]
    return top


@njit(cache=True)
def component_levels(
    edge_start: npt.NDArray[np.int64],
    edge_child: npt.NDArray[np.int32],
    members: npt.NDArray[np.int32],
    start: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Per node, its component's level: 0 without edges leaving it, else one more than the
    highest level its edges reach (so a level needs only lower ones); and per node whether
    its component has a cycle (more than one member, or a self-loop)."""
    n = edge_start.shape[0] - 1
    count = start.shape[0] - 1
    component = np.empty(n, np.int64)
    for c in range(count):
        for i in range(start[c], start[c + 1]):
            component[members[i]] = c
    level = np.zeros(n, np.int64)
    cyclic = np.zeros(n, np.bool_)
    for c in range(count):
        top = -1
        loop = start[c + 1] - start[c] > 1
        for i in range(start[c], start[c + 1]):
            v = members[i]
            for e in range(edge_start[v], edge_start[v + 1]):
                w = edge_child[e]
                if component[w] == c:
                    loop = True
                elif level[w] > top:
                    top = level[w]
        for i in range(start[c], start[c + 1]):
            level[members[i]] = top + 1
            cyclic[members[i]] = loop
    return level, cyclic
