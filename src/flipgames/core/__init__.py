"""The game protocol: knows no game; every game and algorithm builds on it."""

from flipgames.core.ending import Termination
from flipgames.core.errors import (
    FlipgamesError,
    IllegalActionError,
    NotationError,
    OptionError,
    PositionError,
    RecordError,
    UnknownGameError,
)
from flipgames.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    State,
    random_action,
    repetition_count,
    sample_chance,
)
from flipgames.core.options import Option, parse_option_pairs
from flipgames.core.record import (
    dumps_record,
    make_record,
    replay_record,
    state_from_json,
    state_to_json,
)
from flipgames.core.registry import game_class, game_names, make

__all__ = [
    "CHANCE",
    "TERMINAL",
    "FlipgamesError",
    "Game",
    "IllegalActionError",
    "NotationError",
    "Option",
    "OptionError",
    "PositionError",
    "RecordError",
    "State",
    "Termination",
    "UnknownGameError",
    "dumps_record",
    "game_class",
    "game_names",
    "make",
    "make_record",
    "parse_option_pairs",
    "random_action",
    "repetition_count",
    "replay_record",
    "sample_chance",
    "state_from_json",
    "state_to_json",
]
