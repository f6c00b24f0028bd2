"""Fuzzing the command line: every subcommand with random argument values (and random lines
typed into ``play``) must end with an exit code and at most a one-line error; no exception may
escape ``main`` and no traceback may reach the user.

Most examples run in-process through ``main(argv)`` (fast); a few go through
``python -m flipgames`` to cover the real entry point. Values are drawn from mixtures of valid
and invalid ones, with sizes kept small so every example finishes in about a second: the few
requests that are legitimately long (a first exact solve of one-round Flip Switch, of a
many-lap race, the proof of Rubik's Flip) are left out with ``assume``; their announcement
and refusal logic has its own tests.
"""

from __future__ import annotations

import builtins
import io
import json
import subprocess
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from flipgames import game_class, game_names, make
from flipgames.cli.main import main
from flipgames.core.errors import FlipgamesError
from flipgames.core.options import parse_option_pairs
from flipgames.solvers import catalog

GAMES = st.sampled_from([*game_names(), "chess", "", "FLIPFLOP", "flip switch", "-x"])
# Valid values more often than not, so that most examples get past the argument parser.
NUMBERS = st.sampled_from(
    ["1", "2", "3", "1", "2", "02", "-3", "0", "x", "", "1.5", "99999999999999999999"]
)  # depths, games, seats, budgets: 3 at most, so that an example takes about a second
SEEDS = st.sampled_from(["0", "1", "7", "42", "1", "-1", "2147483648", "seed", ""])
LEVELS = st.sampled_from(["random", "easy", "perfect", "human", "genius", "HARD", ""])
JUNK = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)


@st.composite
def option_flags(draw: st.DrawFn, game: str) -> list[str]:
    """Zero to three ``-o name=value`` with names of the game (or not) and random values."""
    names = [o.name for o in game_class(game).option_spec] if game in game_names() else []
    flags: list[str] = []
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2, 3]))):
        name = draw(st.sampled_from([*names, "colour", ""]) if names else JUNK)
        value = draw(
            st.one_of(
                # Numbers stay small: 99 rounds or laps are valid but make a match of minutes.
                st.sampled_from(["1", "2", "3", "0", "-1", "edges", "pass", "short", "flap"]),
                st.sampled_from(["first", "inplace", "opponent", "orthogonal", "/nonexistent"]),
                JUNK,
            )
        )
        flags += ["-o", draw(st.sampled_from([f"{name}={value}", name, f"={value}"]))]
    return flags


def moves_text(draw: st.DrawFn) -> str:
    valid = st.sampled_from(["b1xb3", "a1-a2", "R@c3", "c3R", "b2", "heart", "3", "5:3", "A1-A2"])
    words = st.one_of(valid, valid, JUNK)
    return " ".join(draw(st.lists(words, max_size=4)))


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A command line of any subcommand and the lines a human would type (for ``play``)."""
    command = draw(
        st.sampled_from(["list", "rules", "play", "replay", "perft", "solve", "analyze", "arena"])
    )
    game = draw(GAMES)
    typed: list[str] = []
    if command == "list":
        return ["list", *draw(st.sampled_from([[], ["--json"], ["--frob"]]))], typed
    if command == "replay":
        return ["replay", draw(st.sampled_from(["/nonexistent.json", "/", "", "-"]))], typed
    argv = [command, game, *draw(option_flags(game))]
    if command == "rules":
        pass
    elif command == "play":
        argv += ["--vs", draw(LEVELS), "--seat", draw(NUMBERS), "--seed", draw(SEEDS)]
        argv += draw(st.sampled_from([[], ["--hint"]]))
        typed = draw(
            st.lists(
                st.one_of(st.sampled_from(["help", "moves", "board", "hint", "?"]), JUNK),
                max_size=4,
            )
        )
    elif command == "perft":
        argv += [draw(NUMBERS), "--moves", moves_text(draw)]
        argv += draw(st.sampled_from([[], ["--json"], ["--divide"]]))
    elif command == "solve":
        argv += ["--max-positions", draw(NUMBERS), *draw(st.sampled_from([[], ["--json"]]))]
        argv += draw(st.sampled_from([[], ["--policies"], ["--quiet"]]))
    elif command == "analyze":
        argv += ["--depth", draw(NUMBERS), "--moves", moves_text(draw), "--seed", draw(SEEDS)]
        argv += draw(st.sampled_from([[], ["--json"]]))
    else:
        # Not the huge number here: a match of 10^20 games is what it says (progress, Ctrl-C).
        games = draw(NUMBERS.filter(lambda n: len(n) < 10))
        argv += ["--a", draw(LEVELS), "--b", draw(LEVELS), "--games", games]
        argv += ["--seed", draw(SEEDS), *draw(st.sampled_from([[], ["--json"]]))]
    return argv, typed


def long_solve(argv: list[str]) -> bool:
    """True for the few well-formed requests that start a solve of more than seconds."""
    command, game_name = argv[0], argv[1] if len(argv) > 1 else ""
    # Only `solve` and the perfect level solve here (`analyze` always gets a --depth). Rubik's
    # Flip's `solve` is a proof by search of minutes (its perfect level is bounded per move).
    if command == "solve" and game_name == "rubiks-flip":
        return True
    if game_name not in ("flip-switch", "checkered-flag"):
        return False
    if command != "solve" and "perfect" not in argv:
        return False
    pairs = [argv[i + 1] for i, flag in enumerate(argv[:-1]) if flag == "-o"]
    try:
        options = parse_option_pairs(pairs)
        if command in ("solve", "analyze") and game_name == "flip-switch":
            options.setdefault("rounds", "1")  # what the CLI studies unless told otherwise
        game = make(game_name, options)
    except FlipgamesError:
        return False
    if game.name == "flip-switch":
        # A one-round variant the manifest does not list (the lab's switch_limit, must_flip)
        # is solved on the reference engine: minutes at best, and chance games take no budget.
        unlisted = int(game.options["rounds"]) == 1 and not catalog.is_solved(game)
        return unlisted or (catalog.is_solved(game) and not catalog.solution_ready(game))
    return int(game.options["laps"]) > 2  # a many-lap race has many positions to solve


def run_in_process(argv: list[str], typed: list[str]) -> tuple[int, str, str]:
    lines = iter(typed)

    def fake_input(prompt: str = "") -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.object(builtins, "input", fake_input),
        redirect_stdout(out),
        redirect_stderr(err),
    ):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def assert_clean(code: int, out: str, err: str) -> None:
    assert isinstance(code, int) and code in (0, 1, 2), (code, err)
    assert "Traceback" not in out + err
    if code and not err:  # `solve --json` reports a failed solve as JSON on stdout
        assert json.loads(out)["solved"] is False
    elif code:
        last = err.strip().splitlines()[-1]
        assert last.startswith("flipgames: error: "), err


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(command_lines())
def test_no_command_line_ends_in_a_traceback(case: tuple[list[str], list[str]]) -> None:
    argv, typed = case
    assume(not long_solve(argv))
    assert_clean(*run_in_process(argv, typed))


@settings(max_examples=40)
@given(st.binary(max_size=200), st.sampled_from(["", "[", '{"format": "flipgames-record"']))
def test_replay_of_any_bytes_is_a_record_or_a_one_line_error(content: bytes, prefix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "record.json"
        path.write_bytes(prefix.encode() + content)
        assert_clean(*run_in_process(["replay", str(path)], []))


@settings(max_examples=8, deadline=None)
@given(command_lines())
def test_through_the_real_entry_point(case: tuple[list[str], list[str]]) -> None:
    argv, typed = case
    assume(not long_solve(argv))
    assume(not any("\x00" in arg for arg in argv))  # no command line can carry a NUL byte
    done = subprocess.run(
        [sys.executable, "-m", "flipgames", *argv],
        input="".join(f"{line}\n" for line in typed if "\n" not in line),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert_clean(done.returncode, done.stdout, done.stderr)


def test_serve_with_a_database_that_cannot_be_opened_is_one_line_without_the_password() -> None:
    code, out, err = run_in_process(
        ["serve", "--db", "postgresql://fuzz:s3cret@127.0.0.1:1/none", "--port", "8123"], []
    )
    assert_clean(code, out, err)
    assert code == 1
    assert "s3cret" not in out + err
