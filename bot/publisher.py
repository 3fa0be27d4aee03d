"""Posting a game update: the board in the channel, private notes by DM.

The channel gets only public data (``Update.lines``, the prompt, the board
rendered from ``PublicView``). DMs carry the player's hand and tickets; a
refused DM (HTTP 403, code 50007) is stored, never blocks the game, and the
channel is told, without secrets, to use "My hand".
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable

import discord

from bot import components, presenters
from bot.images import Renderer
from bot.scheduler import KickOffer, Reminder
from bot.service import DirectMessage, GameService, Update

log = logging.getLogger(__name__)

CANNOT_DM = 50007
USERS_ONLY = discord.AllowedMentions(everyone=False, roles=False, users=True)


class DiscordPublisher:
    def __init__(self, client: discord.Client, renderer: Renderer,
                 service: Callable[[], GameService]):
        self.client = client
        self.renderer = renderer
        self._service = service

    async def publish(self, update: Update) -> None:
        view = update.view
        board: asyncio.Future[bytes] | None = None
        if update.board:
            board = asyncio.ensure_future(self.renderer.draw_board(view))
        refused = [dm.user_id for dm in await asyncio.gather(*map(self._dm_one, update.dms))
                   if dm is not None]
        channel = self.client.get_partial_messageable(update.channel_id)
        text = "\n".join([*update.lines, update.prompt(refused)]).strip()
        files = []
        if board is not None:
            try:
                files.append(discord.File(io.BytesIO(await board), filename="board.png"))
            except Exception:
                log.exception("game %s: rendering the board failed", update.game_id)
        controls = components.board_view(update.game_id, view, update.version)
        await channel.send(presenters.clip(text), files=files,
                           view=controls or discord.utils.MISSING, allowed_mentions=USERS_ONLY)
        if update.finished:
            await self._final(update, channel)

    async def _final(self, update: Update, channel: discord.PartialMessageable) -> None:
        files = []
        try:
            png = await self.renderer.draw_final(update.view)
            files.append(discord.File(io.BytesIO(png), filename="final.png"))
        except Exception:
            log.exception("game %s: rendering the final scores failed", update.game_id)
        await channel.send(presenters.clip(presenters.final_text(update.view)), files=files,
                           allowed_mentions=discord.AllowedMentions.none())

    async def _dm_one(self, dm: DirectMessage) -> DirectMessage | None:
        """Send one DM; return it if the user refuses DMs (50007)."""
        service = self._service()
        try:
            png = await self.renderer.draw_hand(dm.private, dm.map_id)
            channel = await self.client.create_dm(discord.Object(dm.user_id))
            controls = (components.private_view_controls(
                dm.game_id, dm.map_id, dm.private, dm.public, dm.version, dm.choices)
                if dm.choose_tickets or dm.choices else None)
            await channel.send(presenters.clip(dm.text),
                               file=discord.File(io.BytesIO(png), filename="hand.png"),
                               view=controls or discord.utils.MISSING)
        except discord.Forbidden as exc:
            if exc.code != CANNOT_DM:
                log.warning("DM to %s forbidden: %s", dm.user_id, exc)
            await service.dm_refused(dm.user_id)
            return dm
        except Exception:
            log.exception("DM to %s failed", dm.user_id)  # not a refusal: try again next time
            return None
        await service.dm_delivered(dm.user_id)
        return None

    async def remind(self, reminder: Reminder) -> None:
        """A reminder by DM; to a player who refuses DMs, a mention in the game's channel."""
        service = self._service()
        if not await service.dms_refused(reminder.user_id):
            try:
                channel = await self.client.create_dm(discord.Object(reminder.user_id))
                await channel.send(reminder.dm_text,
                                   allowed_mentions=discord.AllowedMentions.none())
                await service.dm_delivered(reminder.user_id)
                return
            except discord.Forbidden:
                await service.dm_refused(reminder.user_id)
        await self.client.get_partial_messageable(reminder.channel_id).send(
            reminder.channel_text,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False,
                                                     users=[discord.Object(reminder.user_id)]))

    async def offer_kick(self, offer: KickOffer) -> None:
        await self.client.get_partial_messageable(offer.channel_id).send(
            offer.text, view=components.kick_view(offer.game_id, offer.seat)
            or discord.utils.MISSING,
            allowed_mentions=discord.AllowedMentions.none())
