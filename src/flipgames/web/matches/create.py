"""Creation: a game made from web input, a new match written with its seats' token hashes
(never the tokens), and its first chance outcomes drawn.

What a request alone can be refused for (a level, a seed or a clock in a mode that has none)
is refused by ``schemas.CreateMatch``; what needs the game (its seats, its levels, its
options) is refused here.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from sqlalchemy import Connection, insert

from flipgames.core.errors import FlipgamesError, UnknownGameError
from flipgames.core.game import Game
from flipgames.core.registry import game_class
from flipgames.web import clocks, engines, schemas
from flipgames.web.community.ratings import require_accounts
from flipgames.web.db import matches, seats
from flipgames.web.errors import ApiError, unavailable
from flipgames.web.matches.data import (
    CreatedMatch,
    Loaded,
    Match,
    Played,
    SeatPlayer,
    hash_token,
    rules_version,
)
from flipgames.web.matches.live import seat_holders
from flipgames.web.matches.play import Playing
from flipgames.web.matches.views import view, viewer

# Option values from the web are names, never paths: some options (a Checkered Flag track)
# also accept a file path, and a browser must not make the server read its files.
_OPTION_TEXT = re.compile(r"[A-Za-z0-9_-]{1,64}")


def make_game(name: str, options: Mapping[str, object] | None = None) -> Game:
    """Make a game from web input: ``unknown_game`` or ``bad_option`` when it cannot be."""
    try:
        cls = game_class(name)
    except UnknownGameError as exc:
        raise ApiError(404, "unknown_game", str(exc)) from None
    declared = {option.name: option for option in cls.option_spec}
    for key, value in (options or {}).items():
        option = declared.get(key)
        if option is not None and isinstance(option.default, int) and isinstance(value, str):
            # The API is strict about types (docs/web-api.md): "2" is not a number.
            raise ApiError(
                422,
                "bad_option",
                f"bad value {value!r} for option {key!r}: it is a number, so send it as "
                f"a JSON number, not a string ({option.allowed()})",
            )
        if isinstance(value, str) and not _OPTION_TEXT.fullmatch(value):
            raise ApiError(
                422,
                "bad_option",
                f"bad value {value!r} for option {key!r}: the web takes names made of "
                "letters, digits, '_' and '-' (no file paths)",
            )
    try:
        return cls(options)
    except FlipgamesError as exc:
        raise ApiError(422, "bad_option", str(exc)) from None


class Creation(Playing):
    """Create matches."""

    game = staticmethod(make_game)

    def create(
        self,
        game_name: str,
        options: Mapping[str, object],
        *,
        mode: schemas.Mode,
        level: str | None,
        seat: int,
        seed: int | None,
        assist: bool | None,
        clock: clocks.TimeControl | None = None,
        players: Sequence[str] | None = None,
        creator: SeatPlayer | None = None,
    ) -> CreatedMatch:
        """Create a match and return the creator's token (and the invitee's, online).

        ``assist`` (hints and analysis, for both seats) defaults to on against the AI and off
        between two people. ``players`` (the player ids of seats 0 and 1, online) binds the
        seats to them and makes the match rated: see :meth:`create_rated`, which checks
        they are accounts. ``creator`` (a signed-in player) gets the seats the creator's token
        controls bound to them.
        """
        game = make_game(game_name, options)
        if not 0 <= seat < game.num_players:
            raise ApiError(422, "bad_request", f"seat must be 0..{game.num_players - 1}: {seat}")
        if mode == "ai":
            level = self._level(game, level or "easy")
        token = secrets.token_urlsafe(24)
        invite = secrets.token_urlsafe(24) if mode == "online" else None
        tokens = {seat: token}
        if invite is not None:
            tokens[1 - seat] = invite
        elif mode == "local":
            tokens[1 - seat] = token  # one screen, one token for both seats
        match = Match(
            id=secrets.token_urlsafe(9),
            game=game,
            seed=secrets.randbelow(schemas.MAX_SEED + 1) if seed is None else seed,
            mode=mode,
            level=level,
            human_seat=seat if mode == "ai" else None,
            assist=mode == "ai" if assist is None else assist,
            rated=players is not None,
        )
        clock_state = None if clock is None else clocks.start(clock, game.num_players)
        seated: Sequence[str | None] | None = players
        if players is None and creator is not None:
            seated = [
                creator.id if tokens.get(s) == token else None for s in range(game.num_players)
            ]
        holders = self._tx.run(
            lambda connection: _insert(connection, match, tokens, clock_state, seated)
        )
        hashes = {s: hash_token(t) for s, t in tokens.items()}
        with self._lock(match.id):
            loaded = Loaded(
                match,
                game.new_initial_state(),
                hashes,
                0,
                clock=clock_state,
                played=Played(),
                players=holders,
            )
            self.live.put(match.id, loaded)
            loaded = self._chance(loaded)
        return CreatedMatch(match.id, seat, token, invite, view(loaded, viewer(loaded, token)))

    def create_rated(
        self,
        game_name: str,
        options: Mapping[str, object],
        clock: clocks.TimeControl | None,
        players: Sequence[str],
    ) -> CreatedMatch:
        """A rated online match between the accounts ``players`` (player ids: seat 0, seat
        1), both seats bound to them: ``token`` is seat 0's, ``invite_token`` seat 1's. Refused
        (409 ``unavailable``) unless both are accounts, different and able to play.

        The lobby calls this once a seek is accepted, and hands each player their token.
        """
        ids = tuple(players)
        self._tx.run(lambda connection: require_accounts(connection, ids), read_only=True)
        return self.create(
            game_name,
            options,
            mode="online",
            level=None,
            seat=0,
            seed=None,
            assist=False,
            clock=clock,
            players=ids,
        )

    def _level(self, game: Game, level: str) -> str:
        """``level`` when ``game`` offers it here (built in, or an outside engine's)."""
        levels = self.solutions.levels(game) + engines.levels_for(self.engines, game)
        if level in levels:
            return level
        if level == "perfect":
            raise unavailable(
                f"no perfect level for {game.title} with these options: it is not "
                "solved, or its solution is not cached (flipgames solve)"
            )
        raise ApiError(
            422,
            "bad_option",
            f"unknown level {level!r} for {game.title}: levels are {', '.join(levels)}",
        )


def _insert(
    connection: Connection,
    match: Match,
    tokens: dict[int, str],
    clock: clocks.Clock | None,
    players: Sequence[str | None] | None = None,
) -> dict[int, SeatPlayer]:
    """Write the new ``match`` and its seats (each ``tokens`` entry's hash, and the seat's
    player when ``players`` names them); the seats' players as views show them."""
    insert_match(connection, match, clock)
    connection.execute(
        insert(seats),
        [
            {
                "match_id": match.id,
                "seat": s,
                "token_hash": hash_token(t),
                "player_id": None if players is None else players[s],
            }
            for s, t in tokens.items()
        ],
    )
    return seat_holders(connection, match.id)


def insert_match(connection: Connection, match: Match, clock: clocks.Clock | None) -> None:
    """Write the new ``match``'s row, at revision 0 (a new match and a rematch alike)."""
    game = match.game
    connection.execute(
        insert(matches).values(
            id=match.id,
            game=game.name,
            options=json.dumps(game.options),
            seed=match.seed,
            mode=match.mode,
            level=match.level,
            human_seat=match.human_seat,
            created_at=datetime.now(UTC),
            assist=match.assist,
            rules_version=rules_version(game),
            revision=0,
            rated=match.rated,
            **clocks.columns(clock),
        )
    )
