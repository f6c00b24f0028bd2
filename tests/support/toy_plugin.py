"""A pytest plugin (``-p support.toy_plugin``) that registers the tests' toy game for the whole
run, so every test parametrized over the registry runs it too (tests/core/test_toy_game.py).

It registers in ``pytest_configure``, not on import: the suite imports every module under
``tests/`` for its doctests (``--doctest-modules``), and an import that registered the toy
would add it to every other test of that worker."""

import pytest

from flipgames.core import registry
from support.toy_game import MANIFEST, NAME


def pytest_configure(config: pytest.Config) -> None:
    registry.register({NAME: MANIFEST})


def pytest_unconfigure(config: pytest.Config) -> None:
    registry.unregister(NAME)
