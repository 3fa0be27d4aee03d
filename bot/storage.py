"""SQLite persistence: games, seats, the append-only action log and state snapshots.

One aiosqlite connection in WAL mode is the single writer. Every write is one
transaction; an accepted action (log row + snapshot + game version) commits
before the bot answers, so a restart at any moment loses nothing. The
snapshot is a cache: the log replayed through the engine gives the same
state, and ``actions`` is what a rebuild reads.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal

import aiosqlite

from bot.preferences import PlayerSettings, ServerSettings

GameStatus = Literal["lobby", "running", "finished", "cancelled"]
ACTIVE: tuple[GameStatus, ...] = ("lobby", "running")

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
)


class StorageError(Exception):
    """A write that would break an invariant (busy channel, stale version, full lobby)."""


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    guild_id: int | None
    channel_id: int
    status: GameStatus
    map_id: str
    max_players: int
    host_id: int
    config: str | None
    version: int
    posted_version: int


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class ActionRow:
    version: int
    seat: int
    action: str
    events: str


_GAME_COLUMNS = (
    "id, guild_id, channel_id, status, map_id, max_players, host_id, config, version, "
    "posted_version"
)


def _game(row: Sequence[object] | None) -> GameRow | None:
    return None if row is None else GameRow(*row)  # type: ignore[arg-type]


class Storage:
    def __init__(self, conn: aiosqlite.Connection, *, migrations: Sequence[str] = MIGRATIONS):
        self._conn = conn
        self._migrations = migrations
        # aiosqlite runs every call on one thread, but a transaction spans several
        # awaits: this lock keeps two coroutines from interleaving inside one.
        self._lock = asyncio.Lock()

    @classmethod
    async def open(
        cls, path: str, *, migrations: Sequence[str] = MIGRATIONS, durable: bool = True
    ) -> Storage:
        conn = await aiosqlite.connect(path, isolation_level=None)
        await conn.execute("PRAGMA journal_mode=WAL")
        # FULL: a committed action survives a power cut too, not only a crash.
        await conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        await conn.execute("PRAGMA foreign_keys=ON")
        await conn.execute("PRAGMA busy_timeout=5000")
        store = cls(conn, migrations=migrations)
        try:
            await store.migrate()
        except BaseException:
            await conn.close()
            raise
        return store

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")

    async def _one(self, sql: str, args: Sequence[object] = ()) -> Sequence[object] | None:
        async with self._lock, self._conn.execute(sql, args) as cur:
            row = await cur.fetchone()
        return None if row is None else tuple(row)

    async def _all(self, sql: str, args: Sequence[object] = ()) -> list[Sequence[object]]:
        async with self._lock, self._conn.execute(sql, args) as cur:
            rows = await cur.fetchall()
        return [tuple(r) for r in rows]

    # -- schema -----------------------------------------------------------------

    async def schema_version(self) -> int:
        row = await self._one("PRAGMA user_version")
        assert row is not None
        return int(str(row[0]))

    async def migrate(self) -> None:
        current = await self.schema_version()
        if current > len(self._migrations):
            raise StorageError(
                f"database schema {current} is newer than this bot ({len(self._migrations)})"
            )
        for number, script in enumerate(self._migrations[current:], start=current + 1):
            # executescript commits first; BEGIN ... COMMIT makes each step atomic.
            async with self._lock:
                try:
                    await self._conn.executescript(
                        f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;"
                    )
                except BaseException:
                    if self._conn.in_transaction:
                        await self._conn.execute("ROLLBACK")
                    raise

    # -- games and seats ----------------------------------------------------------

    async def create_game(
        self, *, guild_id: int | None, channel_id: int, map_id: str, max_players: int,
        host_id: int, host_name: str,
    ) -> GameRow:
        now = time.time()
        try:
            async with self._transaction() as db:
                cur = await db.execute(
                    "INSERT INTO games (guild_id, channel_id, status, map_id, max_players, "
                    "host_id, created_at, updated_at) VALUES (?, ?, 'lobby', ?, ?, ?, ?, ?)",
                    (guild_id, channel_id, map_id, max_players, host_id, now, now),
                )
                game_id = cur.lastrowid
                await db.execute(
                    "INSERT INTO seats (game_id, seat, user_id, name) VALUES (?, 0, ?, ?)",
                    (game_id, host_id, host_name),
                )
        except aiosqlite.IntegrityError:
            raise StorageError("this channel already has a game") from None
        game = await self.game(int(game_id or 0))
        assert game is not None
        return game

    async def game(self, game_id: int) -> GameRow | None:
        return _game(await self._one(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)))

    async def active_game(self, channel_id: int) -> GameRow | None:
        return _game(await self._one(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? "
            "AND status IN ('lobby', 'running')", (channel_id,)))

    async def latest_game(self, channel_id: int) -> GameRow | None:
        return _game(await self._one(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
            (channel_id,)))

    async def games_with_status(self, status: GameStatus) -> list[GameRow]:
        rows = await self._all(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = ? ORDER BY id", (status,))
        return [GameRow(*r) for r in rows]  # type: ignore[arg-type]

    async def unposted_games(self) -> list[GameRow]:
        """Started games whose last accepted actions were not (all) announced."""
        rows = await self._all(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ('running', 'finished') "
            "AND posted_version < version ORDER BY id")
        return [GameRow(*r) for r in rows]  # type: ignore[arg-type]

    async def seats(self, game_id: int) -> list[SeatRow]:
        rows = await self._all(
            "SELECT seat, user_id, name FROM seats WHERE game_id = ? ORDER BY seat", (game_id,))
        return [SeatRow(*r) for r in rows]  # type: ignore[arg-type]

    async def add_seat(self, game_id: int, user_id: int, name: str) -> None:
        async with self._transaction() as db:
            async with db.execute(
                "SELECT status, max_players, (SELECT count(*) FROM seats WHERE game_id = g.id), "
                "(SELECT coalesce(max(seat), -1) FROM seats WHERE game_id = g.id), "
                "(SELECT 1 FROM seats WHERE game_id = g.id AND user_id = ?) "
                "FROM games g WHERE id = ?", (user_id, game_id),
            ) as cur:
                row = await cur.fetchone()
            if row is None or row[0] != "lobby":
                raise StorageError("this game is not open for joining")
            if row[4]:
                raise StorageError("you already have a seat in this game")
            if row[2] >= row[1]:
                raise StorageError(f"the game is full ({row[1]} players)")
            await db.execute(
                "INSERT INTO seats (game_id, seat, user_id, name) VALUES (?, ?, ?, ?)",
                (game_id, row[3] + 1, user_id, name),
            )
            await db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (time.time(), game_id))

    async def remove_seat(self, game_id: int, user_id: int) -> GameRow | None:
        """Leave a lobby; the host role passes on, and an empty lobby is cancelled."""
        async with self._transaction() as db:
            async with db.execute(
                "SELECT status, host_id FROM games WHERE id = ?", (game_id,)) as cur:
                row = await cur.fetchone()
            if row is None or row[0] != "lobby":
                raise StorageError("the game has started; seats are fixed now")
            cur = await db.execute(
                "DELETE FROM seats WHERE game_id = ? AND user_id = ?", (game_id, user_id))
            if cur.rowcount == 0:
                raise StorageError("you have no seat in this game")
            async with db.execute(
                "SELECT user_id FROM seats WHERE game_id = ? ORDER BY seat LIMIT 1", (game_id,),
            ) as cur:
                first = await cur.fetchone()
            if first is None:
                await db.execute(
                    "UPDATE games SET status = 'cancelled', updated_at = ? WHERE id = ?",
                    (time.time(), game_id))
            elif row[1] == user_id:
                await db.execute(
                    "UPDATE games SET host_id = ?, updated_at = ? WHERE id = ?",
                    (first[0], time.time(), game_id))
        return await self.game(game_id)

    async def start_game(
        self, game_id: int, *, config: str, seats: Sequence[SeatRow], version: int, state: str,
    ) -> None:
        """Lobby -> running: fix the seat order, store the config and the first snapshot."""
        async with self._transaction() as db:
            cur = await db.execute(
                "UPDATE games SET status = 'running', config = ?, version = ?, posted_version = ?, "
                "updated_at = ? WHERE id = ? AND status = 'lobby'",
                (config, version, version, time.time(), game_id),
            )
            if cur.rowcount != 1:
                raise StorageError("this game has already started")
            await db.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            await db.executemany(
                "INSERT INTO seats (game_id, seat, user_id, name) VALUES (?, ?, ?, ?)",
                [(game_id, s.seat, s.user_id, s.name) for s in seats],
            )
            await db.execute(
                "INSERT OR REPLACE INTO snapshots (game_id, version, state) VALUES (?, ?, ?)",
                (game_id, version, state),
            )

    # -- the action log -----------------------------------------------------------

    async def record_action(
        self, game_id: int, *, seat: int, action: str, events: str, before: int, after: int,
        state: str, finished: bool,
    ) -> None:
        """Append one accepted action and its snapshot atomically.

        ``before`` is the version the action was applied to: if another writer got
        there first the transaction fails and nothing is stored.
        """
        now = time.time()
        async with self._transaction() as db:
            cur = await db.execute(
                "UPDATE games SET version = ?, updated_at = ?, status = ? "
                "WHERE id = ? AND version = ? AND status = 'running'",
                (after, now, "finished" if finished else "running", game_id, before),
            )
            if cur.rowcount != 1:
                raise StorageError(f"game {game_id} is not at version {before}")
            await db.execute(
                "INSERT INTO actions (game_id, version, seat, action, events, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, after, seat, action, events, now),
            )
            await db.execute(
                "INSERT OR REPLACE INTO snapshots (game_id, version, state) VALUES (?, ?, ?)",
                (game_id, after, state),
            )

    async def snapshot(self, game_id: int) -> tuple[int, str] | None:
        row = await self._one("SELECT version, state FROM snapshots WHERE game_id = ?", (game_id,))
        return None if row is None else (int(row[0]), str(row[1]))  # type: ignore[call-overload]

    async def save_snapshot(self, game_id: int, version: int, state: str) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT OR REPLACE INTO snapshots (game_id, version, state) VALUES (?, ?, ?)",
                (game_id, version, state),
            )

    async def actions(self, game_id: int, *, after: int = -1) -> list[ActionRow]:
        rows = await self._all(
            "SELECT version, seat, action, events FROM actions "
            "WHERE game_id = ? AND version > ? ORDER BY version", (game_id, after))
        return [ActionRow(*r) for r in rows]  # type: ignore[arg-type]

    async def mark_posted(self, game_id: int, version: int) -> None:
        async with self._transaction() as db:
            await db.execute(
                "UPDATE games SET posted_version = max(posted_version, ?) WHERE id = ?",
                (version, game_id))

    # -- users --------------------------------------------------------------------

    async def dm_refused_at(self, user_id: int) -> float | None:
        row = await self._one("SELECT dm_refused_at FROM users WHERE user_id = ?", (user_id,))
        return None if row is None or row[0] is None else float(row[0])  # type: ignore[arg-type]

    async def set_dm_refused(self, user_id: int, when: float | None) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO users (user_id, dm_refused_at) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET dm_refused_at = excluded.dm_refused_at",
                (user_id, when))

    # -- settings -------------------------------------------------------------------

    async def server_settings(self, guild_id: int | None) -> ServerSettings:
        """A server's settings (the defaults for a server that set none, or a DM game)."""
        row = None if guild_id is None else await self._one(
            "SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return ServerSettings() if row is None else ServerSettings.model_validate_json(str(row[0]))

    async def save_server_settings(self, guild_id: int, settings: ServerSettings) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, settings) VALUES (?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings",
                (guild_id, settings.model_dump_json()))

    async def player_settings(self, user_id: int) -> PlayerSettings:
        row = await self._one("SELECT settings FROM users WHERE user_id = ?", (user_id,))
        if row is None or row[0] is None:
            return PlayerSettings()
        return PlayerSettings.model_validate_json(str(row[0]))

    async def save_player_settings(self, user_id: int, settings: PlayerSettings) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO users (user_id, settings) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET settings = excluded.settings",
                (user_id, settings.model_dump_json()))
