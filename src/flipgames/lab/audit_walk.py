"""The exhaustive audit's walk: every position reachable from the start, as a graph with a
real line of play to each node, and the graph questions the findings ask of it (cycles, a
way into one, who can keep the game from ending)."""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from flipgames.core.ending import Termination
from flipgames.core.game import CHANCE, TERMINAL, Game, State
from flipgames.core.progress import Progress
from flipgames.lab.audit_findings import AuditError
from flipgames.solvers import catalog
from flipgames.solvers.compiled import components
from flipgames.solvers.graph import enumerable_kernel


class Walk:
    """Every position reachable from the start (ignoring repetition draws, which the solvers
    leave to cycles), breadth first, each node with the first state that reached it, and its
    parent edge: so the actions along parent edges are a real line from the start."""

    def __init__(self, game: Game, progress: Progress, max_positions: int) -> None:
        self.game = game
        #: The most positions walked (the solver is given the same budget).
        self.max_positions = max_positions
        # Positions are keyed as the game's graph builder folds them (FlipFlop: the mirror;
        # Flip Switch: 48 symmetries), endings included. The numpy builders need no
        # compiled code, so the reference path (FLIPGAMES_KERNEL=python) counts the same.
        builder = game.graph_builder() or enumerable_kernel(game)
        self._encode = builder.encode if builder is not None else None
        self._fold = getattr(builder, "fold", None)
        #: How many symmetries the counts fold over (1: every position counted).
        self.symmetries: int = getattr(builder, "symmetries", 1) if self._fold else 1
        self.solution = catalog.solve(game, progress, max_positions)
        self.root = game.new_initial_state()
        self.keys: list[Hashable] = []
        self.index: dict[Hashable, int] = {}
        self.parent: list[int] = []
        self.parent_edge: list[int] = []
        self.depth: list[int] = []
        self.to_move: list[int] = []
        self.value: list[Fraction] = []
        #: Per node, why the rules ended the game there (None in play), and the game's words
        #: for it ("" in play): the reason classifies, the words show people how.
        self.reason: list[Termination | None] = []
        self.ending: list[str] = []
        self.edge_start: list[int] = [0]
        self.edge_child: list[int] = []
        self.edge_label: list[str] = []
        self._run(game, progress)

    def key_of(self, state: State) -> Hashable:
        # A finished game is kept apart by its own key, why it ended and its result (graphs
        # may merge endings with one result), so each ending's reason stays visible; it is
        # folded over the same symmetries as the positions in play, or the counts would mix
        # units. The game's words are not part of it: they are for people, and may name a
        # square or a shape that a symmetry changes.
        if state.is_terminal():
            end = self._fold(state) if self._fold is not None else state.key()
            return ("end", end, state.end_reason(), state.returns())
        return self._encode(state) if self._encode is not None else state.key()

    @property
    def counted(self) -> str:
        """How the positions are counted, in words (the same on the kernel and the reference
        path wherever the game has a numpy graph builder)."""
        if self.symmetries > 1:
            return f"counted up to symmetry: alike under {self.symmetries} symmetries, once"
        return "every position counted, no symmetry folded"

    def _add(self, state: State, parent: int, edge: int) -> int:
        key = self.key_of(state)
        found = self.index.get(key)
        if found is not None:
            return found
        node = self.index[key] = len(self.keys)
        self.keys.append(key)
        self.parent.append(parent)
        self.parent_edge.append(edge)
        self.depth.append(self.depth[parent] + 1 if parent >= 0 else 0)
        player = state.current_player
        self.to_move.append(player)
        if player == TERMINAL:
            self.value.append(Fraction(state.returns()[0]))
            self.reason.append(state.end_reason())
            self.ending.append(state.status_text())
        else:
            self.value.append(self.solution.value(state, 0).expected)
            self.reason.append(None)
            self.ending.append("")
        self._states.append(state)
        return node

    def _run(self, game: Game, progress: Progress) -> None:
        self._states: list[State | None] = []
        self._add(self.root, -1, -1)
        node = 0
        while node < len(self.keys):
            state = self._states[node]
            assert state is not None
            self._states[node] = None  # keys and arrays are enough once a state is expanded
            player = state.current_player
            if player == CHANCE:
                actions = [a for a, _ in state.chance_outcomes()]
            elif player == TERMINAL:
                actions = []
            else:
                actions = list(state.perft_actions())
            for action in actions:
                child = state.apply_perft(action)
                self.edge_label.append(state.action_to_string(action))
                self.edge_child.append(self._add(child, node, len(self.edge_child)))
            self.edge_start.append(len(self.edge_child))
            node += 1
            if len(self.keys) > self.max_positions:
                raise AuditError(
                    f"{game.name} is too large for an exhaustive audit here: more than "
                    f"{self.max_positions:,} positions; use --method sampled"
                )
            if node % 20_000 == 0:
                progress("audit: walking every position", done=node)
        progress("audit: walking every position", done=node, total=node)

    @property
    def nodes(self) -> int:
        return len(self.keys)

    def edges(self, node: int) -> range:
        return range(self.edge_start[node], self.edge_start[node + 1])

    def line(self, node: int) -> list[str]:
        """The actions from the start to ``node`` along parent edges."""
        labels: list[str] = []
        while node > 0:
            labels.append(self.edge_label[self.parent_edge[node]])
            node = self.parent[node]
        return labels[::-1]

    def replay(self, actions: Iterable[str]) -> State:
        state = self.game.new_initial_state()
        for text in actions:
            state = state.apply(state.parse_action(text))
        return state

    def follow(self, path: list[int], loop: list[int]) -> list[str] | None:
        """A line with the real rules through the nodes ``path`` (from the start, ``path[0]``
        is node 0) and then round ``loop`` (``loop[0] == loop[-1] == path[-1]``), again while
        the graph's cycle returns only to a symmetric copy, until a position repeats exactly.
        None if the rules end the game first."""
        state = self.root
        line: list[str] = []
        seen = {state.key()}
        targets = path[1:] + loop[1:] * 48  # a folded cycle closes within the symmetry group
        for target in targets:
            step = self._step_to(state, target)
            if step is None:
                return None
            action, state = step
            line.append(action)
            if state.is_terminal():
                return None
            if state.key() in seen:
                return line
            seen.add(state.key())
        return None

    def _step_to(self, state: State, target: int) -> tuple[str, State] | None:
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            actions = list(state.legal_actions())
        for action in actions:
            child = state.apply(action)
            if not child.is_terminal() and self.index.get(self.key_of(child)) == target:
                return state.action_to_string(action), child
        return None


def on_cycles(walk: Walk, keep: list[bool]) -> npt.NDArray[np.bool_]:
    """Per node, whether it lies on a cycle of kept edges (a strong component of two or
    more, or a loop)."""
    kept = np.array(keep, bool)
    children = np.array(walk.edge_child, np.int32)
    owner = np.repeat(np.arange(walk.nodes), np.diff(np.array(walk.edge_start)))
    start = np.zeros(walk.nodes + 1, np.int64)
    np.cumsum(np.bincount(owner[kept], minlength=walk.nodes), out=start[1:])
    members, bounds = components(start, children[kept])
    cyclic = np.zeros(walk.nodes, bool)
    sizes = np.diff(bounds)
    for i in np.nonzero(sizes > 1)[0]:
        cyclic[members[bounds[i] : bounds[i + 1]]] = True
    loops = kept & (owner == children)
    cyclic[owner[loops]] = True
    return cyclic


def cycle_from_start(
    walk: Walk, keep: list[bool], cycle_keep: list[bool] | None = None
) -> list[str] | None:
    """A line from the start along ``keep`` edges into a cycle of ``cycle_keep`` edges (by
    default the same), round it until a position repeats exactly; None when there is none."""
    cycle_keep = keep if cycle_keep is None else cycle_keep
    cyclic = on_cycles(walk, cycle_keep)
    if not cyclic.any():
        return None
    # Breadth first from the start along kept edges: the nearest node on a cycle.
    before = {0: -1}
    queue = deque([0])
    entry = -1
    while queue:
        node = queue.popleft()
        if cyclic[node]:
            entry = node
            break
        for e in walk.edges(node):
            child = walk.edge_child[e]
            if keep[e] and child not in before:
                before[child] = node
                queue.append(child)
    if entry < 0:
        return None
    path = [entry]
    while before[path[-1]] >= 0:
        path.append(before[path[-1]])
    path.reverse()
    return walk.follow(path, _loop(walk, cycle_keep, entry))


def _loop(walk: Walk, keep: list[bool], start: int) -> list[int]:
    """The nodes of a shortest kept-edge cycle through ``start``: ``start ... start``."""
    before: dict[int, int] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for e in walk.edges(node):
            child = walk.edge_child[e]
            if not keep[e]:
                continue
            if child == start:
                chain = [node]
                while chain[-1] != start:
                    chain.append(before[chain[-1]])
                return [*reversed(chain), start]
            if child not in before:
                before[child] = node
                queue.append(child)
    return [start]


def can_force_endless(walk: Walk, player: int) -> npt.NDArray[np.bool_]:
    """Per node, whether ``player`` can keep the game from ever ending (the other player and
    chance choosing against it), repetition rule aside."""
    n = walk.nodes
    reverse: list[list[int]] = [[] for _ in range(n)]
    left = np.zeros(n, np.int64)
    for node in range(n):
        left[node] = walk.edge_start[node + 1] - walk.edge_start[node]
        for e in walk.edges(node):
            reverse[walk.edge_child[e]].append(node)
    # The set from which the game surely ends: the attractor of the endings for the others.
    ends = np.zeros(n, bool)
    queue = deque(node for node in range(n) if walk.to_move[node] == TERMINAL)
    for node in queue:
        ends[node] = True
    while queue:
        node = queue.popleft()
        for before in reverse[node]:
            if ends[before]:
                continue
            if walk.to_move[before] == player:
                left[before] -= 1
                if left[before]:
                    continue
            ends[before] = True
            queue.append(before)
    return ~ends
