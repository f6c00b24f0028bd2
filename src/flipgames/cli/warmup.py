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

It is idempotent and, once done, fast: a game warmed once is not warmed again while the
package's source files are unchanged (a stamp file in the solver cache folder,
:func:`flipgames.solvers.cache.cache_dir`, names their sizes and modification times, which
is also what numba's cache checks, for the packages with compiled code); ``--force`` warms
it anyway. ``flipgames serve`` runs it
in the background at start (:func:`start_in_background`: the arcade answers meanwhile, and a
move made before it is done compiles what it runs itself, never builds tables); ``--quiet``
prints nothing, otherwise one line a game.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

import flipgames
from flipgames.agents.levels import Budget, levels_for, make_level_agent
from flipgames.cli.progress import TerminalProgress
from flipgames.core.game import Game, sample_chance
from flipgames.core.progress import Progress, silent
from flipgames.core.registry import game_names, make
from flipgames.solvers import catalog
from flipgames.solvers.cache import cache_path
from flipgames.solvers.endgame import endgame_kernel, endgame_table

#: Plies of the short game played at each level, and the node budget of its moves: enough to
#: reach every kernel path the level runs, a few milliseconds a move once compiled.
WARM_PLIES: Final = 40
WARM_NODES: Final = 50
#: The process a background warmup ends with (set by :func:`start_in_background`).
PARENT_VARIABLE: Final = "FLIPGAMES_WARMUP_PARENT"


#: The packages holding compiled code (numba recompiles a function when its file changes).
COMPILED_PACKAGES: Final = ("kernels", "games", "solvers")


def source_digest() -> str:
    """A digest of the source files of :data:`COMPILED_PACKAGES` (paths, sizes, modification
    times) and the interpreter: what a stamp is valid for."""
    digest = hashlib.sha256(f"{platform.python_version()} {flipgames.__version__}".encode())
    root = Path(flipgames.__file__).parent
    files = (path for package in COMPILED_PACKAGES for path in (root / package).rglob("*.py"))
    for path in sorted(files):
        info = path.stat()
        digest.update(f"{path.relative_to(root)} {info.st_size} {info.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def stamp_path(game: Game) -> Path:
    """The file that says ``game`` is warm for the package as it is now."""
    return cache_path("warmup", 1, game, suffix=f"-{source_digest()}.done")


def warm_game(game: Game, progress: Progress = silent, force: bool = False) -> list[str]:
    """Do the warmup of ``game`` (see the module docstring) unless its stamp says it is done
    (or ``force``); what was done, in words."""
    stamp = stamp_path(game)
    if stamp.exists() and not force:
        return ["warm already"]
    done = []
    kernel = endgame_kernel(game)
    if kernel is not None:
        endgame_table(game, progress=progress)
        done.append(f"endgame tables to {kernel.endgame_pieces} pieces")
    played = []
    for level in levels_for(game):
        # Asked level by level: a level before perfect may have just solved the game.
        if level != "perfect" or _quick_perfect(game):
            _play(game, level, progress)
            played.append(level)
    done.append(f"levels {', '.join(played)} played")
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(" ".join(done) + "\n")
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


def start_in_background() -> subprocess.Popen[bytes]:
    """``flipgames warmup --quiet --background`` in a child process: at a low priority
    (``nice`` 10, so it takes no CPU from the moves being played), with no output, ending
    with this process however it ends (web/lifeline.py); the caller may end it sooner."""
    return subprocess.Popen(
        [sys.executable, "-m", "flipgames", "warmup", "--quiet", "--background"],
        # The parent's id from here, so a parent that dies before the child watches it is
        # noticed too.
        env={**os.environ, PARENT_VARIABLE: str(os.getpid())},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def cmd_warmup(args: argparse.Namespace) -> int:
    names = args.games or list(game_names())
    games = [make(name) for name in names]  # an unknown name fails before any work
    if args.background:
        from flipgames.web.lifeline import die_with_parent

        os.nice(10)
        parent = os.environ.get(PARENT_VARIABLE)
        die_with_parent(int(parent) if parent and parent.isdigit() else None)
    with TerminalProgress.for_command(quiet=args.quiet) as progress:
        for game in games:
            started = time.process_time()
            done = warm_game(game, progress, force=args.force)
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
    p.add_argument("--force", action="store_true", help="warm games already warm too")
    p.add_argument(
        "--background",
        action="store_true",
        help="run at a low priority (nice 10) and end with the parent process (serve's)",
    )
    p.set_defaults(run=cmd_warmup)
