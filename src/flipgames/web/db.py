"""The arcade's database: engine factory, tables (SQLAlchemy Core) and versioned migrations.

A match is its game, options, seed, mode and seats (hashed tokens) plus the ordered list of
accepted actions in notation; everything else is rebuilt by replaying them through the engine.

Migrations are an ordered list of steps, each a list of SQL statements that both SQLite and
PostgreSQL accept. ``schema_version`` holds how many steps a database has had. A schema change
appends a step (and updates the tables below to match); it never edits an old one, so every
database, however old, reaches the same schema. A test checks the migrated schema against the
tables.

>>> engine = make_engine("sqlite://")
>>> migrate(engine) == len(MIGRATIONS)
True
>>> migrate(engine)  # already current: nothing to do
12
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    false,
    inspect,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import StaticPool

from flipgames.core.errors import FlipgamesError
from flipgames.web.migrations import MIGRATIONS

log = logging.getLogger(__name__)


class SchemaError(RuntimeError):
    """The database was written by a newer flipgames than this one."""


metadata = MetaData()

schema_version = Table("schema_version", metadata, Column("version", Integer, nullable=False))

matches = Table(
    "matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(64), nullable=False),
    # The game's resolved options as JSON text.
    Column("options", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("mode", String(16), nullable=False),
    Column("level", String(32)),
    # The human's seat in an AI match; the AI has the other one.
    Column("human_seat", Integer),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # Hints and analysis allowed (for every seat alike); see docs/web.md, "Assistance".
    Column("assist", Boolean(create_constraint=False), nullable=False, server_default=false()),
    # The game's rules version when the match was created (see rules_version): a match is
    # replayed only under the rules it was played by.
    Column("rules_version", Integer, nullable=False, server_default=text("1")),
    # Counts every change of the match's actions (an action, an undo). A writer names the
    # revision it read and fails if another got there first; readers holding a match in
    # memory compare it with theirs (one small read instead of a replay).
    Column("revision", Integer, nullable=False, server_default=text("0")),
    # How a match ended outside the rules engine: "resignation" or "agreement" (a draw), with
    # the result it ended with; both null while the engine decides.
    Column("ending", String(16)),
    Column("ending_result", String(8)),
    # The seat offering a draw now, if any.
    Column("draw_offer", Integer),
    # The match this one was followed by (same options, seats swapped).
    Column("rematch_id", String(32)),
    # A server process working out the computer's move at this revision, until this time
    # (several processes on one database: the move is worked out once).
    Column("ai_claim_revision", Integer),
    Column("ai_claim_until", DateTime(timezone=True)),
    # Clocks (online matches with a time control; see web/clocks.py): the control, each
    # player's time left when their clock last stopped, and when the running clock started
    # (milliseconds since the epoch; null while none runs).
    Column("clock_initial_ms", Integer),
    Column("clock_increment_ms", Integer),
    Column("clock_ms_0", BigInteger),
    Column("clock_ms_1", BigInteger),
    Column("clock_since_ms", BigInteger),
    # A forfeit's reason in words (an outside engine that crashed or did not answer).
    Column("ending_detail", String(300)),
    # Rated: both seats are accounts and the result changes their ratings (web/community).
    Column("rated", Boolean(create_constraint=False), nullable=False, server_default=false()),
    # The seat asking to take back the last move now, if any.
    Column("takeback_offer", Integer),
)

seats = Table(
    "seats",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    # sha256 hex of the seat's token: the token itself is never stored.
    Column("token_hash", String(64), nullable=False),
    # The player (guest or account) the seat belongs to, once one has taken it.
    Column("player_id", String(32), ForeignKey("players.id")),
)

actions = Table(
    "actions",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    # The primary key makes two writers racing for the same ply fail instead of forking a game.
    Column("ply", Integer, primary_key=True),
    Column("action", String(64), nullable=False),
)

# The community (web/community): who plays (guests and accounts), their sessions, their
# ratings per game and each rated match's change of them, the lobby's seeks and the chat.

players = Table(
    "players",
    metadata,
    Column("id", String(32), primary_key=True),
    # The name as its owner wrote it, and lowercased: names are unique ignoring case. A
    # deleted account keeps its row (its games stay) with the name "deleted player" (older
    # deletions: "deleted") and no key.
    Column("name", String(32), nullable=False),
    Column("name_key", String(32), unique=True),
    # An Argon2id hash (PHC string); null for a guest.
    Column("password_hash", String(200)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # Set by an operator (flipgames admin): the player can no longer sign in, play or chat.
    Column("disabled", Boolean(create_constraint=False), nullable=False, server_default=false()),
    Column("deleted", Boolean(create_constraint=False), nullable=False, server_default=false()),
)

sessions = Table(
    "sessions",
    metadata,
    # sha256 hex of the session id: the id itself (the cookie or bearer token) is never stored.
    Column("id_hash", String(64), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("seen_at", DateTime(timezone=True), nullable=False),
)

ratings = Table(
    "ratings",
    metadata,
    Column("player_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("game", String(64), primary_key=True),
    # Glicko-2 on the Glicko scale (1500 / 350 / 0.06 for a new player).
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

rating_changes = Table(
    "rating_changes",
    metadata,
    # One row per player of a rated match, written in the transaction that ends it: the
    # primary key makes a second ending (another process, a retry) fail instead of counting twice.
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("game", String(64), nullable=False),
    Column("rating_before", Float, nullable=False),
    Column("rating_after", Float, nullable=False),
    Column("rd_before", Float, nullable=False),
    Column("rd_after", Float, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

seeks = Table(
    "seeks",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("game", String(64), nullable=False),
    # The game's resolved options as JSON text, as in matches.
    Column("options", Text, nullable=False),
    Column("clock_initial_ms", Integer),
    Column("clock_increment_ms", Integer),
    Column("rated", Boolean(create_constraint=False), nullable=False, server_default=false()),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # Set once, by the one acceptor whose conditional update wins (across processes too).
    Column("match_id", String(32), ForeignKey("matches.id")),
    # "seek" (listed in the lobby, accepted by anyone) or "pool" (quick pairing: the server
    # pairs two of them); see web/community/lobby.py.
    Column("kind", String(16), nullable=False, server_default=text("'seek'")),
)

chat_lines = Table(
    "chat_lines",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    # Lines of a match in order (both rooms): 1, 2, ... As with actions, two writers racing
    # for the same number fail instead of one line hiding another.
    Column("number", Integer, primary_key=True, autoincrement=False),
    # "players" (the two seats) or "spectators".
    Column("room", String(16), nullable=False),
    Column("player_id", String(32), ForeignKey("players.id")),
    # The seat that wrote a players' line (its token may have no player); null for spectators.
    Column("seat", Integer),
    Column("text", String(500), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    # Removed by an operator: kept for the record, never shown.
    Column("removed", Boolean(create_constraint=False), nullable=False, server_default=false()),
)

# A finished match's game review (web/review.py), made once and read by every server process.
reviews = Table(
    "reviews",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    # The match's revision when it was reviewed: an undo after the end and a new end make a
    # new revision, and so a new review (the older one is deleted when it is stored).
    Column("revision", Integer, primary_key=True, autoincrement=False),
    # The review as the API answers it (JSON text).
    Column("review", Text, nullable=False),
    Column("made_at", DateTime(timezone=True), nullable=False),
)

# Who is making a finished match's review now (web/review_store.py): one process makes it, the
# others answer with its progress. Transient rows (deleted when the review is stored or given
# up), so no foreign key: a claim outlives nothing.
review_claims = Table(
    "review_claims",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("revision", Integer, primary_key=True, autoincrement=False),
    # The server process making it (its random origin), and how far it has got.
    Column("origin", String(32), nullable=False),
    Column("done", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    # When the maker last said how far it has got: a claim long silent is taken over.
    Column("heard_at", DateTime(timezone=True), nullable=False),
)

# What a command run beside a SQLite server (``flipgames admin``) has to tell it, as a
# PostgreSQL server would be told by NOTIFY (web/fanout.py): a channel and its payload, read by
# the server within a second and deleted by the next command an hour later.
operator_notes = Table(
    "operator_notes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("channel", String(64), nullable=False),
    Column("payload", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)


def normalise_url(url: str) -> str:
    """Send PostgreSQL URLs to psycopg 3, whatever driver (or none) they name.

    >>> normalise_url("postgresql://ada@localhost/arcade")
    'postgresql+psycopg://ada@localhost/arcade'
    >>> normalise_url("sqlite:///arcade.sqlite")
    'sqlite:///arcade.sqlite'
    """
    parsed = make_url(url)
    if parsed.get_backend_name() in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def _require_psycopg() -> None:
    """PostgreSQL needs psycopg, the optional 'postgres' extra: say how to install it rather
    than let SQLAlchemy fail on the import."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise FlipgamesError(
            "a postgresql:// database needs psycopg (the 'postgres' extra): run "
            "pip install -e '.[postgres]' in the flipgames repository folder"
        ) from None


class _OneAtATime(StaticPool):
    """The in-memory database's single connection, lent to one thread at a time: two
    threads reading at once (a reader does not take the writers' turn) would otherwise
    begin a second transaction on the same connection, which SQLite refuses."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Re-entrant: a thread that already holds the connection gets it again, as before.
        self._turn = threading.RLock()

    def _do_get(self) -> Any:
        self._turn.acquire()
        try:
            return super()._do_get()
        except BaseException:
            self._turn.release()
            raise

    def _do_return_conn(self, record: Any) -> None:
        try:
            super()._do_return_conn(record)
        finally:
            self._turn.release()


def make_engine(url: str, *, busy_timeout: float = 5.0) -> Engine:
    """An engine for a SQLAlchemy URL (SQLite or PostgreSQL), ready for concurrent use.

    SQLite files get their folder created, WAL journaling, enforced foreign keys and
    transactions that take the write lock when they begin (``BEGIN IMMEDIATE``), so two
    writers wait for each other (up to ``busy_timeout`` seconds, then
    :class:`Transactions` retries) instead of failing halfway. Connections given the
    execution option ``flipgames_read=True`` begin a plain (deferred) transaction instead: in WAL
    mode readers never wait for the writer.
    """
    parsed = make_url(normalise_url(url))
    if parsed.get_backend_name() == "postgresql":
        _require_psycopg()
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, pool_pre_ping=True)
    memory = parsed.database in (None, "", ":memory:")
    if memory:
        # One shared connection, or every connection would see its own empty database; the
        # routes use it from the thread pool as well as the event loop's thread, so
        # sqlite3's same-thread check is lifted and the threads take turns with it.
        engine = create_engine(
            parsed, poolclass=_OneAtATime, connect_args={"check_same_thread": False}
        )
    else:
        Path(str(parsed.database)).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": busy_timeout})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the sqlite3 module so that BEGIN below is ours.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        # In WAL mode NORMAL syncs at checkpoints, not at every commit: a committed action
        # survives the server being killed (it is in the operating system's hands), and
        # only a power cut could lose the last few. FULL costs an fsync per action.
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        read_only = connection.get_execution_options().get("flipgames_read", False)
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

    if not memory:
        # WAL is a property of the file: set it once here, not on every new connection
        # (switching the journal mode needs the database to itself).
        # (The raw connection is outside SQLAlchemy's transactions, as the pragma must be.)
        raw = engine.raw_connection()
        try:
            raw.cursor().execute("PRAGMA journal_mode = WAL")
        finally:
            raw.close()
    return engine


def aware(moment: datetime) -> datetime:
    """A time read from the database, in UTC: SQLite hands back the naive UTC time it was
    given, PostgreSQL an aware one.

    >>> aware(datetime(2026, 12, 3, 10, 0)).isoformat()
    '2026-12-03T10:00:00+00:00'
    """
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


T = TypeVar("T")


class DatabaseBusy(RuntimeError):
    """The database stayed locked by other writers for longer than the wait allowed."""


def is_locked(exc: OperationalError) -> bool:
    """True for SQLite's "database is locked" / "database table is locked" (SQLITE_BUSY)."""
    return "locked" in str(exc.orig).lower() or "busy" in str(exc.orig).lower()


class Transactions:
    """Run units of work in transactions, waiting and retrying while SQLite is locked.

    ``run(work)`` calls ``work(connection)`` inside one transaction. A locked database (another
    process or a long writer holding SQLite's write lock past its busy timeout) rolls the
    attempt back and tries again after a growing pause, for up to ``wait_seconds`` in all;
    then :class:`DatabaseBusy`. Any other error propagates at once.

    On SQLite, writers of this process take turns on a lock before they begin: SQLite
    itself makes a writer that finds the database locked sleep and poll (for up to 100 ms
    at a time), which under load costs far more than waiting in line. Readers never wait.

    >>> tx = Transactions(make_engine("sqlite://"))
    >>> tx.run(lambda c: c.exec_driver_sql("SELECT 41 + 1").scalar_one())
    42
    """

    def __init__(
        self,
        engine: Engine,
        *,
        wait_seconds: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.engine = engine
        self.wait_seconds = wait_seconds
        self.sleep = sleep
        self._writers = threading.Lock() if engine.dialect.name == "sqlite" else None

    def run(self, work: Callable[[Connection], T], *, read_only: bool = False) -> T:
        waited = 0.0
        pause = 0.05
        while True:
            try:
                if read_only or self._writers is None:
                    return self._attempt(work, read_only)
                with self._writers:
                    return self._attempt(work, read_only)
            except OperationalError as exc:
                if not is_locked(exc):
                    raise
                if waited >= self.wait_seconds:
                    raise DatabaseBusy(f"the database stayed locked for {waited:.1f} s") from exc
                log.warning("database locked; retrying in %.2f s", pause)
                self.sleep(pause)
                waited += pause
                pause = min(pause * 2, 1.0)

    def _attempt(self, work: Callable[[Connection], T], read_only: bool) -> T:
        with self.engine.connect() as connection:
            if read_only:
                connection = connection.execution_options(flipgames_read=True)
            with connection.begin():
                return work(connection)


def current_version(connection: Connection) -> int:
    """How many migration steps the database has had (0 for an empty database)."""
    if not inspect(connection).has_table("schema_version"):
        return 0
    version = connection.execute(schema_version.select()).scalar_one_or_none()
    return int(version or 0)


def migrate(engine: Engine, steps: Sequence[Sequence[str]] = MIGRATIONS) -> int:
    """Bring the database up to date, one transaction per step; return its version.

    Raises :class:`SchemaError` for a database newer than ``steps`` (a downgrade).
    """
    with engine.begin() as connection:
        if not inspect(connection).has_table("schema_version"):
            connection.execute(text("CREATE TABLE schema_version (version INTEGER NOT NULL)"))
            connection.execute(schema_version.insert().values(version=0))
        version = current_version(connection)
    if version > len(steps):
        raise SchemaError(
            f"the database is at schema version {version} but this flipgames knows only "
            f"{len(steps)}: upgrade flipgames"
        )
    for number in range(version + 1, len(steps) + 1):
        with engine.begin() as connection:
            for statement in steps[number - 1]:
                connection.execute(text(statement))
            connection.execute(schema_version.update().values(version=number))
        log.info("database migrated to schema version %d", number)
    return len(steps)
