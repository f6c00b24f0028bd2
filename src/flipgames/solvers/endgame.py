"""Endgame tables through the disk cache: built once per machine, loaded once per process.

A game whose compiled kernel builds endgame tables (:class:`~flipgames.core.endgame.
EndgameKernel`; FlipFlop 5x5) gets them from :func:`endgame_table`: from the in-process memo,
else from the cache folder of the other solvers (:func:`flipgames.solvers.cache.cache_dir`),
else built by the kernel (seconds; progress reported) and stored there. A file is an
uncompressed ``.npz`` (numpy arrays, never pickles) with one array per piece count and a
SHA-256 of their bytes; a file that cannot be read, fails its checksum or does not hold the
arrays of a table is reported on stderr, ignored and rebuilt: a cache is never trusted.

:func:`endgame_table` returns None where the game has no tables (every other game, and every
game with ``FLIPGAMES_KERNEL=python``: the tables are built by the compiled kernel).

>>> import tempfile, os
>>> os.environ["FLIPGAMES_CACHE"] = tempfile.mkdtemp()
>>> from flipgames import make
>>> endgame_table(make("flipfour")) is None
True
>>> table = endgame_table(make("flipflop"), max_pieces=2)
>>> table.max_pieces, table.positions, table_path(make("flipflop"), 2).exists()
(2, 4800, True)
"""

from __future__ import annotations

import hashlib
import os
import sys
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flipgames.core.endgame import EndgameKernel, EndgameTable
from flipgames.core.kernel import kernel_for
from flipgames.core.progress import Progress, silent
from flipgames.solvers.cache import MAX_FILE_BYTES, cache_path

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.game import Game

#: Bump when the tables' meaning or file format changes.
VERSION = 1

_MEMO: dict[tuple[str, str, int], EndgameTable] = {}


def endgame_kernel(game: Game) -> EndgameKernel | None:
    """The game's kernel if it builds endgame tables (and kernels are on), else None."""
    kernel = kernel_for(game)
    return kernel if isinstance(kernel, EndgameKernel) else None


def table_path(game: Game, max_pieces: int) -> Path:
    """Where the tables of ``game`` up to ``max_pieces`` pieces are cached."""
    return cache_path(f"endgame{max_pieces}", VERSION, game, suffix=".npz")


def _digest(layers: list[npt.NDArray[np.int16]]) -> str:
    digest = hashlib.sha256()
    for layer in layers:
        digest.update(layer.astype("<i2").tobytes())
    return digest.hexdigest()


def _load(kernel: EndgameKernel, path: Path, max_pieces: int) -> EndgameTable | None:
    layers = _layers(kernel, path, max_pieces)
    if layers is None:
        return None
    try:
        return kernel.endgame_table(layers)
    except ValueError as exc:
        _corrupt(path, exc)
        return None


def _layers(
    kernel: EndgameKernel, path: Path, max_pieces: int
) -> list[npt.NDArray[np.int16]] | None:
    """The layers cached at ``path`` after their checks, or None (none, or corrupt)."""
    import numpy as np

    if not path.exists():
        return None
    try:
        # The sizes the archive declares bound what reading it unpacks (a zip bomb stops here).
        # (Its own size bounds a table larger than any other cached file: 2.8 GB for 6 pieces.)
        with zipfile.ZipFile(path) as archive:
            limit = max(MAX_FILE_BYTES, kernel.table_bytes(max_pieces) + 2**20)
            if sum(info.file_size for info in archive.infolist()) > limit:
                raise ValueError(f"it unpacks to more than {limit:,} bytes")
        with np.load(path, allow_pickle=False) as stored:
            layers = [stored[f"pieces{n}"] for n in range(2, max_pieces + 1)]
            checksum = str(stored["sha256"])
        if checksum != _digest(layers):
            raise ValueError("its checksum does not match its contents")
        return layers
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error) as exc:
        _corrupt(path, exc)
        return None


def _corrupt(path: Path, exc: Exception) -> None:
    reason = (str(exc).splitlines() or ["unreadable"])[0][:200]
    print(
        f"flipgames: ignoring corrupt endgame table {path}: {reason}; rebuilding", file=sys.stderr
    )


def _smaller(kernel: EndgameKernel, game: Game, pieces: int) -> list[npt.NDArray[np.int16]]:
    """The layers of the largest smaller table in the disk cache (a build of ``pieces``
    starts from them: each table size is a checkpoint of the next one's build), or none."""
    for fewer in range(pieces - 1, 1, -1):
        layers = _layers(kernel, table_path(game, fewer), fewer)
        if layers is not None:
            return layers
    return []


def _store(path: Path, layers: list[npt.NDArray[np.int16]]) -> None:
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = {f"pieces{n}": layer for n, layer in enumerate(layers, start=2)}
    arrays["sha256"] = np.array(_digest(layers))
    temporary = path.with_name(f"{path.stem}.tmp{os.getpid()}.npz")
    np.savez(temporary, **arrays)
    temporary.replace(path)


def endgame_table(
    game: Game, max_pieces: int | None = None, progress: Progress = silent
) -> EndgameTable | None:
    """The endgame tables of ``game`` up to ``max_pieces`` pieces (default: the size its
    kernel recommends, what ``hard`` plays from), or None if the game has none."""
    return _tables(game, max_pieces, progress, build=True)


def ready_endgame_table(game: Game, max_pieces: int | None = None) -> EndgameTable | None:
    """The tables :func:`endgame_table` would return where they are loaded or in the disk
    cache (loading them, a few hundredths of a second for *hard*'s), else None: never builds
    (a build takes seconds; ``flipgames warmup`` does it)."""
    return _tables(game, max_pieces, silent, build=False)


def _tables(
    game: Game, max_pieces: int | None, progress: Progress, build: bool
) -> EndgameTable | None:
    """The tables from memory, else from the disk cache, else built (``build``) or None."""
    kernel = endgame_kernel(game)
    if kernel is None:
        return None
    pieces = kernel.endgame_pieces if max_pieces is None else max_pieces
    path = table_path(game, pieces)
    memo_key = (game.name, str(path), pieces)
    if memo_key not in _MEMO:
        table = _load(kernel, path, pieces)
        if table is None:
            if not build:
                return None
            layers = kernel.build_endgame(pieces, progress, _smaller(kernel, game, pieces))
            _store(path, layers)
            table = kernel.endgame_table(layers)
        _MEMO[memo_key] = table
    return _MEMO[memo_key]
