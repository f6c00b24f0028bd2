"""Rule options: defaults, conversion, and errors that say what is allowed."""

from __future__ import annotations

import pytest

from flipgames import OptionError, make, parse_option_pairs
from flipgames.core.options import Option, resolve_options

SPEC = (
    Option("lines", "all", choices=("all", "edges")),
    Option("rounds", 1, minimum=1, maximum=9),
)


def test_defaults_fill_every_option():
    assert resolve_options(SPEC, None) == {"lines": "all", "rounds": 1}


def test_strings_from_the_command_line_are_converted():
    assert resolve_options(SPEC, {"rounds": "3", "lines": "edges"}) == {
        "lines": "edges",
        "rounds": 3,
    }


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"colour": "red"}, "unknown option 'colour': this game's options are lines, rounds"),
        ({"lines": "diagonal"}, "bad value 'diagonal' for option 'lines': allowed all | edges"),
        ({"rounds": "three"}, "allowed an integer 1 <= n <= 9"),
        ({"rounds": 0}, "bad value 0 for option 'rounds'"),
        ({"rounds": 10}, "bad value 10"),
        ({"rounds": True}, "bad value True"),
        ({"lines": 3}, "bad value 3 for option 'lines'"),
    ],
)
def test_bad_options_name_the_problem_and_what_is_allowed(given, words):
    with pytest.raises(OptionError) as info:
        resolve_options(SPEC, given)
    assert words in str(info.value)


def test_every_registered_game_rejects_an_unknown_option():
    from flipgames import game_names

    for name in game_names():
        with pytest.raises(OptionError, match="unknown option 'nonsense'"):
            make(name, nonsense="1")


@pytest.mark.parametrize("pair", ["lines", "=edges", "lines=", " = "])
def test_malformed_option_pairs_are_rejected(pair):
    with pytest.raises(OptionError, match="write name=value"):
        parse_option_pairs([pair])
