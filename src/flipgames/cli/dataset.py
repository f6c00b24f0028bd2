"""``flipgames dataset GAME [--out FILE.npz] [--limit N]``: solved positions for research.

Writes :func:`flipgames.lab.dataset.export`'s file: every solved position's observation
tensor, legal mask, value and best-action mask, with its metadata, as arrays that
``numpy.load`` reads without pickle (docs/research.md, "Ground truth as data"). Flip Switch
is one round (``rounds=1``) unless ``-o rounds=N`` is given. A game no solver answers is
refused before anything is computed, naming why.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from flipgames.cli.progress import TerminalProgress
from flipgames.core.game import Game
from flipgames.lab.dataset import DATASET_NODES, MATCH_ROWS, SAMPLED_ROWS, export


def add_dataset_command(
    game_command: Callable[[str, str], argparse.ArgumentParser],
    make_game: Callable[[argparse.Namespace], Game],
    count_type: Callable[[int], Callable[[str], int]],
) -> argparse.ArgumentParser:
    """Register ``flipgames dataset`` with the main parser's ``game_command`` helper;
    ``make_game`` takes a match game as its single round, as ``solve`` does."""
    p = game_command(
        "dataset",
        "export solved positions (observation, legal mask, value, best actions) to an .npz "
        "file numpy loads without pickle; Flip Switch: one round unless -o rounds=N",
    )
    p.add_argument("--out", metavar="FILE.npz", help="the file to write (default: GAME.npz)")
    p.add_argument(
        "--limit",
        type=count_type(1),
        metavar="N",
        help="at most N rows (default: every solved position; a match of rounds: "
        f"{MATCH_ROWS:,}; a game proved by search: {SAMPLED_ROWS:,} positions of seeded "
        "random games)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the random games a proved-by-search game's positions come from, and of "
        "the plays that end a match's earlier rounds (default 0)",
    )
    p.add_argument(
        "--max-nodes",
        type=count_type(1),
        default=DATASET_NODES,
        metavar="N",
        help="exact-search nodes per position of a game proved by search",
    )
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(run=lambda a: cmd_dataset(a, make_game(a)))
    return p


def cmd_dataset(args: argparse.Namespace, game: Game) -> int:
    path = args.out or f"{game.name}.npz"
    with TerminalProgress.for_command(json=args.json, quiet=args.quiet) as progress:
        summary = export(
            game,
            path,
            limit=args.limit,
            seed=args.seed,
            max_nodes=args.max_nodes,
            progress=progress,
        )
    report: dict[str, Any] = {
        "path": str(summary.path),
        "game": game.name,
        "options": dict(game.options),
        "solver": summary.solver,
        "rows": summary.rows,
        "complete": summary.complete,
        "sampled": summary.sampled,
        "unanswered": summary.unanswered,
        "bytes": summary.path.stat().st_size,
    }
    if args.json:
        print(json.dumps(report))
        return 0
    options = " ".join(f"{k}={v}" for k, v in game.options.items())
    if summary.complete:
        which = "every solved position with a player to move"
    elif summary.sampled:
        which = f"positions of random games (seed {args.seed}) the exact search proves"
    else:
        which = "the positions nearest the start (breadth first; a match: in every situation)"
    print(f"{game.title} {options}".rstrip() + f" ({summary.solver} solver): {which}")
    if summary.unanswered:
        print(f"  {summary.unanswered:,} positions tried were beyond the search's budget")
    print(f"  {summary.rows:,} rows written to {summary.path} ({report['bytes'] / 1e6:.1f} MB)")
    return 0
