"""Checkered Flag: the compiled kernel against the reference engine.

Thousands of the kernel's own seeded random races are replayed on the reference engine; at
every ply the legal actions (ids and notation), the chance outcomes with their exact
probabilities, the position after the action and the result must agree. The kernel's
position graph is compared with the reference engine's full enumeration on the short track.
"""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flipgames import make
from flipgames.core.game import CHANCE
from flipgames.games.checkered_flag import kernel as ck
from flipgames.games.checkered_flag.kernel import CheckeredFlagKernel
from flipgames.games.checkered_flag.rules import CheckeredFlagState
from flipgames.solvers.graph import reference_graph

OPTION_SETS: list[dict[str, Any]] = [
    {"start": "spin"},
    {"start": "first"},
    {"start": "first", "laps": 2},
    {"start": "spin", "track": "short"},
    {"start": "first", "track": "short", "laps": 3},
]


def kernel_of(options: dict[str, Any]) -> CheckeredFlagKernel:
    kernel = make("checkered-flag", **options).kernel()
    assert isinstance(kernel, CheckeredFlagKernel)
    return kernel


def kernel_choices(kernel: CheckeredFlagKernel, state: CheckeredFlagState) -> dict[int, Fraction]:
    """What the kernel offers at ``state``: gears (weight 1) or outcomes with probability."""
    width = kernel.outcome_ids.shape[1] + 3
    actions = np.empty(width, np.int64)
    weights = np.empty(width, np.int64)
    n = ck.options(
        kernel.encode(state), kernel.outcome_ids, kernel.outcome_weights, actions, weights
    )
    total = int(weights[:n].sum())
    chance = state.is_chance_node()
    return {
        int(a): Fraction(int(w), total) if chance else Fraction(1)
        for a, w in zip(actions[:n], weights[:n], strict=True)
    }


def step(kernel: CheckeredFlagKernel, state: CheckeredFlagState, action: int) -> int:
    return int(
        ck.step(
            kernel.encode(state),
            action,
            kernel.moves,
            kernel.start_first,
            kernel.crash_at,
            kernel.no_passing_at,
            kernel.goal,
        )
    )


def replay(options: dict[str, Any], games: int, seed: int) -> None:
    """Replay the kernel's traced games on the reference, checking every ply."""
    game = make("checkered-flag", **options)
    kernel = kernel_of(options)
    batch, record = kernel.traced_playouts(games, seed=seed, max_plies=400)
    for g in range(games):
        state = game.new_initial_state()
        assert isinstance(state, CheckeredFlagState)
        for ply in range(int(batch.lengths[g])):
            offered = kernel_choices(kernel, state)
            if state.is_chance_node():
                assert offered == dict(state.chance_outcomes())
            else:
                assert tuple(offered) == state.legal_actions()
                assert [game.layout.to_string(a) for a in offered] == [
                    state.action_to_string(a) for a in state.legal_actions()
                ]
            action = int(record[g, ply])
            after = step(kernel, state, action)
            child = state.apply(action)
            assert isinstance(child, CheckeredFlagState)
            assert after == kernel.encode(child)
            state = child
        assert state.is_terminal()
        assert int(batch.returns[g]) == state.returns()[0]
    assert batch.capped == 0


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(map(str, o.values())))
def test_kernel_races_replay_identically_on_the_reference(options: dict[str, Any]) -> None:
    replay(options, games=1_000, seed=3)


def test_a_track_and_spinners_from_files(tmp_path: Path) -> None:
    """User data becomes the kernel's tables too: a 12-space track with a no-passing space
    at the start line and unequal spinner weights."""
    track = tmp_path / "track.json"
    track.write_text(
        json.dumps(
            {"name": "tiny", "length": 12, "start": 0, "crash": [3, 7], "no_passing": [0, 5]}
        )
    )
    spinners = tmp_path / "spinners.json"
    spinners.write_text(
        json.dumps({"name": "lumpy", "A": {"1": 3, "2": 1}, "B": {"1": 1, "2": 2, "4": 5}})
    )
    replay({"track": str(track), "spinners": str(spinners), "laps": 2}, games=1_000, seed=8)


def test_playouts_are_seeded() -> None:
    kernel = kernel_of({})
    a, b = kernel.playouts(3_000, seed=2), kernel.playouts(3_000, seed=2)
    assert np.array_equal(a.returns, b.returns) and np.array_equal(a.lengths, b.lengths)
    assert not np.array_equal(a.lengths, kernel.playouts(3_000, seed=3).lengths)


def test_perft_is_refused_for_a_chance_game() -> None:
    with pytest.raises(ValueError, match="deterministic"):
        kernel_of({}).perft(make("checkered-flag").new_initial_state(), 1)


def by_key(graph: Any) -> dict[int, tuple[int, int, dict[int, Fraction]]]:
    keys = graph.keys.tolist()
    result = {}
    for i, key in enumerate(keys):
        weights: dict[int, int] = defaultdict(int)
        for e in range(int(graph.edge_start[i]), int(graph.edge_start[i + 1])):
            weights[keys[int(graph.edge_child[e])]] += int(graph.edge_weight[e])
        total = sum(weights.values())
        chance = graph.to_move[i] == CHANCE
        result[key] = (
            int(graph.to_move[i]),
            int(graph.terminal_return[i]),
            {k: Fraction(w, total) if chance else Fraction(1) for k, w in weights.items()},
        )
    return result


@pytest.mark.parametrize("start", ["spin", "first"])
def test_the_graph_matches_the_reference_enumeration(start: str) -> None:
    """The whole short-track game: the same positions (a finished race keyed by its winner),
    players, results and transition probabilities, and the same breadth-first node order."""
    game = make("checkered-flag", track="short", start=start)
    kernel = kernel_of({"track": "short", "start": start})
    fast = kernel.graph()
    reference, _ = reference_graph(game, game.new_initial_state(), kernel.encode)
    assert fast.keys.tolist() == reference.keys.tolist()
    assert by_key(fast) == by_key(reference)
