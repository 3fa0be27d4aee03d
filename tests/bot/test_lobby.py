"""Lobby commands and buttons: new, join, leave, start, threads, one game per channel."""

from __future__ import annotations

import pytest

from tests.bot.conftest import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Every test here runs on SQLite and on PostgreSQL."""
    return request.param


async def test_lobby_through_slash_commands(table):
    fake = table.fake
    ana, ben, cy = (fake.add_user(n) for n in ("Ana", "Ben", "Cy"))
    ex = await fake.slash(table.bot, ana, "new", map="usa", players=2)
    assert not ex.reply.ephemeral and "Players (1/2): Ana" in ex.text
    ex = await fake.slash(table.bot, ana, "new", map="europe")
    assert ex.reply.ephemeral and "already has a game" in ex.text
    ex = await fake.slash(table.bot, ana, "start")
    assert "At least 2 players" in ex.text
    ex = await fake.slash(table.bot, ben, "join")
    assert "Players (2/2): Ana, Ben" in ex.text
    ex = await fake.slash(table.bot, cy, "join")
    assert ex.reply.ephemeral and "full" in ex.text
    ex = await fake.slash(table.bot, ben, "join")
    assert "already have a seat" in ex.text
    ex = await fake.slash(table.bot, cy, "seat resign")  # in a lobby: leave it
    assert "no seat" in ex.text
    ex = await fake.slash(table.bot, ben, "start")
    assert "Only the host (Ana)" in ex.text
    ex = await fake.slash(table.bot, ana, "seat resign")  # the host leaves: Ben hosts now
    assert "Host: Ben" in ex.text
    ex = await fake.slash(table.bot, cy, "join")
    ex = await fake.slash(table.bot, ben, "start")
    assert "has started" in ex.text
    begins = [s for s in fake.channel_messages() if "begins" in s.content]
    assert len(begins) == 1 and f"<@{ben}>" in begins[0].content
    ex = await fake.slash(table.bot, ana, "join")
    assert "not open for joining" in ex.text
    ex = await fake.slash(table.bot, ben, "start")
    assert "already started" in ex.text


async def test_lobby_buttons_and_the_last_player_leaving(table):
    fake = table.fake
    ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
    lobby = (await fake.slash(table.bot, ana, "new", map="europe")).reply
    ex = await fake.click(table.bot, ben, lobby, label="Join")
    assert ex.callback_types == [7]  # the lobby message itself is updated
    assert "Ana, Ben" in fake.message(lobby.id).content
    await fake.click(table.bot, ben, lobby, label="Leave")
    await fake.click(table.bot, ana, lobby, label="Leave")
    assert "cancelled" in fake.message(lobby.id).content
    assert fake.message(lobby.id).custom_ids() == []
    ex = await fake.slash(table.bot, ana, "new", map="usa")  # the channel is free again
    assert "game #2" in ex.text


async def test_a_game_in_a_thread_and_commands_outside_it(table):
    fake = table.fake
    ana = fake.add_user("Ana")
    ex = await fake.slash(table.bot, ana, "new", map="usa", thread=True)
    (thread_id,) = [c for c, ch in fake.channels.items() if ch["type"] == 11]
    assert f"<#{thread_id}>" in ex.text
    assert ("POST", "/channels/{channel_id}/threads") in fake.requests
    lobby = fake.channel_messages(thread_id)[0]
    assert "game #1" in lobby.content and "Join" in str(lobby.message["components"])
    ex = await fake.slash(table.bot, ana, "status")  # the parent channel points to its thread
    assert f"Game #1 is played in its thread <#{thread_id}>" in ex.text
    ex = await fake.slash(table.bot, ana, "status", channel_id=thread_id)
    assert "Players (1/5)" in ex.text


async def test_rules_and_status_without_a_game(table):
    uid = table.fake.add_user("Ana")
    ex = await table.fake.slash(table.bot, uid, "rules", map="europe")
    assert ex.reply.ephemeral and "Stations" in ex.text and "Tunnels" in ex.text
    ex = await table.fake.slash(table.bot, uid, "rules")
    assert "USA" in ex.text or "Europe" in ex.text
    ex = await table.fake.slash(table.bot, uid, "board")
    assert "no game" in ex.text


async def test_commands_are_synced_as_one_group_and_an_admin_group(table):
    group, admin = table.fake.synced
    assert group["name"] == "ttr" and admin["name"] == "ttr-admin"
    assert [o["name"] for o in admin["options"]] == ["config"]
    subs = {o["name"] for o in group["options"]}
    # Discord allows 25 per level: the rarer commands sit in groups, leaving room for more.
    assert len(subs) <= 25 - 4
    assert subs == {"new", "join", "addbot", "start", "end", "abandon", "board", "hand", "draw",
                    "claim", "tickets", "station", "harbor", "exchange", "status", "rules",
                    "settings", "seat", "records", "away", "watch"}
    nested = {o["name"]: {s["name"] for s in o["options"]}
              for o in group["options"] if o["type"] == 2}
    assert nested == {"seat": {"autopilot", "replace", "resign"},
                      "records": {"history", "replay", "games", "stats", "leaderboard"}}
    new = next(o for o in group["options"] if o["name"] == "new")
    maps = {c["value"]: c["name"] for c in new["options"][0]["choices"]}
    assert maps["iberia"] == "Iberia (2–5 players; some data estimated, see /ttr rules)"
    assert maps["world"] == "Rails & Sails: World (2–5 players)"
    assert set(maps) == {"usa", "europe", "nordic", "pennsylvania", "iberia", "world"}
    claim = next(o for o in group["options"] if o["name"] == "claim")
    assert {o["name"]: o.get("autocomplete") for o in claim["options"]} == {
        "route": True, "colour": True, "locomotives": None}
