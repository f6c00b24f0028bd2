"""Request and response bodies of the API (pydantic models, so /openapi.json documents them).

Requests are strict: unknown fields, strings where numbers belong and booleans where integers
belong are refused with ``bad_request`` rather than guessed at.

>>> ActionRequest(token="t", action="b1xb3").ply is None
True
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)
from pydantic_core import PydanticCustomError

OptionValue = StrictInt | StrictStr
Mode = Literal["ai", "online", "local"]
#: How a match ended outside the rules engine.
Ending = Literal["resignation", "agreement", "timeout", "forfeit", "aborted"]
#: Seeds fit a signed 64-bit column. The seed decides every chance outcome, so it is a secret
#: until the match ends: the server picks it from 63 random bits, too many to search for.
MAX_SEED = 2**63 - 1


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ClockRequest(_Request):
    """A time control: seconds per player and seconds added after each of their moves."""

    initial: StrictInt = Field(ge=1, le=3 * 60 * 60, description="seconds per player")
    increment: StrictInt = Field(
        default=0, ge=0, le=60, description="seconds added after each move"
    )


class ClockView(BaseModel):
    initial_ms: int
    increment_ms: int
    label: str = Field(description="the time control, e.g. 5+3 (minutes + seconds)")
    remaining_ms: list[int] = Field(
        description="each player's time left when the view was made (the running one counted "
        "down to then)"
    )
    running: int | None = Field(description="the player whose clock runs now, if any")


class CreateMatch(_Request):
    game: str = Field(max_length=64, description="a game name from GET /api/games")
    options: dict[str, OptionValue] = Field(default_factory=dict, max_length=32)
    mode: Mode = "ai"
    level: str | None = Field(default=None, max_length=32, description="AI level (mode ai)")
    seat: StrictInt = Field(default=0, ge=0, description="the creator's seat")
    seed: StrictInt | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        description="chance and AI seed (ai and local modes; the server picks one if null)",
    )
    assist: StrictBool | None = Field(
        default=None,
        description="hints and analysis for both seats (null: on against the AI, off between "
        "two people)",
    )
    clock: ClockRequest | None = Field(
        default=None, description="online matches: a time control (null: no clocks)"
    )

    @model_validator(mode="after")
    def _fits_mode(self) -> CreateMatch:
        """Refuse what the mode has no use for (what needs the game is checked on creation:
        the seat, the level, the options). The message is the whole error's (no prefix)."""
        if self.level is not None and self.mode != "ai":
            message = f"a level is for matches against the computer (mode ai), not {self.mode} ones"
        elif self.mode == "online" and self.seed is not None:
            message = (
                "an online match cannot be given a seed: its creator could foresee every "
                "chance outcome (tiles, spinners)"
            )
        elif self.clock is not None and self.mode != "online":
            message = (
                "clocks are for online matches between two people (the computer takes no "
                "time, and one screen has one player to move)"
            )
        else:
            return self
        raise PydanticCustomError("bad_request", message)


class ActionRequest(_Request):
    token: str | None = Field(default=None, max_length=128, description="the seat token")
    action: str = Field(max_length=64, examples=["b1xb3"])
    ply: StrictInt | None = Field(
        default=None, description="the ply the client saw; refused as stale if it has moved on"
    )


class TokenRequest(_Request):
    token: str | None = Field(default=None, max_length=128, description="the seat token")


class DrawRequest(_Request):
    token: str | None = Field(default=None, max_length=128, description="the seat token")
    answer: Literal["offer", "accept", "decline"] = Field(
        description="offer a draw, or accept or decline the other player's offer"
    )


class TakebackRequest(_Request):
    token: str | None = Field(default=None, max_length=128, description="the seat token")
    answer: Literal["offer", "accept", "decline"] = Field(
        description="ask to take back your last move, or accept or decline the other "
        "player's request"
    )


class RatingChangeView(BaseModel):
    """One player's rating change from a rated match (Glicko-2, see docs/web.md)."""

    seat: int
    name: str
    before: float = Field(description="the rating before the match")
    after: float = Field(description="the rating after it")
    rd: float = Field(description="the rating deviation after it")
    provisional: bool = Field(description="rd above 110: too few games to trust (shown '?')")


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorDetail


class OptionInfo(BaseModel):
    name: str
    default: int | str
    choices: list[int | str] | None
    minimum: int | None
    maximum: int | None
    help: str
    label: str = Field(description="the option's name for players, e.g. 'Lines that score'")
    choice_words: list[str] | None = Field(
        description="each of choices in players' words, in the same order"
    )


class GameInfo(BaseModel):
    name: str
    title: str
    board: str = Field(description="the board module that draws it: /static/boards/{board}.js")
    pitch: str = Field(description="the lobby's one-paragraph pitch")
    art: str = Field(description="the lobby's small picture: static SVG markup (art-* classes)")
    players: list[str]
    has_chance: bool
    options: list[OptionInfo]
    levels: list[str]
    solved: bool
    lesson: bool = Field(False, description="the game has a lesson to learn it: /learn/{name}")
    engines: list[str] = Field(
        default_factory=list,
        description="outside engines the operator registered for this game: level engine:NAME",
    )


class RulesInfo(BaseModel):
    name: str
    title: str
    text: str


class LastAction(BaseModel):
    action: str
    by: int = Field(description="the player who acted, or -1 for a chance outcome")


class View(BaseModel):
    """A match as one viewer may see it: a seat, both seats (same screen) or a spectator."""

    id: str
    game: str
    title: str
    board: str = Field(description="the board module that draws it: /static/boards/{board}.js")
    options: dict[str, int | str]
    mode: Mode
    level: str | None
    seat: int | None = Field(description="the viewer's seat; null for a spectator")
    seats: list[int] = Field(description="every seat the viewer's token controls")
    players: list[str]
    names: list[str | None] = Field(
        default_factory=list,
        description="each seat's player's name (null: a seat no signed-in player has taken; "
        '"deleted player" for a deleted account)',
    )
    ply: int
    current_player: int = Field(description="0, 1, -1 at a chance node, -2 once finished")
    status: Literal["playing", "finished"]
    result: str
    returns: list[int]
    observation: dict[str, Any]
    legal: list[str] = Field(description="the viewer's legal actions; [] when not to move")
    legal_actions: list[dict[str, Any]] = Field(
        description="`legal` as structured actions (State.action_info: id, text, kind, chance, "
        "from, to, face, ...)"
    )
    history: list[str]
    moves: list[dict[str, Any]] = Field(
        description="`history` as structured actions, each with `by`: 0, 1 or -1 (chance)"
    )
    actors: list[int] = Field(
        description="who made each history entry: 0, 1, or -1 for a chance outcome"
    )
    last: LastAction | None
    assist: bool = Field(description="hints and analysis are offered (to every seat alike)")
    undo: bool = Field(
        description="the viewer can undo now (AI matches: a move with no chance outcome after it)"
    )
    thinking: bool = Field(
        description="the computer is to move: its move is being worked out and comes as a new "
        "view (over the WebSocket, or by reading the match again)"
    )
    ending: Ending | None = Field(
        default=None,
        description="how the match ended outside the rules: a resignation, an agreed draw, "
        "a loss on time, a forfeit (an outside engine that failed), or aborted before both "
        "players moved (no result: '*')",
    )
    ending_detail: str | None = Field(
        default=None, description="a forfeit's reason, in words (e.g. the engine's error)"
    )
    clock: ClockView | None = Field(default=None, description="the clocks (clocked matches)")
    draw_offer: int | None = Field(default=None, description="the seat offering a draw now")
    takeback_offer: int | None = Field(
        default=None, description="the seat asking to take back its last move now"
    )
    abort: bool = Field(
        default=False, description="the viewer can abort now (online, before both have moved)"
    )
    rated: bool = Field(default=False, description="the result changes both players' ratings")
    rating_changes: list[RatingChangeView] = Field(
        default_factory=list, description="a rated match's rating changes once it has ended"
    )
    rematch: str | None = Field(
        default=None, description="the id of the rematch, once a player has asked for one"
    )
    text: str


class Links(BaseModel):
    play: str
    invite: str | None = Field(description="the other seat's link (online mode)")
    watch: str


class Created(BaseModel):
    id: str
    seat: int
    token: str
    links: Links
    match: View


class Hint(BaseModel):
    action: str
    level: str


class ActionValue(BaseModel):
    action: str
    value: str | float = Field(description="win, draw or loss for the player to move")
    remoteness: int | None = Field(description="plies to the end under perfect play")


class Analysis(BaseModel):
    actions: list[ActionValue]


class Frame(BaseModel):
    ply: int
    action: str | None = Field(description="the action that led here; null for the start")
    by: int | None
    current_player: int
    status: Literal["playing", "finished"]
    result: str
    returns: list[int]
    observation: dict[str, Any]
    text: str


class Replay(BaseModel):
    frames: list[Frame]
    ending: Ending | None = Field(
        default=None, description="how the match ended outside the rules, as in a view"
    )
    result: str = Field(default="*", description="the match's result ('*': aborted)")


class Record(BaseModel):
    """The engine's game record (``flipgames replay`` reads it)."""

    format: str
    version: int
    game: str
    options: dict[str, int | str]
    seed: int | None = Field(description="null until the match is finished")
    actions: list[str]
    result: str = Field(description="by the rules: '*' for a match ended by resignation or draw")
    ending: dict[str, str] | None = Field(
        default=None,
        description='{"reason": "resignation" | "agreement" | "timeout" | "forfeit" | '
        '"aborted", "result": "0-1"}',
    )
    clock: dict[str, Any] | None = Field(
        default=None,
        description='clocked matches: {"control": "5+3", "initial_ms", "increment_ms", '
        '"remaining_ms"}',
    )
    names: list[str | None] | None = Field(
        default=None,
        description="the players at seats 0 and 1 (null for a seat no player held); absent "
        "when no seat had one",
    )


class GameRating(BaseModel):
    rating: float
    rd: float = Field(description="the rating deviation (Glicko-2): 350 for a new player")
    games: int = Field(description="rated games played")
    provisional: bool = Field(description="rd above 110: too few games to trust (shown '?')")


class Results(BaseModel):
    wins: int
    draws: int
    losses: int


class RatingPoint(BaseModel):
    match: str
    rating: float = Field(description="the rating after that match")
    rd: float
    date: str = Field(description="when the match ended (ISO 8601)")


class PlayedGame(BaseModel):
    match: str = Field(description="the match id: its replay is /replay/{match}")
    game: str
    opponent: str | None = Field(description="the other seat's player, if a player held it")
    result: Literal["win", "draw", "loss", "aborted"]
    ending: Ending | None = Field(description="how it ended outside the rules; null: by them")
    date: str = Field(description="when the match was created (ISO 8601)")
    rated: bool


class Profile(BaseModel):
    """A player's ratings, rating history, results and finished games (a page of them)."""

    name: str
    account: bool = Field(description="an account (false: a guest)")
    ratings: dict[str, GameRating] = Field(description="by game name")
    results: dict[str, Results] = Field(description="wins, draws and losses by game name")
    history: dict[str, list[RatingPoint]] = Field(
        description="by game name: the rating after each rated match, oldest first"
    )
    games: list[PlayedGame] = Field(description="finished games, newest first, 20 a page")
    page: int
    pages: int


class Leader(BaseModel):
    rank: int
    name: str
    rating: float
    rd: float
    games: int


class Leaderboard(BaseModel):
    game: str
    players: list[Leader] = Field(
        description="the best 50 established ratings (rd at most 110) of accounts"
    )
