"""What Flip Switch shows a player or spectator: the board view of the observation, an
action described as data, and the lines that scored, read back from the history.

Everything here reads the state's public properties (:mod:`.rules` alone touches its fields).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from flipgames.core.game import JSON
from flipgames.games.flip_switch.notation import DRAWN, FACE_DOWN, NO_SWITCH, UNCLAIMED
from flipgames.games.flip_switch.render import render_state

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.games.flip_switch.board import Line
    from flipgames.games.flip_switch.rules import FlipSwitchState


def board_view(state: FlipSwitchState, player: int | None) -> JSON:
    """The ``board`` of :meth:`FlipSwitchState.board_view` (documented there)."""
    game = state.game
    layout = game.layout
    size = layout.size
    shapes = layout.shapes
    owners = state.owners
    names: list[str | None] = [None if t == FACE_DOWN else shapes[t] for t in state.tiles]
    credited = [[shapes[k] for k, o in enumerate(owners) if o == p] for p in (0, 1)]
    wins = state.round_wins()
    view: JSON = {
        "size": size,
        "grid": [names[r * size : (r + 1) * size] for r in range(size)],
        "shapes": list(shapes),
        "unrevealed": dict(zip(shapes, state.unrevealed(), strict=True)),
        "nullified": {shapes[k]: o for k, o in enumerate(owners) if o != UNCLAIMED},
        "credited": credited,
        "target": game.target,
        "flipping": None,
        "banned_switch": None,
        "round": state.round_number(),
        "rounds": game.rounds,
        "round_results": [None if r == DRAWN else r for r in state.results],
        "round_wins": list(wins),
        "last_round": state.reason or None,
        "scoring": scoring_lines(state),
        "rounds_played": rounds_played(state),
    }
    if state.pending >= 0:
        view["flipping"] = {"square": layout.squares[state.pending], "player": state.mover}
    if state.last != NO_SWITCH and state.current_player >= 0:
        view["banned_switch"] = layout.to_string(layout.switch_base + state.last)
    if player is not None:
        for label, who in (("mine", player), ("theirs", 1 - player)):
            view[label] = {"player": who, "shapes": credited[who], "round_wins": wins[who]}
    return view


def action_details(state: FlipSwitchState, action: int) -> JSON:
    """``kind`` and its fields for a legal ``action`` (see
    :meth:`FlipSwitchState._action_details`)."""
    layout = state.game.layout
    details: JSON
    if action >= layout.outcome_base:
        details = {
            "kind": "reveal",
            "square": layout.squares[state.pending],
            "shape": layout.shapes[action - layout.outcome_base],
        }
    elif action < layout.switch_base:
        details = {"kind": "flip", "square": layout.squares[action]}
    elif action == layout.pass_id:
        details = {"kind": "pass"}
    else:
        low, high = layout.pairs[action - layout.switch_base]
        details = {"kind": "switch", "from": layout.squares[low], "to": layout.squares[high]}
    return {**details, "round": state.round_number()}


def _all_lines(state: FlipSwitchState) -> list[Line]:
    return sorted({line for per_square in state.game.lines for line in per_square})


def scoring_lines(state: FlipSwitchState) -> list[JSON]:
    """The lines that credited a shape this round (the last round, once it is over), in
    the order they scored: ``{"player", "shape", "squares"}``. Read back from the history,
    so a line later broken up by a switch is still the one that scored.

    >>> from flipgames import make
    >>> state = make("flip-switch").state_from_actions(
    ...     ["a1", "heart", "b1", "star", "b2", "heart", "c2", "star", "c3", "heart"]
    ... )
    >>> state.observation(None)["board"]["scoring"]
    [{'player': 0, 'shape': 'heart', 'squares': ['a1', 'b2', 'c3']}]
    """
    layout = state.game.layout
    lines = _all_lines(state)
    found: list[JSON] = []
    node = state
    # Owners only grow within a round; a round's first state has none.
    while node.parent is not None and node.owners.count(UNCLAIMED) < len(node.owners):
        parent = cast("FlipSwitchState", node.parent)
        tiles, owners, before = node.tiles, node.owners, parent.owners
        if owners == before:  # most actions credit nothing: skip the line scan
            node = parent
            continue
        for shape, owner in enumerate(owners):
            if owner == UNCLAIMED or before[shape] != UNCLAIMED:
                continue
            for line in lines:
                if all(tiles[square] == shape for square in line):
                    squares = [layout.squares[square] for square in line]
                    found.append(
                        {"player": owner, "shape": layout.shapes[shape], "squares": squares}
                    )
        node = parent
    found.reverse()
    return found


def turn_tiles(state: FlipSwitchState, action: int) -> tuple[int, ...]:
    """The tiles right after ``action`` in ``state`` (a reveal, a switch or a pass), before a
    round it ends gives way to the next round's face-down grid."""
    layout = state.game.layout
    tiles = list(state.tiles)
    if state.pending >= 0:
        tiles[state.pending] = action - layout.outcome_base
    elif layout.switch_base <= action < layout.pass_id:
        i, j = layout.pairs[action - layout.switch_base]
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tuple(tiles)


def rounds_played(state: FlipSwitchState) -> list[JSON]:
    """Each finished round: its number, ``winner`` (None for a draw), ``how`` it ended in
    words (``last_round`` after its "round 1: player 1"), its ``grid`` when it ended (rows
    as in ``grid``) and the ``scoring`` lines of the shapes credited in it (as
    :func:`scoring_lines`), each ``standing`` if its tiles still show its shape on that
    grid (a later switch can break up a line that scored).

    >>> from flipgames import make
    >>> game = make("flip-switch", rounds=2)
    >>> moves = "c1 heart b2 square a2 star c2 heart c3 heart b1 square b3 square"
    >>> [first] = game.state_from_actions(moves.split()).observation(None)["board"][
    ...     "rounds_played"
    ... ]
    >>> first["winner"], first["how"]
    (0, 'won with heart and square')
    >>> [(line["shape"], line["squares"], line["standing"]) for line in first["scoring"]]
    [('heart', ['c1', 'c2', 'c3'], True), ('square', ['b1', 'b2', 'b3'], True)]
    """
    lines = _all_lines(state)
    rounds: list[JSON] = []
    scored: list[JSON] = []  # the lines of the round being walked back through, latest first
    node = state
    while node.parent is not None:
        parent = cast("FlipSwitchState", node.parent)
        owners, before = node.owners, parent.owners
        if len(node.results) > len(parent.results):
            # The round's last action: its credits are on no state (the next round starts
            # clean), so they are read off the tiles it left, for the player who acted.
            tiles = turn_tiles(parent, cast(int, node.action))
            owners = tuple(
                parent.mover
                if owner == UNCLAIMED and any(all(tiles[s] == k for s in line) for line in lines)
                else owner
                for k, owner in enumerate(before)
            )
            scored = []
            rounds.append(_round_summary(node, tiles, scored))
            scored += _credited_lines(state, lines, tiles, owners, before)
        elif owners != before:  # most actions credit nothing: no line to look for
            scored += _credited_lines(state, lines, node.tiles, owners, before)
        node = parent
    for summary in rounds:
        summary["scoring"] = _standing(summary, state.game.layout.size)
    rounds.reverse()
    return rounds


def _credited_lines(
    state: FlipSwitchState,
    lines: list[Line],
    tiles: tuple[int, ...],
    owners: tuple[int, ...],
    before: tuple[int, ...],
) -> list[JSON]:
    """The lines of the shapes credited by one action (``before`` it, ``owners`` after)."""
    layout = state.game.layout
    found: list[JSON] = []
    for shape, owner in enumerate(owners):
        if owner == UNCLAIMED or before[shape] != UNCLAIMED:
            continue
        for line in lines:
            if all(tiles[square] == shape for square in line):
                squares = [layout.squares[square] for square in line]
                entry = {"player": owner, "shape": layout.shapes[shape], "squares": squares}
                found.append({**entry, "line": line})
    return found


def _round_summary(node: FlipSwitchState, final: tuple[int, ...], scored: list[JSON]) -> JSON:
    """A finished round, from the state its last action led to and the tiles it left;
    ``scored`` is filled in as the walk goes back through the round."""
    game = node.game
    shapes = game.layout.shapes
    size = game.layout.size
    winner = node.results[-1]
    number = len(node.results)
    who = "" if winner == DRAWN else f": {game.player_names[winner]}"
    return {
        "round": number,
        "winner": None if winner == DRAWN else winner,
        # As the rules word it, after the round and the winner.
        "how": node.reason.removeprefix(f"round {number}{who} "),
        "grid": [
            [None if t == FACE_DOWN else shapes[t] for t in row]
            for row in (final[r * size : (r + 1) * size] for r in range(size))
        ],
        "scoring": scored,
    }


def _standing(summary: JSON, size: int) -> list[JSON]:
    """A round's scoring lines in the order they scored, each saying whether it still stands
    on the round's final grid."""
    grid = summary["grid"]
    return [
        {
            "player": line["player"],
            "shape": line["shape"],
            "squares": line["squares"],
            "standing": all(grid[s // size][s % size] == line["shape"] for s in line["line"]),
        }
        for line in reversed(summary["scoring"])
    ]


def why_illegal(state: FlipSwitchState, action: int) -> str:
    """Why the well-formed ``action`` is not legal in ``state``, in words."""
    layout = state.game.layout
    if state.is_terminal():
        return "the match is over"
    if state.pending >= 0:
        if action < layout.outcome_base:
            return (
                f"the flip of {layout.squares[state.pending]} is being revealed: name the "
                "shape it shows"
            )
        shape = layout.shapes[action - layout.outcome_base]
        return f"no face-down {shape} is left"
    if action >= layout.outcome_base:
        return "no flip is being revealed, so no shape can be named"
    if action < layout.switch_base:
        return f"{layout.squares[action]} is already face up"
    if action == layout.pass_id:
        if not state.game.passing:
            return "passing needs the option no_move=pass"
        return "a player may pass only when no other action is legal"
    pair = action - layout.switch_base
    i, j = layout.pairs[pair]
    a, b = state.tiles[i], state.tiles[j]
    if a == FACE_DOWN or b == FACE_DOWN:
        return f"{layout.squares[i if a == FACE_DOWN else j]} is face down"
    if a == b:
        return f"both tiles are {layout.shapes[a]}s"
    if pair == state.last:
        return "the opponent made this exact switch in the immediately preceding turn"
    return f"{layout.shapes[a]} and {layout.shapes[b]} are both nullified"


def render_text(state: FlipSwitchState) -> str:
    """The text picture of :meth:`FlipSwitchState.render`."""
    game = state.game
    layout = game.layout
    return render_state(
        title=f"{game.title} · round {state.round_number()} of {game.rounds} · "
        f"{state.status_text()}",
        size=layout.size,
        tiles=state.tiles,
        owners=state.owners,
        shapes=layout.shapes,
        pending=state.pending,
        unrevealed=state.unrevealed(),
        player_names=game.player_names,
        target=game.target,
        banned=(
            layout.to_string(layout.switch_base + state.last)
            if state.last != NO_SWITCH and not state.is_terminal()
            else None
        ),
        round_wins=state.round_wins(),
        last_round=state.reason,
    )


def tensor(state: FlipSwitchState, player: int) -> npt.NDArray[np.float32]:
    """The observation tensor seen by ``player`` (:mod:`.tensor` documents its planes)."""
    # numpy loads on first use, not with the rules.
    from flipgames.games.flip_switch import tensor as planes

    game = state.game
    banned = () if state.last == NO_SWITCH else game.layout.pairs[state.last]
    return planes.encode(
        game.layout.size,
        state.tiles,
        state.owners,
        state.pending,
        banned,
        state.round_wins(),
        game.rounds,
        state.current_player,
        player,
    )
