"""``flipgames arena``: two agents play a seeded match with alternating seats."""

from __future__ import annotations

import argparse
import json
import random
import sys

from flipgames.agents.arena import play_match
from flipgames.agents.external import seat_agent
from flipgames.core.game import Game


def cmd_arena(args: argparse.Namespace, game: Game) -> int:
    # Build one agent of each kind first, so a bad level (or an engine:CMD that does not
    # start) fails before any game is played.
    for level in (args.a, args.b):
        seat_agent(game, level, random.Random(0))
    say = None if args.json or args.quiet else (lambda line: print(line, file=sys.stderr))
    result = play_match(
        game,
        lambda rng: seat_agent(game, args.a, rng),
        lambda rng: seat_agent(game, args.b, rng),
        games=args.games,
        seed=args.seed,
        progress=say,
    )
    if args.json:
        print(json.dumps({**result.to_json(), "a": args.a, "b": args.b}))
        return 0
    low, high = result.interval
    print(
        f"{game.title}: {args.a} (A) against {args.b} (B), {result.games} games, seed {args.seed}"
    )
    print(f"  A wins {result.wins}, draws {result.draws}, loses {result.losses}")
    print(f"  A's score {result.score:.3f}, 95% interval {low:.3f} to {high:.3f} (Wilson)")
    print(f"  seed {args.seed}, {result.seconds:.1f} s")
    return 0
