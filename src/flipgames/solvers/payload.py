"""Compact JSON-native forms of solver arrays for the disk cache (:mod:`.cache`).

Arrays are little-endian bytes, zlib-compressed (fast level) and base64-encoded: JSON-native,
and a few megabytes where JSON lists of numbers would be tens. Every reader checks what it
gets and raises :class:`~flipgames.solvers.graph.SolverError` on anything malformed.

>>> import numpy as np
>>> text = pack_array(np.array([3, -1, 7], np.int32))
>>> unpack_array(text, np.int32, 3, "demo").tolist()
[3, -1, 7]
>>> unpack_array(text, np.int32, 4, "demo")
Traceback (most recent call last):
...
flipgames.solvers.solution.SolverError: malformed solution: demo has 3 entries, not 4
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from flipgames.solvers.cache import MAX_FILE_BYTES
from flipgames.solvers.solution import SolverError

if TYPE_CHECKING:
    import numpy.typing as npt


def _compress(data: bytes) -> str:
    return base64.b64encode(zlib.compress(data, 1)).decode("ascii")


def _decompress(text: Any, what: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes ``text`` packs; no more than ``limit`` are unpacked (a zlib bomb inside a
    cache file stops there)."""
    if not isinstance(text, str):
        raise SolverError(f"malformed solution: {what} is not a string")
    try:
        unpacker = zlib.decompressobj()
        data = unpacker.decompress(base64.b64decode(text.encode("ascii"), validate=True), limit)
    except (ValueError, zlib.error) as exc:
        raise SolverError(f"malformed solution: {what}: {exc}") from None
    if unpacker.unconsumed_tail:
        raise SolverError(f"malformed solution: {what} unpacks to more than {limit:,} bytes")
    if not unpacker.eof:
        raise SolverError(f"malformed solution: {what} is truncated")
    return data


def pack_array(array: npt.NDArray[Any]) -> str:
    return _compress(array.astype(array.dtype.newbyteorder("<")).tobytes())


def unpack_array(text: Any, dtype: Any, length: int, what: str) -> npt.NDArray[Any]:
    kind = np.dtype(dtype).newbyteorder("<")
    # One byte more than the array needs: a longer one is refused without unpacking it all.
    data = _decompress(text, what, min(MAX_FILE_BYTES, length * kind.itemsize + 1))
    if len(data) % kind.itemsize:
        raise SolverError(f"malformed solution: {what} is not an array of {kind}")
    array = np.frombuffer(data, kind).astype(dtype)
    if len(array) != length:
        raise SolverError(f"malformed solution: {what} has {len(array)} entries, not {length}")
    return array


def pack_integers(values: list[int]) -> str:
    """Python integers of any size (exact value numerators) as compressed decimal text."""
    return _compress("\n".join(map(str, values)).encode())


def unpack_integers(text: Any, what: str) -> list[int]:
    try:
        return [int(line) for line in _decompress(text, what).decode().split("\n")]
    except (ValueError, UnicodeDecodeError) as exc:
        raise SolverError(f"malformed solution: {what}: {exc}") from None


def _thaw(key: Hashable) -> Any:
    return [_thaw(k) for k in key] if isinstance(key, tuple) else key


def _freeze(data: Any) -> Hashable:
    if isinstance(data, list):
        return tuple(_freeze(d) for d in data)
    if isinstance(data, int | str) and not isinstance(data, bool):
        return data
    raise SolverError(f"malformed solution: not a position key: {data!r}")


def encode_keys(keys: list[Hashable]) -> str:
    """Reference position keys (tuples of ints and strings) as compressed JSON lines."""
    try:
        lines = [json.dumps(_thaw(key), separators=(",", ":")) for key in keys]
    except (TypeError, ValueError) as exc:
        raise SolverError(f"position keys must be JSON-encodable (tuples, ints): {exc}") from None
    return _compress("\n".join(lines).encode())


def decode_keys(text: Any, length: int) -> list[Hashable]:
    try:
        keys = [
            _freeze(json.loads(line)) for line in _decompress(text, "keys").decode().split("\n")
        ]
    except (ValueError, UnicodeDecodeError) as exc:
        raise SolverError(f"malformed solution: keys: {exc}") from None
    if len(keys) != length or len(set(keys)) != length:
        raise SolverError("malformed solution: keys do not match the positions")
    return keys
