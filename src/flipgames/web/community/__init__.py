"""The community: who plays (guests and accounts), their ratings per game, profiles and
leaderboards, the lobby and the chat (tables in web/db.py, step 7). It knows games only
through the registry.

- ``names``: the display-name rule (:func:`~flipgames.web.community.names.check_name`);
- ``passwords``: Argon2id hashes and the password rule;
- ``identity``: :class:`~flipgames.web.community.identity.Player`, guests, accounts,
  sessions, and the ``CurrentPlayer`` / ``SignedIn`` dependencies the routes use;
- ``csrf``: the ``Origin`` check of every state-changing request (:class:`CsrfGuard`);
- ``glicko2``: the rating system;
- ``chat``: the players' and the spectators' chat rooms of a match;
- ``admin``: what ``flipgames admin`` does to a player (disable, enable, remove lines).

See docs/web-api.md, "Players and sessions".
"""
