"""The bot process from start to stop, around ``TTRBot``.

Start-up checks everything local first (settings, the database: open, migrate,
``PRAGMA quick_check``, writable; the renderer) so a local mistake is one line
and a non-zero exit even when Discord cannot be reached. Logging in retries
with backoff while Discord is unreachable and stops at once on a refused token.
SIGTERM and SIGINT alike stop taking interactions, let the ones in flight
finish, close the database with its WAL checkpointed and exit 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sqlite3
import sys
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import asyncpg
import discord

from bot.ops import collector, stop_signals
from bot.ops.config import Settings
from bot.ops.database import describe, is_postgres, open_storage
from bot.ops.diskspace import no_space_left
from bot.storage.api import Storage, StorageError
from bot.storage.sqlite import SqliteStorage

if TYPE_CHECKING:
    from bot.edge.client import TTRBot
    from bot.game.images import Renderer

log = logging.getLogger(__name__)

# Seconds between login attempts while Discord is unreachable (the last one repeats).
RETRY_DELAYS: tuple[float, ...] = (5, 10, 30, 60, 120, 300)
# How long a stop waits for the interactions in flight (docker stop allows 10 s).
GRACE_SECONDS = 8.0


class StartupError(Exception):
    """Something local or a refused login that retrying cannot fix: one line for the admin."""


async def open_database(path: str) -> Storage:
    """Open, migrate and check the database (a PostgreSQL URL, else an SQLite file);
    ``StartupError`` names the database and the fix."""
    if is_postgres(path):
        return await _open_postgres(path)
    file = Path(path).expanduser().resolve()
    folder = file.parent
    if not folder.is_dir():
        raise StartupError(f"database folder {folder} does not exist: create it, or set "
                           f"TTR_DB_PATH to a file in a folder that exists")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StartupError(f"cannot write in {folder} (the database and its -wal/-shm files "
                           f"live there): make it writable for this user (uid {os.getuid()}) "
                           f"or set TTR_DB_PATH to a writable place")
    if file.exists() and not os.access(file, os.R_OK | os.W_OK):
        raise StartupError(f"database {file} is read-only for this user (uid {os.getuid()}): "
                           f"fix its owner or permissions")
    store = None
    try:
        store = await SqliteStorage.open(str(file))
        await store.check()
    except (sqlite3.Error, StorageError) as exc:
        if store is not None:
            await store.close()
        raise StartupError(_database_problem(file, exc)) from None
    return store


async def _open_postgres(url: str) -> Storage:
    store = None
    try:
        store = await open_storage(url)
        await store.check()
    except (OSError, asyncpg.PostgresError, StorageError) as exc:
        if store is not None:
            await store.close()
        raise StartupError(f"database {describe(url)}: {exc}") from None
    return store


def _database_problem(file: Path, exc: Exception) -> str:
    full = no_space_left(file.parent, exc)
    if full is not None:
        return f"database {file}: {full}"
    text = str(exc)
    low = text.lower()
    if "readonly" in low or "read-only" in low:
        return (f"database {file} is read-only ({text}): fix its owner or permissions, "
                f"and those of its folder")
    if "locked" in low or "busy" in low:
        return f"database {file} is locked by another process: is another bot running on it?"
    if "newer than this bot" in low:
        return f"database {file}: {text}; run the newer bot version, or restore a backup"
    if "unable to open" in low:
        return f"cannot open database {file} ({text}): check the path and its permissions"
    return (f"database {file} is damaged ({text}): stop here and restore the latest backup "
            f"(see `python -m bot backup`); the file was left as it is")


async def backup(path: str, target: str) -> str:
    """Write a consistent copy of the database at ``path`` to the new file ``target``."""
    if is_postgres(path):
        raise StartupError("the database is PostgreSQL (TTR_DATABASE_URL): back it up with "
                           "pg_dump or the server's own backups")
    out = Path(target).expanduser().resolve()
    if out.exists():
        raise StartupError(f"{out} exists already: name a new file")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)  # e.g. `backups/`, the first time
    except OSError as exc:
        raise StartupError(f"cannot create the folder {out.parent} for the backup "
                           f"({exc.strerror or exc})") from None
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise StartupError(f"there is no database at {file}: name the bot's database file "
                           f"(TTR_DB_PATH)")
    # Read only: the running bot owns the file, its schema (no migration here) and its
    # WAL (a checkpoint from here would take its write lock for as long as it runs).
    try:
        store = await SqliteStorage.open(str(file), migrate=False)
    except sqlite3.Error as exc:
        raise StartupError(_database_problem(file, exc)) from None
    try:
        await store.backup(str(out))
    except sqlite3.Error as exc:
        raise StartupError(f"backup to {out} failed: {exc}") from None
    finally:
        await store.close(checkpoint=False)
    copy = await SqliteStorage.open(str(out), migrate=False)  # a sound database too
    try:
        await copy.check()
    finally:
        await copy.close()
    return f"wrote {out} ({out.stat().st_size // 1024} KiB), a consistent copy of {path}"


def describe_network_error(exc: BaseException) -> str:
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return f"DNS lookup of {exc.host} failed: no network or no DNS"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"cannot connect to {exc.host}:{exc.port} ({exc.os_error.strerror or exc})"
    if isinstance(exc, discord.DiscordServerError):
        return f"Discord answers {exc.status}: it has trouble of its own"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    return f"{type(exc).__name__}: {exc}"


NETWORK_ERRORS = (OSError, aiohttp.ClientError, TimeoutError, discord.DiscordServerError,
                  discord.GatewayNotFound)


async def login_with_retry(login: Callable[[], Awaitable[None]], stop: asyncio.Event,
                           delays: Sequence[float] = RETRY_DELAYS) -> bool:
    """Run ``login`` until it succeeds (True) or ``stop`` is set (False).

    A refused token raises ``StartupError`` at once; an unreachable Discord is one
    warning per attempt and a growing wait.
    """
    attempt = 0
    while not stop.is_set():
        try:
            await login()
            return True
        except discord.LoginFailure:
            raise StartupError("Discord refused DISCORD_TOKEN (LoginFailure): reset the token "
                               "in the Developer Portal (Bot > Reset Token) and set the new "
                               "one") from None
        except NETWORK_ERRORS as exc:
            delay = delays[min(attempt, len(delays) - 1)]
            attempt += 1
            log.warning("Discord is unreachable (%s); retrying in %.0f s",
                        describe_network_error(exc), delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
    return False


def on_stop_signals(stop: asyncio.Event) -> None:
    """SIGTERM (docker stop, systemd) and SIGINT (Ctrl-C) both ask for a clean stop, also
    one that came while the process was starting (``bot.ops.stop_signals``)."""
    loop = asyncio.get_running_loop()
    for sig in stop_signals.STOP_SIGNALS:
        loop.add_signal_handler(sig, _stop_requested, stop, sig)
    for sig in stop_signals.received[:1]:
        log.info("%s received while starting", sig.name)
        _stop_requested(stop, sig)


def _stop_requested(stop: asyncio.Event, sig: signal.Signals) -> None:
    if not stop.is_set():
        log.info("%s received: stopping", sig.name)
    stop.set()


Connect = Callable[["TTRBot", asyncio.Event], Coroutine[Any, Any, None]]


async def connect_to_discord(bot: TTRBot, stop: asyncio.Event) -> None:
    """Log in (retrying while Discord is unreachable), then keep the gateway connected
    (discord.py reconnects by itself from here)."""
    async def login() -> None:
        try:
            await bot.login(bot.settings.token)
        except NETWORK_ERRORS:
            # Each attempt opens its own HTTP session (and connector): close the failed
            # one, or every retry leaves an open session behind.
            await bot.http.close()
            bot.http.connector = discord.utils.MISSING
            raise

    if await login_with_retry(login, stop):
        await bot.connect(reconnect=True)


# How long a thread may hold the GIL while another waits for it (Python's default: 5 ms).
# The database runs in aiosqlite's thread, which needs the GIL back for every query's
# answer; while the event loop is busy with other games, each of an action's few dozen
# queries would wait up to the whole interval (a convoy): 0.5 ms keeps that short.
SWITCH_INTERVAL = 0.0005


def tune_interpreter() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL)
    collector.tune()


async def serve(settings: Settings, *, force_sync: bool = False,
                connect: Connect = connect_to_discord, renderer: Renderer | None = None,
                grace: float = GRACE_SECONDS) -> None:
    """Check everything local, connect, run until SIGTERM/SIGINT, stop cleanly.

    ``renderer`` defaults to the real one in a process per core; ``connect`` to Discord.
    """
    from bot.edge.client import TTRBot
    from bot.game.images import check_renderer, cores, default_renderer

    tune_interpreter()
    stop = asyncio.Event()
    on_stop_signals(stop)
    storage = await open_database(settings.database)
    bot = TTRBot(settings, storage=storage, force_sync=force_sync,
                 renderer=renderer or default_renderer(processes=cores()))
    runner: asyncio.Task[None] | None = None
    health = None
    try:
        await bot.prepare()
        collector.freeze()  # what start-up built stays out of every later collection
        log.info("%s", await check_renderer(bot.renderer))
        bot.renderer.start()
        if settings.health_port is not None:
            from bot.ops.health import HealthServer

            health = HealthServer(bot, settings.health_host, settings.health_port)
            try:
                await health.start()
            except OSError as exc:
                raise StartupError(f"TTR_HEALTH_PORT: cannot listen on {settings.health_host}:"
                                   f"{settings.health_port} ({exc.strerror or exc})") from None
        log.info("local checks passed; connecting to Discord")
        runner = asyncio.create_task(connect(bot, stop))
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait({runner, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if runner.done():
            runner.result()  # a refused token (StartupError) or a crash ends the process
    finally:
        await bot.shutdown(grace)
        if runner is not None and not runner.done():
            # The gateway is closed: the connection attempt ends, or is given up.
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(runner, 1.0)
        if health is not None:
            await health.stop()
    log.info("stopped cleanly")
