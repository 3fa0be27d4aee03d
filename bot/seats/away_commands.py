"""``/ttr away`` and the "I'm back" button (``bot.seats.away`` does the work)."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from bot.edge.interactions import Responder, bot_of, guarded
from bot.edge.options import Choice
from bot.game.games import GameInfo, Refusal
from bot.i18n import _
from bot.seats import away
from engine.players import LEVELS

DEFAULT_LEVEL = "normal"


@app_commands.command(name="away",
                      description="Away from all your games for a while, or back ('off')")
@app_commands.describe(
    duration="How long: 3d, 12h, 1d6h or 90m ('off': you are back); none: where you stand",
    level="The computer player that plays for you where the server lets one (default normal)")
@app_commands.choices(level=[Choice(name=level, value=level) for level in LEVELS])
async def away_command(interaction: discord.Interaction[Any], duration: str | None = None,
                       level: Choice[str] | None = None) -> None:
    await guarded(interaction, _away(interaction, duration, level.value if level else None))


async def _away(interaction: discord.Interaction[Any], duration: str | None,
                level: str | None) -> None:
    service = bot_of(interaction).service
    user_id = interaction.user.id
    reply = Responder(interaction)
    if duration is None:
        now = service.clock.now()
        mine = (await service.storage.away([user_id])).get(user_id)
        if mine is None or mine.back_at <= now:
            await reply.send(_("You are not away. `/ttr away duration:3d` (or 12h, 1d6h) "
                               "lets your games go on without you for that long."))
        else:
            await reply.send(_("💤 You are away until {when}.", when=away.when(mine.back_at)),
                             view=away.with_back_button(None))
        return
    if duration.strip().lower() in away.BACK_WORDS:
        await _back(interaction)
        return
    seconds = away.parse_duration(duration)  # before anything is stored
    if level is not None and level not in LEVELS:  # (Discord offers only these)
        raise Refusal(_("Choose a level from the list."))
    games = await away.go_away(service, user_id, seconds, level or DEFAULT_LEVEL)
    back_at = service.clock.now() + seconds
    lines = [_("💤 You are away from your games until {when}.", when=away.when(back_at))]
    for info in games:
        lines.append(await _how(interaction, info, level or DEFAULT_LEVEL))
    lines.append(_("It holds for games you join meanwhile too. Press **I'm back** when you "
                   "are."))
    await reply.send("\n".join(lines), view=away.with_back_button(None))


async def _how(interaction: discord.Interaction[Any], info: GameInfo, level: str) -> str:
    storage = bot_of(interaction).service.storage
    mode = (await storage.server_settings(info.row.guild_id)).away_mode
    if mode == "pause":
        return _("• Game #{game} in <#{channel}>: no reminders, and your turn timer waits.",
                 game=info.row.id, channel=info.row.channel_id)
    return _("• Game #{game} in <#{channel}>: a computer player ({level}) plays your seat.",
             game=info.row.id, channel=info.row.channel_id, level=_(level))


async def _back(interaction: discord.Interaction[Any]) -> None:
    games = await away.come_back(bot_of(interaction).service, interaction.user.id)
    if games is None:
        text = _("You are not away: your games wait for you already.")
    else:
        text = _("👋 Welcome back: you play your games yourself again.")
    await Responder(interaction).send(text)


class BackButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=re.escape(away.BACK_ID)):
    """The "I'm back" button, under the away confirmation and an away member's DMs: the
    same id for everyone (whoever presses it comes back), alive across restarts."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /
                             ) -> BackButton:
        return cls(away.back_button())

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if not await bot_of(interaction).admit(interaction):
            return  # the bot is stopping (and said so)
        await guarded(interaction, _back(interaction))
