"""``flipgames audit``: a designer's audit of a rule set (see :mod:`flipgames.lab.audit`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from flipgames.cli.progress import TerminalProgress
from flipgames.core.errors import quote
from flipgames.core.game import Game


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {quote(text)}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {value}")
    return value


def add_audit_command(sub: Any, game_of: Callable[[argparse.Namespace], Game]) -> None:
    """Register ``audit`` on the ``flipgames`` subparsers; ``game_of`` builds the game from
    the parsed arguments (one round of Flip Switch unless ``-o rounds=N``)."""
    help_text = (
        "audit a rule set for a game designer: exhaustive where the game is solved here, "
        "sampled otherwise; findings with replayable examples"
    )
    p = sub.add_parser("audit", help=help_text, description=help_text)
    p.add_argument("game", metavar="GAME", help="the game to audit")
    p.add_argument("--option", "-o", action="append", metavar="NAME=VALUE", help="a rule option")
    p.add_argument(
        "--method",
        choices=("auto", "exhaustive", "sampled"),
        default="auto",
        help="auto (default): exhaustive where the game is solved here, else sampled",
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the sampled games (default 1)")
    p.add_argument(
        "--games", type=_positive, default=400, help="random playouts when sampled (default 400)"
    )
    p.add_argument(
        "--level-games",
        type=_positive,
        default=20,
        help="easy-vs-easy playouts when sampled (default 20)",
    )
    p.add_argument(
        "--fixes",
        action="store_true",
        help="also solve the candidate fixes of the holes found (Flip Switch: minutes)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(run=lambda a: cmd_audit(a, game_of(a)))


def cmd_audit(args: argparse.Namespace, game: Game) -> int:
    # The lab (numpy, scipy, the solvers) loads only when an audit runs.
    from flipgames.lab.audit import audit, describe

    with TerminalProgress.for_command(json=args.json, quiet=args.quiet) as progress:
        result = audit(
            game,
            method=args.method,
            seed=args.seed,
            random_games=args.games,
            level_games=args.level_games,
            fixes=args.fixes,
            progress=progress,
        )
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(describe(result))
    return 0
