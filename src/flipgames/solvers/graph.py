"""The position graph both exact solvers work on, and how a state finds its node.

:func:`solver_graph` is the one builder of the retrograde and the stochastic solver. It takes
the graph of :func:`builder_for` when the game has a builder: its numpy one where it offers
one (:meth:`~flipgames.core.game.Game.graph_builder`, no compiled code to load), else its
compiled kernel's :meth:`~flipgames.core.kernel.GraphBuilder.graph` (folded over the game's
symmetries, seconds). Otherwise it walks the reference engine breadth first
(``perft_actions`` / ``apply_perft``) into the same
:class:`~flipgames.core.kernel.PositionGraph`:

* with a builder (a fixed policy or a ``root`` needs the reference walk), node keys are the
  builder's :meth:`~flipgames.core.kernel.GraphBuilder.encode`, so the walk finds the
  builder's positions and edges (node numbers may differ; the tests compare the two graphs);
* without one (``FLIPGAMES_KERNEL=python``, or a game with no kernel), node ``i`` has key
  ``i`` and a dictionary maps ``State.key()`` to it.

Breadth first reaches each position along a shortest path, which repeats no position, so the
repetition rule never cuts the graph short; cycles stay in the graph for the solvers. At a
chance node an outcome's weight is an integer (its probability times the node's common
denominator). In the kernels' graphs actions that reach the same node are one edge (chance
weights add); the reference walk keeps one edge per action (the solvers accept both).

>>> from flipgames import make
>>> solved = solver_graph(make("checkered-flag", track="short", start="first"))
>>> solved.graph.nodes, solved.locator.node(solved.root)
(6712, 0)
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from flipgames.core.game import CHANCE, TERMINAL, Game, State
from flipgames.core.kernel import Enumerable, GraphBuilder, PositionGraph, kernel_for, kernel_mode
from flipgames.core.progress import Progress, silent
from flipgames.solvers import cache
from flipgames.solvers.solution import SolverError

if TYPE_CHECKING:
    import numpy.typing as npt

#: A fixed way to play: the action a player takes in a position (called once per position).
Policy = Callable[[State], int]

_REPORT_EVERY = 100_000


class Locator(Protocol):
    """Finds a reference state's node in a solved graph."""

    #: ``"kernel"`` (keys are the kernel's encoding) or ``"reference"`` (``State.key()``).
    kind: str

    def node(self, state: State) -> int | None:
        """The node of ``state``, or None when the graph does not hold it."""
        ...

    def to_payload(self) -> dict[str, Any]:
        """The keys in a JSON-native form (see :mod:`flipgames.solvers.payload`)."""
        ...


class KernelLocator:
    """Nodes by the kernel's packed keys: a sorted copy of the keys and a binary search.

    Built from a payload it takes the game rather than its builder and makes the builder on
    the first lookup, except of the graph's root (node 0: graphs are built breadth first from
    it) when it is given: a cached solution whose value from the start is all that is asked
    (``solve`` reporting it) builds nothing, which for a game without a numpy builder spares
    loading numba and the kernel's machine code."""

    kind = "kernel"

    def __init__(
        self,
        builder: GraphBuilder | Game,
        keys: npt.NDArray[np.int64],
        root: State | None = None,
    ) -> None:
        self._builder = builder
        self._root = None if root is None else root.key()
        self.keys = keys
        self._order = np.argsort(keys, kind="stable")
        self._sorted = keys[self._order]

    @property
    def builder(self) -> GraphBuilder:
        if isinstance(self._builder, Game):
            builder = builder_for(self._builder)
            if builder is None:
                raise SolverError(
                    "the solution is keyed by a compiled kernel this run does not use"
                )
            self._builder = builder
        return self._builder

    def node(self, state: State) -> int | None:
        unloaded = isinstance(self._builder, Game)
        if unloaded and self._root is not None and len(self.keys) and state.key() == self._root:
            return 0
        key = self.builder.encode(state)
        i = int(np.searchsorted(self._sorted, key))
        if i < len(self._sorted) and self._sorted[i] == key:
            return int(self._order[i])
        return None

    def to_payload(self) -> dict[str, Any]:
        from flipgames.solvers.payload import pack_array

        return {"kind": self.kind, "keys": pack_array(self.keys)}


class ReferenceLocator:
    """Nodes by ``State.key()`` (games without a kernel): a dictionary."""

    kind = "reference"

    def __init__(self, index: dict[Hashable, int]) -> None:
        self.index = index

    def node(self, state: State) -> int | None:
        return self.index.get(state.key())

    def to_payload(self) -> dict[str, Any]:
        from flipgames.solvers.payload import encode_keys

        return {"kind": self.kind, "keys": encode_keys(list(self.index))}


def locator_from_payload(
    game: Game, payload: Any, nodes: int, root: State | None = None
) -> Locator:
    """Undo :meth:`Locator.to_payload`; :class:`SolverError` when it does not fit. ``root`` is
    the position the graph was built from, where the caller knows it (node 0)."""
    from flipgames.solvers.payload import decode_keys, unpack_array

    kind = payload["kind"]
    if kind == "kernel":
        if kernel_mode() == "python" or (
            type(game).kernel is Game.kernel and type(game).graph_builder is Game.graph_builder
        ):
            raise SolverError("the solution is keyed by a compiled kernel this run does not use")
        keys = unpack_array(payload["keys"], np.int64, nodes, "keys")
        if len(np.unique(keys)) != nodes:
            raise SolverError("malformed solution: keys are not unique")
        return KernelLocator(game, keys, root)
    if kind == "reference":
        keys_list = decode_keys(payload["keys"], nodes)
        return ReferenceLocator({key: i for i, key in enumerate(keys_list)})
    raise SolverError(f"malformed solution: unknown key kind {kind!r}")


@dataclass(frozen=True)
class SolverGraph:
    """A position graph with the way back from states to its nodes."""

    graph: PositionGraph
    locator: Locator
    root: State


def enumerable_kernel(game: Game) -> Enumerable | None:
    """``game``'s kernel when it can enumerate the game (``Enumerable`` is a plain protocol,
    so this checks for its two methods)."""
    kernel = kernel_for(game)
    methods = (getattr(kernel, name, None) for name in ("graph", "encode"))
    return cast(Enumerable, kernel) if kernel is not None and all(map(callable, methods)) else None


def builder_for(game: Game) -> GraphBuilder | None:
    """Where ``game``'s graph comes from: its numpy builder when it offers one, else its
    enumerable kernel; None with ``FLIPGAMES_KERNEL=python`` (the reference walk) or when it
    has neither. A game's builder keys positions exactly as its kernel does."""
    if kernel_mode() == "python":
        return None
    return game.graph_builder() or enumerable_kernel(game)


def keying(game: Game) -> str:
    """``"kernel"`` when ``game``'s solutions are keyed by its compiled kernel's keys (it has
    a builder and ``FLIPGAMES_KERNEL`` allows it), else ``"reference"``: part of the disk
    cache's name, so a run without the kernel never reads a kernel-keyed file."""
    return "kernel" if builder_for(game) is not None else "reference"


def stored_keying(game: Game, solver: str, version: int) -> str:
    """:func:`keying`, except that a kernel-keyed result of ``solver`` already in the disk
    cache answers without building the kernel: loading numba and the kernel's cached machine
    code is most of the time of a ``solve`` whose result is cached. (Only a run on an
    enumerable kernel writes such a file, so where it exists :func:`keying` says "kernel".)"""
    if kernel_mode() == "fast" and cache.cache_path(f"{solver}-kernel", version, game).exists():
        return "kernel"
    return keying(game)


def solver_graph(
    game: Game,
    progress: Progress = silent,
    *,
    root: State | None = None,
    policies: Sequence[Policy | None] = (None, None),
    max_positions: int | None = None,
) -> SolverGraph:
    """The graph of every position reachable from ``root`` (default: the start).

    ``policies[p]``, when given, restricts player ``p`` to the policy's action. With
    ``max_positions``, the reference walk stops with :class:`SolverError` once more positions
    than that are reachable, saying how far it got.
    """
    builder = builder_for(game)
    start = root or game.new_initial_state()
    # A builder enumerates from the start; from another root only if its graph() takes one
    # (both bundled chance kernels do). Fixed policies need the reference walk.
    if (
        builder is not None
        and all(p is None for p in policies)
        and (root is None or "root" in inspect.signature(builder.graph).parameters)
    ):
        graph = (
            builder.graph(progress)
            if root is None
            else cast(Any, builder).graph(progress, root=root)
        )
        if max_positions is not None and graph.nodes > max_positions:
            raise SolverError(
                f"{game.name} is too large to solve here: {graph.nodes:,} positions are "
                f"reachable, more than the budget of {max_positions:,}"
            )
        return SolverGraph(graph, KernelLocator(builder, graph.keys), start)
    encode = builder.encode if builder is not None else None
    graph, index = reference_graph(game, start, encode, policies, progress, max_positions)
    locator: Locator = (
        KernelLocator(builder, graph.keys) if builder is not None else ReferenceLocator(index)
    )
    return SolverGraph(graph, locator, start)


def reference_graph(
    game: Game,
    root: State,
    encode: Callable[[State], int] | None = None,
    policies: Sequence[Policy | None] = (None, None),
    progress: Progress = silent,
    max_positions: int | None = None,
) -> tuple[PositionGraph, dict[Hashable, int]]:
    """The reference engine's breadth-first enumeration (see the module docstring), keyed by
    ``encode`` when given, and the index from keys to nodes."""
    index: dict[Hashable, int] = {root.key() if encode is None else encode(root): 0}
    states: list[State | None] = [root]
    depths = [0]
    to_move: list[int] = []
    returns: list[int] = []
    edge_start = [0]
    edge_child: list[int] = []
    edge_weight: list[int] = []
    node = 0
    while node < len(states):
        state = states[node]
        assert state is not None
        states[node] = None  # keys and arrays are enough once a state is expanded
        player = state.current_player
        to_move.append(player)
        returns.append(state.returns()[0] if player == TERMINAL else 0)
        if player == TERMINAL:
            moves: list[tuple[int, int]] = []
        elif player == CHANCE:
            outcomes = state.chance_outcomes()
            common = math.lcm(*(p.denominator for _, p in outcomes))
            moves = [(a, p.numerator * (common // p.denominator)) for a, p in outcomes]
        else:
            moves = [(a, 1) for a in _actions(game, state, policies[player])]
        for action, weight in moves:
            after = state.apply_perft(action)
            key = after.key() if encode is None else encode(after)
            child = index.get(key)
            if child is None:
                child = index[key] = len(states)
                states.append(after)
                depths.append(depths[node] + 1)
            edge_child.append(child)
            edge_weight.append(weight)
        edge_start.append(len(edge_child))
        node += 1
        if max_positions is not None and len(states) > max_positions:
            raise SolverError(
                f"{game.name} is too large to solve here: more than {max_positions:,} positions "
                f"are reachable; every position up to ply {depths[node] - 1} was expanded "
                f"({node:,} positions)"
            )
        if node % _REPORT_EVERY == 0:
            progress(f"enumerated positions (ply {depths[node - 1]})", done=node)
    progress("enumerated positions", done=node, total=node)
    keys = list(index) if encode is not None else range(len(index))
    graph = PositionGraph(
        keys=np.array(keys, np.int64),
        to_move=np.array(to_move, np.int8),
        terminal_return=np.array(returns, np.int8),
        edge_start=np.array(edge_start, np.int64),
        edge_child=np.array(edge_child, np.int32),
        edge_weight=np.array(edge_weight, np.int64),
    )
    return graph, index


def _actions(game: Game, state: State, policy: Policy | None) -> tuple[int, ...]:
    legal = state.perft_actions()
    if policy is None:
        if not legal:
            raise SolverError(f"{game.name}: a position has no action but is not over")
        return legal
    action = policy(state)
    if action not in legal:
        raise SolverError(f"policy {policy_name(policy)} chose {action!r}, not a legal action")
    return (action,)


def policy_name(policy: Policy) -> str:
    """A policy's ``name`` attribute, else its function name, else its repr."""
    name = getattr(policy, "name", None) or getattr(policy, "__name__", None)
    return str(name) if name else repr(policy)
