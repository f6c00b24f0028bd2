"""flipgames: play, solve and analyse flip games.

>>> from flipgames import make
>>> state = make("flipflop-3x3").new_initial_state()
>>> [state.action_to_string(a) for a in state.legal_actions()]
['a1-a2', 'b1-b2', 'b1xb3', 'c1-c2']
"""

from flipgames.core import *  # noqa: F403 - the package re-exports the protocol
from flipgames.core import __all__ as __all__

#: The one place the version is written: pyproject.toml reads it ([tool.hatch.version]) and
#: ``flipgames --version`` prints it.
__version__ = "0.1.0"
