"""``flipgames engine``: speak the flipgames engine protocol on stdin and stdout.

The protocol (docs/engine-protocol.md) is line based, like UCI for chess: a controller sends
``hello``, ``newgame GAME [name=value ...]``, ``position [startpos | fen TEXT] [moves ...]``
and ``go [movetime MS | nodes N]``; the engine answers ``bestmove ACTION``, choosing at its
level (a budget replaces the level's own, the level keeps its algorithm). Every problem is
one ``error ...`` line and changes nothing (an unknown ``setoption`` name is ignored with an
``info string`` line, as UCI engines do); the engine keeps running until ``quit`` or the end
of its input.

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
from flipgames.agents.levels import LEVELS, Budget, levels_for, make_level_agent
from flipgames.core.errors import FlipgamesError, quote
from flipgames.core.game import Game, State
from flipgames.core.options import parse_option_pairs
from flipgames.core.registry import game_names, make

#: The protocol version ``hello`` reports; bumped when a command changes meaning.
PROTOCOL_VERSION = 2


class ProtocolError(FlipgamesError):
    """A command the engine cannot carry out; the engine says why and carries on."""


class Engine:
    """The engine's state between commands: the game, the position, the level and the seed."""

    def __init__(self, level: str, seed: int | None) -> None:
        self.level = level
        self.rng = random.Random(seed)
        #: The agents of this game by budget (None: the level's own), kept from one go to the
        #: next as a UCI engine keeps its hash table: their transposition tables are facts
        #: about positions. newgame and a new level or seed start afresh.
        self.agents: dict[Budget | None, Agent] = {}
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
        if rest[:1] != ["name"] or len(rest) < 2 or rest[1] == "value":
            raise ProtocolError("write setoption name level value hard (or name seed value 7)")
        # As UCI has it: the name is the words up to "value", the value the words after.
        split = rest.index("value") if "value" in rest else len(rest)
        name, value = " ".join(rest[1:split]), " ".join(rest[split + 1 :])
        if name not in ("level", "seed"):
            # A controller may send options meant for other engines: UCI engines ignore them.
            return [
                f"info string unknown option {quote(name)} ignored: the options are level and seed"
            ]
        if not value:
            raise ProtocolError(f"setoption name {name} needs a value")
        if name == "level":
            if value != "random" and value not in LEVELS:
                raise ProtocolError(
                    f"unknown level {quote(value)}: choose random, {', '.join(LEVELS)}"
                )
            if self.state is not None:
                _check_level(self.state.game, value)
            self.level = value
            self.agents.clear()
        else:
            try:
                self.rng = random.Random(int(value))
                self.agents.clear()
            except ValueError:
                raise ProtocolError(f"seed must be an integer, not {quote(value)}") from None
        return []

    def cmd_newgame(self, rest: list[str]) -> list[str]:
        if not rest:
            raise ProtocolError(f"newgame needs a game: one of {', '.join(game_names())}")
        game = make(rest[0], parse_option_pairs(rest[1:]))
        _check_level(game, self.level)
        self.state = game.new_initial_state()
        self.agents.clear()
        _load_kernels(game, self.level)
        return []

    def cmd_position(self, rest: list[str]) -> list[str]:
        game = self._require_game().game
        split = rest.index("moves") if "moves" in rest else len(rest)
        start, moves = rest[:split], rest[split + 1 :]
        if start[:1] == ["startpos"] and len(start) == 1:
            start = []
        elif start[:1] == ["fen"]:
            start = start[1:]
            if not start:
                raise ProtocolError("write position fen TEXT [moves A1 A2 ...]")
        state = game.from_position(" ".join(start)) if start else game.new_initial_state()
        for index, text in enumerate(moves):
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
        budget = self._budget(rest)
        if budget not in self.agents:
            game = self._require_game().game
            self.agents[budget] = make_level_agent(game, self.level, self.rng, budget=budget)
        return self.agents[budget]

    def _budget(self, rest: list[str]) -> Budget | None:
        if not rest:
            return None
        if len(rest) != 2 or rest[0] not in ("movetime", "nodes"):
            raise ProtocolError("write go, go movetime MS or go nodes N")
        try:
            amount = int(rest[1])
        except ValueError:
            raise ProtocolError(f"{rest[0]} must be a whole number, not {quote(rest[1])}") from None
        if amount < 1:
            raise ProtocolError(f"{rest[0]} must be at least 1, not {amount}")
        # The level's own algorithm under the controller's budget (a movetime is wall-clock
        # milliseconds, as a controller times its engine).
        return Budget(seconds=amount / 1000) if rest[0] == "movetime" else Budget(nodes=amount)

    def _require_game(self) -> State:
        if self.state is None:
            raise ProtocolError("no game: send newgame GAME first")
        return self.state


def _load_kernels(game: Game, level: str) -> None:
    """Load the compiled code ``level`` runs in ``game`` (from numba's disk cache; compiled
    there on a machine that never ran ``flipgames warmup``) with a search of a few nodes, so
    the first ``go movetime`` spends its time searching (a UCI engine readies itself before
    it answers ``isready``). ``perfect`` and ``random`` are left alone: a first solve can
    take minutes, and random has nothing to load."""
    if level in ("random", "perfect"):
        return
    state = game.new_initial_state()
    while state.is_chance_node():
        state = state.apply(state.chance_outcomes()[0][0])
    if not state.is_terminal():
        agent = make_level_agent(game, level, random.Random(0), budget=Budget(nodes=50))
        agent.choose(state)


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
