"""``flipgames warmup``: compile the kernels and build the tables before anyone waits for a move.

A fresh install compiles each game's kernels (numba) the first time they run, about 6 CPU
seconds for a first ``hard`` move, and FlipFlop 5x5's ``hard`` plays from endgame tables that
take seconds to build. Moves never pay for that: ``hard`` plays without the tables until they
exist (:mod:`flipgames.agents.endgame`), and this command does the work once per machine:

- builds (or loads) the endgame tables of the games that have them;
- builds every level of every game (or of the games named), which solves what a level plays
  from (Checkered Flag's ``hard``, FlipFlop 3x3's ``perfect``: seconds) but never a long solve
  (``perfect`` whose solution is not cached yet is left to ``flipgames solve``);
- plays a short game of each level against itself on a small node budget, which compiles
  every kernel those levels run (numba writes them to its disk cache, so the next process
  loads them instead of compiling).

It is idempotent and, once done, fast: the tables and compiled code are read from the disk
caches. ``flipgames serve`` runs it in the background at start (the arcade answers
meanwhile); ``--quiet`` prints nothing, otherwise one line a game.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any, Final

from flipgames.agents.levels import Budget, levels_for, make_level_agent
from flipgames.cli.progress import TerminalProgress
from flipgames.core.game import Game, sample_chance
from flipgames.core.progress import Progress, silent
from flipgames.core.registry import game_names, make
from flipgames.solvers import catalog
from flipgames.solvers.endgame import endgame_kernel, endgame_table

#: Plies of the short game played at each level, and the node budget of its moves: enough to
#: reach every kernel path the level runs, a few milliseconds a move once compiled.
WARM_PLIES: Final = 40
WARM_NODES: Final = 300


def warm_game(game: Game, progress: Progress = silent) -> list[str]:
    """Do the warmup of ``game`` (see the module docstring); what was done, in words."""
    done = []
    kernel = endgame_kernel(game)
    if kernel is not None:
        endgame_table(game, progress=progress)
        done.append(f"endgame tables to {kernel.endgame_pieces} pieces")
    for level in levels_for(game):
        if level == "perfect" and not _quick_perfect(game):
            done.append("perfect skipped (flipgames solve builds it)")
            continue
        _play(game, level, progress)
    done.append(f"levels {', '.join(levels_for(game))} played")
    return done


def _quick_perfect(game: Game) -> bool:
    """Whether warming ``perfect`` is quick: a solved game whose solution can be had now
    (loaded, quick to solve or cached; a level before may have just solved it). A game proved
    by search (Rubik's Flip) is not: its ``hard`` compiled the same exact search."""
    return catalog.is_solved(game) and catalog.solution_ready(game)


def _play(game: Game, level: str, progress: Progress) -> None:
    """A short seeded game of ``level`` against itself on :data:`WARM_NODES` a move."""
    rng = random.Random(f"warmup:{game.name}:{level}")
    budget = Budget(nodes=WARM_NODES)
    agent = make_level_agent(game, level, rng, progress, budget=budget)
    state = game.new_initial_state()
    while not state.is_terminal() and len(state.history) < WARM_PLIES:
        if state.is_chance_node():
            state = state.apply(sample_chance(state, rng))
        else:
            state = state.apply(agent.choose(state))


def cmd_warmup(args: argparse.Namespace) -> int:
    names = args.games or list(game_names())
    games = [make(name) for name in names]  # an unknown name fails before any work
    with TerminalProgress.for_command(quiet=args.quiet) as progress:
        for game in games:
            started = time.process_time()
            done = warm_game(game, progress)
            if not args.quiet:
                spent = time.process_time() - started
                print(f"{game.name}: {'; '.join(done)} ({spent:.1f} CPU s)", flush=True)
    return 0


def add_warmup_command(sub: Any) -> None:
    """Register ``flipgames warmup``."""
    text = "compile the kernels and build the tables the levels use (once per machine)"
    p = sub.add_parser("warmup", help=text, description=text)
    p.add_argument("games", nargs="*", metavar="GAME", help="only these games (default: all)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(run=cmd_warmup)
