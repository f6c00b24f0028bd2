"""``flipgames solve rubiks-flip`` through the real entry point: bad budgets, cached proofs.

The full proof takes minutes, so these tests put a proof in the (private) cache and check
that the command reads and reports it without searching; docs/solvers.md has the real run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from flipgames import make
from flipgames.cli.main import main
from flipgames.solvers import alphabeta, cache


def _store_made_up_proof() -> None:
    game = make("rubiks-flip")
    root = game.new_initial_state()
    turns = {root.action_to_string(a): 0 for a in root.legal_actions()} | {"a1R": -1}
    proof = alphabeta.Proof(game.name, dict(game.options), 0, turns, 1234567, 98.7, 1 << 31, 32)
    cache.store("alphabeta", alphabeta.VERSION, game, proof.to_payload())


@pytest.fixture
def proof_in_cache() -> Iterator[None]:
    _store_made_up_proof()
    yield None
    cache.cache_path("alphabeta", alphabeta.VERSION, make("rubiks-flip")).unlink()


@pytest.mark.parametrize("memory", ["lots", "0", "12Q", "64T"])
def test_a_bad_memory_size_is_one_line_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], memory: str
) -> None:
    code = main(["solve", "rubiks-flip", "--memory", memory])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.startswith("flipgames: error: ") and "memory" in err
    assert err.count("\n") == 1
    assert not cache.cache_path("alphabeta", alphabeta.VERSION, make("rubiks-flip")).exists()


@pytest.mark.usefixtures("proof_in_cache")
def test_a_cached_proof_is_printed_without_searching(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "rubiks-flip", "--quiet"]) == 0
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "Rubik's Flip flip=inplace lock=king both=mover"
    assert lines[1] == "  Red/Blue, to move first, draws with perfect play"
    assert lines[2].startswith("  first turns that draw (31): a1B b1R ")
    assert lines[3] == "  first turns that lose (1): a1R"
    assert lines[4] == "  1,234,567 nodes (32 symmetries folded, 2 GiB table), solved in 98.7 s"


@pytest.mark.usefixtures("proof_in_cache")
def test_a_cached_proof_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "rubiks-flip", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["solver"] == "alphabeta" and report["value"] == "draw"
    assert report["first_turns"]["a1R"] == "loss" and report["first_turns"]["d4B"] == "draw"
    assert (report["nodes"], report["seconds"], report["symmetries"]) == (1234567, 98.7, 32)
