"""Flipsiders: Checkered Flag: a two-car race with gear boxes, spinners, crashes and no-passing
zones. Rules in :mod:`.rules`, notation and action ids in :mod:`.notation`, tracks and spinners
(JSON data files under ``data/``) in :mod:`.tracks`, the text picture in :mod:`.render`.
``MANIFESTS`` holds what the web, the agents and the solver catalogue know about it
(:mod:`flipgames.core.manifest`).

>>> from flipgames import make
>>> make("checkered-flag").title
'Flipsiders: Checkered Flag'
"""

from flipgames.core.manifest import (
    HARD_SECONDS,
    BenchFacts,
    Manifest,
    PuzzleSpec,
    alphabeta,
    mcts,
    solved,
)

#: The solution size up to which medium and hard play from it: the default track with up to
#: 2 laps (294,649 positions, about 1.5 s to solve on first use, then cached on disk).
SOLVED_LEVEL_POSITIONS = 300_000

MANIFESTS = {
    "checkered-flag": Manifest(
        game="flipgames.games.checkered_flag.rules:CheckeredFlag",
        board="checkered-flag",
        docs="checkered-flag",
        pitch="A push-your-luck race: shift gears, spin and dodge the crash spaces. Luck "
        "decides most races: hard shifts perfectly and still wins only 57 in 100 against "
        "medium.",
        art=(
            '<svg viewBox="0 0 120 80"><path d="M30 10v64" class="art-pole"/>'
            '<g transform="translate(32 10)"><rect width="64" height="40" class="art-flag"/>'
            '<path d="M0 0h10v10H0zM20 0h10v10H20zM40 0h10v10H40zM10 10h10v10H10z'
            "M30 10h10v10H30zM50 10h10v10H50zM0 20h10v10H0zM20 20h10v10H20zM40 20h10v10H40z"
            'M10 30h10v10H10zM30 30h10v10H30zM50 30h10v10H50z" class="art-checks"/></g></svg>'
        ),
        # Luck leaves little room: perfect play wins only 51.3% against always the highest
        # gear. The old hard (depth-6 expectiminimax) was level with perfect play (0.519 over
        # 800 games), so hard now plays the solution; medium errs on purpose, the best gear
        # 60% of the time, else a random one, which puts it between easy and hard
        # (studies/ai-levels/README.md has the old matches, docs/ai.md the current ones).
        levels={
            "easy": mcts(30),
            "medium": solved(mcts(100), SOLVED_LEVEL_POSITIONS, best_share=0.6),
            "hard": solved(alphabeta(6, seconds=HARD_SECONDS), SOLVED_LEVEL_POSITIONS),
        },
        action_kinds=("gear", "leave-crash", "spin", "start-spin"),
        # The stochastic solver finishes every track and lap count here.
        solved=({},),
        # Which gear gives the best exact chance to win.
        puzzles=PuzzleSpec("best-choice", kind="best-gear", label="best gear", choice="gear"),
        bench=BenchFacts(
            # Mostly luck and cheap levels: many games so that the intervals separate.
            arena_games={"easy": 1000, "medium": 1000, "hard": 1000, "perfect": 1000},
            baseline_hard=alphabeta(6),
        ),
        lesson="flipgames.games.checkered_flag.lessons:LESSON",
    ),
}
