"""The registry: game names to game classes, imported lazily.

The table is explicit (no import-time side effects, no plugin scanning) and names classes by
``module:Class`` strings, so importing the core imports no game.

>>> game = make("flipflop-3x3")
>>> game.name, game.title
('flipflop-3x3', 'FlipFlop 3x3')
>>> make("chess")
Traceback (most recent call last):
...
flipgames.core.errors.UnknownGameError: unknown game 'chess': known games are flipflop, ...
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from flipgames.core.errors import UnknownGameError, quote
from flipgames.core.game import Game

_ENTRIES: dict[str, str] = {
    "flipflop": "flipgames.games.flipflop.rules:FlipFlop",
    "flipflop-3x3": "flipgames.games.flipflop.rules:FlipFlop3x3",
    "flipfour": "flipgames.games.flipfour.rules:FlipFour",
    "rubiks-flip": "flipgames.games.rubiks_flip.rules:RubiksFlip",
    "flip-switch": "flipgames.games.flip_switch.rules:FlipSwitch",
    "checkered-flag": "flipgames.games.checkered_flag.rules:CheckeredFlag",
}


def game_names() -> list[str]:
    """Every registered game name, in the order they are listed to users."""
    return list(_ENTRIES)


def game_class(name: str) -> type[Game]:
    """The class registered under ``name``; :class:`UnknownGameError` lists the valid names."""
    try:
        target = _ENTRIES[name]
    except (KeyError, TypeError):
        raise UnknownGameError(
            f"unknown game {quote(name)}: known games are {', '.join(_ENTRIES)}"
        ) from None
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise TypeError(f"registry entry {name!r} does not name a Game class")
    return cls


def make(name: str, options: Mapping[str, object] | None = None, **kwargs: object) -> Game:
    """Create a game by name with options (a mapping and/or keyword arguments).

    Option values may be strings as typed on a command line; they are converted and validated.
    """
    merged = dict(options or {})
    merged.update(kwargs)
    return game_class(name)(merged)
