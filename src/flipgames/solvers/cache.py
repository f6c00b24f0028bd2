"""A disk cache for solver results, keyed by solver, solver version, game and options.

Files live in ``$FLIPGAMES_CACHE``, else ``$XDG_CACHE_HOME/flipgames``, else
``~/.cache/flipgames``. Each file carries a SHA-256 of its payload; a file that fails to
parse, has the wrong key or checksum, is truncated, nested too deep or unpacks to more than
:data:`MAX_FILE_BYTES` is reported in one line, ignored and rebuilt: a cache is never trusted.

>>> import tempfile, os
>>> os.environ["FLIPGAMES_CACHE"] = tempfile.mkdtemp()
>>> from flipgames import make
>>> calls = []
>>> def build():
...     calls.append(1)
...     return {"answer": 42}
>>> cached("demo", 1, make("flipflop-3x3"), build)
{'answer': 42}
>>> cached("demo", 1, make("flipflop-3x3"), build), len(calls)
({'answer': 42}, 1)
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from flipgames.core.game import Game

T = TypeVar("T")

#: The most a cache file may unpack to; reading stops there, so a gzip bomb costs no more.
#: Real files hold 6-32 bytes a position (FlipFlop 3x3: 0.63 MB for 107,439 positions;
#: Checkered Flag, keys and exact numerators: 2.3 MB for 72,335). 128 bytes a position for
#: the default position budget (3,000,000: ``catalog.DEFAULT_MAX_POSITIONS``) leaves room.
MAX_FILE_BYTES = 128 * 3_000_000


def cache_dir() -> Path:
    """The folder solver results are cached in (created on first write)."""
    if os.environ.get("FLIPGAMES_CACHE"):
        return Path(os.environ["FLIPGAMES_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "flipgames"


def cache_path(solver: str, version: int, game: Game, suffix: str = ".json.gz") -> Path:
    """The cache file of ``solver``'s result for ``game`` with its options (``suffix``: the
    file's format; the JSON payloads of :func:`store` by default)."""
    options = json.dumps(game.options, sort_keys=True)
    digest = hashlib.sha256(options.encode()).hexdigest()[:12]
    return cache_dir() / f"{solver}-v{version}-{game.name}-{digest}{suffix}"


def _checksum(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _header(solver: str, version: int, game: Game) -> dict[str, Any]:
    return {"solver": solver, "version": version, "game": game.name, "options": game.options}


def load(solver: str, version: int, game: Game) -> Any | None:
    """The cached payload, or None when there is none or it cannot be trusted."""
    path = cache_path(solver, version, game)
    if not path.exists():
        return None
    try:
        document = json.loads(_read_bounded(path))
        header = {k: document[k] for k in ("solver", "version", "game", "options")}
        if header != _header(solver, version, game):
            raise ValueError("it belongs to another solver, version, game or options")
        if document["checksum"] != _checksum(document["payload"]):
            raise ValueError("its checksum does not match its contents")
    except RecursionError:
        _ignoring(path, "it is nested too deep to be a solution")
        return None
    except (OSError, EOFError, zlib.error, ValueError, KeyError, TypeError) as exc:
        _ignoring(path, str(exc))
        return None
    return document["payload"]


def _read_bounded(path: Path) -> bytes:
    """The unpacked bytes of ``path``; ValueError beyond :data:`MAX_FILE_BYTES`."""
    with gzip.open(path, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(
            f"it unpacks to more than {MAX_FILE_BYTES:,} bytes, more than any solution holds"
        )
    return data


def _one_line(reason: str) -> str:
    """A parser's reason cut to its first line and 200 characters: the warning stays one line."""
    reason = (reason.splitlines() or ["unreadable"])[0]
    return reason if len(reason) <= 200 else reason[:200] + "..."


def _ignoring(path: Path, reason: str) -> None:
    """The one line that says a cache file is not trusted."""
    print(
        f"flipgames: ignoring corrupt cache file {path}: {_one_line(reason)}; rebuilding",
        file=sys.stderr,
    )


def store(solver: str, version: int, game: Game, payload: Any) -> Path:
    """Write ``payload`` (JSON-able) atomically and return the file's path."""
    path = cache_path(solver, version, game)
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {**_header(solver, version, game), "payload": payload}
    document["checksum"] = _checksum(payload)
    temporary = path.with_suffix(f".tmp{os.getpid()}")
    # Level 1: solver payloads hold compressed blobs already, so harder work buys nothing.
    with gzip.open(temporary, "wt", encoding="utf-8", compresslevel=1) as handle:
        json.dump(document, handle)
    temporary.replace(path)
    return path


def _same(value: Any) -> Any:
    return value


def cached(
    solver: str,
    version: int,
    game: Game,
    build: Callable[[], T],
    encode: Callable[[T], Any] = _same,
    decode: Callable[[Any], T] = _same,
) -> T:
    """The cached result if trustworthy, else ``build()``, stored and returned.

    ``encode`` turns a result into a JSON-native payload and ``decode`` back; a payload that
    passes the checksum but that ``decode`` refuses with ValueError (or RecursionError) is
    reported and rebuilt.
    """
    payload = load(solver, version, game)
    if payload is not None:
        try:
            return decode(payload)
        except RecursionError:
            reason = "it is nested too deep to be a solution"
        except ValueError as exc:
            reason = _one_line(str(exc))
        print(
            f"flipgames: ignoring cached {game.name} solution: {reason}; rebuilding",
            file=sys.stderr,
        )
    result = build()
    store(solver, version, game, encode(result))
    return result
