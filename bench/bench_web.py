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
import random
import statistics
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from _web import Http, load_average, machine, served, tree_cpu

#: How long past the end of a scenario a client waits for a message before giving up.
GRACE = 10.0


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
    kind = "PostgreSQL" if (args.db or "").startswith("postgres") else "SQLite"
    with served(args.db, args.workers) as (port, server):
        print(f"flipgames web load, {machine()}")
        print(f"server: {args.workers} process(es) on {kind}; {args.seconds:.0f} s per scenario")
        print(f"load average before: {load_average()}")
        if args.only in (None, "hard"):
            print("hard:")
            asyncio.run(hard_games(port, args.seconds, args.game))
        if args.only in (None, "online"):
            print("online:")
            asyncio.run(online_games(port, args.seconds, server, args.game, args.think / 1000))


if __name__ == "__main__":
    main()
