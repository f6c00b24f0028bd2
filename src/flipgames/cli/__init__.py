"""The ``flipgames`` command line: thin commands over the library."""
