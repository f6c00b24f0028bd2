"""Named rule options: declaration, parsing and validation.

A game declares its options as a tuple of :class:`Option`; :func:`resolve_options` turns what a
user typed (strings from ``--option k=v`` or values from JSON) into a complete, validated dict.

>>> spec = (Option("lines", "all", choices=("all", "edges")), Option("rounds", 1, minimum=1))
>>> resolve_options(spec, {"rounds": "3"})
{'lines': 'all', 'rounds': 3}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from flipgames.core.errors import OptionError, quote

OptionValue = str | int


@dataclass(frozen=True)
class Option:
    """One rule option. Its type is the type of its default (``str`` or ``int``).

    ``name`` and ``choices`` are what a command line or the API takes; ``label`` and
    ``choice_words`` say the same to players (the rules page, the lobby), one word per choice:

    >>> lines = Option("lines", "all", choices=("all", "edges"), label="Lines that score",
    ...                choice_words=("all lines", "edges only"))
    >>> lines.for_players()
    'Lines that score: all lines (default) or edges only'
    >>> Option("rounds", 3, minimum=1, maximum=99, label="Number of rounds").for_players()
    'Number of rounds: 1 to 99, default 3'
    >>> Option("no_move", "draw", choices=("draw", "pass")).for_players()
    'No move: draw (default) or pass'
    >>> Option("track", "default").for_players()
    'Track: “default” unless another is named'
    """

    name: str
    default: OptionValue
    choices: tuple[OptionValue, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""
    #: The option's name for players; empty: the name, in words.
    label: str = ""
    #: Each of ``choices`` in players' words, in the same order; empty: the choices as typed.
    choice_words: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.choice_words and len(self.choice_words) != len(self.choices or ()):
            raise ValueError(f"option {self.name!r}: one of choice_words per choice")

    def title(self) -> str:
        """The option's name for players: its label, or its name in words."""
        return self.label or self.name.replace("_", " ").capitalize()

    def words(self, value: OptionValue) -> str:
        """One value as players read it (a choice's words, or the value itself)."""
        if self.choice_words and self.choices is not None and value in self.choices:
            return self.choice_words[self.choices.index(value)]
        return str(value)

    def for_players(self) -> str:
        """The option and the values it takes, in players' words (no syntax, no symbols)."""
        if self.choices is not None:
            told = [
                self.words(c) + (" (default)" if c == self.default else "") for c in self.choices
            ]
            values = told[0] if len(told) == 1 else f"{', '.join(told[:-1])} or {told[-1]}"
        elif isinstance(self.default, int):
            low, high = self.minimum, self.maximum
            if low is not None and high is not None:
                span = f"{low} to {high}"
            elif low is not None:
                span = f"{low} or more"
            elif high is not None:
                span = f"up to {high}"
            else:
                span = "any whole number"
            values = f"{span}, default {self.default}"
        else:
            # Free text (a name or a file): its default is a name, quoted as one.
            values = f"“{self.default}” unless another is named"
        return f"{self.title()}: {values}"

    def allowed(self) -> str:
        """Say in words which values are allowed."""
        if self.choices is not None:
            return " | ".join(str(c) for c in self.choices)
        if isinstance(self.default, int):
            low = "" if self.minimum is None else f"{self.minimum} <= "
            high = "" if self.maximum is None else f" <= {self.maximum}"
            return f"an integer {low}n{high}".replace("integer n", "integer")
        return "a non-empty string"

    def parse(self, raw: object) -> OptionValue:
        """Convert and validate one value; raise :class:`OptionError` if it is not allowed."""
        value: OptionValue
        if isinstance(self.default, bool) or not isinstance(self.default, int | str):
            raise TypeError(f"option {self.name!r} has an unsupported default")
        if isinstance(self.default, int):
            if isinstance(raw, bool) or not isinstance(raw, int | str):
                raise OptionError(self._bad(raw))
            try:
                value = int(raw)
            except ValueError:
                raise OptionError(self._bad(raw)) from None
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise OptionError(self._bad(raw))
        else:
            if not isinstance(raw, str) or not raw:
                raise OptionError(self._bad(raw))
            value = raw
        if self.choices is not None and value not in self.choices:
            raise OptionError(self._bad(raw))
        return value

    def _bad(self, raw: object) -> str:
        return f"bad value {quote(raw)} for option {self.name!r}: allowed {self.allowed()}"


class FrozenOptions(dict[str, OptionValue]):
    """A game's chosen options: a read-only, hashable dict.

    A :class:`~flipgames.core.game.Game` is used as a dictionary key (caches, solutions), so
    its options must not change under it. This is a ``dict`` subclass rather than a
    ``MappingProxyType`` so that ``json.dumps`` and ``dict(...)`` keep working unchanged.

    >>> options = FrozenOptions({"laps": 2})
    >>> options["laps"] = 3
    Traceback (most recent call last):
    ...
    TypeError: a game's options are read-only: make a new game with other options
    >>> hash(options) == hash(FrozenOptions({"laps": 2}))
    True
    """

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a game's options are read-only: make a new game with other options")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def __copy__(self) -> FrozenOptions:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> FrozenOptions:
        return self

    def __reduce__(self) -> tuple[type[FrozenOptions], tuple[dict[str, OptionValue]]]:
        return FrozenOptions, (dict(self),)


def resolve_options(spec: tuple[Option, ...], given: Mapping[str, object] | None) -> FrozenOptions:
    """Return every option of ``spec`` with defaults filled in and ``given`` validated."""
    given = dict(given or {})
    known = {o.name: o for o in spec}
    unknown = sorted(set(given) - set(known))
    if unknown:
        names = ", ".join(known) or "none"
        raise OptionError(f"unknown option {quote(unknown[0])}: this game's options are {names}")
    return FrozenOptions(
        {o.name: o.parse(given[o.name]) if o.name in given else o.default for o in spec}
    )


def options_for_players(spec: tuple[Option, ...], options: Mapping[str, OptionValue]) -> str:
    """A rules summary's "Options" section in players' words: one line per option with its
    values and default, what it does, and the value chosen where it is not the default.

    >>> spec = (Option("laps", 1, minimum=1, maximum=20, help="laps to race."),)
    >>> print(options_for_players(spec, {"laps": 2}))
    Options (Advanced rules when you start a game):
    - Laps: 1 to 20, default 1. Laps to race. This game: 2.
    >>> print(options_for_players((), {}))
    Options: none.
    """
    if not spec:
        return "Options: none."
    lines = ["Options (Advanced rules when you start a game):"]
    for option in spec:
        line = f"- {option.for_players()}."
        if option.help:
            line += f" {option.help[:1].upper()}{option.help[1:]}"
            line += "" if option.help.endswith(".") else "."
        chosen = options.get(option.name, option.default)
        if chosen != option.default:
            line += f" This game: {option.words(chosen)}."
        lines.append(line)
    return "\n".join(lines)


def parse_option_pairs(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Parse ``["k=v", ...]`` as typed on a command line.

    >>> parse_option_pairs(["lines=edges", "rounds=3"])
    {'lines': 'edges', 'rounds': '3'}
    """
    result: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise OptionError(f"malformed option {quote(pair)}: write name=value, e.g. laps=2")
        result[name.strip()] = value.strip()
    return result
