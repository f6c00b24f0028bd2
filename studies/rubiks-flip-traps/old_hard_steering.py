"""Could Rubik's Flip ``hard`` steer an earlier tile into richer traps for the old *hard*?

Run: ``.venv/bin/python studies/rubiks-flip-traps/old_hard_steering.py [--games 3] [--actions 10]
[--replies 2] [--ply 7] [--seed 502] [--seconds 0.9]``.

``old_hard_judge.py`` (beside this study) found that the second player's ninth tile is where
the old *hard* can be caught, and that choosing the trap there with hindsight scores only
about 0.59. This asks whether the move before could make the ninth tile richer:

1. Plays ``hard`` against the old *hard* (``baseline_hard`` in ``bench/_common.py``), both
   ``--seconds`` CPU s a move, until ``hard`` is to move at ``--ply`` tiles (default 7: the
   second player).
2. For ``hard``'s own choice there and ``--actions`` other legal actions drawn at random, the
   old *hard* replies (``--seconds`` CPU s, garbage collected first as in a match;
   ``--replies`` times, each with its own random generator for its tie-breaks), and two tiles
   on ``hard``'s searcher model measures, to the end, the best trap figure of the position:
   the share of losing replies among the old *hard*'s first choices after the best drawing
   action (the model picked the judge's best action in all 15 ninth-tile positions it
   judged). A position the old *hard*'s reply has already lost counts 1, won -1.
3. Prints every action's figures, then per game the figure of ``hard``'s own choice, the best
   action's (hindsight: an upper bound, the more so as each is the mean of few replies), the
   mean over the actions, and how many of them lost.

About 6 s an action and reply on one core (the old *hard*'s reply, the exact search, the
model's searches to the end).
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import time
from pathlib import Path

# A study is run as a script; what it shares with the benchmarks is in bench/_common.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _traps import modelled

from _common import baseline_hard, cpu_name, new_hard
from flipgames import make
from flipgames.agents.exact import ExactSearchAgent
from flipgames.core.game import Game, State

#: The exact search's budget two tiles on: enough to solve every position there.
SOLVE_SECONDS = 6.0


def best_figure(state: State, hard: ExactSearchAgent) -> float:
    """The position's value for ``hard`` if decided, else the searcher model's best trap
    figure over its drawing actions, each measured to the end (no node limit)."""
    hard.choose(state)
    report = hard.last
    if not report.exact or report.value is None:
        raise RuntimeError(f"not solved in {SOLVE_SECONDS} s: raise SOLVE_SECONDS")
    if report.value != 0:
        return float(report.value)
    hard.stats[:] = (0, 10**12, 0)  # no node limit: outside the timed move
    drawing = [action for action in report.keeping if not state.apply(action).is_terminal()]
    return max(modelled(state, hard, drawing).values(), default=0.0)


def study(game: Game, args: argparse.Namespace, index: int) -> list[float] | None:
    """One game's figures, ``hard``'s own action's first (None if the game ended early)."""
    seed, seat = f"{args.seed}:{index}", args.ply % 2
    hard = new_hard(game, random.Random(f"{seed}:a"), args.seconds)
    old = baseline_hard(game, random.Random(f"{seed}:b"), args.seconds, time.process_time)
    state = game.new_initial_state()
    while len(state.history) < args.ply and not state.is_terminal():
        agent = hard if state.current_player == seat else old
        gc.collect()
        state = state.apply(agent.choose(state))
    if state.is_terminal():
        return None
    gc.collect()
    own = hard.choose(state)
    others = [action for action in state.legal_actions() if action != own]
    actions = [own, *random.Random(seed).sample(others, min(args.actions, len(others)))]
    solver = new_hard(game, random.Random(f"{seed}:s"), SOLVE_SECONDS)
    assert isinstance(solver, ExactSearchAgent)  # Rubik's Flip's hard
    means = []
    for action in actions:
        child = state.apply(action)
        figures = []
        for reply in range(args.replies):
            if child.is_terminal():
                figures.append(float(child.returns()[seat]))
                continue
            judge = baseline_hard(
                game, random.Random(f"{seed}:{action}:{reply}"), args.seconds, time.process_time
            )
            gc.collect()
            after = child.apply(judge.choose(child))
            figures.append(
                float(after.returns()[seat]) if after.is_terminal() else best_figure(after, solver)
            )
        means.append(statistics.mean(figures))
        mark = "own" if action == own else ""
        print(
            f"  game {index} {mark:3} {state.action_to_string(action):>14}: "
            + " ".join(f"{figure:+.2f}" for figure in figures),
            file=sys.stderr,
            flush=True,
        )
    return means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--actions", type=int, default=10, help="other actions per game")
    parser.add_argument("--replies", type=int, default=2, help="old hard replies per action")
    parser.add_argument("--ply", type=int, default=7, help="tiles down when hard chooses")
    parser.add_argument("--seed", type=int, default=502)
    parser.add_argument("--seconds", type=float, default=0.9, help="CPU s a move, both sides")
    args = parser.parse_args()
    if min(args.games, args.actions, args.replies) < 1 or args.seconds <= 0:
        parser.error("--games, --actions, --replies and --seconds must be positive")
    if not 0 < args.ply < 14:
        parser.error("--ply must be within 1-13 (two tiles must follow)")
    game = make("rubiks-flip")
    print(f"machine: {cpu_name()}; CPython {platform.python_version()}")
    print(
        f"hard (seat {args.ply % 2}) at {args.ply} tiles against the old hard, "
        f"{args.seconds:g} s; figures two tiles on\n"
    )
    print("| game | actions | hard's own | best (hindsight) | mean | lost |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    rows: list[list[float]] = []
    for index in range(1, args.games + 1):
        means = study(game, args, index)
        if means is None:
            print(f"  game {index}: ended before {args.ply} tiles", file=sys.stderr)
            continue
        rows.append(means)
        print(
            f"| {index} | {len(means)} | {means[0]:+.3f} | {max(means):+.3f} "
            f"| {statistics.mean(means):+.3f} | {sum(m < 0 for m in means)} |",
            flush=True,
        )
    if rows:
        print(
            f"| **mean** | | **{statistics.mean(r[0] for r in rows):+.3f}** "
            f"| **{statistics.mean(max(r) for r in rows):+.3f}** "
            f"| {statistics.mean(statistics.mean(r) for r in rows):+.3f} | |"
        )


if __name__ == "__main__":
    main()
