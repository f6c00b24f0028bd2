"""Load on the web arcade, over loopback: a real ``flipgames serve`` in a subprocess.

Run: ``.venv/bin/python bench/bench_web.py [--seconds S] [--db URL] [--workers N] [--game G]``.

Two scenarios, each bounded by ``--seconds`` (default 20):

1. ``hard``: 8 concurrent games against the computer at ``hard`` (``--game``). Each client
   posts a move, then waits for the computer's reply (``?wait=true``) and moves again; a
   probe reads ``/healthz`` every 20 ms. Prints the p50/p99/max of ``/healthz`` and of the
   human move's acknowledgement (the answer to the POST).
2. ``online``: 100 clients in 50 online games of ``--game``, every player on its own
   WebSocket, each moving (a random legal move) as soon as its view says it may. A finished
   game is replaced by a new one. Prints actions/s and the p50/p99 of an action's round trip
   (sent on the socket until the view with it comes back).

The server runs with a fresh SQLite file in a temporary folder unless ``--db`` names a
database (PostgreSQL: add ``--workers N``). Rate limits are off for the run (every client is
127.0.0.1). Prints the machine and Python version with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

#: How long past the end of a scenario a client waits for a message before giving up.
GRACE = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores; Python {platform.python_version()}"


class Http:
    """A minimal keep-alive HTTP/1.1 JSON client on one loopback connection (the benchmark
    needs no dependency beyond the server's own)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        try:
            return await self._call(method, path, body)
        except (IndexError, ConnectionError):
            # The server closed an idle keep-alive connection (uvicorn: after 5 s): reopen.
            self.close()
            self.writer = None
            return await self._call(method, path, body)

    async def _call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        data = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        self.writer.write(head.encode() + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await self.reader.readexactly(length)
        if payload[:1] in (b"{", b"["):
            return status, json.loads(payload)
        return status, payload.decode()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) used so far by process ``root`` and its descendants (the
    server's worker processes), from /proc; 0.0 where /proc is missing."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        times[pid] = (int(fields[11]) + int(fields[12])) / tick
    family = {root}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in family and pid not in family:
                family.add(pid)
                grew = True
    return sum(times.get(pid, 0.0) for pid in family)


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def percentiles(samples: list[float]) -> str:
    if not samples:
        return "no samples"
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"p50 {statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
        f"max {ordered[-1] * 1000:.1f} ms ({len(ordered)} samples)"
    )


async def hard_games(port: int, seconds: float, game: str) -> None:
    stop = time.perf_counter() + seconds
    health: list[float] = []
    acks: list[float] = []
    replies = 0

    async def probe() -> None:
        client = Http(port)
        while time.perf_counter() < stop:
            started = time.perf_counter()
            await client.call("GET", "/healthz")
            health.append(time.perf_counter() - started)
            await asyncio.sleep(0.02)
        client.close()

    async def player(seed: int) -> None:
        nonlocal replies
        client = Http(port)
        rng = random.Random(seed)
        body = {"game": game, "mode": "ai", "level": "hard", "seed": seed}
        _, created = await client.call("POST", "/api/matches", body)
        match_id, token = created["id"], created["token"]
        view = created["match"]
        while time.perf_counter() < stop and view["status"] == "playing":
            action = rng.choice(view["legal"])
            started = time.perf_counter()
            status, answer = await client.call(
                "POST", f"/api/matches/{match_id}/actions", {"token": token, "action": action}
            )
            acks.append(time.perf_counter() - started)
            if status != 200:
                raise RuntimeError(f"move refused: {answer}")
            _, view = await client.call("GET", f"/api/matches/{match_id}?token={token}&wait=true")
            replies += not view["thinking"]
        client.close()

    await asyncio.gather(probe(), *(player(seed) for seed in range(8)))
    print(f"  /healthz while 8 hard games run: {percentiles(health)}")
    print(f"  human move acknowledged:         {percentiles(acks)}")
    print(f"  computer replies made:           {replies}")


async def online_games(
    port: int, seconds: float, server: int, game: str, think: float = 0.0, games: int = 50
) -> None:
    stop = time.perf_counter() + seconds
    trips: list[float] = []
    acted = 0
    last_answer = 0.0
    stalled = 0

    async def player(match_id: str, token: str, rng: random.Random) -> None:
        nonlocal acted, last_answer, stalled
        sent_at: float | None = None
        sent_ply = -1
        url = f"ws://127.0.0.1:{port}/ws/matches/{match_id}?token={token}"
        async with connect(url, max_size=2**20) as ws:
            while True:
                # Bounded: a socket silent for GRACE seconds past the end is left (its
                # opponent stopped at the end without moving).
                try:
                    raw = await asyncio.wait_for(
                        ws.recv(), max(GRACE, stop + GRACE - time.perf_counter())
                    )
                except TimeoutError:
                    # Waiting for an opponent who stopped at the end is normal; an action
                    # without its view would be a server bug.
                    stalled += sent_at is not None
                    return
                except ConnectionClosed:
                    return
                message = json.loads(raw)
                if message["type"] == "error":
                    raise RuntimeError(f"refused: {message}")
                if message["type"] != "view":
                    continue
                view = message["match"]
                if sent_at is not None and view["ply"] > sent_ply:
                    last_answer = time.perf_counter()
                    trips.append(last_answer - sent_at)
                    acted += 1
                    sent_at = None
                if view["status"] == "finished" or time.perf_counter() >= stop:
                    return
                if view["legal"] and sent_at is None:
                    if think:
                        # A player's thinking time, jittered so the tables drift apart.
                        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                    sent_ply = view["ply"]
                    sent_at = time.perf_counter()
                    await ws.send(
                        json.dumps(
                            {"type": "action", "action": rng.choice(view["legal"]), "ply": sent_ply}
                        )
                    )

    async def table(number: int) -> None:
        client = Http(port)
        rng = random.Random(number)
        while time.perf_counter() < stop:
            _, created = await client.call("POST", "/api/matches", {"game": game, "mode": "online"})
            invite = created["links"]["invite"].split("token=")[1]
            await asyncio.gather(
                player(created["id"], created["token"], rng),
                player(created["id"], invite, random.Random(rng.random())),
            )
        client.close()

    started = time.perf_counter()
    server_cpu = tree_cpu(server)
    client_cpu = time.process_time()
    await asyncio.gather(*(table(n) for n in range(games)))
    # Up to the last answer: clients left waiting past the end add no time.
    elapsed = max(last_answer, started + 1e-9) - started
    server_cpu = tree_cpu(server) - server_cpu
    client_cpu = time.process_time() - client_cpu
    paced = f", {1000 * think:.0f} ms thinking a move" if think else ", no thinking time"
    print(f"  {2 * games} clients in {games} online games{paced}: {acted / elapsed:.0f} actions/s")
    print(f"  action round trip (socket):  {percentiles(trips)}")
    print(f"  actions sent but never answered with a view: {stalled}")
    # Wall-clock figures depend on what else the machine runs; CPU per action does less.
    print(
        f"  server CPU: {server_cpu:.1f} s for {acted} actions = "
        f"{1000 * server_cpu / max(acted, 1):.2f} ms per action "
        f"({server_cpu / elapsed:.2f} cores busy); benchmark clients: "
        f"{1000 * client_cpu / max(acted, 1):.2f} ms per action"
    )
    print(f"  load average after: {load_average()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per scenario")
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--workers", type=int, default=1, help="server processes (PostgreSQL)")
    parser.add_argument("--only", choices=["hard", "online"], help="run one scenario")
    # The load figures of docs/web-load.md are FlipFlop 5x5's: its hard is the heaviest move.
    parser.add_argument("--game", default="flipflop", help="the game played (default flipflop)")
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="MS",
        help="online players' mean thinking time a move in ms (default 0: as fast as answered)",
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="flipgames-bench-"))
    database = args.db or f"sqlite:///{folder / 'arcade.sqlite'}"
    port = free_port()
    env = {
        **os.environ,
        "FLIPGAMES_ACTIONS_PER_MINUTE": "0",
        "FLIPGAMES_MATCHES_PER_MINUTE": "0",
        "FLIPGAMES_READS_PER_MINUTE": "0",
        "FLIPGAMES_PUZZLES_PER_MINUTE": "0",
    }
    command = [sys.executable, "-m", "flipgames", "serve", "--port", str(port), "--db", database]
    command += ["--workers", str(args.workers)]
    log = (folder / "server.log").open("wb")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
        kind = "PostgreSQL" if database.startswith("postgres") else "SQLite"
        print(f"flipgames web load, {machine()}")
        print(f"server: {args.workers} process(es) on {kind}; {args.seconds:.0f} s per scenario")
        print(f"load average before: {load_average()}")
        if args.only in (None, "hard"):
            print("hard:")
            asyncio.run(hard_games(port, args.seconds, args.game))
        if args.only in (None, "online"):
            print("online:")
            asyncio.run(online_games(port, args.seconds, server.pid, args.game, args.think / 1000))
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


if __name__ == "__main__":
    main()
