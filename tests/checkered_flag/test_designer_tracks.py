"""The designer-report tracks (docs/lab/checkered-flag.md): the default loop without its crash
spaces (``default-no-crash``), without its no-passing spaces (``default-no-passing``), and
without both (``default-plain``). Each keeps everything else of the default track, and the
rules play them as written: the same moves that crash or block on ``default`` do not on the
track without that kind of space."""

from __future__ import annotations

import pytest

from flipgames import make
from flipgames.games.checkered_flag.rules import CheckeredFlagState
from flipgames.games.checkered_flag.tracks import bundled_names, load_track

DEFAULT = load_track("default")
#: Player 1 lands on crash space 10 by the exact count in 2nd gear (a crash on ``default``).
CRASH = "1 3 1 1 1 1 1 1 2 6"
#: Player 1 on no-passing space 8; player 2's 6 would pass it (stopped at 7 on ``default``).
BLOCK = "1 3 1 3 2 5 2 6"


def play(moves: str, track: str) -> CheckeredFlagState:
    state = make("checkered-flag", start="first", track=track).state_from_actions(moves.split())
    assert isinstance(state, CheckeredFlagState)
    return state


@pytest.mark.parametrize(
    ("name", "crash", "no_passing"),
    [
        ("default-no-crash", (), DEFAULT.no_passing),
        ("default-no-passing", DEFAULT.crash, ()),
        ("default-plain", (), ()),
    ],
)
def test_each_designer_track_is_the_default_without_one_kind_of_space(
    name: str, crash: tuple[int, ...], no_passing: tuple[int, ...]
) -> None:
    assert name in bundled_names("tracks")
    track = load_track(name)
    assert (track.name, track.length, track.start) == (name, DEFAULT.length, DEFAULT.start)
    assert (track.crash, track.no_passing) == (crash, no_passing)
    assert make("checkered-flag", track=name).track == track


def test_the_default_track_crashes_and_blocks() -> None:
    assert play(CRASH, "default").gears == ("C2", "1")
    assert play(BLOCK, "default").distances == (8, 7)


def test_default_no_crash_never_crashes_but_still_blocks() -> None:
    assert play(CRASH, "default-no-crash").gears == ("2", "1")
    assert play(BLOCK, "default-no-crash").distances == (8, 7)


def test_default_no_passing_never_blocks_but_still_crashes() -> None:
    assert play(CRASH, "default-no-passing").gears == ("C2", "1")
    assert play(BLOCK, "default-no-passing").distances == (8, 9)


def test_default_plain_neither_crashes_nor_blocks() -> None:
    assert play(CRASH, "default-plain").gears == ("2", "1")
    assert play(BLOCK, "default-plain").distances == (8, 9)
