"""Flip Switch: nothing the server sends, to any viewer, tells a face-down tile's shape.

Two matches whose next flip will show different shapes must look identical, byte for byte
(match ids and tokens aside), through every endpoint and WebSocket until that flip; and in a
whole game every view shows exactly the tiles flipped so far.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flipgames import make, sample_chance
from flipgames.web.app import create_app
from flipgames.web.settings import Settings

SHAPES = {"heart", "square", "star"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}")
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def seeds_with_different_first_flips() -> tuple[int, int]:
    """Two seeds under which flipping b2 first shows different shapes (the server draws the
    flip at ply 1 from ``Random(f"{seed}:1")``)."""
    state = make("flip-switch").new_initial_state()
    state = state.apply(state.parse_action("b2"))
    shape_by_seed = {
        seed: state.action_to_string(sample_chance(state, random.Random(f"{seed}:1")))
        for seed in range(20)
    }
    first = shape_by_seed[0]
    other = next(seed for seed, shape in shape_by_seed.items() if shape != first)
    return 0, other


def everything_seen(client: TestClient, created: dict[str, Any], guest: str) -> str:
    """Every response about the match, for each seat and a spectator, as one JSON text with
    the match id and tokens replaced by placeholders."""
    match_id, host = created["id"], created["token"]
    seen: dict[str, Any] = {"created": created}
    for name, token in (("host", host), ("guest", guest), ("spectator", None)):
        params = {"token": token} if token else {}
        seen[f"view-{name}"] = client.get(f"/api/matches/{match_id}", params=params).json()
        seen[f"analysis-{name}"] = client.get(
            f"/api/matches/{match_id}/analysis", params=params
        ).json()
        path = f"/ws/matches/{match_id}" + (f"?token={token}" if token else "")
        with client.websocket_connect(path) as socket:
            seen[f"socket-{name}"] = socket.receive_json()
    seen["record"] = client.get(f"/api/matches/{match_id}/record").json()
    seen["replay"] = client.get(f"/api/matches/{match_id}/replay").json()
    seen["page-play"] = client.get(f"/play/{match_id}").text
    seen["page-watch"] = client.get(f"/watch/{match_id}").text
    text = json.dumps(seen, sort_keys=True)
    for secret, placeholder in ((match_id, "ID"), (host, "HOST"), (guest, "GUEST")):
        text = text.replace(secret, placeholder)
    return text


def test_matches_with_different_futures_look_the_same_until_the_flip(
    client: TestClient,
) -> None:
    # Online matches take no seed from their creator, so the twins are local matches with
    # chosen seeds (one token plays both seats): the seed is their only difference.
    seen = []
    for seed in seeds_with_different_first_flips():
        created = client.post(
            "/api/matches", json={"game": "flip-switch", "mode": "local", "seed": seed}
        ).json()
        seen.append(everything_seen(client, created, guest=created["token"]))
        flipped = client.post(
            f"/api/matches/{created['id']}/actions",
            json={"token": created["token"], "action": "b2"},
        ).json()
        seen.append(flipped["observation"]["board"]["grid"][1][1])
    before_a, shape_a, before_b, shape_b = seen
    assert shape_a != shape_b, "the two futures must differ for the comparison to mean much"
    assert before_a == before_b


def test_online_matches_look_the_same_before_the_first_flip(
    client: TestClient,
) -> None:
    # Online matches get server-drawn seeds: two of them must also look the same before the
    # first flip, to both seats and to spectators.
    seen = []
    for _ in range(2):
        created = client.post("/api/matches", json={"game": "flip-switch", "mode": "online"})
        body = created.json()
        seen.append(everything_seen(client, body, body["links"]["invite"].split("token=")[1]))
    assert seen[0] == seen[1]


def shown_shapes(view: dict[str, Any]) -> dict[str, str]:
    board = view["observation"]["board"]["grid"]
    size = len(board)
    return {
        f"{'abcdef'[col]}{row + 1}": board[row][col]
        for row in range(size)
        for col in range(size)
        if board[row][col] is not None
    }


def test_every_view_of_a_whole_game_shows_only_flipped_tiles(client: TestClient) -> None:
    created = client.post("/api/matches", json={"game": "flip-switch", "mode": "online"}).json()
    tokens = [created["token"], created["links"]["invite"].split("token=")[1]]
    match_id = created["id"]
    rng = random.Random(12)
    flipped: set[str] = set()
    view = created["match"]
    while view["status"] == "playing":
        for token in (*tokens, None):
            params = {"token": token} if token else {}
            seen = client.get(f"/api/matches/{match_id}", params=params).json()
            assert set(shown_shapes(seen)) == flipped
            assert set(shown_shapes(seen).values()) <= SHAPES
            assert client.get(f"/api/matches/{match_id}/record").json()["seed"] is None
        mover = tokens[view["current_player"]]
        legal = client.get(f"/api/matches/{match_id}", params={"token": mover}).json()["legal"]
        action = rng.choice(legal)
        round_number = view["observation"]["board"]["round"]
        view = client.post(
            f"/api/matches/{match_id}/actions", json={"token": mover, "action": action}
        ).json()
        if view["observation"]["board"]["round"] != round_number:
            flipped = set()  # the default game is a match: each round starts face down
        elif "-" not in action:  # a flip (a switch is written a1-a2)
            flipped.add(action)
    assert set(shown_shapes(view)) == flipped
