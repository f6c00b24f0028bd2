"""The community: who plays (guests and accounts), their ratings per game, profiles and
leaderboards, the lobby and the chat (tables in web/db.py, step 7)."""
