"""Who plays a seat: controllers, who played each action, the history, the schema under it."""

from __future__ import annotations

import pytest

from bot.storage.api import SeatRow, StorageError
from bot.storage.migrations import MIGRATIONS
from bot.storage.sqlite import SqliteStorage


async def test_the_games_table_rebuild_keeps_every_row_and_allows_early_ends(tmp_path):
    path = str(tmp_path / "db.sqlite3")
    old = await SqliteStorage.open(path, migrations=MIGRATIONS[:2])
    row = await old.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=3,
                                host_id=100, host_name="Ana")
    await old._conn.execute("INSERT INTO seats (game_id, seat, user_id, name) "
                            "VALUES (?, 1, 101, 'Ben')", (row.id,))
    await old._conn.execute("INSERT INTO actions (game_id, version, seat, action, events, "
                            "created_at) VALUES (?, 1, 0, '{}', '[]', 0)", (row.id,))
    await old.close()
    store = await SqliteStorage.open(path)
    try:
        assert await store.game(row.id) == row
        # Dropping the old table cascaded nothing: seats and actions are all there.
        assert [(s.name, s.controller) for s in await store.seats(row.id)] == [
            ("Ana", "human"), ("Ben", "human")]
        assert [(a.version, a.user_id) for a in await store.actions(row.id)] == [(1, None)]
        await store.end_game(row.id, "ended", by_user=100, detail={"why": "test"})
        assert (await store.game(row.id)).status == "ended"
        with pytest.raises(StorageError, match="over already"):
            await store.end_game(row.id, "abandoned", by_user=100, detail={})
        assert await store.active_game(10) is None  # the channel is free
        assert [h.kind for h in await store.history(row.id)] == ["ended"]
        fk = await store._all("PRAGMA foreign_keys")
        assert fk == [(1,)]  # switched back on after migrating
        new = await store.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=2,
                                      host_id=1, host_name="A")
        assert new.id > row.id
    finally:
        await store.close()


async def test_an_interaction_is_handled_once_even_after_reopening(tmp_path):
    path = str(tmp_path / "db.sqlite3")
    store = await SqliteStorage.open(path)
    assert await store.first_delivery(42) is True
    assert await store.first_delivery(42) is False
    await store.close()
    store = await SqliteStorage.open(path)
    assert await store.first_delivery(42) is False
    assert await store.first_delivery(43) is True
    await store.close()


async def test_votes_are_counted_once_per_voter(tmp_path):
    store = await SqliteStorage.open(str(tmp_path / "db.sqlite3"))
    row = await store.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=3,
                                  host_id=100, host_name="Ana")
    assert await store.vote(row.id, "abandon", 0, 100) == [100]
    assert await store.vote(row.id, "abandon", 0, 100) == [100]
    assert await store.vote(row.id, "undo", 7, 101) == [101]
    await store.clear_votes(row.id, "undo")
    assert await store.votes(row.id, "undo", 7) == []
    assert await store.votes(row.id, "abandon", 0) == [100]
    await store.close()


async def test_who_played_each_action_and_who_changed_a_seat(table):
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(4):
        await table.step()
    state = await table.stored_state()
    service = table.bot.service
    rows = await service.storage.actions(table.game_id)
    assert rows and all(
        r.user_id == table.seat_user(state, r.seat) for r in rows)  # history says who played
    info = await service.set_controller(table.game_id, 1, "computer:normal", reason="test",
                                        by_user=table.users["Ana"])
    assert info.controller(1) == "computer:normal" and info.seats[1].person
    (change,) = await service.storage.history(table.game_id)
    assert (change.kind, change.seat, change.user_id) == ("controller", 1, table.users["Ana"])
    assert change.detail["reason"] == "test" and change.detail["was"] == "human"
    assert change.version == state.version
    with pytest.raises(ValueError):
        await service.set_controller(table.game_id, 1, "robot", reason="bad")
    # The member cannot play a seat a computer plays for them.
    user = table.seat_user(state, 1)
    ex = await table.fake.slash(table.bot, user, "draw", card="deck")
    assert "computer player has your seat" in ex.text
    await service.set_controller(table.game_id, 1, "human", reason="back")
    assert (await service.info(table.game_id)).controller(1) == "human"


def test_a_seat_without_a_member():
    assert SeatRow(0, -1, "Bot", "computer:easy").person is False
    assert SeatRow(0, 5, "Ana", "auto").human is False
    assert SeatRow(0, 5, "Ana").human is True


def test_a_seats_stored_controller_is_the_engines_controller():
    from engine.players import Controller

    assert SeatRow(0, -1, "Bot", "computer:hard").controller.level == "hard"
    assert type(SeatRow(0, 5, "Ana").controller) is Controller
    with pytest.raises(ValueError, match="unknown controller"):
        SeatRow(0, -1, "Bot", "computer:expert")
