"""Flip Switch: flip face-down tiles and switch neighbours to line up three of a shape.

The registry loads :class:`flipgames.games.flip_switch.rules.FlipSwitch` as ``flip-switch``.
``MANIFESTS`` holds what the web, the agents and the solver catalogue know about it
(:mod:`flipgames.core.manifest`).
"""

from flipgames.core.manifest import (
    HARD_SECONDS,
    BenchFacts,
    Manifest,
    ReviewFacts,
    SolveCost,
    alphabeta,
    mcts,
)

MANIFESTS = {
    "flip-switch": Manifest(
        game="flipgames.games.flip_switch.rules:FlipSwitch",
        board="flip-switch",
        docs="flip-switch",
        pitch="Nine tiles face down. Flip to reveal, switch neighbours to line up three of a "
        "shape. First to two shapes wins.",
        art=(
            '<svg viewBox="0 0 120 80">'
            '<rect x="6" y="18" width="34" height="34" rx="6" class="art-tile"/><path d="'
            'M23 46c-10-7-12-13-8-17 3-3 7-2 8 2 1-4 5-5 8-2 4 4 2 10-8 17z" class="art-heart"/>'
            '<rect x="43" y="18" width="34" height="34" rx="6" class="art-back"/>'
            '<path d="M60 24l11 11-11 11-11-11z" class="art-back-mark"/>'
            '<rect x="80" y="18" width="34" height="34" rx="6" class="art-tile"/>'
            '<polygon points="97,22 100,31 109,31 102,37 105,46 97,40 89,46 92,37 85,31 94,31"'
            ' class="art-star"/></svg>'
        ),
        levels={
            "easy": mcts(100),
            "medium": alphabeta(3),
            "hard": alphabeta(8, max_nodes=30_000, seconds=HARD_SECONDS),
        },
        action_kinds=("flip", "switch", "pass", "reveal"),
        # One round of the published 3x3 game (any lines / no_move): the stochastic solver
        # takes about ten minutes once. Matches and larger variants are out of reach.
        solved=(
            {"rounds": 1, "size": 3, "shapes": 3, "copies": 3, "line": 3}
            | {"must_flip": "no", "switch_limit": 0},
        ),
        # A match's rounds are independent: ground truth adds the one-round values.
        rounds="flipgames.games.flip_switch.match:split",
        # The standard game lets both players switch back and forth for ever (the audit's
        # optimal-cycle); docs/lab/flip-switch.md explains these fixes.
        candidate_fixes={
            "optimal-cycle": (
                {"must_flip": "yes"},
                {"must_flip": "yes", "switch_limit": 4},
            ),
        },
        # The first solve on the reference engines (FLIPGAMES_KERNEL=python), as measured
        # (docs/solvers.md); on the kernel it takes seconds.
        solve_costs=(
            SolveCost({"lines": "all"}, 6_443_347, "4 to 6 minutes", "3.5 GB"),
            SolveCost({"lines": "edges"}, 6_370_099, "4 to 6 minutes", "3.5 GB"),
        ),
        # Each round of a match is valued by the one-round solution where it is cached;
        # otherwise the review's engine is the reference expectiminimax (no compiled
        # search), which also searches every tile a chance node may show: a small budget.
        review=ReviewFacts(nodes=2_000),
        bench=BenchFacts(
            # Games between good players last hundreds of plies: few hard and perfect games.
            arena_games={"easy": 200, "medium": 100, "hard": 40, "perfect": 8},
            baseline_hard=alphabeta(8, max_nodes=30_000),
        ),
        lesson="flipgames.games.flip_switch.lessons:LESSON",
    ),
}
