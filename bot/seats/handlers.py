"""What the seat commands and buttons do: ending, abandoning, undoing, resigning,
autopilot, replacing a player."""

from __future__ import annotations

from typing import Any

import discord

from bot import i18n
from bot.edge import components
from bot.edge.interactions import (
    Responder,
    acknowledge,
    bot_of,
    game_language,
    private_message,
    seated,
)
from bot.game.games import Ended, GameInfo, Refusal
from bot.i18n import _
from bot.lobby import handlers as lobby_handlers
from bot.play import presenters
from bot.seats import seat_texts


def is_admin(interaction: discord.Interaction[Any]) -> bool:
    """Manage Server or Manage Channels in this channel, as Discord says now."""
    permissions = interaction.permissions
    return permissions.manage_guild or permissions.manage_channels


async def announce_end(interaction: discord.Interaction[Any], ended: Ended, by: str) -> None:
    """Tell the channel a game ended early, with the public scores as they stood (if any):
    no winner, no secret ticket. Its open votes close; a lobby's copies say it closed."""
    info = await bot_of(interaction).service.info(ended.game_id)
    publisher = bot_of(interaction).publisher
    with i18n.language(await game_language(interaction, info)):
        text = seat_texts.ended_text(ended.game_id, ended.status, by, ended.reason)
        if ended.view is None:
            await publisher.follow_lobby(ended.game_id, text)
        else:
            text += "\n" + seat_texts.standings_text(ended.view)
    await Responder(interaction, public=True).send(text)
    await publisher.close_votes(ended.game_id, lambda vote: "over")


async def end(interaction: discord.Interaction[Any], game_id: int) -> None:
    """``/ttr end``: a private confirmation first; permissions are checked again on click."""
    info = await bot_of(interaction).service.info(game_id)
    host = next((s.name for s in info.seats if s.user_id == info.row.host_id), "?")
    if interaction.user.id != info.row.host_id and not is_admin(interaction):
        raise Refusal(seat_texts.only_host(host, "end the game", admins=True))
    await Responder(interaction).send(
        _(seat_texts.END_CONFIRM, game=game_id),
        view=components.confirm_view(game_id, "endok", _("End the game")))


async def end_confirmed(interaction: discord.Interaction[Any], game_id: int) -> None:
    user = interaction.user
    ended = await bot_of(interaction).service.end(game_id, user.id, admin=is_admin(interaction))
    await acknowledge(interaction, seat_texts.ended_text(game_id, ended.status, None,
                                                         ended.reason))
    await announce_end(interaction, ended, user.display_name)


async def abandon(interaction: discord.Interaction[Any], game_id: int) -> None:
    """``/ttr abandon`` or a click on Agree: one vote; a majority ends the game."""
    service = bot_of(interaction).service
    vote = await service.vote_abandon(game_id, interaction.user.id)
    with i18n.language(await game_language(interaction, await service.info(game_id))):
        text = seat_texts.vote_text("abandon", vote.names, vote.needed,
                                    passed=vote.ended is not None)
        view = None if vote.ended else components.vote_view(game_id, "abandon")
        tracked = seat_texts.open_vote("abandon", 0, game_id, "")
    await _post_vote(interaction, game_id, tracked, text, view,
                     clicked=interaction.type is discord.InteractionType.component,
                     open_=vote.ended is None)
    if vote.ended is not None:
        publisher = bot_of(interaction).publisher
        await publisher.close_votes(game_id, lambda v: "passed" if v.kind == "abandon" else None,
                                    {"passed": text})  # who voted, as on the clicked copy
        await announce_end(interaction, vote.ended, interaction.user.display_name)


async def _post_vote(interaction: discord.Interaction[Any], game_id: int,
                     vote: seat_texts.OpenVote, text: str, view: discord.ui.View | None, *,
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
                seat_texts.undo_confirm(subject),
                view=components.confirm_view(game_id, "undovote", _("Ask the table"), at))
            return
    vote = await service.undo(game_id, interaction.user.id, expect_version=version)
    if vote.undone:
        text = seat_texts.undone_text(vote.subject)
        if clicked:
            await interaction.response.edit_message(content=text, view=None)
        else:
            await Responder(interaction).send(text)
        return
    with i18n.language(await game_language(interaction, await service.info(game_id))):
        text = seat_texts.vote_text("undo", vote.names, vote.needed, vote.subject)
        view = components.vote_view(game_id, "undo", vote.version)
        tracked = seat_texts.open_vote("undo", vote.version, game_id, vote.subject)
    await _post_vote(interaction, game_id, tracked, text, view, clicked=clicked)


async def resign(interaction: discord.Interaction[Any], game_id: int) -> None:
    info = await bot_of(interaction).service.info(game_id)
    if info.row.status == "lobby":
        await lobby_handlers.leave(interaction, game_id)
        return
    seated(info, interaction.user.id)
    await Responder(interaction).send(
        _(seat_texts.RESIGN_CONFIRM),
        view=components.confirm_view(game_id, "resign", _("Resign")))


async def resign_confirmed(interaction: discord.Interaction[Any], game_id: int) -> None:
    user = interaction.user
    service = bot_of(interaction).service
    name = next((s.name for s in (await service.info(game_id)).seats if s.user_id == user.id),
                user.display_name)
    result = await service.resign(game_id, user.id)
    await acknowledge(interaction, _(seat_texts.RESIGNED))
    if isinstance(result, Ended):
        await announce_end(interaction, result, name)
    else:
        with i18n.language(await game_language(interaction, await service.info(game_id))):
            line = seat_texts.resigned_line(name)
        await Responder(interaction, public=True).send(line)


async def autopilot(interaction: discord.Interaction[Any], game_id: int, on: bool) -> None:
    info = await bot_of(interaction).service.autopilot(game_id, interaction.user.id, on)
    seat = info.seat_of(interaction.user.id)
    name = info.seats[seat].name if seat is not None else interaction.user.display_name
    with i18n.language(await game_language(interaction, info)):
        line = seat_texts.autopilot_line(name, on)
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
        raise Refusal(seat_texts.NOT_A_PERSON)
    service = bot_of(interaction).service
    seat = seat_from_text(await service.info(game_id), seat_text)
    await Responder(interaction).defer()  # the new player's DM and the post go out first
    _game, seat = await service.replace(
        game_id, interaction.user.id, admin=is_admin(interaction), seat=seat,
        user_id=member.id, name=member.display_name)
    await Responder(interaction).send(seat_texts.replaced_ack(member.display_name, seat))
