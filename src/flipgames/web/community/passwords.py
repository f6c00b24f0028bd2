"""Passwords: Argon2id hashes (argon2-cffi, its default parameters: RFC 9106's second
recommended profile, 64 MiB and 3 passes) and the password rule.

Only the hash is stored, as a PHC string (``$argon2id$v=19$m=65536,t=3,p=4$...``): it names
its own parameters, so a hash made with older ones still verifies and :func:`needs_rehash`
says when to replace it (the next successful sign-in does).

>>> stored = hash_password("correct horse")
>>> stored.startswith("$argon2id$"), verify_password(stored, "correct horse")
(True, True)
>>> verify_password(stored, "wrong horse")
False
>>> check_password("short")
Traceback (most recent call last):
...
flipgames.web.errors.ApiError: a password has 8 to 200 characters; this one has 5
"""

from __future__ import annotations

from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from flipgames.web.errors import ApiError

MIN_LENGTH = 8
MAX_LENGTH = 200

_HASHER = PasswordHasher()


def check_password(text: str) -> str:
    """``text`` when it may be a password, else ``ApiError(422, "bad_password")``."""
    if not MIN_LENGTH <= len(text) <= MAX_LENGTH:
        raise ApiError(
            422,
            "bad_password",
            f"a password has {MIN_LENGTH} to {MAX_LENGTH} characters; this one has {len(text)}",
        )
    return text


def hash_password(password: str) -> str:
    """A new Argon2id hash of ``password`` (with a random salt)."""
    return _HASHER.hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` is a hash of."""
    try:
        return _HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    """Whether ``stored`` was made with other parameters than the ones used now."""
    return _HASHER.check_needs_rehash(stored)


@cache
def dummy_hash() -> str:
    """A hash no password is known for: signing in with a name that has no account verifies
    against it, so the answer takes as long as for a wrong password and timing does not tell
    which names have accounts."""
    return hash_password("no account has this password: it only takes time to verify")
