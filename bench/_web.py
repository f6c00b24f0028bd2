"""What the web benchmarks share: a real ``flipgames serve`` in a subprocess (a fresh SQLite
file, a fresh PostgreSQL schema or the database given), a minimal keep-alive HTTP client, the
server's CPU time and the machine's description and load.

Scripts import this module instead of each other (see bench/README.md).
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: The server's rate limits, off for a benchmark (every client is 127.0.0.1).
NO_LIMITS = {
    "FLIPGAMES_ACTIONS_PER_MINUTE": "0",
    "FLIPGAMES_MATCHES_PER_MINUTE": "0",
    "FLIPGAMES_READS_PER_MINUTE": "0",
    "FLIPGAMES_PUZZLES_PER_MINUTE": "0",
    "FLIPGAMES_SIGN_INS_PER_MINUTE": "0",
}


#: The line ``flipgames serve`` prints once it has bound its port (``--port 0``: one it chose).
_ADDRESS = re.compile(rb"flipgames arcade: open http://[^/\s]+:(\d+)/")


def _reported_port(server: subprocess.Popen[bytes], log: Path) -> int:
    """The port ``server`` printed to ``log``, waited for (60 s at most)."""
    for _ in range(600):
        found = _ADDRESS.search(log.read_bytes())
        if found:
            return int(found.group(1))
        if server.poll() is not None:
            raise SystemExit(f"the server exited; its log: {log}")
        time.sleep(0.1)
    raise SystemExit(f"the server printed no address in 60 s; its log: {log}")


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


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


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


class Http:
    """A minimal keep-alive HTTP/1.1 JSON client on one loopback connection (the benchmarks
    need no dependency beyond the server's own), sending ``headers`` with every request
    (e.g. a player's ``Authorization: Bearer``)."""

    def __init__(self, port: int, headers: Mapping[str, str] | None = None) -> None:
        self.port = port
        self.headers = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
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
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{self.headers}"
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


@contextmanager
def fresh_schema(database: str) -> Iterator[str]:
    """``database`` itself, or for a PostgreSQL URL the URL of a new schema in it (its search
    path), dropped afterwards: a run starts from empty tables and leaves nothing behind."""
    if not database.startswith("postgres"):
        yield database
        return
    import psycopg  # the 'postgres' extra, needed only for a PostgreSQL run

    base = database.replace("postgresql+psycopg://", "postgresql://", 1)
    name = f"bench_{secrets.token_hex(4)}"
    with psycopg.connect(base, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {name}")
    try:
        joiner = "&" if "?" in database else "?"
        yield f"{database}{joiner}options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(base, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {name} CASCADE")


@contextmanager
def served(
    database: str | None, workers: int = 1, env: Mapping[str, str] | None = None
) -> Iterator[tuple[int, int]]:
    """``flipgames serve`` on ``database`` (default: a fresh SQLite file in a temporary
    folder) with ``workers`` processes, the rate limits off and ``env`` on top, logging to a
    file beside it; ``(port, server pid)`` once it answers its health check. Stopped (SIGTERM)
    on leaving."""
    folder = Path(tempfile.mkdtemp(prefix="flipgames-bench-"))
    url = database or f"sqlite:///{folder / 'arcade.sqlite'}"
    # Port 0: the server binds a free port itself and prints it (no probe-then-bind race).
    command = [sys.executable, "-m", "flipgames", "serve", "--port", "0", "--db", url]
    command += ["--workers", str(workers)]
    with (folder / "server.log").open("wb") as log:
        server = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **NO_LIMITS, **(env or {})},
        )
        try:
            port = _reported_port(server, folder / "server.log")
            for _ in range(300):
                if server.poll() is not None:
                    raise SystemExit(f"the server exited; its log: {folder / 'server.log'}")
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                        break
                except OSError:
                    time.sleep(0.1)
            yield port, server.pid
        finally:
            server.terminate()
            server.wait(timeout=30)
