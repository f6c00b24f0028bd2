"""FlipFlop 5x5 and 3x3: two-faced pieces that move like a rook or a bishop and flip.

``MANIFESTS`` holds what the web, the agents and the solver catalogue know about each size
(see :mod:`flipgames.core.manifest`).

>>> from flipgames import make
>>> make("flipflop").title, make("flipflop-3x3").title
('FlipFlop', 'FlipFlop 3x3')
"""

from flipgames.core.manifest import (
    HARD_SECONDS,
    BenchFacts,
    Manifest,
    PuzzleSpec,
    alphabeta,
    mcts,
)

#: The kinds of action_info: a move, or a move onto an enemy piece.
ACTION_KINDS = ("move", "capture")

MANIFESTS = {
    "flipflop": Manifest(
        # Upside down the goals change owners: only the left-right mirror keeps the rules.
        proof_symmetry="mirror",
        game="flipgames.games.flipflop.rules:FlipFlop",
        board="flipflop",
        docs="flipflop",
        # The pitch shows the piece's own symbol, a multiplication sign, not the letter x.
        pitch="A chess-like duel on 5x5. Every piece moves as a rook (+) or a bishop (×) and "  # noqa: RUF001
        "turns over after each move. Land on the enemy goal and survive a turn.",
        art=(
            '<svg viewBox="0 0 120 80">'
            '<rect x="4" y="4" width="112" height="72" rx="10" class="art-board"/>'
            '<circle cx="40" cy="40" r="22" class="art-white"/>'
            '<path d="M40 24v32M24 40h32" class="art-mark-dark"/>'
            '<circle cx="80" cy="40" r="22" class="art-black"/>'
            '<path d="M69 29l22 22M91 29L69 51" class="art-mark-light"/></svg>'
        ),
        levels={
            "easy": mcts(100, rollout_limit=40),
            "medium": alphabeta(3),
            "hard": alphabeta(12, max_nodes=100_000, seconds=HARD_SECONDS, compiled=True),
        },
        action_kinds=ACTION_KINDS,
        bench=BenchFacts(
            perft_depth=5,
            # hard thinks about a second a move: as many games as the arena's time allows.
            arena_games={"easy": 100, "medium": 100, "hard": 24},
            baseline_hard=alphabeta(12, max_nodes=100_000),
        ),
        lesson="flipgames.games.flipflop.lessons:LARGE",
    ),
    "flipflop-3x3": Manifest(
        # As on 5x5: the mirror alone.
        proof_symmetry="mirror",
        game="flipgames.games.flipflop.rules:FlipFlop3x3",
        board="flipflop",
        docs="flipflop",
        pitch="The designer's favourite: FlipFlop on a tiny 3x3 board. Fully solved, so the "
        "analysis switch shows the perfect-play value of every move.",
        art=(
            '<svg viewBox="0 0 120 80">'
            '<rect x="30" y="4" width="72" height="72" rx="8" class="art-board"/>'
            '<path d="M54 4v72M78 4v72M30 28h72M30 52h72" class="art-grid"/>'
            '<circle cx="42" cy="64" r="9" class="art-white"/>'
            '<circle cx="66" cy="64" r="9" class="art-white"/>'
            '<circle cx="90" cy="64" r="9" class="art-white"/>'
            '<circle cx="42" cy="16" r="9" class="art-black"/>'
            '<circle cx="66" cy="16" r="9" class="art-black"/>'
            '<circle cx="90" cy="16" r="9" class="art-black"/></svg>'
        ),
        levels={
            "easy": mcts(30),
            "medium": mcts(300),
            "hard": alphabeta(20, max_nodes=200_000, seconds=HARD_SECONDS, compiled=True),
        },
        action_kinds=ACTION_KINDS,
        # Retrograde analysis finishes in seconds.
        solved=({},),
        # Wins in at most 6 of the mover's moves, from the retrograde solution.
        puzzles=PuzzleSpec("solved-win", kind="win-in-n", label="win in N", max_moves=6),
        bench=BenchFacts(
            perft_depth=8,
            arena_games={"easy": 400, "medium": 400, "hard": 400, "perfect": 200},
            baseline_hard=alphabeta(20, max_nodes=200_000),
        ),
        lesson="flipgames.games.flipflop.lessons:SMALL",
    ),
}
