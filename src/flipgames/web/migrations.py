"""The arcade's database migrations (web/db.py runs them): an ordered list of steps, each a
list of SQL statements that both SQLite and PostgreSQL accept. A schema change appends a step
and updates the tables in web/db.py to match; it never edits an old one."""

from __future__ import annotations

#: Migration steps in order; step n brings a database from version n - 1 to n.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE matches (
            id VARCHAR(32) NOT NULL PRIMARY KEY,
            game VARCHAR(64) NOT NULL,
            options TEXT NOT NULL,
            seed BIGINT NOT NULL,
            mode VARCHAR(16) NOT NULL,
            level VARCHAR(32),
            human_seat INTEGER,
            created_at TIMESTAMP WITH TIME ZONE NOT NULL
        )""",
        """CREATE TABLE seats (
            match_id VARCHAR(32) NOT NULL REFERENCES matches (id),
            seat INTEGER NOT NULL,
            token_hash VARCHAR(64) NOT NULL,
            PRIMARY KEY (match_id, seat)
        )""",
        """CREATE TABLE actions (
            match_id VARCHAR(32) NOT NULL REFERENCES matches (id),
            ply INTEGER NOT NULL,
            action VARCHAR(64) NOT NULL,
            PRIMARY KEY (match_id, ply)
        )""",
    ),
    (
        # Matches from before the setting keep what they offered: help against the AI only.
        "ALTER TABLE matches ADD COLUMN assist BOOLEAN NOT NULL DEFAULT FALSE",
        "UPDATE matches SET assist = TRUE WHERE mode = 'ai'",
    ),
    (
        # Matches from before rules versions were recorded were played by version 1 of every
        # game's rules; the revision starts at how many actions they have.
        "ALTER TABLE matches ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE matches ADD COLUMN revision INTEGER NOT NULL DEFAULT 0",
        "UPDATE matches SET revision = "
        "(SELECT COUNT(*) FROM actions WHERE actions.match_id = matches.id)",
    ),
    (
        "ALTER TABLE matches ADD COLUMN ending VARCHAR(16)",
        "ALTER TABLE matches ADD COLUMN ending_result VARCHAR(8)",
        "ALTER TABLE matches ADD COLUMN draw_offer INTEGER",
        "ALTER TABLE matches ADD COLUMN rematch_id VARCHAR(32)",
    ),
    (
        "ALTER TABLE matches ADD COLUMN ai_claim_revision INTEGER",
        "ALTER TABLE matches ADD COLUMN ai_claim_until TIMESTAMP WITH TIME ZONE",
    ),
    (
        "ALTER TABLE matches ADD COLUMN clock_initial_ms INTEGER",
        "ALTER TABLE matches ADD COLUMN clock_increment_ms INTEGER",
        "ALTER TABLE matches ADD COLUMN clock_ms_0 BIGINT",
        "ALTER TABLE matches ADD COLUMN clock_ms_1 BIGINT",
        "ALTER TABLE matches ADD COLUMN clock_since_ms BIGINT",
        "ALTER TABLE matches ADD COLUMN ending_detail VARCHAR(300)",
    ),
    (
        """CREATE TABLE players (
            id VARCHAR(32) NOT NULL PRIMARY KEY,
            name VARCHAR(32) NOT NULL,
            name_key VARCHAR(32) UNIQUE,
            password_hash VARCHAR(200),
            created_at TIMESTAMP WITH TIME ZONE NOT NULL,
            disabled BOOLEAN NOT NULL DEFAULT FALSE,
            deleted BOOLEAN NOT NULL DEFAULT FALSE
        )""",
        """CREATE TABLE sessions (
            id_hash VARCHAR(64) NOT NULL PRIMARY KEY,
            player_id VARCHAR(32) NOT NULL REFERENCES players (id),
            created_at TIMESTAMP WITH TIME ZONE NOT NULL,
            seen_at TIMESTAMP WITH TIME ZONE NOT NULL
        )""",
        """CREATE TABLE ratings (
            player_id VARCHAR(32) NOT NULL REFERENCES players (id),
            game VARCHAR(64) NOT NULL,
            rating DOUBLE PRECISION NOT NULL,
            rd DOUBLE PRECISION NOT NULL,
            volatility DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL,
            updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
            PRIMARY KEY (player_id, game)
        )""",
        """CREATE TABLE rating_changes (
            match_id VARCHAR(32) NOT NULL REFERENCES matches (id),
            player_id VARCHAR(32) NOT NULL REFERENCES players (id),
            game VARCHAR(64) NOT NULL,
            rating_before DOUBLE PRECISION NOT NULL,
            rating_after DOUBLE PRECISION NOT NULL,
            rd_before DOUBLE PRECISION NOT NULL,
            rd_after DOUBLE PRECISION NOT NULL,
            at TIMESTAMP WITH TIME ZONE NOT NULL,
            PRIMARY KEY (match_id, player_id)
        )""",
        """CREATE TABLE seeks (
            id VARCHAR(32) NOT NULL PRIMARY KEY,
            player_id VARCHAR(32) NOT NULL REFERENCES players (id),
            game VARCHAR(64) NOT NULL,
            options TEXT NOT NULL,
            clock_initial_ms INTEGER,
            clock_increment_ms INTEGER,
            rated BOOLEAN NOT NULL DEFAULT FALSE,
            created_at TIMESTAMP WITH TIME ZONE NOT NULL,
            match_id VARCHAR(32) REFERENCES matches (id)
        )""",
        """CREATE TABLE chat_lines (
            match_id VARCHAR(32) NOT NULL REFERENCES matches (id),
            number INTEGER NOT NULL,
            room VARCHAR(16) NOT NULL,
            player_id VARCHAR(32) REFERENCES players (id),
            text VARCHAR(500) NOT NULL,
            at TIMESTAMP WITH TIME ZONE NOT NULL,
            removed BOOLEAN NOT NULL DEFAULT FALSE,
            PRIMARY KEY (match_id, number)
        )""",
        "ALTER TABLE seats ADD COLUMN player_id VARCHAR(32) REFERENCES players (id)",
        "ALTER TABLE matches ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE",
        "ALTER TABLE matches ADD COLUMN takeback_offer INTEGER",
    ),
    ("ALTER TABLE seeks ADD COLUMN kind VARCHAR(16) NOT NULL DEFAULT 'seek'",),
    ("ALTER TABLE chat_lines ADD COLUMN seat INTEGER",),
    (
        """CREATE TABLE reviews (
            match_id VARCHAR(32) NOT NULL REFERENCES matches (id),
            revision INTEGER NOT NULL,
            review TEXT NOT NULL,
            made_at TIMESTAMP WITH TIME ZONE NOT NULL,
            PRIMARY KEY (match_id, revision)
        )""",
    ),
    (
        """CREATE TABLE review_claims (
            match_id VARCHAR(32) NOT NULL,
            revision INTEGER NOT NULL,
            origin VARCHAR(32) NOT NULL,
            done INTEGER NOT NULL,
            total INTEGER NOT NULL,
            heard_at TIMESTAMP WITH TIME ZONE NOT NULL,
            PRIMARY KEY (match_id, revision)
        )""",
    ),
    (
        # SQLite numbers an INTEGER PRIMARY KEY itself; PostgreSQL never writes the table.
        """CREATE TABLE operator_notes (
            id INTEGER NOT NULL PRIMARY KEY,
            channel VARCHAR(64) NOT NULL,
            payload TEXT NOT NULL,
            at TIMESTAMP WITH TIME ZONE NOT NULL
        )""",
    ),
)
