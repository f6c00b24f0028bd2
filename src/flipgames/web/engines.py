"""Outside engines in the arcade: programs that speak the engine protocol
(docs/engine-protocol.md), registered by the operator and offered as opponents.

Security: a web user never names a command. The operator registers each engine when the
server starts (``flipgames serve --engine NAME=CMD``, repeatable); the lobby offers them by
name as the levels ``engine:NAME``, and a match stores only that name. The server asks each
engine once at start (``hello``) which games it plays, and offers it for those.

The engine's moves are made like the built-in computer's, off the request path: the
:class:`~flipgames.web.aipool.AiJob` carries the registered command to a worker process of the
AI pool, which keeps one running program per command, game and options
(:func:`choose_with_engine`). A program that crashes, answers wrongly or does not answer
within the engine time limit (``FLIPGAMES_ENGINE_SECONDS``, default 30) fails the job with a
message naming the engine (never its command); the arcade then ends the match as a forfeit
by the engine, with that message, instead of leaving the player waiting.

>>> parse_engine("toy=flipgames engine --level easy")
('toy', 'flipgames engine --level easy')
>>> parse_engine("Bad Name=x")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
flipgames.core.errors.FlipgamesError: --engine: the name 'Bad Name' must be 1 to 24 lower-case ...
>>> level_of("toy"), engine_name("engine:toy"), engine_name("hard")
('engine:toy', 'toy', None)
"""

from __future__ import annotations

import random
import re
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flipgames.agents.external import EngineAgent, EngineError
from flipgames.core.errors import FlipgamesError
from flipgames.core.game import Game

if TYPE_CHECKING:
    from flipgames.web.aipool import AiJob

#: The level prefix of an outside engine in the API and the database.
PREFIX = "engine:"
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,23}")


@dataclass(frozen=True)
class Engine:
    """A registered outside engine: its name (what web users see), the operator's command
    and the games it says it plays."""

    name: str
    command: str
    games: frozenset[str]


def parse_engine(text: str) -> tuple[str, str]:
    """``NAME=CMD`` from the command line, checked."""
    name, equals, command = text.partition("=")
    if not equals or not command.strip():
        raise FlipgamesError(
            f"--engine takes NAME=COMMAND, e.g. --engine toy='flipgames engine', not {text!r}"
        )
    if not _NAME.fullmatch(name):
        raise FlipgamesError(
            f"--engine: the name {name!r} must be 1 to 24 lower-case letters, digits, '_' or "
            "'-' (as in --engine toy='flipgames engine')"
        )
    return name, command.strip()


def level_of(name: str) -> str:
    return PREFIX + name


def engine_name(level: str | None) -> str | None:
    """The engine a level names, or None for a built-in level."""
    if level is None or not level.startswith(PREFIX):
        return None
    return level[len(PREFIX) :]


def probe(name: str, command: str, timeout: float = 30.0) -> Engine:
    """Start ``command``, greet it and read which games it plays; a program that cannot be
    started or does not answer is a one-line error naming the engine."""
    words = shlex.split(command)
    try:
        process = subprocess.Popen(
            words,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except OSError as exc:
        raise FlipgamesError(f"--engine {name}: cannot start {words[0]!r}: {exc}") from None
    try:
        output, _ = process.communicate("hello\nquit\n", timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise FlipgamesError(
            f"--engine {name}: no answer to 'hello' within {timeout:.0f} s"
        ) from None
    lines = output.splitlines()
    if "hellook" not in lines:
        raise FlipgamesError(
            f"--engine {name}: the program does not speak the engine protocol (no 'hellook' "
            "after 'hello'; see docs/engine-protocol.md)"
        )
    games = {word for line in lines if line.startswith("games ") for word in line.split()[1:]}
    return Engine(name, command, frozenset(games))


def register(specs: Sequence[tuple[str, str]], timeout: float = 30.0) -> dict[str, Engine]:
    """Probe every ``(name, command)`` the operator registered; names must differ."""
    engines: dict[str, Engine] = {}
    for name, command in specs:
        if name in engines:
            raise FlipgamesError(f"--engine {name} is given twice")
        engines[name] = probe(name, command, timeout)
    return engines


def levels_for(engines: Mapping[str, Engine], game: Game) -> list[str]:
    """The engine levels offered for ``game``: the engines that say they play it."""
    return [level_of(e.name) for e in engines.values() if game.name in e.games]


# --- in an AI worker process ------------------------------------------------------------------

#: The programs this worker runs, one per (command, game, options): started on first use.
_running: dict[tuple[str, str, str], EngineAgent] = {}


def choose_with_engine(job: AiJob) -> str:
    """The move of the outside engine ``job`` names, for the position at the end of its
    actions. Errors name the engine, never its command (web users see them)."""
    from flipgames.core.registry import make

    name = engine_name(job.level) or "?"
    if job.engine is None:
        raise EngineError(f"the engine {name} is not offered by this server any more")
    state = make(job.game, job.options).state_from_actions(list(job.actions))
    key = (job.engine, job.game, repr(sorted(job.options.items())))
    try:
        agent = _running.get(key)
        if agent is None:
            rng = random.Random(f"{job.seed}:engine")
            agent = EngineAgent(rng, state.game, job.engine, timeout=job.engine_seconds)
            _running[key] = agent
        return state.action_to_string(agent.choose(state))
    except EngineError as exc:
        dropped = _running.pop(key, None)
        if dropped is not None:
            dropped.close()
        message = str(exc).replace(repr(job.engine), name)
        raise EngineError(message) from None
