"""A disk cache for solver results, keyed by solver, solver version, game and options.

Files live in ``$FLIPGAMES_CACHE``, else ``$XDG_CACHE_HOME/flipgames``, else
``~/.cache/flipgames``. Each file carries a SHA-256 of its payload; a file that fails to
parse, has the wrong key or checksum, or is truncated is reported, ignored and rebuilt: a cache
is never trusted.

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
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from flipgames.core.game import Game

T = TypeVar("T")


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
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            document = json.load(handle)
        header = {k: document[k] for k in ("solver", "version", "game", "options")}
        if header != _header(solver, version, game):
            raise ValueError("it belongs to another solver, version, game or options")
        if document["checksum"] != _checksum(document["payload"]):
            raise ValueError("its checksum does not match its contents")
    except (OSError, EOFError, ValueError, KeyError, TypeError) as exc:
        print(f"flipgames: ignoring corrupt cache file {path}: {exc}; rebuilding", file=sys.stderr)
        return None
    return document["payload"]


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
    passes the checksum but that ``decode`` refuses with ValueError is reported and rebuilt.
    """
    payload = load(solver, version, game)
    if payload is not None:
        try:
            return decode(payload)
        except ValueError as exc:
            print(
                f"flipgames: ignoring cached {game.name} solution: {exc}; rebuilding",
                file=sys.stderr,
            )
    result = build()
    store(solver, version, game, encode(result))
    return result
