"""Regression tests for issue 24's server items (security and operations): what an attacker
and an operator ran into. Each test names the hole it closes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from servers import needs_postgres, request_json, serve
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from flipgames.lab.report import write_report
from flipgames.web.aipool import AiError, AiJob, AiPool
from flipgames.web.app import SECURITY_HEADERS, create_app
from flipgames.web.settings import Settings
from support.servers import launch


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    """A reports folder whose one report has its files linked to secrets outside it."""
    root = tmp_path / "reports"
    write_report(root / "linked", "Linked", "# Linked\n", {})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# the operator's secret\n")
    (outside / "secret.html").write_text("<p>the operator's secret</p>\n")
    for name, target in (("report.md", "secret.md"), ("index.html", "secret.html")):
        (root / "linked" / name).unlink()
        (root / "linked" / name).symlink_to(outside / target)
    return root


def make_client(tmp_path: Path, **settings: Any) -> TestClient:
    url = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    return TestClient(create_app(Settings(database_url=url, **settings)))


@pytest.fixture
def client(tmp_path: Path, reports: Path) -> Iterator[TestClient]:
    with make_client(tmp_path, reports_dir=reports) as test_client:
        yield test_client


# --- 13: a link inside a report folder is not followed out of the reports -------------------


@pytest.mark.parametrize("path", ["/lab/report/linked", "/lab/download/linked"])
def test_a_report_file_linked_out_of_the_reports_is_not_served(
    client: TestClient, path: str
) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert "secret" not in answer.text


def test_a_report_whose_markdown_is_linked_out_is_not_listed(client: TestClient) -> None:
    page = client.get("/lab")
    assert page.status_code == 200
    assert "/lab/report/linked" not in page.text


# --- a real server, as `flipgames serve` runs it ----------------------------------------------


@contextmanager
def serve_sqlite(
    tmp_path: Path, *extra: str, env: dict[str, str] | None = None
) -> Iterator[tuple[int, Path]]:
    """``flipgames serve`` on SQLite in ``tmp_path``, with one AI worker: its port and its log."""
    log = tmp_path / "server.log"
    database = f"sqlite:///{tmp_path / 'arcade.sqlite'}"
    one_worker = {"FLIPGAMES_AI_WORKERS": "1", **(env or {})}
    with serve(database, log, *extra, env=one_worker) as port:
        yield port, log


def call(port: int, method: str, path: str, body: Any = None, **headers: str) -> Any:
    """The JSON answer, or the HTTP status of a refusal (an int)."""
    status, answer = request_json(port, method, path, body, headers)
    return status if status >= 400 else answer


def flipgames(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``python -m flipgames ARGUMENTS`` run to its end (at most a minute), its output kept."""
    return subprocess.run(
        [sys.executable, "-m", "flipgames", *arguments], capture_output=True, text=True, timeout=60
    )


# --- 11: X-Forwarded-For is not trusted unless the operator says so ----------------------------


def test_forged_forwarded_addresses_do_not_escape_the_rate_limit(tmp_path: Path) -> None:
    limits = {"FLIPGAMES_MATCHES_PER_MINUTE": "1", "FLIPGAMES_MATCHES_BURST": "2"}
    with serve_sqlite(tmp_path, env=limits) as (port, _log):
        answers = [
            call(
                port,
                "POST",
                "/api/matches",
                {"mode": "local", "game": "flipflop-3x3"},
                **{"X-Forwarded-For": f"10.0.0.{n}"},
            )
            for n in range(1, 5)
        ]
    # One address (the real one), one bucket of two: the forged addresses count for nothing.
    assert [a if isinstance(a, int) else 201 for a in answers] == [201, 201, 429, 429]


def test_proxy_headers_are_off_unless_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from flipgames.cli import serve as serve_command
    from flipgames.cli.main import main

    ran: list[dict[str, Any]] = []

    def record(_app: Any, _bound: socket.socket, _workers: int, options: dict[str, Any]) -> int:
        ran.append(options)
        return 0

    monkeypatch.setattr(serve_command, "serve_forever", record)
    serve = ["serve", "--db", "sqlite://", "--port", "0"]  # a port nobody uses
    assert main(serve) == 0
    assert main([*serve, "--proxy-headers", "--forwarded-allow-ips", "10.1.2.3"]) == 0
    assert [(o["proxy_headers"], o["forwarded_allow_ips"]) for o in ran] == [
        (False, "127.0.0.1"),
        (True, "10.1.2.3"),
    ]


# --- 12: a percent-encoded parameter name does not get the token into the log ------------------


def test_an_encoded_token_name_is_redacted_in_every_log_line(tmp_path: Path) -> None:
    with serve_sqlite(tmp_path) as (port, log):
        created = call(port, "POST", "/api/matches", {"mode": "online", "game": "flipflop-3x3"})
        match_id, token = created["id"], created["token"]
        # Starlette decodes the name: to%6Ben is the seat's token, and is accepted as such.
        seen = call(port, "GET", f"/api/matches/{match_id}?to%6Ben={token}")
        assert seen["seat"] == 0
        with connect(f"ws://127.0.0.1:{port}/ws/matches/{match_id}?TO%6Ben={token}") as ws:
            assert json.loads(ws.recv(timeout=30))["type"] == "view"
        with connect(f"ws://127.0.0.1:{port}/ws/matches/{match_id}?%74oken={token}") as ws:
            assert json.loads(ws.recv(timeout=30))["match"]["seat"] == 0
        time.sleep(0.5)  # the log lines of the last handshake are written after it
        text = log.read_text()
    assert f"GET /api/matches/{match_id}?to%6Ben=*** HTTP/1.1" in text  # the access log
    assert f'"WebSocket /ws/matches/{match_id}?TO%6Ben=***" [accepted]' in text  # uvicorn.error
    assert f'"WebSocket /ws/matches/{match_id}?%74oken=***" [accepted]' in text
    assert token not in text


# --- 14: the WebSocket refuses pages of other sites ------------------------------------------


def test_a_websocket_from_another_site_is_refused(tmp_path: Path) -> None:
    allowed = ("https://arcade.example.org",)
    with make_client(tmp_path, allowed_origins=allowed) as client:
        created = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "local"})
        path = f"/ws/matches/{created.json()['id']}?token={created.json()['token']}"
        evil = {"origin": "https://evil.example"}
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(path, headers=evil),
        ):
            pass
        assert refused.value.code == 1008
        # The arcade's own pages (TestClient's host is "testserver"), a configured site and a
        # client that sends no Origin (not a browser) are served.
        for headers in (
            {"origin": "http://testserver"},
            {"origin": "https://arcade.example.org"},
            {},
        ):
            with client.websocket_connect(path, headers=headers) as ws:
                assert ws.receive_json()["type"] == "view"


def test_a_websocket_handshake_from_another_site_is_answered_403(tmp_path: Path) -> None:
    with serve_sqlite(tmp_path) as (port, _log):
        created = call(port, "POST", "/api/matches", {"mode": "local", "game": "flipflop-3x3"})
        address = f"ws://127.0.0.1:{port}/ws/matches/{created['id']}?token={created['token']}"
        with pytest.raises(InvalidStatus) as refused:
            connect(address, origin=Origin("https://evil.example"))
        assert refused.value.response.status_code == 403
        with connect(address, origin=Origin(f"http://127.0.0.1:{port}")) as ws:
            assert json.loads(ws.recv(timeout=30))["type"] == "view"


def test_serve_refuses_an_allowed_origin_that_is_not_one() -> None:
    done = flipgames("serve", "--db", "sqlite://", "--allowed-origin", "arcade.example.org")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "flipgames: error: --allowed-origin must be a scheme and address, e.g. "
        "https://arcade.example.org, not 'arcade.example.org'"
    ]


# --- 11: reads of a match, WebSocket opens and puzzles are rate-limited too --------------------


def test_reads_and_websocket_opens_share_a_rate_limit(tmp_path: Path) -> None:
    with make_client(tmp_path, reads_per_minute=60, reads_burst=3) as client:
        client.app.state.read_limit.clock = lambda: 0.0  # type: ignore[attr-defined]
        created = client.post("/api/matches", json={"game": "flipflop-3x3", "mode": "local"})
        match_id = created.json()["id"]
        assert client.get(f"/api/matches/{match_id}").status_code == 200
        assert client.get(f"/api/matches/{match_id}/record").status_code == 200
        with client.websocket_connect(f"/ws/matches/{match_id}") as ws:
            assert ws.receive_json()["type"] == "view"
        with client.websocket_connect(f"/ws/matches/{match_id}") as ws:
            error = ws.receive_json()
            assert (error["type"], error["error"]["code"]) == ("error", "rate_limited")
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4429
        for path in ("", "/record", "/replay", "/position?ply=0"):
            answer = client.get(f"/api/matches/{match_id}{path}")
            assert answer.status_code == 429, path
            assert "reads of matches" in answer.json()["error"]["message"]
        # Acting is not reading: the seat can still move.
        body = {"token": created.json()["token"], "action": "b1-b2"}
        assert client.post(f"/api/matches/{match_id}/actions", json=body).status_code == 200


def test_puzzles_are_rate_limited(tmp_path: Path) -> None:
    with make_client(tmp_path, puzzles_per_minute=60, puzzles_burst=1) as client:
        client.app.state.puzzle_limit.clock = lambda: 0.0  # type: ignore[attr-defined]
        assert client.get("/api/puzzles/flipflop-3x3/1").status_code == 200
        refused = client.get("/api/puzzles/flipflop-3x3/2")
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "rate_limited"
        assert "puzzles" in refused.json()["error"]["message"]


# --- 9: server and AI worker processes end with their parent ---------------------------------


def _parents() -> dict[int, int]:
    """Every live process's parent (Linux /proc); zombies, which are dead, left out."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if state != "Z":
            parents[int(entry.name)] = int(parent)
    return parents


def descendants(pid: int) -> set[int]:
    parents = _parents()
    found: set[int] = set()
    grew = True
    while grew:
        more = {p for p, parent in parents.items() if parent in found | {pid}} - found
        found |= more
        grew = bool(more)
    return found


def gone_within(pids: set[int], seconds: float) -> set[int]:
    """The processes of ``pids`` still alive after waiting up to ``seconds`` for them to end."""
    deadline = time.monotonic() + seconds
    while True:
        alive = pids & set(_parents())
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def port_free(port: int) -> bool:
    """Whether a new server could listen on ``port`` (uvicorn binds with SO_REUSEADDR)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


@needs_proc
@needs_postgres
def test_workers_end_when_the_server_is_killed(schema_url: str, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    command = [sys.executable, "-m", "flipgames", "serve", "--port", "0"]
    server, port = launch(
        [*command, "--db", schema_url, "--workers", "2"],
        log,
        {**os.environ, "FLIPGAMES_AI_WORKERS": "1"},
    )
    children: set[int] = set()
    try:
        # A move against the computer, so a worker process has its AI pool running too.
        body = {"game": "flipflop-3x3", "mode": "ai", "seed": 4}
        created = call(port, "POST", "/api/matches", body)
        path = f"/api/matches/{created['id']}"
        call(port, "POST", f"{path}/actions", {"token": created["token"], "action": "b1xb3"})
        assert call(port, "GET", f"{path}?wait=true")["ply"] == 2
        children = descendants(server.pid)
        assert len(children) >= 3  # two uvicorn workers and at least one AI process
        server.kill()  # kill -9: the parent runs no clean-up at all
        server.wait()
        assert gone_within(children, 5.0) == set()
        assert port_free(port)
    finally:
        kill_all(server, children)


def kill_all(parent: subprocess.Popen[bytes], children: set[int]) -> None:
    """Leave no process of a test behind, whether or not the test passed."""
    children |= descendants(parent.pid)
    parent.kill()
    parent.wait()
    for pid in children & set(_parents()):
        os.kill(pid, signal.SIGKILL)


#: An outside engine that never answers (it reads until its input closes, then exits).
_MUTE_ENGINE = f"{sys.executable} -c 'import sys; [None for _ in sys.stdin]'"

_BUSY_POOL = f"""
import asyncio, time
from flipgames.web.aipool import AiJob, AiPool

async def main():
    pool = AiPool(1)
    job = AiJob("flipflop-3x3", {{}}, (), "engine:mute", 1, engine={_MUTE_ENGINE!r},
                engine_seconds=120)
    move = asyncio.ensure_future(pool.choose(job))
    while not pool.busy or not pool.pids:
        await asyncio.sleep(0.05)
    print(pool.pids[0], flush=True)
    await move

asyncio.run(main())
"""


@needs_proc
def test_an_ai_worker_in_the_middle_of_a_move_ends_with_its_server(tmp_path: Path) -> None:
    # A server process whose one AI worker waits (up to two minutes) for an engine's answer.
    server = subprocess.Popen(
        [sys.executable, "-c", _BUSY_POOL], stdout=subprocess.PIPE, cwd=tmp_path
    )
    children: set[int] = set()
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        time.sleep(0.5)  # the worker has sent the engine its position
        children = descendants(server.pid)
        assert worker in children
        server.kill()
        server.wait()
        # Not after the engine's two minutes: at once, and the engine with it.
        assert gone_within(children, 5.0) == set()
    finally:
        kill_all(server, children)


# --- 10: a computer move that fails is retried once, then forfeited; options have maxima -------


class FailingPool(AiPool):
    """Fails the first ``failures`` moves it is asked for (as a killed worker or an exception
    in one would), then chooses them for real."""

    def __init__(self, failures: int, message: str = "OverflowError: int too large") -> None:
        super().__init__(1)
        self.failures = failures
        self.message = message
        self.asked = 0

    async def choose(self, job: AiJob) -> str:
        self.asked += 1
        if self.asked <= self.failures:
            raise AiError(self.message)
        return await super().choose(job)


@contextmanager
def client_with(tmp_path: Path, pool: AiPool, **settings: Any) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'ai.sqlite'}"
    with TestClient(create_app(Settings(database_url=url, **settings), ai_pool=pool)) as client:
        yield client


def play_against(client: TestClient, level: str = "easy") -> dict[str, Any]:
    """Create a FlipFlop 3x3 match against ``level``, make White's first move and read the
    match once the computer is done (``wait=true``)."""
    body = {"game": "flipflop-3x3", "mode": "ai", "level": level, "seed": 3}
    created = client.post("/api/matches", json=body).json()
    path = f"/api/matches/{created['id']}"
    moved = client.post(f"{path}/actions", json={"token": created["token"], "action": "b1xb3"})
    assert moved.json()["thinking"] is True
    view: dict[str, Any] = client.get(path, params={"wait": "true"}).json()
    return view


def test_a_built_in_level_that_fails_twice_forfeits(tmp_path: Path) -> None:
    pool = FailingPool(failures=2)
    with client_with(tmp_path, pool) as client:
        view = play_against(client)
    assert pool.asked == 2  # tried once more, then given up: never a hang
    assert (view["status"], view["thinking"], view["ending"]) == ("finished", False, "forfeit")
    assert view["result"] == "1-0"  # the human (White) wins
    assert view["ending_detail"] == "the easy level could not choose a move, twice"
    assert "OverflowError" not in json.dumps(view)  # the worker's words are for the log


def test_a_built_in_level_that_fails_once_is_retried_and_plays_on(tmp_path: Path) -> None:
    # The retry has to claim the move again: a claim kept after the failure would leave the
    # match thinking for two minutes.
    pool = FailingPool(failures=1)
    with client_with(tmp_path, pool) as client:
        view = play_against(client)
    assert pool.asked == 2
    assert (view["ply"], view["status"], view["thinking"]) == (2, "playing", False)
    assert view["ending"] is None


class KillingPool(AiPool):
    """A real pool whose worker is killed (SIGKILL) in the middle of the first move."""

    def __init__(self) -> None:
        super().__init__(1)
        self.asked = 0

    async def choose(self, job: AiJob) -> str:
        self.asked += 1
        if self.asked > 1:
            return await super().choose(job)
        move = asyncio.ensure_future(super().choose(job))
        while not self.busy or not self.pids:
            await asyncio.sleep(0.01)
        os.kill(self.pids[0], signal.SIGKILL)
        return await move


def test_a_worker_killed_in_the_middle_of_a_move_is_replaced(tmp_path: Path) -> None:
    pool = KillingPool()
    with client_with(tmp_path, pool) as client:
        view = play_against(client)
    assert pool.asked == 2
    assert (view["ply"], view["status"], view["thinking"]) == (2, "playing", False)


TOY = f"{sys.executable} -m flipgames engine --level easy --seed 3"


def test_an_outside_engines_words_in_a_forfeit_are_capped(tmp_path: Path) -> None:
    pool = FailingPool(failures=1, message="EngineError: engine toy said " + "x" * 5000)
    with client_with(tmp_path, pool, engines=(("toy", TOY),)) as client:
        view = play_against(client, level="engine:toy")
        record = client.get(f"/api/matches/{view['id']}/record").json()
    assert pool.asked == 1  # an outside engine is not asked twice
    assert view["ending"] == "forfeit"
    detail = view["ending_detail"]
    assert detail.startswith("engine toy said xxx") and detail.endswith("x…")
    assert len(detail) == 200
    assert record["ending"]["detail"] == detail


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"laps": 10**30}, "bad value 1000000000000000000000000000000 for option 'laps'"),
        ({"laps": 6}, "bad value 6 for option 'laps'"),
        ({"laps": "2"}, "bad value '2' for option 'laps': it is a number"),
        ({"rounds": "3"}, "bad value '3' for option 'rounds': it is a number"),
    ],
)
def test_integer_options_are_numbers_within_bounds(
    tmp_path: Path, options: dict[str, Any], named: str
) -> None:
    game = "flip-switch" if "rounds" in options else "checkered-flag"
    with make_client(tmp_path) as client:
        answer = client.post("/api/matches", json={"game": game, "options": options})
        assert answer.status_code == 422
        assert answer.json()["error"]["code"] == "bad_option"
        assert named in answer.json()["error"]["message"]
        assert client.post("/api/matches", json={"game": game}).status_code == 201


def test_laps_are_bounded_on_the_command_line_too() -> None:
    done = flipgames("rules", "checkered-flag", "--option", f"laps={10**30}")
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"flipgames: error: bad value '{10**30}' for option 'laps'")
    assert "5" in line.removeprefix(f"flipgames: error: bad value '{10**30}'")  # the maximum


# --- 15: level outside ai mode refused; HEAD answered like GET ----------------------------------


@pytest.mark.parametrize("mode", ["online", "local"])
def test_a_level_outside_games_against_the_computer_is_refused(tmp_path: Path, mode: str) -> None:
    with make_client(tmp_path) as client:
        body = {"game": "flipflop-3x3", "mode": mode, "level": "hard"}
        answer = client.post("/api/matches", json=body)
        assert answer.status_code == 422
        assert answer.json()["error"] == {
            "code": "bad_request",
            "message": f"a level is for matches against the computer (mode ai), not {mode} ones",
        }
        assert client.get("/api/games").status_code == 200


def test_head_on_pages_answers_like_get_without_a_body(tmp_path: Path, reports: Path) -> None:
    with make_client(tmp_path, reports_dir=reports) as client:
        match_id = client.post("/api/matches", json={"game": "flipflop-3x3"}).json()["id"]
        for path in (
            "/",
            f"/play/{match_id}",
            f"/watch/{match_id}",
            "/rules/flipflop",
            "/puzzles",
            "/lab",
            "/static/app.css",
            "/healthz",
            f"/api/matches/{match_id}",
        ):
            got = client.get(path)
            head = client.head(path)
            assert (head.status_code, head.content) == (200, b""), path
            assert head.headers["content-type"] == got.headers["content-type"]
            assert head.headers["content-length"] == str(len(got.content)), path
            assert (
                head.headers["content-security-policy"]
                == SECURITY_HEADERS["Content-Security-Policy"]
            )
        assert client.head("/no/such/page").status_code == 404


def test_forwarded_allow_ips_without_proxy_headers_is_refused() -> None:
    done = flipgames("serve", "--db", "sqlite://", "--forwarded-allow-ips", "10.0.0.5")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "flipgames: error: --forwarded-allow-ips names the proxy whose forwarded headers to "
        "trust: it needs --proxy-headers"
    ]
