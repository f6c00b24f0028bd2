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
