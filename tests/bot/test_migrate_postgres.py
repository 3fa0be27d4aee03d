"""``python -m bot migrate-to-postgres``: an SQLite database moves into PostgreSQL whole,
every game replays to the state it had, and the bot plays on there."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.ops.migrate import MigrationError, migrate_to_postgres
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def empty_postgres(postgres_server):
    """A migrated, empty PostgreSQL database (the target)."""
    with postgres_server.database() as url:
        yield url


async def _everything(store, tables: list[str]) -> dict[str, list[tuple]]:
    """Every row of every table, in a stable order, as plain tuples."""
    out = {}
    for table in tables:
        rows = await store._all(f"SELECT * FROM {table}")
        out[table] = sorted((tuple(r) for r in rows), key=repr)
    return out


@pytest.mark.slow
async def test_a_sqlite_database_moves_whole_and_the_bot_plays_on_in_postgres(
        empty_postgres, table):
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(30):
        await table.step()
    await table.slash("Ana", "settings", dm_every_turn=False)
    await table.fake.slash(table.bot, table.users["Ben"], "new", map="europe", thread=True)
    state = await table.stored_state()

    copied = await migrate_to_postgres(str(table.db_path), empty_postgres)
    assert copied.games_checked == 1  # the lobby has nothing to replay
    assert copied.rows["games"] == 2 and copied.rows["actions"] == state.version
    assert "all 1 started games replay to the same state" in copied.summary()

    lite = await SqliteStorage.open(str(table.db_path))
    pg = await PostgresStorage.open(empty_postgres)
    try:
        tables = await lite.tables()
        before = await _everything(lite, tables)
        after = await _everything(pg, tables)
        after["history"] = [r[1:] for r in after["history"]]  # its explicit rowid
        assert after == before
        assert await pg.jobs(table.game_id) == await lite.jobs(table.game_id)
        assert (await pg.player_settings(table.users["Ana"])).dm_every_turn is False
        # New rows get new ids after the copied ones.
        lobby = await pg.create_game(guild_id=1, channel_id=999, map_id="usa", max_players=2,
                                     host_id=5, host_name="E")
        assert lobby.id == 3
        with pytest.raises(MigrationError, match="has games already"):
            await migrate_to_postgres(str(table.db_path), empty_postgres)
    finally:
        await lite.close()
        await pg.close()

    table.database = empty_postgres  # the same bot, restarted on PostgreSQL
    await table.restart()
    assert (await table.stored_state()).to_snapshot() == state.to_snapshot()
    for _ in range(5):
        await table.step()
    assert (await table.stored_state()).version == state.version + 5


@pytest.mark.slow
async def test_compose_order_up_then_migrate_works(empty_postgres, table):
    """docker-compose.yml's order: the bot starts on the empty PostgreSQL database (and
    writes its own rows, e.g. the synced commands' hash), then the SQLite file is
    migrated into it."""
    await table.open_game(["Ana", "Ben"], "usa")
    await table.step()
    await table.bot.close()
    async with table.store() as lite:
        await lite.set_bot_state("synced_commands", "from-sqlite")
    fresh = await PostgresStorage.open(empty_postgres)  # the new bot's first start
    try:
        await fresh.set_bot_state("synced_commands", "from-the-first-start")
        assert await fresh.first_delivery(123)
    finally:
        await fresh.close()
    copied = await migrate_to_postgres(str(table.db_path), empty_postgres)
    assert copied.games_checked == 1
    pg = await PostgresStorage.open(empty_postgres)
    try:
        assert await pg.bot_state("synced_commands") == "from-sqlite"
    finally:
        await pg.close()


def test_compose_requires_the_postgres_password():
    """No silent default password: compose stops with a line naming POSTGRES_PASSWORD,
    which .env.example has a place for."""
    compose = (ROOT / "docker-compose.yml").read_text()
    uses = re.findall(r"\$\{POSTGRES_PASSWORD([^}]*)\}", compose)
    assert len(uses) == 2 and all(u.startswith(":?") for u in uses), uses
    assert re.search(r"^POSTGRES_PASSWORD=$", (ROOT / ".env.example").read_text(), re.M)


@pytest.mark.slow
async def test_a_game_whose_log_does_not_replay_copies_nothing(empty_postgres, table):
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(6):
        await table.step()
    await table.bot.close()
    lite = await SqliteStorage.open(str(table.db_path))
    await lite._write("DELETE FROM actions WHERE version = (SELECT max(version) "  # a log
                      "FROM actions)")  # that lost its last action
    await lite.close()
    with pytest.raises(MigrationError, match=r"game 1: its log replays to version \d+, not"):
        await migrate_to_postgres(str(table.db_path), empty_postgres)
    pg = await PostgresStorage.open(empty_postgres)
    try:
        assert await pg.games_with_status("running") == []  # rolled back: nothing kept
    finally:
        await pg.close()


@pytest.mark.slow
def test_the_command_says_what_it_needs(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TTR_", "DISCORD_"))}
    env["PYTHONPATH"] = str(ROOT)

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "bot", "migrate-to-postgres", *args],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              env={**env, **extra})

    done = run()
    assert done.returncode == 1
    assert "set TTR_DATABASE_URL" in done.stderr
    done = run("nowhere.sqlite3", TTR_DATABASE_URL="postgresql://x@localhost/ttr")
    assert done.returncode == 1
    assert "no SQLite database at nowhere.sqlite3" in done.stderr
