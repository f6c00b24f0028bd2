"""Research interfaces over the game protocol: PettingZoo, Gymnasium and OpenSpiel.

Each submodule imports its framework, which is an optional dependency (``pip install -e
'.[rl]'`` in the repository folder): import ``flipgames.envs.pettingzoo``,
``flipgames.envs.gymnasium`` or ``flipgames.envs.openspiel`` explicitly. What they share
(chance resolved with a seeded generator, the length cap as truncation, environment ids) is
in :mod:`.common`.
See ``docs/research.md``.
"""
