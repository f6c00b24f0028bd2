"""Game reviews in the database: the finished ones (table ``reviews``), and who is making one
now (table ``review_claims``), so that of several server processes asked for the same review
one makes it and the others answer with its progress, then with the stored review.

A claim names the process making the review (its origin) and how far it has got; the maker
brings it up to date as it goes (at most every :data:`PROGRESS_SECONDS`). A claim not brought
up to date for :data:`STALE_SECONDS` is a maker that stopped or died: the next process asked
takes it over. A maker that stops or fails gives its claim up at once, so another process asked
makes the review without waiting (the failed process itself tries again later, web/review.py).

>>> from flipgames.web.db import make_engine, migrate
>>> engine = make_engine("sqlite://")
>>> _ = migrate(engine)
>>> store = ReviewStore(Transactions(engine))
>>> store.claim(("m1", 3), "first", total=10).mine
True
>>> theirs = store.claim(("m1", 3), "second", total=10)
>>> theirs.mine, theirs.review
(False, None)
"""

from __future__ import annotations

import json
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from flipgames.web.db import Transactions, aware, review_claims, reviews

#: A claim whose maker said nothing for this long is taken over by the next process asked.
STALE_SECONDS: Final = 60.0
#: How often at most a maker writes its progress to its claim.
PROGRESS_SECONDS: Final = 1.0

#: A review's key: the match's id and its revision at the end.
Key = tuple[str, int]


@dataclass(frozen=True)
class Claim:
    """What a process asked for a review finds: the stored review, or whether it is to make
    it (``mine``), or how far the process making it has got (``done`` of ``total``)."""

    review: dict[str, Any] | None
    mine: bool
    done: int = 0
    total: int = 0


def _now() -> datetime:
    return datetime.now(UTC)


class ReviewStore:
    """Finished reviews and the claims of the reviews being made (see the module's docstring)."""

    def __init__(self, transactions: Transactions) -> None:
        self._transactions = transactions

    def load(self, key: Key) -> dict[str, Any] | None:
        """The stored review of the match ``key`` names at that revision, or None."""
        return self._transactions.run(lambda c: _stored(c, key), read_only=True)

    def claim(self, key: Key, origin: str, *, total: int) -> Claim:
        """The stored review; else the review to make here (no claim, a stale one, or
        ``origin``'s own), claimed for ``origin``; else the other maker's progress."""
        found = self._transactions.run(lambda c: _read(c, key), read_only=True)
        if found.review is not None or _theirs(found.row, origin):
            return _answer(found)

        def take(connection: Connection) -> Claim:
            found = _read(connection, key)  # again, inside the writing transaction
            if found.review is not None or _theirs(found.row, origin):
                return _answer(found)
            mine = {"origin": origin, "done": 0, "total": total, "heard_at": _now()}
            where = (review_claims.c.match_id == key[0]) & (review_claims.c.revision == key[1])
            if found.row is None:
                connection.execute(
                    insert(review_claims).values(match_id=key[0], revision=key[1], **mine)
                )
            else:
                connection.execute(update(review_claims).where(where).values(**mine))
            return Claim(None, mine=True, total=total)

        try:
            return self._transactions.run(take)
        except IntegrityError:  # another process inserted its claim first: it makes it
            return self.claim(key, origin, total=total)

    def progress(self, key: Key, origin: str, done: int, total: int) -> None:
        """``origin``, making the review, has valued ``done`` positions of ``total``."""
        self._transactions.run(
            lambda c: c.execute(
                update(review_claims)
                .where(*_mine(key, origin))
                .values(done=done, total=total, heard_at=_now())
            )
        )

    def release(self, key: Key, origin: str) -> None:
        """``origin`` stopped making the review: the next process asked makes it."""
        self._transactions.run(
            lambda c: c.execute(delete(review_claims).where(*_mine(key, origin)))
        )

    def save(self, key: Key, review: dict[str, Any]) -> None:
        """Store ``review`` as the match's, replacing those of its earlier revisions, and end
        the claims of its making."""

        def write(connection: Connection) -> None:
            match = reviews.c.match_id == key[0]
            connection.execute(delete(reviews).where(match, reviews.c.revision < key[1]))
            connection.execute(
                delete(review_claims).where(
                    review_claims.c.match_id == key[0], review_claims.c.revision <= key[1]
                )
            )
            connection.execute(
                insert(reviews).values(
                    match_id=key[0],
                    revision=key[1],
                    review=json.dumps(review, separators=(",", ":")),
                    made_at=_now(),
                )
            )

        # Another process may have stored it first: the same positions, valued the same way.
        with suppress(IntegrityError):
            self._transactions.run(write)


@dataclass(frozen=True)
class _Found:
    review: dict[str, Any] | None
    row: Any


def _stored(connection: Connection, key: Key) -> dict[str, Any] | None:
    text = connection.execute(
        select(reviews.c.review).where(reviews.c.match_id == key[0], reviews.c.revision == key[1])
    ).scalar_one_or_none()
    if text is None:
        return None
    review: dict[str, Any] = json.loads(text)
    return review


def _read(connection: Connection, key: Key) -> _Found:
    row = connection.execute(
        select(review_claims).where(
            review_claims.c.match_id == key[0], review_claims.c.revision == key[1]
        )
    ).one_or_none()
    return _Found(_stored(connection, key), row)


def _theirs(row: Any, origin: str) -> bool:
    """A live claim of another process."""
    if row is None or row.origin == origin:
        return False
    return _now() - aware(row.heard_at) < timedelta(seconds=STALE_SECONDS)


def _answer(found: _Found) -> Claim:
    if found.review is not None:
        total = len(found.review["points"])
        return Claim(found.review, mine=False, done=total, total=total)
    return Claim(None, mine=False, done=int(found.row.done), total=int(found.row.total))


def _mine(key: Key, origin: str) -> tuple[Any, ...]:
    return (
        review_claims.c.match_id == key[0],
        review_claims.c.revision == key[1],
        review_claims.c.origin == origin,
    )
