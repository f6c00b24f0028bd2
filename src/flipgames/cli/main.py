"""``flipgames``: list, rules, play, replay and perft.

Errors from the library become a one-line message on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from flipgames.agents.levels import make_level_agent
from flipgames.cli.analysis import cmd_analyze, cmd_solve
from flipgames.cli.arena import cmd_arena
from flipgames.cli.bench import add_bench_command
from flipgames.cli.engine import add_engine_command
from flipgames.cli.play import describe_result, play_game
from flipgames.cli.serve import add_serve_command
from flipgames.core.errors import FlipgamesError, RecordError
from flipgames.core.game import Game, State
from flipgames.core.options import parse_option_pairs
from flipgames.core.record import dumps_record, make_record, replay_record
from flipgames.core.registry import game_class, game_names, make
from flipgames.solvers import catalog
from flipgames.solvers.perft import divide, perft_counts


def _game(args: argparse.Namespace) -> Game:
    return make(args.game, parse_option_pairs(args.option or []))


def _start(args: argparse.Namespace) -> State:
    return _game(args).new_initial_state()


def _apply_moves(state: State, moves: str | None) -> State:
    for index, text in enumerate((moves or "").split()):
        try:
            state = state.apply(state.parse_action(text))
        except FlipgamesError as exc:
            raise FlipgamesError(f"--moves action {index + 1} ({text!r}): {exc}") from exc
    return state


def cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for name in game_names():
        cls = game_class(name)
        kind = "chance" if cls.has_chance else "deterministic"
        options = ", ".join(f"{o.name}={o.default}" for o in cls.option_spec) or "-"
        rows.append((name, cls.title, f"{cls.num_players} players, {kind}", options))
    if args.json:
        fields = ("name", "title", "kind", "options")
        print(json.dumps([dict(zip(fields, row, strict=True)) for row in rows]))
        return 0
    width = max(len(r[0]) for r in rows)
    for name, title, kind, options in rows:
        print(f"{name:<{width}}  {title} ({kind}); options: {options}")
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    game = _game(args)
    print(game.rules_summary().rstrip())
    if game.option_spec:
        print("\nOptions (--option name=value; default first):")
        for opt in game.option_spec:
            current = "" if game.options[opt.name] == opt.default else " [chosen]"
            print(f"  {opt.name}={game.options[opt.name]}{current}: {opt.allowed()}. {opt.help}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    game = _game(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    human_seat = args.seat - 1
    if not 0 <= human_seat < game.num_players:
        raise FlipgamesError(f"--seat must be 1..{game.num_players}, got {args.seat}")
    agents = {}
    if args.vs != "human":
        agent = make_level_agent(game, args.vs, rng)
        agents = {p: agent for p in range(game.num_players) if p != human_seat}
    hint = None
    if args.hint:
        # The strongest advice available at once: perfect play where the solution is at
        # hand, else the hard level.
        level = "perfect" if catalog.solution_ready(game) else "hard"
        hint = make_level_agent(game, level, random.Random(seed + 1))
    print(f"{game.title}, seed {seed} (replay the same chance with --seed {seed})")
    state = play_game(game.new_initial_state(), agents, rng, input, sys.stdout, hint=hint)
    if args.save:
        Path(args.save).write_text(dumps_record(make_record(state, seed=seed)))
        print(f"record saved to {args.save}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text()
    except OSError as exc:
        raise RecordError(f"cannot read record {args.file!r}: {exc.strerror}") from None
    final = replay_record(text)
    game = final.game
    state = game.new_initial_state()
    print(f"{game.title} {dict(game.options)}")
    for number, action in enumerate(final.history, start=1):
        print(f"{number:>3}. {state.action_to_string(action)}")
        state = state.apply(action)
    print(state.render())
    print(f"result: {describe_result(state)}")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    game = _game(args)
    if args.depth < 1:
        raise FlipgamesError(f"perft depth must be at least 1, got {args.depth}")
    state = _apply_moves(game.new_initial_state(), args.moves)
    if args.divide:
        for text, count in divide(state, args.depth).items():
            print(f"{text}: {count}")
        return 0
    started = time.perf_counter()
    counts = perft_counts(state, args.depth)
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps({"game": game.name, "counts": counts}))
    else:
        for depth, count in enumerate(counts, start=1):
            print(f"perft({depth}) = {count}")
        print(f"{sum(counts)} nodes in {seconds:.3f} s", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flipgames", description="Play, solve and analyse flip games."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def game_command(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("game", metavar="GAME", help="one of: " + ", ".join(game_names()))
        p.add_argument(
            "--option", "-o", action="append", metavar="NAME=VALUE", help="a rule option"
        )
        return p

    p = sub.add_parser("list", help="list the games")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=cmd_list)

    game_command("rules", "print a game's rules with our rulings and options").set_defaults(
        run=cmd_rules
    )

    p = game_command("play", "play a game in the terminal")
    p.add_argument(
        "--vs",
        default="human",
        help="opponent: human (same screen), random, easy, medium, hard or perfect (solved games)",
    )
    p.add_argument("--hint", action="store_true", help="enable the 'hint' command")
    p.add_argument("--seat", type=int, default=1, help="your seat against an agent: 1 or 2")
    p.add_argument("--seed", type=int, help="seed for chance and agents (default: random)")
    p.add_argument("--save", metavar="FILE", help="write the game record (JSON) here")
    p.set_defaults(run=cmd_play)

    p = sub.add_parser("replay", help="replay a game record, checking every action")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(run=cmd_replay)

    p = game_command("perft", "count legal action sequences (deterministic games)")
    p.add_argument("depth", metavar="DEPTH", type=int)
    p.add_argument("--moves", help='actions to play first, e.g. "a1-a2 a3-b3"')
    p.add_argument("--json", action="store_true", help='print {"game", "counts"}')
    p.add_argument("--divide", action="store_true", help="perft(DEPTH-1) under each action")
    p.set_defaults(run=cmd_perft)

    p = game_command("solve", "solve a game exactly from the start (cached on disk)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument(
        "--max-positions",
        type=int,
        default=catalog.DEFAULT_MAX_POSITIONS,
        help="give up a deterministic solve beyond this many positions (default %(default)s)",
    )
    p.add_argument(
        "--policies",
        action="store_true",
        help="also evaluate the fixed gear policies (always 1st, up to 2nd, up to 3rd)",
    )
    p.set_defaults(run=lambda a: cmd_solve(a, _game(a)))

    p = game_command("analyze", "value of every legal action in a position")
    p.add_argument("--moves", help="actions to play first, in notation")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--depth", type=int, default=6, help="search depth on unsolved games")
    p.add_argument("--seed", type=int, default=0, help="seed for the search's tie-breaks")
    p.set_defaults(
        run=lambda a: cmd_analyze(a, _apply_moves(_game(a).new_initial_state(), a.moves))
    )

    p = game_command("arena", "play two levels against each other, alternating seats")
    seat = "a level, or engine:CMD for a program speaking docs/engine-protocol.md"
    p.add_argument("--a", default="hard", metavar="LEVEL", help=f"agent A: {seat} (default hard)")
    p.add_argument("--b", default="random", metavar="LEVEL", help="agent B (default random)")
    p.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    p.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no per-game progress on stderr")
    p.set_defaults(run=lambda a: cmd_arena(a, _game(a)))

    add_serve_command(sub)
    add_bench_command(sub)
    add_engine_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``flipgames`` console script."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except FlipgamesError as exc:
        print(f"flipgames: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
