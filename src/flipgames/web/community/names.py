"""Display names: 3 to 20 letters, digits, ``_`` or ``-``; unique ignoring case (the
database's ``players.name_key``); words that would pass a player off as the arcade or one of
its computer opponents are refused, as are names made to look like them.

>>> check_name("Ada_Lovelace")
'Ada_Lovelace'
>>> check_name("ad")
Traceback (most recent call last):
...
flipgames.web.errors.ApiError: a name has 3 to 20 characters; this one has 2
>>> check_name("Adm1n")
Traceback (most recent call last):
...
flipgames.web.errors.ApiError: the name 'Adm1n' is reserved: it looks like 'admin'
>>> check_name("toy", engines=["toy"])  # an outside engine the server offers
Traceback (most recent call last):
...
flipgames.web.errors.ApiError: the name 'toy' is reserved: it looks like 'toy'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from flipgames.agents.levels import LEVELS
from flipgames.web.errors import ApiError

MIN_LENGTH = 3
MAX_LENGTH = 20
_BAD = re.compile(r"[^A-Za-z0-9_-]")

#: Words no player may be called, because the arcade uses them for itself or its staff. A
#: name that merely contains one of these (``the-admin``, ``Computer2``) is refused too.
RESERVED = (
    "computer",
    "admin",
    "guest",
    "deleted",
    "anonymous",
    "moderator",
    "system",
    "flipgames",
)

# Characters read alike: a digit for the letter it resembles, ``i`` and ``l`` as one letter.
_LOOKALIKE = str.maketrans("0134578i", "oleastbl")


def skeleton(text: str) -> str:
    """What a name looks like, for comparing names that are meant to be confused: lower
    case, separators dropped, trailing digits dropped, lookalike characters folded.

    >>> skeleton("Adm1n_2"), skeleton("admin")
    ('admln', 'admln')
    """
    folded = text.lower().replace("_", "").replace("-", "")
    return folded.rstrip("0123456789").translate(_LOOKALIKE)


def name_key(name: str) -> str:
    """The form names are unique in: ``Ada`` and ``ada`` are one name."""
    return name.lower()


def check_name(text: str, *, engines: Iterable[str] = ()) -> str:
    """``text`` when it may be a player's name, else ``ApiError(422, "bad_name")`` saying
    what is wrong. ``engines`` are the outside engines the server offers (their names, like
    the computer's levels, are reserved)."""
    bad = _BAD.search(text)
    if bad is not None:
        shown = repr(bad.group(0))
        raise _bad(f"a name may hold only letters A-Z, digits, '_' and '-', not {shown}")
    if not MIN_LENGTH <= len(text) <= MAX_LENGTH:
        raise _bad(f"a name has {MIN_LENGTH} to {MAX_LENGTH} characters; this one has {len(text)}")
    looks = skeleton(text)
    for word in RESERVED:
        if skeleton(word) in looks:
            raise _bad(f"the name {text!r} is reserved: it looks like {word!r}")
    for word in (*LEVELS, *engines):
        if skeleton(word) == looks:
            raise _bad(f"the name {text!r} is reserved: it looks like {word!r}")
    return text


def _bad(message: str) -> ApiError:
    return ApiError(422, "bad_name", message)
