"""The command line, driven as a user would: arguments in, text out, exit codes."""

from __future__ import annotations

import builtins
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flipgames import game_names, make, replay_record
from flipgames.cli.main import main
from flipgames.core.conformance import random_game
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
    *per_action, last = out.splitlines()
    assert sum(int(line.rsplit(": ", 1)[1]) for line in per_action) == total
    assert last == f"total: {total}"


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
    assert make("flipflop-3x3").notation_help() in out  # help: the notation, with examples
    assert "Legal here, for example: a1-a2, c1-c2" in out
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


# --- the AI side: solve, analyze, arena, levels and hints ------------------------------


def test_solve_flipflop_3x3_reports_a_first_player_win_in_15(capsys):
    code, out, _ = run(capsys, "solve", "flipflop-3x3", "--json")
    assert code == 0
    report = json.loads(out)
    assert {k: report[k] for k in ("game", "positions", "value", "remoteness")} == {
        "game": "flipflop-3x3",
        "positions": 107_439,  # the FlipFlop kernel's graph, folded over the mirror
        "value": "win",
        "remoteness": 15,
    }
    assert report["best_actions"] == ["b1xb3"]
    assert report["seconds"] > 0
    # The second call reads the disk cache.
    code, out, _ = run(capsys, "solve", "flipflop-3x3")
    assert "White, to move first, wins in 15 plies" in out


def test_solve_a_game_too_large_says_how_far_it_got(capsys, monkeypatch):
    # Without its kernel Rubik's Flip falls back to enumeration (with it, it is proved by search).
    monkeypatch.setenv("FLIPGAMES_KERNEL", "python")
    code, out, _ = run(capsys, "solve", "rubiks-flip", "--json", "--max-positions", "2000")
    assert code == 1
    report = json.loads(out)
    assert report["solved"] is False
    assert "more than 2,000 positions" in report["reason"]
    code, _, err = run(capsys, "solve", "flipfour", "--max-positions", "2000", "--quiet")
    assert code == 1
    assert "too large to solve here" in err
    # Chance games keep to the budget too (this variant has no kernel and no end in sight).
    argv = ["solve", "flip-switch", "-o", "switch_limit=2", "--max-positions", "2000", "--quiet"]
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert "too large to solve here" in err


def test_solve_checkered_flag_with_fixed_policies(capsys):
    code, out, _ = run(
        capsys, "solve", "checkered-flag", "-o", "track=short", "--policies", "--json"
    )
    assert code == 0
    report = json.loads(out)
    assert report["solver"] == "stochastic"
    assert abs(sum(report["value"].values()) - 1) < 1e-12
    assert report["exact"]["win"] == report["exact"]["loss"] == "1/2"  # start=spin is fair
    pairs = {(row["first"], row["second"]) for row in report["policies"]}
    assert ("always 1st", "up to 3rd") in pairs
    assert ("optimal", "always 1st") in pairs
    assert ("optimal", "optimal") not in pairs


def test_analyze_a_solved_position_lists_values_and_remoteness(capsys):
    code, out, _ = run(capsys, "analyze", "flipflop-3x3", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["kind"] == "exact"
    rows = {row["action"]: (row["value"], row["remoteness"]) for row in report["actions"]}
    assert rows["b1xb3"] == ("win", 15)
    assert rows["b1-b2"][0] == "loss"
    assert report["actions"][0]["action"] == "b1xb3"


def test_analyze_an_unsolved_game_gives_scores_and_lines(capsys):
    code, out, _ = run(capsys, "analyze", "flipflop", "--depth", "2", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["kind"] == "alpha-beta depth 2"
    assert len(report["actions"]) == 16
    for row in report["actions"]:
        assert row["pv"][0] == row["action"]
    scores = [row["score"] for row in report["actions"]]
    assert scores == sorted(scores, reverse=True)


def test_analyze_a_chance_node_lists_the_outcomes(capsys):
    code, out, _ = run(capsys, "analyze", "flip-switch", "-o", "rounds=3", "--moves", "b2")
    assert code == 0
    assert "chance node" in out
    assert "heart" in out and "1/3" in out


def test_analyze_a_finished_game_is_an_error(capsys):
    finished = random_game(make("flipflop-3x3"), random.Random(3))
    moves = " ".join(finished.history_notation())
    code, _, err = run(capsys, "analyze", "flipflop-3x3", "--moves", moves)
    assert code == 1
    assert f"the game is over ({finished.result()})" in err


def test_analyze_with_illegal_moves_names_the_bad_one(capsys):
    code, _, err = run(capsys, "analyze", "flipflop-3x3", "--moves", "b1xb3 a3xb3 c1-c3")
    assert code == 1
    assert "--moves action 3 ('c1-c3')" in err


def test_arena_prints_the_score_with_an_interval(capsys):
    code, out, _ = run(
        capsys,
        "arena",
        "flipflop-3x3",
        "--a",
        "medium",
        "--b",
        "random",
        "--games",
        "4",
        "--json",
    )
    assert code == 0
    result = json.loads(out)
    assert result["games"] == 4
    assert result["wins"] + result["draws"] + result["losses"] == 4
    low, high = result["interval"]
    assert 0 <= low <= result["score"] <= high <= 1


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["arena", "flipflop-3x3", "--a", "genius"], "unknown level 'genius'"),
        (["arena", "flipflop", "--a", "perfect"], "level 'perfect' needs a solved game"),
        (["play", "flipfour", "--vs", "perfect"], "level 'perfect' needs a solved game"),
    ],
)
def test_bad_levels_are_refused(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert words in err


def test_play_against_a_level_with_hints(capsys, monkeypatch):
    feed(monkeypatch, ["hint", "b1xb3", "quit"])
    assert main(["play", "flipflop-3x3", "--vs", "perfect", "--hint", "--seed", "4"]) == 0
    out, _ = capsys.readouterr()
    assert "hint (perfect): b1xb3" in out
    assert "Black (perfect) plays" in out


def test_hint_is_off_unless_asked_for(capsys, monkeypatch):
    feed(monkeypatch, ["hint", "quit"])
    main(["play", "flipflop-3x3", "--seed", "4"])
    assert "hints are off" in capsys.readouterr().out


def test_analyze_a_solved_chance_game_gives_expected_values_and_odds(capsys):
    code, out, _ = run(
        capsys,
        "analyze",
        "checkered-flag",
        "-o",
        "track=short",
        "-o",
        "start=first",
        "--moves",
        "1 2 1 3",
        "--json",
    )
    assert code == 0
    report = json.loads(out)
    assert report["kind"] == "exact"
    assert {row["action"] for row in report["actions"]} == {"1", "2"}
    for row in report["actions"]:
        assert abs(row["win"] + row["draw"] + row["loss"] - 1) < 1e-9
        assert abs(row["win"] - row["loss"] - row["value"]) < 1e-9
