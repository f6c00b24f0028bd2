"""Rubik's Flip: place double-sided tiles, flip the opponent's, make a locked row of three.

See ``docs/games/rubiks-flip.md`` for the rules as implemented, the notation and the options.
``MANIFESTS`` holds what the web and the agents know about it (:mod:`flipgames.core.manifest`).
"""

from flipgames.core.game import State
from flipgames.core.manifest import (
    HARD_SECONDS,
    BenchFacts,
    Manifest,
    PuzzleSpec,
    alphabeta,
    mcts,
)


def turns_left(state: State) -> int:
    """The turns left at most: the empty squares, since every turn places one tile."""
    squares = state.board_view(None)["squares"]
    return sum(1 for square in squares.values() if square is None)


MANIFESTS = {
    "rubiks-flip": Manifest(
        game="flipgames.games.rubiks_flip.rules:RubiksFlip",
        board="rubiks-flip",
        docs="rubiks-flip",
        pitch="Place your two-colour tiles, flip your rival's. Three of one colour in a locked "
        "row wins.",
        art=(
            '<svg viewBox="0 0 120 80">'
            '<rect x="20" y="6" width="32" height="32" rx="5" class="art-red"/>'
            '<rect x="56" y="6" width="32" height="32" rx="5" class="art-yellow"/>'
            '<rect x="20" y="42" width="32" height="32" rx="5" class="art-blue"/>'
            '<rect x="56" y="42" width="32" height="32" rx="5" class="art-whitetile"/>'
            '<rect x="92" y="24" width="20" height="32" rx="4" class="art-red"'
            ' transform="skewY(-12) translate(0 22)"/></svg>'
        ),
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
                "draws, no loss) while depth 4 only drew with it (24 draws in 24): "
                "studies/ai-levels/README.md.",
            ),
        },
        action_kinds=("place",),
        # Too big to enumerate; its kernel's exact search proves most positions (agents.proof).
        proved_by_search=True,
        # Endings with 2 to 4 empty squares (with one left the only choices are a flip and a
        # colour), searched exactly by the compiled alpha-beta search.
        puzzles=PuzzleSpec(
            "search-endings",
            kind="win-in-n",
            label="win in N",
            min_moves=2,
            max_moves=4,
            moves_left=turns_left,
        ),
        bench=BenchFacts(
            perft_depth=3,
            arena_games={"easy": 200, "medium": 200, "hard": 30},
            baseline_hard=alphabeta(5, max_nodes=150_000, depth_step=2),
        ),
        lesson="flipgames.games.rubiks_flip.lessons:LESSON",
    ),
}
