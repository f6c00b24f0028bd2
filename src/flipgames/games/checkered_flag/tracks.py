"""Tracks and spinners: the board and spinner faces, loaded from JSON data files.

The rulebook's board and spinner faces are pictures we do not have, so both are data a user can
replace. An option value is either the name of a bundled file (``data/tracks/<name>.json``,
``data/spinners/<name>.json``) or a path to a JSON file.

Track format (every space number counts from 0 to ``length - 1`` along the direction of play)::

    {"name": "default",                  # required, non-empty string
     "description": "...",               # optional string
     "length": 48,                       # required, integer >= 3 (spaces in the loop)
     "start": 0,                         # optional, default 0: the start/finish space
     "crash": [10, 11, ...],             # required: crash spaces (solid pink)
     "no_passing": [7, 8, 9, ...]}       # required: no-passing spaces (green, yellow stripes)

Spinner format (face value -> positive integer weight; probability = weight / total)::

    {"name": "default", "description": "...",   # optional strings
     "A": {"1": 1, "2": 1, "3": 1},              # required: Spinner A faces
     "B": {"1": 1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1}}   # required: Spinner B faces

Face values are positive integers written as JSON object keys (``"4"``). Any problem raises
:class:`~flipgames.core.errors.OptionError` naming the file and the problem.

>>> track = load_track("default")
>>> track.length, track.crash[:3], track.no_passing[:3]
(48, (10, 11, 22), (7, 8, 9))
>>> spinners = load_spinners("default")
>>> spinners.a, spinners.b
(((1, 1), (2, 1), (3, 1)), ((1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1)))
>>> bundled_names("tracks")
['default', 'default-no-crash', 'default-no-passing', 'default-plain', 'short']
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from flipgames.core.errors import OptionError, quote, quote_path

#: The shortest loop allowed: on a two-space loop two cars on no-passing spaces could block
#: each other for ever; from three spaces on, every second move makes progress.
MIN_LENGTH = 3

_TRACK_FIELDS = {"name", "description", "length", "start", "crash", "no_passing"}
_SPINNER_FIELDS = {"name", "description", "A", "B"}
_PACKAGE = "flipgames.games.checkered_flag"
_FACE = re.compile(r"[1-9][0-9]{0,5}", re.ASCII)


@dataclass(frozen=True)
class Track:
    """A loop of ``length`` spaces; space numbers as printed on the board."""

    name: str
    description: str
    length: int
    start: int
    crash: tuple[int, ...]
    no_passing: tuple[int, ...]

    def space(self, distance: int) -> int:
        """The board space of a car that has driven ``distance`` spaces from the start.

        >>> load_track("default").space(50)
        2
        """
        return (self.start + distance) % self.length


@dataclass(frozen=True)
class Spinners:
    """Spinner A and Spinner B as ``(face value, weight)`` pairs in ascending face order."""

    name: str
    description: str
    a: tuple[tuple[int, int], ...]
    b: tuple[tuple[int, int], ...]


def bundled_names(kind: str) -> list[str]:
    """Names of the bundled data files of ``kind`` (``"tracks"`` or ``"spinners"``)."""
    folder = resources.files(_PACKAGE).joinpath("data", kind)
    return sorted(
        entry.name.removesuffix(".json")
        for entry in folder.iterdir()
        if entry.name.endswith(".json")
    )


def _read(option: str, kind: str, value: str) -> tuple[str, Any]:
    """Return (a name for messages, parsed JSON) for a bundled name or a file path."""
    names = bundled_names(kind)
    if value in names:
        source = f"bundled {option} {quote(value)}"
        text = resources.files(_PACKAGE).joinpath("data", kind, value + ".json")
        raw = text.read_text(encoding="utf-8")
    elif value.endswith(".json") or "/" in value or "\\" in value:
        source = f"{option} file {quote_path(value)}"
        try:
            raw = Path(value).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise OptionError(f"option {option!r}: cannot read {source}: {exc}") from None
    else:
        raise OptionError(
            f"bad value {quote(value)} for option {option!r}: allowed a bundled {option} "
            f"({', '.join(names)}) or a path to a .json file"
        )
    try:
        return source, json.loads(raw)
    except json.JSONDecodeError as exc:
        raise OptionError(f"option {option!r}: {source} is not valid JSON: {exc}") from None


def _fields(data: Any, source: str, allowed: set[str], required: tuple[str, ...]) -> None:
    if not isinstance(data, dict):
        raise OptionError(f"{source} must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise OptionError(
            f"{source} has unknown field {quote(unknown[0])}; fields are "
            f"{', '.join(sorted(allowed))}"
        )
    for name in required:
        if name not in data:
            raise OptionError(f"{source} has no {name!r} field")
    for name in ("name", "description"):
        if name in data and not isinstance(data[name], str):
            raise OptionError(f"{source}: {name!r} must be a string")
    if "name" in data and not data["name"].strip():
        raise OptionError(f"{source}: 'name' must not be empty")


def _integer(value: Any, source: str, what: str, low: int, high: int | None = None) -> int:
    # bool is an int in Python but never a meaningful space number or length.
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"{source}: {what} must be an integer, got {quote(value)}")
    if value < low or (high is not None and value > high):
        limit = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise OptionError(f"{source}: {what} is {value}, must be {limit}")
    return value


def _spaces(data: dict[str, Any], field: str, source: str, length: int) -> tuple[int, ...]:
    values = data[field]
    if not isinstance(values, list):
        raise OptionError(f"{source}: {field!r} must be a list of space numbers")
    spaces = [_integer(v, source, f"{field!r} space", 0, length - 1) for v in values]
    if len(set(spaces)) != len(spaces):
        twice = next(s for s in spaces if spaces.count(s) > 1)
        raise OptionError(f"{source}: {field!r} lists space {twice} twice")
    return tuple(sorted(spaces))


def load_track(value: str) -> Track:
    """Load and validate a track: a bundled name or a path to a JSON file.

    >>> load_track("nowhere")
    Traceback (most recent call last):
    ...
    flipgames.core.errors.OptionError: bad value 'nowhere' for option 'track': allowed a bundled \
track (default, default-no-crash, default-no-passing, default-plain, short) or a path to a .json \
file
    """
    source, data = _read("track", "tracks", value)
    _fields(data, source, _TRACK_FIELDS, ("name", "length", "crash", "no_passing"))
    length = _integer(data["length"], source, "'length'", MIN_LENGTH)
    start = _integer(data.get("start", 0), source, "'start'", 0, length - 1)
    return Track(
        name=data["name"],
        description=data.get("description", ""),
        length=length,
        start=start,
        crash=_spaces(data, "crash", source, length),
        no_passing=_spaces(data, "no_passing", source, length),
    )


def _faces(data: dict[str, Any], field: str, source: str) -> tuple[tuple[int, int], ...]:
    faces = data[field]
    if not isinstance(faces, dict) or not faces:
        raise OptionError(
            f"{source}: spinner {field} must be a non-empty object of face value: weight, "
            'e.g. {"1": 1, "2": 1, "3": 1}'
        )
    result: dict[int, int] = {}
    for key, weight in faces.items():
        if not _FACE.fullmatch(key):
            raise OptionError(
                f"{source}: spinner {field} face {quote(key)} is not a positive integer (1-999999)"
            )
        if int(key) in result:
            raise OptionError(f"{source}: spinner {field} lists face {int(key)} twice")
        result[int(key)] = _integer(weight, source, f"spinner {field} face {key} weight", 1)
    return tuple(sorted(result.items()))


def load_spinners(value: str) -> Spinners:
    """Load and validate a spinner pair: a bundled name or a path to a JSON file."""
    source, data = _read("spinners", "spinners", value)
    _fields(data, source, _SPINNER_FIELDS, ("A", "B"))
    return Spinners(
        name=data.get("name", value),
        description=data.get("description", ""),
        a=_faces(data, "A", source),
        b=_faces(data, "B", source),
    )
