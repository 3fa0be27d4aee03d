"""The command tree: ``/ttr`` with each feature's commands, and ``/ttr-admin``.

``/ttr`` keeps the commands of a turn and of a game's life at the top (``/ttr claim``,
``/ttr new``, ...); the rarer ones sit in sub-groups (``/ttr seat ...``,
``/ttr records ...``), which leaves room under Discord's 25 per level. Each feature
package owns its commands; this module only places them.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot import i18n
from bot.lobby import commands as lobby
from bot.play import commands as play
from bot.records.commands import Records
from bot.seats.away_commands import away_command
from bot.seats.commands import Seat
from bot.seats.watch_commands import watch_command
from bot.settings import commands as settings
from bot.settings.commands import Admin

# Where a command tree string is a name (lowercase, no spaces): translated apart from texts.
NAME_LOCATIONS = (app_commands.TranslationContextLocation.command_name,
                  app_commands.TranslationContextLocation.group_name,
                  app_commands.TranslationContextLocation.parameter_name)


class CommandTranslator(app_commands.Translator):
    """Command, option and choice names and descriptions from the message catalog, for
    each Discord locale of a language the bot speaks (sent to Discord at a sync)."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = i18n.of_locale(locale)
        if lang is None or lang == i18n.DEFAULT:
            return None
        if context.location in NAME_LOCATIONS:
            return i18n.name(string.message, lang)
        text = i18n.translate(string.message, {}, lang)
        return text if text != string.message else None


class TTR(app_commands.Group, name="ttr", description="Play Ticket to Ride", guild_only=True):
    """``/ttr``: a game's life and its turns at the top, seats and past play in groups."""

    def __init__(self) -> None:
        super().__init__()
        for command in (*lobby.COMMANDS, *play.COMMANDS, settings.settings, away_command,
                        watch_command):
            self.add_command(command)
        self.add_command(Seat())
        self.add_command(Records())


def command_groups() -> list[app_commands.Group]:
    """The bot's top-level commands, as synced to Discord."""
    return [TTR(), Admin()]
