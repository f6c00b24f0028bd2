"""HTTP and WebSocket routes, a module per resource: parse, call the match service, answer,
broadcast. No rules here.

- ``common``: what every route shares (the service, rate limits, errors, broadcasts);
- ``games``: health and the games' catalogue and rules;
- ``matches``: the matches' API (create, read, act, undo, resign, draw, take back, abort,
  rematch, help, positions, records, replays);
- ``sockets``: the matches' WebSocket (its ``Origin`` checked);
- ``players``: guests, accounts and sessions (web/community holds their rules);
- ``profiles``: players' profiles and the leaderboards, API and pages;
- ``review``: game reviews and the analysis board, API and page;
- ``pages``: the HTML pages.

The API is described in docs/web-api.md.
"""

from flipgames.web.routes import games, matches, pages, players, profiles, review, sockets
from flipgames.web.routes.common import describe_errors, loader

#: Every router of the arcade's own routes, in the order the app includes them.
routers = (
    games.router,
    matches.router,
    players.router,
    profiles.router,
    review.router,
    sockets.router,
    pages.router,
)

__all__ = ["describe_errors", "loader", "routers"]
