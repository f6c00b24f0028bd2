"""A pytest plugin (``-p support.toy_plugin``) that registers the tests' toy game for the whole
run, so every test parametrized over the registry runs it too (tests/core/test_toy_game.py)."""

from flipgames.core import registry
from support.toy_game import MANIFEST, NAME

registry.register({NAME: MANIFEST})
