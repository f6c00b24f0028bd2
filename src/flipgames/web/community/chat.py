"""In-game chat: the players' room and the spectators' room of an online match.

As on lichess, the two players of a match talk in a room of their own that nobody else
reads, and its spectators in another one the players are never sent. A line is written over
the match's WebSocket (``{"type": "chat", "text": "..."}``), committed to ``chat_lines`` and
then sent to every socket of its room, on every server process (on PostgreSQL the commit
announces it on :data:`CHANNEL`, scoped to the arcade's schema). A socket that joins is sent
its room's history first, so a reload shows what was said.

Who may write:

- the players' room: the seat of the socket's token (a seat link works with no session, as
  it does for moves); the line belongs to the seat's player when one holds it;
- the spectators' room: a signed-in player (a guest or an account), whose name it shows;
- nobody whose player the operator has disabled (``flipgames admin disable``): checked in
  the transaction that would write the line, so a socket opened before stops at once.

A line is text only: control characters become spaces, invisible formatting characters
(bidirectional overrides, zero-width spaces) are dropped, runs of spaces become one; what is
left must be 1 to :data:`MAX_CHARS` characters. Each writer may write :data:`RATE_LINES`
lines in :data:`RATE_SECONDS` seconds per match (counted in the database, so a second
socket on another process counts too). A line carries its room, number, seat, name and text:
never a token, never anything of the game's state.

>>> clean("  hello\\n\\tworld\\u202e!  ")
'hello world!'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from flipgames.web.community.identity import Session, disabled, shown_name
from flipgames.web.db import Transactions, aware, chat_lines, players
from flipgames.web.errors import ApiError

#: The PostgreSQL channel new lines are announced on (payload ``origin:match_id/number``;
#: app.py scopes it to the arcade's schema as the lobby's is).
CHANNEL = "flipgames_chat"
#: In place of a number: the match's lines were removed, send its rooms' histories again.
HISTORY = "history"
#: The longest line, in characters once cleaned.
MAX_CHARS = 140
#: At most this many lines per writer...
RATE_LINES = 5
#: ...in this many seconds, per match.
RATE_SECONDS = 10.0
#: The most lines of a room a joining socket is sent.
HISTORY_LINES = 100

Room = Literal["players", "spectators"]

# Format characters that change how the text around them shows (right-to-left overrides,
# zero-width spaces) are dropped; U+200D stays, emoji sequences are made with it.
_KEPT_FORMAT = {"\u200d"}


class ChatRequest(BaseModel):
    """A line a socket sends: ``{"type": "chat", "text": "..."}`` (``room`` may name the
    socket's own room; it is the players' for a seat, the spectators' otherwise)."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["chat"]
    # No limit here: the socket's message limit bounds it, and :func:`checked` measures the
    # line once cleaned (so any line too long is ``too_long``, however long).
    text: str
    room: Room | None = None


class ChatLine(BaseModel):
    """A line as sockets are sent it."""

    number: int = Field(description="the line's place among the match's lines (both rooms)")
    room: Room
    seat: int | None = Field(description="the seat of a players' line; null for a spectator's")
    name: str | None = Field(description="the writer's name; null for a seat without a player")
    text: str
    at: str = Field(description="when it was written, ISO 8601 UTC")


@dataclass(frozen=True)
class Writer:
    """Who writes a line: their room, their seat (players' room), their player if any."""

    room: Room
    seat: int | None
    player_id: str | None
    name: str | None


def clean(raw: str) -> str:
    """``raw`` as a line of plain text (see the module's docstring)."""
    kept = []
    for char in raw:
        kind = unicodedata.category(char)
        if kind == "Cc":
            kept.append(" ")
        elif kind in ("Cf", "Cs", "Co") and char not in _KEPT_FORMAT:
            continue
        else:
            kept.append(char)
    return " ".join("".join(kept).split())


def checked(raw: str) -> str:
    """The cleaned line, or the refusal of an empty or too long one."""
    line = clean(raw)
    if not line:
        raise ApiError(422, "empty_line", "write something: the line is empty")
    if len(line) > MAX_CHARS:
        raise ApiError(
            422,
            "too_long",
            f"a chat line is at most {MAX_CHARS} characters; this one has {len(line)}",
        )
    return line


def writer(
    seats: frozenset[int],
    holders: dict[int, tuple[str, str]],
    session: Session | None,
    room: Room | None,
) -> Writer:
    """Who the socket writes as: the seat's player in the players' room, the session's
    player in the spectators' room. ``holders`` maps the match's held seats to their
    players' (id, name); a refusal says why one may not write."""
    if session is not None and session.player.disabled:
        raise disabled()
    if seats:
        if room == "spectators":
            raise ApiError(
                403,
                "not_a_spectator",
                "players write in the players' chat: the spectators' chat is theirs",
            )
        seat = min(seats)
        holder = holders.get(seat)
        if holder is not None:
            return Writer("players", seat, holder[0], holder[1])
        if session is not None:
            return Writer("players", seat, session.player.id, session.player.name)
        return Writer("players", seat, None, None)
    if room == "players":
        raise ApiError(
            403,
            "not_a_player",
            "only the match's two players write in (and read) the players' chat: open the "
            "match with your seat's link",
        )
    if session is None:
        raise ApiError(
            401,
            "not_signed_in",
            "sign in (as a guest or with an account) to write in the spectators' chat",
        )
    return Writer("spectators", None, session.player.id, session.player.name)


def _now() -> datetime:
    return datetime.now(UTC)


def _line(row: Any) -> ChatLine:
    return ChatLine(
        number=row.number,
        room=row.room,
        seat=row.seat,
        # A seat's line may have no player (its token was used with no session).
        name=None if row.name is None else shown_name(row.name, bool(row.deleted)),
        text=row.text,
        at=aware(row.at).isoformat(timespec="seconds"),
    )


def _lines_query() -> Any:
    return select(
        chat_lines.c.number,
        chat_lines.c.room,
        chat_lines.c.seat,
        chat_lines.c.text,
        chat_lines.c.at,
        players.c.name,
        players.c.deleted,
    ).outerjoin(players, players.c.id == chat_lines.c.player_id)


class Chat:
    """The chat rooms in the database (``app.state.chat``)."""

    def __init__(self, transactions: Transactions, origin: str) -> None:
        self._tx = transactions
        #: This process's name in announcements, so it skips its own.
        self.origin = origin
        #: What other processes hear new lines on (app.py scopes it to the schema).
        self.channel = CHANNEL

    def post(self, match_id: str, who: Writer, raw: str) -> ChatLine:
        """Commit a line of ``who`` in ``match_id``: the line, or why it is refused."""
        line = checked(raw)
        tries = 5
        while True:
            try:
                return self._tx.run(lambda c: self._write(c, match_id, who, line))
            except IntegrityError:
                # Another process took the same number first: number it again.
                tries -= 1
                if tries == 0:
                    raise

    def _write(self, connection: Connection, match_id: str, who: Writer, line: str) -> ChatLine:
        if who.player_id is not None:
            blocked = connection.execute(
                select(players.c.disabled).where(players.c.id == who.player_id)
            ).scalar_one_or_none()
            if blocked:
                raise disabled()
        now = _now()
        _check_rate(connection, match_id, who, now)
        number = 1 + int(
            connection.execute(
                select(func.coalesce(func.max(chat_lines.c.number), 0)).where(
                    chat_lines.c.match_id == match_id
                )
            ).scalar_one()
        )
        connection.execute(
            insert(chat_lines).values(
                match_id=match_id,
                number=number,
                room=who.room,
                seat=who.seat,
                player_id=who.player_id,
                text=line,
                at=now,
            )
        )
        if connection.dialect.name == "postgresql":
            connection.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": self.channel, "payload": f"{self.origin}:{match_id}/{number}"},
            )
        return ChatLine(
            number=number,
            room=who.room,
            seat=who.seat,
            name=who.name,
            text=line,
            at=now.isoformat(timespec="seconds"),
        )

    def history(self, match_id: str, room: Room) -> list[ChatLine]:
        """The last :data:`HISTORY_LINES` lines of a room, oldest first (removed ones never)."""
        query = (
            _lines_query()
            .where(
                chat_lines.c.match_id == match_id,
                chat_lines.c.room == room,
                chat_lines.c.removed.is_(False),
            )
            .order_by(chat_lines.c.number.desc())
            .limit(HISTORY_LINES)
        )
        rows = self._tx.run(lambda c: list(c.execute(query)), read_only=True)
        return [_line(row) for row in reversed(rows)]

    def line(self, match_id: str, number: int) -> ChatLine | None:
        """One line (announced by another process), or None when it is removed."""
        query = _lines_query().where(
            chat_lines.c.match_id == match_id,
            chat_lines.c.number == number,
            chat_lines.c.removed.is_(False),
        )
        row = self._tx.run(lambda c: c.execute(query).one_or_none(), read_only=True)
        return None if row is None else _line(row)


def _check_rate(connection: Connection, match_id: str, who: Writer, now: datetime) -> None:
    """Refuse a line past :data:`RATE_LINES` in :data:`RATE_SECONDS` of the same writer."""
    since = now - timedelta(seconds=RATE_SECONDS)
    mine = (
        chat_lines.c.seat == who.seat
        if who.room == "players"
        else chat_lines.c.player_id == who.player_id
    )
    recent: Sequence[datetime] = list(
        connection.execute(
            select(chat_lines.c.at)
            .where(
                chat_lines.c.match_id == match_id,
                chat_lines.c.room == who.room,
                mine,
                chat_lines.c.at > since,
            )
            .order_by(chat_lines.c.at)
        ).scalars()
    )
    if len(recent) < RATE_LINES:
        return
    wait = aware(recent[-RATE_LINES]) + timedelta(seconds=RATE_SECONDS) - now
    seconds = max(1, round(wait.total_seconds() + 0.5))
    raise ApiError(
        429,
        "too_fast",
        f"at most {RATE_LINES} chat lines in {RATE_SECONDS:.0f} s: wait {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


def remove_lines(connection: Connection, player_id: str) -> list[str]:
    """Mark every line of a player removed (kept for the record, never shown again): the
    match of each line removed."""
    mine = (chat_lines.c.player_id == player_id) & chat_lines.c.removed.is_(False)
    matches = list(connection.execute(select(chat_lines.c.match_id).where(mine)).scalars())
    connection.execute(update(chat_lines).where(mine).values(removed=True))
    return matches
