"""The fence: every use of a library's private internals, each behind a named function.

Nothing else in the project reaches into aiosqlite's, discord.py's or the process pool's
private parts;
``tests/bot/test_fence.py`` checks each use here against the installed library, so an
upgrade that moves one fails there, loudly and by name, not somewhere in a game.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar, cast

import aiosqlite
import discord

T = TypeVar("T")


# -- aiosqlite ------------------------------------------------------------------------------


def sqlite_connection(conn: aiosqlite.Connection) -> sqlite3.Connection:
    """The ``sqlite3`` connection inside an aiosqlite one (``Connection._conn``): the
    storage runs a batch's statements on the event loop with it, when aiosqlite's thread
    is idle (``SqliteStorage._commit_batch``)."""
    return conn._conn


async def in_sqlite_thread(conn: aiosqlite.Connection,
                           fn: Callable[[sqlite3.Connection], T]) -> T:
    """``fn(connection)`` in aiosqlite's own thread, in turn with its other calls
    (``Connection._execute``): aiosqlite has no public way to run a function there."""
    db = sqlite_connection(conn)
    execute = cast(Callable[[Callable[[], T]], Awaitable[T]], conn._execute)
    return await execute(lambda: fn(db))


# -- discord.py -----------------------------------------------------------------------------


def dispatch_interaction(client: discord.Client, payload: dict[str, Any]) -> None:
    """Hand a raw ``INTERACTION_CREATE`` payload to the client's dispatch as the gateway
    would (``ConnectionState.parse_interaction_create``): the fake Discord's way in."""
    client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]


def route_requests(client: discord.Client, request: Callable[..., Awaitable[Any]]) -> None:
    """Send every REST request of the client to ``request`` (``HTTPClient.request``, the
    one exit of discord.py's HTTP client): the fake Discord answers them."""
    client.http.request = request  # type: ignore[method-assign,assignment]


# -- concurrent.futures ---------------------------------------------------------------------


def pool_result_pipe(pool: ProcessPoolExecutor) -> int:
    """The file descriptor of the pipe a process pool's workers send their results
    through (``ProcessPoolExecutor._result_queue``, a ``SimpleQueue``'s reading end)."""
    return int(pool._result_queue._reader.fileno())  # type: ignore[attr-defined]
