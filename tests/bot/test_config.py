"""Server settings from issue 13 (language, thread per game, maps offered) and the languages
members and games get: set by ``/ttr-admin config``, ``/ttr new`` and ``/ttr settings``."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.settings.preferences import ServerSettings
from maps import map_ids


async def config(table, user: str, **options):
    return await table.fake.slash(table.bot, table.users[user], "config", group="ttr-admin",
                                  **options)


async def test_maps_offered_limit_new_games(table):
    table.users["Ana"] = table.fake.add_user("Ana")
    ex = await config(table, "Ana", setting="maps_offered", value="europe, nordic")
    assert "Saved `maps_offered`" in ex.text and "**europe, nordic**" in ex.text
    ex = await table.slash("Ana", "new", map="usa")
    assert ex.reply.ephemeral
    assert "offers these maps: Europe, Nordic Countries." in ex.text
    assert await table.bot.service.channel_game(table.fake.CHANNEL_ID) is None
    ex = await table.slash("Ana", "new", map="europe")
    assert "game #" in ex.reply.content and not ex.reply.ephemeral
    ex = await config(table, "Ana", setting="maps_offered", value="atlantis")
    assert "not a valid value for `maps_offered`" in ex.text
    ex = await config(table, "Ana", setting="maps_offered", value="all")
    assert "`maps_offered` = **all**" in ex.text  # every map again


def test_maps_offered_are_known_map_ids():
    assert ServerSettings().with_value("maps_offered", "USA usa").maps_offered == ["usa"]
    assert ServerSettings().offers("usa")
    with pytest.raises(ValidationError):
        ServerSettings().with_value("maps_offered", "usa, mars")
    assert set(map_ids()) >= {"usa", "europe"}


async def test_thread_per_game_opens_a_thread_unless_the_game_says_otherwise(table):
    table.users["Ana"] = table.fake.add_user("Ana")
    await config(table, "Ana", setting="thread_per_game", value="true")

    def threads() -> int:
        return table.fake.requests.count(("POST", "/channels/{channel_id}/threads"))

    ex = await table.slash("Ana", "new", map="usa", thread=False)
    assert "game #" in ex.reply.content and "is open in" not in ex.reply.content
    assert threads() == 0
    ex = await table.slash("Ana", "end")
    await table.click("Ana", ex.reply, label="End the game")
    ex = await table.slash("Ana", "new", map="usa")
    assert "is open in <#" in ex.reply.content and threads() == 1


async def test_language_setting_and_discord_locale_choose_private_answers(table):
    table.users["Ana"] = table.fake.add_user("Ana")
    table.users["Ben"] = table.fake.add_user("Ben")
    table.fake.locales[table.users["Ben"]] = "de"
    ex = await table.slash("Ben", "settings")
    assert "Deine Einstellungen" in ex.text and "Erinnerungen: an" in ex.text
    ex = await table.slash("Ben", "settings", language="en")
    assert "Saved. Your settings:" in ex.text and "Language of answers and DMs: English" in ex.text
    ex = await table.slash("Ana", "settings", language="de")
    assert "Gespeichert." in ex.text and "Sprache der Antworten und DMs: Deutsch" in ex.text
    ex = await table.slash("Ana", "settings", language="auto")
    assert "Saved." in ex.text and "my Discord's language" in ex.text
    # A member whose Discord speaks neither language gets the server's.
    table.fake.locales[table.users["Ana"]] = "fr"
    await config(table, "Ana", setting="language", value="de")
    ex = await table.slash("Ana", "settings")
    assert "Deine Einstellungen" in ex.text
    ex = await config(table, "Ana", setting="language", value="fr")
    assert "kein gültiger Wert für `language`" in ex.text


async def test_config_refusal_is_in_the_members_language(table):
    table.users["Ben"] = table.fake.add_user("Ben")
    ben = table.users["Ben"]
    table.fake.permissions[ben] = 0
    table.fake.locales[ben] = "de"
    ex = await table.fake.slash(table.bot, ben, "config", group="ttr-admin")
    assert ex.reply.ephemeral and "Server verwalten" in ex.text


async def test_engine_refusals_reach_a_german_member_in_german(table):
    await table.open_game(["Ana", "Ben"], "usa")
    # Both still choose their first tickets: any draw is refused by the engine.
    assert (await table.stored_state()).phase == "choose_initial_tickets"
    table.fake.locales[table.users["Ben"]] = "de"
    table.fake.locales[table.users["Ana"]] = "en-GB"
    ex = await table.slash("Ben", "draw", card="deck")
    # The refusal, then the offer it waits for (issue 27), in the member's language.
    first, pointer = ex.text.splitlines()[:2]
    assert ex.reply.ephemeral and first == "Alle wählen noch ihre ersten Zielkarten."
    assert "**Meine Hand**" in pointer
    ex = await table.slash("Ana", "draw", card="deck")
    assert ex.text.splitlines()[0] == "Everyone is still choosing their first destination tickets."


async def test_a_german_game_posts_in_german_while_answers_follow_each_member(table):
    table.users["Ana"] = table.fake.add_user("Ana")
    table.users["Ben"] = table.fake.add_user("Ben")
    ex = await table.slash("Ana", "new", map="usa", language="de")
    lobby = ex.reply
    assert [c["label"] for c in lobby.controls() if c["type"] == 2] == [
        "Beitreten", "Verlassen", "Starten"]
    await table.click("Ben", lobby, label="Beitreten")
    await table.click("Ana", lobby, label="Starten")
    ex = await table.slash("Ben", "rules")  # Ben's Discord speaks English: his answer too
    assert ex.reply.ephemeral and "On your turn do one thing" in ex.text
    table.fake.locales[table.users["Ben"]] = "de-DE"
    ex = await table.slash("Ben", "rules")
    assert "In deinem Zug tust du eines davon" in ex.text
    ex = await table.slash("Ben", "seat autopilot", mode="on")
    assert not ex.reply.ephemeral and "hat den Platz einem Computerspieler gegeben" in ex.text
    table.fake.locales[table.users["Ana"]] = "en-US"
    ex = await table.slash("Ana", "end")
    assert "End game #" in ex.text  # Ana's own confirmation, in English
    (button,) = [c for c in ex.reply.controls() if c["type"] == 2]
    assert button["label"] == "End the game"
    ex = await table.click("Ana", ex.reply, label="End the game")
    assert any("wurde von Ana beendet" in s.content for s in ex.sent if s.public)
