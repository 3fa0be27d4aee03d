"""After a game (issue 30, item 4): the timelapse posted with the final scores, and the
server's chronicle channel (``/ttr-admin config chronicle_channel``) getting each finished
game's summary, final image, timelapse and highlights."""

from __future__ import annotations

import json
import logging

import pytest

import engine
from bot import i18n
from bot.records import chronicle
from bot.records.history import building_turns, logged_events
from bot.render.demo import final_view
from bot.render.highlight import LastMove
from bot.settings.preferences import ServerSettings
from bot.storage.api import UNDO_JSON, ActionRow
from bot.storage.codec import event_to_json
from engine.events import RouteClaimed, TurnStarted
from maps import load_map
from tests.bot.conftest import SECRET_FIELDS


async def config(table, user: str, **options):
    return await table.fake.slash(table.bot, table.users[user], "config", group="ttr-admin",
                                  **options)


def add_channel(table, guild_id: int | None = None) -> int:
    cid = table.fake.next_id()
    table.fake.channels[cid] = table.fake._text_channel(cid)
    if guild_id is not None:
        table.fake.channels[cid]["guild_id"] = str(guild_id)
    return cid


@pytest.mark.slow
async def test_a_finished_game_posts_its_timelapse_and_the_chronicle_its_summary(table):
    table.users["Ana"] = table.fake.add_user("Ana")
    chronicle_id = add_channel(table)
    ex = await config(table, "Ana", setting="chronicle_channel", value=f"<#{chronicle_id}>")
    assert f"`chronicle_channel` = **<#{chronicle_id}>**" in ex.text
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.play_to_end()
    table.assert_quiet_channel(state)
    table.assert_no_secrets_before_final()

    shown = table.fake.channel_now(table.fake.CHANNEL_ID)
    final = next(i for i, s in enumerate(shown) if table.final_mark in s.content)
    lapses = [s for s in shown if any(d.startswith(b"TIMELAPSE") for _, d in s.files)]
    assert len(lapses) == 1, [(s.channel_id, s.id, s.content, s.kind) for s in lapses]
    assert shown.index(lapses[0]) > final  # after the final scores
    (name, data), = lapses[0].files
    assert name == "timelapse.gif"
    lapse = json.loads(data[len(b"TIMELAPSE"):])
    assert lapse["final"] is not None and not set(lapse) & SECRET_FIELDS  # public only
    # Every claim of the stored log, in order, turn by turn.
    async with table.store() as store:
        rows = await store.actions(table.game_id)
    names = list(state.config.players)
    moves = building_turns("usa", names, logged_events(rows))
    assert lapse["moves"] == [
        {"seat": m.seat, "routes": list(m.routes), "cities": list(m.cities), "caption": m.caption}
        for m in moves]
    claimed = [m["routes"][0] for m in lapse["moves"]]
    assert sorted(claimed) == sorted(engine.public_view(state).claimed)
    assert f"Game #{table.game_id}, claim by claim ({len(moves)} building turns)" in (
        lapses[0].content)

    # The chronicle channel: the summary with the final image and the timelapse, once.
    (post,) = table.fake.channel_messages(chronicle_id)
    assert [n for n, _d in post.files] == ["final.png", "timelapse.gif"]
    assert post.files[0][1].startswith(b"FINAL") and post.files[1][1] == data
    assert f"**Game #{table.game_id}** (USA) is over." in post.content
    for line in ("Longest trail:", "Biggest claim:", "Tickets completed:", "🏆"):
        assert line in post.content
    # No ticket of anyone reached it before the game ended: it heard nothing before.
    assert post.id > shown[final].id


@pytest.mark.slow
async def test_a_chronicle_channel_gone_costs_the_game_nothing(table, caplog):
    table.users["Ana"] = table.fake.add_user("Ana")
    chronicle_id = add_channel(table)
    await config(table, "Ana", setting="chronicle_channel", value=str(chronicle_id))
    table.fake.delete_channel(chronicle_id)
    await table.open_game(["Ana", "Ben"], "usa")
    sent_before = len(table.fake.sent)
    with caplog.at_level(logging.WARNING, logger="bot.game.publisher"):
        state = await table.play_to_end()
    assert state.phase == "game_over"
    shown = table.fake.channel_now(table.fake.CHANNEL_ID)
    assert any(table.final_mark in s.content for s in shown)
    assert any(n == "timelapse.gif" for s in shown for n, _d in s.files)
    assert table.fake.channel_messages(chronicle_id) == []
    assert "the chronicle channel" in caplog.text and "refused" in caplog.text
    # The players hear nothing of it, in the channel or by DM.
    for sent in table.fake.sent[sent_before:]:
        assert "chronicle" not in sent.content.lower(), sent.content
    async with table.store() as store:
        assert (await store.game(table.game_id)).status == "finished"


async def test_the_chronicle_channel_is_one_of_this_servers_channels(table):
    table.users["Ana"] = table.fake.add_user("Ana")
    ex = await config(table, "Ana", setting="chronicle_channel", value="#chronicle")
    assert "not a valid value for `chronicle_channel`: name a channel of this server" in ex.text
    elsewhere = add_channel(table, guild_id=table.fake.GUILD_ID + 1)
    ex = await config(table, "Ana", setting="chronicle_channel", value=f"<#{elsewhere}>")
    assert "name a channel of this server" in ex.text
    unknown = table.fake.next_id()
    ex = await config(table, "Ana", setting="chronicle_channel", value=str(unknown))
    assert "I cannot see that channel" in ex.text
    async with table.store() as store:
        assert (await store.server_settings(table.fake.GUILD_ID)).chronicle_channel is None
    mine = add_channel(table)
    ex = await config(table, "Ana", setting="chronicle_channel", value=str(mine))
    assert "Saved `chronicle_channel`" in ex.text
    ex = await config(table, "Ana", setting="chronicle_channel", value="off")
    assert "`chronicle_channel` = **off**" in ex.text


def test_an_undone_claim_is_not_in_the_timelapse():
    def row(version: int, seat: int, *events: object, undoes: int | None = None) -> ActionRow:
        return ActionRow(version, seat, UNDO_JSON if undoes else "{}",
                         json.dumps([event_to_json(e) for e in events]), undoes=undoes)

    names = ["Ana", "Ben"]
    log = [row(1, 0, RouteClaimed(0, 5, {"red": 2}, 2), TurnStarted(1, 2)),
           row(2, 0, undoes=1),  # Ana takes the claim back...
           row(3, 0, RouteClaimed(0, 7, {"blue": 1}, 1), TurnStarted(1, 2)),  # ...claims 7
           row(4, 1, RouteClaimed(1, 9, {"red": 3}, 4), TurnStarted(0, 3))]
    moves = building_turns("usa", names, logged_events(log))
    assert [(m.seat, m.routes) for m in moves] == [(0, (7,)), (1, (9,))]


def test_a_chronicle_channel_reads_as_a_mention_or_an_id():
    settings = ServerSettings()
    assert settings.with_value("chronicle_channel", "<#123456789012345678>").chronicle_channel \
        == 123456789012345678
    assert settings.with_value("chronicle_channel", " 123456789012345678 ").chronicle_channel \
        == 123456789012345678
    assert settings.with_value("chronicle_channel", "off").chronicle_channel is None
    assert ServerSettings.optional("chronicle_channel")


def test_the_summary_names_the_highlights_in_english_and_german():
    view = final_view("europe", seed=2, players=3)
    final = view.final
    assert final is not None
    moves = [LastMove(seat=s, routes=(r,)) for r, s in sorted(view.claimed.items())]
    lengths = {r.id: r.length for r in load_map("europe").routes}
    seat, route = chronicle.biggest_claim("europe", moves)
    assert lengths[route] == max(lengths[r] for r in view.claimed)
    assert view.claimed[route] == seat
    with i18n.language("en"):
        text = chronicle.summary(7, view, moves)
    assert text.startswith("📜 **Game #7** (Europe) is over.")
    longest = max(p.longest_path for p in final.players)
    assert "Longest trail: " in text and f", {longest} spaces" in text
    for p in final.players:
        assert f"{p.name} {p.tickets_completed}/{len(p.tickets)}" in text
    with i18n.language("de"):
        german = chronicle.summary(7, view, moves)
    assert german.startswith("📜 **Partie #7** (Europa) ist beendet.")
    assert "Längste Strecke:" in german and "Erfüllte Zielkarten:" in german
    assert "Größte Strecke:" in german
