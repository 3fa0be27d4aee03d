"""``/ttr watch`` and its **Stop watching** button (``bot.seats.watch``: what watchers get)."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from bot.edge.interactions import Responder, bot_of, channel_game, guarded
from bot.edge.options import Choice
from bot.game.games import GameInfo, Refusal
from bot.i18n import _
from bot.seats.watch import MAX_WATCHERS, NO_PINGS, STOP, stop_button


@app_commands.command(name="watch",
                      description="Follow this channel's game without a seat; again: stop")
@app_commands.describe(where="dm (default) or thread: where its turns come; off: stop")
@app_commands.choices(where=[Choice(name=w, value=w) for w in ("dm", "thread", "off")])
async def watch_command(interaction: discord.Interaction[Any],
                        where: Choice[str] | None = None) -> None:
    await guarded(interaction, _watch(interaction, where.value if where else None))


async def _watch(interaction: discord.Interaction[Any], where: str | None) -> None:
    info = await channel_game(interaction)
    storage = bot_of(interaction).service.storage
    user_id, game = interaction.user.id, info.row.id
    watchers = await storage.watchers(game)
    if where == "off" or any(w.user_id == user_id for w in watchers):
        await _stop(interaction, game)
        return
    if info.seat_of(user_id) is not None:
        raise Refusal(_("You play in game #{game}: its turns come to you already.",
                        game=game))
    if len(watchers) >= MAX_WATCHERS:
        raise Refusal(_("Game #{game} has {n} watchers already, the most it takes.",
                        game=game, n=MAX_WATCHERS))
    thread_id = await (_open_thread(interaction, info) if where == "thread"
                       else _open_dm(interaction, info))
    if not await storage.add_watcher(game, user_id, thread_id, most=MAX_WATCHERS):
        raise Refusal(_("Game #{game} has {n} watchers already, the most it takes.",
                        game=game, n=MAX_WATCHERS))
    where_text = (_("by DM") if thread_id is None else
                  _("in <#{thread}>", thread=thread_id))
    await Responder(interaction).send(_(
        "👀 You follow game #{game} {where}: its turns and final scores, nothing secret. "
        "`/ttr watch` again or **Stop watching** ends it.", game=game, where=where_text))


def _intro(info: GameInfo) -> str:
    return _("👀 You follow game #{game} in <#{channel}>: its turns come here.",
             game=info.row.id, channel=info.row.channel_id)


async def _open_dm(interaction: discord.Interaction[Any], info: GameInfo) -> None:
    """Say hello by DM (a member whose DMs are closed is told so now, once, and nothing is
    stored)."""
    try:
        dm = await interaction.user.create_dm()
        await dm.send(_intro(info), view=stop_button(info.row.id), allowed_mentions=NO_PINGS)
    except discord.HTTPException as exc:
        raise Refusal(_("I cannot send you DMs (they are closed): `/ttr watch where:thread` "
                        "follows the game in a private thread instead.")) from exc


async def _open_thread(interaction: discord.Interaction[Any], info: GameInfo) -> int:
    """A private thread of the game's channel with the member in it."""
    client = interaction.client
    try:
        made = await client.http.start_thread_without_message(
            info.row.channel_id, name=_("Watching game #{game}", game=info.row.id)[:100],
            auto_archive_duration=10080, type=discord.ChannelType.private_thread.value,
            invitable=False)
        thread_id = int(made["id"])
        await client.http.add_user_to_thread(thread_id, interaction.user.id)
        await client.get_partial_messageable(thread_id).send(
            _intro(info), view=stop_button(info.row.id), allowed_mentions=NO_PINGS)
    except discord.HTTPException as exc:
        raise Refusal(_("I cannot open a private thread here (a game in a thread, or a "
                        "missing permission): `/ttr watch` follows it by DM instead.")) from exc
    return thread_id


async def _stop(interaction: discord.Interaction[Any], game: int) -> None:
    storage = bot_of(interaction).service.storage
    if await storage.remove_watcher(game, interaction.user.id):
        text = _("You no longer follow game #{game}.", game=game)
    else:
        text = _("You are not watching game #{game}.", game=game)
    await Responder(interaction).send(text)


class StopButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=STOP.pattern):
    """**Stop watching** under a watcher's first DM or thread message, alive across
    restarts (the game is in its id)."""

    def __init__(self, item: discord.ui.Button[Any], game: int) -> None:
        super().__init__(item)
        self.game = game

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /
                             ) -> StopButton:
        return cls(stop_button(int(match["game"])).children[0], int(match["game"]))  # type: ignore[arg-type]

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if not await bot_of(interaction).admit(interaction):
            return
        await guarded(interaction, _stop(interaction, self.game))
