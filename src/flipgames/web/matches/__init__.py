"""Live matches: every rule of the arcade that is not HTTP, a file per concern (as lichess's
``modules/round``):

- ``data``: the data types (``Match``, ``Played``, ``Loaded``, ``CreatedMatch``), token
  hashes, whose move it is, what undo may take back;
- ``live``: ``LiveMatches`` (the bounded cache of live states) and ``LiveStore``, a match
  read as the database has it (live state, catch-up or replay) and the revision bump every
  write makes;
- ``play``: ``Playing``, the match as committed now, an action checked and committed, the
  chance outcomes after it, a loss on time;
- ``create``: ``Creation``, games made from web input and new matches;
- ``social``: ``Social``, undo, resignation, draws and rematches;
- ``seating``: ``Seating``, seats taken by the signed-in players who use their tokens;
- ``aijobs``: ``AiJobs``, the computer's move as a job, its claim, commit and forfeit;
- ``views``: the read-only JSON views (a viewer's view, positions, record, replay, hint,
  analysis);
- ``service``: ``MatchService``, the one object callers use.

A request is served from the match's live state (checked against the database's revision),
and the accepted action committed before the answer (the routes broadcast after the service
returns). Chance outcomes that follow an action are drawn and committed at once, each on its
own, so nothing is ever decided before the game reaches it. The AI's moves are not made here:
``ai_job`` says what the computer must decide, a worker process decides it
(:mod:`flipgames.web.aimoves`), and ``commit_ai`` commits the answer if the match is still
where it was.
"""

from flipgames.web.matches.data import (
    SPECTATOR,
    CreatedMatch,
    Loaded,
    Match,
    Played,
    SeatPlayer,
    StaleRevision,
    Viewer,
    computer_to_move,
)
from flipgames.web.matches.live import CHANNEL, LiveMatches
from flipgames.web.matches.service import MatchService

__all__ = [
    "CHANNEL",
    "SPECTATOR",
    "CreatedMatch",
    "LiveMatches",
    "Loaded",
    "Match",
    "MatchService",
    "Played",
    "SeatPlayer",
    "StaleRevision",
    "Viewer",
    "computer_to_move",
]
