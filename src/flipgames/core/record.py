"""Game records (JSON) and state serialisation.

A record is ``{"format": "flipgames-record", "version": 1, "game", "options", "seed",
"actions", "result"}`` with actions in the game's notation, chance outcomes included; a game
that began at a set-up position rather than the initial state also has ``"position"``, its
start in the game's position notation (:mod:`flipgames.core.position`), and the actions are
played from there. Loading parses that position and replays every action through the rules
engine, so a record whose position is malformed or unreachable, that does not replay, or whose
stated result differs from the replayed one, is rejected naming what is wrong.

>>> from flipgames import make
>>> state = make("flipflop-3x3").new_initial_state()
>>> state = state.apply(state.parse_action("b1xb3"))
>>> record = make_record(state, seed=1)
>>> record["actions"], record["result"]
(['b1xb3'], '*')
>>> replay_record(dumps_record(record)).history == state.history
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flipgames.core.errors import FlipgamesError, RecordError, quote, quote_path
from flipgames.core.game import JSON, State
from flipgames.core.position import start_position
from flipgames.core.registry import make

FORMAT = "flipgames-record"
VERSION = 1
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")

#: The largest record read: 1 MiB holds some 100,000 actions in notation, far beyond any
#: game played here; a reader stops there (``flipgames replay /dev/zero`` ends at once).
MAX_RECORD_BYTES = 2**20
TOO_LARGE = "no record is that long"


def make_record(state: State, seed: int | None = None) -> JSON:
    """The record of the game that led to ``state``."""
    start = start_position(state)
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": state.game.name,
        "options": dict(state.game.options),
        "seed": seed,
        **({} if start is None else {"position": start}),
        "actions": state.history_notation(),
        "result": state.result(),
    }


def read_record(path: str) -> bytes:
    """The bytes of the record file ``path``, reading no more than :data:`MAX_RECORD_BYTES`
    (and one byte to tell a larger file); :class:`RecordError` if it cannot be read or is
    larger."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"cannot read record {quote_path(path)}: {exc.strerror}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(
            f"record {quote_path(path)} is larger than {MAX_RECORD_BYTES // 2**20} MiB: {TOO_LARGE}"
        )
    return data


def dumps_record(record: Mapping[str, Any]) -> str:
    """Serialise a record as indented JSON text."""
    return json.dumps(record, indent=2) + "\n"


def _load_json(data: str | bytes | Mapping[str, Any], what: str) -> Mapping[str, Any]:
    if isinstance(data, str | bytes) and len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"{what} is larger than {MAX_RECORD_BYTES // 2**20} MiB: {TOO_LARGE}")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(
                f"{what} is not UTF-8 text: byte {exc.object[exc.start]:#04x} at offset "
                f"{exc.start} (a record is JSON text in UTF-8)"
            ) from None
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{what} is not valid JSON: {exc}") from None
        except RecursionError:
            # The parser recurses once per nesting level; no record nests more than 3 deep.
            raise RecordError(f"{what} is nested too deeply to be a record") from None
        except ValueError:  # the one other failure: an integer beyond Python's digit limit
            raise RecordError(f"{what} holds a number too long to read") from None
    if not isinstance(data, Mapping):
        raise RecordError(f"{what} must be a JSON object, got {type(data).__name__}")
    return data


def _replay(data: Mapping[str, Any], what: str) -> State:
    for field in ("game", "actions"):
        if field not in data:
            raise RecordError(f"{what} has no {quote(field)} field")
    options = data.get("options", {})
    if not isinstance(options, Mapping):
        raise RecordError(f"{what}: 'options' must be an object of name: value")
    actions = data["actions"]
    if not isinstance(actions, list):
        raise RecordError(f"{what}: 'actions' must be a list of actions in notation")
    try:
        game = make(data["game"], options)
        start = game.from_position(data["position"]) if "position" in data else None
    except FlipgamesError as exc:
        raise RecordError(f"{what}: {exc}") from exc
    return game.state_from_actions(actions, start)


def replay_record(data: str | bytes | Mapping[str, Any]) -> State:
    """Replay a record (JSON text or parsed) and return its final state.

    Raises :class:`RecordError` for malformed JSON, a wrong format or version, an unknown game
    or bad options, the first action that does not replay, or a result that does not match.
    """
    record = _load_json(data, "record")
    if record.get("format") != FORMAT:
        raise RecordError(f"record format must be {FORMAT!r}, got {quote(record.get('format'))}")
    if record.get("version") != VERSION:
        raise RecordError(f"record version must be {VERSION}, got {quote(record.get('version'))}")
    seed = record.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RecordError(f"record seed must be an integer or null, got {quote(seed)}")
    state = _replay(record, "record")
    claimed = record.get("result", state.result())
    if claimed not in RESULTS:
        raise RecordError(f"record result {quote(claimed)} is not one of {', '.join(RESULTS)}")
    if claimed != state.result():
        raise RecordError(
            f"record says the result is {quote(claimed)} but its actions end in {state.result()!r}"
        )
    return state


def state_to_json(state: State) -> str:
    """Serialise a state as JSON text (game, options, actions)."""
    return json.dumps(state.to_json())


def state_from_json(data: str | bytes | Mapping[str, Any]) -> State:
    """Restore a state serialised by :func:`state_to_json`, replaying it through the rules."""
    return _replay(_load_json(data, "state"), "state")
