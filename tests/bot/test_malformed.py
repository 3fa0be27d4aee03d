"""Malformed custom_ids, options and payloads: refused quietly, never a traceback, no change."""

from __future__ import annotations

import logging

import pytest


def _button(custom_id: str) -> dict:
    return {"type": 2, "style": 1, "label": "x", "custom_id": custom_id}


@pytest.fixture
async def running(table):
    await table.open_game(["Ana", "Ben"], "usa")
    return table


def _assert_quiet(ex, caplog):
    for sent in ex.replies:
        assert sent.ephemeral, sent.content
        assert "Traceback" not in sent.content and "Error" not in sent.content
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.parametrize("custom_id", [
    "ttr:", "ttr:abc:up", "ttr:1:up:9", "ttr:1:up", "ttr:1:blind", "ttr:1:zap",
    "ttr:1:join:5", "ttr:0:hand", "ttr:1:up:1.2.3", "ttr:" + "9" * 90, "ttr:1:hand:x",
])
async def test_malformed_custom_ids_get_a_short_private_refusal(running, caplog, custom_id):
    table = running
    before = (await table.stored_state()).version
    message = table.fake.plant(table.fake.CHANNEL_ID, [_button(custom_id)])
    ex = await table.click("Ana", message, custom_id=custom_id)
    assert ex.callback_types == [4] and "not valid" in ex.text
    _assert_quiet(ex, caplog)
    assert (await table.stored_state()).version == before


async def test_unknown_games_stale_versions_and_bad_values(running, caplog):
    table = running
    state = await table.stored_state()
    gid = table.game_id
    cases = {
        f"ttr:{gid + 41}:hand": "does not exist",
        f"ttr:{gid}:blind:{state.version + 5}": "",
        f"ttr:{gid}:up:7.{state.version}": "",
    }
    for custom_id, expect in cases.items():
        message = table.fake.plant(table.fake.CHANNEL_ID, [_button(custom_id)])
        ex = await table.click("Ana", message, custom_id=custom_id)
        assert ex.replies, custom_id
        assert expect in ex.text
        _assert_quiet(ex, caplog)
    select = {"type": 3, "custom_id": f"ttr:{gid}:keep", "min_values": 1, "max_values": 2,
              "options": [{"label": "a", "value": "abc"}, {"label": "b", "value": "-1"}]}
    message = table.fake.plant(table.fake.CHANNEL_ID, [select])
    for values in (["abc"], ["-1"], ["99999"]):
        ex = await table.fake.choose(table.bot, table.users["Ana"], message, values)
        assert ex.replies and ex.reply.ephemeral, values
        _assert_quiet(ex, caplog)
    assert (await table.stored_state()).version == state.version


async def test_foreign_or_unknown_components_are_ignored(running, caplog):
    table = running
    message = table.fake.plant(table.fake.CHANNEL_ID, [_button("poll:1:yes")])
    ex = await table.click("Ana", message, custom_id="poll:1:yes")
    assert ex.callback_types == [] and ex.sent == []
    # A click naming a component that is not on the message is dropped by discord.py.
    payload = table.fake.component_payload(table.users["Ana"], message, "ttr:1:hand")
    ex = await table.fake.feed(table.bot, payload)
    assert ex.callback_types == []
    _assert_quiet(ex, caplog)


async def test_bad_command_options_are_refused_privately(running, caplog):
    table = running
    before = (await table.stored_state()).version
    for sub, options in (("claim", {"route": "nowhere"}), ("claim", {"route": "999999"}),
                         ("draw", {"card": "banana"}), ("station", {"city": "paris"}),
                         ("claim", {"route": "1", "colour": "plaid"})):
        ex = await table.slash("Ana", sub, **options)
        assert ex.replies, (sub, options)
        _assert_quiet(ex, caplog)
    assert (await table.stored_state()).version == before


async def test_unknown_and_mistyped_commands_end_in_a_short_answer(running, caplog):
    table = running
    fake = table.fake
    uid = table.users["Ana"]
    bad = [
        fake.command_data("nuke", {}),  # a subcommand this bot does not have
        {"id": str(fake.COMMAND_ID), "name": "ttr", "type": 1, "options": [
            {"type": 1, "name": "new", "options": [
                {"type": 3, "name": "map", "value": "mars"}]}]},  # not one of the choices
        {"id": "1", "name": "other", "type": 1, "options": []},  # a command we never made
        fake.command_data("claim", {}),  # a required option missing (outdated client)
    ]
    for data in bad:
        ex = await fake.feed(table.bot, fake.interaction_payload(2, uid, data))
        assert ex.callback_types == [4] and "could not be run" in ex.text
        for sent in ex.replies:
            assert sent.ephemeral and "Traceback" not in sent.content
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_autocomplete_outside_a_game_or_turn_offers_nothing(table):
    uid = table.fake.add_user("Zed")
    assert await table.fake.autocomplete(table.bot, uid, "claim", "route", route="par") == []
    assert await table.fake.autocomplete(table.bot, uid, "station", "city", city="") == []
    got = await table.fake.autocomplete(table.bot, uid, "draw", "card", card="")
    assert [c["value"] for c in got] == ["deck"]
