"""Request and response bodies of the players' API (see routes/players.py). As everywhere in
the API, requests are strict: unknown fields and non-strings are refused with
``bad_request``; the name and password rules (:mod:`.names`, :mod:`.passwords`) say what is
wrong with a string that is too short, too long or made of the wrong characters."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictStr

# Longer than any rule allows, so the rules (not the schema) say what is wrong; short enough
# that nobody makes the server hash megabytes.
_MAX_NAME = 100
_MAX_PASSWORD = 1000


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GuestRequest(_Request):
    name: StrictStr = Field(max_length=_MAX_NAME, description="3-20 of A-Z a-z 0-9 _ -")


class Credentials(_Request):
    name: StrictStr = Field(max_length=_MAX_NAME, description="3-20 of A-Z a-z 0-9 _ -")
    password: StrictStr = Field(max_length=_MAX_PASSWORD, description="8-200 characters")


class PasswordChange(_Request):
    password: StrictStr = Field(max_length=_MAX_PASSWORD, description="the password now")
    new_password: StrictStr = Field(max_length=_MAX_PASSWORD, description="8-200 characters")


class PasswordRequest(_Request):
    password: StrictStr = Field(max_length=_MAX_PASSWORD)


class SignedIn(BaseModel):
    name: str
    token: str = Field(
        description="the session id, also set as the flipgames_session cookie: API clients "
        "send it as Authorization: Bearer TOKEN"
    )


class Me(BaseModel):
    name: str
    account: bool = Field(description="an account (false: a guest)")
