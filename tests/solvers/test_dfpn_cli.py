"""``flipgames solve flipfour``: the df-pn search from the command line (cli/prove.py), its
checkpoints, proofs and errors, and the Ray split (solvers/dfpn_ray.py, when Ray is here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from flipgames import make
from flipgames.cli.main import main
from flipgames.solvers.proof import check_file

ENDING = "R1b2/5/2B1R/1r1Br/b4 w 00"  # White wins in at most 9 plies
LOSS = "2B1B/5/b2B1/Bb3/3bb b 00"  # Black to move loses


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["solve", "flipfour", "--memory", "16M", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_proof_is_written_checked_and_checked_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    proof = tmp_path / "proof.jsonl"
    code, out, err = run(capsys, "--position", ENDING, "--proof", str(proof))
    assert code == 0, err
    assert "White, to move, wins with perfect play" in out
    assert "White forces a win? proven, in at most 9 plies" in out
    assert "checked by the reference rules" in out and "Black forces" not in out
    assert "White wins? pn 0 dn inf (proven)" in err  # the progress line
    assert check_file(make("flipfour"), proof).value == "win"
    code, out, _ = run(capsys, "--check", str(proof), "--json")
    assert code == 0 and json.loads(out)["value"] == "win"


def test_a_loss_in_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    proof = tmp_path / "loss.jsonl"
    code, out, err = run(capsys, "--position", LOSS, "--proof", str(proof), "--json")
    assert code == 0 and err == ""
    report = json.loads(out)
    assert report["value"] == "loss" and report["proof_checked"] is True
    assert [p["status"] for p in report["phases"]] == ["disproven", "proven"]


def test_a_time_limit_stops_with_a_checkpoint_that_resumes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "ck"
    code, out, _ = run(capsys, "--checkpoint", str(folder), "--max-nodes", "3000", "--quiet")
    assert code == 0 and "not decided yet" in out
    first = json.loads((folder / "state.json").read_text())
    assert first["nodes"] >= 3000 and first["phases"][0]["status"] == "open"
    code, _, err = run(capsys, "--checkpoint", str(folder), "--resume", "--max-time", "0.5")
    assert code == 0 and f"resumed from {folder}" in err
    assert json.loads((folder / "state.json").read_text())["nodes"] > first["nodes"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--resume"], "--resume needs --checkpoint DIR holding a checkpoint"),
        (["--position", "5/5/5/5/5 b 44"], "--position '5/5/5/5/5 b 44': White has every piece"),
        (["--memory", "lots"], "bad memory size 'lots'"),
        (["--max-time", "-1"], "expected a positive number of seconds"),
        (["--check", "/nonexistent/proof.jsonl"], "cannot read /nonexistent/proof.jsonl"),
        (["--ray", "auto", "--max-nodes", "5"], "--ray takes --max-time, not"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code != 0 and message in err and "Traceback" not in err


def test_the_df_pn_options_are_refused_for_other_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "flipflop-3x3", "--checkpoint", "x"]) == 1
    assert "--checkpoint: only for a df-pn proof search (flipfour, flipflop)" in (
        capsys.readouterr().err
    )


def test_ray_missing_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    code, _, err = run(capsys, "--position", ENDING, "--ray", "auto")
    assert code == 1 and "--ray needs Ray (the 'lab' extra)" in err


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="Ray is not installed")
@pytest.mark.slow  # starts a local Ray
def test_ray_finds_the_same_values_as_one_process(tmp_path: Path) -> None:
    from flipgames.solvers.dfpn import Solver
    from flipgames.solvers.dfpn_ray import solve_on_ray
    from flipgames.solvers.proof import check

    game = make("flipfour")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        for start in (ENDING, LOSS):
            state = game.from_position(start)
            alone = Solver(game, state, memory=1 << 24).solve()
            report, lines = solve_on_ray(game, "auto", 1 << 24, 60.0, lambda line: None, state)
            assert report.value == alone.value
            assert lines is not None and check(game, lines).value == report.value
    finally:
        ray.shutdown()
