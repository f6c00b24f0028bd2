"""The read-only views of a match, as JSON models: what one viewer may see of it now, an
earlier position, its record and replay, and the help (hint, analysis) its seats may ask for.

Nothing here writes. Hidden information stays hidden: a viewer gets their own observation,
a position looked back at is the spectators' picture of it, and the seed (which foretells
every chance outcome) is in the record only once the match is over.
"""

from __future__ import annotations

import hmac
import random

from flipgames.core.game import State
from flipgames.core.manifest import manifest_of
from flipgames.core.record import make_record
from flipgames.web import clocks, schemas
from flipgames.web.ai import Solutions
from flipgames.web.community.identity import disabled
from flipgames.web.errors import ApiError, bad_token, unavailable
from flipgames.web.matches.data import (
    SPECTATOR,
    Loaded,
    Match,
    Viewer,
    computer_to_move,
    game_over,
    hash_token,
    path,
    undo_target,
)


def viewer(loaded: Loaded, token: str | None, *, required: bool = False) -> Viewer:
    """The seats ``token`` controls (empty for a spectator: no token).

    A token that is given but wrong is refused, as is a missing one when ``required``. With
    ``required`` (the token is about to act: a move, an offer, a hint) a seat held by a
    player the operator disabled is refused too (403 ``disabled``), whatever session comes
    with it: the link is theirs.
    """
    if not token:
        if required:
            raise bad_token("this needs your seat token")
        return SPECTATOR
    digest = hash_token(token)
    matched = [
        seat
        for seat, stored in sorted(loaded.token_hashes.items())
        if hmac.compare_digest(stored, digest)
    ]
    if not matched:
        raise bad_token("the token is not a seat of this match")
    if required and any(_disabled(loaded, seat) for seat in matched):
        raise disabled()
    return frozenset(matched)


def _disabled(loaded: Loaded, seat: int) -> bool:
    holder = loaded.players.get(seat)
    return holder is not None and holder.disabled


def view(loaded: Loaded, seats: Viewer) -> schemas.View:
    """The match as the viewer with ``seats`` may see it: their observation, their legal
    actions."""
    state = loaded.state
    match = loaded.match
    current = state.current_player
    seat = None if not seats else current if current in seats else min(seats)
    played = loaded.record
    last = None
    if played.history:
        last = schemas.LastAction(action=played.history[-1], by=played.actors[-1])
    over = loaded.over
    # An ending outside the engine (resignation, agreement) leaves no one to move.
    legal, legal_info = loaded.legal if current in seats and not over else ([], [])
    return schemas.View(
        id=match.id,
        game=match.game.name,
        title=match.game.title,
        board=manifest_of(match.game).board,
        options=dict(match.game.options),
        mode=match.mode,
        level=match.level,
        seat=seat,
        seats=sorted(seats),
        players=list(match.game.player_names),
        names=[
            holder.name if (holder := loaded.players.get(s)) else None
            for s in range(match.game.num_players)
        ],
        ply=len(played.history),
        current_player=current,
        status="finished" if over else "playing",
        result=loaded.result,
        returns=_returns(loaded.result) if loaded.ending else list(state.returns()),
        observation=state.observation(seat),
        legal=legal,
        legal_actions=legal_info,
        history=list(played.history),
        moves=list(played.moves),
        actors=list(played.actors),
        last=last,
        assist=match.assist,
        undo=_can_undo(loaded, seats),
        thinking=computer_to_move(loaded),
        ending=loaded.ending,
        ending_detail=loaded.ending_detail,
        clock=clocks.view(loaded.clock, state, over=over, now_ms=clocks.now_ms()),
        draw_offer=loaded.draw_offer,
        takeback_offer=loaded.takeback_offer,
        abort=bool(seats) and can_abort(loaded),
        rated=match.rated,
        rating_changes=[
            schemas.RatingChangeView(
                seat=c.seat,
                name=c.name,
                before=c.before,
                after=c.after,
                rd=c.rd,
                provisional=c.provisional,
            )
            for c in loaded.rating_changes
        ],
        rematch=loaded.rematch_id,
        text=loaded.text,
    )


def can_abort(loaded: Loaded) -> bool:
    """An online match in play that not both players have moved in yet, or at any ply one
    whose seat is held by a player the operator disabled: that player can move no more, so
    the other may end it with no result (on a clock they may also wait to win on time;
    with none, the match would wait for ever)."""
    return (
        loaded.match.mode == "online"
        and not loaded.over
        and (
            not {0, 1} <= set(loaded.record.actors)
            or any(_disabled(loaded, seat) for seat in loaded.players)
        )
    )


def _can_undo(loaded: Loaded, seats: Viewer) -> bool:
    match = loaded.match
    return (
        match.mode == "ai"
        and loaded.ending is None
        and match.human_seat in seats
        and undo_target(path(loaded.state), match.human_seat) is not None
    )


def _returns(result: str) -> list[int]:
    return {"1-0": [1, -1], "0-1": [-1, 1]}.get(result, [0, 0])


def frame(state: State, action: str | None, by: int | None) -> schemas.Frame:
    """``state`` as a spectator sees it, reached by ``action`` of player ``by``."""
    return schemas.Frame(
        ply=len(state.history),
        action=action,
        by=by,
        current_player=state.current_player,
        status="finished" if state.is_terminal() else "playing",
        result=state.result(),
        returns=list(state.returns()),
        observation=state.observation(None),
        text=state.render(),
    )


def record(loaded: Loaded) -> schemas.Record:
    """The engine's record; the seed only once the match is over (it foretells chance); the
    seats' players' names when any seat has a player."""
    seed = loaded.match.seed if loaded.over else None
    entries = make_record(loaded.state, seed=seed)
    if loaded.players:
        held = loaded.players
        seats = range(loaded.match.game.num_players)
        entries["names"] = [held[s].name if s in held else None for s in seats]
    if loaded.ending is not None:
        entries["ending"] = {"reason": loaded.ending, "result": loaded.result}
        if loaded.ending_detail:
            entries["ending"]["detail"] = loaded.ending_detail
    if loaded.clock is not None:
        entries["clock"] = clocks.record_entry(loaded.clock)
    return schemas.Record.model_validate(entries)


def replay(loaded: Loaded) -> schemas.Replay:
    """Spectator snapshots of a finished match: the start, then after every action."""
    final = loaded.state
    if not loaded.over:
        raise unavailable("a match can be replayed once it is finished")
    state = final.game.new_initial_state()
    frames = [frame(state, None, None)]
    for action in final.history:
        text, by = state.action_to_string(action), state.current_player
        state = state.apply(action)
        frames.append(frame(state, text, by))
    return schemas.Replay(frames=frames, ending=loaded.ending, result=loaded.result)


def position(loaded: Loaded, ply: int) -> schemas.Frame:
    """The position after ``ply`` actions, as a spectator saw it then (to look back during
    play: nothing in it was hidden from spectators at the time)."""
    steps = path(loaded.state)
    if not 0 <= ply < len(steps):
        raise ApiError(422, "bad_request", f"ply must be 0..{len(steps) - 1} in this match: {ply}")
    state = steps[ply]
    if ply == 0:
        return frame(state, None, None)
    before = steps[ply - 1]
    return frame(state, before.action_to_string(state.history[-1]), before.current_player)


def hint(solutions: Solutions, loaded: Loaded, token: str | None) -> schemas.Hint:
    """The best action for the seat to move, by the strongest level the game has:
    ``perfect`` where the solution is ready, else ``hard``."""
    viewer(loaded, token, required=True)
    _require_assist(loaded.match)
    state = _to_move(loaded, token)
    game = state.game
    level = solutions.levels(game)[-1]  # weakest first
    rng = random.Random(f"{loaded.match.seed}:{len(state.history)}:hint")
    action = solutions.agent(game, level, rng).choose(state)
    return schemas.Hint(action=state.action_to_string(action), level=level)


def analysis(solutions: Solutions, loaded: Loaded, token: str | None) -> schemas.Analysis:
    """Every legal action with its perfect-play value for the player to move."""
    viewer(loaded, token, required=True)
    _require_assist(loaded.match)
    state = loaded.state
    game = state.game
    if not solutions.ready(game):
        raise unavailable(
            f"no analysis for {game.title} with these options: it is not solved, or its "
            "solution is not cached (flipgames solve)"
        )
    if loaded.over:
        raise game_over(loaded)
    solution = solutions.get(game)
    chance = game.has_chance
    # Deterministic games: win, draw or loss in words; chance games: the expected return
    # (-1..1) for the player to move.
    return schemas.Analysis(
        actions=[
            schemas.ActionValue(
                action=state.action_to_string(action),
                value=float(value) if chance or value.outcome is None else value.outcome,
                remoteness=value.remoteness,
            )
            for action, value in sorted(solution.action_values(state).items())
        ]
    )


def _to_move(loaded: Loaded, token: str | None) -> State:
    seats = viewer(loaded, token, required=True)
    if loaded.over:
        raise game_over(loaded)
    if loaded.state.current_player not in seats:
        raise ApiError(409, "not_your_turn", "it is not your turn")
    return loaded.state


def _require_assist(match: Match) -> None:
    if not match.assist:
        raise unavailable(
            "hints and analysis are off in this match (its creator chose so for both players)"
        )
