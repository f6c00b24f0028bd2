"""The solver cache: instant second call, corrupt files detected and rebuilt."""

from __future__ import annotations

import gzip

import pytest

from flipgames import make
from flipgames.solvers import cache


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("FLIPGAMES_CACHE", str(tmp_path))
    return tmp_path


def builder(calls: list[int]):
    def build():
        calls.append(1)
        return {"positions": 3, "values": [[1, 1, 0]]}

    return build


def test_the_second_call_reads_the_file(folder):
    calls: list[int] = []
    game = make("flipflop-3x3")
    first = cache.cached("t", 1, game, builder(calls))
    second = cache.cached("t", 1, game, builder(calls))
    assert first == second == {"positions": 3, "values": [[1, 1, 0]]}
    assert calls == [1]
    assert cache.cache_path("t", 1, game).parent == folder


def test_options_and_versions_get_their_own_files(folder):
    a = cache.cache_path("t", 1, make("flip-switch"))
    b = cache.cache_path("t", 1, make("flip-switch", lines="edges"))
    c = cache.cache_path("t", 2, make("flip-switch"))
    assert len({a, b, c}) == 3


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # truncated
        lambda raw: b"not gzip at all",
        lambda raw: gzip.compress(b'{"solver": "t"}'),  # fields missing
        lambda raw: gzip.compress(
            gzip.decompress(raw).replace(b'"positions": 3', b'"positions": 4')
        ),  # contents changed under the checksum
    ],
)
def test_a_corrupt_file_is_reported_and_rebuilt(folder, capsys, damage):
    calls: list[int] = []
    game = make("flipflop-3x3")
    cache.cached("t", 1, game, builder(calls))
    path = cache.cache_path("t", 1, game)
    path.write_bytes(damage(path.read_bytes()))
    assert cache.cached("t", 1, game, builder(calls)) == {"positions": 3, "values": [[1, 1, 0]]}
    assert calls == [1, 1]
    assert "ignoring corrupt cache file" in capsys.readouterr().err
    assert cache.load("t", 1, game) is not None  # rebuilt file is good again


def test_a_file_for_other_options_is_not_trusted(folder):
    game = make("flip-switch")
    other = make("flip-switch", lines="edges")
    cache.store("t", 1, other, {"x": 1})
    cache.cache_path("t", 1, other).replace(cache.cache_path("t", 1, game))
    assert cache.load("t", 1, game) is None


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_a_file_nested_too_deep_is_rebuilt_with_one_line(folder, capsys):
    calls: list[int] = []
    game = make("flipflop-3x3")
    cache.cached("t", 1, game, builder(calls))
    path = cache.cache_path("t", 1, game)
    path.write_bytes(gzip.compress(_nested(100_000)))
    assert cache.cached("t", 1, game, builder(calls)) == {"positions": 3, "values": [[1, 1, 0]]}
    assert calls == [1, 1]
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"flipgames: ignoring corrupt cache file {path}: it is nested too deep to be a "
        "solution; rebuilding"
    ]


def test_a_decoder_recursing_too_deep_means_a_rebuild_with_one_line(folder, capsys):
    game = make("flipflop-3x3")
    cache.store("t", 1, game, {"keys": "x"})

    def decode(payload):
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")

    assert cache.cached("t", 1, game, lambda: [1], encode=list, decode=decode) == [1]
    assert capsys.readouterr().err.splitlines() == [
        "flipgames: ignoring cached flipflop-3x3 solution: it is nested too deep to be a "
        "solution; rebuilding"
    ]


def test_a_gzip_bomb_is_read_no_further_than_the_bound(folder, capsys, monkeypatch):
    game = make("flipflop-3x3")
    path = cache.cache_path("t", 1, game)
    path.parent.mkdir(parents=True, exist_ok=True)
    # 100 MB of spaces (JSON whitespace) in 100 small gzip members, a 100 KB file.
    path.write_bytes(gzip.compress(b" " * 1_000_000) * 100)
    monkeypatch.setattr(cache, "MAX_FILE_BYTES", 10_000)
    assert cache.load("t", 1, game) is None
    assert capsys.readouterr().err.splitlines() == [
        f"flipgames: ignoring corrupt cache file {path}: it unpacks to more than 10,000 bytes, "
        "more than any solution holds; rebuilding"
    ]


def test_the_bound_is_sized_on_the_default_position_budget():
    from flipgames.solvers import catalog

    assert cache.MAX_FILE_BYTES == 128 * catalog.DEFAULT_MAX_POSITIONS


def test_a_zlib_bomb_inside_a_payload_is_not_unpacked_past_the_array():
    import base64
    import zlib

    import numpy as np

    from flipgames.solvers.payload import unpack_array, unpack_integers
    from flipgames.solvers.solution import SolverError

    bomb = base64.b64encode(zlib.compress(b"\0" * 10_000_000)).decode()
    with pytest.raises(SolverError, match="demo unpacks to more than 41 bytes"):
        unpack_array(bomb, np.int32, 10, "demo")
    truncated = base64.b64encode(zlib.compress(b"1\n2\n3")[:-3]).decode()
    with pytest.raises(SolverError, match="numerators is truncated"):
        unpack_integers(truncated, "numerators")


def test_a_truncated_endgame_table_is_rebuilt_with_one_line(folder, capsys):
    import numpy as np

    from flipgames.solvers import endgame

    path = folder / "table.npz"
    np.savez(path, pieces2=np.zeros(10, np.int16), sha256=np.array("x"))
    path.write_bytes(path.read_bytes()[:100])
    assert endgame._load(None, path, 2) is None  # the kernel is not reached
    assert capsys.readouterr().err.splitlines() == [
        f"flipgames: ignoring corrupt endgame table {path}: File is not a zip file; rebuilding"
    ]
