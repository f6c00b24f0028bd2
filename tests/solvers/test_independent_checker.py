"""tools/check_proof.py, the second proof checker that imports nothing from flipgames.

Its own move generator is compared with the reference engines on random games (every legal
move, where each leads, and who has won); it accepts the prover's proofs, refuses tampered
ones, and runs as a script with clear errors.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from flipgames import make
from flipgames.solvers.dfpn import Solver

SCRIPT = Path(__file__).parents[2] / "tools" / "check_proof.py"
#: FlipFour endings of the df-pn tests: a White win in at most 9 plies, a Black-to-move loss.
FLIPFOUR_WIN = "R1b2/5/2B1R/1r1Br/b4 w 00"
FLIPFOUR_LOSS = "2B1B/5/b2B1/Bb3/3bb b 00"
#: A FlipFlop 5x5 win whose proof plays endgame-table endings out (as in test_dfpn_flipflop).
FLIPFLOP_WIN = "5/R1b2/3B1/5/B2r1 w"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_proof", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_proof"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


CHECKER = load()


def test_the_script_imports_nothing_from_flipgames() -> None:
    source = SCRIPT.read_text()
    assert "flipgames" not in "".join(
        line for line in source.splitlines() if line.startswith(("import", "from"))
    )


@pytest.mark.parametrize("name", ["flipflop", "flipflop-3x3", "flipfour"])
def test_its_moves_and_wins_are_the_reference_engines(name: str) -> None:
    game, rules, rng = make(name), CHECKER.rules_for(name), random.Random(5)
    compared = 0
    for _ in range(60):
        state = game.new_initial_state()
        while not state.is_terminal() and len(state.history) < 120:
            position = rules.parse(state.position())
            theirs = rules.moves(position)
            ours = {state.action_to_string(a): a for a in state.legal_actions()}
            assert set(theirs) == set(ours), state.position()
            move = rng.choice(sorted(ours))
            after = state.apply(ours[move])
            mover = state.current_player
            if after.is_terminal() and after.returns()[mover] > 0:
                assert rules.winner(theirs[move], mover) == mover, after.position()
            elif not after.is_terminal():
                assert rules.winner(theirs[move], mover) is None, after.position()
                assert CHECKER.describe(rules, theirs[move]) == after.position()
            state, compared = after, compared + 1
    assert compared > 500


def proof(name: str, start: str) -> list[dict[str, Any]]:
    game = make(name)
    solver = Solver(game, game.from_position(start), memory=1 << 22)
    assert solver.solve().value in ("win", "loss")
    return list(solver.proof_lines())


@pytest.mark.parametrize(
    ("name", "start", "value"),
    [
        ("flipfour", FLIPFOUR_WIN, "win"),
        ("flipfour", FLIPFOUR_LOSS, "loss"),
        ("flipflop", FLIPFLOP_WIN, "win"),
    ],
)
def test_it_accepts_the_provers_proofs_and_refuses_tampered_ones(
    name: str, start: str, value: str
) -> None:
    lines = proof(name, start)
    assert CHECKER.check(lines) == (value, len(lines) - 1)
    for i in random.Random(3).sample(range(1, len(lines)), min(12, len(lines) - 1)):
        with pytest.raises(CHECKER.BadProof, match="is not in the proof"):  # each is needed
            CHECKER.check(lines[:i] + lines[i + 1 :])
    # A legal move that does not keep the win: some reply then escapes the proof.
    rules = CHECKER.rules_for(name)
    first = lines[1]
    position = rules.parse(first["position"])
    others = [m for m in rules.moves(position) if m != first["move"]]
    refused = 0
    for move in others:
        try:
            CHECKER.check([lines[0], {**first, "move": move}, *lines[2:]])
        except CHECKER.BadProof:
            refused += 1
    assert refused >= 1
    illegal = [lines[0], {**first, "move": "a1-a1"}, *lines[2:]]
    with pytest.raises(CHECKER.BadProof, match="the listed move a1-a1 is not legal"):
        CHECKER.check(illegal)


#: A FlipFlop 3x3 strategy for White that answers every Black reply from a listed position
#: and never loses, but goes round in a circle: it never wins (found by a search over the
#: 2- and 3-piece positions for closed strategies that this checker refuses).
CIRCLE = [
    ("3/r1R/B2 w", "a1-b2"),
    ("3/1RR/b2 w", "b2-a2"),
    ("2r/B1R/3 w", "a2-b1"),
    ("b2/2R/1R1 w", "b1-b2"),
    ("1b1/2R/1R1 w", "b1-a1"),
    ("3/BrR/3 w", "a2-b3"),
    ("1b1/2R/3 w", "c2-a2"),
    ("3/B1r/3 w", "a2-b3"),
    ("b2/1RR/3 w", "b2-a2"),
    ("3/B1R/2r w", "a2-b3"),
]


def test_a_strategy_that_goes_round_in_a_circle_is_refused() -> None:
    claim = {"game": "flipflop-3x3", "start": CIRCLE[0][0], "value": "win"}
    lines = [claim, *({"position": p, "value": "win", "move": m} for p, m in CIRCLE)]
    with pytest.raises(CHECKER.BadProof, match="repeats on a line of the proof"):
        CHECKER.check(lines)
    # Closed: no listed move is illegal and no reply leaves the listed positions, so the
    # circle is the only thing wrong (a missing line would be refused first otherwise).
    rules = CHECKER.rules_for("flipflop-3x3")
    listed = {rules.parse(p) for p, _ in CIRCLE}
    for text, move in CIRCLE:
        after = rules.moves(rules.parse(text))[move]
        for reply in rules.moves(after).values():
            assert rules.winner(reply, 1) is None
            assert any(image in listed for image in rules.images(reply)), text


def test_the_script_says_what_it_proved_or_what_is_wrong(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("".join(f"{json.dumps(line)}\n" for line in proof("flipfour", FLIPFOUR_WIN)))
    done = subprocess.run([sys.executable, SCRIPT, good], capture_output=True, text=True)
    assert done.returncode == 0 and "the side to move wins; proof accepted" in done.stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"game": "chess", "start": "x", "value": "win"}\n')
    done = subprocess.run([sys.executable, SCRIPT, bad], capture_output=True, text=True)
    assert done.returncode == 1 and "knows FlipFlop and FlipFour, not 'chess'" in done.stderr
    assert "Traceback" not in done.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"game": "flipflop"\n')
    done = subprocess.run([sys.executable, SCRIPT, broken], capture_output=True, text=True)
    assert done.returncode == 1 and "broken.jsonl: line 1 is not JSON" in done.stderr
    done = subprocess.run(
        [sys.executable, SCRIPT, tmp_path / "none"], capture_output=True, text=True
    )
    assert done.returncode == 1 and "none: cannot read it (FileNotFoundError" in done.stderr
    missing = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
    assert missing.returncode == 2 and "usage" in missing.stderr
