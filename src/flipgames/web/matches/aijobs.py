"""The computer's moves, as jobs: what it must decide now (:meth:`AiJobs.ai_job`, worked out
by a worker process, see web/aimoves.py), a claim so that of several server processes one
works it out, and the answer committed only if the match is still where the job found it.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError

from flipgames.web import engines
from flipgames.web.aipool import AiJob
from flipgames.web.db import matches
from flipgames.web.matches.data import Loaded, StaleRevision, capped, computer_to_move
from flipgames.web.matches.live import bump
from flipgames.web.matches.play import Playing


class AiJobs(Playing):
    """The computer's move: the job, its claim, its commit or its forfeit."""

    def ai_job(self, loaded: Loaded) -> AiJob | None:
        """What the computer must decide in ``loaded``, or None when it is not to move."""
        match = loaded.match
        if not computer_to_move(loaded) or match.level is None:
            return None
        engine = self.engines.get(engines.engine_name(match.level) or "")
        return AiJob(
            game=match.game.name,
            options=dict(match.game.options),
            actions=tuple(loaded.state.history_notation()),
            level=match.level,
            seed=match.seed,
            engine=None if engine is None else engine.command,
            engine_seconds=self.engine_seconds,
        )

    def forfeit(self, match_id: str, job: AiJob, detail: str) -> Loaded | None:
        """The computer (an outside engine, or a built-in level that failed twice) could not
        make the move ``job`` asked for: the match ends, won by the human, with ``detail``
        saying why, cut to :data:`~flipgames.web.matches.data.MAX_DETAIL` characters (None
        when the match has moved on)."""
        with self._lock(match_id):
            loaded = self._read(match_id)
            if self.ai_job(loaded) != job:
                return None
            human = loaded.match.human_seat
            values: dict[str, Any] = {
                "ending": "forfeit",
                "ending_result": "1-0" if human == 0 else "0-1",
                "ending_detail": capped(detail),
                "draw_offer": None,
            }
            try:
                self._tx.run(functools.partial(bump, loaded=loaded, origin=self.origin, **values))
            except StaleRevision:
                return None
            after = replace(
                loaded,
                revision=loaded.revision + 1,
                ending="forfeit",
                ending_result=values["ending_result"],
                ending_detail=values["ending_detail"],
            )
            self.live.put(match_id, after)
            return after

    def claim_ai(self, loaded: Loaded, *, seconds: float = 120.0) -> bool:
        """Claim the computer's move in ``loaded`` for this process, so that with several
        server processes on one database it is worked out once. A claim lasts ``seconds``
        (a process that died frees it then) or until the match changes."""
        now = datetime.now(UTC)
        claimed = self._tx.run(
            lambda connection: (
                connection.execute(
                    update(matches)
                    .where(
                        matches.c.id == loaded.match.id,
                        matches.c.revision == loaded.revision,
                        or_(
                            matches.c.ai_claim_revision.is_(None),
                            matches.c.ai_claim_revision != loaded.revision,
                            matches.c.ai_claim_until < now,
                        ),
                    )
                    .values(
                        ai_claim_revision=loaded.revision,
                        ai_claim_until=now + timedelta(seconds=seconds),
                    )
                ).rowcount
            )
        )
        return bool(claimed == 1)

    def release_ai(self, loaded: Loaded) -> None:
        """Give up a claim (the move was cancelled): another process may take it at once."""
        self._tx.run(
            lambda connection: connection.execute(
                update(matches)
                .where(
                    matches.c.id == loaded.match.id,
                    matches.c.ai_claim_revision == loaded.revision,
                )
                .values(ai_claim_revision=None, ai_claim_until=None)
            )
        )

    def commit_ai(self, match_id: str, job: AiJob, move: str) -> Loaded | None:
        """Commit the computer's ``move`` for ``job`` (and the chance outcomes after it), or
        None when the match has moved on meanwhile (an undo): the move is no longer wanted."""
        with self._lock(match_id):
            loaded = self._read(match_id)
            if self.ai_job(loaded) != job:
                return None
            action = loaded.state.parse_action(move)  # a worker's answer is checked like any
            try:
                loaded = self._commit(loaded, action)
            except (IntegrityError, StaleRevision):
                return None  # another process committed it first
            return self._chance(loaded)
