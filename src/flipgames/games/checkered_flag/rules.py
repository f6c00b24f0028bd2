"""Flipsiders: Checkered Flag: two race cars, a gear box each, and spinners.

A state is one tuple ``(phase, mover, distance 0, distance 1, gear 0, gear 1)``. ``phase`` is
``START`` (chance: both players spin B to decide who starts), ``CHOOSE`` (``mover`` chooses a
gear, or leaves a crash circle), ``SPIN`` (chance: ``mover``'s spin in the chosen gear) or
``OVER`` (``mover`` won). Distances count the spaces driven since the start line; gears are the
circle codes of :mod:`~flipgames.games.checkered_flag.notation` (N 0, 1-3, C2 4, C3 5). Action
ids and notation are documented there.

>>> from flipgames import make
>>> game = make("checkered-flag", start="first", track="short")
>>> state = game.new_initial_state()
>>> for text in ["1", "3", "1", "2", "2", "5"]:
...     state = state.apply(state.parse_action(text))
>>> state.distances, state.gears
((8, 2), ('2', '1'))
>>> print(state.status_text())
Player 2 to choose a gear (in 1st): 1 2
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Final

from flipgames.core.ending import Termination
from flipgames.core.errors import IllegalActionError, OptionError, quote
from flipgames.core.game import CHANCE, JSON, TERMINAL, Game, State
from flipgames.core.options import Option, options_for_players
from flipgames.games.checkered_flag import heuristics
from flipgames.games.checkered_flag.notation import (
    C2,
    CHOOSE,
    GEAR_ACTIONS,
    GEAR_NAMES,
    OVER,
    SPIN,
    START,
    ActionLayout,
    N,
    Token,
    notation_help,
    parse_token,
)
from flipgames.games.checkered_flag.render import render_state
from flipgames.games.checkered_flag.tracks import (
    Spinners,
    bundled_names,
    load_spinners,
    load_track,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from flipgames.core.kernel import GraphBuilder, Kernel

_PHASES: Final = ("start-spin", "choose-gear", "spin", "over")

#: Legal gear actions by the marker's circle: shift one circle at a time, never back to N, and
#: a crash circle allows only the next circle towards N.
_GEAR_CHOICES: Final[tuple[tuple[int, ...], ...]] = ((1,), (1, 2), (1, 2, 3), (2, 3), (N,), (C2,))
_ORDINAL: Final = ("neutral", "1st", "2nd", "3rd", "Crash 2", "Crash 3")
_SPINNER_OF_GEAR: Final = ("", "Spinner A", "Spinner B", "Spinners A + B")

RULES: Final = """\
Flipsiders: Checkered Flag, as flipgames plays it.

Rulebook
- Two cars start on the START/FINISH line; each player's gear shift marker starts in N.
- Who starts: both players spin Spinner B; the higher number goes first.
- A turn: choose a gear, then spin and move your car. Shift up or down one gear at a time:
  N -> 1; 1 -> 1 or 2; 2 -> 1, 2 or 3; 3 -> 2 or 3. You cannot move from 1st to neutral.
- 1st gear moves the number on Spinner A, 2nd gear Spinner B, 3rd gear Spinners A and B
  added. Always move the full count. You may land on or pass your opponent's car.
- No passing zones: if your opponent's car stands on a no-passing space, you cannot pass it;
  stop on the space behind it and your turn is over.
- Crash zones: ending a move on a crash space by the exact count in 2nd gear moves your marker
  to Crash 2, in 3rd gear to Crash 3; in 1st gear there is no penalty.
- At the start of a turn on Crash 3, move the marker to Crash 2; on Crash 2, move it to N.
  That is the whole turn: no spin, no move. From N you shift to 1st and move as usual.
- The first car to cross the finish line wins. For a longer game race more laps.
- "If a spinner arrow lands on a line, spin again": the engine draws a face with its exact
  probability, so that case never arises.

Rulings and decisions (see docs/games/checkered-flag.md)
- Start spin: one chance outcome, the ordered pair of spins with ties removed (a tie spins
  again), each pair with its exact probability given that it is not a tie. With start=first
  player 1 starts and there is no start spin.
- Leaving a crash circle is a turn of its own: the only legal action is the circle the marker
  moves to, written C2 (from C3) or N (from C2).
- A car's distance is the number of spaces it has driven; it wins when that reaches
  laps x track length. A move that reaches it wins at once: the race is over, so no crash
  penalty applies on that move.
- Passing means driving through the space the opponent's car stands on. Moving off a space
  both cars share is not passing. Blocking is physical: a car on a no-passing space blocks
  whatever lap either car is on, the leader lapping it included, and the finish line is no
  exception (a blocked car stops behind and does not cross it that turn).
- Stopping behind a blocking car is not landing by the exact count, so it is never a crash,
  even on a crash space; a blocked car may not move at all if the blocker is right ahead.
- Landing on the opponent's space by the exact count is allowed, and it is a crash if that
  space is a crash space.
"""


class CheckeredFlag(Game):
    """Flipsiders: Checkered Flag. Options: start, laps, track, spinners.

    >>> game = CheckeredFlag({"laps": "2"})
    >>> game.goal, game.track.name, game.num_distinct_actions
    (96, 'default', 68)
    >>> CheckeredFlag({"start": "coin"})
    Traceback (most recent call last):
    ...
    flipgames.core.errors.OptionError: bad value 'coin' for option 'start': allowed spin | first
    """

    name = "checkered-flag"
    # Shown to people: counted from 1, unlike player numbers in the protocol.
    player_names = ("player 1", "player 2")
    title = "Flipsiders: Checkered Flag"
    has_chance = True
    game_length_capped = True
    option_spec = (
        Option(
            "start",
            "spin",
            choices=("spin", "first"),
            help="both players spin Spinner B and the higher starts (a tie spins again), or "
            "player 1 starts without a spin",
            label="Who starts",
            choice_words=("the higher spin of Spinner B", "player 1"),
        ),
        # At most 5: the computer's medium and hard levels work out the whole race before
        # their first move, about a second a lap (5 laps: 5 s, 10 laps: 22 s), too long to
        # wait for; unbounded, laps=10**30 made every computer move fail (OverflowError).
        Option(
            "laps",
            1,
            minimum=1,
            maximum=5,
            help="laps to race (1 to 5); the goal is laps x track length",
        ),
        Option(
            "track",
            "default",
            help=f"a bundled track ({', '.join(bundled_names('tracks'))}) or a JSON file path",
            label="Track",
        ),
        Option(
            "spinners",
            "default",
            help=f"bundled spinners ({', '.join(bundled_names('spinners'))}) or a JSON file path",
            label="Spinners",
        ),
    )

    def __init__(self, options: Mapping[str, object] | None = None) -> None:
        super().__init__(options)
        self.track = load_track(str(self.options["track"]))
        self.spinners = load_spinners(str(self.options["spinners"]))
        if self.options["start"] == "spin" and len(self.spinners.b) < 2:
            raise OptionError(
                f"option 'start': start=spin needs Spinner B with two or more faces (the "
                f"spinners {self.spinners.name!r} have one, so every start spin would tie); "
                "use start=first"
            )
        self.layout = ActionLayout(self.spinners)
        self.goal = int(self.options["laps"]) * self.track.length
        # Indexed by distance % length, so a move looks a space up without arithmetic on start.
        length = self.track.length
        crash, no_passing = set(self.track.crash), set(self.track.no_passing)
        self.crash_at = tuple(self.track.space(d) in crash for d in range(length))
        self.no_passing_at = tuple(self.track.space(d) in no_passing for d in range(length))
        self.spin_outcomes = self._spin_outcomes(self.spinners)
        self.spin_ids = tuple(tuple(a for a, _ in outs) for outs in self.spin_outcomes)
        self.start_outcomes = self._start_outcomes(self.spinners)
        self.start_ids = tuple(a for a, _ in self.start_outcomes)

    def _spin_outcomes(self, spinners: Spinners) -> tuple[tuple[tuple[int, Fraction], ...], ...]:
        """Chance outcomes by gear (index 0 unused): A, B, and the A x B product."""
        layout = self.layout
        total_a = sum(w for _, w in spinners.a)
        total_b = sum(w for _, w in spinners.b)
        first = tuple(
            (GEAR_ACTIONS + i, Fraction(w, total_a)) for i, (_, w) in enumerate(spinners.a)
        )
        second = tuple(
            (layout.b_base + j, Fraction(w, total_b)) for j, (_, w) in enumerate(spinners.b)
        )
        nb = len(spinners.b)
        third = tuple(
            (layout.ab_base + i * nb + j, Fraction(wa * wb, total_a * total_b))
            for i, (_, wa) in enumerate(spinners.a)
            for j, (_, wb) in enumerate(spinners.b)
        )
        return ((), first, second, third)

    def _start_outcomes(self, spinners: Spinners) -> tuple[tuple[int, Fraction], ...]:
        """Ordered pairs of different B spins, each conditioned on the spin not being a tie."""
        if self.options["start"] != "spin":
            return ()
        total = sum(w for _, w in spinners.b)
        no_tie = total * total - sum(w * w for _, w in spinners.b)
        nb = len(spinners.b)
        return tuple(
            (self.layout.start_base + j0 * nb + j1, Fraction(w0 * w1, no_tie))
            for j0, (_, w0) in enumerate(spinners.b)
            for j1, (_, w1) in enumerate(spinners.b)
            if j0 != j1
        )

    @property
    def num_distinct_actions(self) -> int:
        """The size of the dense action id space (see the notation module)."""
        return self.layout.size

    @property
    def max_chance_outcomes(self) -> int:
        """The largest chance node: the start spin or a 3rd-gear spin of A and B."""
        return max(len(self.start_outcomes), *(len(o) for o in self.spin_outcomes))

    @property
    def max_game_length(self) -> int:
        """A cap of 10 plies per space of the race (crash circles and blocking make a short
        proof of a bound awkward); random games use about two per space."""
        return 10 * self.goal

    @property
    def observation_tensor_shape(self) -> tuple[int, ...]:
        """``(2 * (track length + 7) + 5,)``: see :mod:`flipgames.games.checkered_flag.tensor`."""
        # numpy loads on first use, not with the rules.
        from flipgames.games.checkered_flag import tensor

        return (tensor.size(self.track.length),)

    def kernel(self) -> Kernel | None:
        """The compiled kernel: every option set (tracks and spinners become tables)."""
        from flipgames.games.checkered_flag.kernel import CheckeredFlagKernel  # numba: lazily

        return CheckeredFlagKernel(self)

    def graph_builder(self) -> GraphBuilder:
        """The numpy builder of the whole position graph (numba stays unloaded)."""
        from flipgames.games.checkered_flag.batch_graph import builder_for_game

        return builder_for_game(self)

    def new_initial_state(self) -> CheckeredFlagState:
        phase = START if self.options["start"] == "spin" else CHOOSE
        return CheckeredFlagState(self, (phase, 0, 0, 0, N, N))

    def notation_help(self) -> str:
        return notation_help()

    def rules_summary(self) -> str:
        track, spinners = self.track, self.spinners
        laps = int(self.options["laps"])
        lines = [RULES, options_for_players(self.option_spec, self.options)]
        lines += [
            "",
            f"Track {track.name!r}: {track.length} spaces, start/finish on space {track.start}; "
            f"goal {self.goal} spaces driven ({laps} lap{'s' if laps > 1 else ''}).",
            f"  crash spaces: {' '.join(map(str, track.crash)) or 'none'}",
            f"  no-passing spaces: {' '.join(map(str, track.no_passing)) or 'none'}",
        ]
        if track.description:
            lines.append(f"  {track.description}")
        lines.append(f"Spinners {spinners.name!r}:")
        for label, faces in (("A", spinners.a), ("B", spinners.b)):
            total = sum(w for _, w in faces)
            shown = ", ".join(f"{v}: {Fraction(w, total)}" for v, w in faces)
            lines.append(f"  Spinner {label}: {shown}")
        if spinners.description:
            lines.append(f"  {spinners.description}")
        return "\n".join(lines) + "\n"


class CheckeredFlagState(State):
    """A Checkered Flag position: ``(phase, mover, distance 0, distance 1, gear 0, gear 1)``."""

    __slots__ = ("_pos",)
    game: CheckeredFlag

    def __init__(
        self,
        game: CheckeredFlag,
        pos: tuple[int, int, int, int, int, int],
        parent: CheckeredFlagState | None = None,
        action: int | None = None,
    ) -> None:
        super().__init__(game, parent, action)
        self._pos = pos

    # --- reading the position -----------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``start-spin``, ``choose-gear``, ``spin`` or ``over``."""
        return _PHASES[self._pos[0]]

    @property
    def mover(self) -> int:
        """The player choosing or spinning (the winner once over; 0 before the start spin)."""
        return self._pos[1]

    @property
    def distances(self) -> tuple[int, int]:
        """Spaces each car has driven since the start line."""
        return self._pos[2], self._pos[3]

    @property
    def gears(self) -> tuple[str, str]:
        """Each player's gear circle: ``N``, ``1``, ``2``, ``3``, ``C2`` or ``C3``."""
        return GEAR_NAMES[self._pos[4]], GEAR_NAMES[self._pos[5]]

    @property
    def current_player(self) -> int:
        phase = self._pos[0]
        if phase == CHOOSE:
            return self._pos[1]
        return TERMINAL if phase == OVER else CHANCE

    def end_reason(self) -> Termination | None:
        """``FINISH_LINE`` once a car has crossed it (the race's only ending), else None."""
        return Termination.FINISH_LINE if self._pos[0] == OVER else None

    def status_text(self) -> str:
        """One line saying what happens next (or who won), in words: the web page draws the
        cars and the terminal picture its glyphs, so the line names players only."""
        phase, mover = self._pos[0], self._pos[1]
        who = self.game.player_names[mover].capitalize()
        gear = self._pos[4 + mover]
        if phase == START:
            return "Both players spin B: the higher goes first (a tie spins again)"
        if phase == OVER:
            return f"{who} wins: crossed the finish line"
        if phase == SPIN:
            return f"{who} spins {_SPINNER_OF_GEAR[gear]} ({_ORDINAL[gear]} gear)"
        if gear >= C2:
            target = GEAR_NAMES[_GEAR_CHOICES[gear][0]]
            return f"{who} is on {GEAR_NAMES[gear]}: move the marker to {target} (no spin)"
        choices = " ".join(GEAR_NAMES[g] for g in _GEAR_CHOICES[gear])
        return f"{who} to choose a gear (in {_ORDINAL[gear]}): {choices}"

    # --- actions ----------------------------------------------------------------------------

    def _legal_actions(self) -> tuple[int, ...]:
        phase, mover = self._pos[0], self._pos[1]
        if phase == CHOOSE:
            return _GEAR_CHOICES[self._pos[4 + mover]]
        if phase == SPIN:
            return self.game.spin_ids[self._pos[4 + mover]]
        return self.game.start_ids if phase == START else ()

    def chance_outcomes(self) -> tuple[tuple[int, Fraction], ...]:
        phase = self._pos[0]
        if phase == SPIN:
            return self.game.spin_outcomes[self._pos[4 + self._pos[1]]]
        if phase == START:
            return self.game.start_outcomes
        return super().chance_outcomes()

    def _apply(self, action: int) -> CheckeredFlagState:
        phase, mover, d0, d1, g0, g1 = self._pos
        game = self.game
        if phase == START:
            pos = (CHOOSE, game.layout.start_first[action], d0, d1, g0, g1)
        elif phase == CHOOSE:
            # Gears 1-3 lead to a spin; N and C2 (leaving a crash circle) end the turn.
            next_phase, next_mover = (SPIN, mover) if 1 <= action <= 3 else (CHOOSE, 1 - mover)
            if mover == 0:
                pos = (next_phase, next_mover, d0, d1, action, g1)
            else:
                pos = (next_phase, next_mover, d0, d1, g0, action)
        else:
            pos = self._drive(game.layout.moves[action])
        return CheckeredFlagState(game, pos, self, action)

    def _drive(self, count: int) -> tuple[int, int, int, int, int, int]:
        """The position after the mover's car drives ``count`` spaces (a SPIN outcome)."""
        _, mover, d0, d1, g0, g1 = self._pos
        game = self.game
        length = game.track.length
        mine, theirs = (d0, d1) if mover == 0 else (d1, d0)
        gear = g0 if mover == 0 else g1
        target = mine + count
        blocked = False
        if game.no_passing_at[theirs % length]:
            # Spaces ahead to the blocker; a shared space is met again only a lap later.
            ahead = (theirs - mine) % length or length
            if ahead < count:
                target, blocked = mine + ahead - 1, True
        if target >= game.goal:
            phase, next_mover = OVER, mover
        else:
            phase, next_mover = CHOOSE, 1 - mover
            if not blocked and gear >= 2 and game.crash_at[target % length]:
                gear += 2  # 2nd gear -> C2 (code 4), 3rd gear -> C3 (code 5)
        if mover == 0:
            return phase, next_mover, target, d1, gear, g1
        return phase, next_mover, d0, target, g0, gear

    # --- notation ---------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        return self.game.layout.to_string(action)

    def parse_action(self, text: str) -> int:
        """Parse notation into a legal action id.

        >>> from flipgames import make
        >>> state = make("checkered-flag").new_initial_state()
        >>> state.parse_action("5:3"), state.action_to_string(state.parse_action("1:6"))
        (58, '1:6')
        >>> state.parse_action("4:4")
        Traceback (most recent call last):
        ...
        flipgames.core.errors.IllegalActionError: '4:4' is not legal here: a tie is spun again, \
so it is never an outcome; legal: 1:2 1:3 1:4 1:5 1:6 2:1 2:3 2:4 2:5 2:6 3:1 3:2 3:4 3:5 \
3:6 4:1 4:2 4:3 4:5 4:6 5:1 5:2 5:3 5:4 5:6 6:1 6:2 6:3 6:4 6:5
        """
        token = parse_token(text)
        action, reason = self._resolve(token)
        if action is not None and action in self.legal_actions():
            return action
        if self.is_terminal():
            raise IllegalActionError(f"{quote(text)} is not legal: the game is over")
        legal = " ".join(self.action_to_string(a) for a in self.legal_actions())
        raise IllegalActionError(f"{quote(text)} is not legal here: {reason}; legal: {legal}")

    def _resolve(self, token: Token) -> tuple[int | None, str]:
        """The id ``token`` means in this state, or None, and why it may be illegal."""
        phase, mover = self._pos[0], self._pos[1]
        layout = self.game.layout
        gear = self._pos[4 + mover]
        kind, values = token
        if phase == START:
            if kind != "start":
                return None, "first both players spin B, written player 1:player 2, e.g. '5:3'"
            if values[0] == values[1]:
                return None, "a tie is spun again, so it is never an outcome"
            return layout.start_id(*values), "Spinner B has no such face"
        if phase == CHOOSE:
            if kind == "circle" or (kind == "number" and 1 <= values[0] <= 3):
                target = values[0]
            else:
                name = self.game.player_names[mover]
                return None, f"{name} chooses a gear (1, 2 or 3) before spinning"
            if gear >= C2:
                return target, f"the marker is on {GEAR_NAMES[gear]}: one circle toward N"
            if target == N:
                return target, "a marker never moves back to N (from 1st gear or anywhere)"
            if target == C2:
                return target, "a marker reaches a crash circle only by crashing"
            return target, f"shift one gear at a time from {_ORDINAL[gear]}"
        if phase == SPIN:
            spinner = _SPINNER_OF_GEAR[gear]
            if gear == 3:
                if kind != "pair":
                    return None, "3rd gear spins A + B, written like '2+5'"
                return layout.ab_id(*values), f"{spinner} have no such faces"
            if kind != "number":
                return None, f"{_ORDINAL[gear]} gear spins {spinner} alone, written like '2'"
            face_id = layout.a_id if gear == 1 else layout.b_id
            return face_id(values[0]), f"{spinner} has no face {values[0]}"
        return None, "the game is over"

    # --- outcome and views --------------------------------------------------------------------

    def returns(self) -> tuple[int, ...]:
        if self._pos[0] != OVER:
            return (0, 0)
        return (1, -1) if self._pos[1] == 0 else (-1, 1)

    def evaluate(self, player: int) -> float:
        """Turns each car needs to finish, from distance and gear: see :mod:`.heuristics`."""
        return heuristics.evaluate(self, player)

    def key(self) -> tuple[int, int, int, int, int, int]:
        return self._pos

    def board_view(self, player: int | None) -> JSON:
        """Everything on the table (nothing is hidden in this game): the ``phase``, the
        ``mover`` (choosing or spinning; the winner once over), the ``spinner`` about to spin,
        both cars, the goal, the track and the spinners' faces.

        >>> from flipgames import make
        >>> obs = make("checkered-flag", start="first").new_initial_state().observation(1)
        >>> board = obs["board"]
        >>> board["phase"], obs["to_move"], board["cars"][0], obs["legal"]
        ('choose-gear', 0, {'player': 0, 'distance': 0, 'space': 0, 'lap': 1, 'gear': 'N'}, ['1'])
        >>> board["spinners"]
        {'A': [1, 2, 3], 'B': [1, 2, 3, 4, 5, 6]}
        """
        game, track = self.game, self.game.track
        phase, mover = self._pos[0], self._pos[1]
        laps = int(game.options["laps"])
        return {
            "phase": _PHASES[phase],
            "mover": mover if phase != START else None,
            "spinner": _SPINNER_OF_GEAR[self._pos[4 + mover]] if phase == SPIN else None,
            "winner": mover if phase == OVER else None,
            "cars": [
                {
                    "player": p,
                    "distance": d,
                    "space": track.space(d),
                    "lap": min(d // track.length + 1, laps),
                    "gear": GEAR_NAMES[self._pos[4 + p]],
                }
                for p, d in enumerate(self.distances)
            ],
            "goal": game.goal,
            "laps": laps,
            "track": {
                "name": track.name,
                "length": track.length,
                "start": track.start,
                "crash": list(track.crash),
                "no_passing": list(track.no_passing),
            },
            "spinners": {"A": list(game.layout.a_faces), "B": list(game.layout.b_faces)},
        }

    def _action_details(self, action: int) -> JSON:
        """``gear`` (the ``gear`` chosen: ``1``-``3``), ``leave-crash`` (the circle the
        marker moves to: ``C2`` or ``N``), and at chance nodes ``spin`` (the ``spinner``,
        the face ``values`` and the ``spaces`` to drive) or ``start-spin`` (``values``:
        player 0's and player 1's Spinner B).

        >>> from flipgames import make
        >>> state = make("checkered-flag", start="first").new_initial_state().apply(1)
        >>> state.action_info(state.legal_actions()[-1])
        {'id': 7, 'text': '3', 'chance': True, 'kind': 'spin', 'spinner': 'A', 'values': [3], \
'spaces': 3}
        """
        layout = self.game.layout
        phase = self._pos[0]
        if phase == CHOOSE:
            kind = "gear" if 1 <= action <= 3 else "leave-crash"
            return {"kind": kind, "gear": GEAR_NAMES[action]}
        nb = len(layout.b_faces)
        if phase == START:
            j0, j1 = divmod(action - layout.start_base, nb)
            return {"kind": "start-spin", "values": [layout.b_faces[j0], layout.b_faces[j1]]}
        if action < layout.b_base:
            spinner, values = "A", [layout.a_faces[action - GEAR_ACTIONS]]
        elif action < layout.ab_base:
            spinner, values = "B", [layout.b_faces[action - layout.b_base]]
        else:
            i, j = divmod(action - layout.ab_base, nb)
            spinner, values = "A+B", [layout.a_faces[i], layout.b_faces[j]]
        return {"kind": "spin", "spinner": spinner, "values": values, "spaces": sum(values)}

    def _tensor(self, player: int) -> npt.NDArray[np.float32]:
        # numpy loads on first use, not with the rules.
        from flipgames.games.checkered_flag import tensor

        track = self.game.track
        return tensor.encode(
            track.length,
            self.game.goal,
            self._pos,
            self.current_player,
            player,
        )

    def render(self) -> str:
        return render_state(self)
