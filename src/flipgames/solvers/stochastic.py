"""Exact solutions of two-player zero-sum games with chance nodes and repetition cycles.

The positions come from :func:`~flipgames.solvers.graph.solver_graph` (the compiled kernel's
folded graph where the game has one, else the reference engine's walk). Values are exact
expected returns for player 0 under optimal play (player 0 maximises, player 1 minimises,
chance averages with its exact integer weights).

How the values are computed (strongly connected components, threshold attractors, exact
integers over one common denominator, canonical strategies) is
:mod:`flipgames.solvers.stochastic_values`.

>>> from flipgames import make
>>> game = make("checkered-flag", track="short", start="first")
>>> solution = solve_stochastic(game)
>>> start = game.new_initial_state()
>>> value = solution.value(start)
>>> round(float(value), 4), value.win - value.loss == value.expected, value.draw
(0.1912, True, Fraction(0, 1))
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from flipgames.core.game import CHANCE, Game, State
from flipgames.core.progress import Progress, silent
from flipgames.solvers import cache
from flipgames.solvers.graph import (
    Locator,
    Policy,
    locator_from_payload,
    policy_name,
    solver_graph,
    stored_keying,
)
from flipgames.solvers.payload import pack_array, pack_integers, unpack_array, unpack_integers
from flipgames.solvers.solution import SolverError, Value
from flipgames.solvers.stochastic_values import ValueSolver

#: Bump when the payload or the canonical strategies change: old cache files are then ignored.
VERSION = 4

__all__ = ["Policy", "SolverError", "StochasticSolution", "cached_solve", "solve_stochastic"]

#: The per-position arrays of a payload: value, win and loss ids, the canonical child, and
#: when each value was settled.
_ARRAYS = ("value", "win", "loss", "canonical", "settled")


class StochasticSolution:
    """The value, win/draw/loss probabilities and canonical play of every solved position.

    Values are for ``player``, by default the player to move, and player 0 at chance nodes
    and terminal positions, where nobody is to move.
    """

    def __init__(
        self,
        game: Game,
        locator: Locator,
        numerators: list[int],
        denominator: int,
        arrays: dict[str, npt.NDArray[np.int32]],
        seconds: float,
        policies: tuple[str | None, str | None] = (None, None),
    ) -> None:
        self.game = game
        self.seconds = seconds
        #: Per player, the name of the fixed policy they followed, or None for optimal play.
        self.policies = policies
        self._locator = locator
        # Every value is one of the distinct numerators over the common denominator.
        self._numerators = numerators
        self._denominator = denominator
        self._arrays = arrays
        self._value, self._win, self._loss = arrays["value"], arrays["win"], arrays["loss"]
        # Without draws anywhere only values are stored: win and loss follow from them.
        self._draws = bool(len(self._win)) and int(self._win[0]) >= 0
        # The child node the canonical strategy picks (-1 at chance and terminal nodes).
        self._canonical = arrays["canonical"]
        # When each position's value was settled: progress inside a cycle goes to earlier ones.
        self._settled = arrays["settled"]

    def _fraction(self, ident: int) -> Fraction:
        return Fraction(self._numerators[ident], self._denominator)

    @property
    def positions(self) -> int:
        """How many positions (terminal ones included; folded ones once) were solved."""
        return len(self._value)

    def node(self, state: State) -> int | None:
        """``state``'s position number in this solution, or None when it holds no such
        position (symmetric images share one)."""
        return self._locator.node(state)

    def _node(self, state: State) -> int:
        node = self._locator.node(state)
        if node is None:
            raise SolverError(f"that {self.game.name} position is not reachable in this solution")
        return node

    def value(self, state: State, player: int | None = None) -> Value:
        """The value for ``player`` (see the class docstring) under optimal play."""
        viewer = _viewer(state, player)
        if state.is_terminal():
            return Value.certain(state.returns()[viewer])
        node = self._node(state)
        expected = self._fraction(int(self._value[node]))
        if self._draws:
            win, loss = self._fraction(int(self._win[node])), self._fraction(int(self._loss[node]))
        else:
            win, loss = (1 + expected) / 2, (1 - expected) / 2
        value = Value.of(expected, win, loss)
        return value if viewer == 0 else value.negated()

    def probabilities(
        self, state: State, player: int | None = None
    ) -> tuple[Fraction, Fraction, Fraction]:
        """(win, draw, loss) for ``player`` under the canonical optimal strategies."""
        value = self.value(state, player)
        return value.win, value.draw, value.loss

    def _children(self, state: State) -> dict[int, State]:
        if state.current_player < 0:
            kind = "a chance node" if state.current_player == CHANCE else "a finished game"
            raise SolverError(f"action values need a player to move; this is {kind}")
        return {action: state.apply(action) for action in state.legal_actions()}

    def action_values(self, state: State) -> dict[int, Value]:
        """Per legal action, its value for the player to move at ``state``. Under fixed
        policies only the free player's actions are solved."""
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
        values = {a: self.value(child, player).expected for a, child in children.items()}
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
        """The smallest action id into the position the canonical strategy picks (where a
        repetition on the path to ``state`` makes that move a draw, the smallest drawing
        move)."""
        if state.current_player < 0:
            raise SolverError("only a player to move has a canonical action")
        target = int(self._canonical[self._node(state)])
        repeating: list[int] = []
        for action in state.legal_actions():
            child = state.apply(action)
            if self._locator.node(child) == target:
                return action
            if child.is_terminal() and child.returns()[0] == 0:
                repeating.append(action)
        # On this path the canonical move repeats a position for the third time, so it ends
        # in a draw here: any move that also ends in a draw is the same for the result.
        if repeating:
            return repeating[0]
        raise SolverError("the canonical action of this position cannot be found")

    # --- disk cache -------------------------------------------------------------------------

    def to_payload(self) -> dict[str, Any]:
        """A JSON-native form: keys and per-position arrays compressed, fractions as
        ``"n/d"`` strings."""
        return {
            "positions": self.positions,
            "seconds": self.seconds,
            "policies": list(self.policies),
            "locator": self._locator.to_payload(),
            "denominator": str(self._denominator),
            "numerators": pack_integers(self._numerators),
            **{name: pack_array(self._arrays[name]) for name in _ARRAYS},
        }

    @classmethod
    def from_payload(cls, game: Game, payload: Any) -> StochasticSolution:
        """Rebuild from :meth:`to_payload`; :class:`SolverError` if anything does not fit."""
        try:
            positions = int(payload["positions"])
            numerators = unpack_integers(payload["numerators"], "numerators")
            denominator = int(payload["denominator"])
            seconds = float(payload["seconds"])
            first, second = payload["policies"]
            arrays = {
                name: unpack_array(payload[name], np.int32, positions, name) for name in _ARRAYS
            }
            # Payloads are written for solutions from the start (the disk cache's).
            locator = locator_from_payload(
                game, payload["locator"], positions, game.new_initial_state()
            )
        except SolverError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
            raise SolverError(f"malformed stochastic solution: {exc!r}") from None
        if denominator < 1 or any(abs(x) > denominator for x in numerators):
            raise SolverError("malformed stochastic solution: a value is outside [-1, 1]")
        tracked = ("value", "win", "loss") if positions and arrays["win"][0] >= 0 else ("value",)
        if positions and any(
            arrays[k].min() < 0 or arrays[k].max() >= len(numerators) for k in tracked
        ):
            raise SolverError("malformed stochastic solution: a value id is out of range")
        if not all(isinstance(p, str | None) for p in (first, second)):
            raise SolverError("malformed stochastic solution: policies")
        return cls(game, locator, numerators, denominator, arrays, seconds, (first, second))


def _viewer(state: State, player: int | None) -> int:
    if player is None:
        return max(state.current_player, 0)
    if player not in (0, 1):
        raise SolverError(f"player must be 0 or 1, got {player!r}")
    return player


def cache_name(game: Game) -> str:
    """The disk cache's solver name: the keying is part of it (see
    :func:`~flipgames.solvers.graph.keying`)."""
    return f"stochastic-{stored_keying(game, 'stochastic', VERSION)}"


def cached_solve(
    game: Game, progress: Progress = silent, max_positions: int | None = None
) -> StochasticSolution:
    """:func:`solve_stochastic` from the disk cache, solving and storing it when missing.

    A cache file that fails its checksum or does not hold a well-formed solution is reported
    and rebuilt.
    """
    return cache.cached(
        cache_name(game),
        VERSION,
        game,
        lambda: solve_stochastic(game, progress, max_positions=max_positions),
        StochasticSolution.to_payload,
        lambda payload: StochasticSolution.from_payload(game, payload),
    )


def solve_stochastic(
    game: Game,
    progress: Progress = silent,
    *,
    root: State | None = None,
    policies: Sequence[Policy | None] = (None, None),
    max_positions: int | None = None,
) -> StochasticSolution:
    """Solve every position reachable from ``root`` (default: the start) exactly.

    With ``max_positions``, give up with :class:`SolverError` once more positions than that
    are reachable (a variant too large for memory stops early instead of exhausting it).

    ``policies[p]``, when given, is a fixed policy player ``p`` follows: only its action is
    expanded there, so the other player's values are a best response to it (both fixed: the
    exact values of that pair of policies). A ``root`` whose history could repeat positions
    below it may see lines cut short by the repetition rule: start from one reached by an
    irreversible action.
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
    solved = solver_graph(game, progress, root=root, policies=policies, max_positions=max_positions)
    arrays, numerators, denominator, _ = ValueSolver(game, solved.graph, progress).solve()
    names = tuple(None if p is None else policy_name(p) for p in policies)
    return StochasticSolution(
        game,
        solved.locator,
        numerators,
        denominator,
        arrays,
        time.perf_counter() - started,
        (names[0], names[1]),
    )
