"""Flipsiders: Checkered Flag: a two-car race with gear boxes, spinners, crashes and no-passing
zones. Rules in :mod:`.rules`, notation and action ids in :mod:`.notation`, tracks and spinners
(JSON data files under ``data/``) in :mod:`.tracks`, the text picture in :mod:`.render`.
``MANIFESTS`` holds what the web, the agents and the solver catalogue know about it
(:mod:`flipgames.core.manifest`).

>>> from flipgames import make
>>> make("checkered-flag").title
'Flipsiders: Checkered Flag'
"""

from flipgames.core.manifest import HARD_SECONDS, Manifest, alphabeta, mcts

MANIFESTS = {
    "checkered-flag": Manifest(
        board="checkered-flag",
        docs="checkered-flag",
        pitch="A push-your-luck race: shift gears, spin, dodge the crash spaces and take the "
        "checkered flag.",
        levels={"easy": mcts(30), "medium": mcts(100), "hard": alphabeta(6, seconds=HARD_SECONDS)},
        # The stochastic solver finishes every track and lap count here.
        solved=({},),
    ),
}
