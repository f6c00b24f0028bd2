"""One input convention for every game: letters in any case (squares, face and colour letters,
shapes, circles); the in-game help shows each game's notation with examples; progress bars
follow the documented rules."""

from __future__ import annotations

import builtins
import io
import random
from collections.abc import Iterator

import pytest
from rich.console import Console

from flipgames import game_names, make
from flipgames.cli.main import main
from flipgames.cli.progress import TerminalProgress
from flipgames.core.game import Game, State, random_action

VARIANTS = [make(name) for name in game_names()] + [
    make("rubiks-flip", flip="flap"),
    make("flip-switch", no_move="pass"),
]


def states(game: Game, seed: int) -> Iterator[State]:
    """The states of a random game, start to end."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal() and len(state.history) < 60:
        yield state
        state = state.apply(random_action(state, rng))


@pytest.mark.parametrize("game", VARIANTS, ids=str)
def test_every_action_parses_in_any_letter_case(game: Game) -> None:
    for state in states(game, seed=5):
        for action in state.legal_actions():
            text = state.action_to_string(action)
            for written in (text.upper(), text.lower(), text.swapcase()):
                assert state.parse_action(written) == action, (text, written)


@pytest.mark.parametrize(
    ("name", "typed", "canonical"),
    [
        ("flipflop-3x3", "B1XB3", "b1xb3"),
        ("flipflop-3x3", "rb1xb3=b", "b1xb3"),
        ("flipflop", "A1-A2", "a1-a2"),
        ("flipfour", "r@C3", "R@c3"),
        ("rubiks-flip", "C3r", "c3R"),
        ("flip-switch", "B2", "b2"),
    ],
)
def test_the_issue_examples_are_accepted_and_printed_canonically(
    name: str, typed: str, canonical: str
) -> None:
    state = make(name).new_initial_state()
    assert state.action_to_string(state.parse_action(typed)) == canonical


@pytest.mark.parametrize("game", VARIANTS, ids=str)
def test_the_notation_help_gives_examples_that_are_this_games_notation(game: Game) -> None:
    help_text = game.notation_help()
    assert help_text != Game.notation_help(game)  # the game's own, not the fallback
    assert help_text.count("e.g.") + help_text.count("such as") + help_text.count(":") >= 2


@pytest.mark.parametrize("name", game_names())
def test_help_in_play_shows_the_notation_and_two_legal_examples(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter(["help", "moves"])

    def fake_input(prompt: str = "") -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", fake_input)
    assert main(["play", name, "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert make(name).notation_help() in out
    examples = out.split("Legal here, for example: ", 1)[1].splitlines()[0].split(", ")
    legal = out.split("legal actions: ", 1)[1].splitlines()[0].split()
    assert set(examples) <= set(legal)
    assert len(examples) == min(2, len(legal))


def bars(console: Console) -> str:
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


def test_progress_draws_nothing_when_disabled() -> None:
    with TerminalProgress(None) as progress:
        progress("solving", done=1, total=2)
        progress("a remark")
        with progress.thinking("player 2 (hard) is thinking"):
            pass
    assert not progress.enabled


def test_progress_counts_on_and_starts_a_new_bar_for_a_new_job() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    with TerminalProgress(console) as progress:
        progress("game 1/3: A won", done=1, total=3)
        progress("game 2/3: A lost", done=2, total=3)  # same total, counting on: same bar
        progress("game 3/3: A won", done=3, total=3)
        progress("enumerated 5,000 positions", done=5000)  # a new total: a new bar
        progress("solved 10 of 10 positions", done=10, total=10)
        progress("enumerated 8 positions and 12 actions")  # no count: a line of its own
    shown = bars(console)
    assert "game 3/3: A won" in shown and "3/3" in shown
    assert "5,000" in shown
    assert "10/10" in shown
    assert "  enumerated 8 positions and 12 actions" in shown


def test_a_report_inside_a_thinking_line_replaces_it() -> None:
    """Loading a cached solution shows a thinking line; if the cache must be rebuilt the
    solver's reports take over (rich allows one live display at a time)."""
    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    with TerminalProgress(console) as progress, progress.thinking("loading the solution"):
        progress("enumerated 5 positions", done=5)
        progress("enumerated 10 positions", done=10)
    assert "loading the solution..." in bars(console)
    assert "enumerated 10 positions" in bars(console)


def test_the_flipfour_legend_names_every_letter_the_board_shows() -> None:
    state = make("flipfour").new_initial_state()
    for text in ["R@a1", "B@e5", "B@b2", "R@d4"]:  # White R, Black b, White B, Black r
        state = state.apply(state.parse_action(text))
    board, legend = state.render().rsplit("In hand:", 1)
    ranks = [line[1:-1] for line in board.splitlines() if line[:1].isdigit()]  # cells only
    shown = {ch for line in ranks for ch in line if ch.isalpha()}
    assert shown == {"R", "B", "r", "b"}
    for letter in shown:
        assert f"{letter}," in legend or f"{letter})" in legend or f"{letter} " in legend
    assert "rook" in legend and "bishop" in legend and "[ ]" in legend
