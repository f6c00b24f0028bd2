"""Helpers shared by the test folders (imported as ``support``: tests/conftest.py puts the
tests folder on the import path, as each folder's conftest.py does for its own helpers)."""
