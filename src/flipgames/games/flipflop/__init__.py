"""FlipFlop 5x5 and 3x3: two-faced pieces that move like a rook or a bishop and flip.

``MANIFESTS`` holds what the web, the agents and the solver catalogue know about each size
(see :mod:`flipgames.core.manifest`).

>>> from flipgames import make
>>> make("flipflop").title, make("flipflop-3x3").title
('FlipFlop', 'FlipFlop 3x3')
"""

from flipgames.core.manifest import HARD_SECONDS, Manifest, alphabeta, mcts

MANIFESTS = {
    "flipflop": Manifest(
        board="flipflop",
        docs="flipflop",
        # The pitch shows the piece's own symbol, a multiplication sign, not the letter x.
        pitch="A chess-like duel on 5x5. Every piece moves as a rook (+) or a bishop (×) and "  # noqa: RUF001
        "turns over after each move. Land on the enemy goal and survive a turn.",
        levels={
            "easy": mcts(100, rollout_limit=40),
            "medium": alphabeta(3),
            "hard": alphabeta(12, max_nodes=100_000, seconds=HARD_SECONDS, compiled=True),
        },
    ),
    "flipflop-3x3": Manifest(
        board="flipflop",
        docs="flipflop",
        pitch="The designer's favourite: FlipFlop on a tiny 3x3 board. Fully solved, so the "
        "analysis switch shows the perfect-play value of every move.",
        levels={
            "easy": mcts(30),
            "medium": mcts(300),
            "hard": alphabeta(20, max_nodes=200_000, seconds=HARD_SECONDS, compiled=True),
        },
        # Retrograde analysis finishes in seconds.
        solved=({},),
    ),
}
