"""What ``/ttr settings`` and ``/ttr-admin config`` do."""

from __future__ import annotations

from typing import Any

import discord
from pydantic import ValidationError

from bot import i18n
from bot.edge.interactions import (
    Responder,
    bot_of,
    private_language,
)
from bot.game.games import Refusal
from bot.i18n import _
from bot.settings import settings_texts
from bot.settings.preferences import PlayerSettings, ServerSettings


async def my_settings(interaction: discord.Interaction[Any], *, reminders: bool | None,
                      dm_every_turn: bool | None, timezone: str | None,
                      quiet_from: int | None, quiet_to: int | None,
                      language: str | None = None) -> None:
    """``/ttr settings``: show or change the asking member's own settings (``language``
    'auto': their Discord client's)."""
    storage = bot_of(interaction).service.storage
    user_id = interaction.user.id
    settings = await storage.player_settings(user_id)
    changes: dict[str, object] = {
        k: v for k, v in (("reminders", reminders), ("dm_every_turn", dm_every_turn),
                          ("timezone", timezone and timezone.strip())) if v is not None}
    if language is not None:
        changes["language"] = None if language == "auto" else language
    if quiet_from is not None or quiet_to is not None:
        if quiet_from is None or quiet_to is None:
            raise Refusal(_("Give both `quiet_from` and `quiet_to` (the same hour twice: "
                            "no quiet hours)."))
        changes["quiet_hours"] = None if quiet_from == quiet_to else (quiet_from, quiet_to)
    if changes:
        try:
            settings = PlayerSettings.model_validate({**settings.model_dump(), **changes})
        except ValidationError as exc:
            raise Refusal(settings_texts.invalid_setting(
                str(exc.errors()[0]["loc"][0]), settings_texts.setting_problem(exc))) from None
        await storage.save_player_settings(user_id, settings)
    # The answer is in the language just chosen.
    with i18n.language(await private_language(interaction)):
        await Responder(interaction).send(settings_texts.player_settings_text(
            settings.quiet_hours, settings.timezone, settings.reminders, settings.dm_every_turn,
            settings.language, changed=bool(changes)))


async def server_config(interaction: discord.Interaction[Any], setting: str | None,
                        value: str | None) -> None:
    """``/ttr-admin config``: show or change this server's settings (Manage Server only)."""
    guild_id = interaction.guild_id
    if guild_id is None:
        raise Refusal(_("Server settings are set in the server."))
    # Discord hides the command from members without the permission, but a server can
    # change that in its integration settings: check again here.
    if not interaction.permissions.manage_guild:
        raise Refusal(_(settings_texts.CONFIG_REFUSED))
    storage = bot_of(interaction).service.storage
    settings = await storage.server_settings(guild_id)
    if setting is not None:
        if value is None:
            raise Refusal(_("Give the new `value` for `{name}`.", name=setting[:40]))
        try:
            settings = settings.with_value(setting, value)
        except ValidationError as exc:
            problem = settings_texts.setting_problem(exc)
            if ServerSettings.optional(setting):
                problem = settings_texts.setting_off_hint(problem)
            raise Refusal(settings_texts.invalid_setting(setting, problem)) from None
        except ValueError:  # not a setting (the choices offer only settings)
            raise Refusal(_("There is no setting `{name}`.", name=setting[:40])) from None
        if setting == "chronicle_channel" and settings.chronicle_channel is not None:
            await _check_chronicle(interaction, guild_id, settings.chronicle_channel)
        await storage.save_server_settings(guild_id, settings)
    values = [(name, _(meaning), getattr(settings, name))
              for name, meaning in ServerSettings.configurable().items()]
    await Responder(interaction).send(settings_texts.server_settings_text(values, changed=setting))


async def _check_chronicle(interaction: discord.Interaction[Any], guild_id: int,
                           channel_id: int) -> None:
    """A chronicle channel must be one of this server's that the bot can see."""
    try:
        data = await interaction.client.http.get_channel(channel_id)
    except discord.HTTPException:
        raise Refusal(settings_texts.invalid_setting("chronicle_channel", _(
            "I cannot see that channel: I need View Channel, Send Messages and Attach Files "
            "there"))) from None
    if str(data.get("guild_id")) != str(guild_id):
        raise Refusal(settings_texts.invalid_setting("chronicle_channel", _(
            "name a channel of this server, like #ttr-chronicle")))
