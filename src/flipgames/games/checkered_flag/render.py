"""The Unicode text picture of a Checkered Flag position.

The loop is drawn row by row, 12 spaces a row, in the direction of play. Each space shows its
number, its kind (``#`` start/finish, ``X`` crash, ``=`` no passing) and the cars on it
(``▲`` player 1, ``●`` player 2: people count from one). Below come both gear boxes with the
marker in brackets, the spinners, and a status line.

>>> from flipgames import make
>>> print(make("checkered-flag", start="first", track="short").new_initial_state().render())
Flipsiders: Checkered Flag · track 'short', 16 spaces · 1 lap, goal 16
<BLANKLINE>
  space    0   1   2   3   4   5   6   7   8   9  10  11
   kind    #   ·   ·   ·   =   =   X   X   ·   ·   ·   X
   cars   ▲●
<BLANKLINE>
  space   12  13  14  15
   kind   X=   ·   ·   ·
   cars
<BLANKLINE>
  # start/finish  X crash  = no passing; play runs left to right, row by row
  ▲ player 1   C3  C2 [N]  1   2   3   driven 0/16, lap 1/1, space 0
  ● player 2   C3  C2 [N]  1   2   3   driven 0/16, lap 1/1, space 0
  Spinner A: 1 2 3 · Spinner B: 1 2 3 4 5 6
<BLANKLINE>
» Player 1 to choose a gear (in neutral): 1
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from flipgames.games.checkered_flag.rules import CheckeredFlagState

#: Car markers of player 0 and player 1.
CARS: Final = ("▲", "●")
_PER_ROW: Final = 12
_CIRCLES: Final = ("C3", "C2", "N", "1", "2", "3")


def _kind(space: int, start: int, crash: set[int], no_passing: set[int]) -> str:
    mark = ("#" if space == start else "") + ("X" if space in crash else "")
    mark += "=" if space in no_passing else ""
    return mark or "·"


def _gear_box(gear: str) -> str:
    return "".join((f"[{c}]" if c == gear else f" {c} ").ljust(4) for c in _CIRCLES)


def render_state(state: CheckeredFlagState) -> str:
    """Draw the track, the cars, both gear boxes and a status line."""
    game = state.game
    track = game.track
    laps = int(game.options["laps"])
    crash, no_passing = set(track.crash), set(track.no_passing)
    cars: dict[int, str] = {}
    for player, distance in enumerate(state.distances):
        space = track.space(distance)
        cars[space] = cars.get(space, "") + CARS[player]
    lines = [
        f"{game.title} · track {track.name!r}, {track.length} spaces · "
        f"{laps} lap{'s' if laps > 1 else ''}, goal {game.goal}",
        "",
    ]
    for first in range(0, track.length, _PER_ROW):
        spaces = range(first, min(first + _PER_ROW, track.length))
        lines.append("  space " + "".join(f"{s:>4}" for s in spaces))
        kinds = (_kind(s, track.start, crash, no_passing) for s in spaces)
        lines.append("   kind " + "".join(f"{k:>4}" for k in kinds))
        lines.append(("   cars " + "".join(f"{cars.get(s, ''):>4}" for s in spaces)).rstrip())
        lines.append("")
    lines.append("  # start/finish  X crash  = no passing; play runs left to right, row by row")
    for player, (distance, gear) in enumerate(zip(state.distances, state.gears, strict=True)):
        lap = min(distance // track.length + 1, laps)
        lines.append(
            f"  {CARS[player]} {game.player_names[player]}  {_gear_box(gear)} driven "
            f"{distance}/{game.goal}, lap {lap}/{laps}, "
            f"space {track.space(distance)}"
        )
    faces_a = " ".join(str(face) for face, _ in game.spinners.a)
    faces_b = " ".join(str(face) for face, _ in game.spinners.b)
    lines += [f"  Spinner A: {faces_a} · Spinner B: {faces_b}", "", f"» {state.status_text()}"]
    return "\n".join(lines)
