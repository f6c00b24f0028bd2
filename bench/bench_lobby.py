"""Load on the public lobby, over loopback: a real ``flipgames serve`` in a subprocess.

Run: ``.venv/bin/python bench/bench_lobby.py [--sockets 500] [--per-minute 100] [--seconds 60]
[--database URL] [--workers N]``.

``--sockets`` lobby WebSockets (``/ws/lobby``) are opened and each has received the open
seeks; the seekers' and the acceptors' own sockets are among them (a seeker with no lobby
socket loses its seeks), the rest are visitors' (not signed in). Then for ``--seconds``,
``--per-minute`` seeks are made (``POST /api/seeks``, evenly spaced, each by a guest seeker
with no other open seek) and each is accepted ``--accept-after`` seconds later by another
guest (``POST /api/seeks/{id}/accept``). Every socket notes when it hears each seek
(``{"type": "seek"}``) and its removal (``{"type": "gone"}``). Printed, p50/p95/p99/max:

- *seek made -> heard*: from sending the seek's POST until a socket hears it, per socket, and
  until the last socket has heard it (every socket);
- *accepted -> removal heard*: the same from sending the accept;
- deliveries missed (a socket that never heard an event within 10 s of the end: a bug if
  ever above 0), the POSTs' answer times, the server's CPU (its processes, from /proc; a
  database server's own processes are not counted) and the benchmark clients' CPU.

The server runs on a fresh SQLite file unless ``--database`` names a database; a PostgreSQL
database gets a fresh schema of its own for the run, dropped afterwards (add ``--workers N``:
the kernel shares the sockets out among the processes, so the lobby's cross-process fan-out
carries most events). Rate limits are off (every client is 127.0.0.1). The clients share the
machine with the server: their own CPU is printed. Prints the machine, the Python version and
the load average with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import time
from collections import defaultdict
from dataclasses import dataclass, field

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from _web import Http, fresh_schema, load_average, machine, served, tree_cpu

#: How long after the last event the sockets may take to hear it before it counts as missed.
GRACE = 10.0
#: Socket handshakes in flight at once while the sockets are opened.
OPENING = 25
#: The lobby-update target this benchmark checks (issue 26): p99 under this, in seconds.
TARGET = 0.3


@dataclass
class Heard:
    """When each socket heard each seek's arrival and removal (``perf_counter`` times)."""

    new: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    gone: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


@dataclass
class Sent:
    """When each seek's POST and its accept were sent, and how long their answers took."""

    made: dict[str, float] = field(default_factory=dict)
    accepted: dict[str, float] = field(default_factory=dict)
    seek_answers: list[float] = field(default_factory=list)
    accept_answers: list[float] = field(default_factory=list)


class Player:
    """A guest: its bearer token, its own keep-alive HTTP connection, one request at a time;
    ``turn`` is held by a seeker from its seek until that seek is accepted (a second seek of
    the same game would replace the first)."""

    def __init__(self, port: int, token: str) -> None:
        self.token = token
        self.http = Http(port, {"Authorization": f"Bearer {token}"})
        self.lock = asyncio.Lock()
        self.turn = asyncio.Lock()

    async def call(self, method: str, path: str, body: object = None) -> tuple[int, object]:
        async with self.lock:
            return await self.http.call(method, path, body)


def spread(samples: list[float]) -> str:
    """p50/p95/p99/max in ms (nearest rank) and the count."""
    if not samples:
        return "no samples"
    ordered = sorted(samples)

    def rank(share: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]

    return (
        f"p50 {rank(0.5) * 1000:.1f} ms, p95 {rank(0.95) * 1000:.1f} ms, "
        f"p99 {rank(0.99) * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms ({len(ordered)})"
    )


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(0.99 * len(ordered)) - 1))]


async def guests(port: int, prefix: str, count: int) -> list[Player]:
    client = Http(port)
    made = []
    for number in range(count):
        status, answer = await client.call("POST", "/api/players", {"name": f"{prefix}{number}"})
        if status != 201 or not isinstance(answer, dict):
            raise SystemExit(f"could not make a guest: {status} {answer}")
        made.append(Player(port, answer["token"]))
    client.close()
    return made


async def listen(socket: ClientConnection, heard: Heard) -> None:
    """Note every seek and removal the socket hears, until it closes."""
    try:
        async for raw in socket:
            now = time.perf_counter()
            message = json.loads(raw)
            if message["type"] == "seek":
                heard.new[message["seek"]["id"]].append(now)
            elif message["type"] == "gone":
                heard.gone[message["id"]].append(now)
    except ConnectionClosed:
        return


async def open_sockets(
    port: int, tokens: list[str | None], compress: bool = True
) -> list[ClientConnection]:
    """A lobby socket per token (None: a visitor), each past its first listing; with
    ``compress`` offering permessage-deflate, as browsers do."""
    gate = asyncio.Semaphore(OPENING)
    compression = "deflate" if compress else None

    async def one(token: str | None) -> ClientConnection:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        url = f"ws://127.0.0.1:{port}/ws/lobby"
        async with gate:
            socket = await connect(url, additional_headers=headers, compression=compression)
            listing = json.loads(await socket.recv())
            if listing["type"] != "seeks":
                raise SystemExit(f"the lobby socket's first message: {listing}")
            return socket

    return list(await asyncio.gather(*(one(token) for token in tokens)))


async def make_and_accept(
    seeker: Player, taker: Player, game: str, accept_after: float, sent: Sent
) -> None:
    async with seeker.turn:
        await seek_and_accept(seeker, taker, game, accept_after, sent)


async def seek_and_accept(
    seeker: Player, taker: Player, game: str, accept_after: float, sent: Sent
) -> None:
    started = time.perf_counter()
    status, answer = await seeker.call("POST", "/api/seeks", {"game": game})
    sent.seek_answers.append(time.perf_counter() - started)
    if status != 201 or not isinstance(answer, dict):
        raise SystemExit(f"seek refused: {status} {answer}")
    seek_id = answer["id"]
    sent.made[seek_id] = started
    await asyncio.sleep(accept_after)
    started = time.perf_counter()
    status, answer = await taker.call("POST", f"/api/seeks/{seek_id}/accept")
    sent.accept_answers.append(time.perf_counter() - started)
    if status != 201:
        raise SystemExit(f"accept refused: {status} {answer}")
    sent.accepted[seek_id] = started


def latencies(
    sent_at: dict[str, float], heard_at: defaultdict[str, list[float]], sockets: int
) -> tuple[list[float], list[float], int]:
    """Per delivery, per event (the last socket's, for events every socket heard), and the
    deliveries missed."""
    each: list[float] = []
    every: list[float] = []
    missed = 0
    for seek_id, sent in sent_at.items():
        times = [t - sent for t in heard_at.get(seek_id, [])]
        each.extend(times)
        missed += sockets - len(times)
        if len(times) == sockets:
            every.append(max(times))
    return each, every, missed


async def run(args: argparse.Namespace, port: int, server: int) -> bool:
    """The scenario on the server at ``port``; True when nothing was missed."""
    status, games = await Http(port).call("GET", "/api/games")
    assert status == 200 and isinstance(games, list)
    game = args.game or games[0]["name"]
    interval = 60.0 / args.per_minute
    count = max(1, round(args.seconds * args.per_minute / 60))
    # Enough players that each has made (or taken) its last seek well before its next, even
    # with answers seconds late on a busy machine (a seeker still waiting holds its turn).
    players = max(2, math.ceil((args.accept_after + 20.0) / interval) + 1)
    seekers = await guests(port, "Seeker", players)
    takers = await guests(port, "Taker", players)
    own = [p.token for p in (*seekers, *takers)]
    tokens: list[str | None] = [*own[: args.sockets], *[None] * (args.sockets - len(own))]
    sockets = await open_sockets(port, tokens, not args.no_compression)
    heard = Heard()
    listeners = [asyncio.create_task(listen(socket, heard)) for socket in sockets]
    print(
        f"{len(sockets)} lobby sockets ({min(len(own), args.sockets)} players', the rest "
        f"visitors'); {count} seeks of {game}, {args.per_minute:g} a minute, each accepted "
        f"{args.accept_after:g} s after it was made"
    )
    sent = Sent()
    server_cpu, client_cpu = tree_cpu(server), time.process_time()
    start = time.perf_counter()
    tasks = []
    for number in range(count):
        await asyncio.sleep(max(0.0, start + number * interval - time.perf_counter()))
        seeker, taker = seekers[number % players], takers[number % players]
        tasks.append(
            asyncio.create_task(make_and_accept(seeker, taker, game, args.accept_after, sent))
        )
    await asyncio.gather(*tasks)
    deadline = time.perf_counter() + GRACE
    while time.perf_counter() < deadline and any(
        len(heard.gone.get(seek_id, [])) < len(sockets) for seek_id in sent.accepted
    ):
        await asyncio.sleep(0.05)
    elapsed = time.perf_counter() - start
    server_cpu, client_cpu = tree_cpu(server) - server_cpu, time.process_time() - client_cpu
    for socket in sockets:
        await socket.close()
    await asyncio.gather(*listeners)
    new_each, new_every, new_missed = latencies(sent.made, heard.new, len(sockets))
    gone_each, gone_every, gone_missed = latencies(sent.accepted, heard.gone, len(sockets))
    print(f"  seek made -> heard on a socket:           {spread(new_each)}")
    print(f"  seek made -> heard on every socket:       {spread(new_every)}")
    print(f"  accepted -> removal heard on a socket:    {spread(gone_each)}")
    print(f"  accepted -> removal heard on every socket: {spread(gone_every)}")
    print(f"  deliveries missed: {new_missed + gone_missed} of {2 * count * len(sockets)}")
    print(f"  seek POST answered:   {spread(sent.seek_answers)}")
    print(f"  accept POST answered: {spread(sent.accept_answers)}")
    print(
        f"  server CPU: {server_cpu:.1f} s in {elapsed:.0f} s ({server_cpu / elapsed:.2f} cores "
        f"busy); benchmark clients: {client_cpu:.1f} s ({client_cpu / elapsed:.2f} cores)"
    )
    worst = max(p99(new_each + gone_each), 0.0) if new_each + gone_each else math.inf
    verdict = "met" if worst < TARGET else "missed"
    print(f"  target p99 < {TARGET * 1000:.0f} ms (deliveries): {verdict} ({worst * 1000:.1f} ms)")
    return new_missed + gone_missed == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=500, help="lobby WebSockets (500)")
    parser.add_argument("--per-minute", type=float, default=100.0, help="seeks a minute (100)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long seeks are made")
    parser.add_argument(
        "--accept-after", type=float, default=1.0, metavar="S", help="seconds before an accept"
    )
    parser.add_argument(
        "--database", "--db", help="database URL (default: a fresh SQLite file)", metavar="URL"
    )
    parser.add_argument("--workers", type=int, default=1, help="server processes (PostgreSQL)")
    parser.add_argument("--game", help="the seeks' game (default: the first the server lists)")
    parser.add_argument(
        "--no-compression",
        action="store_true",
        help="sockets without permessage-deflate (browsers offer it): what it costs the server",
    )
    args = parser.parse_args()
    kind = "PostgreSQL" if (args.database or "").startswith("postgres") else "SQLite"
    with (
        fresh_schema(args.database or "") as database,
        # No background warmup: it compiles the engines and builds their tables once after
        # an install (``flipgames warmup``), CPU that is not the lobby's.
        served(database or None, args.workers, {"FLIPGAMES_WARMUP": "0"}) as (port, server),
    ):
        print(f"flipgames lobby load, {machine()}")
        print(f"server: {args.workers} process(es) on {kind}")
        print(f"load average before: {load_average()}")
        complete = asyncio.run(run(args, port, server))
        print(f"load average after: {load_average()}")
    if not complete:
        raise SystemExit("some sockets never heard an event")


if __name__ == "__main__":
    main()
