"""The designer's audit: every finding kind on a toy game derived by hand (Ladder, below),
and on real games where that is fast; every example replays with the real rules."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from flipgames import Termination, make
from flipgames.core.errors import IllegalActionError
from flipgames.core.game import TERMINAL, Game, State, repetition_count
from flipgames.core.options import Option
from flipgames.core.progress import silent
from flipgames.lab.audit import Audit, audit
from flipgames.lab.audit_walk import Walk

NAMES = ("up", "down", "resign", "jump")


class Ladder(Game):
    """A toy game whose audit findings are derived by hand.

    A counter from 0; the first player moves first. Actions: ``up`` (+1), ``down`` (-1, not
    from 0), ``resign`` (the mover loses) and, with option ``trap=yes``, ``jump`` from 0 to 4,
    where the opponent has no legal action and loses. Reaching 3 wins for the mover; the third
    repetition draws.

    By hand: at 2 ``up`` wins; at 1 ``up`` loses (the opponent wins from 2) and ``down`` goes
    back to 0, so with ``trap=no`` play goes round 0 and 1 (``up``, ``down``): a draw by
    repetition. ``resign`` is never among the best moves; no position lacks a legal action;
    either player can resign, so neither can force endless play. With ``trap=yes`` the first
    player jumps at once and wins: the option flips the value from 0 to +1.
    """

    name = "ladder"
    title = "Ladder"
    repetition_draws = True
    option_spec = (Option("trap", "no", choices=("no", "yes"), help="jump from 0 to 4"),)

    def new_initial_state(self) -> LadderState:
        return LadderState(self, 0, 0, resigned=False)

    def rules_summary(self) -> str:
        return Ladder.__doc__ or ""


class LadderState(State):
    __slots__ = ("n", "player", "resigned")

    def __init__(
        self,
        game: Game,
        n: int,
        player: int,
        *,
        resigned: bool,
        parent: State | None = None,
        action: int | None = None,
    ) -> None:
        super().__init__(game, parent, action)
        self.n, self.player, self.resigned = n, player, resigned

    @property
    def current_player(self) -> int:
        return TERMINAL if self.n >= 3 or self.resigned or self._third() else self.player

    def _third(self) -> bool:
        return repetition_count(self, 2) >= 3

    def perft_actions(self) -> tuple[int, ...]:
        """As if the third repetition did not end the game (the audit's walk)."""
        if self.n >= 3 or self.resigned:
            return ()
        return self._moves()

    def apply_perft(self, action: int) -> State:
        return self._apply(action)

    def _legal_actions(self) -> tuple[int, ...]:
        if self.current_player == TERMINAL:
            return ()
        return self._moves()

    def _moves(self) -> tuple[int, ...]:
        actions = [0, 2] if self.n == 0 else [0, 1, 2]
        if self.n == 0 and self.game.options["trap"] == "yes":
            actions.append(3)
        return tuple(sorted(actions))

    def _apply(self, action: int) -> LadderState:
        if action == 2:  # the resigner stays "to move": the player to move at the end lost
            return LadderState(
                self.game, self.n, self.player, resigned=True, parent=self, action=action
            )
        n = {0: self.n + 1, 1: self.n - 1, 3: 4}[action]
        return LadderState(
            self.game, n, 1 - self.player, resigned=False, parent=self, action=action
        )

    def returns(self) -> tuple[int, ...]:
        if self.current_player != TERMINAL or not (self.n >= 3 or self.resigned):
            return (0, 0)
        # Whoever is to move at the end lost: they resigned, face a win, or are stuck.
        return (-1, 1) if self.player == 0 else (1, -1)

    def action_to_string(self, action: int) -> str:
        return NAMES[action]

    def parse_action(self, text: str) -> int:
        if text in NAMES and NAMES.index(text) in self.legal_actions():
            return NAMES.index(text)
        raise IllegalActionError(f"{text!r} is not legal here")

    def key(self) -> tuple[int, int, int]:
        return (self.n, self.player, int(self.resigned))

    def end_reason(self) -> Termination | None:
        # Reaching 3 is the toy's finish line, and a resignation hands it to the opponent:
        # the audit asks only whether the player to move was stuck (the jump to 4).
        if self.current_player != TERMINAL:
            return None
        if not (self.n >= 3 or self.resigned):
            return Termination.REPETITION
        return Termination.NO_LEGAL_MOVE if self.n == 4 else Termination.FINISH_LINE

    def status_text(self) -> str:
        if self.current_player != TERMINAL:
            return f"player {self.player + 1} to move"
        if not (self.n >= 3 or self.resigned):
            return "drawn: a position occurred for the third time"
        if self.n == 4:
            return f"player {self.player + 1} has no legal move and loses"
        return f"player {self.player + 1} lost"

    def render(self) -> str:
        return str(self.n)


def replay(game: Game, actions: list[str]) -> list[State]:
    """Every state along ``actions`` from the start, with the real rules."""
    states = [game.new_initial_state()]
    for text in actions:
        states.append(states[-1].apply(states[-1].parse_action(text)))
    return states


def kinds(result: Audit) -> dict[str, list[dict[str, object]]]:
    found: dict[str, list[dict[str, object]]] = {}
    for finding in result.to_json()["findings"]:
        found.setdefault(finding["kind"], []).append(finding)
    return found


def repeats(states: list[State]) -> bool:
    keys = [s.key() for s in states]
    return len(set(keys)) < len(keys) and keys[-1] in keys[:-1]


@pytest.fixture(scope="module")
def ladder() -> Audit:
    return audit(Ladder(), method="exhaustive")


def test_the_json_has_exactly_the_promised_keys(ladder):
    data = ladder.to_json()
    assert list(data) == ["game", "options", "method", "findings"]
    assert data["game"] == "ladder" and data["options"] == {"trap": "no"}
    assert data["method"] == "exhaustive"
    for finding in data["findings"]:
        assert {"kind", "summary", "example"} <= set(finding)
        assert all(isinstance(a, str) for a in finding["example"])
    json.dumps(data)


def test_solved_value_is_the_hand_derived_draw(ladder):
    (value,) = kinds(ladder)["solved-value"]
    assert (value["value"], value["win"], value["draw"], value["loss"]) == ("0", 0, 1, 0)
    assert value["first_player_advantage"] == 0
    # 0, 1 and 2 (each with one mover), three resignations and the win at 3.
    assert value["positions"] == 7
    # Optimal play goes up and down until a position repeats.
    assert repeats(replay(Ladder(), value["example"]))


def test_no_position_without_a_legal_action_is_a_dead_clause(ladder):
    found = kinds(ladder)
    assert "no-legal-action" not in found
    (dead,) = found["dead-clause"]
    assert dead["fewest_legal_actions"] == 2
    end = replay(Ladder(), dead["example"])[-1]
    assert len(end.legal_actions()) == 2


def test_endless_play_example_returns_to_a_position_and_nobody_forces_it(ladder):
    (endless,) = kinds(ladder)["endless-play"]
    assert endless["forced_by"] == []  # either player may resign
    states = replay(Ladder(), endless["example"])
    assert repeats(states) and not states[-1].is_terminal()


def test_optimal_play_is_a_cycle(ladder):
    (cycle,) = kinds(ladder)["optimal-cycle"]
    states = replay(Ladder(), cycle["example"])
    assert repeats(states)
    assert cycle["example"][:2] == ["up", "down"]


def test_resigning_is_never_optimal(ladder):
    (never,) = kinds(ladder)["never-optimal"]
    assert never["choice"] == "resign"
    assert never["example"][-1] == "resign"
    assert never["largest_cost"] == 2  # at 2: a sure win given away
    replay(Ladder(), never["example"])


def test_the_trap_option_flips_the_value_and_leaves_a_player_without_a_move(ladder):
    (flip,) = kinds(ladder)["option-flip"]
    assert (flip["option"], flip["choice"], flip["flips"]) == ("trap", "yes", True)
    assert flip["value"] == "1"
    trapped = audit(Ladder({"trap": "yes"}), method="exhaustive")
    (stuck,) = kinds(trapped)["no-legal-action"]
    end = replay(Ladder({"trap": "yes"}), stuck["example"])[-1]
    assert end.is_terminal() and end.legal_actions() == ()
    assert "no legal move" in end.status_text()
    assert stuck["resolutions"] == ["player 2 has no legal move and loses"]


def test_candidate_fixes_are_solved_and_compared(monkeypatch):
    from flipgames.lab import audit as module

    fixes = {"optimal-cycle": ({"trap": "yes"},)}
    monkeypatch.setattr(module, "candidate_fixes", lambda game: fixes if game == Ladder() else {})
    result = audit(Ladder(), method="exhaustive", fixes=True)
    (fix,) = kinds(result)["candidate-fix"]
    assert fix["fix"] == {"trap": "yes"} and fix["value"] == "1"
    assert fix["decided"] == 1 and fix["standard_decided"] == 0
    assert fix["mean_length"] == 1  # the first player jumps at once
    assert fix["recommendation"] == "closes the hole but hands first player a large edge"
    assert "| trap=yes |" in module.describe(result)


def test_an_exhaustive_audit_of_a_game_too_large_stops_with_a_clear_error(monkeypatch):
    from flipgames.lab import audit as module
    from flipgames.solvers.solution import SolverError

    monkeypatch.setattr(module, "MAX_POSITIONS", 5)
    # The solver stops first, unless an earlier test left this solution in the disk cache.
    with pytest.raises((SolverError, module.AuditError), match=r"too large .* than 5 positions"):
        audit(Ladder({"trap": "yes"}), method="exhaustive")
    # A stochastic solve takes no budget, so the walk has its own (here with an unbounded
    # solve standing in for one).
    solve = module.catalog.solve
    monkeypatch.setattr(module.catalog, "solve", lambda game, progress, _: solve(game, progress))
    with pytest.raises(module.AuditError, match="more than 5 positions; use --method sampled"):
        audit(Ladder({"trap": "yes"}), method="exhaustive")


def test_checkered_flag_short_track_exhaustively():
    game = make("checkered-flag", track="short")
    result = audit(game)
    found = kinds(result)
    assert result.method == "exhaustive"
    (value,) = found["solved-value"]
    assert value["value"] == "0"  # who starts is spun for: fair by symmetry
    (flip,) = found["option-flip"]
    assert (flip["option"], flip["choice"]) == ("start", "first")
    assert flip["value_float"] == pytest.approx(0.1912, abs=1e-4)
    assert "dead-clause" in found
    assert replay(game, value["example"])[-1].is_terminal()


def test_a_4x4_flip_switch_is_sampled_and_finds_stuck_rounds():
    game = make("flip-switch", rounds=1, size=4, shapes=4, copies=4)
    result = audit(game, random_games=40, level_games=1, seed=3)
    assert result.method == "sampled"
    found = kinds(result)
    random_row, easy_row = found["first-player-advantage"]
    assert random_row["games"] == 40 and easy_row["games"] == 1
    low, high = random_row["first_win_ci"]
    assert low <= random_row["first_win_rate"] <= high
    (stuck,) = found["no-legal-action"]
    end = replay(game, stuck["example"])[-1]
    assert end.is_terminal() and "no legal action" in end.status_text()
    assert "not-checked" in found
    for endless in found.get("endless-play", []):
        assert repeats(replay(game, endless["example"]))
    assert audit(game, random_games=40, level_games=1, seed=3).to_json() == result.to_json()


def test_the_cli_prints_json_and_rejects_bad_input():
    run = [sys.executable, "-m", "flipgames", "audit"]
    done = subprocess.run(
        [*run, "checkered-flag", "-o", "track=short", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(done.stdout)
    assert data["method"] == "exhaustive" and data["options"]["track"] == "short"
    for bad, message in (
        (["nope"], "unknown game 'nope'"),
        (["flip-switch", "-o", "bogus=1"], "unknown option 'bogus'"),
        (["flip-switch", "--games", "x"], "expected a whole number"),
    ):
        failed = subprocess.run([*run, *bad], capture_output=True, text=True)
        assert failed.returncode != 0 and message in failed.stderr
        assert "Traceback" not in failed.stderr


class TerseLadderState(LadderState):
    """Ladder whose every ending reads "game over" and is keyed by its result alone, as a
    game graph that merges endings with one result keys them."""

    __slots__ = ()

    def _apply(self, action: int) -> LadderState:
        child = super()._apply(action)
        return TerseLadderState(
            self.game, child.n, child.player, resigned=child.resigned, parent=self, action=action
        )

    def key(self) -> tuple[object, ...]:
        # Not current_player: the repetition count it reads is made of keys.
        return ("over", self.returns()) if self.n >= 3 or self.resigned else super().key()

    def status_text(self) -> str:
        return "game over" if self.current_player == TERMINAL else super().status_text()


class TerseLadder(Ladder):
    name = "terse-ladder"

    def new_initial_state(self) -> LadderState:
        return TerseLadderState(self, 0, 0, resigned=False)


class WordyLadderState(LadderState):
    """Ladder whose endings' words count the moves played: the same finished position is
    described differently by each line that reaches it."""

    __slots__ = ()

    def _apply(self, action: int) -> LadderState:
        child = super()._apply(action)
        return WordyLadderState(
            self.game, child.n, child.player, resigned=child.resigned, parent=self, action=action
        )

    def status_text(self) -> str:
        if self.current_player != TERMINAL:
            return super().status_text()
        return f"{super().status_text()} after {len(self.history)} moves"


class WordyLadder(Ladder):
    name = "wordy-ladder"

    def new_initial_state(self) -> LadderState:
        return WordyLadderState(self, 0, 0, resigned=False)


def endings(walk: Walk) -> set[tuple[object, ...]]:
    """(reason, first player's result) of every finished node of ``walk``."""
    return {
        (walk.reason[node], walk.value[node])
        for node in range(walk.nodes)
        if walk.to_move[node] == TERMINAL
    }


def test_endings_with_the_same_words_and_result_but_different_reasons_stay_apart():
    # With the trap the first player's jump leaves the second stuck, a win for the first;
    # the second player resigning is a win for the first too, by another way (by hand).
    walk = Walk(TerseLadder({"trap": "yes"}), silent, 1_000)
    assert {walk.ending[n] for n in range(walk.nodes) if walk.to_move[n] == TERMINAL} == {
        "game over"
    }
    assert endings(walk) == {
        (Termination.NO_LEGAL_MOVE, 1),
        (Termination.FINISH_LINE, 1),
        (Termination.FINISH_LINE, -1),
    }
    # The stuck ending is found whatever reached the merged key first.
    assert kinds(audit(TerseLadder({"trap": "yes"}), method="exhaustive"))["no-legal-action"]


def test_the_words_of_an_ending_do_not_split_it():
    plain = Walk(Ladder({"trap": "yes"}), silent, 1_000)
    wordy = Walk(WordyLadder({"trap": "yes"}), silent, 1_000)
    assert len({wordy.ending[n] for n in range(wordy.nodes)}) > len(
        {plain.ending[n] for n in range(plain.nodes)}
    )
    assert wordy.nodes == plain.nodes
    assert wordy.keys == plain.keys
