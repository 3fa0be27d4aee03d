"""Storage: migrations, the one-game-per-channel rule, atomic action writes."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading

import pytest

from bot.ops.database import open_storage
from bot.storage.api import Job, JobPlan, SeatRow, Storage, StorageError, TransactionAwaited
from bot.storage.migrations import MIGRATIONS
from bot.storage.sqlite import SqliteStorage
from tests.bot.conftest import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
async def store(database):
    s = await open_storage(database)
    yield s
    await s.close()


async def _running_game(store: Storage, channel: int = 10) -> int:
    row = await store.create_game(guild_id=1, channel_id=channel, map_id="usa", max_players=3,
                                  host_id=100, host_name="Ana")
    await store.add_seat(row.id, 101, "Ben")
    await store.start_game(row.id, config="{}", version=0, state='{"v": 0}',
                           seats=[SeatRow(0, 101, "Ben"), SeatRow(1, 100, "Ana")])
    return row.id


async def test_schema_is_migrated_once_and_reopening_is_harmless(tmp_path):
    path = str(tmp_path / "db.sqlite3")
    store = await SqliteStorage.open(path)
    assert await store.schema_version() == len(MIGRATIONS)
    row = await store.create_game(guild_id=1, channel_id=5, map_id="usa", max_players=2,
                                  host_id=1, host_name="A")
    await store.close()
    store = await SqliteStorage.open(path)
    assert await store.schema_version() == len(MIGRATIONS)
    assert await store.game(row.id) == row
    await store.close()


async def test_later_migrations_run_in_order_on_an_old_database(tmp_path):
    path = str(tmp_path / "db.sqlite3")
    first = await SqliteStorage.open(path, migrations=MIGRATIONS[:1])
    await first.close()
    extra = ("ALTER TABLE users ADD COLUMN locale TEXT;",
             "CREATE INDEX users_locale ON users (locale);")
    store = await SqliteStorage.open(path, migrations=(*MIGRATIONS[:1], *extra))
    assert await store.schema_version() == 3
    await store.set_dm_refused(7, 1.0)
    await store.close()
    with pytest.raises(StorageError, match="newer"):
        await SqliteStorage.open(path, migrations=MIGRATIONS[:1])


async def test_a_failed_migration_leaves_the_old_version(tmp_path):
    path = str(tmp_path / "db.sqlite3")
    broken = (*MIGRATIONS, "CREATE TABLE x (a INT); SELECT * FROM no_such_table;")
    with pytest.raises(Exception, match="no_such_table"):
        await SqliteStorage.open(path, migrations=broken)
    store = await SqliteStorage.open(path)
    assert await store.schema_version() == len(MIGRATIONS)
    await store.close()


async def test_one_active_game_per_channel(store):
    row = await store.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=2,
                                  host_id=1, host_name="A")
    with pytest.raises(StorageError, match="already has a game"):
        await store.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=2,
                                host_id=2, host_name="B")
    other = await store.create_game(guild_id=1, channel_id=11, map_id="usa", max_players=2,
                                    host_id=2, host_name="B")
    assert other.id != row.id
    await store.remove_seat(row.id, 1)  # the lobby empties: cancelled, the channel is free
    assert (await store.game(row.id)).status == "cancelled"
    again = await store.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=2,
                                    host_id=3, host_name="C")
    assert (await store.active_game(10)) == again


async def test_lobby_seats(store):
    row = await store.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=2,
                                  host_id=1, host_name="A")
    with pytest.raises(StorageError, match="already have a seat"):
        await store.add_seat(row.id, 1, "A")
    await store.add_seat(row.id, 2, "B")
    with pytest.raises(StorageError, match="full"):
        await store.add_seat(row.id, 3, "C")
    game = await store.remove_seat(row.id, 1)
    assert game is not None and game.host_id == 2  # the host role passes on
    with pytest.raises(StorageError, match="no seat"):
        await store.remove_seat(row.id, 1)


async def test_action_and_snapshot_are_written_together(store):
    gid = await _running_game(store)
    await store.record_action(gid, seat=0, action='{"type": "draw_blind"}', events="[]",
                              before=0, after=1, state='{"v": 1}', finished=False)
    assert await store.snapshot(gid) == (1, '{"v": 1}')
    # A writer that lost the race (stale version) changes nothing at all.
    with pytest.raises(StorageError, match="not at version 0"):
        await store.record_action(gid, seat=1, action="{}", events="[]", before=0, after=1,
                                  state='{"v": "lost"}', finished=False)
    assert await store.snapshot(gid) == (1, '{"v": 1}')
    assert [a.version for a in await store.actions(gid)] == [1]
    await store.record_action(gid, seat=1, action="{}", events=json.dumps([{"type": "x"}]),
                              before=1, after=2, state='{"v": 2}', finished=True)
    game = await store.game(gid)
    assert game is not None and (game.status, game.version) == ("finished", 2)
    with pytest.raises(StorageError):  # a finished game takes no more actions
        await store.record_action(gid, seat=0, action="{}", events="[]", before=2, after=3,
                                  state="{}", finished=False)


async def test_an_action_and_the_jobs_of_its_version_are_stored_together(store):
    """The jobs an action plans go in its own transaction: a writer that lost the race
    stores neither; the winner drops the old version's jobs and ends the actor's run of
    expired turns."""
    gid = await _running_game(store)
    await store.plan_jobs(gid, 0, carry=(), jobs=[Job("remind", gid, 0, 0, 50.0)])
    await store.count_expiry(gid, 0)
    plan = JobPlan(carry=(), jobs=[Job("remind", gid, 1, 1, 100.0)], acted=0)
    with pytest.raises(StorageError, match="not at version 4"):
        await store.record_action(gid, seat=0, action="{}", events="[]", before=4, after=5,
                                  state="{}", finished=False, plan=plan)
    assert [(j.seat, j.version) for j in await store.jobs(gid)] == [(0, 0)]
    assert await store.expiries(gid) == {0: 1}
    await store.record_action(gid, seat=0, action="{}", events="[]", before=0, after=1,
                              state='{"v": 1}', finished=False, plan=plan)
    assert [(j.kind, j.seat, j.version, j.due_at) for j in await store.jobs(gid)] == [
        ("remind", 1, 1, 100.0)]
    assert await store.expiries(gid) == {}


async def test_a_transaction_that_fails_part_way_stores_nothing(store):
    gid = await _running_game(store)

    async def half(db):
        await db.execute("UPDATE games SET max_players = 4 WHERE id = ?", (gid,))
        await db.execute("INSERT INTO seats (game_id, seat, user_id, name) "
                         "VALUES (?, 0, 7, 'Cy')", (gid,))  # seat 0 is taken
    with pytest.raises(store._INTEGRITY_ERRORS):
        await store._transact(half)
    assert (await store.game(gid)).max_players == 3
    assert [s.name for s in await store.seats(gid)] == ["Ben", "Ana"]
    await store.record_action(gid, seat=0, action="{}", events="[]", before=0, after=1,
                              state="{}", finished=False)  # the next transaction commits
    assert (await store.game(gid)).version == 1


async def test_a_transaction_body_awaits_nothing_but_its_database(store):
    """On both backends alike (SQLite's cannot do otherwise: its transaction runs to its
    end in one go): a body that awaits anything else is refused, and stores nothing."""
    gid = await _running_game(store)

    async def waits(db):
        await db.execute("UPDATE games SET max_players = 4 WHERE id = ?", (gid,))
        await asyncio.sleep(0)
    with pytest.raises(TransactionAwaited):
        await store._transact(waits)
    assert (await store.game(gid)).max_players == 3

    async def only_its_own(db):
        await db.execute("UPDATE games SET max_players = 4 WHERE id = ?", (gid,))
        return await db.fetchone("SELECT max_players FROM games WHERE id = ?", (gid,))
    assert tuple(await store._transact(only_its_own)) == (4,)


async def test_a_sqlite_transaction_is_one_trip_to_the_writer_thread(tmp_path):
    """A whole transaction runs at once in aiosqlite's thread; a body that would wait for
    anything but its database is refused there, and rolled back."""
    store = await SqliteStorage.open(str(tmp_path / "db.sqlite3"))
    try:
        gid = await _running_game(store)
        trips = store.trips
        await store.record_action(
            gid, seat=0, action="{}", events="[]", before=0, after=1, state="{}",
            finished=False, plan=JobPlan(carry=(1,), jobs=[Job("remind", gid, 0, 1, 9.0)],
                                         acted=0))
        assert store.trips == trips + 1
        assert len(await store.jobs(gid)) == 1

        async def waits(db):
            await db.execute("UPDATE games SET max_players = 4 WHERE id = ?", (gid,))
            await asyncio.sleep(0)
        with pytest.raises(RuntimeError, match="awaited something other than its database"):
            await store._transact(waits)
        assert (await store.game(gid)).max_players == 3
    finally:
        await store.close()


async def test_sqlite_transactions_queued_together_share_a_commit_and_fail_alone(tmp_path):
    """Group commit: the transactions that come while the writer is busy go in one trip and
    one commit; one that fails is rolled back alone, and each is answered once committed."""
    store = await SqliteStorage.open(str(tmp_path / "db.sqlite3"))
    try:
        def adding(interaction, fail=False):
            async def body(db):
                await db.execute("INSERT INTO interactions (id, created_at) VALUES (?, 0)",
                                 (interaction,))
                if fail:
                    raise StorageError("refused")
                return interaction
            return store._transact(body)

        trips = store.trips
        results = await asyncio.gather(adding(1), adding(2), adding(3, fail=True), adding(4),
                                       return_exceptions=True)
        assert results[:2] == [1, 2] and results[3] == 4
        assert isinstance(results[2], StorageError)
        assert store.trips == trips + 1  # all four queued before the writer's next trip
        stored = [await store._one("SELECT id FROM interactions WHERE id = ?", (i,))
                  for i in (1, 2, 3, 4)]  # the loop's own reader sees what is committed
        assert [row is not None for row in stored] == [True, True, False, True]
    finally:
        await store.close()


async def test_closing_sqlite_commits_the_transactions_still_queued(tmp_path):
    """A stop while transactions wait for the writer: closing commits them first."""
    path = str(tmp_path / "db.sqlite3")
    store = await SqliteStorage.open(path)

    def adding(interaction):
        async def body(db):
            await db.execute("INSERT INTO interactions (id, created_at) VALUES (?, ?)",
                             (interaction, store.clock.now()))
        return asyncio.ensure_future(store._transact(body))

    pending = [adding(i) for i in range(1, 5)]
    await asyncio.sleep(0)  # the first on its way to the writer, the others queued behind
    await store.close()
    assert all(p.done() and p.exception() is None for p in pending)
    store = await SqliteStorage.open(path)
    try:
        assert [await store.first_delivery(i) for i in range(1, 5)] == [False] * 4
    finally:
        await store.close()


async def test_a_sent_post_is_stored_with_the_next_write_and_kept_through_a_rollback(tmp_path):
    """SQLite holds a post's message id and the version posted back for its next
    transaction (a trip less each): a transaction that fails keeps them for the one
    after, closing stores them too."""
    path = str(tmp_path / "db.sqlite3")
    store = await SqliteStorage.open(path)
    gid = await _running_game(store)
    assert await store.post_intent(gid, 1, "table", 10, "hello") is None
    assert await store.post_intent(gid, 1, "dm:5", 10, "psst") is None
    trips = store.trips
    await store.post_sent(gid, 1, "table", 77)
    await store.mark_posted(gid, 1)
    assert store.trips == trips and (await store.post(gid, 1, "table")).message_id is None
    with pytest.raises(StorageError):
        await store.record_action(gid, seat=0, action="{}", events="[]", before=5, after=6,
                                  state="{}", finished=False)
    assert (await store.post(gid, 1, "table")).message_id is None
    posted = "SELECT posted_version FROM games WHERE id = ?"
    assert (await store._one(posted, (gid,)))[0] == 0
    await store.clear_votes(gid, "kick")  # a write
    assert (await store.post(gid, 1, "table")).message_id == 77
    assert (await store._one(posted, (gid,)))[0] == 1
    await store.mark_posted(gid, 2)
    assert (await store.game(gid)).posted_version == 2  # a game's row: written first
    await store.post_sent(gid, 1, "dm:5", 78)
    await store.close()
    store = await SqliteStorage.open(path)
    try:
        assert (await store.post(gid, 1, "dm:5")).message_id == 78
    finally:
        await store.close()


async def test_starting_twice_is_refused(store):
    gid = await _running_game(store)
    with pytest.raises(StorageError, match="already started"):
        await store.start_game(gid, config="{}", seats=[], version=0, state="{}")
    assert [s.name for s in await store.seats(gid)] == ["Ben", "Ana"]


async def test_dm_refusals_are_remembered(store):
    assert await store.dm_refused_at(5) is None
    await store.set_dm_refused(5, 123.0)
    assert await store.dm_refused_at(5) == 123.0
    await store.set_dm_refused(5, None)
    assert await store.dm_refused_at(5) is None


async def test_settings_default_until_saved_and_survive_reopening(tmp_path):
    from bot.settings.preferences import PlayerSettings, ServerSettings

    path = str(tmp_path / "db.sqlite3")
    store = await SqliteStorage.open(path)
    assert await store.server_settings(1) == ServerSettings()
    assert await store.server_settings(None) == ServerSettings()
    assert await store.player_settings(7) == PlayerSettings()
    await store.set_dm_refused(7, 5.0)  # a users row without settings reads as the defaults
    assert await store.player_settings(7) == PlayerSettings()
    await store.save_server_settings(1, ServerSettings(reminder_hours=6, turn_timer_hours=48))
    await store.save_player_settings(
        7, PlayerSettings(quiet_hours=(22, 7), timezone="Europe/Berlin"))
    await store.close()
    store = await SqliteStorage.open(path)
    assert (await store.server_settings(1)).turn_timer_hours == 48
    assert await store.server_settings(2) == ServerSettings()
    mine = await store.player_settings(7)
    assert mine.quiet_hours == (22, 7) and mine.timezone == "Europe/Berlin"
    assert await store.dm_refused_at(7) == 5.0  # saving settings kept the DM record
    await store.close()


def test_settings_ignore_unknown_keys_and_refuse_bad_values():
    from pydantic import ValidationError

    from bot.settings.preferences import ServerSettings

    settings = ServerSettings.model_validate_json('{"gone": 1, "reminder_hours": 3}')
    assert settings.reminder_hours == 3
    with pytest.raises(ValidationError):
        ServerSettings(reminder_hours=0)


async def test_a_delivery_is_known_at_once_and_stored_with_the_next_write(tmp_path):
    """SQLite: an interaction id is remembered in memory at once and its row held back for
    the next transaction (the action's own, when it acts): no trip of its own. Lost in a
    crash with that transaction, a delivery again is new, as nothing was done."""
    path = str(tmp_path / "db.sqlite3")
    store = await SqliteStorage.open(path)
    gid = await _running_game(store)
    assert await store.first_delivery(1) is True  # the process's first: it sweeps
    trips = store.trips
    assert await store.first_delivery(2) is True
    assert await store.first_delivery(2) is False
    assert store.trips == trips
    await store.clear_votes(gid, "kick")  # the next write takes the row along
    assert await store.first_delivery(3) is True
    store._later.clear()  # the process dies before another write
    await store.close()
    store = await SqliteStorage.open(path)
    try:
        assert [await store.first_delivery(i) for i in (1, 2, 3)] == [False, False, True]
    finally:
        await store.close()


async def test_a_delivery_twice_at_once_is_new_only_once(store):
    """The same interaction delivered twice before the first delivery is answered (a
    retry while the store looks the id up): exactly one of them is new, on every backend."""
    assert await store.first_delivery(1) is True  # the first sweeps: not part of the race
    for interaction in (2, 3):
        both = await asyncio.gather(store.first_delivery(interaction),
                                    store.first_delivery(interaction))
        assert sorted(both) == [False, True]


@pytest.mark.slow
async def test_a_batchs_statements_run_on_the_loop_unless_the_writer_is_busy_in_its_thread(
        tmp_path, monkeypatch):
    """SQLite runs a batch's statements on the event loop and only its commit in the
    writer's thread; while the writer is in use there (a backup, a read through it), or
    another process holds the write lock, the whole batch goes there, after it. Either way
    it is committed."""
    from bot.storage import sqlite as module

    ran_on_loop: list[bool] = []
    run_together = module._run_together

    def spy(db, batch):
        ran_on_loop.append(threading.current_thread() is threading.main_thread())
        return run_together(db, batch)

    monkeypatch.setattr(module, "_run_together", spy)
    path = str(tmp_path / "db.sqlite3")
    store = await SqliteStorage.open(path)
    gid = await _running_game(store)
    ran_on_loop.clear()
    await store.set_dm_refused(5, 1.0)
    backup = asyncio.ensure_future(store.backup(str(tmp_path / "copy.sqlite3")))
    await asyncio.sleep(0)  # the backup is in the writer's thread
    await store.set_dm_refused(6, 2.0)
    await backup
    assert ran_on_loop == [True, False]
    # Another process holds the write lock: the batch waits for it in the thread, and the
    # loop runs meanwhile.
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    threading.Timer(0.3, other.rollback).start()
    write = asyncio.ensure_future(store.set_dm_refused(7, 3.0))
    ticks = 0
    while not write.done():
        await asyncio.sleep(0.01)
        ticks += 1
    await write
    other.close()
    assert ran_on_loop == [True, False, False] and ticks >= 10
    await store.close()
    store = await SqliteStorage.open(path)
    try:
        assert [await store.dm_refused_at(u) for u in (5, 6, 7)] == [1.0, 2.0, 3.0]
        assert (await store.game(gid)) is not None
    finally:
        await store.close()


async def test_old_interaction_ids_are_dropped_now_and_then(store):
    """Each interaction is one write; the ids past their memory go at the first delivery of
    a process and then once per sweep interval, not at every delivery."""
    from bot.storage.api import INTERACTION_MEMORY_SECONDS

    old = store.clock.now() - INTERACTION_MEMORY_SECONDS - 10
    await store._write("INSERT INTO interactions (id, created_at) VALUES (?, ?)", (1, old))
    assert await store.first_delivery(2) is True  # the first sweep drops id 1
    await store._write("INSERT INTO interactions (id, created_at) VALUES (?, ?)", (3, old))
    assert await store.first_delivery(4) is True  # no sweep yet: id 3 is remembered
    assert await store.first_delivery(1) is True
    assert await store.first_delivery(3) is False


async def test_rows_read_back_from_memory_follow_every_change(store):
    """Table messages and DM refusals are read from memory when only this process writes
    them (from the database when it is shared), and every write is seen."""
    from bot.storage.api import TableRow

    row = await store.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=2,
                                  host_id=1, host_name="Ana")
    await store.start_game(row.id, config="{}", seats=[], version=3, state="{}")
    assert await store.table_message(row.id) is None
    table = TableRow(10, 500, "head", None, "", 3)
    await store.set_table_message(row.id, table)
    assert await store.table_message(row.id) == table
    assert (row.id in store._tables) is not store.shared
    await store.record_action(row.id, seat=0, action="{}", events="[]", before=3, after=4,
                              state="{}", finished=False)
    await store.set_table_message(row.id, TableRow(10, 500, "head", None, "", 4))
    assert (await store.table_message(row.id)).version == 4
    await store.set_dm_refused(5, 9.0)
    assert await store.dm_refused_at(5) == 9.0
    assert (5 in store._dm_refusals) is not store.shared


async def test_single_row_reads_run_on_the_loop_and_see_every_commit(tmp_path):
    """SQLite's single-row reads use a read-only connection of their own, on the event
    loop: each sees every write committed before it, a transaction's writes only once
    it commits, and it can write nothing."""
    import sqlite3

    store = await SqliteStorage.open(str(tmp_path / "db.sqlite3"))
    try:
        assert store._reader is not None
        row = await store.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=2,
                                      host_id=1, host_name="Ana")
        assert (await store.game(row.id)).status == "lobby"

        async def cancel(db):
            await db.execute("UPDATE games SET status = 'cancelled' WHERE id = ?", (row.id,))
            assert (await store.game(row.id)).status == "lobby"  # not committed yet
        await store._transact(cancel)
        assert (await store.game(row.id)).status == "cancelled"
        with pytest.raises(sqlite3.OperationalError):
            store._reader.execute("DELETE FROM games")
    finally:
        await store.close()
    assert store._reader is None


async def test_an_undo_is_appended_and_versions_only_grow(store):
    """Undo adds a row to the log (the version it takes back in ``undoes``), with the
    replayed state as the new version's snapshot; nothing is deleted, no version reused."""
    from bot.storage.api import UNDO_JSON, in_effect

    game = await _running_game(store)
    for version in (1, 2):
        await store.record_action(game, seat=0, action=f'{{"n": {version}}}', events="[]",
                                  before=version - 1, after=version, state="{}",
                                  finished=False, user_id=101)
    await store.vote(game, "undo", 2, 100)
    (last,) = await store.actions(game, after=1)
    await store.record_undo(game, version=2, undoes=last, state='{"v": 3}', user_id=100,
                            detail={"voters": [100]})
    rows = await store.actions(game)
    assert [(r.version, r.undoes, r.user_id) for r in rows] == [
        (1, None, 101), (2, None, 101), (3, 2, 100)]
    assert rows[-1].action == UNDO_JSON and rows[-1].seat == 0
    assert [r.version for r in in_effect(rows)] == [1]
    assert [r.version for r in in_effect(rows[:2])] == [1, 2]  # as it stood before the undo
    assert (await store.game(game)).version == 3
    assert await store.snapshot(game) == (3, '{"v": 3}')
    assert await store.votes(game, "undo", 2) == []
    (undo,) = [h for h in await store.history(game) if h.kind == "undo"]
    assert undo.detail["version"] == 2 and undo.detail["voters"] == [100]
    with pytest.raises(StorageError, match="not at version 2"):  # a second, stale undo
        await store.record_undo(game, version=2, undoes=last, state="{}", user_id=100,
                                detail={})
    assert len(await store.actions(game)) == 3


async def test_games_stored_before_rules_versions_are_of_rules_1(backend, tmp_path, request):
    """Migration 9 stamps every stored config without a rules version with 1 (the rules
    those games played), on both backends."""
    import contextlib

    from bot.storage.migrations import PG_MIGRATIONS
    from bot.storage.postgres import PostgresStorage

    with contextlib.ExitStack() as stack:
        if backend == "sqlite":
            database = str(tmp_path / "old.sqlite3")
            old: Storage = await SqliteStorage.open(database, migrations=MIGRATIONS[:8])
        else:
            server = request.getfixturevalue("postgres_server")
            database = stack.enter_context(server.database(template="template0"))
            old = await PostgresStorage.open(database, migrations=PG_MIGRATIONS[:8])
        await _stamped(old, database)


async def _stamped(old: Storage, database: str) -> None:
    from engine import GameConfig

    row = await old.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=2,
                                host_id=100, host_name="Ana")
    await old.add_seat(row.id, 101, "Ben")
    config = GameConfig(map_id="usa", players=["Ana", "Ben"], seed=4)
    stored = json.dumps(config.model_dump(exclude={"rules"}))
    await old.start_game(row.id, config=stored, version=0, state="{}",
                         seats=[SeatRow(0, 100, "Ana"), SeatRow(1, 101, "Ben")])
    await old.close()
    store = await open_storage(database)
    try:
        migrated = json.loads((await store.game(row.id)).config)
        assert migrated == {**json.loads(stored), "rules": 1}
        assert GameConfig.model_validate(migrated) == config
    finally:
        await store.close()
