"""Posting a game update: one table message per game, short turn lines, private notes by DM.

The channel gets only public data (``Update.lines``, the prompt, the board
rendered from ``PublicView``). Each game keeps one **table message**: a board
image, what happened since it was posted, whose turn it is, and the buttons;
it is edited in place after every step. A step that must ping someone (the next
player) posts a short **turn line** mentioning them, below the table; edits never
ping. When the next turn line comes, the previous one is deleted and its text
moves into the table message, so the channel keeps one message per board, and
read top to bottom it is the whole game: every board image with the turns it
covers.

The table message is posted again at the bottom (the old one keeps its image and
its turns, without buttons):
- with each new board image: after a turn that changed the board (claims,
  stations, harbors; server setting ``board_posts="changes"``, the default), or
  after every turn (``"every_turn"``); with ``"table_only"`` a changed board
  replaces the table message's image in place instead;
- when it scrolled away (other messages came below it) or its text grew long;
- on request (``/ttr board``) or when it was deleted.

Posting is idempotent: before a message is sent its intent and text are stored
(``posts``), after it its id; the table row remembers the version it last told.
A restart that finds an intent without an id looks for that text among the
channel's last messages before sending it again, so a crash between sending and
recording repeats no post, ping or DM.

DMs carry the player's hand and tickets; a refused DM (HTTP 403, code 50007) is
stored, never blocks the game, and the channel is told, without secrets, to use
"My hand".
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
import re
from collections.abc import Callable
from typing import Any

import discord

from bot import components, i18n, presenters
from bot.images import Renderer
from bot.scheduler import KickOffer, Reminder
from bot.service import DirectMessage, GameService, Update
from bot.storage import PostRow, TableRow

log = logging.getLogger(__name__)

CANNOT_DM = 50007
# The table message is posted again when it is not among the channel's last messages...
SCROLLED_AWAY = 6
# ... or when what it tells grew this long (a new message starts a new page of the game).
HEAD_LIMIT = 1400
# How far back a restart looks for a message it may have sent before the crash.
HISTORY_LOOKBACK = 25
MENTION = re.compile(r"<@!?([0-9]{15,20})>")
MISSING: Any = discord.utils.MISSING


def pinging(text: str) -> discord.AllowedMentions:
    """Allowed mentions naming exactly the users the bot's own text mentions (player
    names are escaped, so only the bot's '<@id>' mentions match)."""
    users = sorted({int(u) for u in MENTION.findall(text)})
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(u) for u in users])


def table_text(head: str, status: str) -> str:
    """A table message: what happened since it was posted, then the live status."""
    return f"{head}\n{presenters.RULE}\n{status}" if status else head


def join(*texts: str) -> str:
    return "\n".join(t for t in texts if t)


def post_key(target: str, news: str) -> str:
    """The key of a post in ``posts`` (with the game and version): what it is for, and for
    news that comes without a new version, which news."""
    return f"{target}@{news}" if news else target


class DiscordPublisher:
    def __init__(self, client: discord.Client, renderer: Renderer,
                 service: Callable[[], GameService]):
        self.client = client
        self.renderer = renderer
        self._service = service

    async def publish(self, update: Update) -> None:
        # The channel hears the game's language (the action may come from any member).
        with i18n.language(update.language):
            await self._post(update)

    async def _post(self, update: Update) -> None:
        service = self._service()
        storage = service.storage
        table = await storage.table_message(update.game_id)
        mode = (await storage.server_settings(update.guild_id)).board_posts
        lines = "\n".join(update.lines).strip()
        # The board is drawn while the hands are (each in a render worker of its own), not
        # after them: a claim waits for one drawing, not two in a row.
        board: asyncio.Future[bytes] | None = None
        if update.board and not update.finished:
            board = asyncio.ensure_future(self._render_board(update))
        try:
            sent = await asyncio.gather(*map(self._dm_one, update.dms), *(
                self._thread_one(update.channel_id, hand) for hand in update.threads))
        except BaseException:
            if board is not None:
                board.cancel()
            raise
        refused = [dm.user_id for dm in sent if dm is not None]
        prompt = update.prompt(refused)
        channel = self.client.get_partial_messageable(update.channel_id)
        # A publish resumed after a crash whose version reached the table already (news
        # without a new version has its own post keys, which say whether it was told).
        told = (table is not None and not update.refresh and not update.news
                and table.version >= update.version)
        ping = not update.refresh and not told and bool(pinging(prompt).users)
        repost = table is None or update.repost or (not update.refresh and not told and (
            (update.board and mode == "changes") or (mode == "every_turn" and bool(lines))
            or len(table.head) + len(table.line_text) + len(lines) > HEAD_LIMIT
            or (ping and await self._scrolled_away(channel, table))))
        if update.finished:
            if table is not None and not told:
                await self._close(update.game_id, channel, table, lines, update.version)
            await self._final(update, channel)
            return
        if board is None and repost:
            board = asyncio.ensure_future(self._render_board(update))
        controls = components.board_view(update.game_id, update.view, update.version)
        if repost:
            head = lines or presenters.board_caption(update.view)
            files = await self._files(update, board)
            if update.repost:  # on request: a new message each time
                message = await channel.send(presenters.clip(table_text(head, prompt)),
                                             files=files, view=controls or MISSING)
                mid = message.id
            else:
                mid = await self._send_once(
                    (update.game_id, update.version), post_key("table", update.news), channel,
                    table_text(head, prompt), files=files, view=controls or MISSING)
            if table is not None and table.message_id != mid:
                await self._close(update.game_id, channel, table, "", update.version)
            await storage.set_table_message(update.game_id, TableRow(
                update.channel_id, mid, head, None, "", update.version))
            return
        assert table is not None
        if ping:  # a new turn line; the one before moves into the table message
            mid = await self._send_once((update.game_id, update.version),
                                        post_key("line", update.news), channel,
                                        "\n".join(filter(None, [lines, prompt])))
            head = table.head
            if table.line_id is not None and table.line_id != mid:
                await self._delete(channel, table.line_id)
                head = join(head, table.line_text)
            table = dataclasses.replace(table, head=head, line_id=mid, line_text=lines)
        elif lines and not told and table.line_id is not None:
            # Nobody new to ping (a pick in a simultaneous phase): these lines follow the
            # turn line's into the table message when it goes, in the order they happened.
            table = dataclasses.replace(table, line_text=join(table.line_text, lines))
        elif lines and not told:
            table = dataclasses.replace(table, head=join(table.head, lines))
        if not update.refresh:
            table = dataclasses.replace(table, version=update.version)
            await storage.set_table_message(update.game_id, table)
        edited = await self._edit_table(channel, table, table_text(table.head, prompt),
                                        controls, await self._files(update, board))
        if not edited:  # the table message is gone: post it again
            await self.publish_table(update)

    async def _close(self, game_id: int, channel: discord.PartialMessageable, table: TableRow,
                     lines: str, version: int) -> None:
        """Retire a table message: its turn line and ``lines`` move into it, its buttons go."""
        head = join(table.head, table.line_text, lines)
        if table.line_id is not None:
            await self._delete(channel, table.line_id)
        await self._strip(channel, table.message_id, head)
        await self._service().storage.set_table_message(game_id, dataclasses.replace(
            table, head=head, line_id=None, line_text="", version=version))

    async def _scrolled_away(self, channel: discord.PartialMessageable, table: TableRow) -> bool:
        """Whether the table message is no longer among the channel's last messages."""
        known = {table.message_id, table.line_id}
        try:
            # Only their ids are needed: not ``channel.history``, which builds a whole
            # ``Message`` of each (a quarter of what the bot parses per action).
            latest = await self.client.http.logs_from(channel.id, SCROLLED_AWAY)
        except discord.HTTPException as exc:
            log.info("cannot read the history of %s: %s", channel.id, exc)
            return False
        return not any(int(message["id"]) in known for message in latest)

    async def _delete(self, channel: discord.PartialMessageable, message_id: int) -> None:
        try:
            await channel.get_partial_message(message_id).delete()
        except discord.HTTPException as exc:  # gone already: fine
            log.info("message %s could not be deleted: %s", message_id, exc)

    async def publish_table(self, update: Update) -> None:
        """Post the table message again at the bottom (``/ttr board``, or it was deleted)."""
        await self.publish(dataclasses.replace(update, repost=True, lines=[], dms=[]))

    async def _render_board(self, update: Update) -> bytes:
        return await self.renderer.draw_board(update.view, update.last, lang=update.language,
                                              game=update.game_id)

    async def _files(self, update: Update, board: asyncio.Future[bytes] | None
                     ) -> list[discord.File]:
        if board is None:
            return []
        try:
            return [discord.File(io.BytesIO(await board), filename="board.png")]
        except Exception:
            log.exception("game %s: rendering the board failed", update.game_id)
            return []

    async def _edit_table(self, channel: discord.PartialMessageable, table: TableRow,
                          content: str, controls: discord.ui.View | None,
                          files: list[discord.File]) -> bool:
        """Edit the table message in place; False if it no longer exists."""
        message = channel.get_partial_message(table.message_id)
        try:
            await message.edit(content=presenters.clip(content), view=controls,
                               attachments=files or MISSING,
                               allowed_mentions=discord.AllowedMentions.none())
        except discord.NotFound:
            return False
        return True

    async def _strip(self, channel: discord.PartialMessageable, message_id: int,
                     content: str) -> None:
        """An old table message keeps its image and what it told, without buttons."""
        try:
            await channel.get_partial_message(message_id).edit(
                content=presenters.clip(content or "…"), view=None,
                allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.info("old table message %s could not be cleared: %s", message_id, exc)

    async def _send_once(self, key: tuple[int, int], target: str,
                         channel: discord.abc.Messageable, content: str, **kwargs: Any) -> int:
        """Send one message of version ``key`` = (game, version) unless it was sent
        already (see the module doc): returns its id. The intent and text are stored
        before sending."""
        return await self._deliver(key, target, channel,
                                   await self._intend(key, target, channel, content), **kwargs)

    async def _intend(self, key: tuple[int, int], target: str,
                      channel: discord.abc.Messageable, content: str
                      ) -> tuple[str, PostRow | None]:
        """Store the intent to send ``content`` (``_send_once``'s first half): the text to
        send, and the row stored before if a publish is resumed after a crash."""
        content = presenters.clip(content)
        return content, await self._service().storage.post_intent(
            *key, target, getattr(channel, "id", 0), content)

    async def _deliver(self, key: tuple[int, int], target: str,
                       channel: discord.abc.Messageable, intent: tuple[str, PostRow | None],
                       **kwargs: Any) -> int:
        """Send what ``_intend`` stored, unless it was sent before the crash."""
        storage = self._service().storage
        gid, version = key
        content, row = intent
        if row is not None and row.message_id is not None:
            return row.message_id
        if row is not None:  # sent or not before a crash: look before sending again
            content = row.content
            found = await self._find(channel, content)
            if found is not None:
                await storage.post_sent(gid, version, target, found)
                return found
        message = await channel.send(content, allowed_mentions=pinging(content), **kwargs)
        await storage.post_sent(gid, version, target, message.id)
        return message.id

    async def _find(self, channel: discord.abc.Messageable, content: str) -> int | None:
        me = self.client.user
        try:
            async for message in channel.history(limit=HISTORY_LOOKBACK):
                if me is not None and message.author.id == me.id and message.content == content:
                    return message.id
        except discord.HTTPException as exc:
            log.warning("cannot read the history of %s: %s", getattr(channel, "id", "?"), exc)
        return None

    async def _final(self, update: Update, channel: discord.PartialMessageable) -> None:
        files = []
        try:
            png = await self.renderer.draw_final(update.view, lang=update.language,
                                                 game=update.game_id)
            files.append(discord.File(io.BytesIO(png), filename="final.png"))
        except Exception:
            log.exception("game %s: rendering the final scores failed", update.game_id)
        # Long final texts (5 players' tickets) go over several messages, the image first.
        for i, part in enumerate(presenters.chunks(presenters.final_text(update.view))):
            await self._send_once((update.game_id, update.version), f"final:{i}", channel, part,
                                  files=files if i == 0 else [])

    async def _thread_one(self, channel_id: int, hand: DirectMessage) -> None:
        """Bring one player's hand message in their private thread up to date (the thread
        is opened, with only them added, the first time)."""
        storage = self._service().storage
        try:
            found = await storage.player_thread(hand.game_id, hand.user_id)
            png = await self.renderer.draw_hand(hand.private, hand.map_id, lang=hand.language)
            with i18n.language(hand.language):
                controls = (components.private_view_controls(
                    hand.game_id, hand.map_id, hand.private, hand.public, hand.version,
                    hand.choices)
                    or (components.board_view(hand.game_id, hand.public, hand.version)
                        if hand.public.current == hand.private.seat else None))
                thread_name = i18n._("Ticket to Ride #{game}: your hand", game=hand.game_id)
            files = [discord.File(io.BytesIO(png), filename="hand.png")]
            if found is not None and found[1] is not None:
                thread = self.client.get_partial_messageable(found[0])
                try:
                    await thread.get_partial_message(found[1]).edit(
                        content=presenters.clip(hand.text), attachments=files, view=controls)
                    return
                except discord.NotFound:
                    pass  # deleted: post it again
            if found is None:
                made = await self.client.http.start_thread_without_message(
                    channel_id, name=thread_name,
                    auto_archive_duration=10080, type=discord.ChannelType.private_thread.value,
                    invitable=False)
                found = (int(made["id"]), None)
                await self.client.http.add_user_to_thread(found[0], hand.user_id)
                await storage.set_player_thread(hand.game_id, hand.user_id, found[0], None)
            thread = self.client.get_partial_messageable(found[0])
            message = await thread.send(presenters.clip(hand.text), files=files,
                                        view=controls or MISSING)
            await storage.set_player_thread(hand.game_id, hand.user_id, found[0], message.id)
        except discord.HTTPException as exc:  # no permission, or the channel is a thread
            log.warning("game %s: no private thread for %s: %s", hand.game_id, hand.user_id,
                        exc)

    async def _dm_one(self, dm: DirectMessage) -> DirectMessage | None:
        """Send one DM (once per version); return it if the user refuses DMs (50007)."""
        service = self._service()
        target = post_key(f"dm:{dm.user_id}", dm.news)
        try:
            sent = await service.storage.post(dm.game_id, dm.version, target)
            if sent is not None and sent.message_id is not None:
                return None
            key = (dm.game_id, dm.version)
            # The hand is drawn while its DM channel is found and the intent stored.
            png = asyncio.ensure_future(self.renderer.draw_hand(dm.private, dm.map_id,
                                                                lang=dm.language))
            try:
                channel = await self.client.create_dm(discord.Object(dm.user_id))
                intent = await self._intend(key, target, channel, dm.text)
                file = discord.File(io.BytesIO(await png), filename="hand.png")
            finally:
                png.cancel()  # when something above failed: the drawing is not needed
            with i18n.language(dm.language):
                controls = (components.private_view_controls(
                    dm.game_id, dm.map_id, dm.private, dm.public, dm.version, dm.choices)
                    if dm.choose_tickets or dm.choices else None)
            await self._deliver(key, target, channel, intent, file=file,
                                view=controls or MISSING)
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
        """A reminder by DM; to a player who refuses DMs, a mention in the game's channel.
        Once only (``_send_once``): a restart that runs the job again sends nothing twice."""
        service = self._service()
        key = (reminder.game_id, reminder.version)
        target = f"remind:{reminder.user_id}:{reminder.attempt}"
        if not await service.dms_refused(reminder.user_id):
            try:
                channel = await self.client.create_dm(discord.Object(reminder.user_id))
                await self._send_once(key, target, channel, reminder.dm_text)
                await service.dm_delivered(reminder.user_id)
                return
            except discord.Forbidden:
                await service.dm_refused(reminder.user_id)
        # The text mentions the player: ``_deliver`` pings exactly them.
        await self._send_once(key, f"{target}:channel",
                              self.client.get_partial_messageable(reminder.channel_id),
                              reminder.channel_text)

    async def announce(self, channel_id: int, text: str, *, key: tuple[int, int],
                       target: str) -> None:
        await self._send_once(key, target, self.client.get_partial_messageable(channel_id),
                              text)

    async def offer_kick(self, offer: KickOffer) -> None:
        await self._send_once(
            (offer.game_id, offer.version), f"kick:{offer.seat}",
            self.client.get_partial_messageable(offer.channel_id), offer.text,
            view=components.kick_view(offer.game_id, offer.seat) or MISSING)
