"""The PostgreSQL backend: the database several bot processes share (``TTR_DATABASE_URL``).

The queries are ``Storage``'s; this module supplies the connections (an asyncpg pool),
the migrations and what sharing needs:

- a change to one game runs under a session advisory lock on that game
  (``game_lock``), held on one pooled connection that every query of the change then
  uses, so two processes never apply actions to the same game at once and the action
  row and snapshot still commit in one transaction before the bot answers;
- a job is claimed with ``SELECT ... FOR UPDATE SKIP LOCKED`` and a lease (see
  ``Storage.claim_job``), so each runs once across processes, also when one dies.
"""

from __future__ import annotations

import asyncio
import functools
import re
import types
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Generator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

import asyncpg

from bot.storage.api import Storage, StorageError, TransactionAwaited, Tx
from bot.storage.migrations import PG_MIGRATIONS

T = TypeVar("T")

if TYPE_CHECKING:  # asyncpg's classes are generic in its stubs only
    from asyncpg.pool import PoolConnectionProxy

    # A connection, or the pool's proxy for one.
    _Conn: TypeAlias = asyncpg.Connection[Any] | PoolConnectionProxy[Any]

# Advisory lock spaces (the first key of pg_advisory_lock(int, int)).
_GAME_LOCKS = 0x7474  # one lock per game id
_MIGRATION_LOCK = 0x7475  # one process migrates at a time
_STANDINGS_LOCK = 0x7476  # one game at a time is folded into the standings
_PUBLISH_LOCKS = 0x7477  # one per game id: one process publishes it at a time
# While another process publishes a game, look again this often (seconds).
PUBLISH_LOCK_POLL = 0.02


@functools.lru_cache(maxsize=512)
def _numbered(sql: str) -> str:
    """``?`` parameters as PostgreSQL's ``$1, $2, ...`` (no query has a literal ``?``)."""
    count = iter(range(1, sql.count("?") + 1))
    return re.sub(r"\?", lambda _: f"${next(count)}", sql)


def _changed(status: str) -> int:
    """Rows changed, from a command tag such as ``UPDATE 3`` or ``INSERT 0 1``."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class _PgTx:
    def __init__(self, conn: _Conn):
        self._conn = conn
        self.calling = 0  # calls under way (``_own_awaits_only``)

    async def _call(self, step: Awaitable[T]) -> T:
        self.calling += 1
        try:
            return await step
        finally:
            self.calling -= 1

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int:
        return _changed(await self._call(self._conn.execute(_numbered(sql), *args)))

    async def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        if rows:
            await self._call(self._conn.executemany(_numbered(sql), rows))

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> tuple[Any, ...] | None:
        row = await self._call(self._conn.fetchrow(_numbered(sql), *args))
        return None if row is None else tuple(row)

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await self._call(self._conn.fetch(_numbered(sql), *args))]


@types.coroutine
def _own_awaits_only(body: Coroutine[Any, Any, T], tx: _PgTx) -> Generator[Any, Any, T]:
    """Await ``body``, refusing (``TransactionAwaited``) any wait of it that is not one of
    ``tx``'s calls: the rule SQLite's transactions cannot help but keep (see ``Tx``), kept
    here too, so a body that passes on one backend passes on the other."""
    value: Any = None
    error: BaseException | None = None
    while True:
        try:
            step = body.send(value) if error is None else body.throw(error)
        except StopIteration as done:
            return cast(T, done.value)
        if not tx.calling:
            body.close()
            raise TransactionAwaited
        try:
            value, error = (yield step), None
        except BaseException as exc:  # the loop throws in (a cancellation): pass it on
            value, error = None, exc


class PostgresStorage(Storage):
    shared = True
    _INTEGRITY_ERRORS = (asyncpg.IntegrityConstraintViolationError,)
    _HISTORY_ORDER = "rowid"
    _SKIP_LOCKED = " FOR UPDATE SKIP LOCKED"
    _BY_CODE_POINT = ' COLLATE "C"'

    def __init__(self, pool: asyncpg.Pool[Any], *,
                 migrations: Sequence[str] = PG_MIGRATIONS):
        super().__init__()
        self._pool = pool
        self._migrations = migrations
        # The connection that holds this process's publish locks (``hold_publishing``),
        # one statement at a time: taken from the pool once, not one per publish (a
        # publish holding one while it waits for another could drain the pool).
        self._publishing: PoolConnectionProxy[Any] | None = None
        self._publishing_use = asyncio.Lock()
        # The connection holding this task's game lock: every query of the change runs
        # on it (a task the change starts has its own, from the pool).
        self._held: ContextVar[tuple[_Conn, asyncio.Task[Any] | None]
                               | None] = ContextVar(f"ttr-game-lock-{id(self)}", default=None)

    @classmethod
    async def open(cls, url: str, *, migrations: Sequence[str] = PG_MIGRATIONS,
                   pool_size: int = 10) -> PostgresStorage:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size)
        try:
            store = cls(pool, migrations=migrations)
            await store.migrate()
        except BaseException:
            await pool.close()
            raise
        return store

    async def check(self) -> None:
        row = await self._one(
            "SELECT pg_is_in_recovery(), current_setting('transaction_read_only')")
        if row is None or row[0] or row[1] != "off":
            raise StorageError("the PostgreSQL server is read-only (a standby?): point "
                               "TTR_DATABASE_URL at the primary")

    async def close(self) -> None:
        if self._publishing is not None:
            await self._pool.release(self._publishing)
            self._publishing = None
        await self._pool.close()

    async def hold_publishing(self, game_id: int) -> Callable[[], Awaitable[None]]:
        # Tried and tried again, not waited for on the connection: every game's lock of
        # this process is on it. Advisory locks count per session, so this process's own
        # takes nest; its in-memory lock keeps its publishers of one game apart.
        while not await self._on_publishing(
                "SELECT pg_try_advisory_lock($1, $2)", _PUBLISH_LOCKS, game_id):
            await asyncio.sleep(PUBLISH_LOCK_POLL)

        async def release() -> None:
            await self._on_publishing("SELECT pg_advisory_unlock($1, $2)", _PUBLISH_LOCKS,
                                      game_id)
        return release

    async def _on_publishing(self, sql: str, *args: object) -> bool:
        async with self._publishing_use:
            if self._publishing is None or self._publishing.is_closed():
                self._publishing = await self._pool.acquire()
            return bool(await self._publishing.fetchval(sql, *args))

    async def backup(self, target: str) -> None:
        raise StorageError("the database is PostgreSQL: back it up with pg_dump (or the "
                           "server's own backups), not `python -m bot backup`")

    def _mine(self) -> _Conn | None:
        held = self._held.get()
        return held[0] if held is not None and held[1] is asyncio.current_task() else None

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[_Conn]:
        conn = self._mine()
        if conn is not None:
            yield conn
            return
        async with self._pool.acquire() as pooled:
            yield pooled

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        async with self._connection() as conn:
            await conn.execute("SELECT pg_advisory_lock($1, $2)", _GAME_LOCKS, game_id)
            token = self._held.set((conn, asyncio.current_task()))
            try:
                yield
            finally:
                self._held.reset(token)
                # A cancelled unlock is no leak: the pool resets a returned connection
                # with pg_advisory_unlock_all().
                await conn.execute("SELECT pg_advisory_unlock($1, $2)", _GAME_LOCKS, game_id)

    @asynccontextmanager
    async def bulk(self) -> AsyncIterator[_Conn]:
        """A connection in one transaction, for copying whole tables (``bot.ops.migrate``)."""
        async with self._pool.acquire() as conn, conn.transaction():
            yield conn

    async def _transact(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        async with self._connection() as conn, conn.transaction():
            tx = _PgTx(conn)
            return await _own_awaits_only(body(tx), tx)

    async def _lock_standings(self, db: Tx) -> None:
        await db.execute("SELECT pg_advisory_xact_lock(?, 0)", (_STANDINGS_LOCK,))

    async def _one(self, sql: str, args: Sequence[object] = ()) -> Sequence[object] | None:
        async with self._connection() as conn:
            return await _PgTx(conn).fetchone(sql, args)

    async def _all(self, sql: str, args: Sequence[object] = ()) -> list[Sequence[object]]:
        async with self._connection() as conn:
            return list(await _PgTx(conn).fetchall(sql, args))

    # -- schema -----------------------------------------------------------------

    async def schema_version(self) -> int:
        row = await self._one("SELECT to_regclass('ttr_schema') IS NOT NULL")
        if row is None or not row[0]:
            return 0
        version = await self._one("SELECT version FROM ttr_schema")
        return 0 if version is None else int(str(version[0]))

    async def migrate(self) -> None:
        """All steps due in one transaction (PostgreSQL's DDL is transactional), one
        process at a time."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1, 0)", _MIGRATION_LOCK)
            await conn.execute("CREATE TABLE IF NOT EXISTS ttr_schema (version INTEGER NOT NULL)")
            current = await conn.fetchval("SELECT version FROM ttr_schema")
            if current is None:
                current = 0
                await conn.execute("INSERT INTO ttr_schema (version) VALUES (0)")
            if current > len(self._migrations):
                raise StorageError(f"database schema {current} is newer than this bot "
                                   f"({len(self._migrations)})")
            for number, script in enumerate(self._migrations[current:], start=current + 1):
                await conn.execute(script)
                await conn.execute("UPDATE ttr_schema SET version = $1", number)
