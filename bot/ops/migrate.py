"""``python -m bot migrate-to-postgres``: copy the SQLite database into PostgreSQL.

Every table is copied as it is (games, seats, the action log, snapshots, history, votes,
settings, derived results, scheduled jobs, ...) into a database without games, keeping
every id (what a bot already started on it wrote without a game, such as the synced
commands' hash, is replaced by the copy: compose's order is `up`, then this); then each
started game's copied log is replayed through the engine and must give the state the game
had in SQLite. All in one PostgreSQL transaction: if any game does not check out, nothing
is kept. Stop the bot first: the file must not change meanwhile.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.storage.api import ActionRow
from bot.storage.codec import replay_log
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage
from engine.state import migrate_snapshot

# Copied first: every other table refers to games (or to nothing).
PARENTS = ("games",)


class MigrationError(Exception):
    """The copy was refused or does not check out; one line for the operator."""


@dataclass(frozen=True)
class Copied:
    rows: dict[str, int]  # table -> rows copied
    games_checked: int  # started games whose log replayed to the same state on both sides

    def summary(self) -> str:
        counts = ", ".join(f"{n} {t}" for t, n in self.rows.items() if n)
        return (f"copied {counts or 'nothing'}; all {self.games_checked} started games "
                f"replay to the same state")


async def migrate_to_postgres(sqlite_path: str, url: str) -> Copied:
    """Copy, check, and commit only if every game checks out (else nothing is kept)."""
    source = await SqliteStorage.open(sqlite_path)
    try:
        target = await PostgresStorage.open(url)
        try:
            async with target.bulk() as conn:
                rows = await _copy(source, conn)
                checked = await _check(source, conn)
        finally:
            await target.close()
    finally:
        await source.close()
    return Copied(rows, checked)


async def _copy(source: SqliteStorage, conn: Any) -> dict[str, int]:
    if await conn.fetchval("SELECT count(*) FROM games"):
        raise MigrationError("the PostgreSQL database has games already: migrate into an "
                             "empty database")
    for table in await source.tables():
        # No game: these rows are a new bot's first start (its state, deliveries seen).
        await conn.execute(f"DELETE FROM {table}")
    identities = await conn.fetch(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND is_identity = 'YES'")
    copied = {}
    for table in sorted(await source.tables(), key=lambda t: (t not in PARENTS, t)):
        columns = await source.columns(table)
        # A column PostgreSQL has and SQLite keeps implicit (history's rowid: its order).
        if any(r["table_name"] == table and r["column_name"] == "rowid" for r in identities):
            columns = ["rowid", *columns]
        records = await source.rows(table, columns)
        await conn.copy_records_to_table(table, records=records, columns=columns)
        copied[table] = len(records)
    for r in identities:  # the next id follows the copied ones
        table, column = r["table_name"], r["column_name"]
        await conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                           f"coalesce(max({column}), 0) + 1, false) FROM {table}")
    return copied


async def _check(source: SqliteStorage, conn: Any) -> int:
    """Every started game: its log in PostgreSQL replays, at the game's version, to the
    state it had in SQLite (its snapshot there; a replay of the SQLite log where the
    snapshot is behind, being a cache)."""
    checked = 0
    for game_id, config, version in await conn.fetch(
            "SELECT id, config, version FROM games WHERE config IS NOT NULL ORDER BY id"):
        log = [ActionRow(*r) for r in await conn.fetch(
            "SELECT version, seat, action, events, user_id, undoes FROM actions WHERE game_id = $1 "
            "ORDER BY version", game_id)]
        moved = replay_log(config, log)
        snap = await source.snapshot(game_id)
        was: object
        if snap is not None and snap[0] == version:
            was = migrate_snapshot(json.loads(snap[1]))  # as loading it would read it
        else:
            was = _plain(replay_log(config, await source.actions(game_id)).to_snapshot())
        problem = None
        if moved.version != version:
            problem = f"its log replays to version {moved.version}, not {version}"
        elif _plain(moved.to_snapshot()) != was:
            problem = "its log replays to another state than it had"
        if problem:
            raise MigrationError(f"game {game_id}: {problem}; nothing was copied (look at "
                                 f"the SQLite file with `python -m bot check` first)")
        checked += 1
    return checked


def _plain(snapshot: object) -> object:
    """As stored (JSON has lists, no tuples)."""
    return json.loads(json.dumps(snapshot))
