"""The engine protocol (docs/engine-protocol.md) through the real entry point: `flipgames
engine` answers every command, bad input is one `error` line that changes nothing, and the
arena seats an outside program with `--a engine:CMD`."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from flipgames import make
from flipgames.agents.external import EngineAgent, EngineError, seat_agent
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.agents.mcts import MCTSAgent
from flipgames.agents.search import AlphaBetaAgent
from flipgames.cli.engine import Engine
from flipgames.solvers import catalog

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
    assert "id protocol 2" in reply
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
        "info string unknown option 'depth' ignored: the options are level and seed",
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


def test_a_budget_keeps_the_levels_algorithm():
    """`go nodes N` at hard is the level's compiled alpha-beta with N nodes (the same move as
    that search seeded alike), not an MCTS; at medium FlipFlop 5x5's alpha-beta to depth 3;
    `go movetime` is the level's search on that clock."""
    flipfour, flipflop = make("flipfour"), make("flipflop")
    after = flipfour.state_from_actions(["R@a1"])
    reply = talk("newgame flipfour", "position moves R@a1", "go nodes 3000")
    search = KernelAlphaBetaAgent(random.Random(5), flipfour, max_nodes=3000)
    assert reply == [f"bestmove {after.action_to_string(search.choose(after))}"]
    start = flipflop.new_initial_state()
    reply = talk("newgame flipflop", "setoption name level value medium", "go nodes 400")
    medium = AlphaBetaAgent(random.Random(5), depth=3, max_nodes=400)
    assert reply == [f"bestmove {start.action_to_string(medium.choose(start))}"]
    engine = Engine("hard", 1)
    engine.handle("newgame flipflop-3x3")
    agent = engine._agent(["movetime", "250"])
    assert isinstance(agent, KernelAlphaBetaAgent) and agent.seconds == 0.25
    assert engine._agent(["movetime", "250"]) is agent  # kept, with its table, between gos
    engine.handle("setoption name level value easy")
    easy = engine._agent(["nodes", "77"])
    assert isinstance(easy, MCTSAgent) and easy.iterations == 77
    engine.handle("newgame flipflop-3x3")
    assert engine._agent(["nodes", "77"]) is not easy  # a new game starts afresh
    # Three plies in, Black has one winning move (a win in 5 plies): hard's alpha-beta finds
    # it within a quarter of a second, whatever the seed.
    game, moves = make("flipflop-3x3"), ["c1-c2", "b3xb1", "a1xb1"]
    state = game.state_from_actions(moves)
    assert [state.action_to_string(a) for a in catalog.solution(game).best_actions(state)] == [
        "a3-a2"
    ]
    for seed in ("1", "2", "3"):
        reply = talk(
            "newgame flipflop-3x3", f"position moves {' '.join(moves)}", "go movetime 250",
            args=("--seed", seed),
        )  # fmt: skip
        assert reply == ["bestmove a3-a2"]


def test_position_fen_and_notation_set_the_position():
    """`position fen TEXT [moves ...]` (and the text alone) sets a deterministic game's
    position; malformed text, a game without a notation or a bad move is one error line and
    the position stays as it was."""
    game = make("flipfour")
    played = game.state_from_actions(["R@a1", "b@c3", "R@b2"])
    text = played.position()
    reply = talk(
        "newgame flipfour",
        "position startpos moves R@a1 b@c3 R@b2",
        "go nodes 2000",
        f"position fen {text}",
        "setoption name seed value 5",  # each go from the same seed: the same tie-breaks
        "go nodes 2000",
        f"position {game.new_initial_state().position()} moves R@a1 b@c3",
        "position fen 5/5/5/5/5 w 44 moves R@a1 b@c3 R@b2",
        "setoption name seed value 5",
        "go nodes 2000",
        "position fen 6/5/5/5/5 w 44",
        "position fen 5/5/5/5/5 w 44 moves R@a1 R@a1",
        "position fen",
        "setoption name seed value 5",
        "go nodes 2000",
        "newgame flip-switch",
        "position fen 3/3/3 w",
    )
    first = reply[0]
    assert first.startswith("bestmove ") and reply[1:3] == [first, first]
    assert reply[3].startswith("error ") and "6" in reply[3]
    assert reply[4].startswith("error move 2 ('R@a1'): ")
    assert reply[5] == "error write position fen TEXT [moves A1 A2 ...]"
    assert reply[6] == first  # the bad positions changed nothing
    assert reply[7].startswith("error Flip Switch has no position notation")
    assert len(reply) == 8
    played.parse_action(first.split()[1])  # legal there


def test_unknown_options_are_ignored_with_an_info_line():
    reply = talk(
        "setoption name Hash value 64",
        "setoption name UCI_Chess960",
        "setoption name Skill Level value 3",
        "setoption name level",
        "setoption value 3",
        "newgame flipflop-3x3",
        "go nodes 10",
    )
    assert reply[:5] == [
        "info string unknown option 'Hash' ignored: the options are level and seed",
        "info string unknown option 'UCI_Chess960' ignored: the options are level and seed",
        "info string unknown option 'Skill Level' ignored: the options are level and seed",
        "error setoption name level needs a value",
        "error write setoption name level value hard (or name seed value 7)",
    ]
    assert reply[5].startswith("bestmove ") and len(reply) == 6


def test_the_arena_gives_an_engine_movetime_and_starts_it_once_a_game(tmp_path):
    """`arena --movetime MS` sends `go movetime MS` with every move; the program is started
    once for each game it plays, never once more as a probe."""
    log = tmp_path / "log.txt"
    script = tmp_path / "logging_engine.py"
    script.write_text(
        "import subprocess, sys\n"
        f"log = open({str(log)!r}, 'a')\n"
        "log.write('start\\n'); log.flush()\n"
        "engine = subprocess.Popen([sys.executable, '-m', 'flipgames', 'engine', '--seed', '1'],"
        " stdin=subprocess.PIPE, text=True, bufsize=1)\n"
        "for line in sys.stdin:\n"
        "    if line.startswith('go'): log.write(line); log.flush()\n"
        "    engine.stdin.write(line)\n"
        "    if line.startswith('quit'): break\n"
        "engine.stdin.close(); engine.wait()\n"
    )
    done = subprocess.run(
        [
            sys.executable, "-m", "flipgames", "arena", "flipflop-3x3",
            "--a", f"engine:{sys.executable} {script}", "--b", "hard",
            "--games", "2", "--movetime", "40", "--json",
        ],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["games"] == 2 and result["movetime"] == 40
    lines = log.read_text().splitlines()
    assert lines.count("start") == 2
    goes = [line for line in lines if line != "start"]
    assert goes and set(goes) == {"go movetime 40"}
    assert len(goes) >= 2  # the engine's moves in both games


def test_the_arena_refuses_a_bad_movetime_and_names_an_engine_that_does_not_start():
    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "flipgames", "arena", "flipflop-3x3", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    bad = arena("--movetime", "0")
    assert bad.returncode == 2 and "--movetime" in bad.stderr and "Traceback" not in bad.stderr
    missing = arena("--a", "engine:/no/such/program", "--games", "1", "--quiet")
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert "engine '/no/such/program' could not be started" in missing.stderr
