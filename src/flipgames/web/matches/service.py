"""The match service: one object the routes, the AI's move tasks and the flag timers call,
made of one class per concern (see the package's docstring for the map).

>>> from flipgames.web.ai import Solutions
>>> from flipgames.web.db import make_engine, migrate
>>> engine = make_engine("sqlite://")
>>> _ = migrate(engine)
>>> service = MatchService(engine, Solutions())
>>> created = service.create(
...     "flipflop-3x3", {}, mode="ai", level="easy", seat=0, seed=1, assist=None
... )
>>> view = service.act(created.match_id, created.token, "b1xb3", ply=0)
>>> view.history, view.current_player, view.thinking
(['b1xb3'], 1, True)
>>> job = service.ai_job(service.load(created.match_id))
>>> job.actions, job.level
(('b1xb3',), 'easy')
>>> after = service.commit_ai(created.match_id, job, "a3xb3")
>>> after is not None and after.state.history_notation()
['b1xb3', 'a3xb3']
"""

from __future__ import annotations

from flipgames.web import schemas
from flipgames.web.matches import views
from flipgames.web.matches.aijobs import AiJobs
from flipgames.web.matches.create import Creation
from flipgames.web.matches.online import Online
from flipgames.web.matches.seating import Seating


class MatchService(Creation, Online, AiJobs, Seating):
    """Create, load, act, undo, resign, draw, take back, abort, rematch, hint, analyse and
    read matches stored in the database.

    Actions on one match are serialised by an in-process lock, and across processes by the
    match's revision: a write names the revision it read and fails if it has moved on (and the
    (match, ply) primary key refuses a second writer for the same ply), so a match never forks.
    """

    view = staticmethod(views.view)
    viewer = staticmethod(views.viewer)

    def hint(self, match_id: str, token: str | None) -> schemas.Hint:
        """The best action for the seat to move (see :func:`views.hint`)."""
        return views.hint(self.solutions, self.load(match_id), token)

    def analysis(self, match_id: str, token: str | None) -> schemas.Analysis:
        """Every legal action with its perfect-play value for the player to move."""
        return views.analysis(self.solutions, self.load(match_id), token)

    def record(self, match_id: str) -> schemas.Record:
        """The engine's record, with the seats' players' names; the seed only once the match
        is over (it foretells chance)."""
        return views.record(self.load(match_id))

    def replay(self, match_id: str) -> schemas.Replay:
        """Spectator snapshots of a finished match: the start, then after every action."""
        return views.replay(self.load(match_id))

    def position(self, match_id: str, ply: int) -> schemas.Frame:
        """The position after ``ply`` actions, as a spectator saw it then."""
        return views.position(self.load(match_id), ply)
