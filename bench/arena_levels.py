"""Strength evidence: each level against the one below it, per game (the docs/ai.md tables).

Run: ``.venv/bin/python bench/arena_levels.py [--games NAME ...] [--pairs hard-medium ...]
[--scale X] [--seed N]``. For every game and every pair of adjacent levels (easy-random,
medium-easy, hard-medium, perfect-hard where ``perfect`` exists) it plays a seeded match with
alternating seats and prints one Markdown table row: the stronger level's wins, draws and
losses, its score with the 95% Wilson interval, the number of games, the seed, the seconds per
move of each side and the wall-clock time. ``--scale`` multiplies the number of games; the
games per match are each game's own (its manifest's ``bench.arena_games``, sized for about
30-40 CPU minutes in all on a 2-core machine), :data:`DEFAULT_GAMES` where it sets none.

Every match is reproducible from its seed: the levels have iteration and node budgets, not
time limits. Progress goes to standard error.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from itertools import pairwise

from _common import cpu_name
from flipgames import game_class, game_names, make
from flipgames.agents import levels_for, make_level_agent, play_match
from flipgames.core.game import Game
from flipgames.core.manifest import manifest_for

#: Games per match for a level whose game's manifest sets no count.
DEFAULT_GAMES = 50


def ladder(game: Game) -> list[tuple[str, str]]:
    """(stronger, weaker) for each pair of adjacent levels, ``random`` at the bottom."""
    levels = ["random", *levels_for(game)]
    return [(stronger, weaker) for weaker, stronger in pairwise(levels)]


def row(game: Game, stronger: str, weaker: str, games: int, seed: int) -> str:
    """Play one match and format its Markdown table row."""

    def progress(message: str, *, done: int | None = None, total: int | None = None) -> None:
        print(f"  {game.name} {stronger}-{weaker} {message}", file=sys.stderr)

    result = play_match(
        game,
        lambda rng: make_level_agent(game, stronger, rng),
        lambda rng: make_level_agent(game, weaker, rng),
        games=games,
        seed=seed,
        progress=progress,
    )
    low, high = result.interval
    return (
        f"| {game.name} | {stronger} vs {weaker} | {result.wins} / {result.draws} / "
        f"{result.losses} | {result.score:.3f} ({low:.3f}-{high:.3f}) | {result.games} | "
        f"{seed} | {result.seconds_per_move(0):.3f} / {result.seconds_per_move(1):.3f} | "
        f"{result.seconds:.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="*", default=game_names(), help="games to test")
    parser.add_argument(
        "--pairs", nargs="*", help="only these pairs, as stronger-weaker (e.g. hard-medium)"
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the game counts")
    parser.add_argument("--seed", type=int, default=2026, help="seed of every match")
    args = parser.parse_args()
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores; {platform.system()}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print()
    print(
        "| game | match (A vs B) | A won / drew / lost | A's score (95% CI) | games | seed "
        "| s/move A / B | seconds |"
    )
    print("| --- | --- | --- | --- | ---: | ---: | --- | ---: |")
    started = time.perf_counter()
    for name in args.games:
        # One round of a game played in matches (Flip Switch): the levels, the perfect one
        # included, are compared round by round, as docs/ai.md reports.
        single = any(o.name == "rounds" for o in game_class(name).option_spec)
        game = make(name, {"rounds": 1} if single else {})
        for stronger, weaker in ladder(game):
            if args.pairs and f"{stronger}-{weaker}" not in args.pairs:
                continue
            planned = manifest_for(name).bench.arena_games.get(stronger, DEFAULT_GAMES)
            games = max(2, round(planned * args.scale))
            print(row(game, stronger, weaker, games, args.seed), flush=True)
    print(f"\ntotal {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
