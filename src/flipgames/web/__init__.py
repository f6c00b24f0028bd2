"""The web arcade: an ASGI app (FastAPI) over the game protocol, with matches kept in a database.

>>> from flipgames.web.settings import Settings
>>> Settings(database_url="sqlite:///arcade.sqlite").max_body_bytes
16384

``create_app(settings)`` in :mod:`flipgames.web.app` builds the app; ``flipgames serve`` runs
it. The API is described in ``docs/web-api.md`` and served as OpenAPI at ``/openapi.json``.
"""
