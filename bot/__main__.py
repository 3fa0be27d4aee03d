"""``python -m bot`` (or ``ttr-bot``): run the Discord bot, or look after its database.

    python -m bot [--sync-commands]   run the bot (settings: environment, then .env)
    python -m bot check               check settings, database and renderer; no Discord
    python -m bot backup FILE         write a consistent copy of the live database to FILE
    python -m bot health              exit 0 if the running bot's health endpoint says so
    python -m bot doctor [--channel ID]
                                      with the token: the servers the bot is in; for a
                                      channel, its permissions there against the needed
                                      ones, and a test message and thread posted, edited
                                      and deleted (one line per problem)
    python -m bot migrate-to-postgres [FILE]
                                      copy the SQLite database (FILE, else TTR_DB_PATH)
                                      into the empty PostgreSQL one at TTR_DATABASE_URL

Every problem is one line on stderr and a non-zero exit: 2 for settings, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from bot.ops import stop_signals

if TYPE_CHECKING:
    from bot.ops.config import Settings

COMMANDS = ("run", "check", "backup", "health", "migrate-to-postgres", "doctor")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ttr-bot", description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", default="run", choices=COMMANDS)
    parser.add_argument("file", nargs="?", help="backup: the new file to write; "
                        "migrate-to-postgres: the SQLite file (default: TTR_DB_PATH)")
    parser.add_argument("--sync-commands", action="store_true",
                        help="sync the slash commands with Discord even if they look unchanged")
    parser.add_argument("--channel", type=int, metavar="ID",
                        help="doctor: the channel (or thread) to check, by its id")
    args = parser.parse_args(argv)
    if args.command == "backup" and not args.file:
        parser.error("backup needs the file to write, e.g. `python -m bot backup backup.sqlite3`")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.command == "run":  # before the slow imports: a stop from now on is clean
        stop_signals.remember()
    import logging

    from bot.ops.config import ConfigError, Settings
    from bot.ops.lifecycle import StartupError

    try:
        settings = Settings.from_env(need_token=args.command in ("run", "doctor"))
    except ConfigError as exc:
        for line in str(exc).splitlines():
            print(f"ttr-bot: {line}", file=sys.stderr)
        raise SystemExit(2) from None
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )
    try:
        if args.command == "health":
            raise SystemExit(health(settings))
        if args.command == "doctor":
            raise SystemExit(asyncio.run(_doctor(settings, args.channel)))
        if args.command == "backup":
            print(asyncio.run(_backup(settings, args.file)))
        elif args.command == "migrate-to-postgres":
            print(asyncio.run(_migrate(settings, args.file or settings.db_path)))
        elif args.command == "check":
            print(asyncio.run(_check(settings)))
        else:
            asyncio.run(_run(settings, force_sync=args.sync_commands))
    except StartupError as exc:
        print(f"ttr-bot: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


async def _backup(settings: Settings, target: str) -> str:
    from bot.ops.lifecycle import backup

    return await backup(settings.database, target)


async def _migrate(settings: Settings, sqlite_path: str) -> str:
    from pathlib import Path

    import asyncpg

    from bot.ops.database import describe
    from bot.ops.lifecycle import StartupError
    from bot.ops.migrate import MigrationError, migrate_to_postgres

    if settings.database_url is None:
        raise StartupError("set TTR_DATABASE_URL to the (empty) PostgreSQL database to copy "
                           "into")
    if not Path(sqlite_path).is_file():
        raise StartupError(f"no SQLite database at {sqlite_path}: name the file, or set "
                           f"TTR_DB_PATH")
    try:
        copied = await migrate_to_postgres(sqlite_path, settings.database_url)
    except (MigrationError, OSError, asyncpg.PostgresError) as exc:
        raise StartupError(f"migrate-to-postgres: {exc}") from None
    return f"{sqlite_path} -> {describe(settings.database_url)}: {copied.summary()}"


async def _check(settings: Settings) -> str:
    from pathlib import Path

    from bot.game.images import check_renderer, default_renderer
    from bot.ops.database import describe, is_postgres
    from bot.ops.lifecycle import StartupError, open_database

    file = Path(settings.database).expanduser().resolve()
    if not is_postgres(settings.database) and not file.exists():
        # Not made here: an "ok" on a new empty file would hide a wrong folder or path.
        raise StartupError(f"no database yet at {file}; `python -m bot` creates it (or set "
                           f"TTR_DB_PATH to the bot's database)")
    store = await open_database(settings.database)
    try:
        games = len(await store.games_with_status("running"))
    finally:
        await store.close()
    return (f"ok: database {describe(settings.database)} sound and writable "
            f"({games} running games); "
            f"{await check_renderer(default_renderer())}")


async def _doctor(settings: Settings, channel_id: int | None) -> int:
    from bot.ops.doctor import print_report, run

    return print_report(await run(settings.token, channel_id))


async def _run(settings: Settings, *, force_sync: bool) -> None:
    from bot.ops.lifecycle import serve

    await serve(settings, force_sync=force_sync)


def health(settings: Settings) -> int:
    """For Docker's HEALTHCHECK: 0 if ``/health`` of the running bot answers 200."""
    import urllib.request

    if settings.health_port is None:
        print("ttr-bot: TTR_HEALTH_PORT is not set: the health endpoint is off", file=sys.stderr)
        return 1
    host = "127.0.0.1" if settings.health_host in ("0.0.0.0", "") else settings.health_host
    url = f"http://{host}:{settings.health_port}/health"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            print(response.read().decode())
            return 0 if response.status == 200 else 1
    except OSError as exc:
        print(f"ttr-bot: {url}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    main()
