"""Each use of a library's private internals (``bot.fence``) against the installed library:
an upgrade that moves one fails here, by name."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import aiosqlite
import discord
import pytest
from discord.http import Route

from bot import fence
from bot.edge.components import SentButton


async def test_aiosqlite_gives_its_connection_and_runs_a_function_in_its_thread():
    async with aiosqlite.connect(":memory:", check_same_thread=False) as conn:
        await conn.execute("CREATE TABLE t (x INTEGER)")
        await conn.execute("INSERT INTO t VALUES (7)")
        db = fence.sqlite_connection(conn)
        assert isinstance(db, sqlite3.Connection)
        assert db.execute("SELECT x FROM t").fetchall() == [(7,)]  # the very same database
        loop_thread = threading.get_ident()

        def where(inner: sqlite3.Connection) -> tuple[int, int]:
            assert inner is db
            return threading.get_ident(), inner.execute("SELECT x FROM t").fetchone()[0]
        thread, x = await fence.in_sqlite_thread(conn, where)
        assert thread != loop_thread and x == 7


def _user(uid: int) -> dict[str, object]:
    return {"id": str(uid), "username": "ana", "discriminator": "0", "avatar": None,
            "global_name": "Ana"}


async def test_discord_py_dispatches_a_raw_interaction():
    client = discord.Client(intents=discord.Intents.none())
    interactions: list[discord.Interaction[discord.Client]] = []

    @client.event
    async def on_interaction(interaction: discord.Interaction[discord.Client]) -> None:
        interactions.append(interaction)
    async with client:  # (sets up its event loop, as a login does)
        fence.dispatch_interaction(client, {
            "id": "11", "application_id": "12", "type": 3, "token": "t", "version": 1,
            "locale": "en-US", "entitlements": [], "attachment_size_limit": 26_214_400,
            "channel_id": "13", "app_permissions": "0", "context": 1, "user": _user(14),
            "channel": {"id": "13", "type": 1, "recipients": [_user(14)]},
            "data": {"custom_id": "nothing", "component_type": 2}})
        for _ in range(3):  # the listener runs as a task of its own
            await asyncio.sleep(0)
        assert len(interactions) == 1
    interaction = interactions[0]
    assert isinstance(interaction, discord.Interaction) and interaction.id == 11
    assert interaction.user.id == 14


async def test_discord_py_sends_every_request_through_one_exit():
    client = discord.Client(intents=discord.Intents.none())
    asked: list[Route] = []

    async def request(route: Route, **kwargs: object) -> object:
        asked.append(route)
        return _user(15)
    fence.route_requests(client, request)
    user = await client.fetch_user(15)
    assert user.id == 15 and user.name == "ana"
    assert [(r.method, r.path) for r in asked] == [("GET", "/users/{user_id}")]


@pytest.mark.parametrize("label,emoji,disabled", [
    ("Draw", None, False), ("", "🎫", True), ("Claim", "<:loco:123456789012345678>", False)])
def test_a_sent_button_is_the_payload_discord_py_sends(label, emoji, disabled):
    """``SentButton`` builds a button's payload itself (no component objects); it must stay
    what ``discord.ui.Button`` sends, and views must still render items through
    ``to_component_dict``."""
    style = discord.ButtonStyle.secondary
    ours = SentButton(custom_id="ttr:1:blind:2", label=label, style=style,
                      disabled=disabled, emoji=emoji, row=0)
    theirs = discord.ui.Button(custom_id="ttr:1:blind:2", label=label or None, style=style,
                               disabled=disabled, emoji=emoji, row=0)
    assert ours.to_component_dict() == theirs.to_component_dict()
    view = discord.ui.View(timeout=None)
    view.add_item(ours)
    assert view.to_components() == [{"type": 1, "components": [theirs.to_component_dict()]}]


def test_a_process_pool_gives_the_pipe_of_its_results():
    import multiprocessing
    import os
    import stat
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    try:
        fd = fence.pool_result_pipe(pool)
        assert stat.S_ISFIFO(os.fstat(fd).st_mode)
        assert fd == pool._result_queue._reader.fileno()  # type: ignore[attr-defined]
    finally:
        pool.shutdown()
