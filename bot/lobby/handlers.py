"""What the lobby's commands and buttons do: open a game, join, leave, add or remove
computer players, start; every copy of the lobby message kept current."""

from __future__ import annotations

import json
import logging
from typing import Any

import discord

from bot import i18n
from bot.edge import components
from bot.edge.interactions import (
    GAME_THREADS,
    GAME_THREADS_KEPT,
    MISSING,
    NO_MENTIONS,
    Responder,
    bot_of,
    game_language,
)
from bot.game.games import GameInfo, Refusal
from bot.i18n import _
from bot.lobby import lobby_texts
from bot.play import presenters
from bot.settings.preferences import GameSettings

log = logging.getLogger(__name__)


def lobby_controls(info: GameInfo) -> discord.ui.View | None:
    """The buttons under a lobby as it stands (none once it started or closed)."""
    if info.row.status != "lobby":
        return None
    return components.lobby_view(
        info.row.id, full=len(info.seats) >= info.row.max_players,
        computers=[(s.seat, s.name) for s in info.seats if not s.person])


async def lobby_changed(interaction: discord.Interaction[Any], info: GameInfo,
                        note: str) -> None:
    """Refresh the lobby message the button sits on, or answer a slash command publicly
    (a new copy of the lobby); the other copies follow (``lobby_copies``)."""
    view = lobby_controls(info)
    if interaction.type is discord.InteractionType.component:
        await interaction.response.edit_message(content=lobby_texts.lobby_text(info), view=view)
        newest = interaction.message.id if interaction.message else None
    else:
        await Responder(interaction, public=True).send(
            f"{note}\n{lobby_texts.lobby_text(info)}", view=view)
        newest = (await interaction.original_response()).id
    await lobby_copies(interaction, info, newest)


async def lobby_copies(interaction: discord.Interaction[Any], info: GameInfo,
                       newest: int | None, channel_id: int | None = None) -> None:
    """Every message that shows this lobby says what it is now: the ``newest`` (posted in
    ``channel_id``, or the interaction's channel) keeps the buttons, older copies lose theirs
    (``DiscordPublisher.follow_lobby``)."""
    where = None if newest is None else (channel_id or interaction.channel_id or 0, newest)
    await bot_of(interaction).publisher.follow_lobby(
        info.row.id, lobby_texts.lobby_text(info), where)


async def join(interaction: discord.Interaction[Any], game_id: int) -> None:
    user = interaction.user
    info = await bot_of(interaction).service.join(game_id, user.id, user.display_name)
    with i18n.language(await game_language(interaction, info)):
        await lobby_changed(interaction, info,
                            _("{name} joined.", name=presenters.safe_name(user.display_name)))


async def leave(interaction: discord.Interaction[Any], game_id: int) -> None:
    user = interaction.user
    info = await bot_of(interaction).service.leave(game_id, user.id)
    with i18n.language(await game_language(interaction, info)):
        await lobby_changed(interaction, info,
                            _("{name} left.", name=presenters.safe_name(user.display_name)))


async def start(interaction: discord.Interaction[Any], game_id: int) -> None:
    service = bot_of(interaction).service
    info = await service.info(game_id)
    if info.row.status != "lobby":
        raise Refusal(_("This game has already started."))
    if interaction.type is discord.InteractionType.component:
        await interaction.response.defer()  # the lobby message is edited below
    else:
        await interaction.response.defer(thinking=True)
    await service.start(game_id, interaction.user.id)
    info = await service.info(game_id)
    with i18n.language(await game_language(interaction, info)):
        text = lobby_texts.lobby_text(info)
    if interaction.type is discord.InteractionType.component:
        await interaction.edit_original_response(content=text, view=None)
    else:
        await interaction.followup.send(text, allowed_mentions=NO_MENTIONS)
    with i18n.language(await game_language(interaction, info)):
        await lobby_copies(interaction, info, None)  # none invites a join any more


async def new_game(interaction: discord.Interaction[Any], map_id: str, players: int | None,
                   thread: bool | None, settings: GameSettings | None = None) -> None:
    """``/ttr new``; ``thread`` None: as the server's ``thread_per_game`` says."""
    service = bot_of(interaction).service
    channel = interaction.channel
    if interaction.guild_id is None or channel is None:
        raise Refusal(_("Games are played in a server channel."))
    server = await service.storage.server_settings(interaction.guild_id)
    if not server.offers(map_id):
        offered = ", ".join(presenters.map_name(m) for m in service.maps if server.offers(m))
        raise Refusal(_("This server offers these maps: {maps}.", maps=offered or "–"),
                      "map not offered")
    if thread is None:
        thread = server.thread_per_game
    user = interaction.user
    target: discord.abc.Messageable | None = None
    target_id = channel.id
    if thread and isinstance(channel, discord.TextChannel):
        await interaction.response.defer(thinking=True)
        # The thread is the game's: named in the game's language.
        with i18n.language((settings.language if settings else None) or server.language):
            name = _("Ticket to Ride – {map}", map=presenters.map_name(map_id)) \
                if map_id in service.maps else "TtR"
        try:
            made = await channel.create_thread(
                name=name, type=discord.ChannelType.public_thread, auto_archive_duration=10080)
        except discord.HTTPException as exc:
            log.warning("cannot open a thread in %s: %s", channel.id, exc)
            await interaction.followup.send(
                _("I cannot open a thread here (missing permission?): the game uses this "
                  "channel."), ephemeral=True)
        else:
            target, target_id = made, made.id
            key = GAME_THREADS.format(channel=channel.id)
            threads = json.loads(await service.storage.bot_state(key) or "[]")
            await service.storage.set_bot_state(
                key, json.dumps([*threads, made.id][-GAME_THREADS_KEPT:]))
    row = await service.create(guild_id=interaction.guild_id, channel_id=target_id,
                               user_id=user.id, name=user.display_name, map_id=map_id,
                               max_players=players, settings=settings)
    info = await service.info(row.id)
    with i18n.language(await game_language(interaction, info)):
        if target is not None:
            posted = await target.send(lobby_texts.lobby_text(info),
                                       view=lobby_controls(info) or MISSING,
                                       allowed_mentions=NO_MENTIONS)
            await Responder(interaction, public=True).send(
                _("Game #{game} is open in <#{channel}>: join it there.", game=row.id,
                  channel=target_id))
            await lobby_copies(interaction, info, posted.id, target_id)
        else:
            await Responder(interaction, public=True).send(
                lobby_texts.lobby_text(info), view=lobby_controls(info))
            await lobby_copies(interaction, info, (await interaction.original_response()).id)


async def remove_computer(interaction: discord.Interaction[Any], game_id: int,
                          values: list[str]) -> None:
    """The host takes a computer player out of the lobby."""
    if len(values) != 1 or not values[0].isdigit() or len(values[0]) > 2:
        raise Refusal(_("Choose the computer player to remove from the list."))
    info, name = await bot_of(interaction).service.remove_computer(
        game_id, interaction.user.id, int(values[0]))
    with i18n.language(await game_language(interaction, info)):
        await lobby_changed(interaction, info, _("{name} left.", name=name))


async def add_computer(interaction: discord.Interaction[Any], game_id: int, level: str) -> None:
    info = await bot_of(interaction).service.add_computer(game_id, interaction.user.id, level)
    with i18n.language(await game_language(interaction, info)):
        await lobby_changed(interaction, info,
                            lobby_texts.added_computer_line(info.seats[-1].name))
