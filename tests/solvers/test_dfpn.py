"""The df-pn prover (solvers/dfpn.py over games/flipfour/dfpn_kernel.py) and the independent
proof checker (solvers/proof.py, on the reference rules).

The prover's move generator is compared with the reference engine ply by ply on random
games; its proofs of FlipFour endings are replayed by the checker, which must accept them and
refuse tampered copies naming the bad position; a stopped search resumes from its checkpoint
to the same result.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from flipgames import make
from flipgames.core.game import State
from flipgames.solvers.dfpn import DfpnError, Solver, proof_search, write_proof
from flipgames.solvers.proof import ProofCheckError, board_images, check, check_file, winner_of

GAME = make("flipfour")
#: White to move, a drop on d3 wins at once.
WIN_IN_ONE = "5/5/RRR1b/bb3/b4 w 10"
#: Endings the prover closes in a few hundred to a few tens of thousands of nodes.
WIN_IN_NINE = "R1b2/5/2B1R/1r1Br/b4 w 00"
WIN_SLOW = "R3R/bR3/2r2/1R1b1/4b w 00"
LOSS = "2B1B/5/b2B1/Bb3/3bb b 00"


def proved(start: str, memory: int = 1 << 24) -> tuple[Solver, list[dict[str, Any]]]:
    solver = Solver(GAME, GAME.from_position(start), memory=memory)
    report = solver.solve(max_nodes=2_000_000)
    assert report.value in ("win", "loss"), report
    return solver, list(solver.proof_lines())


def refused(lines: list[dict[str, Any]]) -> str:
    with pytest.raises(ProofCheckError) as caught:
        check(GAME, lines)
    return str(caught.value)


def test_the_kernel_generates_and_plays_as_the_reference_engine() -> None:
    search = proof_search(GAME)
    assert search is not None
    rng = random.Random(5)
    for _ in range(40):
        state = GAME.new_initial_state()
        for _ in range(rng.randrange(1, 60)):
            if state.is_terminal():
                break
            key = state.key()
            assert isinstance(key, int)
            position = search.root(key)
            assert search.position_text(position) == state.position()
            children = search.children(position)
            assert [a for a, _, _ in children] == list(state.legal_actions())
            for action, child, four in children:
                after = state.apply(action)
                assert search.position_text(child) == after.position()
                assert four == (after.is_terminal() and winner_of(after) == state.current_player)
            state = state.apply(rng.choice(state.legal_actions()))


def test_the_canonical_key_is_the_same_for_the_8_images_and_only_for_them() -> None:
    search = proof_search(GAME)
    assert search is not None
    start = GAME.from_position("2R2/1b3/5/3Br/b4 w 21")
    images = board_images(start.position())
    assert len(set(images)) == 8
    keys = set()
    for image in images:
        key = GAME.from_position(image).key()
        assert isinstance(key, int)
        keys.add(search.key(search.root(key)))
    assert len(keys) == 1
    other = GAME.from_position("2R2/1b3/5/3rB/b4 w 21").key()
    assert isinstance(other, int)
    assert search.key(search.root(other)) not in keys


def test_a_hand_made_proof_is_accepted_also_through_a_mirror_image() -> None:
    claim = {"game": "flipfour", "start": WIN_IN_ONE, "value": "win"}
    line = {"position": WIN_IN_ONE, "value": "win", "move": "R@d3"}
    assert check(GAME, [claim, line]).value == "win"
    # The same position mirrored left-right, with the mirrored move (b3 for d3).
    mirrored = {"position": "5/5/b1RRR/3bb/4b w 10", "value": "win", "move": "R@b3"}
    assert check(GAME, [claim, mirrored]).used == 1
    assert "leads to no listed position" in refused([claim])


@pytest.mark.parametrize("start", [WIN_IN_NINE, WIN_SLOW, LOSS])
def test_the_provers_proofs_of_endings_pass_the_checker(start: str, tmp_path: Path) -> None:
    solver, lines = proved(start)
    path = tmp_path / "proof.jsonl"
    assert write_proof(solver, path) == len(lines) - 1
    checked = check_file(GAME, path)
    assert checked.value == lines[0]["value"] and checked.used == len(lines) - 1


def test_tampered_proofs_are_refused_naming_the_position() -> None:
    _, lines = proved(WIN_IN_NINE)
    # A missing position: some reply leads nowhere.
    for i in range(2, len(lines)):
        shorter = lines[:i] + lines[i + 1 :]
        message = refused(shorter)
        assert "leads to no listed position" in message
        break
    # An illegal move at the start.
    bad = [dict(line) for line in lines]
    bad[1]["move"] = "a1-a2" if bad[1]["move"] != "a1-a2" else "b1-b2"
    assert refused(bad).startswith(f"{WIN_IN_NINE}: move ")
    # A wrong value.
    bad = [dict(line) for line in lines]
    bad[1]["value"] = "draw"
    assert refused(bad) == f"{WIN_IN_NINE}: value draw, but the claim needs win"
    # A claim the strategy does not prove: the same lines for a draw.
    assert "value win, but the claim needs draw" in refused(
        [{**lines[0], "value": "draw"}, *lines[1:]]
    )


def test_a_stopped_search_resumes_from_its_checkpoint_to_the_same_result(tmp_path: Path) -> None:
    whole = Solver(GAME, GAME.from_position(WIN_SLOW), memory=1 << 24).solve()
    first = Solver(GAME, GAME.from_position(WIN_SLOW), memory=1 << 24, checkpoint=tmp_path)
    stopped = first.solve(max_nodes=5_000)
    assert stopped.value is None and stopped.phases[0].status == "open"
    state = json.loads((tmp_path / "state.json").read_text())
    assert state["start"] == WIN_SLOW and state["nodes"] == stopped.nodes
    again = Solver(GAME, GAME.from_position(WIN_SLOW), memory=1 << 24, checkpoint=tmp_path)
    assert again.resumed and again.nodes == stopped.nodes
    resumed = again.solve()
    assert (resumed.value, resumed.phases[0].status) == (whole.value, "proven") == ("win", "proven")
    assert resumed.nodes > stopped.nodes
    check(GAME, list(again.proof_lines()))
    with pytest.raises(DfpnError, match="not of flipfour from"):
        Solver(GAME, GAME.from_position(WIN_IN_NINE), memory=1 << 20, checkpoint=tmp_path)


def test_a_small_table_replaces_entries_and_still_proves() -> None:
    solver, lines = proved(WIN_IN_NINE, memory=1 << 16)
    assert solver.stats[6] > 0  # entries were replaced
    assert check(GAME, lines).value == "win"


def looping_tamper(lines: list[dict[str, Any]]) -> tuple[int, str]:
    """A line of a win proof and another legal move for it after which every reply still
    reaches a listed position (or the prover's win) and some line comes back to that line's
    position: the tampered strategy is a closed set that never loses, but no win."""
    prover = GAME.from_position(lines[1]["position"]).current_player
    index = {min(board_images(line["position"])): i for i, line in enumerate(lines) if i}

    def reached(state: State) -> set[str] | None:
        """The listed positions the replies at ``state`` reach; None when one escapes."""
        found = set()
        for reply in state.legal_actions():
            after = state.apply(reply)
            if after.is_terminal():
                if winner_of(after) != prover:
                    return None
                continue
            key = min(board_images(after.position()))
            if key not in index:
                return None
            found.add(key)
        return found

    def after_move(i: int, move: str) -> State:
        state = GAME.from_position(lines[i]["position"])
        return state.apply(state.parse_action(move))

    graph = {key: reached(after_move(i, lines[i]["move"])) or set() for key, i in index.items()}

    def leads_to(source: str, target: str) -> bool:
        seen, stack = {source}, [source]
        while stack:
            for nxt in graph[stack.pop()]:
                if nxt == target:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return source == target

    for key, i in index.items():
        state = GAME.from_position(lines[i]["position"])
        for action in state.legal_actions():
            move = state.action_to_string(action)
            if move == lines[i]["move"] or state.apply(action).is_terminal():
                continue
            targets = reached(after_move(i, move))
            if targets and any(leads_to(target, key) for target in targets):
                return i, move
    raise AssertionError("no move of the proof closes a loop")


def test_a_win_proof_whose_strategy_loops_is_refused() -> None:
    """A real proof with one move changed into a loop (every reply still listed): the
    strategy never loses, but a win must not need the repetition it comes back to."""
    _, lines = proved(WIN_SLOW)
    i, move = looping_tamper(lines)
    bad = [dict(line) for line in lines]
    bad[i]["move"] = move
    message = refused(bad)
    assert "the proof returns to this position (a cycle" in message, message
    GAME.from_position(message.split(": ")[0])  # the message starts with the position
