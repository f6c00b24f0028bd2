"""Clocks in online matches: the rules checked through the API with a fake clock (time per
player, increment, each first move free, a loss on time when read, acted on, or when nobody
moves, the record), chance outcomes never charged, two apps on one database committing one
flag, and the flag timer with a real one-second clock."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from flipgames import make
from flipgames.web import clocks
from flipgames.web.app import create_app
from flipgames.web.db import make_engine, matches
from flipgames.web.settings import Settings


class FakeTime:
    """The arcade's wall clock, moved by hand (milliseconds since the epoch)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1000)


@pytest.fixture
def fake_time(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    fake = FakeTime()
    monkeypatch.setattr(clocks, "now_ms", fake)
    return fake


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arcade.sqlite'}"


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=database_url))) as test_client:
        yield test_client


def create(client: TestClient, initial: int, increment: int, game: str = "flipflop-3x3") -> Any:
    body = {
        "game": game,
        "mode": "online",
        "clock": {"initial": initial, "increment": increment},
    }
    response = client.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    return {
        "id": created["id"],
        "tokens": [created["token"], created["links"]["invite"].split("token=")[1]],
        "view": created["match"],
    }


def act(client: TestClient, match: Any, seat: int, action: str) -> Any:
    return client.post(
        f"/api/matches/{match['id']}/actions",
        json={"token": match["tokens"][seat], "action": action},
    )


def read(client: TestClient, match: Any) -> Any:
    return client.get(f"/api/matches/{match['id']}").json()


def test_time_is_charged_with_an_increment_once_both_players_have_moved(
    client: TestClient, fake_time: FakeTime
) -> None:
    match = create(client, 60, 2)
    clock = match["view"]["clock"]
    assert clock["label"] == "1+2"
    assert (clock["remaining_ms"], clock["running"]) == ([60_000, 60_000], None)
    fake_time.advance(30)  # nobody's clock runs before the first moves
    first = act(client, match, 0, "b1xb3").json()["clock"]
    assert (first["remaining_ms"], first["running"]) == ([62_000, 60_000], None)
    fake_time.advance(5)
    second = act(client, match, 1, "a3xb3").json()["clock"]
    assert (second["remaining_ms"], second["running"]) == ([62_000, 62_000], 0)
    fake_time.advance(10)
    assert read(client, match)["clock"]["remaining_ms"] == [52_000, 62_000]
    fake_time.advance(10)
    third = act(client, match, 0, "c1-c2").json()["clock"]
    assert (third["remaining_ms"], third["running"]) == ([44_000, 62_000], 1)
    fake_time.advance(1.5)
    fourth = act(client, match, 1, "b3-a2").json()["clock"]
    assert (fourth["remaining_ms"], fourth["running"]) == ([44_000, 62_500], 0)


def test_a_player_out_of_time_loses_when_the_match_is_read(
    client: TestClient, fake_time: FakeTime
) -> None:
    match = create(client, 10, 0)
    act(client, match, 0, "b1xb3")
    act(client, match, 1, "a3xb3")
    fake_time.advance(9.999)
    assert read(client, match)["status"] == "playing"
    fake_time.advance(0.001)
    view = read(client, match)
    assert (view["status"], view["ending"], view["result"]) == ("finished", "timeout", "0-1")
    assert view["clock"]["remaining_ms"] == [0, 10_000]
    assert view["clock"]["running"] is None
    assert view["legal"] == []
    record = client.get(f"/api/matches/{match['id']}/record").json()
    assert record["ending"] == {"reason": "timeout", "result": "0-1"}
    assert record["clock"]["control"] == "10s+0"
    assert record["clock"]["remaining_ms"] == [0, 10_000]
    assert record["seed"] is not None  # finished: the seed is no secret any more
    fake_time.advance(60)  # the clocks stopped: nothing changes any more
    assert read(client, match)["clock"]["remaining_ms"] == [0, 10_000]


def test_a_move_after_the_flag_is_refused_and_the_match_lost_on_time(
    client: TestClient, fake_time: FakeTime
) -> None:
    match = create(client, 5, 1)
    act(client, match, 0, "b1xb3")
    act(client, match, 1, "a3xb3")
    act(client, match, 0, "c1-c2")  # Black's clock now runs: 6 s (5 + the increment)
    fake_time.advance(6.5)
    late = act(client, match, 1, "b3-a2")
    assert late.status_code == 409
    assert late.json()["error"]["code"] == "game_over"
    assert "timeout" in late.json()["error"]["message"]
    view = read(client, match)
    assert (view["ending"], view["result"], view["ply"]) == ("timeout", "1-0", 3)


def test_resigning_stops_the_clocks(client: TestClient, fake_time: FakeTime) -> None:
    match = create(client, 5, 0)
    act(client, match, 0, "b1xb3")
    act(client, match, 1, "a3xb3")
    fake_time.advance(2)
    client.post(f"/api/matches/{match['id']}/resign", json={"token": match["tokens"][0]})
    fake_time.advance(60)
    view = read(client, match)
    assert (view["ending"], view["result"], view["clock"]["running"]) == (
        "resignation",
        "0-1",
        None,
    )
    # White's clock stopped where it was when the match ended: charged the 2 s, no more.
    assert view["clock"]["remaining_ms"] == [3_000, 5_000]
    record = client.get(f"/api/matches/{match['id']}/record").json()
    assert record["clock"]["remaining_ms"] == [3_000, 5_000]


def test_clocks_are_for_online_matches_and_checked(client: TestClient) -> None:
    for mode in ("ai", "local"):
        body = {"game": "flipflop-3x3", "mode": mode, "clock": {"initial": 60}}
        refused = client.post("/api/matches", json=body)
        assert refused.status_code == 422
        assert refused.json()["error"]["code"] == "bad_request"
        assert "online" in refused.json()["error"]["message"]
    for clock in ({"initial": 0}, {"initial": "60"}, {"initial": 60, "increment": -1}, {}):
        body = {"game": "flipflop-3x3", "mode": "online", "clock": clock}
        assert client.post("/api/matches", json=body).status_code == 422
    plain = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "online"}).json()
    assert plain["match"]["clock"] is None


def test_a_rematch_keeps_the_time_control_with_fresh_clocks(
    client: TestClient, fake_time: FakeTime
) -> None:
    match = create(client, 5, 3)
    act(client, match, 0, "b1xb3")
    act(client, match, 1, "a3xb3")
    fake_time.advance(10)
    assert read(client, match)["ending"] == "timeout"
    again = client.post(f"/api/matches/{match['id']}/rematch", json={"token": match["tokens"][0]})
    assert again.status_code == 201, again.text
    clock = again.json()["match"]["clock"]
    assert (clock["label"], clock["remaining_ms"], clock["running"]) == ("5s+3", [5000, 5000], None)


def test_a_chance_outcome_charges_nobody() -> None:
    game = make("flip-switch")
    clock = clocks.Clock(clocks.TimeControl(60_000, 0), (50_000, 40_000), None)
    start = game.new_initial_state()
    flip = start.parse_action("b2")
    at_chance = start.apply(flip)
    assert at_chance.is_chance_node()
    after_flip = clocks.after_action(clock, start, at_chance, now_ms=1_000)
    # Nobody's clock runs while the outcome is due, however long the server takes to draw it.
    assert after_flip.since_ms is None
    assert clocks.deadline_ms(after_flip, at_chance, over=False) is None
    shape = at_chance.legal_actions()[0]
    drawn = at_chance.apply(shape)
    after_draw = clocks.after_action(after_flip, at_chance, drawn, now_ms=90_000)
    assert after_draw.remaining_ms == after_flip.remaining_ms


def test_chance_in_a_clocked_match_costs_the_player_nothing(
    client: TestClient, fake_time: FakeTime
) -> None:
    match = create(client, 30, 0, game="flip-switch")
    view = act(client, match, 0, "b2").json()
    assert view["history"][0] == "b2" and len(view["history"]) == 2  # the shape was drawn
    view = act(client, match, 1, flip_of(client, match, 1)).json()
    assert view["clock"]["running"] == 0
    fake_time.advance(4)
    view = act(client, match, 0, flip_of(client, match, 0)).json()  # its outcome drawn at once
    assert view["clock"]["remaining_ms"] == [26_000, 30_000]
    assert view["clock"]["running"] == 1


def flip_of(client: TestClient, match: Any, seat: int) -> str:
    """A flip of a face-down tile the seat may make now."""
    params = {"token": match["tokens"][seat]}
    view = client.get(f"/api/matches/{match['id']}", params=params).json()
    return next(a["text"] for a in view["legal_actions"] if a["kind"] == "flip")


def test_two_apps_on_one_database_commit_one_flag(database_url: str, fake_time: FakeTime) -> None:
    with (
        TestClient(create_app(Settings(database_url=database_url))) as one,
        TestClient(create_app(Settings(database_url=database_url))) as two,
    ):
        match = create(one, 5, 0)
        act(one, match, 0, "b1xb3")
        act(two, match, 1, "a3xb3")
        assert read(one, match)["status"] == read(two, match)["status"] == "playing"
        service_two = two.app.state.service  # type: ignore[attr-defined]
        stale = service_two.load(match["id"])  # what the second app holds
        fake_time.advance(6)
        assert read(one, match)["ending"] == "timeout"
        # The second app, holding the match from before the flag, decides the same flag: its
        # write names an old revision, is refused, and it finds the match finished.
        decided = service_two._flag(stale)
        assert (decided.ending, decided.result) == ("timeout", "0-1")
        assert read(two, match)["ending"] == "timeout"
    engine = make_engine(database_url)
    with engine.connect() as connection:
        revision = connection.execute(
            select(matches.c.revision).where(matches.c.id == match["id"])
        ).scalar_one()
    engine.dispose()
    assert revision == 3  # two moves and one flag


def test_the_server_flags_a_player_who_does_not_move(client: TestClient) -> None:
    match = create(client, 1, 0)  # a real one-second clock
    base = f"/ws/matches/{match['id']}?token="
    with (
        client.websocket_connect(base + match["tokens"][0]) as white,
        client.websocket_connect(base + match["tokens"][1]) as black,
    ):
        for socket in (white, black):
            assert socket.receive_json()["match"]["clock"]["running"] is None
        white.send_json({"type": "action", "action": "b1xb3"})
        while black.receive_json()["match"]["ply"] != 1:
            pass
        black.send_json({"type": "action", "action": "a3xb3"})
        # Nobody moves now: the server's timer ends the match when White's second is up,
        # and both players are told.
        for socket in (white, black):
            while True:
                view = socket.receive_json()["match"]
                if view["status"] == "finished":
                    break
                assert view["clock"]["running"] in (None, 0)
            assert (view["ending"], view["result"]) == ("timeout", "0-1")
            assert view["clock"]["remaining_ms"][0] == 0


def test_the_flag_is_committed_with_nobody_connected_or_reading(
    client: TestClient, database_url: str
) -> None:
    match = create(client, 1, 0)  # a real one-second clock
    act(client, match, 0, "b1xb3")
    act(client, match, 1, "a3xb3")
    # No socket, no read: only the server's timer can end the match. Watch the database.
    engine = make_engine(database_url)
    query = select(matches.c.ending, matches.c.ending_result).where(matches.c.id == match["id"])
    try:
        for _ in range(300):  # a bounded wait for the timer, not a timing
            with engine.connect() as connection:
                row = connection.execute(query).one()
            if row.ending is not None:
                break
            time.sleep(0.1)
    finally:
        engine.dispose()
    assert (row.ending, row.ending_result) == ("timeout", "0-1")
