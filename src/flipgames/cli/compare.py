"""``flipgames compare``: every combination of rule options side by side (docs/lab.md).

``flipgames compare GAME --vary name=a,b [--vary ...] [--option k=v ...] [--agents A,B
--games N] [--seed S] [--workers K | --ray ADDRESS] [--report DIR] [--json]``: the solved
value where the variant is solved, a self-play simulation otherwise; a table on the terminal,
a chart in the report.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from flipgames.cli.progress import TerminalProgress
from flipgames.cli.simulate import parse_agents
from flipgames.core.options import parse_option_pairs


def add_compare_arguments(parser: argparse.ArgumentParser, count: Callable[[str], int]) -> None:
    """The arguments of ``compare`` after GAME and ``--option`` (which ``main`` adds)."""
    parser.add_argument(
        "--vary",
        action="append",
        required=True,
        metavar="NAME=A,B",
        help="an option and the values to compare (repeat for more options)",
    )
    parser.add_argument(
        "--agents",
        default="easy,easy",
        metavar="A,B",
        help="levels for the variants that are not solved (default easy,easy)",
    )
    parser.add_argument(
        "--games", type=count, default=200, help="games per simulated variant (default 200)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=count, default=1, metavar="K", help="local processes (default 1)"
    )
    where.add_argument(
        "--ray", metavar="ADDRESS", help="run simulations as Ray tasks: auto or an address"
    )
    parser.add_argument(
        "--report", metavar="DIR", help="write an HTML + Markdown report with a chart here"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(run=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    """Compare the variants; print a table (or JSON); write the report if asked."""
    from flipgames.core.registry import make
    from flipgames.lab import compare
    from flipgames.lab.report import check_report_folder

    fixed = parse_option_pairs(args.option or [])
    make(args.game, fixed)  # the game and the fixed options, checked before anything runs
    vary = compare.parse_vary(args.game, args.vary, fixed)
    agents = parse_agents(args.agents)
    report = Path(args.report) if args.report else None
    if report is not None:
        check_report_folder(report)
    with TerminalProgress.for_command(json=args.json, quiet=args.quiet) as progress:
        variants = compare.compare(
            args.game,
            fixed,
            vary,
            agents,
            args.games,
            args.seed,
            workers=args.workers,
            ray=args.ray,
            progress=progress,
        )
    setup = compare.Setup(args.game, fixed, agents, args.seed, args.games)
    results = {
        "game": args.game,
        "options": fixed,
        "vary": vary,
        "agents": list(agents),
        "seed": args.seed,
        "games": args.games,
        "warnings": compare.warnings(variants),
        "variants": [v.to_json() for v in variants],
    }
    written = None
    if report is not None:
        from flipgames.lab.report import keep_and_report

        written = keep_and_report(
            report,
            results,
            f"{setup.title()}: options compared",
            lambda: (compare.markdown(setup, variants), compare.figures(setup, variants)),
            game=args.game,
        )
    failed = 1 if report is not None and written is None else 0
    if args.json:
        print(json.dumps(results))
        return failed
    print(f"{setup.title()}: options compared")
    for line in setup.lines():
        print("  " + line.removeprefix("- ").replace("**", "").replace("`", ""))
    rows = compare.table(variants)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for number, row in enumerate(rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        if number == 0:
            print("  ".join("-" * width for width in widths))
    for warning in compare.warnings(variants):
        print(f"warning: {warning}")
    if written is not None:
        print(f"report: {written}")
    return failed
