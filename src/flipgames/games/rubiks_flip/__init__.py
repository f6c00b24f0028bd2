"""Rubik's Flip: place double-sided tiles, flip the opponent's, make a locked row of three.

See ``docs/games/rubiks-flip.md`` for the rules as implemented, the notation and the options.
``MANIFESTS`` holds what the web and the agents know about it (:mod:`flipgames.core.manifest`).
"""

from flipgames.core.manifest import HARD_SECONDS, Manifest, alphabeta, mcts

MANIFESTS = {
    "rubiks-flip": Manifest(
        board="rubiks-flip",
        docs="rubiks-flip",
        pitch="Place your two-colour tiles, flip your rival's. Three of one colour in a locked "
        "row wins.",
        levels={
            "easy": mcts(20),
            "medium": mcts(100),
            "hard": alphabeta(
                5,
                max_nodes=150_000,
                depth_step=2,
                seconds=HARD_SECONDS,
                compiled=True,
                note="Odd horizons only: in seeded matches depth 3 beat depth 2 (13 wins, 87 "
                "draws, no loss) while depth 4 only drew with it (24 draws in 24): docs/ai.md.",
            ),
        },
    ),
}
