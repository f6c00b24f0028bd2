"""``flipgames arena``: two agents play a seeded match with alternating seats."""

from __future__ import annotations

import argparse
import json
import random

from flipgames.agents.arena import play_match
from flipgames.agents.external import PREFIX, seat_agent
from flipgames.cli.agents import check_level, level_agent
from flipgames.cli.progress import TerminalProgress
from flipgames.core.game import Game


def cmd_arena(args: argparse.Namespace, game: Game) -> int:
    # Check both levels first, so a bad one fails before any game is played; then build each
    # level once, which announces and shows a first exact solve (the perfect level). An
    # outside engine (engine:CMD) is started only to play: one that does not start stops the
    # first game with the reason.
    for level in (args.a, args.b):
        if not level.startswith(PREFIX):
            check_level(game, level)
    for level in (args.a, args.b):
        if not level.startswith(PREFIX):
            level_agent(game, level, random.Random(0), quiet=args.json or args.quiet)
    movetime = args.movetime
    with TerminalProgress.for_command(json=args.json, quiet=args.quiet) as progress:
        result = play_match(
            game,
            lambda rng: seat_agent(game, args.a, rng, progress, movetime),
            lambda rng: seat_agent(game, args.b, rng, progress, movetime),
            games=args.games,
            seed=args.seed,
            progress=progress,
        )
    if args.json:
        print(json.dumps({**result.to_json(), "a": args.a, "b": args.b, "movetime": movetime}))
        return 0
    low, high = result.interval
    print(
        f"{game.title}: {args.a} (A) against {args.b} (B), {result.games} games, seed {args.seed}"
    )
    print(f"  A wins {result.wins}, draws {result.draws}, loses {result.losses}")
    print(f"  A's score {result.score:.3f}, 95% interval {low:.3f} to {high:.3f} (Wilson)")
    budget = f", {movetime} ms a move" if movetime is not None else ""
    print(f"  seed {args.seed}{budget}, {result.seconds:.1f} s")
    return 0
