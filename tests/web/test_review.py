"""Game review and the analysis board through the API: a solved game's values are the solver's,
a losing move is a blunder, an unfinished match has no review, engine games get winning
chances, and a malformed position or move is refused naming what is wrong."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flipgames import make
from flipgames.agents.kernel_search import KernelAlphaBetaAgent
from flipgames.core.game import State
from flipgames.core.manifest import manifest_of
from flipgames.core.match import splitter
from flipgames.lab.review import THRESHOLDS, classify
from flipgames.solvers import catalog
from flipgames.solvers.stochastic import cached_solve
from flipgames.web.ai import Solutions
from flipgames.web.app import create_app
from flipgames.web.settings import Settings

SOLUTIONS = Solutions()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}")
    with TestClient(create_app(settings, solutions=SOLUTIONS)) as test_client:
        yield test_client


def local_match(client: TestClient, game: str, actions: list[str]) -> dict[str, Any]:
    """A same-screen match with ``actions`` played."""
    response = client.post("/api/matches", json={"game": game, "mode": "local"})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    for action in actions:
        answer = client.post(
            f"/api/matches/{created['id']}/actions",
            json={"token": created["token"], "action": action},
        )
        assert answer.status_code == 200, answer.text
    return created


def random_finish(game: str, opening: list[str], seed: int) -> list[str]:
    """``opening`` followed by random legal moves to the end of the game."""
    state = make(game).state_from_actions(opening)
    rng = random.Random(seed)
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_actions()))
    return state.history_notation()


def reviewed(client: TestClient, match_id: str) -> dict[str, Any]:
    """The match's review, polled until the background job has made it."""
    for _ in range(2000):
        response = client.get(f"/api/matches/{match_id}/review")
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        assert answer["status"] in ("running", "done"), answer
        assert 0 <= answer["done"] <= answer["total"]
        if answer["status"] == "done":
            review: dict[str, Any] = answer["review"]
            return review
        time.sleep(0.02)
    raise AssertionError("the review was not made")


def path(state: State) -> list[State]:
    steps = [state]
    while (parent := steps[-1].parent) is not None:
        steps.append(parent)
    return steps[::-1]


def test_a_solved_games_review_is_the_solvers_values_and_best_moves(client: TestClient) -> None:
    moves = random_finish("flipflop-3x3", [], seed=11)
    created = local_match(client, "flipflop-3x3", moves)
    review = reviewed(client, created["id"])
    game = make("flipflop-3x3")
    solution = catalog.solution(game)
    steps = path(game.state_from_actions(moves))
    assert [p["ply"] for p in review["points"]] == list(range(len(steps)))
    for point, state in zip(review["points"], steps, strict=True):
        expected = (float(solution.value(state, player=0).expected) + 1) / 2
        assert point["value"] == pytest.approx(expected, abs=1e-4)
        assert point["exact"] is True
        if state.is_terminal():
            assert point["source"] == "end" and point["best"] == []
        else:
            assert point["source"] == "solution"
            best = [state.action_to_string(a) for a in solution.best_actions(state)]
            assert point["best"] == best
        assert point["position"] == state.position()
    assert [p["action"] for p in review["points"][1:]] == moves
    # Made once: the next request is answered from the cache, the same review.
    again = client.get(f"/api/matches/{created['id']}/review").json()
    assert again == {"status": "done", "done": len(steps), "total": len(steps), "review": review}


def test_a_move_that_throws_the_win_away_is_a_blunder(client: TestClient) -> None:
    game = make("flipflop-3x3")
    start = game.new_initial_state()
    values = catalog.solution(game).action_values(start)
    losing = next(start.action_to_string(a) for a, v in values.items() if v.outcome == "loss")
    moves = random_finish("flipflop-3x3", [losing], seed=3)
    review = reviewed(client, local_match(client, "flipflop-3x3", moves)["id"])
    first = review["points"][1]
    assert (first["action"], first["by"]) == (losing, 0)
    assert first["drop"] == 1.0 and first["mark"] == "blunder"
    assert review["points"][0]["value"] == 1.0 and first["value"] == 0.0
    # Every mark is the documented threshold's, and the counts add up.
    assert review["thresholds"] == dict(THRESHOLDS)
    for point in review["points"][1:]:
        assert point["mark"] == (None if point["drop"] is None else classify(point["drop"]))
    marks = [p["mark"] for p in review["points"] if p["mark"]]
    assert review["marks"]["blunder"] == marks.count("blunder") >= 1


def test_an_unfinished_match_has_no_review(client: TestClient) -> None:
    created = local_match(client, "flip-switch", [])
    response = client.get(f"/api/matches/{created['id']}/review")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "unavailable"
    assert "finished" in response.json()["error"]["message"]
    assert client.get("/api/matches/nope/review").status_code == 404


def test_an_engine_game_is_reviewed_as_winning_chances(client: TestClient) -> None:
    created = local_match(client, "flipfour", ["R@a1", "R@e5", "R@b1", "R@e4", "R@c1"])
    resign = client.post(f"/api/matches/{created['id']}/resign", json={"token": created["token"]})
    assert resign.status_code == 200, resign.text
    review = reviewed(client, created["id"])
    points = review["points"]
    assert len(points) == 6
    assert {p["source"] for p in points} == {"engine"}
    assert all(0 <= p["value"] <= 1 and not p["exact"] for p in points)
    assert all(p["best"] for p in points)
    # The start's value is the compiled search's score with the manifest's budget, mapped by
    # the documented formula (the review's first search starts from a fresh table too).
    game = make("flipfour")
    facts = manifest_of(game).review
    agent = KernelAlphaBetaAgent(random.Random(0), game, max_nodes=facts.nodes)
    score = agent.search(game.new_initial_state()).score
    expected = 1 / (1 + math.exp(-math.tanh(score / 1000) / facts.scale))
    assert points[0]["value"] == pytest.approx(expected, abs=1e-4)


def test_the_analysis_board_values_a_position_exactly_where_solved(client: TestClient) -> None:
    response = client.get("/api/analysis/flipflop-3x3", params={"position": "rrr/3/RRR w"})
    assert response.status_code == 200, response.text
    board = response.json()
    game = make("flipflop-3x3")
    start = game.new_initial_state()
    solution = catalog.solution(game)
    assert (board["value"], board["source"], board["exact"]) == (1.0, "solution", True)
    assert board["best"] == [start.action_to_string(a) for a in solution.best_actions(start)]
    expected = {
        start.action_to_string(a): (float(v.expected) + 1) / 2
        for a, v in solution.action_values(start).items()
    }
    assert {a["action"]: a["value"] for a in board["actions"]} == expected
    assert board["view"]["legal"] == [start.action_to_string(a) for a in start.legal_actions()]
    after = client.get("/api/analysis/flipflop-3x3", params={"moves": "b1xb3"}).json()
    assert after["position"] == game.state_from_actions(["b1xb3"]).position()
    assert after["to_move"] == 1
    assert after["value"] == 1.0 and after["moves"] == ["b1xb3"]


def test_the_analysis_board_takes_moves_in_engine_and_chance_games(client: TestClient) -> None:
    board = client.get("/api/analysis/flipflop", params={"position": "rrrrr/5/5/5/RRRRR w"})
    assert board.status_code == 200, board.text
    assert board.json()["source"] == "engine" and 0 < board.json()["value"] < 1
    game = make("checkered-flag", track="short")
    solution = cached_solve(game)  # into the test session's solver cache
    state = game.new_initial_state()
    while state.current_player < 0:  # the first spins
        state = state.apply(state.chance_outcomes()[0][0])
    params = {"moves": " ".join(state.history_notation()), "options": '{"track": "short"}'}
    start = client.get("/api/analysis/checkered-flag", params={"options": '{"track": "short"}'})
    outcomes = game.new_initial_state().chance_outcomes()
    assert outcomes  # the start is a spin
    assert start.json()["outcomes"] == [
        {"action": game.new_initial_state().action_to_string(a), "probability": float(p)}
        for a, p in outcomes
    ]
    assert start.json()["best"] == [] and start.json()["view"]["legal"] == []
    chance = client.get("/api/analysis/checkered-flag", params=params)
    assert chance.status_code == 200, chance.text
    board = chance.json()
    assert (board["exact"], board["position"], board["outcomes"]) == (True, None, [])
    assert board["to_move"] == state.current_player
    assert board["value"] == pytest.approx(
        (float(solution.value(state, 0).expected) + 1) / 2, abs=1e-4
    )
    # Each action's value is the first player's too, whoever moves.
    sign = 1 if state.current_player == 0 else -1
    expected = {
        state.action_to_string(a): (sign * float(v.expected) + 1) / 2
        for a, v in solution.action_values(state).items()
    }
    assert {a["action"]: a["value"] for a in board["actions"]} == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(
    ("game", "params", "code", "words"),
    [
        ("flipflop-3x3", {"position": "rrr/3/RR w"}, "bad_position", "rank 1 has 2 squares"),
        ("flipflop-3x3", {"position": "rrr/3/RRQ w"}, "bad_position", "unknown piece 'Q'"),
        ("flipflop-3x3", {"position": "rrr/3/RRR"}, "bad_position", "side to move"),
        ("flip-switch", {"position": "3/3/3 w"}, "bad_position", "no position notation"),
        ("flipflop-3x3", {"moves": "b1xb3 b1-b2"}, "illegal_action", "move 2 ('b1-b2')"),
        ("flipflop-3x3", {"options": "[1]"}, "bad_option", "JSON object"),
    ],
)
def test_a_malformed_position_or_move_is_refused_naming_the_fault(
    client: TestClient, game: str, params: dict[str, str], code: str, words: str
) -> None:
    response = client.get(f"/api/analysis/{game}", params=params)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert words in error["message"]


def test_an_unknown_game_has_no_analysis_board(client: TestClient) -> None:
    assert client.get("/api/analysis/chess").status_code == 404
    assert client.get("/analysis/chess").status_code == 404
    assert client.get("/analysis/flipflop-3x3").status_code == 200


def test_each_flip_switch_round_is_valued_by_the_one_round_solution(client: TestClient) -> None:
    one = make("flip-switch", rounds=1)
    solution = cached_solve(one)  # into the test session's solver cache
    response = client.post("/api/matches", json={"game": "flip-switch", "mode": "local", "seed": 5})
    created = response.json()
    view, rng = created["match"], random.Random(5)
    while view["status"] == "playing":
        answer = client.post(
            f"/api/matches/{created['id']}/actions",
            json={"token": created["token"], "action": rng.choice(view["legal"])},
        )
        assert answer.status_code == 200, answer.text
        view = answer.json()
    review = reviewed(client, created["id"])
    match = make("flip-switch").state_from_actions(view["history"])
    steps = path(match)
    assert review["points"][0]["value"] == 0.5  # one round is a draw with certainty
    assert {p["source"] for p in review["points"][:-1]} == {"round"}
    split = splitter(match.game)
    assert split is not None
    for point, state in zip(review["points"][:-1], steps, strict=False):
        seen = split(state)
        assert seen.round_state is not None
        value = (float(solution.value(seen.round_state, player=0).expected) + 1) / 2
        assert point["value"] == pytest.approx(1 - value if seen.swapped else value, abs=1e-4)
    # Chance outcomes (the tiles' shapes) are never marked.
    assert all(p["mark"] is None for p in review["points"] if p["by"] == -1)


def test_a_review_that_fails_says_so_and_the_server_goes_on(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("a solver fault")

    monkeypatch.setattr("flipgames.web.review.review_game", broken)
    created = local_match(client, "flipflop-3x3", random_finish("flipflop-3x3", [], seed=2))
    for _ in range(2000):
        answer = client.get(f"/api/matches/{created['id']}/review").json()
        if answer["status"] != "running":
            break
        time.sleep(0.02)
    assert answer["status"] == "failed"
    assert answer["error"] == "the review could not be made (RuntimeError)"
    assert client.get("/healthz").text == "ok"
