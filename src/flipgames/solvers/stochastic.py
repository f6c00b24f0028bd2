"""Exact solutions of two-player zero-sum games with chance nodes and repetition cycles.

Every position reachable from the start is enumerated breadth-first by ``State.key()`` with
``perft_actions()`` / ``apply_perft()``. A breadth-first search reaches each position along a
shortest path, which repeats no position, so the repetition rule never cuts the graph. Values
are exact :class:`~fractions.Fraction` expected returns for player 0 under optimal play
(player 0 maximises, player 1 minimises, chance averages with its exact probabilities).

Cycles (Flip Switch switches can undo each other) make value iteration inexact, so the graph
is split into strongly connected components (Tarjan), solved in reverse topological order:
every action out of a component leads to a solved position ("an exit" with a known value).

* A component of one position without a self-loop is solved directly: max, min or the
  probability-weighted mean of its children.
* A larger component without chance nodes is a deterministic game whose exits pay their
  values and whose endless plays pay 0 (the third repetition is a draw). For a threshold
  ``t``, player 0 can guarantee ``>= t`` from the positions in player 0's attractor to the
  exits worth ``>= t`` when ``t > 0``, and from the complement of player 1's attractor to the
  exits worth ``< t`` when ``t <= 0`` (avoiding those for ever pays 0). A position's value is
  the largest such ``t`` among the exit values and 0. The attractors are nested, so one
  incremental pass over the thresholds in order computes them all.
* A component that mixes chance and cycles raises :class:`SolverError`: an exact answer there
  needs linear algebra this solver does not do, and it never returns an inexact one.

The repetition rule does not change these values: attractor strategies never repeat a
position, and a side that can avoid the bad exits for ever gets at least the draw that the
third repetition or the endless play gives.

Canonical strategies, used for :meth:`StochasticSolution.probabilities`: the player who must
make progress (player 0 at a positive value, player 1 at a negative one, inside a cycle)
takes the optimal action into the position settled earliest (exits, solved before the
cycle, then the attractor's order of entry), so play reaches the exit; every other choice is
the optimal action with the smallest id. Under fixed
strategies a cycle that is never left is a draw, so win minus loss is always the value.

>>> from flipgames import make
>>> game = make("checkered-flag", track="short", start="first")
>>> solution = solve_stochastic(game)
>>> start = game.new_initial_state()
>>> solution.positions, round(float(solution.value(start)), 4)
(8152, 0.1912)
>>> win, draw, loss = solution.probabilities(start)
>>> win - loss == solution.value(start), draw
(True, Fraction(0, 1))
"""

from __future__ import annotations

import base64
import json
import math
import sys
import time
import zlib
from array import array
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

from flipgames.core.game import CHANCE, TERMINAL, Game, State
from flipgames.core.progress import Progress, silent
from flipgames.solvers import cache
from flipgames.solvers.retrograde import SolverError

#: Bump when the payload or the canonical strategies change: old cache files are then ignored.
VERSION = 3

#: A fixed way to play: the action a player takes in a position (called once per position).
Policy = Callable[[State], int]

_REPORT_EVERY = 200_000
#: The per-position id arrays of a payload.
_ARRAYS = ("value", "win", "loss", "canonical", "settled")
#: Node and fraction ids: 32-bit integers (little-endian in payloads).
_ID_TYPE = "i"


def _encode_key(key: Hashable) -> str:
    """A position key as compact JSON text: the solution's index and the payload use it."""
    try:
        return json.dumps(key, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise SolverError(f"position keys must be JSON-encodable (tuples, ints): {exc}") from None


# Payload blobs are zlib-compressed (fast level) and base64-encoded: JSON-native, and a few
# tens of megabytes for Flip Switch instead of half a gigabyte of text for the cache to gzip.
def _compress(data: bytes) -> str:
    return base64.b64encode(zlib.compress(data, 1)).decode("ascii")


def _decompress(text: Any, what: str) -> bytes:
    if not isinstance(text, str):
        raise SolverError(f"malformed stochastic solution: {what} is not a string")
    try:
        return zlib.decompress(base64.b64decode(text.encode("ascii"), validate=True))
    except (ValueError, zlib.error) as exc:
        raise SolverError(f"malformed stochastic solution: {what}: {exc}") from None


def _pack(ids: array[int]) -> str:
    if sys.byteorder != "little":
        ids = array(_ID_TYPE, ids)
        ids.byteswap()
    return _compress(ids.tobytes())


def _unpack(text: Any, length: int, what: str) -> array[int]:
    ids = array(_ID_TYPE)
    ids.frombytes(_decompress(text, what))
    if sys.byteorder != "little":
        ids.byteswap()
    if len(ids) != length:
        raise SolverError(f"malformed stochastic solution: {what} has {len(ids)} entries")
    return ids


class StochasticSolution:
    """The value, win/draw/loss probabilities and canonical action of every solved position.

    Values are expected returns in ``[-1, 1]``. :meth:`value` and :meth:`probabilities` take
    the point of view of ``player``, by default the player to move, and player 0 at chance
    nodes and terminal positions, where nobody is to move.
    """

    def __init__(
        self,
        game: Game,
        keys: list[str],
        fractions: list[Fraction],
        value: array[int],
        win: array[int],
        loss: array[int],
        canonical: array[int],
        settled: array[int],
        seconds: float,
        policies: tuple[str | None, str | None] = (None, None),
    ) -> None:
        self.game = game
        #: Seconds the solve took (also when the solution came from the cache).
        self.seconds = seconds
        #: Per player, the name of the fixed policy they followed, or None for optimal play.
        self.policies = policies
        self._index = {key: i for i, key in enumerate(keys)}
        # Per position, ids into ``_fractions``: player 0's value, win and loss probability.
        self._fractions = fractions
        self._value, self._win, self._loss = value, win, loss
        self._canonical = canonical
        # When each position's value was settled: progress inside a cycle goes to earlier ones.
        self._settled = settled

    @property
    def positions(self) -> int:
        """How many positions (terminal ones included) were solved."""
        return len(self._index)

    def _node(self, state: State) -> int:
        try:
            return self._index[_encode_key(state.key())]
        except KeyError:
            raise SolverError(
                f"that {self.game.name} position is not reachable in this solution"
            ) from None

    @staticmethod
    def _viewer(state: State, player: int | None) -> int:
        if player is None:
            return max(state.current_player, 0)
        if player not in (0, 1):
            raise SolverError(f"player must be 0 or 1, got {player!r}")
        return player

    def value(self, state: State, player: int | None = None) -> Fraction:
        """The expected return for ``player`` (see the class docstring) under optimal play."""
        viewer = self._viewer(state, player)
        if state.is_terminal():
            return Fraction(state.returns()[viewer])
        v = self._fractions[self._value[self._node(state)]]
        return v if viewer == 0 else -v

    def probabilities(
        self, state: State, player: int | None = None
    ) -> tuple[Fraction, Fraction, Fraction]:
        """(win, draw, loss) for ``player`` under the canonical optimal strategies."""
        viewer = self._viewer(state, player)
        if state.is_terminal():
            r = state.returns()[viewer]
            return Fraction(r > 0), Fraction(r == 0), Fraction(r < 0)
        node = self._node(state)
        win, loss = self._fractions[self._win[node]], self._fractions[self._loss[node]]
        if viewer == 1:
            win, loss = loss, win
        return win, 1 - win - loss, loss

    def _children(self, state: State) -> dict[int, State]:
        if state.current_player < 0:
            kind = "a chance node" if state.current_player == CHANCE else "a finished game"
            raise SolverError(f"action values need a player to move; this is {kind}")
        return {action: state.apply(action) for action in state.legal_actions()}

    def action_values(self, state: State) -> dict[int, Fraction]:
        """Per legal action, the expected return for the player to move at ``state``.

        Actions are applied with ``State.apply``, so a move into a third repetition is worth
        the draw it ends in. Under fixed policies only the free player's actions are solved.
        """
        player = state.current_player
        return {a: self.value(child, player) for a, child in self._children(state).items()}

    def best_actions(self, state: State) -> list[int]:
        """The legal actions of the best value that make progress, in ascending order.

        Where the player to move is ahead inside a cycle, an action can keep the value and
        still go round for ever (into a position whose value rests on coming back): only the
        actions into positions settled earlier (nearer the exit) are listed, so a player who
        picks any of them at every turn reaches the exit without a repetition.
        """
        children = self._children(state)
        player = state.current_player
        values = {a: self.value(child, player) for a, child in children.items()}
        best = max(values.values())
        actions = [a for a, v in values.items() if v == best]
        if best > 0:
            here = self._settled[self._node(state)]
            progressing = [
                a
                for a in actions
                if children[a].is_terminal() or self._settled[self._node(children[a])] < here
            ]
            # Empty only after a detour has made the progressing move a third repetition.
            return progressing or actions
        return actions

    def canonical_action(self, state: State) -> int:
        """The optimal action the canonical strategy takes here (see the module docstring)."""
        if state.current_player < 0:
            raise SolverError("only a player to move has a canonical action")
        return self._canonical[self._node(state)]

    # --- disk cache -------------------------------------------------------------------------

    def to_payload(self) -> dict[str, Any]:
        """A JSON-native form: keys as JSON text and ids as 32-bit integers, both compressed,
        and fractions as ``"n/d"``."""
        return {
            "positions": self.positions,
            "seconds": self.seconds,
            "policies": list(self.policies),
            "keys": _compress("\n".join(self._index).encode()),
            "fractions": [f"{f.numerator}/{f.denominator}" for f in self._fractions],
            "value": _pack(self._value),
            "win": _pack(self._win),
            "loss": _pack(self._loss),
            "canonical": _pack(self._canonical),
            "settled": _pack(self._settled),
        }

    @classmethod
    def from_payload(cls, game: Game, payload: Any) -> StochasticSolution:
        """Rebuild from :meth:`to_payload`; :class:`SolverError` if anything does not fit."""
        try:
            positions = payload["positions"]
            keys = _decompress(payload["keys"], "keys").decode().split("\n")
            fractions = [Fraction(text) for text in payload["fractions"]]
            seconds = float(payload["seconds"])
            first, second = payload["policies"]
            value, win, loss, canonical, settled = (
                _unpack(payload[k], positions, k) for k in _ARRAYS
            )
        except SolverError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
            raise SolverError(f"malformed stochastic solution: {exc!r}") from None
        if len(keys) != positions or len(set(keys)) != positions:
            raise SolverError("malformed stochastic solution: keys do not match positions")
        if positions and any(
            min(ids) < 0 or max(ids) >= len(fractions) for ids in (value, win, loss)
        ):
            raise SolverError("malformed stochastic solution: a fraction id is out of range")
        if not all(isinstance(p, str | None) for p in (first, second)):
            raise SolverError("malformed stochastic solution: policies")
        return cls(
            game, keys, fractions, value, win, loss, canonical, settled, seconds, (first, second)
        )


def cached_solve(game: Game, progress: Progress | None = None) -> StochasticSolution:
    """:func:`solve_stochastic` from the disk cache, solving and storing it when missing.

    A cache file that fails its checksum or does not hold a well-formed solution is reported
    and rebuilt.
    """
    return cache.cached(
        "stochastic",
        VERSION,
        game,
        lambda: solve_stochastic(game, progress),
        StochasticSolution.to_payload,
        lambda payload: StochasticSolution.from_payload(game, payload),
    )


def solve_stochastic(
    game: Game,
    progress: Progress | None = None,
    *,
    root: State | None = None,
    policies: Sequence[Policy | None] = (None, None),
) -> StochasticSolution:
    """Solve every position reachable from ``root`` (default: the start) exactly.

    ``policies[p]``, when given, is a fixed policy player ``p`` follows: only its action is
    expanded there, so the other player's values are a best response to it (both fixed: the
    exact values of that pair of policies). A ``root`` whose history could repeat positions
    below it may see lines cut short by the repetition rule: start from one reached by an
    irreversible action. ``progress`` receives a report every so often (positions done and,
    once known, the total).
    """
    if not game.has_chance or game.num_players != 2 or game.hidden_information:
        raise SolverError(
            f"the stochastic solver needs a 2-player game with chance and no hidden "
            f"information: {game.name} is not one (deterministic games: retrograde)"
        )
    if int(str(game.options.get("rounds", 1))) > 1:
        raise SolverError(
            f"{game.name}: the stochastic solver solves one round; got rounds="
            f"{game.options['rounds']} (use rounds=1)"
        )
    if len(policies) != 2:
        raise SolverError("policies: give one per player (None for optimal play)")
    started = time.perf_counter()
    solver = _Solver(game, progress or silent, tuple(policies))
    keys = solver.enumerate(root or game.new_initial_state())
    solver.solve()
    names = tuple(None if p is None else policy_name(p) for p in policies)
    return StochasticSolution(
        game,
        keys,
        solver.fractions(),
        solver.value,
        solver.win,
        solver.loss,
        solver.canonical,
        solver.settled,
        time.perf_counter() - started,
        (names[0], names[1]),
    )


def policy_name(policy: Policy) -> str:
    """A policy's ``name`` attribute, else its function name, else its repr."""
    name = getattr(policy, "name", None) or getattr(policy, "__name__", None)
    return str(name) if name else repr(policy)


class _Solver:
    """The graph as compact arrays (node ids, CSR edges) and the exact values on it.

    Values are interned fractions: ``_num[i] / _den[i]`` in lowest terms with a float copy
    ``_approx[i]`` that orders distinct fractions quickly (rounding is monotone, so a strictly
    larger float means a strictly larger fraction; equal floats fall back to exact ints).
    """

    def __init__(self, game: Game, say: Progress, policies: tuple[Policy | None, ...]) -> None:
        self.game = game
        self.say = say
        self.policies = policies
        self._num: list[int] = []
        self._den: list[int] = []
        self._approx: list[float] = []
        self._ids: dict[tuple[int, int], int] = {}
        self.zero, self.one = self.intern(0, 1), self.intern(1, 1)
        # Chance distributions as integer weights over a common denominator, interned.
        self._dists: list[tuple[int, tuple[int, ...]]] = []
        self._dist_ids: dict[tuple[Fraction, ...], int] = {}
        self._mean_memo: dict[tuple[int, ...], int] = {}
        self.players = array("b")  # 0, 1, CHANCE or TERMINAL per node
        self.first = array("q", [0])  # node v's edges are first[v] .. first[v + 1] - 1
        self.child = array(_ID_TYPE)
        self.action = array(_ID_TYPE)
        self.dist = array(_ID_TYPE)  # per node: distribution id, or -1
        self.terminal: dict[int, int] = {}  # node -> player 0's return
        self.value = array(_ID_TYPE)
        self.win = array(_ID_TYPE)
        self.loss = array(_ID_TYPE)
        self.canonical = array(_ID_TYPE)
        self.settled = array(_ID_TYPE)
        self._clock = 0

    # --- exact numbers ----------------------------------------------------------------------

    def intern(self, num: int, den: int) -> int:
        """The id of ``num / den`` (already in lowest terms, ``den > 0``)."""
        ident = self._ids.get((num, den))
        if ident is None:
            ident = self._ids[(num, den)] = len(self._num)
            self._num.append(num)
            self._den.append(den)
            self._approx.append(num / den)
        return ident

    def fractions(self) -> list[Fraction]:
        return [Fraction(n, d) for n, d in zip(self._num, self._den, strict=True)]

    def _less(self, a: int, b: int) -> bool:
        fa, fb = self._approx[a], self._approx[b]
        if fa != fb:
            return fa < fb
        return self._num[a] * self._den[b] < self._num[b] * self._den[a]

    def _mean(self, dist: int, ids: tuple[int, ...]) -> int:
        """The id of the probability-weighted mean of the fractions ``ids`` (memoised)."""
        memo_key = (dist, *ids)
        found = self._mean_memo.get(memo_key)
        if found is not None:
            return found
        total, weights = self._dists[dist]
        num, den = self._num, self._den
        common = math.lcm(*(den[i] for i in ids))
        mean = sum(w * num[i] * (common // den[i]) for w, i in zip(weights, ids, strict=True))
        denominator = total * common
        g = math.gcd(mean, denominator)
        found = self._mean_memo[memo_key] = self.intern(mean // g, denominator // g)
        return found

    def _distribution(self, outcomes: tuple[tuple[int, Fraction], ...]) -> int:
        probabilities = tuple(p for _, p in outcomes)
        ident = self._dist_ids.get(probabilities)
        if ident is None:
            if sum(probabilities) != 1 or min(probabilities) <= 0:
                raise SolverError(
                    f"{self.game.name}: chance probabilities must be positive and sum to 1, "
                    f"got {probabilities}"
                )
            total = math.lcm(*(p.denominator for p in probabilities))
            weights = tuple(int(p * total) for p in probabilities)
            ident = self._dist_ids[probabilities] = len(self._dists)
            self._dists.append((total, weights))
        return ident

    # --- 1. enumeration ---------------------------------------------------------------------

    def enumerate(self, root: State) -> list[str]:
        """Breadth-first over every reachable position; returns the keys as JSON text."""
        index: dict[Hashable, int] = {root.key(): 0}
        states: list[State | None] = [root]
        node = 0
        while node < len(states):
            state = states[node]
            assert state is not None
            states[node] = None  # keys and arrays are enough once a state is expanded
            player = state.current_player
            self.players.append(player)
            self.dist.append(-1)
            if state.is_terminal():
                self.terminal[node] = state.returns()[0]
                actions: tuple[int, ...] = ()
            elif player == CHANCE:
                outcomes = state.chance_outcomes()
                self.dist[node] = self._distribution(outcomes)
                actions = tuple(a for a, _ in outcomes)
            else:
                actions = self._actions(state, player)
            for action in actions:
                after = state.apply_perft(action)
                key = after.key()
                child = index.get(key)
                if child is None:
                    child = index[key] = len(states)
                    states.append(after)
                self.child.append(child)
                self.action.append(action)
            self.first.append(len(self.child))
            node += 1
            if node % _REPORT_EVERY == 0:
                self.say(
                    f"enumerated {node:,} positions, {len(states) - node:,} waiting", done=node
                )
        self.say(
            f"enumerated {len(states):,} positions and {len(self.child):,} actions",
            done=len(states),
        )
        return [_encode_key(key) for key in index]

    def _actions(self, state: State, player: int) -> tuple[int, ...]:
        policy = self.policies[player]
        if policy is None:
            actions = state.perft_actions()
            if not actions:
                raise SolverError(f"{self.game.name}: a position has no action but is not over")
            return actions
        action = policy(state)
        if action not in state.perft_actions():
            raise SolverError(
                f"policy {policy_name(policy)} chose {action!r}, not a legal action here"
            )
        return (action,)

    # --- 2. components in reverse topological order -----------------------------------------

    def solve(self) -> None:
        """Tarjan's algorithm without recursion; each component is solved as it completes,
        when every component it can reach already is."""
        n = len(self.players)
        unset = array(_ID_TYPE, [-1]) * n
        self.value, self.win, self.loss, self.canonical, self.settled = (
            array(_ID_TYPE, unset) for _ in _ARRAYS
        )
        for node, r in self.terminal.items():
            self.value[node] = self.intern(r, 1)
            self.win[node] = self.one if r > 0 else self.zero
            self.loss[node] = self.one if r < 0 else self.zero
            self._settle(node)
        first, child = self.first, self.child
        order, low = array(_ID_TYPE, unset), array(_ID_TYPE, unset)
        on_stack = bytearray(n)
        stack, path, cursor = [0], [0], [first[0]]
        order[0] = low[0] = 0
        on_stack[0] = 1
        discovered = solved = cycles = 0
        while path:
            v = path[-1]
            e, end = cursor[-1], first[v + 1]
            while e < end:
                w = child[e]
                e += 1
                if order[w] < 0:
                    cursor[-1] = e
                    discovered += 1
                    order[w] = low[w] = discovered
                    stack.append(w)
                    on_stack[w] = 1
                    path.append(w)
                    cursor.append(first[w])
                    break
                if on_stack[w] and order[w] < low[v]:
                    low[v] = order[w]
            else:
                path.pop()
                cursor.pop()
                if path and low[v] < low[path[-1]]:
                    low[path[-1]] = low[v]
                if low[v] != order[v]:
                    continue
                members = [stack.pop()]
                on_stack[members[0]] = 0
                while members[-1] != v:
                    members.append(stack.pop())
                    on_stack[members[-1]] = 0
                if len(members) > 1 or v in child[first[v] : first[v + 1]]:
                    self._solve_cycle(members)
                    cycles += 1
                elif self.players[v] != TERMINAL:  # terminal values are set already
                    self._solve_acyclic(v)
                before, solved = solved, solved + len(members)
                if solved // _REPORT_EVERY > before // _REPORT_EVERY or solved == n:
                    self.say(
                        f"solved {solved:,} of {n:,} positions ({cycles:,} cycles)",
                        done=solved,
                        total=n,
                    )

    def _settle(self, v: int) -> None:
        """Record that ``v``'s value is known now, after every position settled before."""
        self.settled[v] = self._clock
        self._clock += 1

    def _solve_acyclic(self, v: int) -> None:
        """A position outside every cycle: its children are solved."""
        self._settle(v)
        start, end = self.first[v], self.first[v + 1]
        kids = self.child[start:end]
        value, win, loss = self.value, self.win, self.loss
        player = self.players[v]
        if player == CHANCE:
            d = self.dist[v]
            value[v] = self._mean(d, tuple(value[c] for c in kids))
            win[v] = self._mean(d, tuple(win[c] for c in kids))
            loss[v] = self._mean(d, tuple(loss[c] for c in kids))
            return
        ids = [value[c] for c in kids]
        best = ids[0]
        for i in ids:
            if i != best and (self._less(best, i) if player == 0 else self._less(i, best)):
                best = i
        pick = ids.index(best)  # the smallest action id of the best value
        c = kids[pick]
        value[v], win[v], loss[v] = best, win[c], loss[c]
        self.canonical[v] = self.action[start + pick]

    def _solve_cycle(self, members: list[int]) -> None:
        """A component with cycles: threshold attractors (see the module docstring)."""
        players, first, child = self.players, self.first, self.child
        if any(players[v] < 0 for v in members):
            raise SolverError(
                f"{self.game.name} is unsupported: chance inside a cycle of positions; this "
                "solver returns exact values only when cycles are free of chance"
            )
        inside = set(members)
        preds: dict[int, list[int]] = {v: [] for v in members}
        exits: dict[int, list[int]] = {}  # exit value id -> the position of each such action
        for v in members:
            for e in range(first[v], first[v + 1]):
                w = child[e]
                if w in inside:
                    preds[w].append(v)
                else:
                    exits.setdefault(self.value[w], []).append(v)
        thresholds = sorted(exits, key=lambda t: Fraction(self._num[t], self._den[t]))
        found: dict[int, int] = {}  # position -> value id, as each attractor takes it

        def attract(player: int, ordered: list[int]) -> None:
            """Grow ``player``'s attractor to the exits, one threshold at a time."""
            remaining = {v: first[v + 1] - first[v] for v in members if players[v] != player}
            queue: list[int] = []

            def reach(v: int, t: int) -> None:
                if v in found:
                    return
                if v in remaining:
                    remaining[v] -= 1
                    if remaining[v]:
                        return
                found[v] = t
                self._settle(v)
                queue.append(v)

            for t in ordered:
                for v in exits[t]:
                    reach(v, t)
                while queue:
                    for u in preds[queue.pop()]:
                        reach(u, t)

        attract(0, [t for t in reversed(thresholds) if self._num[t] > 0])
        attract(1, [t for t in thresholds if self._num[t] < 0])
        following: dict[int, int] = {}
        for v in members:
            if v not in found:  # neither side can force an exit: a draw
                found[v] = self.zero
                self._settle(v)
        settled = self.settled
        for v in members:
            t = self.value[v] = found[v]
            progress = self._num[t] > 0 if players[v] == 0 else self._num[t] < 0
            chosen = -1
            for e in range(first[v], first[v + 1]):
                w = child[e]
                if (found[w] if w in inside else self.value[w]) != t:
                    continue
                # Exits settled in earlier components; inside, attractor order is progress.
                if chosen < 0 or (progress and settled[w] < settled[child[chosen]]):
                    chosen = e
                if not progress:
                    break
            self.canonical[v] = self.action[chosen]
            following[v] = child[chosen]
        # Under the canonical strategies play follows one action per position: it leaves the
        # component (and gets what the exit gets) or goes round a cycle for ever (a draw).
        done: set[int] = set()
        for v in members:
            walk: list[int] = []
            walking: set[int] = set()
            w = v
            while w in inside and w not in done and w not in walking:
                walk.append(w)
                walking.add(w)
                w = following[w]
            outcome = (self.zero, self.zero) if w in walking else (self.win[w], self.loss[w])
            for u in walk:
                self.win[u], self.loss[u] = outcome
                done.add(u)
