"""``flipgames puzzle GAME [--count N] [--seed S] [--json]``: puzzles checked by exact solvers.

See :mod:`flipgames.lab.puzzles` for how puzzles are found. The text output shows each
puzzle's position (the actions from the start and the board), the question, then the answer
and every first move's value; ``--json`` prints a list of puzzles
(:meth:`~flipgames.lab.puzzles.Puzzle.to_json`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from flipgames.cli.progress import TerminalProgress
from flipgames.core.game import Game
from flipgames.lab.puzzles import MAX_COUNT, PUZZLE_GAMES, make_puzzles


def add_puzzle_command(
    game_command: Any, make_game: Any, count_type: Any
) -> argparse.ArgumentParser:
    """Register ``flipgames puzzle`` with the main parser's ``game_command`` helper."""
    p: argparse.ArgumentParser = game_command(
        "puzzle",
        "make 'win in N' and 'best gear' puzzles checked by the exact solvers "
        f"({', '.join(PUZZLE_GAMES)})",
    )
    p.add_argument(
        "--count", type=count_type(1), default=1, help=f"puzzles to make, 1 to {MAX_COUNT}"
    )
    p.add_argument(
        "--seed", type=int, default=1, help="seed: puzzle i comes from seed + i (default 1)"
    )
    p.add_argument("--json", action="store_true", help="print the puzzles as a JSON list")
    p.set_defaults(run=lambda a: cmd_puzzle(a, make_game(a)))
    return p


def cmd_puzzle(args: argparse.Namespace, game: Game) -> int:
    with TerminalProgress.for_command(json=args.json) as progress:
        puzzles = make_puzzles(game, args.count, args.seed, progress)
    if args.json:
        print(json.dumps([p.to_json() for p in puzzles], indent=2))
        return 0
    for number, puzzle in enumerate(puzzles, 1):
        if number > 1:
            print()
        print(f"Puzzle {number}: {game.title}, seed {puzzle.seed}")
        print("Position: " + (" ".join(puzzle.actions) or "(the start)"))
        print(puzzle.board.rstrip())
        print(puzzle.question)
        print(f"Answer: {puzzle.answer}")
        print(puzzle.explanation())
    return 0
