"""FlipFour: four in a row with pieces that flip between rook and bishop (5x5, drops and moves).

``MANIFESTS`` holds what the web and the agents know about it (:mod:`flipgames.core.manifest`).

>>> from flipgames import make
>>> make("flipfour").title
'FlipFour'
"""

from flipgames.core.manifest import HARD_SECONDS, Manifest, alphabeta, mcts

MANIFESTS = {
    "flipfour": Manifest(
        board="flipfour",
        docs="flipfour",
        pitch="Four two-faced pieces each. Drop them or move them, rook or bishop style, and "
        "make four in a line first.",
        levels={
            "easy": mcts(100, rollout_limit=40),
            "medium": alphabeta(2),
            "hard": alphabeta(12, max_nodes=80_000, seconds=HARD_SECONDS, compiled=True),
        },
    ),
}
