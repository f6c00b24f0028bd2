"""The compiled machinery every game's kernel shares (numba): seeded random numbers and exact
chance draws (:mod:`.jit`, :mod:`.sampling`), the tree search, alpha-beta, df-pn and
vector-batch drivers (:mod:`.mcts`, :mod:`.search`, :mod:`.dfpn`, :mod:`.vector`) and the
graph builders the exact solvers read (:mod:`.graphs`, and :mod:`.batch_graphs` in numpy
alone).

Games import it, and core never does: :mod:`flipgames.core.kernel` says what a kernel offers,
this package is how the games build theirs. This module imports nothing, so importing
:mod:`.batch_graphs` loads no numba.
"""
