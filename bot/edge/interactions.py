"""What every feature's handlers share: answering an interaction once (``Responder``),
finding the channel's game, the game's and the member's language, and ``guarded``, which
turns a ``Refusal`` into a short private answer. Anything a player must not see in the
channel only ever goes out through an ephemeral ``Responder``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Coroutine
from typing import Any, Protocol, cast

import discord

import engine
from bot import i18n
from bot.game.games import GameInfo, Refusal
from bot.game.images import Renderer
from bot.game.publisher import DiscordPublisher
from bot.game.service import GameService
from bot.i18n import _
from bot.ops import diskspace, metrics
from bot.play import presenters

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
MISSING: Any = discord.utils.MISSING
# Discord no longer takes answers to the interaction: it was not acknowledged within 3 s
# (10062), or its token expired after 15 minutes (50027; 10015 for a followup).
EXPIRED = (10062, 10015, 50027)
# Discord caps the edits of messages older than an hour.
EDITS_CAPPED = 30046


def expired(exc: Exception) -> bool:
    return isinstance(exc, discord.HTTPException) and exc.code in EXPIRED


class BotLike(Protocol):
    service: GameService
    renderer: Renderer
    publisher: DiscordPublisher

    async def admit(self, interaction: discord.Interaction[Any]) -> bool: ...


def bot_of(interaction: discord.Interaction[Any]) -> BotLike:
    client = interaction.client
    # What ``isinstance(client, BotLike)`` checks, without its cost (~40 us a call).
    assert hasattr(client, "service") and hasattr(client, "renderer"), client
    return cast(BotLike, client)


class Responder:
    """Answers one interaction exactly once (twice after a defer), whatever path it took.

    ``edit`` replaces the message the control sits on (a private message: an
    ephemeral reply or a DM); otherwise a new message is sent, ephemeral
    unless ``public``.
    """

    def __init__(self, interaction: discord.Interaction[Any], *, edit: bool = False,
                 public: bool = False):
        self.interaction = interaction
        self.edit = edit
        self.public = public

    async def defer(self) -> None:
        response = self.interaction.response
        if response.is_done():
            return
        if self.edit:
            await response.defer()
        else:
            await response.defer(ephemeral=not self.public, thinking=True)

    async def send(self, content: str, *, view: discord.ui.View | None = None,
                   files: list[discord.File] | None = None) -> int | None:
        """The answer, and its message's id if Discord said it; once the interaction
        expired, a public one goes to the channel and a private one by DM (the action it
        reports is stored already)."""
        content = presenters.clip(content)
        try:
            return await self._answer(content, view=view, files=files)
        except discord.HTTPException as exc:
            if exc.code == EDITS_CAPPED and self.edit:  # an old private message: a new one
                self.edit = False
                return await self.send(content, view=view, files=files)
            if not expired(exc):
                raise
            log.info("interaction %s expired (%s): answering by a %s", self.interaction.id,
                     exc.code, "channel post" if self.public else "DM")
            extra: dict[str, Any] = {"files": files or [], "allowed_mentions": NO_MENTIONS}
            if view is not None:
                extra["view"] = view
            for file in files or []:
                file.reset()
            if self.public and self.interaction.channel_id is not None:
                posted = await self.interaction.client.get_partial_messageable(
                    self.interaction.channel_id).send(content, **extra)
            else:
                posted = await self.interaction.user.send(content, **extra)
            return int(posted.id)

    async def _answer(self, content: str, *, view: discord.ui.View | None,
                      files: list[discord.File] | None) -> int | None:
        response = self.interaction.response
        if self.edit:
            kwargs: dict[str, Any] = {"content": content, "view": view}
            if files:
                kwargs["attachments"] = files
            if response.is_done():
                return (await self.interaction.edit_original_response(**kwargs)).id
            edited = await response.edit_message(**kwargs)
            return None if edited is None else edited.message_id
        extra: dict[str, Any] = {"files": files or [], "allowed_mentions": NO_MENTIONS}
        if view is not None:
            extra["view"] = view
        if response.is_done():
            return (await self.interaction.followup.send(
                content, ephemeral=not self.public, wait=True, **extra)).id
        sent = await response.send_message(content, ephemeral=not self.public, **extra)
        return None if sent is None else sent.message_id


def private_message(interaction: discord.Interaction[Any]) -> bool:
    """Whether the control clicked sits on a message only this user sees."""
    message = interaction.message
    return interaction.guild_id is None or (message is not None and message.flags.ephemeral)


# -- finding the game ------------------------------------------------------------------


async def channel_game(interaction: discord.Interaction[Any], *,
                       active_only: bool = True) -> GameInfo:
    channel_id = interaction.channel_id
    info = None if channel_id is None else await bot_of(interaction).service.channel_game(
        channel_id, active_only=active_only)
    if info is None:
        thread = None if channel_id is None else await _game_thread(interaction, channel_id)
        if thread is not None:
            raise Refusal(_("Game #{game} is played in its thread <#{thread}>: use `/ttr` "
                            "there.", game=thread[0], thread=thread[1]))
        raise Refusal(_("There is no game in this channel. Start one with `/ttr new`."))
    return info


# bot_state key: the threads games were opened in from a channel ([thread id, ...], newest
# last), so a command typed in the channel can point to its game's thread.
GAME_THREADS = "game_threads:{channel}"
GAME_THREADS_KEPT = 20


async def _game_thread(interaction: discord.Interaction[Any],
                       channel_id: int) -> tuple[int, int] | None:
    """The newest active game in a thread opened from ``channel_id``: (game, thread)."""
    storage = bot_of(interaction).service.storage
    threads = json.loads(await storage.bot_state(GAME_THREADS.format(channel=channel_id))
                         or "[]")
    for thread in reversed(threads):
        game = await storage.active_game_id(thread)
        if game is not None:
            return game, thread
    return None


def seated(info: GameInfo, user_id: int) -> tuple[int, engine.GameState]:
    seat = info.seat_of(user_id)
    if seat is None:
        raise Refusal(_("You are not playing in this game."), "not a player")
    if info.state is None:
        raise Refusal(_("The game has not started yet."), "not started")
    return seat, info.state


async def game_language(interaction: discord.Interaction[Any], info: GameInfo) -> i18n.Language:
    """The language of the game's channel posts (``/ttr new language:``, else the server's)."""
    return await bot_of(interaction).service.storage.game_language(info.row)


async def acknowledge(interaction: discord.Interaction[Any], text: str) -> None:
    """Replace the clicked private confirmation (or answer a command) with ``text``."""
    if interaction.type is discord.InteractionType.component:
        await interaction.response.edit_message(content=text, view=None)
    else:
        await Responder(interaction).send(text)


# -- running one interaction ----------------------------------------------------------------


async def guarded(interaction: discord.Interaction[Any],
                  work: Coroutine[Any, Any, None]) -> None:
    """Run one interaction's work: a ``Refusal`` becomes a short private answer, and an
    unexpected error is logged and answered without a traceback. An interaction Discord
    delivered twice (a retried command or click) runs once."""
    if not await bot_of(interaction).service.first_delivery(interaction.id):
        work.close()
        log.info("interaction %s was delivered again: ignored", interaction.id)
        return
    # Private answers in the member's language; channel posts switch to the game's.
    with i18n.language(await private_language(interaction)):
        try:
            await work
        except Refusal as exc:
            refused(exc, interaction)
            await refuse_late(interaction, str(exc))
        except Exception as exc:
            if expired(exc):  # nothing can answer it any more (what it did is stored)
                log.warning("interaction %s by %s came too late to answer: %s",
                            interaction.id, interaction.user.id, exc)
                return
            if diskspace.is_disk_full(exc):  # the cause once in the log, not a traceback each
                diskspace.FULL_DISK.struck(exc, f"interaction {interaction.id}")
                await refuse_late(interaction, _("I cannot save anything right now (my disk "
                                                 "is full), so nothing was changed. Please "
                                                 "try again later."))
                return
            log.exception("interaction %s by %s failed", interaction.id, interaction.user.id)
            await refuse_late(interaction, _("Something went wrong on my side; please try "
                                             "again."))


async def private_language(interaction: discord.Interaction[Any]) -> i18n.Language:
    """The language of answers only this member sees: their ``/ttr settings`` choice, else
    their Discord client's, else the server's."""
    storage = bot_of(interaction).service.storage
    chosen = (await storage.player_settings(interaction.user.id)).language
    if chosen is not None:
        return chosen
    server = (await storage.server_settings(interaction.guild_id)).language
    return i18n.player_language(None, interaction.locale, server)


def refused(exc: Refusal, interaction: discord.Interaction[Any],
            game_id: int | None = None) -> None:
    """One log line and a count per refusal, by its kind."""
    where = f"game {game_id}" if game_id is not None else f"channel {interaction.channel_id}"
    log.info("refused (%s) %s user %s: %s", exc.kind, where, interaction.user.id, exc)
    metrics.REFUSALS.inc(kind=exc.kind)


async def refuse_late(interaction: discord.Interaction[Any], text: str,
                      view: discord.ui.View | None = None) -> None:
    """A short private answer, whether or not the interaction was answered already (with
    ``view``: the controls that answer it)."""
    text = presenters.clip(text)  # a refusal may echo long user input
    extra: dict[str, Any] = {"view": view} if view is not None else {}
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS,
                                            **extra)
        else:
            await interaction.response.send_message(text, ephemeral=True,
                                                    allowed_mentions=NO_MENTIONS, **extra)
    except discord.HTTPException as exc:
        log.warning("could not answer interaction %s: %s", interaction.id, exc)
