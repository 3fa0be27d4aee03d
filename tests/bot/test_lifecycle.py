"""Start-up, settings, shutdown, command sync and backups (``bot.ops.lifecycle``,
``bot.ops.config``)."""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp
import discord
import pytest

import engine
from bot import fence
from bot.edge.client import RESTARTING, TTRBot
from bot.edge.testing import FakeDiscord
from bot.ops import collector
from bot.ops.config import ConfigError, Settings
from bot.ops.diskspace import FullDisk
from bot.ops.lifecycle import (
    StartupError,
    backup,
    connect_to_discord,
    login_with_retry,
    open_database,
)
from bot.storage.migrations import MIGRATIONS
from bot.storage.sqlite import SqliteStorage
from tests.bot.conftest import json_renderer, make_bot

ROOT = Path(__file__).resolve().parents[2]
ENV_NAMES = ("DISCORD_TOKEN", "TTR_DB_PATH", "TTR_DEV_GUILD_ID", "TTR_LOG_LEVEL",
             "TTR_HEALTH_PORT", "TTR_HEALTH_HOST", "TTR_DATABASE_URL", "TTR_SHARD_COUNT",
             "TTR_SHARD_IDS")


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


# -- settings -------------------------------------------------------------------------------


def test_settings_mistakes_are_one_line_each_naming_the_variable(env, tmp_path):
    env.setenv("DISCORD_TOKEN", '"abc.def.ghi"')
    env.setenv("TTR_DEV_GUILD_ID", "my-server")
    env.setenv("TTR_LOG_LEVEL", "verbose")
    env.setenv("TTR_HEALTH_PORT", "99999")
    with pytest.raises(ConfigError) as err:
        Settings.from_env(env_file=None)
    lines = str(err.value).splitlines()
    assert len(lines) == 4, lines
    assert lines[0].startswith("DISCORD_TOKEN: remove the quotes")
    assert "TTR_DEV_GUILD_ID: must be a numeric server id, not 'my-server'" in lines
    assert "TTR_LOG_LEVEL: must be one of DEBUG, INFO, WARNING, ERROR, not 'verbose'" in lines
    assert any(line.startswith("TTR_HEALTH_PORT: must be a TCP port") for line in lines)


def test_missing_token_is_reported_only_where_it_is_needed(env):
    with pytest.raises(ConfigError, match="DISCORD_TOKEN is not set"):
        Settings.from_env(env_file=None)
    assert Settings.from_env(env_file=None, need_token=False).db_path == "./ttr.sqlite3"


def test_dotenv_is_read_without_a_shell_and_the_environment_wins(env, tmp_path):
    dotenv = tmp_path / ".env"
    dotenv.write_text("DISCORD_TOKEN=from.the.file\nTTR_LOG_LEVEL=debug\nTTR_DEV_GUILD_ID=\n"
                      "TTR_DB_PATH=/data/x.sqlite3\n")
    env.setenv("TTR_DB_PATH", str(tmp_path / "env.sqlite3"))
    s = Settings.from_env(env_file=dotenv)
    assert (s.token, s.log_level, s.dev_guild_id) == ("from.the.file", "DEBUG", None)
    assert s.db_path == str(tmp_path / "env.sqlite3")


def test_dotenv_means_what_docker_env_file_means(env, tmp_path):
    """`docker run --env-file .env` passes quotes through: the bot's own reading of the
    same file must too (one file, one meaning), so a quoted token is refused in both."""
    dotenv = tmp_path / ".env"
    dotenv.write_text('# a comment\n  DISCORD_TOKEN="abc.def.ghi"\nTTR_LOG_LEVEL=debug\n'
                      "TTR_DB_PATH=/data/it's here.sqlite3\nNOT_A_LINE\n")
    with pytest.raises(ConfigError, match="DISCORD_TOKEN: remove the quotes"):
        Settings.from_env(env_file=dotenv)
    dotenv.write_text("DISCORD_TOKEN=abc.def.ghi\nTTR_DB_PATH='/data/x.sqlite3'\n")
    assert Settings.from_env(env_file=dotenv).db_path == "'/data/x.sqlite3'"


async def test_the_database_and_the_shards_come_from_the_settings(env, tmp_path):
    s = Settings.from_env(env_file=None, need_token=False)
    assert (s.database, s.shard_count, s.shard_ids) == ("./ttr.sqlite3", None, None)
    bot = make_bot(tmp_path / "unused.sqlite3")
    url = "postgresql://ttr:secret@db.example/ttr"
    env.setenv("TTR_DATABASE_URL", url)
    env.setenv("TTR_SHARD_COUNT", "4")
    env.setenv("TTR_SHARD_IDS", "2, 3")
    s = Settings.from_env(env_file=None, need_token=False)
    assert (s.database, s.shard_count, s.shard_ids) == (url, 4, (2, 3))
    sharded = TTRBot(s, renderer=json_renderer())
    assert (sharded.shard_count, sharded.shard_ids) == (4, [2, 3])
    assert bot.shard_ids is None  # alone: every shard Discord recommends
    await bot.close()
    await sharded.close()


@pytest.mark.parametrize(("values", "message"), [
    ({"TTR_DATABASE_URL": "mysql://x"}, "TTR_DATABASE_URL: must be a PostgreSQL URL"),
    ({"TTR_SHARD_COUNT": "0"}, "TTR_SHARD_COUNT: must be a whole number of shards"),
    ({"TTR_SHARD_COUNT": "2", "TTR_SHARD_IDS": "0;1"}, "TTR_SHARD_IDS: must list shard"),
    ({"TTR_SHARD_IDS": "0"}, "TTR_SHARD_IDS needs TTR_SHARD_COUNT"),
    ({"TTR_SHARD_COUNT": "2", "TTR_SHARD_IDS": "2"}, "shard 2 does not exist"),
    ({"TTR_SHARD_COUNT": "2", "TTR_SHARD_IDS": "1"}, "set TTR_DATABASE_URL"),
])
def test_database_and_shard_mistakes_are_named(env, values, message):
    for name, value in values.items():
        env.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        Settings.from_env(env_file=None, need_token=False)


@pytest.mark.slow
def test_cli_reports_a_settings_mistake_in_one_line_without_a_traceback(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    done = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**env, "TTR_LOG_LEVEL": "LOUD",
                                                       "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "ttr-bot: TTR_LOG_LEVEL: must be one of DEBUG, INFO, WARNING, ERROR, not 'LOUD'"]


# -- the database at start-up ------------------------------------------------------------------


async def _filled(path: Path) -> None:
    store = await SqliteStorage.open(str(path), durable=False)
    for i in range(300):
        await store.create_game(guild_id=1, channel_id=100 + i, map_id="usa", max_players=4,
                                host_id=7, host_name="Ana " * 50)
    await store.close()


async def test_a_file_that_is_no_database_is_one_line_naming_it(tmp_path):
    path = tmp_path / "ttr.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StartupError) as err:
        await open_database(str(path))
    assert str(path) in str(err.value) and "damaged" in str(err.value)
    assert "restore" in str(err.value) and "\n" not in str(err.value)


async def test_a_truncated_database_is_found_at_start_up(tmp_path):
    path = tmp_path / "ttr.sqlite3"
    await _filled(path)
    data = path.read_bytes()
    assert len(data) > 8 * 4096
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(StartupError, match="damaged"):
        await open_database(str(path))


async def test_a_corrupt_page_is_found_by_quick_check(tmp_path):
    path = tmp_path / "ttr.sqlite3"
    await _filled(path)
    data = bytearray(path.read_bytes())
    page = 4096
    data[3 * page: 4 * page] = b"\xff" * page  # one b-tree page of garbage
    path.write_bytes(bytes(data))
    with pytest.raises(StartupError, match="damaged"):
        await open_database(str(path))


def disk_full_error() -> sqlite3.OperationalError:
    """A real SQLITE_FULL from SQLite (a database allowed no more pages)."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (x BLOB)")
    conn.execute("PRAGMA max_page_count = 2")
    try:
        conn.execute("INSERT INTO t VALUES (zeroblob(100000))")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError("SQLite stored more pages than allowed")


@pytest.mark.parametrize("error", ["full", "io"])
async def test_a_full_disk_at_start_up_is_not_taken_for_damage(tmp_path, monkeypatch, error):
    """A full disk is "no space left" in one line naming the folder, not a damaged
    database (whose advice, restoring a backup, would lose what was committed since)."""
    path = tmp_path / "ttr.sqlite3"
    await _filled(path)
    exc = disk_full_error() if error == "full" else sqlite3.OperationalError("disk I/O error")

    async def refused(*args, **kwargs):
        raise exc

    monkeypatch.setattr(SqliteStorage, "open", refused)
    free = {"bytes": 4096}
    monkeypatch.setattr("bot.ops.diskspace.shutil.disk_usage",
                        lambda folder: shutil._ntuple_diskusage(1 << 30, 1 << 30, free["bytes"]))
    with pytest.raises(StartupError) as err:
        await open_database(str(path))
    message = str(err.value)
    assert f"no space left on the disk of {tmp_path} (" in message, message
    assert "is damaged" not in message and "restore a backup" in message and "\n" not in message
    if error == "io":  # with room to spare, an I/O error is no full disk
        free["bytes"] = 1 << 30
        with pytest.raises(StartupError, match="damaged"):
            await open_database(str(path))


async def test_a_disk_that_fills_while_running_is_one_log_line_and_a_clear_answer(
        table, caplog, monkeypatch):
    """Writes refused for lack of space: players hear the bot cannot save right now, the
    log says why once (no traceback per click), and the game carries on once there is
    room, nothing lost."""
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.stored_state()
    storage = table.bot.service.storage
    full = disk_full_error()  # SQLite's own error (SQLITE_FULL)
    transact = storage._transact

    async def no_room(body):
        raise full

    storage._transact = no_room  # every write is refused
    monkeypatch.setattr("bot.ops.diskspace.FULL_DISK", FullDisk())  # none seen before
    caplog.set_level(logging.INFO)
    seat = engine.waiting_for(state)[0]
    answers = [(await table.play(state, seat, table.choose(state, seat, ""))).text]
    for name in ("Ana", "Ben", "Ana"):
        answers.append((await table.slash(name, "settings", reminders=False)).text)
    assert all("I cannot save anything right now (my disk is full)" in a
               for a in answers), answers
    assert (await table.stored_state()).version == state.version
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None, [r.getMessage() for r in errors]
    assert "cannot save: the disk is full (database or disk is full" in errors[0].getMessage()
    storage._transact = transact  # room again
    state = await table.step()
    state = await table.step()


async def test_a_newer_schema_and_a_missing_folder_are_named(tmp_path):
    path = tmp_path / "ttr.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    with pytest.raises(StartupError, match="newer than this bot"):
        await open_database(str(path))
    with pytest.raises(StartupError, match=f"folder {tmp_path / 'nope'} does not exist"):
        await open_database(str(tmp_path / "nope" / "ttr.sqlite3"))


async def test_an_unreachable_postgres_server_is_one_line_without_its_password(tmp_path):
    url = f"postgresql://ttr:secret@/ttr?host={tmp_path}"  # no server listens there
    with pytest.raises(StartupError) as caught:
        await open_database(url)
    assert str(caught.value).startswith(f"database postgresql:///ttr?host={tmp_path}: ")
    assert "secret" not in str(caught.value)
    with pytest.raises(StartupError, match="back it up with pg_dump"):
        await backup(url, str(tmp_path / "copy.sqlite3"))


def _without_root_powers() -> None:
    """In the child, before exec: drop the capabilities that let root ignore file modes
    (DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER) from the bounding set, so the program runs
    as root but meets permissions like any user."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2, 3):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.mark.slow
@pytest.mark.parametrize("writable_folder", [False, True])
def test_read_only_database_or_folder_is_reported_at_start_up(tmp_path, writable_folder):
    """A real process that may read but not write: one line, exit 1, at once."""
    db = tmp_path / "ttr.sqlite3"
    asyncio.run(_filled(db))
    db.chmod(0o444)
    tmp_path.chmod(0o755 if writable_folder else 0o555)
    env = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    env.update(PYTHONPATH=str(ROOT), TTR_DB_PATH=str(db), PYTHONDONTWRITEBYTECODE="1")
    try:
        done = subprocess.run([sys.executable, "-m", "bot", "check"], cwd="/", env=env,
                              capture_output=True, text=True, timeout=120,
                              preexec_fn=_without_root_powers if os.getuid() == 0 else None)
    finally:
        tmp_path.chmod(0o755)
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.splitlines()
    expected = (f"ttr-bot: database {db} is read-only" if writable_folder
                else f"ttr-bot: cannot write in {tmp_path}")
    assert line.startswith(expected), line


def _catches_sigterm(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(next(line for line in status.splitlines()
                      if line.startswith("SigCgt:")).split()[1], 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


@pytest.mark.slow
def test_a_sigterm_while_starting_is_a_clean_stop(tmp_path):
    """`docker stop` seconds after the start (imports and checks take ~6 s under load): the
    stop is remembered from the first moment, logged, and clean (exit 0), not Python's
    default silent death (exit 143)."""
    env = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    env.update(PYTHONPATH=str(ROOT), TTR_DB_PATH=str(tmp_path / "ttr.sqlite3"),
               DISCORD_TOKEN="fake.token.here")
    proc = subprocess.Popen([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 1.5  # the start is far from done by then
        while not _catches_sigterm(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "SIGTERM received while starting" in err and "stopped cleanly" in err


@pytest.mark.slow
def test_check_creates_no_database(tmp_path):
    """`python -m bot check` in the wrong folder (or with a wrong TTR_DB_PATH) says there is
    no database there instead of making an empty one and answering "ok"."""
    env = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    env.update(PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-m", "bot", "check"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"ttr-bot: no database yet at {tmp_path / 'ttr.sqlite3'}; `python -m bot` creates it "
        f"(or set TTR_DB_PATH to the bot's database)"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_damaged_database_ends_the_process_at_once_with_one_line(tmp_path):
    db = tmp_path / "ttr.sqlite3"
    db.write_bytes(b"\0garbage" * 1000)
    env = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    env.update(PYTHONPATH=str(ROOT), TTR_DB_PATH=str(db), DISCORD_TOKEN="a.b.c")
    done = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"ttr-bot: database {db} is damaged"), line


async def test_close_checkpoints_the_wal_so_the_file_alone_is_whole(tmp_path):
    path = tmp_path / "ttr.sqlite3"
    await _filled(path)
    # Another open connection keeps SQLite from removing the WAL at close by itself.
    reader = sqlite3.connect(path)
    assert reader.execute("SELECT count(*) FROM games").fetchone() == (300,)
    store = await SqliteStorage.open(str(path))
    await store.create_game(guild_id=1, channel_id=1, map_id="usa", max_players=4, host_id=7,
                            host_name="Ana")
    wal = Path(f"{path}-wal")
    assert wal.stat().st_size > 0
    await store.close()
    assert wal.stat().st_size == 0  # everything is in ttr.sqlite3 itself
    reader.close()


async def test_backup_is_a_consistent_copy_while_the_bot_writes(tmp_path):
    path = tmp_path / "ttr.sqlite3"
    store = await SqliteStorage.open(str(path))
    await store.create_game(guild_id=1, channel_id=5, map_id="usa", max_players=4, host_id=7,
                            host_name="Ana")
    # The live connection keeps its WAL: copying ttr.sqlite3 alone would miss the game.
    wal = Path(f"{path}-wal")
    before = wal.stat().st_size
    message = await backup(str(path), str(tmp_path / "copy.sqlite3"))
    assert "consistent copy" in message
    # The bot owns the file: the backup leaves its WAL to it (a checkpoint from the
    # backup's process would take the live database's write lock for its length).
    assert wal.stat().st_size == before > 0
    await store.create_game(guild_id=1, channel_id=6, map_id="usa", max_players=4, host_id=7,
                            host_name="Ana")
    copy = sqlite3.connect(tmp_path / "copy.sqlite3")
    assert copy.execute("SELECT channel_id FROM games").fetchall() == [(5,)]
    assert copy.execute("PRAGMA quick_check").fetchone() == ("ok",)
    copy.close()
    with pytest.raises(StartupError, match="exists already"):
        await backup(str(path), str(tmp_path / "copy.sqlite3"))
    await store.close()


async def test_backup_into_a_folder_that_does_not_exist_yet(tmp_path):
    """The README's line, `python -m bot backup backups/ttr-<date>.sqlite3`, on a fresh
    install: the folder is made."""
    path = tmp_path / "ttr.sqlite3"
    store = await SqliteStorage.open(str(path))
    await store.close()
    target = tmp_path / "backups" / "ttr-2026-05-04.sqlite3"
    assert "consistent copy" in await backup(str(path), str(target))
    assert target.is_file()
    (tmp_path / "blocked").write_text("a file, not a folder")
    with pytest.raises(StartupError, match=r"cannot create the folder .*blocked"):
        await backup(str(path), str(tmp_path / "blocked" / "x.sqlite3"))


async def test_backup_only_reads_the_live_database(tmp_path):
    """A backup taken with a newer bot than the one running leaves the running bot's
    schema as it is, in the file and in the copy; a mistyped path is one line, and no
    empty database is made there."""
    path = tmp_path / "ttr.sqlite3"
    older = len(MIGRATIONS) - 1
    store = await SqliteStorage.open(str(path), migrations=MIGRATIONS[:older])
    try:
        await backup(str(path), str(tmp_path / "copy.sqlite3"))
        assert await store.schema_version() == older
    finally:
        await store.close()
    copy = sqlite3.connect(tmp_path / "copy.sqlite3")
    assert copy.execute("PRAGMA user_version").fetchone() == (older,)
    copy.close()
    missing = tmp_path / "tpyo.sqlite3"
    with pytest.raises(StartupError, match=r"there is no database at .*tpyo"):
        await backup(str(missing), str(tmp_path / "copy2.sqlite3"))
    assert not missing.exists() and not (tmp_path / "copy2.sqlite3").exists()


# -- Discord: sync, login, warnings, stopping ------------------------------------------------------


async def test_commands_sync_only_when_the_tree_changed_or_when_forced(tmp_path):
    db = tmp_path / "ttr.sqlite3"
    puts = []
    for force in (False, False, True):
        fake = FakeDiscord()
        bot = TTRBot(Settings(token="t", db_path=str(db)), renderer=json_renderer(),
                     force_sync=force)
        await fake.connect(bot)
        puts.append(sum(method == "PUT" for method, _ in fake.requests))
        await bot.close()
    assert puts == [1, 0, 1]


async def test_voice_library_warnings_are_silenced(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", True)
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", True)
    with caplog.at_level(logging.WARNING):
        bot = make_bot(tmp_path / "ttr.sqlite3")
    assert "not installed" not in caplog.text
    await bot.close()


class _Down(aiohttp.ClientConnectorDNSError):
    def __init__(self) -> None:
        fields = aiohttp.client_reqrep.ConnectionKey._fields
        key = aiohttp.client_reqrep.ConnectionKey(
            **{**dict.fromkeys(fields), "host": "discord.com", "port": 443})
        super().__init__(key, OSError(-3, "Temporary failure in name resolution"))


async def test_login_retries_with_backoff_while_discord_is_unreachable(caplog):
    calls = []

    async def login() -> None:
        calls.append(1)
        if len(calls) < 3:
            raise _Down()

    with caplog.at_level(logging.WARNING, logger="bot.ops.lifecycle"):
        assert await login_with_retry(login, asyncio.Event(), delays=(0.01, 0.02))
    assert len(calls) == 3
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["Discord is unreachable (DNS lookup of discord.com failed: no network or "
                     f"no DNS); retrying in {d} s" for d in ("0", "0")]


@pytest.mark.slow
async def test_a_failed_login_attempt_closes_its_http_session(tmp_path):
    """Each login attempt opens an HTTP session; one that fails on the network is closed
    (else every retry leaves an open session and aiohttp complains), the next opens anew."""
    bot = make_bot(tmp_path / "ttr.sqlite3")
    sessions = []

    async def unreachable(*args: object, **kwargs: object) -> None:
        sessions.append(bot.http._HTTPClient__session)  # type: ignore[attr-defined]
        raise _Down()

    fence.route_requests(bot, unreachable)
    stop = asyncio.Event()
    try:
        asyncio.get_running_loop().call_later(0.2, stop.set)  # during the first wait
        await connect_to_discord(bot, stop)
        assert len(sessions) == 1 and sessions[0].closed
        assert bot.http.connector is discord.utils.MISSING  # the next attempt makes its own
    finally:
        await bot.close()


async def test_a_refused_token_stops_at_once_and_a_stop_ends_the_retries():
    async def refused() -> None:
        raise discord.LoginFailure("Improper token has been passed.")

    with pytest.raises(StartupError, match="Discord refused DISCORD_TOKEN"):
        await login_with_retry(refused, asyncio.Event())

    async def down() -> None:
        raise _Down()

    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, stop.set)
    assert not await login_with_retry(down, stop, delays=(60,))


@pytest.mark.slow
async def test_a_stopping_bot_takes_no_new_interaction(table):
    await table.open_game(["Ana", "Ben"], "usa")
    version = (await table.stored_state()).version
    table.bot.stopping = True
    ex = await table.slash("Ana", "status")
    assert ex.text == RESTARTING
    ex = await table.click("Ana", table.fake.last_board(), label="My hand")
    assert ex.text == RESTARTING
    table.fake.locales[table.users["Ben"]] = "de"  # the answer follows their Discord
    ex = await table.slash("Ben", "status")
    assert ex.text == "Der Bot startet neu: versuche es in einer Minute noch einmal."
    assert (await table.stored_state()).version == version


async def test_a_restart_is_on_discord_at_once_and_posts_what_was_pending_meanwhile(table):
    """The pending posts of a restart wait for the renderer (its workers warm up for a
    minute under load): the bot connects and answers first, and posts them meanwhile."""
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()

    class Crash:
        async def publish(self, update):
            raise ConnectionResetError("the process dies before the post")

    table.bot.service.publisher = Crash()
    seat = state.current
    for _ in range(2):
        await table.bot.service.act(table.game_id, table.seat_user(state, seat),
                                    engine.DrawBlind())
    await table.bot.close()
    drawing = threading.Event()  # the render workers are still warming up
    fast = json_renderer()

    def later(draw):
        def slow(*args):
            drawing.wait(30)
            return draw(*args)
        return slow

    table.bot = make_bot(table.database or table.db_path, clock=table.clock,
                         renderer=dataclasses.replace(fast, board=later(fast.board),
                                                      hand=later(fast.hand)))
    posts = len(table.fake.channel_messages())
    await asyncio.wait_for(table.fake.connect(table.bot, catch_up=False), 5.0)
    catching_up = asyncio.ensure_future(table.bot.caught_up())
    ex = await asyncio.wait_for(table.slash("Ana", "rules"), 5.0)  # answered meanwhile
    assert "2–5 players" in ex.reply.content and not catching_up.done()
    drawing.set()
    await asyncio.wait_for(catching_up, 30.0)
    line = f"{state.config.players[seat]} drew 2 cards"
    assert any(line in s.content for s in table.fake.channel_messages()[posts:])


def _bot_process(script: str, tmp_path: Path, **env_extra: str) -> subprocess.Popen[str]:
    """Run ``script`` (beside this file) as a bot process with its database in
    ``tmp_path`` (modules beside this file importable, e.g. a fork server's preload)."""
    env = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), str(Path(__file__).parent)]),
               TTR_DB_PATH=str(tmp_path / "ttr.sqlite3"), DISCORD_TOKEN="fake.token.here",
               **env_extra)
    return subprocess.Popen([sys.executable, str(Path(__file__).parent / script)],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_finishes_the_work_in_flight_closes_the_database_and_exits_0(tmp_path, sig):
    db = tmp_path / "ttr.sqlite3"
    proc = _bot_process("serve_fake.py", tmp_path)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "in flight"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert f"{sig.name} received: stopping" in err
    assert "waiting for 1 interaction(s) in flight" in err and "stopped cleanly" in err
    assert "hands sent: 2" in out  # the start's DMs went out before the exit
    assert f"gc: frozen True, young {collector.YOUNG_THRESHOLD}" in out
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT status, version = posted_version FROM games").fetchall() == [
        ("running", 1)]
    conn.close()


@pytest.mark.slow
def test_a_stop_while_the_render_workers_start_exits_at_once(tmp_path):
    """The workers' fork server builds every map first (~20 s); a stop then must not wait
    for it (docker stop kills after 10 s): it stops the fork server and exits 0."""
    pid_file = tmp_path / "preload.pid"
    proc = _bot_process("serve_warming.py", tmp_path, TTR_TEST_PRELOAD_PID=str(pid_file))
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "warming up"
        while not pid_file.exists() or not pid_file.read_text():
            assert proc.poll() is None
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        # The preload sleeps 120 s: an exit well before it proves the stop did not wait.
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "stopped cleanly" in err and "render workers not started" in err
    fork_server = int(pid_file.read_text())
    assert not _alive(fork_server, within=10.0)


@pytest.mark.slow
def test_the_render_workers_end_when_the_bot_is_killed(tmp_path):
    """A SIGKILL of the bot (no clean-up in it) leaves no worker or fork server behind
    (~1 GB per crash under a shell loop, supervisord or nohup)."""
    proc = _bot_process("serve_workers.py", tmp_path)
    try:
        assert proc.stdout is not None
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 3 and all(_alive(p, within=0.0) for p in pids)
    finally:
        proc.kill()
        proc.wait(timeout=60)  # not its pipes' end: a worker left behind holds them
    left = [p for p in pids if _alive(p, within=10.0)]
    for pid in left:  # the test's own processes: not left running when it fails
        os.kill(pid, signal.SIGKILL)
    assert left == []


def _alive(pid: int, *, within: float) -> bool:
    """Whether process ``pid`` still runs after waiting up to ``within`` seconds for it to
    end (a zombie, ended but not yet reaped, counts as ended)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        if state == "Z":
            return False
        time.sleep(0.1)
    return True
