"""SQLite, the default backend: one aiosqlite connection in WAL mode, the single writer,
and ``SqliteStorage`` running ``Storage``'s queries on it (PostgreSQL:
``bot.storage.postgres``)."""

from __future__ import annotations

import asyncio
import contextvars
import sqlite3
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar, cast

import aiosqlite

from bot import fence
from bot.storage.api import Storage, StorageError, TransactionAwaited, Tx
from bot.storage.migrations import MIGRATIONS

T = TypeVar("T")
# How long SQLite's writer waits for another process's lock (a backup) before it fails.
BUSY_TIMEOUT_MS = 5000


class _SqliteTx:
    """The writer connection inside a transaction, in the writer's thread: each call is
    done when it returns (a transaction's body, ``Storage._transact``, never waits)."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int:
        return int(self._conn.execute(sql, args).rowcount)

    async def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        self._conn.executemany(sql, rows)

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> tuple[Any, ...] | None:
        rows = self._conn.execute(sql, args).fetchall()  # the statement runs to its end
        return tuple(rows[0]) if rows else None

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self._conn.execute(sql, args).fetchall()]


def _finish(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run to its end, here and now, a coroutine that never waits (a transaction's body
    on ``_SqliteTx``)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return cast(T, done.value)
    coroutine.close()
    raise TransactionAwaited


async def _nothing(db: Tx) -> None:
    """A transaction's body that adds nothing (to commit what was held back)."""


@dataclass
class _Queued:
    """A transaction waiting for SQLite's writer: the statements held back for it
    (``_write_later``), its body, and where its result goes."""

    later: list[tuple[str, Sequence[object]]]
    body: Callable[[Tx], Coroutine[Any, Any, Any]]
    done: asyncio.Future[Any]


def _commit_together(db: sqlite3.Connection, batch: Sequence[_Queued]
                     ) -> list[tuple[bool, Any]]:
    """Each queued transaction in a savepoint of one transaction, committed at once. Per
    transaction (ok, result or exception): one that fails is rolled back alone; if the
    whole transaction is lost (a disk error, the commit fails), this raises and none of
    them is committed."""
    db.execute("BEGIN IMMEDIATE")
    outcomes = _run_together(db, batch)
    _commit(db)
    return outcomes


def _commit(db: sqlite3.Connection) -> None:
    """Commit the transaction ``_run_together`` left open (the fsync); roll it back if
    that fails, and raise."""
    try:
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _run_together(db: sqlite3.Connection, batch: Sequence[_Queued]
                  ) -> list[tuple[bool, Any]]:
    """``_commit_together`` in the transaction begun, up to its commit: the transaction
    is left open, or rolled back if this raises."""
    outcomes: list[tuple[bool, Any]] = []
    try:
        for queued in batch:
            db.execute("SAVEPOINT queued")
            try:
                for sql, args in queued.later:
                    db.execute(sql, args)
                outcomes.append((True, _finish(queued.body(_SqliteTx(db)))))
            except Exception as exc:
                if not db.in_transaction:
                    raise  # SQLite rolled the whole transaction back
                db.execute("ROLLBACK TO queued")
                outcomes.append((False, exc))
            db.execute("RELEASE queued")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return outcomes


def _read_only(path: str) -> sqlite3.Connection:
    """A connection for the event loop's single-row reads (``SqliteStorage._one``)."""
    reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    reader.execute("PRAGMA query_only=ON")
    reader.execute("PRAGMA busy_timeout=1000")
    return reader


class SqliteStorage(Storage):
    """One aiosqlite connection in WAL mode, the single writer; one bot process.

    Every use of the writer is one trip to aiosqlite's thread (``_call``): a whole
    transaction runs there at once. Its thread takes the trips in order, so no two
    transactions interleave, and a trip costs the event loop more than most statements.
    Group commit: the transactions that come while the writer is busy go together in
    its next trip, each in a savepoint of one transaction, so they share one commit
    (one fsync) instead of waiting for one each (see ``_transact``).
    """

    _INTEGRITY_ERRORS = (sqlite3.IntegrityError,)

    def __init__(self, conn: aiosqlite.Connection, *, migrations: Sequence[str] = MIGRATIONS):
        super().__init__()
        self._conn = conn
        self._migrations = migrations
        # Single-row reads run on the event loop on a read-only connection of their own:
        # an indexed read takes ~10 us there (0.2-0.4 ms, the first after another
        # connection's commit: it rereads the WAL index), a trip to aiosqlite's thread
        # ~100-150 us of the loop's time. WAL lets it read while the writer writes; every
        # read sees what was committed before it (reads inside a transaction go through
        # the writer).
        self._reader: sqlite3.Connection | None = None
        self.trips = 0  # trips to the writer's thread so far (bench/bench_bot.py counts them)
        self._in_thread = 0  # trips there not answered yet
        self._later: list[tuple[str, Sequence[object]]] = []  # see ``_write_later``
        self._queued: list[_Queued] = []  # transactions for the writer's next trip
        self._committer: asyncio.Task[None] | None = None  # the task taking them there

    @classmethod
    async def open(
        cls, path: str, *, migrations: Sequence[str] = MIGRATIONS, durable: bool = True,
        migrate: bool = True,
    ) -> SqliteStorage:
        """``migrate=False``: the schema as it is (a backup reads a database that the
        running bot, perhaps an older version, owns)."""
        # The event loop runs the writer's statements too (``_commit_queued``).
        conn = await aiosqlite.connect(path, isolation_level=None, check_same_thread=False)
        # Close on any failure: an open aiosqlite thread would keep the process alive.
        try:
            store = cls(conn, migrations=migrations)

            def configure(db: sqlite3.Connection) -> None:
                db.execute("PRAGMA journal_mode=WAL")
                # FULL: a committed action survives a power cut too, not only a crash.
                db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
                db.execute("PRAGMA foreign_keys=ON")
                db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            await store._call(configure)
            if migrate:
                await store.migrate()
            store._reader = _read_only(path)
        except BaseException:
            await conn.close()
            raise
        return store

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(writer)`` in aiosqlite's thread: one trip there."""
        self.trips += 1
        self._in_thread += 1
        try:
            return await fence.in_sqlite_thread(self._conn, fn)
        finally:
            self._in_thread -= 1

    async def check(self) -> None:
        """At start-up: the file is a sound database (``PRAGMA quick_check``) that this
        process can write; raise ``StorageError`` saying what is wrong otherwise."""
        rows = await self._all("PRAGMA quick_check")
        problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        if problems:
            raise StorageError(f"quick_check found {len(problems)} problem(s), first: "
                               f"{problems[0]}")

        def try_writing(db: sqlite3.Connection) -> None:
            # A read-only file opens fine and fails on the first write.
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
        await self._call(try_writing)

    async def close(self, *, checkpoint: bool = True) -> None:
        """Checkpoint the WAL into the database file, then close: the file alone is whole.
        ``checkpoint=False``: leave that to the process that owns the file (a backup)."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        try:
            if self._later or self._committer is not None:
                await self._transact(_nothing)  # after every transaction queued before
            if checkpoint:
                await self._call(lambda db: db.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
        except sqlite3.OperationalError:
            pass  # the file is busy: closing checkpoints too
        finally:
            await self._conn.close()

    async def backup(self, target: str) -> None:
        """A consistent copy of the live database in ``target`` (a new file), taken in one
        read transaction while the bot may keep writing (``VACUUM INTO``)."""
        await self._call(lambda db: db.execute("VACUUM INTO ?", (target,)))

    async def _transact(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        # Queued for the writer's next trip, with the other transactions that come
        # meanwhile (each commits whole or not at all, and is answered once committed).
        queued = _Queued(self._later, body, asyncio.get_running_loop().create_future())
        self._later = []
        self._queued.append(queued)
        if self._committer is None:
            # It serves every caller, so it runs in a context of its own, not in the one
            # of whichever caller started it (whose context variables would follow it).
            self._committer = asyncio.create_task(self._commit_queued(),
                                                  context=contextvars.Context())
        return cast(T, await queued.done)

    async def _commit_queued(self) -> None:
        """Take the queued transactions to the writer, all those queued at once per trip,
        until none is left (a task of its own: a caller that gives up stops nothing)."""
        try:
            while self._queued:
                batch, self._queued = self._queued, []
                try:
                    outcomes = await self._commit_batch(batch)
                except asyncio.CancelledError:  # the loop stops: nobody waits for them
                    for queued in batch:
                        queued.done.cancel()
                    raise
                except Exception as exc:  # none of them was committed
                    outcomes = [(False, exc)] * len(batch)
                # What was held back for a transaction not committed goes with the next.
                self._later[:0] = [s for q, (ok, _) in zip(batch, outcomes, strict=True)
                                   if not ok for s in q.later]
                for queued, (ok, result) in zip(batch, outcomes, strict=True):
                    if queued.done.done():
                        continue
                    if ok:
                        queued.done.set_result(result)
                    else:
                        queued.done.set_exception(result)
        finally:
            self._committer = None

    async def _settle(self) -> None:
        if self._later:
            await self._transact(_nothing)

    async def _commit_batch(self, batch: Sequence[_Queued]) -> list[tuple[bool, Any]]:
        """``_commit_together``: its statements on the event loop, where they take ~10 us
        each, and only the commit (the fsync) in the writer's thread; in a thread, each
        statement waits for the GIL while the loop runs, milliseconds a batch. All of it
        goes to the thread when the writer is in use there (a read, a backup)."""
        db = fence.sqlite_connection(self._conn)
        begun = False
        if not self._in_thread:
            # The loop never waits for another process's lock (a backup's checkpoint):
            # then the batch waits for it in the thread.
            db.execute("PRAGMA busy_timeout=0")
            try:
                db.execute("BEGIN IMMEDIATE")
                begun = True
            except sqlite3.OperationalError:
                pass
            db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        if not begun:
            return await self._call(partial(_commit_together, batch=batch))
        outcomes = _run_together(db, batch)
        await self._call(_commit)
        return outcomes

    async def _write_later(self, sql: str, args: Sequence[object] = ()) -> None:
        # Held for the next write (an action's, or any other): a trip less. A read that
        # must see it runs what is held back first (``_settle``: the rows of ``games``).
        self._later.append((sql, args))

    async def _one(self, sql: str, args: Sequence[object] = ()) -> Sequence[object] | None:
        if self._reader is not None:
            row: tuple[object, ...] | None = self._reader.execute(sql, args).fetchone()
            return row
        rows = await self._all(sql, args)
        return rows[0] if rows else None

    async def _all(self, sql: str, args: Sequence[object] = ()) -> list[Sequence[object]]:
        return await self._call(lambda db: [tuple(r) for r in db.execute(sql, args).fetchall()])

    async def _few(self, sql: str, args: Sequence[object] = ()) -> list[Sequence[object]]:
        # On the reader, as ``_one``: the writer's thread stays free for commits.
        if self._reader is not None:
            return list(self._reader.execute(sql, args).fetchall())
        return await self._all(sql, args)

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        yield  # one process owns the file: the service's in-memory lock is enough

    # -- the whole database, table by table (``bot.ops.migrate``) -----------------------------

    async def tables(self) -> list[str]:
        return [str(r[0]) for r in await self._all(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name")]

    async def columns(self, table: str) -> list[str]:
        return [str(r[1]) for r in await self._all(f"PRAGMA table_info({table})")]

    async def rows(self, table: str, columns: Sequence[str]) -> list[tuple[Any, ...]]:
        """Every row of ``table`` (with ``rowid`` among ``columns``: in the order written)."""
        order = " ORDER BY rowid" if "rowid" in columns else ""
        return [tuple(r) for r in await self._all(
            f"SELECT {', '.join(columns)} FROM {table}{order}")]

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
        if current == len(self._migrations):
            return
        steps = list(enumerate(self._migrations[current:], start=current + 1))

        def run(db: sqlite3.Connection) -> None:
            # A step may rebuild a table (the only way SQLite changes a constraint): with
            # foreign keys on, dropping the old table would delete every row that refers to
            # it. The pragma is ignored inside a transaction, so it is switched around the
            # steps.
            db.execute("PRAGMA foreign_keys=OFF")
            try:
                for number, script in steps:
                    # executescript commits first; BEGIN ... COMMIT makes each step atomic.
                    try:
                        db.executescript(f"BEGIN IMMEDIATE;\n{script}\n"
                                         f"PRAGMA user_version = {number};\nCOMMIT;")
                    except BaseException:
                        if db.in_transaction:
                            db.execute("ROLLBACK")
                        raise
                broken = db.execute("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise StorageError(
                        f"the migrated database breaks foreign keys: {broken[:3]}")
            finally:
                db.execute("PRAGMA foreign_keys=ON")
        await self._call(run)
