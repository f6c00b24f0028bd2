"""The HTTP API in-process: games, creating and playing matches in each mode, chance, AI
follow-ups, undo, hint, analysis, records, replays, pages and the OpenAPI document."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flipgames import game_names, make, replay_record
from flipgames.solvers.stochastic import cached_solve
from flipgames.web.ai import Solutions
from flipgames.web.app import create_app
from flipgames.web.settings import Settings

# One set of solutions for the whole module: FlipFlop 3x3 is solved once, not per test.
SOLUTIONS = Solutions()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}",
        templates_dir=tmp_path / "templates",
        static_dir=tmp_path / "static",
    )
    with TestClient(create_app(settings, solutions=SOLUTIONS)) as test_client:
        yield test_client


def settled(client: TestClient, view: Any, token: str) -> Any:
    """``view``, or once the computer has moved if it is thinking (a waiting read)."""
    if not view["thinking"]:
        return view
    response = client.get(f"/api/matches/{view['id']}", params={"token": token, "wait": True})
    assert response.status_code == 200, response.text
    after = response.json()
    assert not after["thinking"], "the computer did not move within the wait"
    return after


def create(client: TestClient, game: str, **fields: Any) -> dict[str, Any]:
    response = client.post("/api/matches", json={"game": game, **fields})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    created["match"] = settled(client, created["match"], created["token"])
    return created


def act(client: TestClient, created: dict[str, Any], action: str, token: str = "") -> Any:
    """Play ``action`` and return the view once the computer (if any) has answered."""
    token = token or created["token"]
    response = client.post(
        f"/api/matches/{created['id']}/actions", json={"token": token, "action": action}
    )
    assert response.status_code == 200, response.text
    return settled(client, response.json(), token)


def play_out(client: TestClient, created: dict[str, Any], rng: random.Random) -> Any:
    """Play random legal actions with the creator's token until the match is finished."""
    view = created["match"]
    while view["status"] == "playing":
        view = act(client, created, rng.choice(view["legal"]))
    return view


def test_healthz(client: TestClient) -> None:
    response = client.get("/healthz")
    assert (response.status_code, response.text) == (200, "ok")
    assert response.headers["content-type"].startswith("text/plain")


def test_games_lists_every_game_with_options_and_levels(client: TestClient) -> None:
    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert list(games) == game_names()
    assert len(games) == 6
    ff3 = games["flipflop-3x3"]
    assert ff3["title"] == "FlipFlop 3x3"
    assert ff3["players"] == ["White", "Black"]
    assert ff3["solved"] is True
    assert ff3["levels"][-1] == "perfect"
    assert games["flipflop"]["solved"] is False
    assert games["flipflop"]["levels"] == ["easy", "medium", "hard"]
    # Flip Switch is solved, but in about ten minutes: without a cached solution the arcade
    # offers neither perfect play nor analysis.
    assert games["flip-switch"]["solved"] is False
    assert "perfect" not in games["flip-switch"]["levels"]
    switch = games["flip-switch"]
    assert switch["has_chance"] is True
    rounds = next(o for o in switch["options"] if o["name"] == "rounds")
    assert (rounds["default"], rounds["minimum"], rounds["maximum"]) == (3, 1, 99)  # a match
    lines = next(o for o in switch["options"] if o["name"] == "lines")
    assert lines["choices"] == ["all", "edges"]


def test_rules_are_the_engines_summary(client: TestClient) -> None:
    body = client.get("/api/games/flip-switch/rules").json()
    assert body["name"] == "flip-switch"
    assert body["text"] == make("flip-switch").rules_summary()


def test_ai_match_replies_to_each_human_action(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="ai", level="easy", seed=3)
    assert created["seat"] == 0
    assert created["links"] == {
        "play": f"/play/{created['id']}?token={created['token']}",
        "invite": None,
        "watch": f"/watch/{created['id']}",
    }
    view = created["match"]
    assert (view["ply"], view["current_player"], view["level"]) == (0, 0, "easy")
    assert view["legal"] == ["a1-a2", "b1-b2", "b1xb3", "c1-c2"]
    view = act(client, created, "b1-b2")
    # The AI (Black) has already answered: it is White's turn again, two plies on.
    assert view["ply"] == 2
    assert view["current_player"] == 0
    assert view["history"][0] == "b1-b2"
    assert view["last"]["by"] == 1
    assert view["history"][1] == view["last"]["action"]


def test_ai_moves_first_when_the_human_takes_the_second_seat(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="ai", seat=1, seed=4)
    view = created["match"]
    assert (created["seat"], view["seat"], view["ply"], view["current_player"]) == (1, 1, 1, 1)
    assert view["observation"]["viewer"] == 1


def test_online_match_gives_each_seat_its_own_link(client: TestClient) -> None:
    created = create(client, "rubiks-flip", mode="online")
    invite = created["links"]["invite"]
    assert invite.startswith(f"/play/{created['id']}?token=")
    guest_token = invite.split("token=")[1]
    assert guest_token != created["token"]
    mine = act(client, created, "a1R")
    # The creator, no longer to move, sees no legal actions.
    assert (mine["seat"], mine["current_player"], mine["legal"]) == (0, 1, [])
    guest_view = client.get(f"/api/matches/{created['id']}", params={"token": guest_token}).json()
    assert (guest_view["seat"], guest_view["current_player"]) == (1, 1)
    assert guest_view["legal"]
    view = act(client, created, guest_view["legal"][0], token=guest_token)
    assert view["ply"] == 2
    mine = client.get(f"/api/matches/{created['id']}", params={"token": created["token"]}).json()
    assert (mine["current_player"], mine["history"]) == (0, view["history"])
    assert mine["legal"]


def test_local_match_one_token_plays_both_seats(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="local")
    assert created["links"]["invite"] is None
    assert created["match"]["seats"] == [0, 1]
    view = act(client, created, "b1xb3")
    assert (view["current_player"], view["seat"]) == (1, 1)
    view = act(client, created, "a3xb3")
    assert view["history"] == ["b1xb3", "a3xb3"]


def test_spectator_view_has_no_seat_and_no_legal_actions(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="online")
    view = client.get(f"/api/matches/{created['id']}").json()
    assert (view["seat"], view["seats"], view["legal"]) == (None, [], [])
    assert view["observation"] == make("flipflop-3x3").new_initial_state().observation(None)


def test_chance_at_the_start_is_drawn_and_committed_at_creation(client: TestClient) -> None:
    created = create(client, "checkered-flag", mode="local", seed=11)
    view = created["match"]
    assert view["ply"] >= 1  # the start spins
    assert view["current_player"] in (0, 1)
    assert view["last"]["by"] == -1
    # The same seed draws the same spins: chance depends only on the seed and the ply.
    again = create(client, "checkered-flag", mode="local", seed=11)["match"]
    assert again["history"] == view["history"]


def test_chance_after_an_action_follows_at_once(client: TestClient) -> None:
    created = create(client, "flip-switch", mode="local", seed=5)
    view = act(client, created, "b2")
    assert view["ply"] == 2
    assert view["history"][0] == "b2"
    assert view["last"]["by"] == -1
    assert view["history"][1] in ("heart", "square", "star")
    assert view["observation"]["board"]["grid"][1][1] == view["history"][1]


def test_undo_goes_back_to_the_humans_previous_decision(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="ai", seed=8)
    first = act(client, created, "b1-b2")
    second = act(client, created, first["legal"][0])
    assert second["ply"] == 4
    response = client.post(f"/api/matches/{created['id']}/undo", json={"token": created["token"]})
    assert response.status_code == 200
    view = response.json()
    assert view["ply"] == 2
    assert view["history"] == first["history"]
    stored = client.get(f"/api/matches/{created['id']}", params={"token": created["token"]})
    assert stored.json()["history"] == first["history"]
    view = client.post(
        f"/api/matches/{created['id']}/undo", json={"token": created["token"]}
    ).json()
    assert (view["ply"], view["history"]) == (0, [])


def test_undo_with_nothing_to_undo_is_unavailable(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="ai", seed=8)
    response = client.post(f"/api/matches/{created['id']}/undo", json={"token": created["token"]})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "unavailable"


def test_undo_outside_ai_matches_is_unavailable(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="local")
    act(client, created, "b1xb3")
    response = client.post(f"/api/matches/{created['id']}/undo", json={"token": created["token"]})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "unavailable"
    view = client.get(f"/api/matches/{created['id']}").json()
    assert view["history"] == ["b1xb3"]


def test_hint_on_a_solved_game_is_a_perfect_move(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="ai", seed=2)
    response = client.get(f"/api/matches/{created['id']}/hint", params={"token": created["token"]})
    assert response.status_code == 200
    hint = response.json()
    assert hint["level"] == "perfect"
    state = make("flipflop-3x3").new_initial_state()
    best = SOLUTIONS.get(state.game).best_actions(state)
    assert hint["action"] in [state.action_to_string(a) for a in best]


def test_hint_on_an_unsolved_game_comes_from_the_hard_level(client: TestClient) -> None:
    created = create(client, "flipflop", mode="local", seed=2, assist=True)
    hint = client.get(
        f"/api/matches/{created['id']}/hint", params={"token": created["token"]}
    ).json()
    assert hint["level"] == "hard"
    assert hint["action"] in created["match"]["legal"]


def test_analysis_values_every_legal_action(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="local", assist=True)
    response = client.get(
        f"/api/matches/{created['id']}/analysis", params={"token": created["token"]}
    )
    assert response.status_code == 200
    rows = response.json()["actions"]
    assert [r["action"] for r in rows] == created["match"]["legal"]
    game = make("flipflop-3x3")
    value = SOLUTIONS.get(game).value(game.new_initial_state())
    wins = [r["remoteness"] for r in rows if r["value"] == "win"]
    # The start is a win in 15 for White: the best action wins in exactly that many plies.
    assert (value.outcome, min(wins)) == ("win", value.remoteness)
    for row in rows:
        assert row["value"] in ("win", "draw", "loss")
        assert (row["remoteness"] is None) == (row["value"] == "draw")


@pytest.mark.parametrize("game", ["flipfour", "flip-switch"])
def test_analysis_of_an_unsolved_or_uncached_game_is_unavailable(
    client: TestClient, game: str
) -> None:
    created = create(client, game, mode="local", assist=True)
    response = client.get(
        f"/api/matches/{created['id']}/analysis", params={"token": created["token"]}
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "unavailable"


def test_a_cached_chance_game_has_analysis_hints_and_a_perfect_ai(client: TestClient) -> None:
    game = make("checkered-flag", track="short")
    solution = cached_solve(game)  # into the test session's solver cache
    created = create(
        client, "checkered-flag", mode="ai", level="perfect", options={"track": "short"}
    )
    match_id, token = created["id"], created["token"]
    state = game.state_from_actions(created["match"]["history"])
    rows = client.get(f"/api/matches/{match_id}/analysis", params={"token": token}).json()
    expected = {
        state.action_to_string(a): float(v) for a, v in solution.action_values(state).items()
    }
    assert {r["action"]: r["value"] for r in rows["actions"]} == expected
    assert all(r["remoteness"] is None for r in rows["actions"])
    hint = client.get(f"/api/matches/{match_id}/hint", params={"token": token}).json()
    assert hint["level"] == "perfect"
    assert hint["action"] in [state.action_to_string(a) for a in solution.best_actions(state)]


def test_record_replays_in_the_engine_and_shows_the_seed_only_at_the_end(
    client: TestClient,
) -> None:
    created = create(client, "checkered-flag", mode="local", seed=21, options={"track": "short"})
    unfinished = client.get(f"/api/matches/{created['id']}/record").json()
    assert unfinished["seed"] is None
    assert unfinished["result"] == "*"
    final = play_out(client, created, random.Random(1))
    record = client.get(f"/api/matches/{created['id']}/record").json()
    assert record["format"] == "flipgames-record"
    assert record["seed"] == 21
    assert record["options"]["track"] == "short"
    assert record["actions"] == final["history"]
    assert record["result"] == final["result"] != "*"
    assert replay_record(record).history_notation() == final["history"]


def test_replay_has_a_frame_per_action_of_a_finished_match(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="local")
    response = client.get(f"/api/matches/{created['id']}/replay")
    assert (response.status_code, response.json()["error"]["code"]) == (409, "unavailable")
    final = play_out(client, created, random.Random(4))
    frames = client.get(f"/api/matches/{created['id']}/replay").json()["frames"]
    assert len(frames) == final["ply"] + 1
    assert frames[0]["action"] is None and frames[0]["ply"] == 0
    assert [f["action"] for f in frames[1:]] == final["history"]
    assert frames[-1]["status"] == "finished"
    assert frames[-1]["result"] == final["result"]
    assert (
        frames[-1]["observation"]
        == client.get(f"/api/matches/{created['id']}").json()["observation"]
    )


def test_openapi_documents_every_endpoint(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    paths = document["paths"]
    expected = {
        "/healthz": {"get"},
        "/api/games": {"get"},
        "/api/games/{name}/rules": {"get"},
        "/api/matches": {"post"},
        "/api/matches/{match_id}": {"get"},
        "/api/matches/{match_id}/actions": {"post"},
        "/api/matches/{match_id}/undo": {"post"},
        "/api/matches/{match_id}/resign": {"post"},
        "/api/matches/{match_id}/draw": {"post"},
        "/api/matches/{match_id}/takeback": {"post"},
        "/api/matches/{match_id}/abort": {"post"},
        "/api/matches/{match_id}/rematch": {"post"},
        "/api/matches/{match_id}/hint": {"get"},
        "/api/matches/{match_id}/analysis": {"get"},
        "/api/matches/{match_id}/position": {"get"},
        "/api/matches/{match_id}/record": {"get"},
        "/api/matches/{match_id}/replay": {"get"},
        "/api/matches/{match_id}/review": {"get"},
        "/api/analysis/{game}": {"get"},
        "/api/players/{name}": {"get"},
        "/api/leaderboard/{game}": {"get"},
        "/api/puzzles": {"get"},
        "/api/puzzles/{game}/{number}": {"get"},
        "/api/puzzles/{game}/{number}/answer": {"post"},
        "/api/lessons": {"get"},
        "/api/lessons/{game}": {"get"},
        "/api/lessons/{game}/{number}/attempt": {"post"},
        "/api/players": {"post"},
        "/api/accounts": {"post"},
        "/api/session": {"get", "post", "delete"},
        "/api/account/password": {"post"},
        "/api/account": {"delete"},
        "/api/seeks": {"get", "post"},
        "/api/seeks/{seek_id}": {"get", "delete"},
        "/api/seeks/{seek_id}/accept": {"post"},
        "/api/pairing": {"post", "delete"},
        "/api/live": {"get"},
    }
    assert {path: set(ops) for path, ops in paths.items()} == expected
    schemas = document["components"]["schemas"]
    for name in ("View", "Created", "CreateMatch", "ActionRequest", "ErrorResponse", "Record"):
        assert name in schemas
    action = paths["/api/matches/{match_id}/actions"]["post"]
    assert {"200", "403", "404", "409", "413", "422"} <= set(action["responses"])


def test_pages_serve_the_templates(tmp_path: Path, client: TestClient) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    for name in ("lobby", "game", "replay", "rules"):
        (templates / f"{name}.html").write_text(f"<p>{name} page</p>")
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "app.js").write_text("console.log('hi')")
    created = create(client, "flipflop-3x3", mode="local")
    match_id = created["id"]
    assert client.get("/").text == "<p>lobby page</p>"
    assert client.get(f"/play/{match_id}", params={"token": created["token"]}).text == (
        "<p>game page</p>"
    )
    assert client.get(f"/watch/{match_id}").text == "<p>game page</p>"
    assert client.get(f"/replay/{match_id}").text == "<p>replay page</p>"
    assert client.get("/rules/flip-switch").text == "<p>rules page</p>"
    # The site's "Rules" link names no game: it leads to the first game's rules (with every
    # game's tab).
    index = client.get("/rules", follow_redirects=False)
    assert (index.status_code, index.headers["location"]) == (307, f"/rules/{game_names()[0]}")
    assert client.get("/rules").text == "<p>rules page</p>"
    assert client.get("/static/app.js").text == "console.log('hi')"
    for missing in ("/play/nope", "/watch/nope", "/replay/nope", "/rules/chess"):
        response = client.get(missing)
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/html")


def test_the_package_ships_every_page_the_routes_serve(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}")
    for name in ("lobby", "game", "replay", "rules"):
        assert (settings.templates_dir / f"{name}.html").is_file()
    with TestClient(create_app(settings, solutions=SOLUTIONS)) as packaged:
        response = packaged.get("/")
        assert response.status_code == 200
        assert "<html" in response.text.lower()


# --- undo and chance --------------------------------------------------------------------------


def undo(client: TestClient, created: dict[str, Any]) -> Any:
    return client.post(f"/api/matches/{created['id']}/undo", json={"token": created["token"]})


def test_undo_cannot_take_back_a_flip_once_its_shape_is_seen(client: TestClient) -> None:
    # The exploit: flip, see the shape, undo, and flip elsewhere to choose where that shape
    # lands (chance depends on the seed and the ply only). Undo must refuse instead.
    created = create(client, "flip-switch", mode="ai", seed=7, options={"rounds": 1})
    assert created["match"]["undo"] is False
    view = act(client, created, "b2")
    assert view["history"][:2] == ["b2", view["observation"]["board"]["grid"][1][1]]
    assert view["undo"] is False
    response = undo(client, created)
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "unavailable"
    assert "chance" in error["message"]
    after = client.get(f"/api/matches/{created['id']}", params={"token": created["token"]})
    assert after.json()["history"] == view["history"]


def test_undo_cannot_respin_a_checkered_flag_gear(client: TestClient) -> None:
    created = create(client, "checkered-flag", mode="ai", seed=3, options={"start": "first"})
    view = act(client, created, "1")  # 1st gear: Spinner A is spun at once
    assert view["actors"][:2] == [0, -1]
    assert view["undo"] is False
    assert undo(client, created).json()["error"]["code"] == "unavailable"


def test_undo_takes_back_moves_with_no_chance_after_them(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="ai", seed=8)
    view = act(client, created, "b1-b2")
    assert view["undo"] is True
    assert view["actors"] == [0, 1]
    back = undo(client, created).json()
    assert (back["history"], back["undo"]) == ([], False)


def test_actors_say_who_made_each_history_entry(client: TestClient) -> None:
    created = create(client, "flip-switch", mode="local", seed=5, options={"rounds": 1})
    view = act(client, created, "b2")
    view = act(client, created, "a1")
    assert view["actors"] == [0, -1, 1, -1]


# --- assistance -------------------------------------------------------------------------------


def hint_and_analysis(client: TestClient, match_id: str, token: str) -> list[Any]:
    return [
        client.get(f"/api/matches/{match_id}/{what}", params={"token": token})
        for what in ("hint", "analysis")
    ]


def test_online_matches_offer_no_help_unless_the_creator_turns_it_on(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="online")
    guest = created["links"]["invite"].split("token=")[1]
    assert created["match"]["assist"] is False
    spectator = client.get(f"/api/matches/{created['id']}").json()
    assert spectator["assist"] is False
    for token in (created["token"], guest):
        for response in hint_and_analysis(client, created["id"], token):
            assert response.status_code == 409
            assert response.json()["error"]["code"] == "unavailable"
            assert "off in this match" in response.json()["error"]["message"]


def test_assistance_turned_on_is_for_both_seats_and_shown_to_all(client: TestClient) -> None:
    created = create(client, "flipflop-3x3", mode="online", assist=True)
    guest = created["links"]["invite"].split("token=")[1]
    assert created["match"]["assist"] is True
    assert client.get(f"/api/matches/{created['id']}").json()["assist"] is True
    hint, analysis = hint_and_analysis(client, created["id"], created["token"])
    assert hint.json()["action"] in created["match"]["legal"]
    assert len(analysis.json()["actions"]) == len(created["match"]["legal"])
    # The guest is not to move: its hint is refused for that reason, not for assistance.
    hint, analysis = hint_and_analysis(client, created["id"], guest)
    assert hint.json()["error"]["code"] == "not_your_turn"
    assert analysis.status_code == 200


def test_assistance_defaults(client: TestClient) -> None:
    assert create(client, "flipflop-3x3", mode="ai")["match"]["assist"] is True
    assert create(client, "flipflop-3x3", mode="local")["match"]["assist"] is False
    assert create(client, "flipflop-3x3", mode="ai", assist=False)["match"]["assist"] is False
    response = client.post(
        "/api/matches", json={"game": "flipflop-3x3", "mode": "online", "assist": "yes"}
    )
    assert response.json()["error"]["code"] == "bad_request"


def test_an_earlier_position_can_be_looked_at_during_play(client: TestClient) -> None:
    created = create(client, "flip-switch", mode="local", seed=5, options={"rounds": 1})
    first = act(client, created, created["match"]["legal"][0])
    now = act(client, created, first["legal"][0])
    match_id = created["id"]
    start = client.get(f"/api/matches/{match_id}/position", params={"ply": 0}).json()
    assert (start["ply"], start["action"]) == (0, None)
    fresh = create(client, "flip-switch", mode="local", seed=5, options={"rounds": 1})
    assert start["observation"] == client.get(f"/api/matches/{fresh['id']}").json()["observation"]
    latest = client.get(f"/api/matches/{match_id}/position", params={"ply": now["ply"]}).json()
    spectator = client.get(f"/api/matches/{match_id}").json()
    assert latest["observation"] == spectator["observation"]
    assert latest["action"] == now["history"][-1]
    beyond = client.get(f"/api/matches/{match_id}/position", params={"ply": now["ply"] + 1})
    assert beyond.status_code == 422
    assert beyond.json()["error"]["code"] == "bad_request"
