"""``flipgames``: list, rules, play, replay, perft, solve, analyze, arena, simulate, compare,
dataset and serve.

Errors from the library become a one-line ``flipgames: error: ...`` on stderr and exit code 1;
a malformed command line (a bad flag or number) the same line and exit code 2; Ctrl-C exits
with 130 (``play --save`` writes its record first). Long jobs show progress on a terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from flipgames import __version__
from flipgames.cli import prove
from flipgames.cli.admin import add_admin_command
from flipgames.cli.agents import level_agent
from flipgames.cli.analysis import DEFAULT_DEPTH, cmd_analyze, cmd_solve
from flipgames.cli.arena import cmd_arena
from flipgames.cli.audit import add_audit_command
from flipgames.cli.bench import add_bench_command
from flipgames.cli.compare import add_compare_arguments
from flipgames.cli.dataset import add_dataset_command
from flipgames.cli.engine import add_engine_command
from flipgames.cli.estimates import LIMIT_SECONDS, check_perft
from flipgames.cli.play import describe_result, play_game
from flipgames.cli.progress import TerminalProgress
from flipgames.cli.puzzle import add_puzzle_command
from flipgames.cli.serve import add_serve_command
from flipgames.cli.simulate import add_simulate_arguments, cmd_simulate
from flipgames.cli.warmup import add_warmup_command
from flipgames.core.errors import FlipgamesError, PositionError, quote, quote_path
from flipgames.core.game import Game, State
from flipgames.core.options import parse_option_pairs
from flipgames.core.progress import Progress
from flipgames.core.record import dumps_record, make_record, read_record, replay_record
from flipgames.core.registry import game_class, game_names, make
from flipgames.solvers import catalog
from flipgames.solvers.perft import perft

#: Exit codes: an error in what was asked, a malformed command line, Ctrl-C.
EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


def _game(args: argparse.Namespace, *, single_round: bool = False) -> Game:
    """The game and options named on the command line.

    With ``single_round``, a game with a ``rounds`` option (Flip Switch: a match of rounds to
    play) is taken with ``rounds=1`` unless the user chose otherwise: the solver, ``solve`` and
    ``analyze`` study one round, which is what the exact solution is of.
    """
    options = parse_option_pairs(args.option or [])
    names = {o.name for o in game_class(args.game).option_spec} if single_round else set()
    if "rounds" in names and "rounds" not in options:
        options["rounds"] = "1"
    return make(args.game, options)


class _UsageError(FlipgamesError):
    """A command-line value the command cannot use, found after parsing: exit code 2."""


def _start(game: Game, args: argparse.Namespace) -> State:
    """The state ``--position`` (default: the initial state) and then ``--moves`` name."""
    state = game.new_initial_state()
    if args.position is not None:
        try:
            state = game.from_position(args.position)
        except PositionError as exc:
            raise _UsageError(f"--position {quote(args.position)}: {exc}") from None
    return _apply_moves(state, args.moves)


def _apply_moves(state: State, moves: str | None) -> State:
    for index, text in enumerate((moves or "").split()):
        try:
            state = state.apply(state.parse_action(text))
        except FlipgamesError as exc:
            raise FlipgamesError(f"--moves action {index + 1} ({quote(text)}): {exc}") from exc
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


def _check_writable(path: str) -> Path:
    """``path`` as a record file that can be written, checked before anything is played."""
    target = Path(path)
    if target.is_dir():
        raise FlipgamesError(
            f"--save {quote_path(path)} is a folder: name a file in it, e.g. "
            f"{quote_path(path + '/game.json')}"
        )
    folder = target.parent
    if not folder.is_dir():
        raise FlipgamesError(
            f"--save {quote_path(path)}: the folder {quote_path(folder)} does not exist"
        )
    if not os.access(folder, os.W_OK | os.X_OK) or (
        target.exists() and not os.access(target, os.W_OK)
    ):
        raise FlipgamesError(f"--save {quote_path(path)}: no permission to write there")
    return target


def cmd_play(args: argparse.Namespace) -> int:
    game = _game(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    human_seat = args.seat - 1
    if not 0 <= human_seat < game.num_players:
        raise FlipgamesError(f"--seat must be 1..{game.num_players}, got {args.seat}")
    save = _check_writable(args.save) if args.save else None
    agents = {}
    if args.vs != "human":
        agent = level_agent(game, args.vs, rng)
        agents = {p: agent for p in range(game.num_players) if p != human_seat}
    hint = None
    if args.hint:
        # The strongest advice available at once: perfect play where the solution is at
        # hand, else the hard level.
        level = "perfect" if catalog.solution_ready(game) else "hard"
        hint = level_agent(game, level, random.Random(seed + 1))
    print(f"{game.title}, seed {seed} (replay the same chance with --seed {seed})")

    def keep(state: State) -> None:
        # After every action, so that nothing played is lost even if the process is killed
        # (a signal can end it while compiled code runs, before Python sees Ctrl-C).
        if save is not None:
            _write_atomically(save, dumps_record(make_record(state, seed=seed)))

    with TerminalProgress.for_command() as progress:
        outcome = play_game(
            game.new_initial_state(),
            agents,
            rng,
            input,
            sys.stdout,
            hint,
            progress.thinking,
            reached=keep,
        )
    if save is not None:
        _save_record(save, dumps_record(make_record(outcome.state, seed=seed)))
    return EXIT_INTERRUPTED if outcome.interrupted else 0


def _write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step (a reader never sees half a record). A
    failure is left to the final save, which reports it and prints the record."""
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text)
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)


def _save_record(path: Path, text: str) -> None:
    """Write a record; if that fails after all, print it so nothing played is lost."""
    try:
        path.write_text(text)
    except OSError as exc:
        print(text, end="")
        raise FlipgamesError(
            f"cannot write the record to {quote_path(path)}: {exc.strerror}; it is printed above"
        ) from None
    print(f"record saved to {path}")


def cmd_replay(args: argparse.Namespace) -> int:
    final = replay_record(read_record(args.file))
    game = final.game
    state = game.new_initial_state()
    options = ", ".join(f"{name}={value}" for name, value in game.options.items())
    print(f"{game.title} ({options})" if options else game.title)
    for number, action in enumerate(final.history, start=1):
        print(f"{number:>3}. {state.action_to_string(action)}")
        state = state.apply(action)
    print(state.render())
    print(f"result: {describe_result(state)}")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    game = _game(args)
    state = _start(game, args)
    estimate = check_perft(state, args.depth, args.force)
    if estimate is not None and not args.json:
        print(f"perft {args.depth}: {estimate.words()}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with TerminalProgress.for_command(json=args.json) as progress:
        if args.divide:
            counts_by_action = _divide(state, args.depth, progress)
            for text, count in counts_by_action.items():
                print(f"{text}: {count}")
            print(f"total: {sum(counts_by_action.values())}")
            return 0
        counts = [perft(state, 1)]
        counts += [sum(_divide(state, d, progress).values()) for d in range(2, args.depth + 1)]
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps({"game": game.name, "counts": counts}))
    else:
        for depth, count in enumerate(counts, start=1):
            print(f"perft({depth}) = {count}")
        print(f"{sum(counts)} nodes in {seconds:.3f} s", file=sys.stderr)
    return 0


def _divide(state: State, depth: int, progress: Progress) -> dict[str, int]:
    """perft(depth - 1) below each action of ``state``, reporting each one done."""
    actions = state.perft_actions()
    counts = {}
    for done, action in enumerate(actions, start=1):
        counts[state.action_to_string(action)] = perft(state.apply_perft(action), depth - 1)
        progress(f"perft({depth})", done=done, total=len(actions))
    return counts


class _DefaultsFormatter(argparse.HelpFormatter):
    """Help that shows every option's default: ``(default: X)`` after a help text that does
    not state it already; options without one (off, empty, none) say nothing."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if "default" in text or default in (None, False, [], argparse.SUPPRESS):
            return text
        if action.option_strings or action.nargs in ("?", "*"):
            return f"{text} (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """argparse with the command's one-line error format (and exit code 2 for usage errors)
    and help that shows the defaults."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(
            EXIT_USAGE,
            f"flipgames: error: {message} (see '{self.prog} --help')\n",
        )


def _count(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a whole number, got {quote(text)}"
            ) from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _port(text: str) -> int:
    """An argparse type: a TCP port, or 0 for any free one (``serve --port 0``)."""
    value = _count(0)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 (any free one) to 65535, got {value}")
    return value


def _game_command(sub: Any, name: str, help_text: str) -> argparse.ArgumentParser:
    """A subcommand about one game: its GAME argument and repeatable rule options."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    p.add_argument("game", metavar="GAME", help="one of: " + ", ".join(game_names()))
    p.add_argument("--option", "-o", action="append", metavar="NAME=VALUE", help="a rule option")
    return p


def _force(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--force",
        action="store_true",
        help="run even when the estimate says it takes longer than "
        f"{LIMIT_SECONDS / 60:.0f} minutes",
    )


def _position(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--position",
        metavar="TEXT",
        help="start from this position in the game's position notation (docs/games/), e.g. "
        "'rrrrr/5/5/5/RRRRR w'; --moves are played after it",
    )


def _add_play_commands(sub: Any) -> None:
    """list, rules, play and replay."""
    help_text = "list the games with their kinds and options"
    p: argparse.ArgumentParser = sub.add_parser("list", help=help_text, description=help_text)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=cmd_list)

    _game_command(sub, "rules", "print a game's rules with our rulings and options").set_defaults(
        run=cmd_rules
    )

    p = _game_command(sub, "play", "play a game in the terminal")
    p.add_argument(
        "--vs",
        default="human",
        help="opponent: human (same screen), random, easy, medium, hard or perfect (solved games)",
    )
    p.add_argument("--hint", action="store_true", help="enable the 'hint' command")
    p.add_argument("--seat", type=_count(1), default=1, help="your seat against an agent: 1 or 2")
    p.add_argument("--seed", type=int, help="seed for chance and agents (default: random)")
    p.add_argument(
        "--save",
        metavar="FILE",
        help="write the game record (JSON) here when the game ends, also on quit, Ctrl-D or "
        "Ctrl-C (checked to be writable before the game starts)",
    )
    p.set_defaults(run=cmd_play)

    help_text = "replay a game record, checking every action against the rules"
    p = sub.add_parser("replay", help=help_text, description=help_text)
    p.add_argument("file", metavar="FILE", help="a record written by play --save (JSON)")
    p.set_defaults(run=cmd_replay)


def _add_perft_and_solve(sub: Any) -> None:
    """perft and solve."""
    p = _game_command(sub, "perft", "count legal action sequences (deterministic games)")
    p.add_argument("depth", metavar="DEPTH", type=_count(1), help="plies to count, 1 or more")
    _position(p)
    p.add_argument("--moves", help='actions to play first, e.g. "a1-a2 a3-b3"')
    p.add_argument("--json", action="store_true", help='print {"game", "counts"}')
    p.add_argument("--divide", action="store_true", help="perft(DEPTH-1) under each action")
    _force(p)
    p.set_defaults(run=cmd_perft)

    p = _game_command(
        sub,
        "solve",
        "solve a game exactly from the start (cached on disk); Flip Switch: one round "
        "(rounds=1) unless -o rounds=N is given",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument(
        "--max-positions",
        type=_count(1),
        metavar="N",
        help="give up a solve beyond N positions (default "
        f"{catalog.DEFAULT_MAX_POSITIONS:,}); with it, FlipFlop 5x5 and FlipFour are "
        "enumerated instead of proved by df-pn search",
    )
    p.add_argument(
        "--memory",
        help="transposition table size of a proof search (Rubik's Flip; df-pn for "
        "FlipFlop 5x5 and FlipFour), e.g. 4G (default 2G, df-pn 1G; the result does not "
        "depend on it)",
    )
    p.add_argument(
        "--policies",
        action="store_true",
        help="also evaluate the fixed gear policies (always 1st, up to 2nd, up to 3rd)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="accept a --max-positions budget larger than this machine's memory holds",
    )
    prove.add_options(p, _count(1))
    p.set_defaults(run=lambda a: cmd_solve(a, _game(a, single_round=True)))


def _add_analysis_commands(sub: Any) -> None:
    """analyze, arena, puzzle, simulate, compare and audit."""
    p = _game_command(
        sub,
        "analyze",
        "value of every legal action in a position: exact where the game is solved, else a "
        "search; Flip Switch: one round (rounds=1) unless -o rounds=N is given",
    )
    _position(p)
    p.add_argument("--moves", help="actions to play first, in notation")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--depth",
        type=_count(1),
        help=f"search depth in plies (default {DEFAULT_DEPTH}); on a solved game, search to "
        "this depth instead of using the exact solution",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for the search's tie-breaks")
    _force(p)
    p.set_defaults(run=lambda a: cmd_analyze(a, _start(_game(a, single_round=True), a)))

    p = _game_command(sub, "arena", "play two levels against each other, alternating seats")
    seat = "a level, or engine:CMD for a program speaking docs/engine-protocol.md"
    p.add_argument("--a", default="hard", metavar="LEVEL", help=f"agent A: {seat} (default hard)")
    p.add_argument("--b", default="random", metavar="LEVEL", help="agent B (default random)")
    p.add_argument("--games", type=_count(1), default=20, help="number of games (default 20)")
    p.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    p.add_argument(
        "--movetime",
        type=_count(1),
        metavar="MS",
        help="milliseconds a move for both seats, by the wall clock (an outside engine is "
        "sent go movetime MS; a level thinks that long by its own algorithm)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(run=lambda a: cmd_arena(a, _game(a)))

    add_puzzle_command(lambda name, text: _game_command(sub, name, text), _game, _count)
    add_dataset_command(
        lambda name, text: _game_command(sub, name, text),
        lambda a: _game(a, single_round=True),
        _count,
    )
    p = _game_command(sub, "simulate", "seeded self-play of two levels, measured (docs/lab.md)")
    add_simulate_arguments(p, _count(1))
    p.set_defaults(run=lambda a: cmd_simulate(a, _game(a)))
    p = _game_command(
        sub, "compare", "rule options side by side: solved or self-play (docs/lab.md)"
    )
    add_compare_arguments(p, _count(1))
    add_audit_command(sub, lambda a: _game(a, single_round=True))


def build_parser() -> argparse.ArgumentParser:
    """The ``flipgames`` command line: every subcommand, in the order ``--help`` lists them."""
    parser = _Parser(prog="flipgames", description="Play, solve and analyse flip games.")
    parser.add_argument("--version", action="version", version=f"flipgames {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )
    _add_play_commands(sub)
    _add_perft_and_solve(sub)
    _add_analysis_commands(sub)
    add_serve_command(sub, port_type=_port)
    add_admin_command(sub)
    add_bench_command(sub)
    add_engine_command(sub)
    add_warmup_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``flipgames`` console script; returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a malformed command line (2), already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        code: int = args.run(args)
    except _UsageError as exc:
        print(f"flipgames: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except FlipgamesError as exc:
        print(f"flipgames: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except OSError as exc:
        # The system refused a read or write (a full disk, a closed terminal). What was
        # buffered for stdout may be what failed: drop it so exiting does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"flipgames: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return EXIT_ERROR
    return code


if __name__ == "__main__":
    sys.exit(main())


def run() -> NoReturn:
    """The console entry (``flipgames`` and ``python -m flipgames``): exit with :func:`main`'s
    code. After Ctrl-C the process leaves at once with 130, the record already saved: Python
    would otherwise end a process that ever saw a KeyboardInterrupt inside some C code (the
    compiled search is one) by re-raising SIGINT at exit, whatever the code (exit status -2)."""
    code = main()
    if code == EXIT_INTERRUPTED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
