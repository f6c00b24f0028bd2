"""The command line, driven as a user would: arguments in, text out, exit codes."""

from __future__ import annotations

import builtins
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flipgames import game_names, make, replay_record
from flipgames.cli.main import main
from flipgames.solvers.perft import perft_counts

DETERMINISTIC = [n for n in game_names() if make(n).deterministic]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def feed(monkeypatch, lines: list[str]) -> None:
    """Answer ``input()`` prompts with ``lines``, then end of input."""
    answers: Iterator[str] = iter(lines)

    def fake_input(prompt: str = "") -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", fake_input)


def test_list_names_every_game(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    for name in game_names():
        assert name in out
    code, out, _ = run(capsys, "list", "--json")
    assert [g["name"] for g in json.loads(out)] == game_names()


@pytest.mark.parametrize("name", game_names())
def test_rules_prints_the_summary_and_every_option(capsys, name):
    code, out, _ = run(capsys, "rules", name)
    assert code == 0
    assert make(name).rules_summary().strip().splitlines()[0] in out
    for option in make(name).option_spec:
        assert f"{option.name}={option.default}" in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["rules", "chess"], "unknown game 'chess'"),
        (["rules", "flip-switch", "--option", "lines=zigzag"], "bad value 'zigzag'"),
        (["rules", "flip-switch", "--option", "lines"], "write name=value"),
        (["perft", "flip-switch", "2"], "perft is defined only for deterministic games"),
        (["perft", "flipflop-3x3", "0"], "depth must be at least 1"),
        (["perft", "flipflop-3x3", "2", "--moves", "a1-a2 zz"], "--moves action 2 ('zz')"),
        (["play", "flipflop-3x3", "--vs", "genius"], "unknown level 'genius'"),
        (["replay", "/nonexistent/record.json"], "cannot read record"),
    ],
)
def test_errors_exit_1_with_a_message(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert words in err
    assert err.startswith("flipgames: error:")


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_perft_json_matches_the_library(capsys, name):
    code, out, _ = run(capsys, "perft", name, "2", "--json")
    assert code == 0
    assert json.loads(out) == {
        "game": name,
        "counts": perft_counts(make(name).new_initial_state(), 2),
    }


def test_perft_after_moves_and_divide_agree(capsys):
    code, out, _ = run(capsys, "perft", "flipflop-3x3", "3", "--moves", "b1xb3")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("perft(1) = ")
    total = int(lines[2].split(" = ")[1])
    code, out, _ = run(capsys, "perft", "flipflop-3x3", "3", "--moves", "b1xb3", "--divide")
    assert sum(int(line.rsplit(": ", 1)[1]) for line in out.splitlines()) == total


@pytest.mark.parametrize("name", game_names())
def test_play_against_random_to_the_end_and_replay(capsys, monkeypatch, tmp_path, name):
    """A human who always types 'moves' then the first legal action finishes the game."""

    def fake_input(prompt: str = "") -> str:
        out = capsys.readouterr().out
        if "legal actions:" in out:
            return out.rsplit("legal actions: ", 1)[1].split()[0]
        return "moves"

    monkeypatch.setattr(builtins, "input", fake_input)
    record = tmp_path / "game.json"
    code = main(["play", name, "--vs", "random", "--seed", "3", "--save", str(record)])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "record saved" in out
    final = replay_record(record.read_text())
    assert final.is_terminal()
    code, out, _ = run(capsys, "replay", str(record))
    assert code == 0
    assert "result:" in out


def test_play_reprompts_on_bad_input_and_changes_nothing(capsys, monkeypatch, tmp_path):
    feed(monkeypatch, ["help", "z9", "a1-c3", "board", "b1xb3", "quit"])
    record = tmp_path / "g.json"
    assert main(["play", "flipflop-3x3", "--seed", "1", "--save", str(record)]) == 0
    out, _ = capsys.readouterr()
    assert "Type an action" in out
    assert out.count("not accepted:") == 2
    assert json.loads(record.read_text())["actions"] == ["b1xb3"]


def test_play_shows_chance_outcomes_drawn_from_the_seed(capsys, monkeypatch):
    feed(monkeypatch, [])
    main(["play", "checkered-flag", "--seed", "8"])
    first, _ = capsys.readouterr()
    feed(monkeypatch, [])
    main(["play", "checkered-flag", "--seed", "8"])
    second, _ = capsys.readouterr()
    assert "chance: " in first
    assert first == second


def test_replay_of_a_tampered_record_names_the_bad_action(capsys, tmp_path):
    record = tmp_path / "bad.json"
    record.write_text(
        json.dumps(
            {
                "format": "flipgames-record",
                "version": 1,
                "game": "flipflop-3x3",
                "options": {},
                "seed": 1,
                "actions": ["b1xb3", "c1-c3"],
                "result": "*",
            }
        )
    )
    code, _, err = run(capsys, "replay", str(record))
    assert code == 1
    assert "action 2 ('c1-c3') does not replay" in err


def test_the_console_script_is_installed():
    script = Path(sys.executable).with_name("flipgames")
    done = subprocess.run(
        [str(script), "perft", "flipflop-3x3", "3", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["counts"] == perft_counts(
        make("flipflop-3x3").new_initial_state(), 3
    )
