"""Interactive terminal play: humans type actions, agents and chance act on their own.

Chance outcomes are drawn from the game's seeded generator and shown, so a seed replays the
same dice; the game record keeps every outcome anyway.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import NamedTuple, TextIO

from flipgames.agents import Agent
from flipgames.core.errors import IllegalActionError, NotationError
from flipgames.core.game import State, sample_chance

COMMANDS = """\
Or one of:
  moves   list the legal actions
  board   show the board again
  hint    suggest an action (with --hint)
  help    show this help
  quit    stop (the record is still saved with --save; so it is on Ctrl-C or Ctrl-D)"""

#: ``thinking(what)``: a context manager shown while an agent chooses (e.g. a spinner).
Thinking = Callable[[str], AbstractContextManager[None]]


def _no_thinking(what: str) -> AbstractContextManager[None]:
    return nullcontext()


class PlayOutcome(NamedTuple):
    """How a game in the terminal ended: the last state, and whether Ctrl-C stopped it."""

    state: State
    interrupted: bool


def help_text(state: State) -> str:
    """The in-game help: the game's notation with examples, then the commands."""
    examples = _examples(state)
    here = f"\nLegal here, for example: {', '.join(examples)}" if examples else ""
    return f"{state.game.notation_help().rstrip()}{here}\n{COMMANDS}"


def _examples(state: State) -> list[str]:
    """Two legal actions of ``state`` in notation (fewer if it has fewer)."""
    legal = state.legal_actions() if not state.is_terminal() else ()
    picks = [legal[0], legal[-1]] if len(legal) > 1 else list(legal)
    return [state.action_to_string(a) for a in picks]


def play_game(
    state: State,
    agents: Mapping[int, Agent],
    rng: random.Random,
    read: Callable[[str], str],
    out: TextIO,
    hint: Agent | None = None,
    thinking: Thinking = _no_thinking,
    reached: Callable[[State], None] | None = None,
) -> PlayOutcome:
    """Play from ``state`` until the game ends, the human quits or Ctrl-C; return how it ended.

    ``agents`` maps player numbers to agents; players without one are humans typing at
    ``read`` (``input``-like; EOFError ends the game early). ``hint``, if given, answers the
    ``hint`` command. ``thinking`` wraps every agent's (and hint's) choice, to show a line
    while it thinks. Ctrl-C (KeyboardInterrupt) at any point stops the game with every action
    so far kept in the returned state. ``reached``, if given, is called with every state the
    game reaches (``play --save`` writes the record there, so even a killed process keeps it).
    """
    steps = _steps(state, agents, rng, read, out, hint, thinking)
    last = state
    try:
        for step in steps:
            last = step
            if reached is not None:
                reached(step)
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the game", file=out)
        return PlayOutcome(last, interrupted=True)
    return PlayOutcome(last, interrupted=False)


def _steps(
    state: State,
    agents: Mapping[int, Agent],
    rng: random.Random,
    read: Callable[[str], str],
    out: TextIO,
    hint: Agent | None,
    thinking: Thinking,
) -> Iterator[State]:
    """The game loop; yields every state reached (so an interrupted caller keeps the last)."""
    names = state.game.player_names
    show_board = True
    while not state.is_terminal():
        if state.is_chance_node():
            outcome = sample_chance(state, rng)
            print(f"chance: {state.action_to_string(outcome)}", file=out)
            state = state.apply(outcome)
            yield state
            show_board = True
            continue
        player = state.current_player
        agent = agents.get(player)
        if agent is not None:
            with thinking(f"{names[player]} ({agent.name}) is thinking"):
                action = agent.choose(state)
            text = state.action_to_string(action)
            print(f"{names[player]} ({agent.name}) plays {text}", file=out)
            state = state.apply(action)
            yield state
            show_board = True
            continue
        if show_board:
            print(state.render(), file=out)
            show_board = False
        try:
            line = read(f"{names[player]} to move (help for commands)> ").strip()
        except EOFError:
            print("\ninput ended: stopping the game", file=out)
            return
        if not line:
            continue
        command = line.lower()
        if command in ("help", "?"):
            print(help_text(state), file=out)
        elif command == "moves":
            legal = " ".join(state.action_to_string(a) for a in state.legal_actions())
            print(f"legal actions: {legal}", file=out)
        elif command == "board":
            show_board = True
        elif command == "hint":
            if hint is None:
                print("hints are off: start the game with --hint", file=out)
            else:
                with thinking(f"hint ({hint.name}) is thinking"):
                    advice = state.action_to_string(hint.choose(state))
                print(f"hint ({hint.name}): {advice}", file=out)
        elif command in ("quit", "exit"):
            print("game stopped", file=out)
            return
        else:
            try:
                state = state.apply(state.parse_action(line))
            except (NotationError, IllegalActionError) as exc:
                print(f"not accepted: {exc}", file=out)
                continue
            yield state
            show_board = True
    print(state.render(), file=out)
    print(f"game over: {describe_result(state)}", file=out)


def describe_result(state: State) -> str:
    """The result in words, e.g. ``"White wins (1-0)"``; ``"unfinished (*)"`` mid-game."""
    if not state.is_terminal():
        return f"unfinished ({state.result()})"
    returns = state.returns()
    names = state.game.player_names
    winners = [names[p] for p, r in enumerate(returns) if r > 0]
    words = f"{winners[0]} wins" if winners else "draw"
    return f"{words} ({state.result()})"
