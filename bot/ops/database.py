"""Which database the bot uses: PostgreSQL when ``TTR_DATABASE_URL`` is set (several bot
processes may share it), else the SQLite file ``TTR_DB_PATH`` (one process)."""

from __future__ import annotations

from bot.storage.api import Storage
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage


def is_postgres(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


async def open_storage(target: str) -> Storage:
    """Open and migrate the database at ``target``: a PostgreSQL URL or an SQLite file."""
    if is_postgres(target):
        return await PostgresStorage.open(target)
    return await SqliteStorage.open(target)


def describe(target: str) -> str:
    """``target`` for a log line or a message, without a password."""
    if not is_postgres(target):
        return target
    scheme, _, rest = target.partition("://")
    _, at, host = rest.rpartition("@")
    return f"{scheme}://{host}" if at else target
