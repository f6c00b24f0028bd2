"""The games. Each package imports only :mod:`flipgames.core`; the registry names them."""
