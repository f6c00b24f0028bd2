"""``flipgames`` on a real (pseudo-)terminal: Ctrl-C keeps the record, long jobs show
progress, the AI shows that it is thinking, and none of that reaches a pipe."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flipgames import replay_record

Start = Callable[..., Any]  # the ``terminal`` fixture: starts flipgames on a pseudo-terminal
Run = Callable[..., Any]  # the ``flipgames`` fixture: runs it with pipes


def test_ctrl_c_at_the_prompt_saves_every_action_typed(terminal: Start, tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    term = terminal("play", "flipflop-3x3", "--seed", "1", "--save", str(record))
    term.read_until("White to move")
    term.type("b1xb3\n")
    term.read_until("Black to move")
    # Written after every action already, before any Ctrl-C.
    assert json.loads(record.read_text())["actions"] == ["b1xb3"]
    term.ctrl_c()
    assert term.wait() == 130
    assert "interrupted: stopping the game" in term.shown
    assert f"record saved to {record}" in term.shown
    assert "Traceback" not in term.shown
    assert json.loads(record.read_text())["actions"] == ["b1xb3"]
    assert replay_record(record.read_text()).history_notation() == ["b1xb3"]


def test_ctrl_c_while_the_computer_thinks_saves_the_record(terminal: Start, tmp_path: Path) -> None:
    """The hard level thinks about a second a move on FlipFour: Ctrl-C in that second. The
    record holds exactly the moves shown (none, unless the move was made just before)."""
    record = tmp_path / "game.json"
    # FlipFour's hard is the compiled search: Ctrl-C lands inside compiled code.
    term = terminal("play", "flipfour", "--vs", "hard", "--seat", "2", "--save", str(record))
    term.read_until("is thinking")
    term.ctrl_c()
    assert term.wait() == 130
    assert "Traceback" not in term.shown
    played = re.findall(r"\(alphabeta(?:-kernel)?\) plays (\S+)", term.shown)
    assert replay_record(record.read_text()).history_notation() == played
    assert json.loads(record.read_text())["result"] == "*"


def test_a_long_solve_shows_a_progress_bar_on_a_terminal_only(
    terminal: Start, flipgames: Run, tmp_path: Path
) -> None:
    # A cache of its own: a solution cached by another test would leave nothing to show. The
    # reference walk is the long solve (on the kernel it takes a fraction of a second).
    cache = {"FLIPGAMES_CACHE": str(tmp_path), "FLIPGAMES_KERNEL": "python"}
    term = terminal("solve", "flipflop-3x3", "--max-positions", "250000", env=cache)
    term.read_until("positions")
    assert term.wait() == 0
    assert "/s" in term.shown  # the rate column of the bar
    assert "White, to move first, wins in 15 plies" in term.shown
    piped = flipgames("solve", "flipflop-3x3")
    assert piped.code == 0
    assert piped.err == ""  # no bar, no rate: stderr is not a terminal


def test_the_computer_shows_that_it_is_thinking(terminal: Start) -> None:
    term = terminal("play", "flipflop", "--vs", "hard", "--seat", "2", "--seed", "3")
    # The compiled alpha-beta where the game has a kernel ("alphabeta-kernel").
    term.read_until("White (alphabeta")
    term.read_until(") is thinking...")
    term.read_until("Black to move")
    term.type("quit\n")
    assert term.wait() == 0


def test_a_hint_shows_that_it_is_thinking(terminal: Start) -> None:
    term = terminal("play", "flipfour", "--hint", "--seed", "3")
    term.read_until("White to move")
    term.type("hint\n")
    # The hint names its agent (the compiled alpha-beta where the game has a kernel).
    term.read_until(") is thinking...")
    term.read_until("hint (alphabeta")
    term.read_until("): ")
    term.type("quit\n")
    assert term.wait() == 0


def test_perft_shows_progress_per_depth(terminal: Start) -> None:
    term = terminal("perft", "flipflop", "4")
    assert term.wait() == 0
    assert "perft(4)" in term.shown and "16/16" in term.shown
    assert "perft(4) = 41666" in term.shown


def test_the_first_flip_switch_solve_is_announced_with_its_cost(
    terminal: Start, tmp_path: Path
) -> None:
    """`analyze flip-switch` on the reference engines needs the full one-round solve (minutes):
    it says what that costs before starting (the test stops it there)."""
    term = terminal(
        "analyze",
        "flip-switch",
        env={"FLIPGAMES_CACHE": str(tmp_path), "FLIPGAMES_KERNEL": "python"},
    )
    shown = term.read_until("first exact solve of flip-switch")
    term.read_until("this happens once")
    assert "one round (rounds=1)" in shown
    assert "GB of memory" in term.shown
    term.ctrl_c()
    assert term.wait() == 130
    assert "Traceback" not in term.shown


def test_the_policy_table_shows_one_bar_over_the_pairs(terminal: Start) -> None:
    term = terminal("solve", "checkered-flag", "-o", "track=short", "--policies")
    assert term.wait() == 0
    assert "policies evaluated" in term.shown and "15/15" in term.shown
    assert "always 1st" in term.shown
