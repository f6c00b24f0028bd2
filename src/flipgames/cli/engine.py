"""``flipgames engine``: speak the flipgames engine protocol on stdin and stdout.

The protocol (docs/engine-protocol.md) is line based, like UCI for chess: a controller sends
``hello``, ``newgame GAME [name=value ...]``, ``position moves ...`` and ``go [movetime MS |
nodes N]``; the engine answers ``bestmove ACTION``. Every problem is one ``error ...`` line
and changes nothing; the engine keeps running until ``quit`` or the end of its input.

>>> import io
>>> out = io.StringIO()
>>> commands = "newgame flipflop-3x3\\nposition moves a1-a2\\ngo nodes 50\\nquit\\n"
>>> serve_engine(io.StringIO(commands), out, level="hard", seed=1)
0
>>> out.getvalue().split()[0]
'bestmove'
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any, TextIO

from flipgames import __version__
from flipgames.agents.base import Agent
from flipgames.agents.levels import LEVELS, levels_for, make_level_agent
from flipgames.agents.mcts import MCTSAgent
from flipgames.core.errors import FlipgamesError, quote
from flipgames.core.game import Game, State
from flipgames.core.options import parse_option_pairs
from flipgames.core.registry import game_names, make

#: The protocol version ``hello`` reports; bumped when a command changes meaning.
PROTOCOL_VERSION = 1


class ProtocolError(FlipgamesError):
    """A command the engine cannot carry out; the engine says why and carries on."""


class Engine:
    """The engine's state between commands: the game, the position, the level and the seed."""

    def __init__(self, level: str, seed: int | None) -> None:
        self.level = level
        self.rng = random.Random(seed)
        self.state: State | None = None

    def handle(self, line: str) -> list[str]:
        """The reply lines to one command line (none for most commands)."""
        words = line.split()
        if not words:
            return []
        command, rest = words[0], words[1:]
        handler = getattr(self, f"cmd_{command}", None)
        if handler is None or command == "quit":
            raise ProtocolError(
                f"unknown command {quote(command)}: expected hello, isready, setoption, newgame, "
                "position, go or quit"
            )
        reply: list[str] = handler(rest)
        return reply

    def cmd_hello(self, rest: list[str]) -> list[str]:
        return [
            f"id name flipgames {__version__}",
            f"id protocol {PROTOCOL_VERSION}",
            f"games {' '.join(game_names())}",
            f"option name level default {self.level} values random {' '.join(LEVELS)}",
            "option name seed",
            "hellook",
        ]

    def cmd_isready(self, rest: list[str]) -> list[str]:
        return ["readyok"]

    def cmd_setoption(self, rest: list[str]) -> list[str]:
        if len(rest) != 4 or rest[0] != "name" or rest[2] != "value":
            raise ProtocolError("write setoption name level value hard (or name seed value 7)")
        name, value = rest[1], rest[3]
        if name == "level":
            if value != "random" and value not in LEVELS:
                raise ProtocolError(
                    f"unknown level {quote(value)}: choose random, {', '.join(LEVELS)}"
                )
            if self.state is not None:
                _check_level(self.state.game, value)
            self.level = value
        elif name == "seed":
            try:
                self.rng = random.Random(int(value))
            except ValueError:
                raise ProtocolError(f"seed must be an integer, not {quote(value)}") from None
        else:
            raise ProtocolError(f"unknown option {quote(name)}: the options are level and seed")
        return []

    def cmd_newgame(self, rest: list[str]) -> list[str]:
        if not rest:
            raise ProtocolError(f"newgame needs a game: one of {', '.join(game_names())}")
        game = make(rest[0], parse_option_pairs(rest[1:]))
        _check_level(game, self.level)
        self.state = game.new_initial_state()
        return []

    def cmd_position(self, rest: list[str]) -> list[str]:
        state = self._require_game().game.new_initial_state()
        if rest and rest[0] == "startpos":
            rest = rest[1:]
        if rest and rest[0] != "moves":
            raise ProtocolError("write position moves A1 A2 ... (or just position)")
        for index, text in enumerate(rest[1:]):
            try:
                state = state.apply(state.parse_action(text))
            except FlipgamesError as exc:
                raise ProtocolError(f"move {index + 1} ({quote(text)}): {exc}") from None
        self.state = state
        return []

    def cmd_go(self, rest: list[str]) -> list[str]:
        state = self._require_game()
        if state.is_terminal():
            raise ProtocolError(f"the game is over ({state.result()}): no move to make")
        if state.is_chance_node():
            raise ProtocolError(
                "the position is at a chance node: the controller draws the outcome and sends "
                "it in position moves"
            )
        agent = self._agent(rest)
        return [f"bestmove {state.action_to_string(agent.choose(state))}"]

    def _agent(self, rest: list[str]) -> Agent:
        game = self._require_game().game
        if not rest:
            return make_level_agent(game, self.level, self.rng)
        if len(rest) != 2 or rest[0] not in ("movetime", "nodes"):
            raise ProtocolError("write go, go movetime MS or go nodes N")
        try:
            amount = int(rest[1])
        except ValueError:
            raise ProtocolError(f"{rest[0]} must be a whole number, not {quote(rest[1])}") from None
        if amount < 1:
            raise ProtocolError(f"{rest[0]} must be at least 1, not {amount}")
        if rest[0] == "movetime":
            return MCTSAgent(self.rng, iterations=None, seconds=amount / 1000)
        return MCTSAgent(self.rng, iterations=amount)

    def _require_game(self) -> State:
        if self.state is None:
            raise ProtocolError("no game: send newgame GAME first")
        return self.state


def _check_level(game: Game, level: str) -> None:
    """Refuse a level ``game`` lacks (``perfect`` on an unsolved game) without building it:
    building ``perfect`` may solve the game, which can take minutes."""
    if level != "random" and level not in levels_for(game):
        raise ProtocolError(
            f"level {quote(level)} needs a solved game and {game.name} is not solved with these "
            f"options; its levels are {', '.join(levels_for(game))}"
        )


def serve_engine(commands: TextIO, replies: TextIO, level: str, seed: int | None) -> int:
    """Answer ``commands`` line by line on ``replies`` until ``quit`` or their end."""
    engine = Engine(level, seed)
    for line in commands:
        if line.split()[:1] == ["quit"]:
            break
        try:
            lines = engine.handle(line)
        except FlipgamesError as exc:
            lines = [f"error {' '.join(str(exc).split())}"]
        for reply in lines:
            replies.write(reply + "\n")
        replies.flush()
    return 0


def cmd_engine(args: argparse.Namespace) -> int:
    return serve_engine(sys.stdin, sys.stdout, level=args.level, seed=args.seed)


def add_engine_command(sub: Any) -> None:
    """Register ``flipgames engine``."""
    text = "speak the flipgames engine protocol on stdin/stdout (docs/engine-protocol.md)"
    p = sub.add_parser("engine", help=text, description=text)
    p.add_argument(
        "--level",
        default="hard",
        help="what 'go' plays without a budget: random, easy, medium, hard or perfect "
        "(default hard)",
    )
    p.add_argument("--seed", type=int, help="seed for the engine's choices (default: random)")
    p.set_defaults(run=cmd_engine)
