"""Interactive terminal play: humans type actions, agents and chance act on their own.

Chance outcomes are drawn from the game's seeded generator and shown, so a seed replays the
same dice; the game record keeps every outcome anyway.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import TextIO

from flipgames.agents import Agent
from flipgames.core.errors import IllegalActionError, NotationError
from flipgames.core.game import State, sample_chance

HELP = """\
Type an action in this game's notation, or one of:
  moves   list the legal actions
  board   show the board again
  hint    suggest an action (with --hint)
  help    show this help
  quit    stop (the record is still saved with --save)"""


def play_game(
    state: State,
    agents: Mapping[int, Agent],
    rng: random.Random,
    read: Callable[[str], str],
    out: TextIO,
    hint: Agent | None = None,
) -> State:
    """Play from ``state`` until the game ends or the human quits; return the last state.

    ``agents`` maps player numbers to agents; players without one are humans typing at
    ``read`` (``input``-like; EOFError ends the game early). ``hint``, if given, answers the
    ``hint`` command.
    """
    names = state.game.player_names
    show_board = True
    while not state.is_terminal():
        if state.is_chance_node():
            outcome = sample_chance(state, rng)
            print(f"chance: {state.action_to_string(outcome)}", file=out)
            state = state.apply(outcome)
            show_board = True
            continue
        player = state.current_player
        agent = agents.get(player)
        if agent is not None:
            action = agent.choose(state)
            text = state.action_to_string(action)
            print(f"{names[player]} ({agent.name}) plays {text}", file=out)
            state = state.apply(action)
            show_board = True
            continue
        if show_board:
            print(state.render(), file=out)
            show_board = False
        try:
            line = read(f"{names[player]} to move (help for commands)> ").strip()
        except EOFError:
            print("\ninput ended: stopping the game", file=out)
            return state
        if not line:
            continue
        command = line.lower()
        if command in ("help", "?"):
            print(HELP, file=out)
        elif command == "moves":
            legal = " ".join(state.action_to_string(a) for a in state.legal_actions())
            print(f"legal actions: {legal}", file=out)
        elif command == "board":
            show_board = True
        elif command == "hint":
            if hint is None:
                print("hints are off: start the game with --hint", file=out)
            else:
                advice = state.action_to_string(hint.choose(state))
                print(f"hint ({hint.name}): {advice}", file=out)
        elif command in ("quit", "exit"):
            print("game stopped", file=out)
            return state
        else:
            try:
                state = state.apply(state.parse_action(line))
            except (NotationError, IllegalActionError) as exc:
                print(f"not accepted: {exc}", file=out)
                continue
            show_board = True
    print(state.render(), file=out)
    print(f"game over: {describe_result(state)}", file=out)
    return state


def describe_result(state: State) -> str:
    """The result in words, e.g. ``"White wins (1-0)"``."""
    returns = state.returns()
    names = state.game.player_names
    winners = [names[p] for p, r in enumerate(returns) if r > 0]
    words = f"{winners[0]} wins" if winners else "draw"
    return f"{words} ({state.result()})"
