"""A match-like view of one position, for pages that show a position outside a match (the
puzzles, the lessons): what a game's board module draws (``observation``, ``legal_actions``,
``moves``, ...), seen by the player to move, so nothing is shown that player may not see.

>>> from flipgames import make
>>> shown = board_view(make("flipflop-3x3").new_initial_state(), "lesson")
>>> shown["board"], shown["seat"], shown["legal"][:2]
('flipflop', 0, ['a1-a2', 'b1-b2'])
"""

from __future__ import annotations

from typing import Any

from flipgames.core.game import State
from flipgames.core.manifest import manifest_for
from flipgames.web.matches import Played


def board_view(state: State, mode: str, viewer: int | None = None) -> dict[str, Any]:
    """The view of ``state`` for ``viewer`` (by default the player to move; at the end or at
    a chance node, the player who acted last), shown by a page in ``mode``."""
    game = state.game
    played = Played.of(state)
    mover = state.current_player if state.current_player in (0, 1) else None
    seat = viewer if viewer is not None else mover
    if seat is None:
        # The player who acted last (a chance outcome's actor is chance itself).
        seat = next((by for by in reversed(played.actors) if by in (0, 1)), 0)
    players = [name[:1].upper() + name[1:] for name in game.player_names]
    playing = not state.is_terminal()
    return {
        "game": game.name,
        "title": game.title,
        "board": manifest_for(game.name).board,
        "options": dict(game.options),
        "mode": mode,
        "seat": seat,
        "seats": [seat],
        "players": players,
        "ply": len(played.history),
        "current_player": mover,
        "status": "playing" if playing else "finished",
        "result": state.result(),
        "observation": state.observation(seat),
        "legal": [state.action_to_string(a) for a in state.legal_actions()] if playing else [],
        "legal_actions": state.legal_actions_info() if mover is not None else [],
        "history": list(played.history),
        # Structured moves (text, kind, squares, by), as a match's view sends them: the
        # board modules read the last move from them rather than parsing notation.
        "moves": list(played.moves),
        "actors": list(played.actors),
        "last": {"action": played.history[-1], "by": played.actors[-1]} if played.history else None,
    }
