"""What the bot does for an interaction, shared by slash commands and components.

These functions turn a Discord interaction into calls on the ``GameService``
and answer it. Anything a player must not see in the channel (hand, tickets,
the card drawn blind) only ever goes out through an ephemeral ``Responder``.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, cast

import discord
from pydantic import ValidationError

import engine
from bot import i18n
from bot.edge import components
from bot.game.games import Ended, GameInfo, Refusal
from bot.game.images import Renderer
from bot.game.publisher import DiscordPublisher
from bot.game.service import GameService, Outcome
from bot.i18n import _, _n
from bot.ops import diskspace, metrics
from bot.play import claiming, presenters
from bot.play.claiming import claim_colour
from bot.play.decisions import Pick, decisions, draft_round, tunnel_hand
from bot.play.estimates import estimate_note
from bot.seats import away, order_controls
from bot.settings.preferences import GameSettings, PlayerSettings, ServerSettings
from engine import (
    Action,
    BuildHarbor,
    BuildStation,
    ChoosePieces,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    ExchangePieces,
    KeepTickets,
    PayTunnel,
)
from engine.events import (
    HarborBuilt,
    PiecesExchanged,
    RouteClaimed,
    StationBuilt,
    TunnelDeclined,
)
from engine.phases import Phase
from maps import load_map

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
# Buttons whose action takes no argument (the engine picks a tunnel's extra cards).
BUTTON_ACTIONS: dict[str, Callable[[], Action]] = {
    "blind": DrawBlind, "shipdeck": lambda: DrawBlind(deck="ship"), "tickets": DrawTickets,
    "pay": PayTunnel, "decline": DeclineTunnel,
}
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


# -- lobby ------------------------------------------------------------------------------


def lobby_text(info: GameInfo) -> str:
    row = info.row
    m = load_map(row.map_id)
    players = ", ".join(presenters.safe_name(s.name) for s in info.seats) or _("nobody")
    host = next((presenters.safe_name(s.name) for s in info.seats
                 if s.user_id == row.host_id), "?")
    if row.status == "cancelled":
        return _("Game #{game} ({map}) was cancelled: everyone left.", game=row.id,
                 map=_(m.name))
    if row.status != "lobby":
        return _("🚂 **Ticket to Ride: {map}** — game #{game} has started. Players: {players}.",
                 map=_(m.name), game=row.id, players=players)
    head = _("🚂 **Ticket to Ride: {map}** — game #{game}\nPlayers ({n}/{most}): {players}",
             map=_(m.name), game=row.id, n=len(info.seats), most=row.max_players,
             players=players)
    low, high = m.rules.players_min, min(m.rules.players_max, row.max_players)
    note = estimate_note(m)  # Iberia: what its data only estimates
    tail = "" if note is None else f"\n⚠️ {note}"
    if len(info.seats) >= row.max_players:
        return head + "\n" + _("Host: {host}. The lobby is full: the host presses **Start**.",
                               host=host) + tail
    join = _("Host: {host}. Press **Join** to take a seat; the host presses **Start** "
             "({low}–{high} players).", host=host, low=low, high=high)
    return head + "\n" + join + tail


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
        await interaction.response.edit_message(content=lobby_text(info), view=view)
        newest = interaction.message.id if interaction.message else None
    else:
        await Responder(interaction, public=True).send(f"{note}\n{lobby_text(info)}", view=view)
        newest = (await interaction.original_response()).id
    await lobby_copies(interaction, info, newest)


async def lobby_copies(interaction: discord.Interaction[Any], info: GameInfo,
                       newest: int | None, channel_id: int | None = None) -> None:
    """Every message that shows this lobby says what it is now: the ``newest`` (posted in
    ``channel_id``, or the interaction's channel) keeps the buttons, older copies lose theirs
    (``DiscordPublisher.follow_lobby``)."""
    where = None if newest is None else (channel_id or interaction.channel_id or 0, newest)
    await bot_of(interaction).publisher.follow_lobby(info.row.id, lobby_text(info), where)


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


async def game_language(interaction: discord.Interaction[Any], info: GameInfo) -> i18n.Language:
    """The language of the game's channel posts (``/ttr new language:``, else the server's)."""
    return await bot_of(interaction).service.storage.game_language(info.row)


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
        text = lobby_text(info)
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
            posted = await target.send(lobby_text(info), view=lobby_controls(info) or MISSING,
                                       allowed_mentions=NO_MENTIONS)
            await Responder(interaction, public=True).send(
                _("Game #{game} is open in <#{channel}>: join it there.", game=row.id,
                  channel=target_id))
            await lobby_copies(interaction, info, posted.id, target_id)
        else:
            await Responder(interaction, public=True).send(
                lobby_text(info), view=lobby_controls(info))
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
                            presenters.added_computer_line(info.seats[-1].name))


# -- seats: leaving, replacing, autopilot, ending, undo --------------------------------------


def is_admin(interaction: discord.Interaction[Any]) -> bool:
    """Manage Server or Manage Channels in this channel, as Discord says now."""
    permissions = interaction.permissions
    return permissions.manage_guild or permissions.manage_channels


async def acknowledge(interaction: discord.Interaction[Any], text: str) -> None:
    """Replace the clicked private confirmation (or answer a command) with ``text``."""
    if interaction.type is discord.InteractionType.component:
        await interaction.response.edit_message(content=text, view=None)
    else:
        await Responder(interaction).send(text)


async def announce_end(interaction: discord.Interaction[Any], ended: Ended, by: str) -> None:
    """Tell the channel a game ended early, with the public scores as they stood (if any):
    no winner, no secret ticket. Its open votes close; a lobby's copies say it closed."""
    info = await bot_of(interaction).service.info(ended.game_id)
    publisher = bot_of(interaction).publisher
    with i18n.language(await game_language(interaction, info)):
        text = presenters.ended_text(ended.game_id, ended.status, by, ended.reason)
        if ended.view is None:
            await publisher.follow_lobby(ended.game_id, text)
        else:
            text += "\n" + presenters.standings_text(ended.view)
    await Responder(interaction, public=True).send(text)
    await publisher.close_votes(ended.game_id, lambda vote: "over")


async def end(interaction: discord.Interaction[Any], game_id: int) -> None:
    """``/ttr end``: a private confirmation first; permissions are checked again on click."""
    info = await bot_of(interaction).service.info(game_id)
    host = next((s.name for s in info.seats if s.user_id == info.row.host_id), "?")
    if interaction.user.id != info.row.host_id and not is_admin(interaction):
        raise Refusal(presenters.only_host(host, "end the game", admins=True))
    await Responder(interaction).send(
        _(presenters.END_CONFIRM, game=game_id),
        view=components.confirm_view(game_id, "endok", _("End the game")))


async def end_confirmed(interaction: discord.Interaction[Any], game_id: int) -> None:
    user = interaction.user
    ended = await bot_of(interaction).service.end(game_id, user.id, admin=is_admin(interaction))
    await acknowledge(interaction, presenters.ended_text(game_id, ended.status, None,
                                                          ended.reason))
    await announce_end(interaction, ended, user.display_name)


async def abandon(interaction: discord.Interaction[Any], game_id: int) -> None:
    """``/ttr abandon`` or a click on Agree: one vote; a majority ends the game."""
    service = bot_of(interaction).service
    vote = await service.vote_abandon(game_id, interaction.user.id)
    with i18n.language(await game_language(interaction, await service.info(game_id))):
        text = presenters.vote_text("abandon", vote.names, vote.needed,
                                    passed=vote.ended is not None)
        view = None if vote.ended else components.vote_view(game_id, "abandon")
        tracked = presenters.open_vote("abandon", 0, game_id, "")
    await _post_vote(interaction, game_id, tracked, text, view,
                     clicked=interaction.type is discord.InteractionType.component,
                     open_=vote.ended is None)
    if vote.ended is not None:
        publisher = bot_of(interaction).publisher
        await publisher.close_votes(game_id, lambda v: "passed" if v.kind == "abandon" else None,
                                    {"passed": text})  # who voted, as on the clicked copy
        await announce_end(interaction, vote.ended, interaction.user.display_name)


async def _post_vote(interaction: discord.Interaction[Any], game_id: int,
                     vote: presenters.OpenVote, text: str, view: discord.ui.View | None, *,
                     clicked: bool, open_: bool = True) -> None:
    """Show a vote: the ``clicked`` vote message is edited, else a new one is posted; an
    open vote's message is remembered, to say its outcome once decided (``close_votes``)."""
    if clicked:
        await interaction.response.edit_message(content=text, view=view)
        mid = interaction.message.id if interaction.message else None
    else:
        mid = await Responder(interaction, public=True).send(text, view=view)
    if open_ and mid is not None:
        await bot_of(interaction).publisher.track_vote(
            game_id, vote, (interaction.channel_id or 0, mid))


async def undo(interaction: discord.Interaction[Any], game_id: int,
               version: int | None = None, *, ask: bool = False) -> None:
    """The Undo button under a hand, or Agree on an undo vote (``version``: the action it
    would take back). Undo that needs the table's vote is confirmed first; ``ask``: it was
    (Ask the table), so the vote starts."""
    service = bot_of(interaction).service
    # A click on the public vote edits it; the button under a hand asks before a vote.
    clicked = (interaction.type is discord.InteractionType.component
               and not private_message(interaction))
    if not clicked and not ask:
        needs_vote, subject, at = await service.undo_needs_vote(game_id, interaction.user.id)
        if needs_vote and (version is None or version == at):
            await Responder(interaction).send(
                presenters.undo_confirm(subject),
                view=components.confirm_view(game_id, "undovote", _("Ask the table"), at))
            return
    vote = await service.undo(game_id, interaction.user.id, expect_version=version)
    if vote.undone:
        text = presenters.undone_text(vote.subject)
        if clicked:
            await interaction.response.edit_message(content=text, view=None)
        else:
            await Responder(interaction).send(text)
        return
    with i18n.language(await game_language(interaction, await service.info(game_id))):
        text = presenters.vote_text("undo", vote.names, vote.needed, vote.subject)
        view = components.vote_view(game_id, "undo", vote.version)
        tracked = presenters.open_vote("undo", vote.version, game_id, vote.subject)
    await _post_vote(interaction, game_id, tracked, text, view, clicked=clicked)


async def resign(interaction: discord.Interaction[Any], game_id: int) -> None:
    info = await bot_of(interaction).service.info(game_id)
    if info.row.status == "lobby":
        await leave(interaction, game_id)
        return
    seated(info, interaction.user.id)
    await Responder(interaction).send(
        _(presenters.RESIGN_CONFIRM),
        view=components.confirm_view(game_id, "resign", _("Resign")))


async def resign_confirmed(interaction: discord.Interaction[Any], game_id: int) -> None:
    user = interaction.user
    service = bot_of(interaction).service
    name = next((s.name for s in (await service.info(game_id)).seats if s.user_id == user.id),
                user.display_name)
    result = await service.resign(game_id, user.id)
    await acknowledge(interaction, _(presenters.RESIGNED))
    if isinstance(result, Ended):
        await announce_end(interaction, result, name)
    else:
        with i18n.language(await game_language(interaction, await service.info(game_id))):
            line = presenters.resigned_line(name)
        await Responder(interaction, public=True).send(line)


async def autopilot(interaction: discord.Interaction[Any], game_id: int, on: bool) -> None:
    info = await bot_of(interaction).service.autopilot(game_id, interaction.user.id, on)
    seat = info.seat_of(interaction.user.id)
    name = info.seats[seat].name if seat is not None else interaction.user.display_name
    with i18n.language(await game_language(interaction, info)):
        line = presenters.autopilot_line(name, on)
    await Responder(interaction, public=True).send(line)


def seat_from_text(info: GameInfo, text: str | None) -> int | None:
    """A seat from its number ('2', as the autocomplete offers) or a typed player name; None
    if not given."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    if text.isdigit() and 1 <= int(text) <= len(info.seats):
        return int(text) - 1
    hits = [s.seat for s in info.seats if text.lower() in s.name.lower()]
    if len(hits) != 1:
        raise Refusal(_("No single seat matches {text}: pick one from the list.",
                        text=presenters.echo(text)))
    return hits[0]


async def replace(interaction: discord.Interaction[Any], game_id: int,
                  member: discord.User | discord.Member, seat_text: str | None) -> None:
    if member.bot:
        raise Refusal(presenters.NOT_A_PERSON)
    service = bot_of(interaction).service
    seat = seat_from_text(await service.info(game_id), seat_text)
    await Responder(interaction).defer()  # the new player's DM and the post go out first
    _game, seat = await service.replace(
        game_id, interaction.user.id, admin=is_admin(interaction), seat=seat,
        user_id=member.id, name=member.display_name)
    await Responder(interaction).send(presenters.replaced_ack(member.display_name, seat))


# -- playing --------------------------------------------------------------------------------


def _answer(outcome: Outcome) -> tuple[str, discord.ui.View | None]:
    """The actor's private answer: what they got and what they must decide next."""
    text, controls = _result(outcome)
    map_id = outcome.view.map_id
    got = presenters.shares_gained(outcome.before, outcome.after)
    if got:
        text = "\n".join([text, _n("Your new share: {shares}.", "Your new shares: {shares}.",
                                   len(got), shares=", ".join(got))])
    festival = presenters.festival_gained(map_id, outcome.before, outcome.after)
    if festival:
        text = "\n".join([text, _("🎉 Festival cards taken: {piles}.",
                                  piles=", ".join(festival))])
    if outcome.choices:  # a map's own decision waits: its options as buttons
        now = presenters.decision_text(outcome.view, outcome.after, outcome.draft)
        text = "\n".join([text, _("👉 Now {what}:", what=now)])
        if outcome.view.phase == Phase.DRAFT:
            text += "\n" + presenters.hand_text(map_id, outcome.after)
        controls = components.private_view_controls(
            outcome.game_id, map_id, outcome.after, outcome.view,
            outcome.version, outcome.choices)
    return text, controls


def _result(outcome: Outcome) -> tuple[str, discord.ui.View | None]:
    action, view, after = outcome.action, outcome.view, outcome.after
    map_id, gid = view.map_id, outcome.game_id
    over = "\n" + _("🏁 That was the last turn: the final scores are in the channel.") \
        if view.phase == Phase.GAME_OVER else ""
    mine_now = view.current == outcome.seat and view.phase != Phase.GAME_OVER
    done = presenters.choice_done(map_id, action)
    if done is not None:
        if after.offered:  # the draft is over: now keep some of the tickets drafted
            return (f"{done}\n{presenters.hand_text(map_id, after)}",
                    components.private_view_controls(gid, map_id, after, view,
                                                     outcome.version))
        if outcome.choices or view.phase == Phase.GAME_OVER:
            end = ""
        elif outcome.phase_before.simultaneous:
            end = _(" Waiting for the others.") if view.phase == outcome.phase_before else ""
        else:
            end = _(" Your turn is over.")
        return done + end + over, None
    if isinstance(action, DrawFaceUp | DrawBlind):
        text = _("You drew {cards}.", cards=presenters.drawn_text(map_id, outcome.before, after))
        if mine_now and view.phase == Phase.SECOND_DRAW:
            return (_("{drew} Take your second card:", drew=text) + "\n"
                    + presenters.market_text(view),
                    components.private_view_controls(gid, map_id, after, view, outcome.version))
        return text + _(" Your turn is over.") + over, None
    if isinstance(action, DrawTickets):
        return (presenters.hand_text(map_id, after),
                components.private_view_controls(gid, map_id, after, view, outcome.version))
    if isinstance(action, KeepTickets):
        waiting = (_(" Waiting for the others.") if view.phase == outcome.phase_before
                   and outcome.phase_before.simultaneous else "")
        return _("Kept.") + f"{waiting}\n{presenters.hand_text(map_id, after)}{over}", None
    if view.tunnel is not None and view.tunnel.seat == outcome.seat and outcome.tunnel:
        payable = outcome.tunnel.payable
        return (presenters.tunnel_prompt(map_id, view.tunnel, after, outcome.tunnel.hand,
                                         payable),
                components.private_view_controls(gid, map_id, after, view, outcome.version,
                                                 tunnel_payable=payable))
    for e in outcome.events:
        if isinstance(e, RouteClaimed):
            return (_n("You claimed {route} for {n} point.", "You claimed {route} for {n} points.",
                       e.points, route=presenters.route_label(map_id, e.route)) + over, None)
        if isinstance(e, TunnelDeclined):
            return _("The tunnel was not built; your cards are back in your hand.") + over, None
        if isinstance(e, StationBuilt):
            return _("You built a station in {city}.",
                     city=presenters.city_name(map_id, e.city)) + over, None
        if isinstance(e, HarborBuilt):
            return (_("You built a harbor in {city}.", city=presenters.city_name(map_id, e.city))
                    + f"\n{presenters.pieces_text(map_id, after)}{over}", None)
        if isinstance(e, PiecesExchanged) and isinstance(action, ExchangePieces):
            took = (_n("You took {n} train for {n} ship from your reserve ({minus} point).",
                       "You took {n} trains for {n} ships from your reserve ({minus} points).",
                       e.count, minus=e.points) if action.trains > 0 else
                    _n("You took {n} ship for {n} train from your reserve ({minus} point).",
                       "You took {n} ships for {n} trains from your reserve ({minus} points).",
                       e.count, minus=e.points))
            return took + f"\n{presenters.pieces_text(map_id, after)}{over}", None
    return _("Done.") + over, None


async def perform(interaction: discord.Interaction[Any], game_id: int, action: Action | Pick, *,
                  expect_version: int | None = None, responder: Responder | None = None) -> None:
    """Apply an action for the interaction's user and answer them privately."""
    responder = responder or Responder(interaction)
    service = bot_of(interaction).service
    if service.busy(game_id):
        await responder.defer()  # someone else's action is being stored: do not miss 3 s

    async def reply(outcome: Outcome) -> None:
        text, view = _answer(outcome)
        await responder.send(text, view=view)

    try:
        await service.act(game_id, interaction.user.id, action, expect_version=expect_version,
                          reply=reply, in_dm=interaction.guild_id is None)
    except Refusal as exc:
        refused(exc, interaction, game_id)
        if not isinstance(action, KeepTickets) and await _offer_again(interaction, game_id,
                                                                      str(exc)):
            return
        # A new private message: editing would take the controls away from a retry.
        await refuse_late(interaction, str(exc))


async def _offer_again(interaction: discord.Interaction[Any], game_id: int, why: str) -> bool:
    """After a refusal: if the player owes a ticket choice, show the offer again with its
    select (the likeliest reason for the refusal) and say where it also is."""
    info = await bot_of(interaction).service.info(game_id)
    seat = info.seat_of(interaction.user.id)
    if info.state is None or seat is None:
        return False
    private = engine.private_view(info.state, seat)
    if not private.offered:
        return False
    text = "\n".join([why, _("👉 First choose which tickets to keep (also under **My "
                              "hand**):"), presenters.hand_text(info.row.map_id, private)])
    await refuse_late(interaction, text, view=components.private_view_controls(
        game_id, info.row.map_id, private, engine.public_view(info.state), info.state.version))
    return True


# -- building by clicks (bot.claiming) ------------------------------------------------------


async def _builder(interaction: discord.Interaction[Any], game_id: int, kind: str,
                   version: int | None) -> tuple[str, int, engine.GameState]:
    """Map, seat and state of a player who may build ``kind`` now, else a ``Refusal`` that
    says why (not their turn, mid-turn, an older list)."""
    info = await bot_of(interaction).service.info(game_id)
    seat, state = seated(info, interaction.user.id)
    if info.row.status != "running" or state.phase == Phase.GAME_OVER:
        raise Refusal(_("The game is over."), "game over")
    if kind not in presenters.build_kinds(info.row.map_id):
        raise Refusal(_("This map has no stations.") if kind == "station"
                      else _("This map has no harbors."))
    if version is not None and version != state.version:
        raise Refusal(_("That list is out of date: press **{button}** again.",
                        button=_(presenters.BUILD_BUTTONS[kind])), "out of date")
    if state.current != seat or state.phase not in (Phase.TURN, Phase.SECOND_DRAW):
        waiting = engine.waiting_for(state)
        if seat in waiting:  # a decision of theirs comes first (tickets, a share, a tunnel)
            raise Refusal(_("First finish what you are deciding: press **My hand**."),
                          "not now")
        names = ", ".join(presenters.safe_name(info.seats[s].name) for s in waiting)
        raise Refusal(_("It is not your turn: waiting for {names}.", names=names), "not now")
    if state.phase == Phase.SECOND_DRAW:
        raise Refusal(_("You are drawing cards this turn: take your second card first."),
                      "not now")
    return info.row.map_id, seat, state


async def open_picker(interaction: discord.Interaction[Any], game_id: int, kind: str,
                      page: int = 0, version: int | None = None,
                      responder: Responder | None = None) -> None:
    """The private list of what the player can build now (one page of it)."""
    map_id, seat, state = await _builder(interaction, game_id, kind, version)
    found = claiming.targets(state, seat, kind)
    if not found:
        raise Refusal(presenters.NOTHING_TO_BUILD[kind], "nothing to build")
    pages = claiming.pages(found)
    page = min(max(page, 0), pages - 1)
    await (responder or Responder(interaction)).send(
        presenters.picker_text(kind, page, pages, useful=any(t.useful for t in found)),
        view=components.picker_view(game_id, map_id, kind, state.version, found, page))


async def pick_target(interaction: discord.Interaction[Any], game_id: int, kind: str,
                      version: int | None, values: list[str], responder: Responder) -> None:
    """A route or city chosen from the list: built at once if one colour can pay, else the
    ways to pay are asked."""
    map_id, seat, state = await _builder(interaction, game_id, kind, version)
    chosen = claiming.target(state, seat, kind, values[0]) if len(values) == 1 else None
    if chosen is None:
        raise Refusal(_("You cannot build that now: press **{button}** again.",
                        button=_(presenters.BUILD_BUTTONS[kind])))
    if len(chosen.payments) == 1:
        await perform(interaction, game_id, chosen.payments[0], expect_version=version,
                      responder=responder)
        return
    await responder.send(presenters.payment_text(chosen.label),
                         view=components.payment_view(game_id, map_id, kind, state.version,
                                                      chosen))


async def pay_target(interaction: discord.Interaction[Any], game_id: int, kind: str,
                     number: int, version: int | None, values: list[str],
                     responder: Responder) -> None:
    """A payment chosen for route ``number`` (or the city of that index): the engine judges
    it like any other."""
    cards = claiming.payment_cards(values[0]) if len(values) == 1 else None
    if cards is None:
        raise Refusal(_("Choose how to pay from the list."))
    map_id = (await bot_of(interaction).service.info(game_id)).row.map_id
    action: Action
    if kind == "claim":
        action = Claim(route=number, cards=cards)
    else:
        cities = load_map(map_id).cities
        if not 0 <= number < len(cities):
            raise Refusal(_("That control is not valid (any more)."))
        action = (BuildStation if kind == "station" else BuildHarbor)(
            city=cities[number].id, cards=cards)
    await perform(interaction, game_id, action, expect_version=version, responder=responder)


async def show_hand(interaction: discord.Interaction[Any], game_id: int) -> None:
    bot = bot_of(interaction)
    info = await bot.service.info(game_id)
    seat, state = seated(info, interaction.user.id)
    private = engine.private_view(state, seat)
    public = engine.public_view(state)
    choices = decisions(state, seat)
    tunnel = tunnel_hand(state, seat)
    controls = components.private_view_controls(
        game_id, info.row.map_id, private, public, state.version, choices,
        tunnel_payable=tunnel is None or tunnel.payable)
    if tunnel is not None and public.tunnel is not None:
        text = presenters.tunnel_prompt(info.row.map_id, public.tunnel, private, tunnel.hand,
                                        tunnel.payable)
    else:
        text = presenters.hand_text(info.row.map_id, private)
    if choices:
        now = presenters.decision_text(public, private, draft_round(state))
        text += "\n" + _("👉 Now {what}:", what=now)
    if public.phase == Phase.TURN and public.current == seat:
        text += "\n" + presenters.turn_controls(info.row.map_id)
        controls = components.with_row(controls, components.build_buttons(
            game_id, info.row.map_id, row=3))
    text += "\n" + _(presenters.UNDO_HELP)  # its button is below
    plans = presenters.ticket_plans(public, private)
    if plans:  # last: a clipped long reply loses the plan, never the decision
        text += "\n" + presenters.planner_text(info.row.map_id, plans)
    controls = components.with_row(controls, [*components.seat_buttons(
        game_id, state.version, autopilot=not info.controller(seat).human),
        order_controls.panel_button(game_id)])
    controls = await away.offer_back(bot.service.storage, interaction.user.id,
                                     bot.service.clock.now(), controls)
    png = await bot.renderer.draw_hand(private, info.row.map_id, public=public)
    await Responder(interaction).send(
        text, view=controls,
        files=[discord.File(io.BytesIO(png), filename="hand.png")])


async def draw(interaction: discord.Interaction[Any], game_id: int, card: str,
               refill: str | None = None) -> None:
    text = card.strip().lower()
    info = await bot_of(interaction).service.info(game_id)
    _seat, state = seated(info, interaction.user.id)
    rs = presenters.two_decks(info.row.map_id)
    if text in ("train", "trains", "train deck", "ship", "ships", "ship deck") and rs:
        await perform(interaction, game_id, DrawBlind(deck="ship" if "ship" in text else "train"))
        return
    if text in ("deck", "blind", "d", "0"):
        if rs:
            raise Refusal(_("Say `train` or `ship`: which deck to draw from."))
        await perform(interaction, game_id, DrawBlind())
        return
    market = engine.public_view(state).market
    slot = int(text) - 1 if text.isdigit() and 1 <= int(text) <= 9 else None
    if slot is None and text in market:
        slot = market.index(text)
    if slot is None:
        raise Refusal(_("Say `train`, `ship` or a market slot from 1 to {n}.", n=len(market))
                      if rs else _("Say `deck` or a market slot from 1 to {n}.", n=len(market)))
    if refill is not None and refill not in ("train", "ship"):
        raise Refusal(_("The refill deck is `train` or `ship`."))
    await draw_face_up(interaction, game_id, slot, state.version, Responder(interaction),
                       refill=refill, typed=True)


async def draw_face_up(interaction: discord.Interaction[Any], game_id: int, slot: int,
                       version: int | None, responder: Responder, *,
                       refill: str | None = None, typed: bool = False) -> None:
    """Take a face-up card. On Rails & Sails the taker chooses which deck refills the
    slot: without ``refill`` (and with both decks to choose from) the answer asks, with
    two buttons drawn for ``version``, and nothing is taken yet. A ``typed`` command is
    not refused as out of date (only buttons are)."""
    service = bot_of(interaction).service
    info = await service.info(game_id)
    seat = info.seat_of(interaction.user.id)
    state = info.state
    if (refill is None and state is not None and seat is not None
            and presenters.two_decks(info.row.map_id) and version == state.version):
        refills = sorted({a.refill for a in engine.legal_actions(state, seat)
                          if isinstance(a, DrawFaceUp) and a.slot == slot and a.refill})
        if len(refills) > 1:
            view = engine.public_view(state)
            card = presenters.card_label(view.map_id, view.market[slot] or "")
            await responder.send(
                _("You take {slot}: {card}. Which deck refills the market?", slot=slot + 1,
                  card=card),
                view=components.with_controls(
                    components.refill_buttons(game_id, view, version, slot)))
            return
        refill = refills[0] if refills else None
    action = DrawFaceUp(slot=slot, refill="ship" if refill == "ship" else
                        "train" if refill == "train" else None)
    await perform(interaction, game_id, action, expect_version=None if typed else version,
                  responder=responder)


def resolve_routes(map_id: str, text: str) -> list[int]:
    """Route ids from an autocomplete value ('12') or typed city names ('paris wien')."""
    text = text.strip()
    if text.isdigit() and any(r.id == int(text) for r in load_map(map_id).routes):
        return [int(text)]
    words = text.lower().replace("–", " ").replace("-", " ").split()
    hits = [r.id for r in load_map(map_id).routes
            if words and all(w in presenters.route_label(map_id, r.id).lower() for w in words)]
    if not hits:
        raise Refusal(_("No route matches {text}: pick one from the list.",
                        text=presenters.echo(text)))
    return hits


def typed_colour(map_id: str, text: str | None) -> str | None:
    """The engine's colour for what a member typed: its id ('red'), or its name in any of
    the bot's languages ('rot', 'Lokomotive'); else the text as typed, which the engine
    then refuses with its own explanation."""
    if not text or not text.strip():
        return None
    typed = text.strip().lower()
    colours = [*load_map(map_id).rules.deck.colors, "locomotive"]
    for lang in i18n.LANGUAGES:
        with i18n.language(lang):
            for colour in colours:
                if typed in {colour, _(colour).lower(),
                             presenters.card_label(map_id, colour).lower()}:
                    return colour
    return typed


async def claim(interaction: discord.Interaction[Any], game_id: int, route_text: str,
                colour: str | None, locomotives: int | None) -> None:
    info = await bot_of(interaction).service.info(game_id)
    seat, state = seated(info, interaction.user.id)
    map_id = info.row.map_id
    colour = typed_colour(map_id, colour)
    routes = resolve_routes(map_id, route_text)
    claims = [a for a in engine.legal_actions(state, seat) if isinstance(a, Claim)]
    # Typed names may fit both routes of a double: take the one that can be paid.
    route_id = next((r for r in routes if any(a.route == r for a in claims)), routes[0])
    legal = [a for a in claims if a.route == route_id]
    if colour is None and len({claim_colour(a.cards) for a in legal}) > 1:
        raise Refusal(_("You can pay this route in several colours: choose one with `colour`."))
    picked = [a for a in legal if colour is None or claim_colour(a.cards) == colour]
    route = presenters.route(map_id, route_id)
    if locomotives is not None:  # the map's way to pay with that many wild cards
        paint = colour or (claim_colour(picked[0].cards) if picked else route.color)
        action = Claim(route=route_id,
                       cards=engine.payment_with(state, seat, route_id, paint, locomotives))
    elif picked:
        action = picked[0]
    else:
        # Not payable as asked: the engine explains why (claimed, trains, cards).
        action = Claim(route=route_id, cards={colour: route.length} if colour else {})
    await perform(interaction, game_id, action)


async def _build_in_city(interaction: discord.Interaction[Any], game_id: int, city: str,
                         colour: str | None, kind: type[BuildStation] | type[BuildHarbor]) -> None:
    """A station or harbor in ``city``, paid in ``colour`` (or the cheapest legal way)."""
    info = await bot_of(interaction).service.info(game_id)
    seat, state = seated(info, interaction.user.id)
    city_id = resolve_city(info.row.map_id, city)
    colour = typed_colour(info.row.map_id, colour)
    legal = [a for a in engine.legal_actions(state, seat)
             if isinstance(a, kind) and a.city == city_id
             and (colour is None or claim_colour(a.cards) == colour)]
    if colour is None and len({claim_colour(a.cards) for a in legal}) > 1:
        raise Refusal(_("You can pay for it in several colours: choose one with `colour`."))
    # Nothing payable as asked: the engine explains where it may be built and what it costs.
    action = legal[0] if legal else kind(city=city_id, cards={})
    await perform(interaction, game_id, action)


async def station(interaction: discord.Interaction[Any], game_id: int, city: str,
                  colour: str | None) -> None:
    await _build_in_city(interaction, game_id, city, colour, BuildStation)


async def harbor(interaction: discord.Interaction[Any], game_id: int, city: str,
                 colour: str | None) -> None:
    await _build_in_city(interaction, game_id, city, colour, BuildHarbor)


async def exchange(interaction: discord.Interaction[Any], game_id: int, trains: int) -> None:
    """``/ttr exchange``: the secret split at setup (right after the tickets), else a swap."""
    info = await bot_of(interaction).service.info(game_id)
    if not presenters.two_decks(info.row.map_id):
        raise Refusal(_("This map has no pieces to exchange (only Rails & Sails has)."))
    early = (Phase.CHOOSE_INITIAL_TICKETS, Phase.CHOOSE_PIECES)
    if info.state is not None and info.state.phase in early:
        await _choose_pieces(interaction, game_id, info.row.map_id, trains)
    else:
        await perform(interaction, game_id, ExchangePieces(trains=trains))


async def _choose_pieces(interaction: discord.Interaction[Any], game_id: int, map_id: str,
                         trains: int) -> None:
    rs = load_map(map_id).rules.rails_and_sails
    if rs is None:
        raise Refusal(_("This map has no choice of pieces."))
    if not 0 <= trains <= rs.pieces:
        raise Refusal(_("Choose from 0 to {n} trains (at most {most}).", n=rs.pieces,
                        most=rs.max_trains))
    await perform(interaction, game_id, ChoosePieces(trains=trains, ships=rs.pieces - trains))


def resolve_city(map_id: str, text: str) -> str:
    text = text.strip().lower()
    cities = load_map(map_id).cities
    for c in cities:
        if text in (c.id, c.name.lower()):
            return c.id
    hits = [c.id for c in cities if text and text in c.name.lower()]
    if len(hits) == 1:
        return hits[0]
    raise Refusal(_("No single city matches {text}: pick one from the list.",
                    text=presenters.echo(text)))


async def tickets(interaction: discord.Interaction[Any], game_id: int) -> None:
    info = await bot_of(interaction).service.info(game_id)
    seat, state = seated(info, interaction.user.id)
    private = engine.private_view(state, seat)
    if private.offered:  # a choice is waiting: show it again rather than drawing
        await Responder(interaction).send(
            presenters.hand_text(info.row.map_id, private),
            view=components.private_view_controls(
                game_id, info.row.map_id, private, engine.public_view(state), state.version))
        return
    await perform(interaction, game_id, DrawTickets())


# -- settings -------------------------------------------------------------------------------


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
            raise Refusal(presenters.invalid_setting(
                str(exc.errors()[0]["loc"][0]), presenters.setting_problem(exc))) from None
        await storage.save_player_settings(user_id, settings)
    # The answer is in the language just chosen.
    with i18n.language(await private_language(interaction)):
        await Responder(interaction).send(presenters.player_settings_text(
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
        raise Refusal(_(presenters.CONFIG_REFUSED))
    storage = bot_of(interaction).service.storage
    settings = await storage.server_settings(guild_id)
    if setting is not None:
        if value is None:
            raise Refusal(_("Give the new `value` for `{name}`.", name=setting[:40]))
        try:
            settings = settings.with_value(setting, value)
        except ValidationError as exc:
            problem = presenters.setting_problem(exc)
            if ServerSettings.optional(setting):
                problem = presenters.setting_off_hint(problem)
            raise Refusal(presenters.invalid_setting(setting, problem)) from None
        except ValueError:  # not a setting (the choices offer only settings)
            raise Refusal(_("There is no setting `{name}`.", name=setting[:40])) from None
        if setting == "chronicle_channel" and settings.chronicle_channel is not None:
            await _check_chronicle(interaction, guild_id, settings.chronicle_channel)
        await storage.save_server_settings(guild_id, settings)
    values = [(name, _(meaning), getattr(settings, name))
              for name, meaning in ServerSettings.configurable().items()]
    await Responder(interaction).send(presenters.server_settings_text(values, changed=setting))


async def _check_chronicle(interaction: discord.Interaction[Any], guild_id: int,
                           channel_id: int) -> None:
    """A chronicle channel must be one of this server's that the bot can see."""
    try:
        data = await interaction.client.http.get_channel(channel_id)
    except discord.HTTPException:
        raise Refusal(presenters.invalid_setting("chronicle_channel", _(
            "I cannot see that channel: I need View Channel, Send Messages and Attach Files "
            "there"))) from None
    if str(data.get("guild_id")) != str(guild_id):
        raise Refusal(presenters.invalid_setting("chronicle_channel", _(
            "name a channel of this server, like #ttr-chronicle")))


# -- components ------------------------------------------------------------------------------


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
