"""Flip Switch: the compiled kernel against the reference engine.

Thousands of the kernel's own seeded random games are replayed on the reference engine; at
every ply the legal actions (ids and notation), the chance outcomes with their exact
probabilities, the position after the action and the results must agree. The kernel's
position graph is compared with the reference engine's enumeration from mid-game roots.
"""

from __future__ import annotations

import random
from collections import defaultdict
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import CHANCE, TERMINAL
from flipgames.games.flip_switch import kernel as fk
from flipgames.games.flip_switch.kernel import FlipSwitchKernel
from flipgames.games.flip_switch.rules import FlipSwitchState
from flipgames.solvers.graph import reference_graph

OPTION_SETS: list[dict[str, Any]] = [
    {"lines": "all", "no_move": "draw"},
    {"lines": "edges", "no_move": "draw"},
    {"lines": "all", "no_move": "pass"},
    {"lines": "edges", "no_move": "pass"},
    {"lines": "all", "rounds": 3},
]


def one_round(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with one round unless they name a round count (the default plays three;
    the graph and most checks here study one round, as the solver does)."""
    return {"rounds": 1, **options}


def kernel_of(options: dict[str, Any]) -> FlipSwitchKernel:
    kernel = make("flip-switch", **one_round(options)).kernel()
    assert isinstance(kernel, FlipSwitchKernel)
    return kernel


def kernel_choices(kernel: FlipSwitchKernel, state: FlipSwitchState) -> dict[int, Fraction]:
    """What the kernel offers at ``state``: actions (weight 1) or outcomes with probability."""
    tiles = np.empty(fk.SQUARES, np.int64)
    owners = np.empty(fk.SHAPES, np.int64)
    last, _, flip = fk.unpack(kernel.raw_key(state), tiles, owners)
    if flip >= 0:
        weights = np.empty(fk.SHAPES, np.int64)
        total = fk.chance_weights(tiles, weights)
        return {fk.OUTCOME_BASE + k: Fraction(int(w), total) for k, w in enumerate(weights) if w}
    out = np.empty(fk.MAX_ACTIONS, np.int64)
    n = fk.legal_actions(tiles, owners, last, kernel.pairs, kernel.passing, out)
    return {int(a): Fraction(1) for a in out[:n]}


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(map(str, o.values())))
def test_kernel_games_replay_identically_on_the_reference(options: dict[str, Any]) -> None:
    kernel = kernel_of(options)
    game = make("flip-switch", **one_round(options))
    games = 1_000
    batch, record = kernel.traced_playouts(games, seed=11, max_plies=200)
    rounds_ended = capped = 0
    for g in range(games):
        state = game.new_initial_state()
        assert isinstance(state, FlipSwitchState)
        for ply in range(int(batch.lengths[g])):
            action = int(record[g, ply])
            offered = kernel_choices(kernel, state)
            if state.is_chance_node():
                assert offered == dict(state.chance_outcomes())
            else:
                assert tuple(offered) == state.legal_actions()
                layout = game.layout
                assert [layout.to_string(a) for a in offered] == [
                    state.action_to_string(a) for a in state.legal_actions()
                ]
            key, _ = fk.step(
                kernel.raw_key(state), action, kernel.lines, kernel.pairs, kernel.passing
            )
            child = state.apply(action)
            assert isinstance(child, FlipSwitchState)
            over = int(key) >> fk.OVER_SHIFT
            if len(child._results) > len(state._results):
                rounds_ended += 1
                result = child._results[-1]
                if over == 0:  # the path's third repetition: the kernel's step cannot see it
                    assert "third time" in child._reason and result == -1
                else:
                    assert over == (fk.OVER_DRAWN if result == -1 else result + 1)
            else:
                assert over == 0 and key == kernel.raw_key(child)
            state = child
        if state.is_terminal():
            assert int(batch.returns[g]) == state.returns()[0]
        else:  # stopped by the ply cap: no result
            assert batch.lengths[g] == 200 and batch.returns[g] == 0
            capped += 1
    assert batch.capped == capped
    assert rounds_ended >= games


def test_the_kernels_drawn_games_are_the_references() -> None:
    """Draws are rare in random play (a third repetition in about 1 game of 1,000), so many
    kernel games are played and every drawn one is replayed: each is a draw on the reference
    too, for the same reason the kernel saw (the third occurrence of a position)."""
    options = {"lines": "edges"}
    game = make("flip-switch", **one_round(options))
    batch, record = kernel_of(options).traced_playouts(20_000, seed=4)
    drawn = [g for g in range(20_000) if batch.returns[g] == 0 and batch.lengths[g] < 200]
    reasons = set()
    for g in drawn:
        state = game.new_initial_state()
        for ply in range(int(batch.lengths[g])):
            state = state.apply(int(record[g, ply]))
        assert isinstance(state, FlipSwitchState)
        assert state.is_terminal() and state.returns() == (0, 0)
        reasons.add(state._reason.split("drawn: ")[1])
    assert "a position occurred for the third time" in reasons


def test_playouts_are_seeded_and_chance_is_fair() -> None:
    kernel = kernel_of({})
    a = kernel.playouts(2_000, seed=5)
    b = kernel.playouts(2_000, seed=5)
    assert np.array_equal(a.returns, b.returns) and np.array_equal(a.lengths, b.lengths)
    # The first flip shows each shape with probability 1/3: 6,000 draws stay near 2,000 each.
    _, record = kernel.traced_playouts(6_000, seed=9)
    shapes = np.bincount(record[:, 1] - fk.OUTCOME_BASE, minlength=3)
    assert all(abs(int(n) - 2_000) < 150 for n in shapes)


def test_perft_is_refused_for_a_chance_game() -> None:
    kernel = kernel_of({})
    with pytest.raises(ValueError, match="deterministic"):
        kernel.perft(make("flip-switch", rounds=1).new_initial_state(), 2)


def test_other_sizes_run_on_the_reference() -> None:
    assert make("flip-switch", size=4, shapes=4, copies=4).kernel() is None


@pytest.mark.parametrize(
    "options",
    [
        {"must_flip": "yes"},
        {"switch_limit": 4},
        {"must_flip": "yes", "switch_limit": 4},
        {"size": 4, "shapes": 4, "copies": 4, "line": 4},
    ],
    ids=str,
)
def test_the_candidate_fixes_and_longer_lines_fall_back_to_the_reference(
    options: dict[str, Any],
) -> None:
    """The kernel has no duty to flip, no turn counter and lines of three only: every
    algorithm (kernel_for) then runs these option sets on the reference engine."""
    from flipgames.core.kernel import kernel_for
    from flipgames.solvers.graph import keying

    game = make("flip-switch", rounds=1, **options)
    assert game.kernel() is None and kernel_for(game) is None
    assert keying(game) == "reference"


def random_root(game: Any, rng: random.Random, face_down: int) -> FlipSwitchState:
    """A position after random play that leaves ``face_down`` tiles face down."""
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            down = sum(t == -1 for t in state._tiles)
            if down <= face_down and state.current_player >= 0:
                return state
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state = state.apply(
                    rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
                )
            else:
                state = state.apply(rng.choice(state.legal_actions()))


def by_key(graph: Any) -> dict[int, tuple[int, int, dict[int, Fraction]]]:
    """Per key: player code, terminal return and each child key's probability (1 for
    actions; several edges into one child add up)."""
    keys = graph.keys.tolist()
    result = {}
    for i, key in enumerate(keys):
        start, end = int(graph.edge_start[i]), int(graph.edge_start[i + 1])
        weights: dict[int, int] = defaultdict(int)
        for e in range(start, end):
            weights[keys[int(graph.edge_child[e])]] += int(graph.edge_weight[e])
        total = sum(weights.values())
        chance = graph.to_move[i] == CHANCE
        result[key] = (
            int(graph.to_move[i]),
            int(graph.terminal_return[i]),
            {k: Fraction(w, total) if chance else Fraction(1) for k, w in weights.items()},
        )
    return result


#: The enumerations take 3 to 8 s of CPU each: the fast loop compares the graphs under one
#: option set (all lines, passing: the cheapest), CI (-m slow) under the other three too.
GRAPH_OPTION_SETS = [
    pytest.param(o, marks=() if o == {"lines": "all", "no_move": "pass"} else pytest.mark.slow)
    for o in OPTION_SETS[:4]
]


@pytest.mark.parametrize("options", GRAPH_OPTION_SETS, ids=lambda o: ",".join(o.values()))
def test_the_graph_matches_the_reference_enumeration(options: dict[str, Any]) -> None:
    """From mid-game roots (one tile face down: a chance node, then switching cycles), the
    kernel's folded graph and the reference engine's walk keyed by the kernel's encoding hold
    the same positions, players,
    results and transition probabilities."""
    game = make("flip-switch", **one_round(options))
    kernel = kernel_of(options)
    rng = random.Random(str(options))
    for face_down in (1, 1):
        root = random_root(game, rng, face_down)
        fast = kernel.graph(root=root)
        reference, _ = reference_graph(game, root, kernel.encode)
        assert fast.keys[0] == reference.keys[0] == kernel.encode(root)
        assert by_key(fast) == by_key(reference)
        assert set(fast.to_move.tolist()) <= {0, 1, CHANCE, TERMINAL}


def test_folding_merges_symmetric_positions() -> None:
    """The 8 board symmetries and 6 shape relabellings of a position share one key."""
    game = make("flip-switch", rounds=1)
    kernel = kernel_of({})
    state = game.state_from_actions(["a1", "heart", "b1", "star", "c3", "heart"])
    mirrored = game.state_from_actions(["c1", "square", "b1", "heart", "a3", "square"])
    assert kernel.encode(state) == kernel.encode(mirrored)
    other = game.state_from_actions(["a1", "heart", "b1", "star", "c3", "star"])
    assert kernel.encode(state) != kernel.encode(other)
