"""The message catalog's upkeep: which messages the code uses, and the German ``.po`` file.

``python -m bot.catalog`` extracts every message id from the code (``_``, ``_n``, ``N_``
in ``bot/``; ``IllegalAction``, ``Text`` and ``Plural`` in ``engine/``; a
``StorageError``'s reason) and from the command tree
(names, descriptions, choices: what discord.py asks the ``CommandTranslator`` for) and the
server settings' descriptions, then
updates ``bot/locale/de/LC_MESSAGES/messages.po`` with Babel: new ids come in empty,
unused ones go. A test fails while the catalog and the code differ.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import discord
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po
from discord import app_commands

from bot import i18n
from bot.edge.commands import NAME_LOCATIONS, command_groups
from bot.settings.preferences import ServerSettings

ROOT = Path(__file__).resolve().parent.parent
# Functions whose string arguments are message ids: (singular, plural) for ``_n``.
KEYWORDS: dict[str, Any] = {"_": None, "_n": (1, 2), "N_": None, "IllegalAction": None,
                            "Text": None, "Plural": (1, 2), "StorageError": None}

# A message id: (context or None, id or (singular, plural)).
MessageId = tuple[str | None, str | tuple[str, str]]


def code_messages() -> dict[MessageId, list[tuple[str, int]]]:
    """Every message id in the code, with where it is used (path, line)."""
    found: dict[MessageId, list[tuple[str, int]]] = {}
    for package in ("bot", "engine"):
        for path, line, message, _comments, context in extract_from_dir(
                ROOT / package, method_map=[("**.py", "python")], keywords=KEYWORDS):
            if isinstance(message, tuple):
                if any(not m for m in message):
                    continue  # a call with a variable (``_(PHASE_HELP[phase])``)
                key: MessageId = (context, (message[0], message[1]))
            elif message:
                key = (context, message)
            else:
                continue
            found.setdefault(key, []).append((f"{package}/{path}", line))
    return found


class _Recorder(app_commands.Translator):
    def __init__(self) -> None:
        self.seen: set[MessageId] = set()

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        if context.location in NAME_LOCATIONS:
            self.seen.add((i18n.NAME_CONTEXT, string.message))
        else:
            self.seen.add((None, string.message))
        return None


async def _command_strings() -> set[MessageId]:
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)
    for group in command_groups():
        tree.add_command(group)
    recorder = _Recorder()
    for command in tree.get_commands():
        await command.get_translated_payload(tree, recorder)
    return recorder.seen


def command_messages() -> set[MessageId]:
    """Every string of the command tree discord.py would have translated at a sync."""
    return asyncio.run(_command_strings())


def template() -> Catalog:
    """All message ids the code uses, as an empty catalog (a ``.pot``)."""
    catalog = Catalog(domain=i18n.DOMAIN, project="ttr-bot")
    for (context, message), places in sorted(code_messages().items(), key=str):
        catalog.add(message, locations=places, context=context)
    for context, message in sorted(command_messages(), key=str):
        if catalog.get(message, context=context) is None:
            catalog.add(message, locations=[("bot/edge/commands.py", 0)], context=context)
    for meaning in ServerSettings.configurable().values():  # shown by /ttr-admin config
        if catalog.get(meaning) is None:
            catalog.add(meaning, locations=[("bot/settings/preferences.py", 0)])
    return catalog


def template_ids() -> set[tuple[str | None, object]]:
    """(context, id) of every message the code uses; a plural's id is (singular, plural)."""
    return {(m.context, m.id) for m in template() if m.id}


def update(lang: i18n.Language) -> Catalog:
    """The ``lang`` catalog brought up to date with the code (translations kept)."""
    catalog = i18n.read_catalog(lang)
    created = catalog.creation_date  # only a change of messages changes the file
    catalog.update(template(), no_fuzzy_matching=True)
    catalog.creation_date = created
    catalog.obsolete.clear()
    return catalog


def main() -> int:
    for lang in i18n.LANGUAGES:
        if lang == i18n.DEFAULT:
            continue
        catalog = update(lang)
        path = Path(str(i18n.po_path(lang)))
        with path.open("wb") as out:
            # No line numbers: a change elsewhere in a file leaves the catalog as it is.
            write_po(out, catalog, width=100, sort_output=True, include_lineno=False)
        empty = sum(1 for m in catalog if m.id and not m.string)
        print(f"{path}: {len(catalog)} messages, {empty} without a translation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
