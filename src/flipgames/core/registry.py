"""The registry: game names to game classes, imported lazily.

The table is explicit (no plugin scanning): :data:`PACKAGES` lists the game packages, and each
package's ``__init__.py`` declares ``MANIFESTS``, its games by name, each naming its class by a
``module:Class`` string. So the registry knows no game by name, and listing the games imports
only the packages' manifests, no rules. :func:`register` adds a game at run time (the tests'
toy game).

>>> game = make("flipflop-3x3")
>>> game.name, game.title
('flipflop-3x3', 'FlipFlop 3x3')
>>> make("chess")
Traceback (most recent call last):
...
flipgames.core.errors.UnknownGameError: unknown game 'chess': known games are flipflop, ...
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from flipgames.core.errors import UnknownGameError, quote
from flipgames.core.game import Game

if TYPE_CHECKING:
    from flipgames.core.manifest import Manifest

#: The game packages, in the order their games are listed to users.
PACKAGES: Final = (
    "flipgames.games.flipflop",
    "flipgames.games.flipfour",
    "flipgames.games.rubiks_flip",
    "flipgames.games.flip_switch",
    "flipgames.games.checkered_flag",
)

# Games added by register(), listed after the packaged ones.
_registered: dict[str, Manifest] = {}


@functools.cache
def _packaged() -> Mapping[str, Manifest]:
    manifests: dict[str, Manifest] = {}
    for package in PACKAGES:
        manifests.update(importlib.import_module(package).MANIFESTS)
    return manifests


def _manifests() -> dict[str, Manifest]:
    return {**_packaged(), **_registered}


def game_names() -> list[str]:
    """Every registered game name, in the order they are listed to users."""
    return list(_manifests())


def manifest_for(name: str) -> Manifest:
    """The manifest of the registered game ``name``; :class:`UnknownGameError` lists the valid
    names."""
    manifests = _manifests()
    try:
        return manifests[name]
    except (KeyError, TypeError):
        raise UnknownGameError(
            f"unknown game {quote(name)}: known games are {', '.join(manifests)}"
        ) from None


def game_class(name: str) -> type[Game]:
    """The class registered under ``name``; :class:`UnknownGameError` lists the valid names."""
    target = manifest_for(name).game
    if isinstance(target, str):
        module_name, _, class_name = target.partition(":")
        target = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(target, type) and issubclass(target, Game)):
        raise TypeError(f"registry entry {name!r} does not name a Game class")
    return target


def register(manifests: Mapping[str, Manifest]) -> None:
    """Add games at run time, as a package's ``MANIFESTS`` (a name already taken is refused)."""
    taken = set(manifests) & set(_manifests())
    if taken:
        raise ValueError(f"game names already registered: {', '.join(sorted(taken))}")
    _registered.update(manifests)


def unregister(name: str) -> None:
    """Remove a game that :func:`register` added."""
    manifest_for(name)  # an unknown name lists the known ones
    if name not in _registered:
        raise ValueError(f"{name!r} comes from a game package and cannot be unregistered")
    del _registered[name]


def make(name: str, options: Mapping[str, object] | None = None, **kwargs: object) -> Game:
    """Create a game by name with options (a mapping and/or keyword arguments).

    Option values may be strings as typed on a command line; they are converted and validated.
    """
    merged = dict(options or {})
    merged.update(kwargs)
    return game_class(name)(merged)
