"""``flipgames simulate``: seeded self-play of two levels, measured for a game designer.

``flipgames simulate GAME --agents A,B --games N [--option k=v ...] [--seed S]
[--workers K | --ray ADDRESS] [--metrics default|all] [--report DIR] [--json]``
(docs/lab.md). Ctrl-C stops the
games, prints what the finished ones showed (and writes the report) and exits with 130. A
report that fails is one warning line and exit code 1; the results are printed all the same
and kept in the report folder's ``results.json``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from flipgames.cli.progress import TerminalProgress
from flipgames.core.errors import FlipgamesError, quote
from flipgames.core.game import Game

#: The exit code after Ctrl-C (as every command: see flipgames.cli.main).
EXIT_INTERRUPTED = 130


def parse_agents(text: str) -> tuple[str, str]:
    """``"A,B"`` as two level names.

    >>> parse_agents("easy, hard")
    ('easy', 'hard')
    >>> parse_agents("easy")
    Traceback (most recent call last):
    ...
    flipgames.core.errors.FlipgamesError: --agents 'easy': give two levels, e.g. --agents easy,hard
    """
    names = [name.strip() for name in text.split(",")]
    if len(names) != 2 or not all(names):
        raise FlipgamesError(f"--agents {quote(text)}: give two levels, e.g. --agents easy,hard")
    return names[0], names[1]


def add_simulate_arguments(parser: argparse.ArgumentParser, count: Callable[[str], int]) -> None:
    """The arguments of ``simulate`` after GAME and ``--option`` (which ``main`` adds)."""
    parser.add_argument(
        "--agents",
        default="easy,easy",
        metavar="A,B",
        help="two levels: random, easy, medium, hard, perfect (solved games) (default easy,easy)",
    )
    parser.add_argument("--games", type=count, default=1000, help="number of games (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=count, default=1, metavar="K", help="local processes (default 1)"
    )
    where.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run as Ray tasks: auto (a local Ray) or a cluster address (the lab extra)",
    )
    parser.add_argument(
        "--report", metavar="DIR", help="write an HTML + Markdown report with charts here"
    )
    parser.add_argument(
        "--metrics",
        choices=("default", "all"),
        default="default",
        help="Ludii's metrics: default (all but clarity) or all (clarity evaluates every "
        "legal action of every move: slower) (default: default)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def cmd_simulate(args: argparse.Namespace, game: Game) -> int:
    """Run the simulation, print it (text or JSON), write the report if asked."""
    from flipgames.lab.report import check_report_folder
    from flipgames.lab.simulate import check_agents, simulate

    agents = parse_agents(args.agents)
    check_agents(game, agents)
    report = Path(args.report) if args.report else None
    if report is not None:
        check_report_folder(report)
    with TerminalProgress.for_command(json=args.json, quiet=args.quiet) as progress:
        result = simulate(
            game,
            agents,
            args.games,
            args.seed,
            workers=args.workers,
            ray=args.ray,
            progress=progress,
            metric_set=args.metrics,
        )
    if result.games == 0:
        raise KeyboardInterrupt  # nothing finished: nothing to report
    written = None
    if report is not None:
        from flipgames.lab.report import keep_and_report, simulation_figures, simulation_markdown

        title = f"{game.name}: {agents[0]} against {agents[1]}, {result.games:,} games"
        written = keep_and_report(
            report,
            result.to_json(),
            title,
            lambda: (simulation_markdown(result), simulation_figures(result)),
            game=game.name,
        )
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        from flipgames.lab.report import simulation_text

        if result.interrupted:
            print(f"interrupted: {result.games:,} of {result.requested:,} games finished")
        print(f"{game.title}: {agents[0]} (A) against {agents[1]} (B)")
        for line in simulation_text(result):
            print("  " + line.removeprefix("- ").replace("**", ""))
        if written is not None:
            print(f"report: {written}")
    if result.interrupted:
        return EXIT_INTERRUPTED
    return 1 if report is not None and written is None else 0
