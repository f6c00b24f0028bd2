"""The solvers on a compiled kernel's graph against the same solvers on the reference engine.

``FLIPGAMES_KERNEL=python`` makes :func:`flipgames.solvers.graph.solver_graph` walk the
reference engine with ``State.key()`` keys, no folding and one edge per action; the default
takes the kernel's graph (folded for Flip Switch and FlipFlop 3x3, terminals keyed by result in
the chance games). Every position must get the same value and action values either way (and,
where values have no ties that the tie rule could break differently, the same probabilities
and best actions). A solution's locator keeps the keying it was built with, whatever the
environment says later.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator

import pytest

from flipgames import make
from flipgames.core.game import State
from flipgames.solvers import retrograde
from flipgames.solvers.stochastic import StochasticSolution, solve_stochastic

#: A Flip Switch endgame with one star face down (12,100 reference positions).
ENDGAME = "a1 heart b1 heart c1 heart a2 square b2 square c2 square a3 star b3 star a2-a3"


def positions(root: State) -> Iterator[State]:
    """Every position reachable from ``root`` once, breadth first."""
    seen = {root.key()}
    queue = deque([root])
    while queue:
        state = queue.popleft()
        yield state
        for action in state.legal_actions():
            child = state.apply(action)
            if child.key() not in seen:
                seen.add(child.key())
                queue.append(child)


def solve_both(
    monkeypatch: pytest.MonkeyPatch, game_name: str, root: State | None = None, **options: str
) -> tuple[StochasticSolution, StochasticSolution]:
    game = make(game_name, **options)
    monkeypatch.setenv("FLIPGAMES_KERNEL", "fast")
    fast = solve_stochastic(game, root=root)
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    reference = solve_stochastic(game, root=root)
    monkeypatch.setenv("FLIPGAMES_KERNEL", "fast")
    return fast, reference


@pytest.mark.parametrize("start", ["spin", "first"])
def test_checkered_flag_short_track(monkeypatch: pytest.MonkeyPatch, start: str) -> None:
    """No symmetry folded: only the two finished-race nodes merge the reference's terminals."""
    fast, reference = solve_both(monkeypatch, "checkered-flag", track="short", start=start)
    assert fast.positions < reference.positions
    for state in positions(make("checkered-flag", track="short", start=start).new_initial_state()):
        assert fast.value(state) == reference.value(state)
        if state.current_player >= 0:
            assert fast.action_values(state) == reference.action_values(state)
            assert fast.best_actions(state) == reference.best_actions(state)


# About 10 s of CPU: the fast loop still compares Flip Switch's kernel graph with the reference
# enumeration (tests/kernels/test_kernel_flip_switch.py) and its endgame values with value
# iteration on both paths (tests/solvers/test_stochastic.py).
@pytest.mark.slow
def test_flip_switch_endgame(monkeypatch: pytest.MonkeyPatch) -> None:
    """Folded over the 48 symmetries: 2,732 kernel positions for the reference's 12,100, and
    the same expected value at each of the reference's positions and for each action."""
    game = make("flip-switch", rounds=1)
    root = game.state_from_actions(ENDGAME.split())
    fast, reference = solve_both(monkeypatch, "flip-switch", root=root, rounds="1")
    assert (fast.positions, reference.positions) == (2_732, 12_100)
    for state in positions(root):
        if state.is_terminal():
            continue
        assert fast.value(state).expected == reference.value(state).expected
        if state.current_player >= 0:
            assert {a: v.expected for a, v in fast.action_values(state).items()} == {
                a: v.expected for a, v in reference.action_values(state).items()
            }


def test_flipflop_3x3_retrograde(monkeypatch: pytest.MonkeyPatch) -> None:
    """The FlipFlop kernel's mirror-folded graph (107,439 positions) against the reference
    walk (213,270): the same value, remoteness and action values on 3,000 positions of random
    games, and the same best actions."""
    game = make("flipflop-3x3")
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    reference = retrograde.solve(game)
    monkeypatch.setenv("FLIPGAMES_KERNEL", "fast")
    fast = retrograde.solve(game)
    assert (fast.positions, reference.positions) == (107_439, 213_270)
    rng = random.Random(4)
    checked = 0
    while checked < 3_000:
        state = game.new_initial_state()
        while not state.is_terminal() and checked < 3_000:
            assert fast.value(state) == reference.value(state)
            assert fast.action_values(state) == reference.action_values(state)
            assert fast.best_actions(state) == reference.best_actions(state)
            checked += 1
            state = state.apply(rng.choice(state.legal_actions()))
