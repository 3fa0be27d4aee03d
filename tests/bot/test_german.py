"""Whole German games through the harness (issue 13): every map played to the end in
German, the secret scan passing, and no English left in the texts players read most."""

from __future__ import annotations

import json
import re

import pytest

from bot.play.maps import supported_maps

# English that must not appear in a German game's channel or DMs (key messages: turn lines,
# the table message, prompts, final scores, hands).
ENGLISH = re.compile(r"\b(claimed|drew|your turn|Final scores|Market|waiting for|Your hand|"
                     r"Your tickets|Winner|destination tickets?|locomotives?|points?)\b")


@pytest.mark.slow
@pytest.mark.parametrize("map_id", supported_maps())
async def test_a_whole_german_game(table, map_id):
    await table.open_game(["Ana", "Ben"], map_id, language="de")
    state = await table.play_to_end()
    assert state.phase == "game_over"
    table.assert_no_secrets_before_final()
    # The scan followed the map's own secrets in German words too.
    followed = {"iberia": "festival_lines_checked", "pennsylvania": "share_lines_checked",
                "world": "piece_lines_checked"}.get(map_id)
    assert followed is None or table.counts.get(followed, 0) > 0, table.counts
    public = table.fake.channel_messages()
    (final,) = [s for s in public if "🏁 **Endwertung**" in s.content]
    assert "Sieger:" in final.content and "Zielkarten von" in final.content
    assert any("hat" in s.content and "gebaut" in s.content for s in public)
    assert any("🚂 Spielplan" in s.content or "beginnt!" in s.content for s in public)
    for s in public:
        assert not ENGLISH.search(s.content), s.content
    # The words on every image: boards and final scores in the channel, hands in the DMs.
    images = [data for s in public for _name, data in s.files]
    for uid in table.users.values():
        dms = table.fake.dms(uid)
        assert dms and all("**Deine Hand:**" in d.content for d in dms if d.content)
        for d in dms:
            assert not ENGLISH.search(d.content), d.content
        images += [data for d in dms for _name, data in d.files]
    kinds = {data[:4] for data in images}
    assert {b"BOAR", b"FINA", b"HAND", b"TIME"} <= kinds  # the timelapse's words too
    assert any("Strecke für Strecke" in s.content for s in public)
    assert all(_image(data)["language"] == "de" for data in images)


def _image(data: bytes) -> dict:
    """What the test renderer drew: b'BOARD', b'FINAL', b'HAND' or b'TIMELAPSE', then the
    view as JSON."""
    return json.loads(data[data.index(b"{"):])


@pytest.mark.slow
async def test_records_in_the_askers_language_with_the_lines_the_channel_saw(table):
    """History, replay, games, stats and leaderboard answer in the asker's language; a
    history's lines stay as the (German) channel told them."""
    await table.open_game(["Ana", "Ben"], "usa", language="de")
    await table.play_to_end()
    table.fake.locales[table.users["Ben"]] = "en-US"  # Ben's Discord is in English
    channel = "\n".join(s.content for s in table.fake.channel_messages())

    def told(text: str) -> list[str]:
        return [line[2:] for line in text.splitlines() if line.startswith("• ")]

    ana = (await table.slash("Ana", "records history")).reply.content
    ben = (await table.slash("Ben", "records history")).reply.content
    assert "Verlauf, Seite" in ana and "**Zug " in ana
    assert "history, page" in ben and "**Turn " in ben
    assert told(ana) and told(ana) == told(ben)
    assert all(line in channel for line in told(ana))
    ana_turn = await table.slash("Ana", "records replay", turn=3)
    ben_turn = await table.slash("Ben", "records replay", turn=3)
    assert "zu Beginn von Zug 3" in ana_turn.reply.content
    assert "as turn 3 of" in ben_turn.reply.content
    assert told(ana_turn.reply.content) == told(ben_turn.reply.content)
    assert _image(ana_turn.reply.files[0][1])["language"] == "de"
    assert _image(ben_turn.reply.files[0][1])["language"] == "en"

    listed = (await table.slash("Ana", "records games")).reply.content
    assert "**Partien auf diesem Server**" in listed
    games = (await table.slash("Ben", "records games")).reply.content
    assert "**Games on this server**" in games and "finished" in games
    stats = (await table.slash("Ana", "records stats")).reply.content
    assert "Dieser Server" in stats and "Zielkarten:" in stats and "erfüllt" in stats
    assert "Rangliste" in (await table.slash("Ana", "records leaderboard")).reply.content
    assert "Leaderboard" in (await table.slash("Ben", "records leaderboard")).reply.content
    refused = await table.slash("Ana", "records replay", turn=999)
    assert "wähle einen davon" in refused.reply.content


async def test_the_last_english_corners_speak_german(table):
    """Suggestions, computer seat names, storage refusals, thread names and a setting's
    problem reach a German member in German (issue 13: every player-facing text)."""
    fake = table.fake
    ana, ben, cy = fake.add_user("Ana"), fake.add_user("Ben"), fake.add_user("Cy")
    for user in (ben, cy):
        fake.locales[user] = "de"
    fake.locales[ana] = "en-US"  # the host speaks English; the game's posts are German
    ex = await fake.slash(table.bot, ana, "new", map="usa", players=3, thread=True,
                          language="de")
    (thread,) = [ch for ch in fake.channels.values() if ch["type"] == 11]
    assert thread["name"] == "Zug um Zug – USA"  # in the game's language
    table.users.update(Ana=ana, Ben=ben, Cy=cy)
    channel = int(thread["id"])
    await fake.slash(table.bot, ben, "join", channel_id=channel)
    ex = await fake.slash(table.bot, ben, "join", channel_id=channel)
    assert "du hast schon einen Platz in dieser Partie" in ex.text
    ex = await fake.slash(table.bot, ana, "addbot", level="hard", channel_id=channel)
    assert "Bot 1 (schwer)" in ex.text
    ex = await fake.slash(table.bot, cy, "join", channel_id=channel)
    assert "die Partie ist voll (3 Spieler)" in ex.text
    await fake.slash(table.bot, ana, "start", channel_id=channel)
    # Autocomplete: Discord asks while a member types; the choices are in their language.
    named = [c["name"] for c in await fake.autocomplete(table.bot, ben, "draw", "card",
                                                        card="", channel_id=channel)]
    assert "Der Stapel (verdeckt)" in named and any(n.startswith("Platz 1: ") for n in named)
    named = [c["name"] for c in await fake.autocomplete(table.bot, ana, "draw", "card",
                                                        card="", channel_id=channel)]
    assert "The deck (blind)" in named
    ex = await fake.slash(table.bot, ana, "config", group="ttr-admin", setting="reminder_hours",
                          value="soon")
    assert ex.text.endswith("give a number.")
    ex = await fake.slash(table.bot, ben, "settings", timezone="Mars/Olympus")
    assert "unbekannte Zeitzone 'Mars/Olympus'" in ex.text
    ex = await fake.slash(table.bot, ben, "settings", quiet_from=25, quiet_to=3)
    assert "Ruhezeiten sind volle Stunden von 0 bis 23" in ex.text
    fake.locales[ana] = "de"
    ex = await fake.slash(table.bot, ana, "config", group="ttr-admin",
                          setting="kick_after_expiries", value="99")
    assert ex.text.endswith("gib höchstens 20 an.")
