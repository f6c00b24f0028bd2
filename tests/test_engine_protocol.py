"""The engine protocol (docs/engine-protocol.md) through the real entry point: `flipgames
engine` answers every command, bad input is one `error` line that changes nothing, and the
arena seats an outside program with `--a engine:CMD`."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from flipgames import make
from flipgames.agents.external import EngineAgent, EngineError, seat_agent

ENGINE = [sys.executable, "-m", "flipgames", "engine", "--seed", "5"]


def talk(*lines: str, args: tuple[str, ...] = ()) -> list[str]:
    """Send command lines to a fresh `flipgames engine`; its reply lines."""
    done = subprocess.run(
        [*ENGINE, *args],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stderr == ""
    return done.stdout.splitlines()


def test_hello_names_the_engine_protocol_and_games():
    reply = talk("hello", "isready", "quit")
    assert reply[0].startswith("id name flipgames ")
    assert "id protocol 1" in reply
    assert "games flipflop flipflop-3x3 flipfour rubiks-flip flip-switch checkered-flag" in reply
    assert reply[-2:] == ["hellook", "readyok"]


def test_go_answers_a_legal_bestmove_in_every_game():
    for name, moves in [
        ("flipflop-3x3", "a1-a2"),
        ("flipfour", "R@a1"),
        ("rubiks-flip", "b2R"),
        ("flip-switch", "b2 heart"),
        ("checkered-flag start=first", "1 2"),
    ]:
        reply = talk(f"newgame {name}", f"position moves {moves}", "go nodes 20")
        assert len(reply) == 1 and reply[0].startswith("bestmove "), (name, reply)
        game, *options = name.split()
        state = make(game, dict(o.split("=") for o in options)).state_from_actions(moves.split())
        state.parse_action(reply[0].split(" ", 1)[1])  # raises if illegal


def test_go_movetime_and_levels():
    reply = talk(
        "newgame flipflop-3x3",
        "go movetime 30",
        "setoption name level value medium",
        "go",
        args=("--level", "easy"),
    )
    assert [line.split()[0] for line in reply] == ["bestmove", "bestmove"]


def test_bad_commands_are_one_error_line_each_and_change_nothing():
    reply = talk(
        "go",
        "newgame chess",
        "newgame flipflop-3x3 size=4",
        "newgame flipflop-3x3",
        "position moves a1-a2 zz",
        "position moves b1-b3",
        "go movetime soon",
        "go nodes 0",
        "setoption name level value grandmaster",
        "setoption name depth value 3",
        "fly",
        "go nodes 10",
        "newgame flip-switch",
        "position moves b2",
        "go",
    )
    assert reply[:11] == [
        "error no game: send newgame GAME first",
        "error unknown game 'chess': known games are flipflop, flipflop-3x3, flipfour, "
        "rubiks-flip, flip-switch, checkered-flag",
        "error unknown option 'size': this game's options are none",
        "error move 2 ('zz'): 'zz' is not a FlipFlop move: expected a move like 'a1-a2', "
        "a capture like 'b1xb3' or the long form 'Rb1xb3=B', with squares a1 to c3",
        "error move 1 ('b1-b3'): 'b1-b3' is a capture here: write b1xb3",
        "error movetime must be a whole number, not 'soon'",
        "error nodes must be at least 1, not 0",
        "error unknown level 'grandmaster': choose random, easy, medium, hard, perfect",
        "error unknown option 'depth': the options are level and seed",
        "error unknown command 'fly': expected hello, isready, setoption, newgame, position, "
        "go or quit",
        # The rejected commands changed nothing: White is still to move at the start.
        reply[10],
    ]
    first_move = reply[10].split()[1]
    assert first_move in ("a1-a2", "b1-b2", "b1xb3", "c1-c2")
    assert reply[11:] == [
        "error the position is at a chance node: the controller draws the outcome and sends "
        "it in position moves"
    ]


def test_an_unsolved_game_refuses_the_perfect_level():
    reply = talk("newgame flipflop", "setoption name level value perfect")
    assert reply == [
        "error level 'perfect' needs a solved game and flipflop is not solved with these "
        "options; its levels are easy, medium, hard"
    ]


def test_the_arena_seats_an_outside_engine():
    command = " ".join([*ENGINE, "--level", "easy"])
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "flipgames",
            "arena",
            "flipflop-3x3",
            "--a",
            f"engine:{command}",
            "--b",
            "random",
            "--games",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert '"games": 2' in done.stdout


def test_an_engine_that_does_not_start_or_plays_nonsense_is_a_clear_error(tmp_path):
    game = make("flipflop-3x3")
    with pytest.raises(EngineError, match="could not be started"):
        seat_agent(game, "engine:/no/such/program", random.Random(0))
    with pytest.raises(EngineError, match="needs a command"):
        seat_agent(game, "engine:", random.Random(0))
    # A program that answers hello but then plays an illegal move.
    fake = (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    w = line.split()\n"
        "    if w[:1] == ['hello']: print('hellook', flush=True)\n"
        "    if w[:1] == ['isready']: print('readyok', flush=True)\n"
        "    if w[:1] == ['go']: print('bestmove a1-c3', flush=True)\n"
        "    if w[:1] == ['quit']: break\n"
    )
    script = tmp_path / "fake_engine.py"
    script.write_text(fake)
    agent = EngineAgent(random.Random(0), game, f"{sys.executable} {script}", timeout=30)
    with pytest.raises(EngineError, match="played 'a1-c3'"):
        agent.choose(game.new_initial_state())
    agent.close()
