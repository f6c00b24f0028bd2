"""Flip Switch: flip face-down tiles and switch neighbours to line up three of a shape.

The registry loads :class:`flipgames.games.flip_switch.rules.FlipSwitch` as ``flip-switch``.
``MANIFESTS`` holds what the web, the agents and the solver catalogue know about it
(:mod:`flipgames.core.manifest`).
"""

from flipgames.core.manifest import HARD_SECONDS, Manifest, alphabeta, mcts

MANIFESTS = {
    "flip-switch": Manifest(
        board="flip-switch",
        docs="flip-switch",
        pitch="Nine tiles face down. Flip to reveal, switch neighbours to line up three of a "
        "shape. First to two shapes wins.",
        levels={
            "easy": mcts(100),
            "medium": alphabeta(3),
            "hard": alphabeta(8, max_nodes=30_000, seconds=HARD_SECONDS),
        },
        # One round of the published 3x3 game (any lines / no_move): the stochastic solver
        # takes about ten minutes once. Matches and larger variants are out of reach.
        solved=(
            {"rounds": 1, "size": 3, "shapes": 3, "copies": 3, "line": 3}
            | {"must_flip": "no", "switch_limit": 0},
        ),
    ),
}
