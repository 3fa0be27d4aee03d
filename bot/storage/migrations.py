"""The schema's migrations, SQLite's and PostgreSQL's side by side: entry i of each brings
a database from version i to i + 1 (SQLite's ``user_version``), and both lists grow
together (``tests/bot/test_postgres.py`` checks they make the same tables and columns)."""

from __future__ import annotations

# Ordered migrations: entry i brings the schema from user_version i to i + 1.
# Never edit a released entry; append a new one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id       INTEGER,
        channel_id     INTEGER NOT NULL,
        status         TEXT NOT NULL
                       CHECK (status IN ('lobby', 'running', 'finished', 'cancelled')),
        map_id         TEXT NOT NULL,
        max_players    INTEGER NOT NULL,
        host_id        INTEGER NOT NULL,
        config         TEXT,
        version        INTEGER NOT NULL DEFAULT 0,
        posted_version INTEGER NOT NULL DEFAULT 0,
        created_at     REAL NOT NULL,
        updated_at     REAL NOT NULL
    );
    -- One lobby or running game per channel (threads are channels too).
    CREATE UNIQUE INDEX games_active_channel ON games (channel_id)
        WHERE status IN ('lobby', 'running');
    CREATE INDEX games_channel ON games (channel_id, id);
    CREATE TABLE seats (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat    INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        name    TEXT NOT NULL,
        PRIMARY KEY (game_id, seat),
        UNIQUE (game_id, user_id)
    ) WITHOUT ROWID;
    CREATE TABLE actions (
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        seat       INTEGER NOT NULL,
        action     TEXT NOT NULL,
        events     TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (game_id, version)
    ) WITHOUT ROWID;
    CREATE TABLE snapshots (
        game_id INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        state   TEXT NOT NULL
    );
    CREATE TABLE users (
        user_id       INTEGER PRIMARY KEY,
        dm_refused_at REAL
    );
    """,
    """
    -- Settings as JSON documents (bot.preferences): new settings need no migration.
    CREATE TABLE guild_settings (
        guild_id INTEGER PRIMARY KEY,
        settings TEXT NOT NULL
    );
    ALTER TABLE users ADD COLUMN settings TEXT;
    """,
    """
    -- Games can be ended by the host or an admin ('ended') or by a vote ('abandoned'):
    -- SQLite changes a CHECK only by rebuilding the table (foreign keys are off while
    -- migrating, so dropping the old table cascades nothing).
    CREATE TABLE games_new (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id       INTEGER,
        channel_id     INTEGER NOT NULL,
        status         TEXT NOT NULL
                       CHECK (status IN ('lobby', 'running', 'finished', 'cancelled', 'ended',
                                         'abandoned')),
        map_id         TEXT NOT NULL,
        max_players    INTEGER NOT NULL,
        host_id        INTEGER NOT NULL,
        config         TEXT,
        version        INTEGER NOT NULL DEFAULT 0,
        posted_version INTEGER NOT NULL DEFAULT 0,
        created_at     REAL NOT NULL,
        updated_at     REAL NOT NULL
    );
    INSERT INTO games_new (id, guild_id, channel_id, status, map_id, max_players, host_id,
                           config, version, posted_version, created_at, updated_at)
        SELECT id, guild_id, channel_id, status, map_id, max_players, host_id, config, version,
               posted_version, created_at, updated_at FROM games;
    DROP TABLE games;
    ALTER TABLE games_new RENAME TO games;
    CREATE UNIQUE INDEX games_active_channel ON games (channel_id)
        WHERE status IN ('lobby', 'running');
    CREATE INDEX games_channel ON games (channel_id, id);
    -- Who plays each seat (see CONTROLLERS); a seat without a person has a negative user_id.
    ALTER TABLE seats ADD COLUMN controller TEXT NOT NULL DEFAULT 'human';
    -- The person who played each action (NULL: the bot played it for the seat).
    ALTER TABLE actions ADD COLUMN user_id INTEGER;
    -- What happened to a game besides its actions: seats changing hands, ends, undos.
    CREATE TABLE history (
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        kind       TEXT NOT NULL,
        seat       INTEGER,
        user_id    INTEGER,
        detail     TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX history_game ON history (game_id, version);
    -- Durable votes (abandon, undo, kick): one row per voter; ``subject`` says what about
    -- (the version for an undo, the seat for a kick, 0 for an abandon).
    CREATE TABLE votes (
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        kind       TEXT NOT NULL,
        subject    INTEGER NOT NULL,
        user_id    INTEGER NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (game_id, kind, subject, user_id)
    ) WITHOUT ROWID;
    -- Interactions already handled: one delivered twice is applied once.
    CREATE TABLE interactions (
        id         INTEGER PRIMARY KEY,
        created_at REAL NOT NULL
    );
    CREATE INDEX interactions_age ON interactions (created_at);
    """,
    """
    -- Derived from finished games (bot.stats), never the source of truth: emptied and
    -- refilled from the snapshots or the log whenever asked. One row per seat.
    CREATE TABLE game_results (
        game_id           INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat              INTEGER NOT NULL,
        player            TEXT NOT NULL,  -- who is rated: 'user:<id>' or 'computer:<level>'
        user_id           INTEGER,        -- the member; NULL for a computer player
        name              TEXT NOT NULL,
        score             INTEGER NOT NULL,
        rank              INTEGER NOT NULL,
        tickets_completed INTEGER NOT NULL,
        tickets_failed    INTEGER NOT NULL,
        longest_path      INTEGER NOT NULL,
        routes            TEXT NOT NULL,  -- JSON list of the ids of the routes claimed
        PRIMARY KEY (game_id, seat)
    ) WITHOUT ROWID;
    CREATE INDEX game_results_player ON game_results (player);
    """,
    """
    -- Time-based work (bot.scheduler): reminders, turn timers, computer players' turns.
    -- A job is for one seat at one game version: once the game moved on it does nothing.
    -- Claimed by one worker (SQLite: one transaction; PostgreSQL: FOR UPDATE SKIP LOCKED).
    CREATE TABLE jobs (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        due_at     REAL NOT NULL,
        kind       TEXT NOT NULL CHECK (kind IN ('remind', 'timeout', 'computer')),
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat       INTEGER NOT NULL,
        version    INTEGER NOT NULL,
        attempt    INTEGER NOT NULL DEFAULT 0,
        claimed_at REAL,
        claimed_by TEXT,
        done_at    REAL
    );
    -- One job of a kind per seat, version and attempt: planning twice adds nothing.
    CREATE UNIQUE INDEX jobs_once ON jobs (game_id, seat, kind, version, attempt);
    CREATE INDEX jobs_due ON jobs (due_at) WHERE done_at IS NULL;
    CREATE INDEX jobs_game ON jobs (game_id) WHERE done_at IS NULL;
    -- Per-game settings chosen at /ttr new (bot.preferences.GameSettings).
    CREATE TABLE game_settings (
        game_id  INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        settings TEXT NOT NULL
    );
    -- Turns in a row a seat's timer expired (the others may vote to kick it after N).
    CREATE TABLE expiries (
        game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat      INTEGER NOT NULL,
        in_a_row  INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    ) WITHOUT ROWID;
    """,
    """
    -- Facts about this installation, e.g. the hash of the last synced command tree.
    CREATE TABLE bot_state (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    """
    -- Every message a game posts, keyed by what it is for: the intent (with its text) is
    -- stored before sending and the message id after, so a restart never posts twice.
    CREATE TABLE posts (
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        target     TEXT NOT NULL,
        channel_id INTEGER NOT NULL,
        content    TEXT NOT NULL,
        message_id INTEGER,
        PRIMARY KEY (game_id, version, target)
    ) WITHOUT ROWID;
    -- The one table message of a game (board, whose turn, buttons), edited in place.
    -- ``head``: what happened since it was posted (kept above its live status); the turn
    -- line below it (``line_id``) is deleted when the next one comes, its text
    -- (``line_text``) moving into ``head``; ``version``: the game version last told.
    CREATE TABLE table_messages (
        game_id    INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        channel_id INTEGER NOT NULL,
        message_id INTEGER NOT NULL,
        head       TEXT NOT NULL,
        line_id    INTEGER,
        line_text  TEXT NOT NULL DEFAULT '',
        version    INTEGER NOT NULL
    );
    -- Private threads (a server setting): one per player and game, with the hand message.
    CREATE TABLE player_threads (
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id    INTEGER NOT NULL,
        thread_id  INTEGER NOT NULL,
        message_id INTEGER,
        PRIMARY KEY (game_id, user_id)
    ) WITHOUT ROWID;
    """,
    """
    -- Standings kept as games finish (bot.standings): what /ttr leaderboard and /ttr stats
    -- show, read without going through the history. Derived like game_results (rebuilt by
    -- bot.stats). Per server and scope: map_id '' for every map; player '' for the server.
    CREATE TABLE ratings (
        guild_id INTEGER NOT NULL,
        map_id   TEXT NOT NULL,
        player   TEXT NOT NULL,  -- 'user:<id>' or 'computer:<level>'
        name     TEXT NOT NULL,  -- the name in their latest rated game
        mu       REAL NOT NULL,
        sigma    REAL NOT NULL,
        ordinal  REAL NOT NULL,  -- mu - 3 sigma: the leaderboard's order
        games    INTEGER NOT NULL,
        wins     INTEGER NOT NULL,
        PRIMARY KEY (guild_id, map_id, player)
    ) WITHOUT ROWID;
    CREATE INDEX ratings_order ON ratings (guild_id, map_id, ordinal DESC, games DESC, name);
    CREATE TABLE tallies (
        guild_id          INTEGER NOT NULL,
        map_id            TEXT NOT NULL,
        player            TEXT NOT NULL,  -- a member ('user:<id>'), or '' (the server)
        games             INTEGER NOT NULL,
        wins              INTEGER NOT NULL,
        seats             INTEGER NOT NULL,
        score_sum         INTEGER NOT NULL,
        best_score        INTEGER NOT NULL,
        best_game         INTEGER NOT NULL,
        best_name         TEXT NOT NULL,
        tickets_completed INTEGER NOT NULL,
        tickets_failed    INTEGER NOT NULL,
        longest_path      INTEGER NOT NULL,
        longest_game      INTEGER NOT NULL,
        longest_name      TEXT NOT NULL,
        timeouts          INTEGER NOT NULL,
        PRIMARY KEY (guild_id, map_id, player)
    ) WITHOUT ROWID;
    CREATE TABLE route_counts (
        guild_id  INTEGER NOT NULL,
        map_id    TEXT NOT NULL,
        player    TEXT NOT NULL,
        route_map TEXT NOT NULL,
        route     INTEGER NOT NULL,
        n         INTEGER NOT NULL,
        PRIMARY KEY (guild_id, map_id, player, route_map, route)
    ) WITHOUT ROWID;
    CREATE INDEX route_counts_top ON route_counts (guild_id, map_id, player, n DESC);
    -- Turn times as a histogram (bot.standings.turn_bucket): turns per bucket.
    CREATE TABLE turn_times (
        guild_id INTEGER NOT NULL,
        map_id   TEXT NOT NULL,
        player   TEXT NOT NULL,
        bucket   INTEGER NOT NULL,
        n        INTEGER NOT NULL,
        PRIMARY KEY (guild_id, map_id, player, bucket)
    ) WITHOUT ROWID;
    """,
    """
    -- Undo is an entry of the log (engine.Undo), which only grows: the version an undo row
    -- takes back (NULL on every other row).
    ALTER TABLE actions ADD COLUMN undoes INTEGER;
    CREATE INDEX actions_undone ON actions (game_id, undoes) WHERE undoes IS NOT NULL;
    -- Games started before configs named their rules version played rules 1 (engine.state).
    UPDATE games SET config = json_set(config, '$.rules', 1)
        WHERE config IS NOT NULL AND json_extract(config, '$.rules') IS NULL;
    """,
    """
    -- Standing orders (bot.orders): a player's next moves, queued while the others play,
    -- each played on one later turn of the seat, in ``position`` order; only their player
    -- sees them. ``user_id``: whose (a seat that changes hands leaves them behind).
    CREATE TABLE orders (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id        INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat           INTEGER NOT NULL,
        user_id        INTEGER NOT NULL,
        position       INTEGER NOT NULL,
        spec           TEXT NOT NULL,  -- an engine.orders.Order as JSON
        queued_turn    INTEGER NOT NULL,  -- the game's turn when queued: it plays a later one
        played_turn    INTEGER,  -- the turn it began playing in (NULL: not yet)
        played_version INTEGER   -- the game's version then: only there is it begun again
    );
    CREATE INDEX orders_seat ON orders (game_id, seat, position);
    -- Jobs of a new kind, 'order': a seat's standing order, played when its turn comes.
    -- (SQLite changes a CHECK only by rebuilding the table.)
    CREATE TABLE jobs_new (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        due_at     REAL NOT NULL,
        kind       TEXT NOT NULL CHECK (kind IN ('remind', 'timeout', 'computer', 'order')),
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat       INTEGER NOT NULL,
        version    INTEGER NOT NULL,
        attempt    INTEGER NOT NULL DEFAULT 0,
        claimed_at REAL,
        claimed_by TEXT,
        done_at    REAL
    );
    INSERT INTO jobs_new (id, due_at, kind, game_id, seat, version, attempt, claimed_at,
                          claimed_by, done_at)
        SELECT id, due_at, kind, game_id, seat, version, attempt, claimed_at, claimed_by,
               done_at FROM jobs;
    DROP TABLE jobs;
    ALTER TABLE jobs_new RENAME TO jobs;
    CREATE UNIQUE INDEX jobs_once ON jobs (game_id, seat, kind, version, attempt);
    CREATE INDEX jobs_due ON jobs (due_at) WHERE done_at IS NULL;
    CREATE INDEX jobs_game ON jobs (game_id) WHERE done_at IS NULL;
    """,
    """
    -- Members away from all their games (bot.seats.away): when they are back, and the
    -- computer level that plays for them where their server lets a computer play.
    CREATE TABLE away (
        user_id INTEGER PRIMARY KEY,
        back_at REAL NOT NULL,
        level   TEXT NOT NULL
    );
    CREATE INDEX away_back ON away (back_at);
    -- Members following a game without a seat (bot.seats.watch): by DM, or in a private
    -- thread of the game's channel (``thread_id``).
    CREATE TABLE watchers (
        game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id   INTEGER NOT NULL,
        thread_id INTEGER,
        PRIMARY KEY (game_id, user_id)
    );
    """,
)


# PostgreSQL's counterpart of each entry of ``MIGRATIONS``, at the same index:
# a database at version N has the same tables and columns on either backend
# (tests/bot/test_postgres.py compares them). Append both together; never edit one.
# Differences by design: ids are BIGINT (Discord snowflakes), times DOUBLE PRECISION,
# and ``history`` has an explicit ``rowid`` (SQLite's is implicit) to read it in order.
PG_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        id             BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        guild_id       BIGINT,
        channel_id     BIGINT NOT NULL,
        status         TEXT NOT NULL
                       CONSTRAINT games_status
                       CHECK (status IN ('lobby', 'running', 'finished', 'cancelled')),
        map_id         TEXT NOT NULL,
        max_players    INTEGER NOT NULL,
        host_id        BIGINT NOT NULL,
        config         TEXT,
        version        INTEGER NOT NULL DEFAULT 0,
        posted_version INTEGER NOT NULL DEFAULT 0,
        created_at     DOUBLE PRECISION NOT NULL,
        updated_at     DOUBLE PRECISION NOT NULL
    );
    CREATE UNIQUE INDEX games_active_channel ON games (channel_id)
        WHERE status IN ('lobby', 'running');
    CREATE INDEX games_channel ON games (channel_id, id);
    CREATE TABLE seats (
        game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat    INTEGER NOT NULL,
        user_id BIGINT NOT NULL,
        name    TEXT NOT NULL,
        PRIMARY KEY (game_id, seat),
        UNIQUE (game_id, user_id)
    );
    CREATE TABLE actions (
        game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        seat       INTEGER NOT NULL,
        action     TEXT NOT NULL,
        events     TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game_id, version)
    );
    CREATE TABLE snapshots (
        game_id BIGINT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        state   TEXT NOT NULL
    );
    CREATE TABLE users (
        user_id       BIGINT PRIMARY KEY,
        dm_refused_at DOUBLE PRECISION
    );
    """,
    """
    CREATE TABLE guild_settings (
        guild_id BIGINT PRIMARY KEY,
        settings TEXT NOT NULL
    );
    ALTER TABLE users ADD COLUMN settings TEXT;
    """,
    """
    ALTER TABLE games DROP CONSTRAINT games_status;
    ALTER TABLE games ADD CONSTRAINT games_status
        CHECK (status IN ('lobby', 'running', 'finished', 'cancelled', 'ended', 'abandoned'));
    ALTER TABLE seats ADD COLUMN controller TEXT NOT NULL DEFAULT 'human';
    ALTER TABLE actions ADD COLUMN user_id BIGINT;
    CREATE TABLE history (
        rowid      BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        kind       TEXT NOT NULL,
        seat       INTEGER,
        user_id    BIGINT,
        detail     TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX history_game ON history (game_id, version);
    CREATE TABLE votes (
        game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        kind       TEXT NOT NULL,
        subject    INTEGER NOT NULL,
        user_id    BIGINT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game_id, kind, subject, user_id)
    );
    CREATE TABLE interactions (
        id         BIGINT PRIMARY KEY,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX interactions_age ON interactions (created_at);
    """,
    """
    CREATE TABLE game_results (
        game_id           BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat              INTEGER NOT NULL,
        player            TEXT NOT NULL,
        user_id           BIGINT,
        name              TEXT NOT NULL,
        score             INTEGER NOT NULL,
        rank              INTEGER NOT NULL,
        tickets_completed INTEGER NOT NULL,
        tickets_failed    INTEGER NOT NULL,
        longest_path      INTEGER NOT NULL,
        routes            TEXT NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX game_results_player ON game_results (player);
    """,
    """
    CREATE TABLE jobs (
        id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        due_at     DOUBLE PRECISION NOT NULL,
        kind       TEXT NOT NULL CHECK (kind IN ('remind', 'timeout', 'computer')),
        game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat       INTEGER NOT NULL,
        version    INTEGER NOT NULL,
        attempt    INTEGER NOT NULL DEFAULT 0,
        claimed_at DOUBLE PRECISION,
        claimed_by TEXT,
        done_at    DOUBLE PRECISION
    );
    CREATE UNIQUE INDEX jobs_once ON jobs (game_id, seat, kind, version, attempt);
    CREATE INDEX jobs_due ON jobs (due_at) WHERE done_at IS NULL;
    CREATE INDEX jobs_game ON jobs (game_id) WHERE done_at IS NULL;
    CREATE TABLE game_settings (
        game_id  BIGINT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        settings TEXT NOT NULL
    );
    CREATE TABLE expiries (
        game_id   BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat      INTEGER NOT NULL,
        in_a_row  INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    """,
    """
    CREATE TABLE bot_state (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    """
    CREATE TABLE posts (
        game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        target     TEXT NOT NULL,
        channel_id BIGINT NOT NULL,
        content    TEXT NOT NULL,
        message_id BIGINT,
        PRIMARY KEY (game_id, version, target)
    );
    CREATE TABLE table_messages (
        game_id    BIGINT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        channel_id BIGINT NOT NULL,
        message_id BIGINT NOT NULL,
        head       TEXT NOT NULL,
        line_id    BIGINT,
        line_text  TEXT NOT NULL DEFAULT '',
        version    INTEGER NOT NULL
    );
    CREATE TABLE player_threads (
        game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id    BIGINT NOT NULL,
        thread_id  BIGINT NOT NULL,
        message_id BIGINT,
        PRIMARY KEY (game_id, user_id)
    );
    """,
    """
    CREATE TABLE ratings (
        guild_id BIGINT NOT NULL,
        map_id   TEXT NOT NULL,
        player   TEXT NOT NULL,
        name     TEXT NOT NULL,
        mu       DOUBLE PRECISION NOT NULL,
        sigma    DOUBLE PRECISION NOT NULL,
        ordinal  DOUBLE PRECISION NOT NULL,
        games    INTEGER NOT NULL,
        wins     INTEGER NOT NULL,
        PRIMARY KEY (guild_id, map_id, player)
    );
    CREATE INDEX ratings_order ON ratings (guild_id, map_id, ordinal DESC, games DESC,
                                           name COLLATE "C");
    CREATE TABLE tallies (
        guild_id          BIGINT NOT NULL,
        map_id            TEXT NOT NULL,
        player            TEXT NOT NULL,
        games             INTEGER NOT NULL,
        wins              INTEGER NOT NULL,
        seats             INTEGER NOT NULL,
        score_sum         BIGINT NOT NULL,
        best_score        INTEGER NOT NULL,
        best_game         BIGINT NOT NULL,
        best_name         TEXT NOT NULL,
        tickets_completed INTEGER NOT NULL,
        tickets_failed    INTEGER NOT NULL,
        longest_path      INTEGER NOT NULL,
        longest_game      BIGINT NOT NULL,
        longest_name      TEXT NOT NULL,
        timeouts          INTEGER NOT NULL,
        PRIMARY KEY (guild_id, map_id, player)
    );
    CREATE TABLE route_counts (
        guild_id  BIGINT NOT NULL,
        map_id    TEXT NOT NULL,
        player    TEXT NOT NULL,
        route_map TEXT NOT NULL,
        route     INTEGER NOT NULL,
        n         INTEGER NOT NULL,
        PRIMARY KEY (guild_id, map_id, player, route_map, route)
    );
    CREATE INDEX route_counts_top ON route_counts (guild_id, map_id, player, n DESC);
    CREATE TABLE turn_times (
        guild_id BIGINT NOT NULL,
        map_id   TEXT NOT NULL,
        player   TEXT NOT NULL,
        bucket   INTEGER NOT NULL,
        n        INTEGER NOT NULL,
        PRIMARY KEY (guild_id, map_id, player, bucket)
    );
    """,
    """
    ALTER TABLE actions ADD COLUMN undoes INTEGER;
    CREATE INDEX actions_undone ON actions (game_id, undoes) WHERE undoes IS NOT NULL;
    UPDATE games SET config = jsonb_set(config::jsonb, '{rules}', '1')::text
        WHERE config IS NOT NULL AND config::jsonb -> 'rules' IS NULL;
    """,
    """
    CREATE TABLE orders (
        id             BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        game_id        BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat           INTEGER NOT NULL,
        user_id        BIGINT NOT NULL,
        position       INTEGER NOT NULL,
        spec           TEXT NOT NULL,
        queued_turn    INTEGER NOT NULL,
        played_turn    INTEGER,
        played_version INTEGER
    );
    CREATE INDEX orders_seat ON orders (game_id, seat, position);
    ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
    ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check
        CHECK (kind IN ('remind', 'timeout', 'computer', 'order'));
    """,
    """
    CREATE TABLE away (
        user_id BIGINT PRIMARY KEY,
        back_at DOUBLE PRECISION NOT NULL,
        level   TEXT NOT NULL
    );
    CREATE INDEX away_back ON away (back_at);
    CREATE TABLE watchers (
        game_id   BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id   BIGINT NOT NULL,
        thread_id BIGINT,
        PRIMARY KEY (game_id, user_id)
    );
    """,
)
