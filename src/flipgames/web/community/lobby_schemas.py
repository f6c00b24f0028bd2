"""The lobby's request and answer bodies (so /openapi.json documents them) and its events,
as the lobby socket sends them and the PostgreSQL lobby channel carries them between server
processes (docs/web-api.md, "The lobby")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from flipgames.web.schemas import ClockRequest, OptionValue, View

EventKind = Literal["new", "gone", "accepted"]


@dataclass(frozen=True)
class Event:
    """A change of the lobby: a seek (or pool entry) new, gone, or accepted into a match
    (``player`` is the one to tell: a seek's seeker, each player of a pair). A new listed
    seek carries its ``view`` (SeekView JSON), so the processes that hear of it send it as it
    was made instead of reading it again, when it may be taken already."""

    kind: EventKind
    seek: str
    player: str = ""
    match: str = ""
    view: str = ""


def announcement(origin: str, event: Event) -> str:
    """An event as the lobby channel carries it (a view last: it may hold any character).

    >>> note = announcement("p1", Event("accepted", "s9", "ada", "m3"))
    >>> note
    'p1:accepted|s9|ada|m3'
    >>> heard(note.partition(":")[2])
    Event(kind='accepted', seek='s9', player='ada', match='m3', view='')
    >>> heard(announcement("p1", Event("new", "s9", view='{"a": "|"}')).partition(":")[2])
    Event(kind='new', seek='s9', player='', match='', view='{"a": "|"}')
    """
    view = f"|{event.view}" if event.view else ""
    return f"{origin}:{event.kind}|{event.seek}|{event.player}|{event.match}{view}"


def heard(payload: str) -> Event | None:
    """The event of an announcement (after its origin), or None for one that is not."""
    parts = payload.split("|", 4)
    if len(parts) not in (4, 5):
        return None
    kind, seek, player, match = parts[:4]
    if kind == "new":
        return Event("new", seek, player, match, parts[4] if len(parts) == 5 else "")
    if kind == "gone":
        return Event("gone", seek, player, match)
    if kind == "accepted":
        return Event("accepted", seek, player, match)
    return None


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeekRequest(_Request):
    game: str = Field(max_length=64, description="a game name from GET /api/games")
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=32)
    clock: ClockRequest | None = Field(default=None, description="a time control; null: none")
    rated: StrictBool = Field(default=False, description="rated (accounts only) or casual")


class PairingRequest(_Request):
    game: str = Field(max_length=64, description="a game name from GET /api/games")
    clock: ClockRequest | None = Field(default=None, description="a time control; null: none")
    rated: StrictBool = Field(default=False, description="rated (accounts only) or casual")


class SeekView(BaseModel):
    """An open seek as the lobby lists it."""

    id: str
    game: str
    title: str
    options: dict[str, OptionValue]
    words: list[str] = Field(
        description="each option that is not the game's default, in players' words"
    )
    clock: str | None = Field(description="the time control, e.g. 5+3; null: none")
    rated: bool
    seeker: str
    rating: int | None = Field(description="the seeker's rating for the game; null: a guest")
    provisional: bool = Field(description="the seeker's rating is still uncertain")


class SeekCreated(BaseModel):
    id: str


class SeekState(BaseModel):
    """The seeker's view of its seek: null until someone accepts it (or a pair is made)."""

    match: str | None
    seat: int | None
    token: str | None = Field(description="the seeker's seat token, once accepted")


class AcceptedMatch(BaseModel):
    """The match an accepted seek became, with the acceptor's seat and token."""

    id: str
    seat: int
    token: str
    play: str = Field(description="the acceptor's page: /play/{id}?token=...")
    match: View


class LiveGame(BaseModel):
    """A game in progress between two people, to watch."""

    id: str
    game: str
    title: str
    players: list[str]
    moves: int = Field(description="moves made so far")
    clock: str | None
    rated: bool
    spectators: int = Field(description="spectators watching now")
    watch: str = Field(description="the spectators' page: /watch/{id}")
