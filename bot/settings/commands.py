"""``/ttr settings`` (a member's own) and ``/ttr-admin config`` (the server's)."""

from __future__ import annotations

import functools
import zoneinfo
from typing import Any

import discord
from discord import app_commands

from bot.edge.interactions import guarded
from bot.edge.options import LANGUAGE_CHOICES, Choice, matches
from bot.settings import handlers
from bot.settings.preferences import ServerSettings


async def timezone_autocomplete(interaction: discord.Interaction[Any],
                                current: str) -> list[Choice[str]]:
    return [Choice(name=z, value=z) for z in _zones()
            if matches(current.replace("/", " "), z)][:25]


@functools.cache
def _zones() -> list[str]:
    return sorted(zoneinfo.available_timezones())


@app_commands.command(name="settings", description="Your reminders, quiet hours and DMs")
@app_commands.describe(reminders="Remind me when a game waits for me",
                       dm_every_turn="A DM with my hand every time it is my turn",
                       timezone="My time zone, e.g. Europe/Berlin (for quiet hours)",
                       quiet_from="No reminders from this hour (0–23, my time)...",
                       quiet_to="...until this hour (the same hour twice: no quiet hours)",
                       language="The language of my private answers and DMs")
@app_commands.autocomplete(timezone=timezone_autocomplete)
@app_commands.choices(language=[*LANGUAGE_CHOICES,
                                Choice(name="My Discord's language", value="auto")])
async def settings(interaction: discord.Interaction[Any], reminders: bool | None = None,
                   dm_every_turn: bool | None = None, timezone: str | None = None,
                   quiet_from: app_commands.Range[int, 0, 23] | None = None,
                   quiet_to: app_commands.Range[int, 0, 23] | None = None,
                   language: Choice[str] | None = None) -> None:
    await guarded(interaction, handlers.my_settings(
        interaction, reminders=reminders, dm_every_turn=dm_every_turn, timezone=timezone,
        quiet_from=quiet_from, quiet_to=quiet_to,
        language=language.value if language else None))


class Admin(app_commands.Group, name="ttr-admin", description="Ticket to Ride: server settings",
            guild_only=True, default_permissions=discord.Permissions(manage_guild=True)):
    """``/ttr-admin``: its own top-level group, since Discord applies
    ``default_member_permissions`` to top-level commands only; hidden from members
    without Manage Server (and checked again when it runs)."""

    @app_commands.command(name="config", description="Show or change this server's game settings")
    @app_commands.describe(setting="The setting to change (none: show them all)",
                           value="Its new value ('off' clears an optional one)")
    # The name alone: a meaning cut at Discord's 100 characters lost its values (the list
    # that `/ttr-admin config` shows explains each in full).
    @app_commands.choices(setting=[Choice(name=name, value=name)
                                   for name in ServerSettings.configurable()])
    async def config(self, interaction: discord.Interaction[Any],
                     setting: Choice[str] | None = None, value: str | None = None) -> None:
        await guarded(interaction, handlers.server_config(
            interaction, setting.value if setting else None, value))
