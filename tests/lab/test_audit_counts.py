"""The audit counts positions one way whichever engine walks them (issue 24, item 23).

FlipFlop 3x3 has 213,270 reachable positions, 107,439 when a position and its mirror image
count once (the solver's folded graph, `flipgames solve flipflop-3x3`). The audit used to key
positions in play by the folded key and finished ones by the raw key, and so reported 113,405
positions and 4,039 endings with no legal move on the kernel path (213,270 and 5,018 on the
reference path): now both paths count up to the mirror and say so.
"""

from __future__ import annotations

import random

import pytest

from flipgames import make
from flipgames.core.game import State, sample_chance
from flipgames.lab.audit import Audit, audit


def details(result: Audit, kind: str) -> dict[str, object]:
    (found,) = [f.details for f in result.findings if f.kind == kind]
    return found


@pytest.fixture(scope="module")
def reference_3x3() -> Audit:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FLIPGAMES_KERNEL", "python")
        return audit(make("flipflop-3x3"), method="exhaustive")


@pytest.fixture(scope="module")
def kernel_3x3() -> Audit:
    return audit(make("flipflop-3x3"), method="exhaustive")


def test_flipflop_3x3_counts_the_folded_graph_with_its_endings(kernel_3x3):
    game = make("flipflop-3x3")
    builder = game.graph_builder()
    assert builder is not None
    graph = builder.graph()
    value = details(kernel_3x3, "solved-value")
    # Every position of the solver's folded graph, each ending kept apart as the graph does.
    assert value["positions"] == graph.nodes == 107_439
    assert value["symmetries_folded"] == graph.symmetries == 2
    assert details(kernel_3x3, "no-legal-action")["positions"] == 2_575
    summaries = {f.kind: f.summary for f in kernel_3x3.findings}
    assert "107,439 positions were walked (counted up to symmetry" in summaries["solved-value"]
    assert "2,575 reachable endings (counted up to symmetry" in summaries["no-legal-action"]


@pytest.mark.slow
def test_the_reference_path_reports_what_the_kernel_path_reports(kernel_3x3, reference_3x3):
    assert reference_3x3.to_json() == kernel_3x3.to_json()


def test_both_paths_agree_on_a_game_with_nothing_to_fold(monkeypatch):
    game = make("checkered-flag", track="short")
    fast = audit(game, method="exhaustive")
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    reference = audit(game, method="exhaustive")
    assert reference.to_json() == fast.to_json()
    value = details(fast, "solved-value")
    assert value["symmetries_folded"] == 1
    assert "no symmetry folded" in next(f.summary for f in fast.findings)


def test_flip_switch_folds_finished_rounds_without_merging_them():
    # The graph merges finished rounds by result (three nodes); the audit's fold keeps each
    # final position, up to the same 48 symmetries as the positions in play.
    game = make("flip-switch", rounds=1)
    kernel = game.kernel()
    assert kernel is not None and kernel.symmetries == 48
    rng = random.Random(3)
    endings: list[State] = []
    while len(endings) < 40:
        state = game.new_initial_state()
        while not state.is_terminal():
            assert kernel.fold(state) == kernel.encode(state)
            state = state.apply(
                sample_chance(state, rng)
                if state.is_chance_node()
                else rng.choice(state.legal_actions())
            )
        endings.append(state)
    assert len({kernel.encode(s) for s in endings}) <= 3
    assert len({kernel.fold(s) for s in endings}) > 10
