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
import json
import logging
import re
import secrets
from collections.abc import Callable
from typing import Any, cast

import discord
from discord.http import handle_message_parameters

from bot import i18n
from bot.edge import components
from bot.game.images import Renderer
from bot.game.posting import ChannelLost
from bot.game.scheduler import KickOffer, Reminder
from bot.game.service import GameService
from bot.game.telling import DirectMessage, Update
from bot.play import presenters
from bot.records import chronicle, history
from bot.render.highlight import LastMove
from bot.seats import away, order_controls, watch
from bot.seats.seat_texts import OpenVote
from bot.storage.api import PostRow, TableRow

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
# bot_state keys: the messages showing a lobby, "[[channel id, message id], ...]"; the open
# votes' messages ([OpenVote, ...]).
LOBBY_COPIES = "lobby_copies:{game}"
VOTES = "votes:{game}"
# bot_state key: the players refusing DMs the game's channel told so ([user id, ...]).
DM_TOLD = "dm_told:{game}"
# Discord caps the edits of messages older than this (seconds; error 30046).
EDITS_CAPPED_AFTER = 3600.0
EDITS_CAPPED = 30046
# After such a refusal no edit of an old message is tried for this long (seconds): old table
# messages keep their buttons then (they answer that they are out of date).
EDITS_CAPPED_PAUSE = 24 * 3600.0
# The longest rate-limit wait discord.py may sleep through before a request (seconds; its
# minimum): a longer one raises, and the service retries the post later, no lock held.
RATE_LIMIT_WAIT = 30.0
# Unknown Channel, Missing Access: the game cannot go on there...
CHANNEL_GONE = (10003, 50001)
# ... nor after a post refused in an archived thread (it is locked: a post unarchives an
# unlocked one; an edit there is refused, and posting anew unarchives it).
CHANNEL_LOST = (*CHANNEL_GONE, 50083)
MISSING_PERMISSIONS = 50013
# After a missing permission was named, the channel gets no image (and if that fails too,
# nothing) for this long (seconds): then it is tried again.
BLOCKED_FOR = 6 * 3600.0
# What the bot needs in a game's channel: the invite list in docs/operations.md
# (``python -m bot doctor`` checks them).
# Discord's limit on the files of one message (bytes).
ATTACHMENT_LIMIT = 10 * 2**20
TIMELAPSE = "timelapse.gif"
LAPSES_KEPT = 4  # finished games' timelapses kept for a retried post (~0.5 MB each)
NEEDED = discord.Permissions(
    view_channel=True, send_messages=True, attach_files=True, read_message_history=True,
    embed_links=True, create_public_threads=True, create_private_threads=True,
    send_messages_in_threads=True, use_application_commands=True)


def permission_names(permissions: discord.Permissions) -> list[str]:
    """As Discord's settings name them ('Attach Files')."""
    aliases = {"read_messages": "view_channel"}
    return [aliases.get(name, name).replace("_", " ").title() for name, on in permissions if on]


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
        self._capped_until = 0.0  # see _capped
        self._blocked: dict[int, float] = {}  # channel -> until when it is left alone
        self._text_only: dict[int, float] = {}  # channel -> until when no image is posted
        self._dm_told: dict[int, set[int]] = {}  # game -> see _not_told_yet
        self._lapses: dict[tuple[int, int], bytes] = {}  # (game, version) -> its timelapse
        self._told: set[tuple[int, int]] = set()  # (server, chronicle channel) told of failing

    async def publish(self, update: Update) -> None:
        """Post an update. Discord's refusals: a rate limit longer than the bot waits
        (``RATE_LIMIT_WAIT``) raises at once, so no lock is held through it (the service
        retries the update); a
        channel gone or out of sight raises ``ChannelLost``; a missing permission is said
        once (see ``_missing``) and the channel is left alone for a while."""
        clock = self._service().clock
        if clock.now() < self._blocked.get(update.channel_id, 0.0):
            log.info("game %s: not posting to channel %s (a permission is missing)",
                     update.game_id, update.channel_id)
            return
        # The channel hears the game's language (the action may come from any member).
        with i18n.language(update.language):
            try:
                await self._post(update)
                await self._votes_after(update)
                await self._watchers(update)
            except discord.RateLimited as exc:  # the service keeps it for a retry
                log.warning("game %s: rate limited for %.0f s", update.game_id, exc.retry_after)
                raise
            except discord.HTTPException as exc:
                if exc.code in CHANNEL_LOST:
                    raise ChannelLost(f"{exc.status} {exc.code} {exc.text}") from exc
                if exc.code != MISSING_PERMISSIONS:
                    raise
                await self._missing(update)
                if clock.now() < self._text_only.get(update.channel_id, 0.0):
                    self._blocked[update.channel_id] = clock.now() + BLOCKED_FOR
                    raise
                # Perhaps only images may not be posted: the game goes on in text meanwhile.
                self._text_only[update.channel_id] = clock.now() + BLOCKED_FOR
                await self.publish(update)

    async def _watchers(self, update: Update) -> None:
        """Members following the game without a seat (``/ttr watch``) get what the channel
        heard, once per version; one whose DMs or thread refuse is dropped."""
        texts = watch.follow_texts(update)
        if not texts:
            return
        storage = self._service().storage
        for watcher in await storage.watchers(update.game_id):
            try:
                channel: discord.abc.Messageable = (
                    self.client.get_partial_messageable(watcher.thread_id)
                    if watcher.thread_id is not None
                    else await self.client.create_dm(discord.Object(watcher.user_id)))
                for i, text in enumerate(texts):
                    await self._send_once(
                        (update.game_id, update.version),
                        post_key(f"watch:{watcher.user_id}:{i}", update.news), channel, text)
            except (discord.Forbidden, discord.NotFound) as exc:
                log.info("game %s: watcher %s dropped: %s", update.game_id, watcher.user_id,
                         exc)
                await storage.remove_watcher(update.game_id, watcher.user_id)

    async def _missing(self, update: Update) -> None:
        """Name the permissions the bot needs, in one line: in the channel if it can still
        post there, else to the server's owner (or the game's host) by DM; and in the log.
        Once in ``BLOCKED_FOR`` at most."""
        if self._service().clock.now() < self._text_only.get(update.channel_id, 0.0):
            return
        needed = ", ".join(permission_names(NEEDED))
        log.warning("game %s: a permission is missing in channel %s; the bot needs: %s",
                    update.game_id, update.channel_id, needed)
        text = i18n._("I cannot post game #{game} in <#{channel}>: I need these permissions "
                      "there: {permissions}.", game=update.game_id, channel=update.channel_id,
                      permissions=needed)
        try:
            await self.client.get_partial_messageable(update.channel_id).send(
                text, allowed_mentions=discord.AllowedMentions.none())
            return
        except discord.HTTPException:
            pass
        guild = self.client.get_guild(update.guild_id) if update.guild_id else None
        owner = guild.owner_id if guild is not None else None
        await self.tell(owner or (await self._service().info(update.game_id)).row.host_id,
                        text)

    async def tell(self, user_id: int, text: str) -> None:
        try:
            channel = await self.client.create_dm(discord.Object(user_id))
            await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.info("could not tell %s by DM: %s", user_id, exc)

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
        prompt = update.prompt(await self._not_told_yet(update, refused))
        channel = self.client.get_partial_messageable(update.channel_id)
        # A publish resumed after a crash whose version reached the table already (news
        # without a new version has its own post keys, which say whether it was told).
        told = (table is not None and not update.refresh and not update.news
                and table.version >= update.version)
        ping = not update.refresh and not told and bool(pinging(prompt).users)
        repost = table is None or update.repost or (not update.refresh and not told and (
            (update.board and mode == "changes") or (mode == "every_turn" and bool(lines))
            or len(table.head) + len(table.line_text) + len(lines) > HEAD_LIMIT
            or (self._aged(table.message_id) and (ping or self._capped()))
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
        if not edited:  # the table message is gone or cannot be edited: post it again
            await self.publish_table(update)

    async def _not_told_yet(self, update: Update, refused: list[int]) -> list[int]:
        """Of the players who refuse DMs and must act now, those the channel has not told
        yet in this game (once is enough: every turn was noise), or not since their DMs
        worked again."""
        storage = self._service().storage
        key = DM_TOLD.format(game=update.game_id)
        told = self._dm_told.get(update.game_id)
        if told is None:  # read once per game and process, not at every publish
            told = set(json.loads(await storage.bot_state(key) or "[]"))
        closed = {*update.dm_closed, *refused}
        now = told - ({dm.user_id for dm in update.dms} - closed) | closed
        if now != told:
            await storage.set_bot_state(key, json.dumps(sorted(now)))
        self._dm_told[update.game_id] = now
        return sorted(closed - told)

    async def _close(self, game_id: int, channel: discord.PartialMessageable, table: TableRow,
                     lines: str, version: int) -> None:
        """Retire a table message: its turn line and ``lines`` move into it, its buttons go."""
        head = join(table.head, table.line_text, lines)
        if table.line_id is not None:
            await self._delete(channel, table.line_id)
        await self._strip(channel, table.message_id, head)
        await self._service().storage.set_table_message(game_id, dataclasses.replace(
            table, head=head, line_id=None, line_text="", version=version))

    def _aged(self, message_id: int) -> bool:
        """Whether a message is over an hour old: Discord caps the edits of such messages
        (30046), so at a turn change a table message is posted anew rather than edited."""
        born = discord.utils.snowflake_time(message_id).timestamp()
        return self._service().clock.now() - born > EDITS_CAPPED_AFTER

    def _capped(self) -> bool:
        """Whether Discord refused an edit of an old message (30046) lately: no such edit
        is tried for a while (each refusal counts against the bot)."""
        return self._service().clock.now() < self._capped_until

    def _refused_edit(self, exc: discord.HTTPException) -> None:
        if exc.code == EDITS_CAPPED:
            self._capped_until = self._service().clock.now() + EDITS_CAPPED_PAUSE

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
        if self._service().clock.now() < self._text_only.get(update.channel_id, 0.0):
            board.cancel()
            return []
        try:
            return [discord.File(io.BytesIO(await board), filename="board.png")]
        except Exception:
            log.exception("game %s: rendering the board failed", update.game_id)
            return []

    async def _edit_table(self, channel: discord.PartialMessageable, table: TableRow,
                          content: str, controls: discord.ui.View | None,
                          files: list[discord.File]) -> bool:
        """Edit the table message in place; False if Discord refused (it was deleted, its
        edits are capped (30046), its thread is archived...): then it is posted anew."""
        if self._aged(table.message_id) and self._capped():
            return False
        try:
            # As ``PartialMessage.edit`` does, without building a ``Message`` of the answer
            # (the view is for sending only, see ``_send``).
            with handle_message_parameters(
                    content=presenters.clip(content), view=controls,
                    attachments=files or MISSING,
                    allowed_mentions=discord.AllowedMentions.none(),
                    previous_allowed_mentions=self.client.allowed_mentions) as params:
                await self.client.http.edit_message(channel.id, table.message_id,
                                                    params=params)
        except discord.HTTPException as exc:
            if exc.code in CHANNEL_GONE:
                raise
            log.info("table message %s not edited (%s): posting it anew", table.message_id, exc)
            self._refused_edit(exc)
            return False
        return True

    async def _strip(self, channel: discord.PartialMessageable, message_id: int,
                     content: str) -> None:
        """An old table message keeps its image and what it told, without buttons (unless
        Discord caps its edits now: its buttons then answer that they are out of date)."""
        if self._aged(message_id) and self._capped():
            return
        try:
            await channel.get_partial_message(message_id).edit(
                content=presenters.clip(content or "…"), view=None,
                allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.info("old table message %s could not be cleared: %s", message_id, exc)
            self._refused_edit(exc)

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
        mid = await self._send(channel, content, allowed_mentions=pinging(content), **kwargs)
        await storage.post_sent(gid, version, target, mid)
        return mid

    async def _send(self, channel: discord.abc.Messageable, content: str, *,
                    allowed_mentions: discord.AllowedMentions,
                    file: discord.File = MISSING, files: list[discord.File] = MISSING,
                    view: discord.ui.View | None = MISSING) -> int:
        """``channel.send``, returning only the new message's id: discord.py would build a
        whole ``Message`` of Discord's answer (two or three an action) for nothing. The
        bot's views are for sending only (stopped: discord.py keeps none of them)."""
        assert not view or view.is_finished(), "a view discord.py would keep: send it so"
        with handle_message_parameters(
                content=content, file=file, files=files, view=view,
                nonce=secrets.randbits(64), allowed_mentions=allowed_mentions,
                previous_allowed_mentions=self.client.allowed_mentions) as params:
            data = await self.client.http.send_message(cast(discord.abc.Snowflake, channel).id,
                                                       params=params)
        return int(data["id"])

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
        """The final scores and image, then the game's timelapse, then the server's
        chronicle (if it has one) hears of it."""
        key = (update.game_id, update.version)
        # The timelapse is drawn while the final image is (each in a render worker).
        lapse = asyncio.ensure_future(self._timelapse(update))
        try:
            png = None
            try:
                png = await self.renderer.draw_final(update.view, lang=update.language,
                                                     game=update.game_id)
            except Exception:
                log.exception("game %s: rendering the final scores failed", update.game_id)
            files = [] if png is None else [discord.File(io.BytesIO(png), filename="final.png")]
            # Long final texts (5 players' tickets) go over several messages, the image first.
            for i, part in enumerate(presenters.chunks(presenters.final_text(update.view))):
                await self._send_once(key, f"final:{i}", channel, part,
                                      files=files if i == 0 else [])
            moves, gif = await lapse
        finally:
            lapse.cancel()  # (when something above failed: the drawing is not needed)
        if gif is not None and self._service().clock.now() >= self._text_only.get(
                update.channel_id, 0.0):
            try:
                await self._send_once(key, "timelapse", channel,
                                      chronicle.timelapse_caption(update.game_id, len(moves)),
                                      files=[discord.File(io.BytesIO(gif), filename=TIMELAPSE)])
            except discord.HTTPException as exc:  # the scores are out: the game is over
                if exc.code in CHANNEL_LOST:
                    raise
                log.info("game %s: the timelapse was not posted: %s", update.game_id, exc)
        await self._chronicle(update, png, moves, gif)

    async def _timelapse(self, update: Update) -> tuple[tuple[LastMove, ...], bytes | None]:
        """What each turn of the finished game built (from its stored log's public events)
        and its timelapse, drawn once per game version (a retried post finds it here);
        no timelapse (None) if it cannot be drawn."""
        key = (update.game_id, update.version)
        try:
            rows = await self._service().storage.actions(update.game_id)
            names = [p.name for p in update.view.players]
            moves = await asyncio.to_thread(lambda: tuple(history.building_turns(
                update.view.map_id, names, history.logged_events(rows))))
            found = self._lapses.get(key)
            gif = found if found is not None else await self.renderer.draw_timelapse(
                update.view, moves, lang=update.language, game=update.game_id)
        except Exception:
            log.exception("game %s: drawing the timelapse failed", update.game_id)
            return (), None
        if gif is not None and len(gif) >= ATTACHMENT_LIMIT:
            log.warning("game %s: the timelapse is too large to post (%d bytes)",
                        update.game_id, len(gif))
            return moves, None
        if gif is not None:
            self._lapses[key] = gif
            while len(self._lapses) > LAPSES_KEPT:
                self._lapses.pop(next(iter(self._lapses)))
        return moves, gif

    async def _chronicle(self, update: Update, png: bytes | None, moves: tuple[LastMove, ...],
                         gif: bytes | None) -> None:
        """The finished game's summary, final image and timelapse in the server's chronicle
        channel (``chronicle_channel``), once. A channel gone or closed to the bot is
        logged and its server's owner told once by DM; the players hear nothing of it."""
        if update.guild_id is None:
            return
        target = None
        try:
            target = (await self._service().storage.server_settings(update.guild_id)
                      ).chronicle_channel
            if target is None or target == update.channel_id:
                return
            files = [(name, data) for name, data in (("final.png", png), (TIMELAPSE, gif))
                     if data is not None]
            # Both files in one message if they fit Discord's limit, else the timelapse after.
            apart = sum(len(data) for _name, data in files) > ATTACHMENT_LIMIT
            channel = self.client.get_partial_messageable(target)
            key = (update.game_id, update.version)
            for i, part in enumerate([files[:1], files[1:]] if apart else [files]):
                await self._send_once(
                    key, "chronicle" if i == 0 else "chronicle:timelapse", channel,
                    chronicle.summary(update.game_id, update.view, moves) if i == 0 else
                    chronicle.timelapse_caption(update.game_id, len(moves)),
                    files=[discord.File(io.BytesIO(data), filename=name) for name, data in part])
        except discord.HTTPException as exc:  # gone, or no permission there
            log.warning("game %s: the chronicle channel %s refused the summary: %s",
                        update.game_id, target, exc)
            if target is not None:
                await self._chronicle_refused(update.guild_id, target, update.game_id)
        except Exception:  # (a rate limit, say): the game is over all the same
            log.exception("game %s: the chronicle post failed", update.game_id)

    async def _chronicle_refused(self, guild_id: int, channel_id: int, game_id: int) -> None:
        """Tell the server's owner, once per chronicle channel while the bot runs."""
        guild = self.client.get_guild(guild_id)
        if guild is None or guild.owner_id is None or (guild_id, channel_id) in self._told:
            return
        self._told.add((guild_id, channel_id))
        await self.tell(guild.owner_id, i18n._(
            "I could not post game #{game} in the chronicle channel <#{channel}>: it is gone, "
            "or I may not send messages with files there. Give me those permissions, or "
            "switch it off with `/ttr-admin config chronicle_channel off`.",
            game=game_id, channel=channel_id))

    async def _thread_one(self, channel_id: int, hand: DirectMessage) -> None:
        """Bring one player's hand message in their private thread up to date (the thread
        is opened, with only them added, the first time)."""
        storage = self._service().storage
        try:
            found = await storage.player_thread(hand.game_id, hand.user_id)
            png = await self.renderer.draw_hand(
                hand.private, hand.map_id, lang=hand.language,
                public=hand.public, plans=hand.plans, game=hand.game_id)
            with i18n.language(hand.language):
                controls = (components.private_view_controls(
                    hand.game_id, hand.map_id, hand.private, hand.public, hand.version,
                    hand.choices)
                    or (components.board_view(hand.game_id, hand.public, hand.version)
                        if hand.public.current == hand.private.seat
                        else components.with_controls([order_controls.panel_button(
                            hand.game_id)])))
                thread_name = i18n._("Ticket to Ride #{game}: your hand", game=hand.game_id)
            files = [discord.File(io.BytesIO(png), filename="hand.png")]
            if found is not None and found[1] is not None:
                thread = self.client.get_partial_messageable(found[0])
                try:
                    await thread.get_partial_message(found[1]).edit(
                        content=presenters.clip(hand.text), attachments=files, view=controls)
                    return
                except discord.HTTPException as exc:  # deleted, or its edits capped
                    log.info("hand message %s not edited (%s): posting it anew", found[1], exc)
                    self._refused_edit(exc)
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
            png = asyncio.ensure_future(self.renderer.draw_hand(
                dm.private, dm.map_id, lang=dm.language,
                public=dm.public, plans=dm.plans, game=dm.game_id))
            try:
                channel = await self.client.create_dm(discord.Object(dm.user_id))
                intent = await self._intend(key, target, channel, dm.text)
                file = discord.File(io.BytesIO(await png), filename="hand.png")
            finally:
                png.cancel()  # when something above failed: the drawing is not needed
            with i18n.language(dm.language):
                controls = (components.private_view_controls(
                    dm.game_id, dm.map_id, dm.private, dm.public, dm.version, dm.choices)
                    if dm.choose_tickets or dm.choices
                    else components.with_controls([order_controls.panel_button(dm.game_id)]))
                if dm.away:  # coming back is one click (bot.seats.away)
                    controls = away.with_back_button(controls)
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

    # -- messages that follow a thing: a lobby's copies, a vote's messages ------------------

    async def follow_lobby(self, game_id: int, text: str,
                           newest: tuple[int, int] | None = None) -> None:
        """Every message that shows a lobby says what it is now: ``newest`` (channel,
        message) keeps its buttons; every other copy shows ``text`` without buttons, so
        none invites a join after the start or close (whatever closed it: a start, an end,
        the idle sweep)."""
        storage = self._service().storage
        key = LOBBY_COPIES.format(game=game_id)
        copies = [(int(c), int(m)) for c, m in json.loads(await storage.bot_state(key) or "[]")]
        if newest is not None and all(m != newest[1] for _c, m in copies):
            copies.append(newest)
            await storage.set_bot_state(key, json.dumps(copies))
        for where, mid in copies:
            if newest is None or mid != newest[1]:
                await self._strip_to(game_id, where, mid, text)

    async def _strip_to(self, game_id: int, channel_id: int, message_id: int,
                        text: str) -> None:
        """Edit a message of the game's to ``text`` without buttons (a deleted one, or one
        Discord no longer lets the bot edit, stays as it is: logged)."""
        try:
            await self.client.get_partial_messageable(channel_id).get_partial_message(
                message_id).edit(content=text, view=None,
                                 allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.info("game %s: message %s not updated: %s", game_id, message_id, exc)

    async def track_vote(self, game_id: int, vote: OpenVote,
                         message: tuple[int, int]) -> None:
        """Remember a message that asks for a vote, to close it with its outcome
        (``close_votes``)."""
        storage = self._service().storage
        key = VOTES.format(game=game_id)
        votes = [OpenVote.model_validate(v)
                 for v in json.loads(await storage.bot_state(key) or "[]")]
        mine = next((v for v in votes if (v.kind, v.subject) == (vote.kind, vote.subject)), None)
        if mine is None:
            votes.append(mine := vote)
        if list(message) not in [list(w) for w in mine.where]:
            mine.where.append(message)
        await storage.set_bot_state(key, json.dumps([v.model_dump() for v in votes]))

    async def close_votes(self, game_id: int, outcome: Callable[[OpenVote], str | None],
                          texts: dict[str, str] | None = None) -> None:
        """Edit the messages of each open vote that ``outcome`` decided ('passed', 'stale',
        'over': a key of its ``closed`` texts, or of ``texts`` that say more; None: still
        open) to say so, without buttons."""
        storage = self._service().storage
        key = VOTES.format(game=game_id)
        stored = await storage.bot_state(key)
        if not stored or stored == "[]":
            return  # the usual case: one small read
        votes = [OpenVote.model_validate(v) for v in json.loads(stored)]
        open_ = []
        for vote in votes:
            decided = outcome(vote)
            if decided is None:
                open_.append(vote)
                continue
            for where, mid in vote.where:
                await self._strip_to(game_id, where, mid,
                                     (texts or {}).get(decided) or vote.closed[decided])
        if len(open_) != len(votes):
            await storage.set_bot_state(key, json.dumps([v.model_dump() for v in open_]))

    async def _votes_after(self, update: Update) -> None:
        """After an update, close the votes it decided: all at the game's end; an undo
        vote once the game left its version (undone by this update, or moved on); a vote on
        an absent player's seat once they are back or nobody plays the seat."""
        if update.finished:
            self._dm_told.pop(update.game_id, None)
            await self.close_votes(update.game_id, lambda v: "over")
            return
        storage = self._service().storage
        stored = await storage.bot_state(VOTES.format(game=update.game_id))
        if not stored or stored == "[]":
            return  # the usual case: nothing to close, and one read (not close_votes' second)
        back: set[int] = set()  # seats no vote is on any more
        if '"kick"' in stored:
            info = await self._service().info(update.game_id)
            timing = await storage.timing(info.row.guild_id, update.game_id)
            expiries = await storage.expiries(update.game_id)
            back = {s.seat for s in info.seats if not s.human
                    or expiries.get(s.seat, 0) < timing.kick_after_expiries}

        def outcome(vote: OpenVote) -> str | None:
            if vote.kind == "undo" and vote.subject != update.version:
                return "passed" if update.undo_at == vote.subject else "stale"
            if vote.kind == "kick" and vote.subject in back:
                return "stale"
            return None
        await self.close_votes(update.game_id, outcome)

    async def offer_kick(self, offer: KickOffer) -> None:
        mid = await self._send_once(
            (offer.game_id, offer.version), f"kick:{offer.seat}",
            self.client.get_partial_messageable(offer.channel_id), offer.text,
            view=components.kick_view(offer.game_id, offer.seat) or MISSING)
        if offer.vote is not None:
            await self.track_vote(offer.game_id, offer.vote, (offer.channel_id, mid))
