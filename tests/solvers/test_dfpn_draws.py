"""Draw proofs: the df-pn solver (solvers/dfpn.py, and its Ray split solvers/dfpn_ray.py with
the tasks run in this process) writes both sides' non-losing strategies and the independent
checker (solvers/proof.py) accepts them, and refuses tampered copies naming the bad position.

The drawn positions are FlipFlop 5x5 endings of one piece a side (the solver's search probes
the 3-piece endgame tables), whose value a brute-force retrograde analysis here confirms on
the reference rules. No drawn FlipFour position with a proof small enough for a test has been
found (see docs/solvers.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from flipgames import make
from flipgames.cli.main import main
from flipgames.games.flipflop.rules import FlipFlop
from flipgames.solvers import dfpn as dfpn_module
from flipgames.solvers.dfpn import Solver, write_proof
from flipgames.solvers.proof import (
    ProofCheckError,
    check,
    check_file,
    images_for,
    read_lines,
    winner_of,
)
from support.toy_game import MANIFEST as TOY_MANIFEST
from support.toy_game import TurningTurtles

GAME = cast(FlipFlop, make("flipflop"))
#: One piece a side, White to move / Black to move: draws (brute force below).
DRAWN = "2b2/5/5/5/2B2 w"
DRAWN_BLACK = "1b3/5/5/5/2R2 b"


@pytest.fixture(autouse=True)
def _three_piece_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Solver's search probes the 3-piece tables (cheap to build), not the 4-piece."""
    monkeypatch.setattr(dfpn_module, "TABLE_PIECES", 3)


def brute_force_value(start: str) -> str:
    """The value for the side to move at ``start`` by retrograde analysis of every position
    reachable from it (reference rules, positions without history): won and lost positions
    by fixpoint, everything else drawn (either side can avoid losing forever, and the third
    repetition ends such a game in a draw)."""
    children: dict[str, list[str]] = {}
    ends: dict[str, list[int | None]] = {}  # the winners of the moves that end the game
    mover: dict[str, int] = {}
    stack = [start]
    while stack:
        position = stack.pop()
        if position in children:
            continue
        state = GAME.from_position(position)
        mover[position] = state.current_player
        children[position], ends[position] = [], []
        for action in state.legal_actions():
            after = state.apply(action)
            if after.is_terminal():
                ends[position].append(winner_of(after))
            else:
                children[position].append(after.position())
                stack.append(after.position())
    value: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for position, side in mover.items():
            if position in value:
                continue
            results = [
                "win" if winner == side else "draw" if winner is None else "loss"
                for winner in ends[position]
            ] + [_flip(value.get(child)) for child in children[position]]
            if "win" in results:
                value[position], changed = "win", True
            elif results and all(result == "loss" for result in results):
                value[position], changed = "loss", True
    return value.get(start, "draw")


def _flip(value: str | None) -> str | None:
    return {"win": "loss", "loss": "win"}.get(value or "", value)


def draw_proof(start: str) -> list[dict[str, Any]]:
    solver = Solver(GAME, GAME.from_position(start), memory=1 << 22)
    report = solver.solve(max_nodes=200_000)
    assert report.value == "draw"
    assert [phase.status for phase in report.phases] == ["disproven", "disproven"]
    return list(solver.proof_lines())


def refused(lines: list[dict[str, Any]]) -> str:
    with pytest.raises(ProofCheckError) as caught:
        check(GAME, lines)
    return str(caught.value)


@pytest.mark.parametrize("start", [DRAWN, DRAWN_BLACK])
def test_a_drawn_ending_gets_a_draw_proof_that_the_checker_accepts(
    start: str, tmp_path: Path
) -> None:
    assert brute_force_value(start) == "draw"
    solver = Solver(GAME, GAME.from_position(start), memory=1 << 22)
    assert solver.solve(max_nodes=200_000).value == "draw"
    path = tmp_path / "draw.jsonl"
    written = write_proof(solver, path)
    checked = check_file(GAME, path)
    assert (checked.value, checked.start) == ("draw", start)
    assert checked.used == checked.listed == written  # every line is needed
    lines = [line for line in read_lines(path) if "position" in line]
    sides = {GAME.from_position(line["position"]).current_player for line in lines}
    assert sides == {0, 1} and {line["value"] for line in lines} == {"draw"}


def test_a_draw_proof_missing_a_position_is_refused_naming_it() -> None:
    lines = draw_proof(DRAWN)
    for i in range(1, len(lines), max(1, len(lines) // 12)):
        message = refused(lines[:i] + lines[i + 1 :])
        assert "leads to no listed position" in message, message
        named = message.split(": ")[0]
        GAME.from_position(named)  # the message starts with a position
    # One side's strategy alone does not prove a draw.
    white = [line for line in lines[1:] if line["position"].split()[1] == "w"]
    assert "of Black" in refused([lines[0], *white])


def test_a_draw_proof_with_an_illegal_move_is_refused_naming_the_position() -> None:
    lines = draw_proof(DRAWN)
    bad = [dict(line) for line in lines]
    bad[1]["move"] = "a1-a1"
    assert refused(bad).startswith(f"{bad[1]['position']}: move 'a1-a1' is not legal")


def test_a_move_whose_reply_escapes_the_set_is_refused_naming_the_position() -> None:
    lines = draw_proof(DRAWN)
    canonical = {min(images_for(GAME)(line["position"])) for line in lines[1:]}
    for i, line in enumerate(lines[1:], 1):
        state = GAME.from_position(line["position"])
        for action in state.legal_actions():
            after = state.apply(action)
            if after.is_terminal():
                continue
            escapes = [
                reply
                for reply in after.legal_actions()
                if not after.apply(reply).is_terminal()
                and min(images_for(GAME)(after.apply(reply).position())) not in canonical
            ]
            if not escapes:
                continue
            bad = [dict(item) for item in lines]
            bad[i]["move"] = state.action_to_string(action)
            message = refused(bad)
            assert message.startswith(f"{after.position()}: "), message
            assert "leads to no listed position" in message or "the game ends" in message
            return
    raise AssertionError("no move of the proof's positions lets a reply escape the set")


def test_solve_writes_and_checks_a_draw_proof(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    proof = tmp_path / "draw.jsonl"
    code = main(
        ["solve", "flipflop", "--memory", "16M", "--position", DRAWN, "--proof", str(proof)]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "White, to move, draws with perfect play" in out
    assert "checked by the reference rules" in out
    assert check_file(GAME, proof).value == "draw"


class _Ref:
    """A finished task's result, as a Ray object reference stands for one."""

    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value


class _InProcessRay:
    """The few Ray calls solve_on_ray makes, each task run here at once (so that the Solver
    of a task sees this process's 3-piece tables)."""

    def remote(self, function: Callable[..., dict[str, Any]]) -> Any:
        class Task:
            def remote(self, *args: Any) -> _Ref:
                return _Ref(function(*args))

        return Task()

    def wait(self, refs: list[_Ref], num_returns: int) -> tuple[list[_Ref], list[_Ref]]:
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref: _Ref) -> dict[str, Any]:
        return ref.value

    def cancel(self, ref: _Ref, force: bool) -> None:
        pass


@pytest.mark.parametrize("start", [DRAWN, DRAWN_BLACK])
def test_the_ray_split_assembles_a_draw_proof_the_checker_accepts(
    start: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flipgames.lab import cluster
    from flipgames.solvers.dfpn_ray import solve_on_ray

    monkeypatch.setattr(cluster, "_ray", _InProcessRay)
    monkeypatch.setattr(cluster, "connect", lambda address: False)
    report, lines = solve_on_ray(
        GAME, "auto", 1 << 22, None, lambda line: None, GAME.from_position(start)
    )
    assert report.value == "draw"
    assert lines is not None and check(GAME, lines).value == "draw"


def test_the_symmetries_a_proof_may_use_come_from_the_games_manifest() -> None:
    """FlipFour's manifest names the square's 8, FlipFlop's the mirror alone; a game
    without a manifest gets none, and a manifest naming another symmetry is refused."""
    position = "R4/5/5/5/4b w 43"
    assert len(set(images_for(make("flipfour"))(position))) == 4  # a diagonal's images
    assert images_for(GAME)("R4/5/5/5/4b w") == ["R4/5/5/5/4b w", "4R/5/5/5/b4 w"]
    assert images_for(TurningTurtles())("anything") == ["anything"]
    with pytest.raises(ValueError, match="proof_symmetry is one of none, mirror, square"):
        replace(TOY_MANIFEST, proof_symmetry="upside-down")
