"""FlipFlop's df-pn prover (games/flipflop/dfpn_kernel.py over kernels/dfpn.py, driven by
solvers/dfpn.py) and the checker's FlipFlop proofs (solvers/proof.py, on the reference rules).

The prover's moves are compared with the reference engine on random games of both sizes; its
values are compared with independent ones: the exact 3x3 solution (retrograde analysis), the
5x5 3-piece endgame tables (searched without tables), and a brute-force search of the
reference rules for short wins and losses. Its proofs, which play table-answered endings out
to the end, pass the checker; tampered copies do not; a stopped search resumes to the same
result; the command line runs it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from flipgames import make
from flipgames.cli.main import main
from flipgames.core.game import State
from flipgames.games.flipflop.dfpn_kernel import CAPTURE, FlipFlopProofSearch, tables_for
from flipgames.games.flipflop.rules import FlipFlop, FlipFlopState
from flipgames.kernels.dfpn import STATS
from flipgames.solvers import catalog
from flipgames.solvers import dfpn as dfpn_module
from flipgames.solvers.dfpn import Solver, write_proof
from flipgames.solvers.proof import ProofCheckError, check, check_file, mirror_images, winner_of

GAME = cast(FlipFlop, make("flipflop"))
SMALL = cast(FlipFlop, make("flipflop-3x3"))
#: Positions found by the prover (3-piece tables) and confirmed below by brute force.
WIN_IN_3 = "1rb2/2R2/2R2/5/3Rr w"
LOSS_IN_4 = "2b2/3B1/5/1rr1r/5 w"
#: Wins whose proofs run into the 3-piece tables: in 13 plies (170 nodes), in 15 (16,015).
WIN_IN_13 = "5/R1b2/3B1/5/B2r1 w"
WIN_SLOW = "4b/3b1/R4/BB1b1/5 w"


@pytest.fixture(autouse=True)
def _three_piece_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Solver's search probes the 3-piece tables (cheap to build), not the 4-piece."""
    monkeypatch.setattr(dfpn_module, "TABLE_PIECES", 3)


def fresh(game: FlipFlop, state: State) -> FlipFlopState:
    """``state``'s position with no history (as the prover and the tables see it)."""
    s = cast(FlipFlopState, state)
    return game.state_at(s.white, s.black, s.bishops, s.side)


def answers(
    search: FlipFlopProofSearch, state: FlipFlopState, budget: int
) -> list[tuple[int, int, int]]:
    """(pn, dn, dep) of "the side to move wins", then of "the other side wins"."""
    position = search.root(state.key())
    found = []
    for attacker in (state.side, 1 - state.side):
        stats = np.zeros(STATS, dtype=np.int64)
        pn, dn, _, dep = search.run(position, attacker, search.new_table(1 << 16), stats, budget)
        found.append((pn, dn, dep))
    return found


def values(search: FlipFlopProofSearch, state: FlipFlopState) -> str:
    """win / loss / draw for the side to move, from both questions (both resolved)."""
    found = answers(search, state, 10**6)
    for pn, dn, dep in found:
        assert pn == 0 or (dn == 0 and dep >= 1 << 40), state.position()
    return "win" if found[0][0] == 0 else "loss" if found[1][0] == 0 else "draw"


def wins_within(state: State, attacker: int, plies: int) -> bool:
    """Brute force on the reference rules: ``attacker`` forces a win within ``plies``."""
    if state.is_terminal():
        return winner_of(state) == attacker
    if plies == 0:
        return False
    replies = (wins_within(state.apply(a), attacker, plies - 1) for a in state.legal_actions())
    return any(replies) if state.current_player == attacker else all(replies)


def random_states(game: FlipFlop, count: int, seed: int, pieces: int = 99) -> list[FlipFlopState]:
    """Live positions (no history) of random games with at most ``pieces`` pieces."""
    rng, found = random.Random(seed), list[FlipFlopState]()
    while len(found) < count:
        state: State = game.new_initial_state()
        for _ in range(rng.randrange(1, 200)):
            if state.is_terminal():
                break
            state = state.apply(rng.choice(state.legal_actions()))
        position = fresh(game, state)
        if not position.is_terminal() and (position.white | position.black).bit_count() <= pieces:
            found.append(position)
    return found


@pytest.mark.parametrize("game", [GAME, SMALL], ids=["5x5", "3x3"])
def test_the_kernel_generates_and_plays_as_the_reference_engine(game: FlipFlop) -> None:
    search = FlipFlopProofSearch(game, None)
    for state in random_states(game, 60, seed=2):
        position = search.root(state.key())
        assert search.position_text(position) == state.position()
        children = search.children(position)
        assert [a % CAPTURE for a, _, _ in children] == list(state.legal_actions())
        for action, child, ends in children:
            after = state.apply(action % CAPTURE)
            assert search.action_text(action) == state.action_to_string(action % CAPTURE)
            assert search.position_text(child) == after.position()
            assert ends == (after.is_terminal() and winner_of(after) == state.side)


def test_the_key_is_the_same_for_a_position_and_its_mirror_image_only() -> None:
    search = FlipFlopProofSearch(GAME, None)
    state = fresh(GAME, GAME.from_position("1r1b1/5/2R2/B4/4r w"))
    image = fresh(GAME, GAME.from_position(mirror_images(state.position())[1]))
    assert image.position() == "1b1r1/5/2R2/4B/r4 w"
    assert search.key(search.root(state.key())) == search.key(search.root(image.key()))
    turned = fresh(GAME, GAME.from_position("r4/5/2R2/B4/1r1b1 w"))  # upside down: none
    assert search.key(search.root(turned.key())) != search.key(search.root(state.key()))


def test_3x3_values_are_the_exact_solutions() -> None:
    solution = catalog.solution(SMALL)
    plain, probing = (
        FlipFlopProofSearch(SMALL, None),
        FlipFlopProofSearch(SMALL, tables_for(SMALL, 4)),
    )
    for state in [SMALL.new_initial_state(), *random_states(SMALL, 40, seed=4)]:
        exact = solution.value(state, state.side).outcome
        assert values(plain, state) == values(probing, state) == exact, state.position()


def test_3_piece_values_without_tables_are_the_tables_values() -> None:
    """Decided positions are proven for the right side; in a drawn one (which df-pn can only
    disprove by exhausting the repetitions, see docs/solvers.md) no side is proven to win."""
    table = tables_for(GAME, 3)
    assert table is not None
    search = FlipFlopProofSearch(GAME, None)
    outcomes = []
    for state in random_states(GAME, 30, seed=6, pieces=3):
        known = table.value(state)
        assert known is not None
        outcomes.append(known.outcome)
        if known.outcome == "draw":
            assert all(pn != 0 for pn, _, _ in answers(search, state, 20_000))
        else:
            assert values(search, state) == known.outcome, state.position()
    assert {"win", "loss", "draw"} <= set(outcomes)


def test_a_short_win_and_a_short_loss_agree_with_brute_force() -> None:
    win, loss = GAME.from_position(WIN_IN_3), GAME.from_position(LOSS_IN_4)
    solver = Solver(GAME, win, memory=1 << 20)
    report = solver.solve(max_nodes=100_000)
    assert (report.value, report.phases[0].plies) == ("win", 3)
    assert wins_within(win, 0, 3) and not wins_within(win, 0, 1)
    report = Solver(GAME, loss, memory=1 << 20).solve(max_nodes=100_000)
    assert report.value == "loss" and [p.status for p in report.phases] == ["disproven", "proven"]
    assert report.phases[1].plies == 4 and wins_within(loss, 1, 4)


def proved(start: str) -> tuple[Solver, list[dict[str, Any]]]:
    solver = Solver(GAME, GAME.from_position(start), memory=1 << 22)
    assert solver.solve(max_nodes=2_000_000).value == "win"
    return solver, list(solver.proof_lines())


def test_a_proof_through_the_tables_passes_the_checker_and_tampering_fails(
    tmp_path: Path,
) -> None:
    solver, lines = proved(WIN_IN_13)
    # The endings the tables answered are played out: positions of 3 pieces are listed.
    assert any(sum(c.isalpha() for c in line["position"].split()[0]) == 3 for line in lines[1:])
    path = tmp_path / "proof.jsonl"
    assert write_proof(solver, path) == len(lines) - 1
    assert check_file(GAME, path).value == "win"
    for i in range(2, len(lines)):  # every line is needed
        with pytest.raises(ProofCheckError, match="leads to no listed position"):
            check(GAME, lines[:i] + lines[i + 1 :])
    bad = [dict(line) for line in lines]
    bad[1]["move"] = "e1-e2"
    with pytest.raises(ProofCheckError, match=f"^{WIN_IN_13}: move 'e1-e2' is not legal"):
        check(GAME, bad)
    with pytest.raises(ProofCheckError, match="value win, but the claim needs draw"):
        check(GAME, [{**lines[0], "value": "draw"}, *lines[1:]])


def turned(text: str) -> str:
    """A position's board, or a move's squares, upside down (rank r to rank 6 - r)."""
    if "/" in text:
        board, side = text.split()
        return f"{'/'.join(board.split('/')[::-1])} {side}"
    return "".join(str(6 - int(c)) if c.isdigit() else c for c in text)


def test_only_the_mirror_image_is_a_symmetry_for_the_checker() -> None:
    _, lines = proved(WIN_IN_3)
    assert check(GAME, lines).value == "win"
    first = lines[1]
    mirrored = GAME.from_position(mirror_images(first["position"])[1])
    move = mirrored.action_to_string(mirrored.parse_action(_mirrored_move(first["move"])))
    image = {**first, "position": mirrored.position(), "move": move}
    assert check(GAME, [lines[0], image, *lines[2:]]).value == "win"
    # Upside down the goals change hands: the start's line is not found there.
    upside_down = {**first, "position": turned(first["position"]), "move": turned(first["move"])}
    with pytest.raises(ProofCheckError, match=f"^{WIN_IN_3}: the reply reaching {WIN_IN_3} "):
        check(GAME, [lines[0], upside_down, *lines[2:]])


def _mirrored_move(move: str) -> str:
    files = "abcde"
    return "".join(files[4 - files.index(c)] if c in files else c for c in move)


def test_a_stopped_search_resumes_from_its_checkpoint_to_the_same_result(tmp_path: Path) -> None:
    start = GAME.from_position(WIN_SLOW)
    whole = Solver(GAME, start, memory=1 << 22).solve()
    stopped = Solver(GAME, start, memory=1 << 22, checkpoint=tmp_path).solve(max_nodes=3_000)
    assert stopped.value is None and stopped.phases[0].status == "open"
    again = Solver(GAME, start, memory=1 << 22, checkpoint=tmp_path)
    assert again.resumed and again.nodes == stopped.nodes
    resumed = again.solve()
    assert (resumed.value, resumed.phases[0].plies) == (whole.value, whole.phases[0].plies)
    assert resumed.value == "win"
    assert check(GAME, list(again.proof_lines())).value == "win"


def test_the_command_line_proves_checks_and_resumes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    proof, folder = tmp_path / "proof.jsonl", tmp_path / "ck"
    common = ["solve", "flipflop", "--memory", "16M", "--position", WIN_SLOW]
    assert main([*common, "--checkpoint", str(folder), "--max-nodes", "2000", "--quiet"]) == 0
    assert "not decided yet" in capsys.readouterr().out
    argv = [*common, "--checkpoint", str(folder), "--resume", "--proof", str(proof), "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["resumed"] and report["value"] == "win" and report["proof_checked"] is True
    assert main(["solve", "flipflop", "--check", str(proof)]) == 0
    assert "the proof holds (win for the side to move" in capsys.readouterr().out


def test_solve_flipflop_searches_the_start_until_its_time_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["solve", "flipflop", "--memory", "16M", "--max-time", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["start"] == "rrrrr/5/5/5/RRRRR w" and report["value"] is None
    assert report["phases"][0]["status"] == "open" and report["nodes"] > 0
    # One first move per mirror pair: a1-a2 stands for e1-e2, c1-c2 for itself.
    assert {"a1-a2", "c1-c2"} <= set(report["first_moves"])
    assert "e1-e2" not in report["first_moves"]


@pytest.mark.slow  # about 20 CPU s
def test_the_start_is_a_white_win_whose_proof_passes_the_checker() -> None:
    solver = Solver(GAME, memory=1 << 28)
    report = solver.solve(max_nodes=40_000_000)
    assert (report.value, report.phases[0].status) == ("win", "proven")
    lines = list(solver.proof_lines())
    assert lines[0] == {"game": "flipflop", "start": "rrrrr/5/5/5/RRRRR w", "value": "win"}
    assert check(GAME, lines).used == len(lines) - 1
