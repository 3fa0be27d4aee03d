"""The message catalog: every message the code uses has its German text, none is unused,
and both languages fill in the same fields; the command tree's German names are valid."""

from __future__ import annotations

import ast
import re
import string

import discord
import pytest

from bot import catalog, i18n
from bot.edge.commands import CommandTranslator
from bot.i18n import _, _n

FIELD = string.Formatter()
# What Discord accepts as a command or option name (lowercase letters of any script).
NAME = re.compile(r"^[-_\w]{1,32}$")


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in FIELD.parse(text) if name}


@pytest.fixture(scope="module")
def german() -> dict[tuple[str | None, object], object]:
    return {(m.context, m.id): m.string for m in i18n.read_catalog("de") if m.id}


@pytest.fixture(scope="module")
def used() -> set[tuple[str | None, object]]:
    return {key for key in catalog.template_ids()}


@pytest.mark.slow
def test_no_message_is_missing_in_german(german, used):
    missing = sorted(map(str, used - german.keys()))
    assert not missing, f"run `python -m bot.catalog` and translate: {missing[:10]}"


def test_no_german_message_is_unused(german, used):
    unused = sorted(map(str, german.keys() - used))
    assert not unused, f"run `python -m bot.catalog`: {unused[:10]}"


@pytest.mark.slow
def test_no_message_hides_in_an_f_string():
    """Babel's extractor does not look inside f-strings: a ``_("...")`` there would miss
    the catalog (and stay English) without the tests above noticing."""
    hidden = []
    for package in ("bot", "engine"):
        for path in sorted((catalog.ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.JoinedStr):
                    hidden += [f"{path.relative_to(catalog.ROOT)}:{call.lineno}"
                               for call in ast.walk(node) if isinstance(call, ast.Call)
                               and getattr(call.func, "id", None) in catalog.KEYWORDS]
    assert not hidden, hidden


def test_every_german_message_is_translated_and_not_fuzzy():
    untranslated = [m.id for m in i18n.read_catalog("de") if m.id and (
        m.fuzzy or not all(m.string if isinstance(m.string, tuple) else [m.string]))]
    assert not untranslated, untranslated[:10]


def test_placeholders_are_the_same_in_both_languages(german):
    wrong = []
    for (_context, msgid), msgstr in german.items():
        ids = msgid if isinstance(msgid, tuple) else (msgid,)
        strs = msgstr if isinstance(msgstr, tuple) else (msgstr,)
        expected = set().union(*map(_fields, ids))
        for text in strs:
            found = _fields(text)
            # A plural's singular may say "one" instead of {n}; nothing else may differ.
            if found - expected or expected - found - {"n"}:
                wrong.append((msgid, text))
    assert not wrong, wrong[:5]


def test_language_follows_the_block_and_falls_back_to_english():
    with i18n.language("de"):
        assert _("on") == "an"
        assert _n("{n} locomotive", "{n} locomotives", 2) == "2 Lokomotiven"
        with i18n.language(None):  # None keeps the language of the enclosing block
            assert _("off") == "aus"
        assert _("no such message {x}", x=1) == "no such message 1"
    assert _("on") == "on"
    assert _n("{n} locomotive", "{n} locomotives", 1) == "1 locomotive"


def test_player_language_is_their_choice_then_their_discord_then_the_fallback():
    assert i18n.player_language("en", discord.Locale.german, "de") == "en"
    assert i18n.player_language(None, discord.Locale.german, "en") == "de"
    assert i18n.player_language(None, discord.Locale.american_english, "de") == "en"
    assert i18n.player_language(None, discord.Locale.french, "de") == "de"
    assert i18n.player_language(None, None, None) == "en"


async def test_command_tree_is_translated_into_valid_german_names():
    client = discord.Client(intents=discord.Intents.none())
    tree = discord.app_commands.CommandTree(client)
    from bot.edge.commands import command_groups
    for group in command_groups():
        tree.add_command(group)
    await tree.set_translator(CommandTranslator())
    payloads = [await c.get_translated_payload(tree, tree.translator)  # type: ignore[arg-type]
                for c in tree.get_commands()]
    ttr = next(p for p in payloads if p["name"] == "ttr")
    subcommands = {o["name"]: o for o in ttr["options"]}
    assert subcommands["new"]["name_localizations"]["de"] == "neu"
    assert subcommands["new"]["description_localizations"]["de"].startswith("Eine Spielrunde")
    names: list[str] = []

    def walk(options: list[dict]) -> None:
        for o in options:
            names.extend(o.get("name_localizations", {}).values())
            for d in o.get("description_localizations", {}).values():
                assert 1 <= len(d) <= 100, d
            for c in o.get("choices", []):
                for n in c.get("name_localizations", {}).values():
                    assert 1 <= len(n) <= 100, n
            walk(o.get("options", []))

    walk(payloads)
    bad = [n for n in names if not NAME.match(n) or n != n.lower()]
    assert names and not bad, bad
    # Within one command, the German option names differ as the English ones do.
    for sub in ttr["options"]:
        local = [o.get("name_localizations", {}).get("de", o["name"])
                 for o in sub.get("options", [])]
        assert len(local) == len(set(local)), sub["name"]
