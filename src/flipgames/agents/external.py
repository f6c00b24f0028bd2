"""Seat an outside program that speaks the flipgames engine protocol (docs/engine-protocol.md).

A seat is named ``engine:CMD``: CMD is the program's command line, split as a shell would
(no shell runs it). The program is started once per agent, greeted with ``hello``, told the
game with ``newgame``, and asked for each move with ``position moves ...`` and ``go``; it
is told ``quit`` when the agent is dropped. A program that does not answer in time, exits,
or answers with an error or an illegal move is a clear :class:`EngineError`.

>>> import random, sys
>>> from flipgames import make
>>> game = make("flipflop-3x3")
>>> command = f"engine:{sys.executable} -m flipgames engine --seed 1"
>>> agent = seat_agent(game, command, random.Random(1))
>>> state = game.new_initial_state()
>>> agent.choose(state) in state.legal_actions()
True
>>> agent.close()
"""

from __future__ import annotations

import queue
import random
import shlex
import subprocess
import threading
import weakref
from typing import IO, Final

from flipgames.agents.base import Agent
from flipgames.agents.levels import Budget, make_level_agent
from flipgames.core.errors import FlipgamesError, IllegalActionError, NotationError, quote
from flipgames.core.game import Game, State
from flipgames.core.progress import Progress, silent

#: The prefix of a seat that is an outside program.
PREFIX: Final = "engine:"


class EngineError(FlipgamesError):
    """An outside engine could not be started, did not answer, or answered wrongly."""


def seat_agent(
    game: Game,
    seat: str,
    rng: random.Random,
    progress: Progress = silent,
    movetime: int | None = None,
) -> Agent:
    """The agent for an arena seat: a level (``hard``, ``random``, ...) or ``engine:CMD``
    (``progress`` shows a first exact solve for the perfect level). ``movetime``
    (milliseconds by the wall clock) is every move's budget where given: sent to an engine
    with each ``go``, given to a level in place of its own (:class:`Budget`)."""
    if seat.startswith(PREFIX):
        return EngineAgent(rng, game, seat[len(PREFIX) :], movetime=movetime)
    budget = None if movetime is None else Budget(seconds=movetime / 1000)
    return make_level_agent(game, seat, rng, progress, budget=budget)


class EngineAgent(Agent):
    """An outside program as an agent. ``movetime`` (milliseconds) is sent with each ``go``
    when given; otherwise the program plays its own default. ``timeout`` (seconds) bounds
    every wait for an answer."""

    name = "engine"

    def __init__(
        self,
        rng: random.Random,
        game: Game,
        command: str,
        movetime: int | None = None,
        timeout: float = 60.0,
    ) -> None:
        super().__init__(rng)
        words = shlex.split(command)
        if not words:
            raise EngineError("engine: needs a command, e.g. engine:'flipgames engine'")
        self.command = command
        self.movetime = movetime
        self.timeout = timeout
        try:
            self._process = subprocess.Popen(
                words,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise EngineError(f"engine {command!r} could not be started: {exc}") from None
        assert self._process.stdout is not None
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(
            target=_read, args=(self._process.stdout, self._lines), daemon=True
        ).start()
        # Quit the program when the agent is dropped or at exit, whichever comes first.
        self._finalizer = weakref.finalize(self, _stop, self._process)
        self._send("hello")
        self._wait_for("hellook")
        options = " ".join(f"{k}={v}" for k, v in game.options.items())
        self._send(f"newgame {game.name} {options}".rstrip())
        self._send("isready")
        self._wait_for("readyok")

    def choose(self, state: State) -> int:
        moves = " ".join(state.history_notation())
        self._send(f"position moves {moves}".rstrip())
        self._send(f"go movetime {self.movetime}" if self.movetime else "go")
        reply = self._wait_for("bestmove")
        text = reply.partition(" ")[2].strip()
        try:
            return state.parse_action(text)
        except (NotationError, IllegalActionError) as exc:
            raise EngineError(f"engine {self.command!r} played {quote(text)}: {exc}") from None

    def close(self) -> None:
        """Tell the program to quit and wait for it (also done when the agent is dropped)."""
        self._finalizer()

    def _send(self, line: str) -> None:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
        except OSError:
            raise EngineError(f"engine {self.command!r} stopped reading its input") from None

    def _wait_for(self, keyword: str) -> str:
        """The next line starting with ``keyword``; other lines (``info``, ``id``) are
        skipped, and an ``error`` line or the end of the output is an EngineError."""
        while True:
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                raise EngineError(
                    f"engine {self.command!r} did not answer {keyword!r} within {self.timeout} s"
                ) from None
            if line is None:
                raise EngineError(f"engine {self.command!r} exited while {keyword!r} was awaited")
            if line.startswith("error"):
                raise EngineError(f"engine {self.command!r} says: {line}")
            if line.split()[:1] == [keyword]:
                return line


def _read(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        try:
            assert process.stdin is not None
            process.stdin.write("quit\n")
            process.stdin.close()
            process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
