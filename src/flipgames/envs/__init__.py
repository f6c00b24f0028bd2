"""Research interfaces over the game protocol: PettingZoo, Gymnasium, OpenSpiel and
Stable-Baselines3.

Each submodule imports its framework, which is an optional dependency (``pip install -e
'.[rl]'`` in the repository folder, ``'.[sb3]'`` for :mod:`.sb3`): import
``flipgames.envs.pettingzoo``, ``flipgames.envs.gymnasium``, ``flipgames.envs.openspiel``,
``flipgames.envs.vector`` (the compiled batch), ``flipgames.envs.reference`` (the reference
engine's batch) or ``flipgames.envs.sb3`` explicitly. What they share (chance resolved with a
seeded generator, the length cap as truncation, environment ids, :func:`.common.sample_legal`,
opponent policies, the raster picture) is in :mod:`.common`.
See ``docs/research.md``.
"""
