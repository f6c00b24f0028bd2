"""FlipFour: four in a row with pieces that flip between rook and bishop (5x5, drops and moves).

``MANIFESTS`` holds what the web and the agents know about it (:mod:`flipgames.core.manifest`).

>>> from flipgames import make
>>> make("flipfour").title
'FlipFour'
"""

from flipgames.core.manifest import HARD_SECONDS, BenchFacts, Manifest, alphabeta, mcts

MANIFESTS = {
    "flipfour": Manifest(
        # No goal and no direction: the square's 8 symmetries keep the rules.
        proof_symmetry="square",
        game="flipgames.games.flipfour.rules:FlipFour",
        board="flipfour",
        docs="flipfour",
        pitch="Four two-faced pieces each. Drop them or move them, rook or bishop style, and "
        "make four in a line first.",
        art=(
            '<svg viewBox="0 0 120 80">'
            '<rect x="4" y="4" width="112" height="72" rx="10" class="art-board"/>'
            '<circle cx="22" cy="60" r="11" class="art-white"/>'
            '<circle cx="46" cy="48" r="11" class="art-white"/>'
            '<circle cx="70" cy="36" r="11" class="art-white"/>'
            '<circle cx="94" cy="24" r="11" class="art-white"/>'
            '<path d="M16 66l84-48" class="art-line"/></svg>'
        ),
        levels={
            "easy": mcts(100, rollout_limit=40),
            "medium": alphabeta(2),
            "hard": alphabeta(12, max_nodes=80_000, seconds=HARD_SECONDS, compiled=True),
        },
        action_kinds=("drop", "move"),
        bench=BenchFacts(
            perft_depth=3,
            # hard thinks about a second a move: as many games as the arena's time allows.
            arena_games={"easy": 100, "medium": 100, "hard": 24},
            baseline_hard=alphabeta(12, max_nodes=80_000),
        ),
        lesson="flipgames.games.flipfour.lessons:LESSON",
    ),
}
