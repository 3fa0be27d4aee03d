"""The ``/ttr`` slash command group and its autocomplete.

Autocomplete offers only what the engine says is legal now for the asking
player (``engine.legal_actions``): routes they can claim with the colours they
can pay with (and how), cities where they can build a station or a harbor,
market slots and decks.
"""

from __future__ import annotations

import functools
import io
import logging
import zoneinfo
from collections.abc import Callable, Coroutine
from typing import Any

import discord
from discord import app_commands

import engine
from bot import i18n
from bot.game.games import Refusal, seated_view
from bot.i18n import _
from bot.play import handlers, presenters
from bot.play.claiming import claim_colour
from bot.play.decisions import decisions, draft_round
from bot.play.estimates import estimated_parts
from bot.play.handlers import Responder, bot_of, channel_game
from bot.records import commands as records
from bot.settings.preferences import GameSettings, ServerSettings
from engine import Action, BuildHarbor, BuildStation, Claim, GameState
from engine.phases import Phase
from engine.players import LEVELS
from maps import load_map

log = logging.getLogger(__name__)
Choice = app_commands.Choice
EARLY_ENDS = ("ended", "abandoned")  # games stopped before their end: no board, no turn
Suggest = Callable[[discord.Interaction[Any], str], Coroutine[Any, Any, list[Choice[str]]]]

# Each language by its own name.
LANGUAGE_CHOICES = [Choice(name="English", value="en"), Choice(name="Deutsch", value="de")]


_guarded = handlers.guarded
# Where a command tree string is a name (lowercase, no spaces): translated apart from texts.
NAME_LOCATIONS = (app_commands.TranslationContextLocation.command_name,
          app_commands.TranslationContextLocation.group_name,
          app_commands.TranslationContextLocation.parameter_name)


class CommandTranslator(app_commands.Translator):
    """Command, option and choice names and descriptions from the message catalog, for
    each Discord locale of a language the bot speaks (sent to Discord at a sync)."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = i18n.of_locale(locale)
        if lang is None or lang == i18n.DEFAULT:
            return None
        if context.location in NAME_LOCATIONS:
            return i18n.name(string.message, lang)
        text = i18n.translate(string.message, {}, lang)
        return text if text != string.message else None


async def _my_game(interaction: discord.Interaction[Any]) -> tuple[str, GameState, int] | None:
    """Map, state and seat of the asking player in this channel's running game, or None
    (then autocomplete offers nothing)."""
    try:
        info = await channel_game(interaction)
    except Refusal:
        return None
    seat = info.seat_of(interaction.user.id)
    if seat is None or info.state is None:
        return None
    return info.row.map_id, info.state, seat


async def _legal(interaction: discord.Interaction[Any]) -> tuple[str, list[Action]]:
    found = await _my_game(interaction)
    if found is None:
        return "", []
    map_id, state, seat = found
    return map_id, engine.legal_actions(state, seat)


def in_member_language(suggest: Suggest) -> Suggest:
    """An autocomplete callback whose suggestions are in the member's language (discord.py
    calls it directly, outside ``handlers.guarded``)."""
    @functools.wraps(suggest)
    async def localized(interaction: discord.Interaction[Any],
                        current: str) -> list[Choice[str]]:
        with i18n.language(await handlers.private_language(interaction)):
            return await suggest(interaction, current)
    return localized


def _colour_name(map_id: str, colour: str) -> str:
    """A payment's colour ('red', 'locomotive') as players read it."""
    return presenters.card_label(map_id, colour) if colour == "locomotive" else _(colour)


def _match(current: str, label: str) -> bool:
    words = current.lower().replace("-", " ").replace("–", " ").split()
    low = label.lower()
    return all(w in low for w in words)


@in_member_language
async def route_autocomplete(interaction: discord.Interaction[Any],
                             current: str) -> list[Choice[str]]:
    map_id, legal = await _legal(interaction)
    colours: dict[int, list[str]] = {}
    for a in legal:
        if isinstance(a, Claim):
            paint = _colour_name(map_id, claim_colour(a.cards))
            if presenters.two_decks(map_id):  # trains or ships, doubles, jokers: say how
                paint = f"{paint}: {presenters.cards_text(map_id, a.cards)}"
            colours.setdefault(a.route, []).append(paint)
    labels = [(f"{presenters.route_label(map_id, r)} — {'; '.join(paints)}", r)
              for r, paints in colours.items()]
    return [Choice(name=label[:100], value=str(r)) for label, r in labels
            if _match(current, label)][:25]


@in_member_language
async def colour_autocomplete(interaction: discord.Interaction[Any],
                              current: str) -> list[Choice[str]]:
    """Colours for the route (``/ttr claim``) or city (``/ttr station``, ``/ttr harbor``)
    already chosen."""
    map_id, legal = await _legal(interaction)
    ns = interaction.namespace
    route, city = str(getattr(ns, "route", "")), getattr(ns, "city", None)
    out = []
    for a in legal:
        if (isinstance(a, Claim) and str(a.route) == route) or (
                isinstance(a, BuildStation | BuildHarbor) and a.city == city):
            colour = claim_colour(a.cards)
            name = _colour_name(map_id, colour)
            if current.lower() in colour or current.lower() in name.lower():
                label = _("{colour} (pay {cards})", colour=name,
                          cards=presenters.cards_text(map_id, a.cards))
                out.append(Choice(name=label[:100], value=colour))
    return out[:25]


async def _cities(interaction: discord.Interaction[Any], current: str,
                  kind: type[BuildStation] | type[BuildHarbor]) -> list[Choice[str]]:
    map_id, legal = await _legal(interaction)
    cities = {a.city for a in legal if isinstance(a, kind)}
    named = sorted((presenters.city_name(map_id, c), c) for c in cities)
    return [Choice(name=n, value=c) for n, c in named if _match(current, n)][:25]


@in_member_language
async def city_autocomplete(interaction: discord.Interaction[Any],
                            current: str) -> list[Choice[str]]:
    return await _cities(interaction, current, BuildStation)


@in_member_language
async def harbor_city_autocomplete(interaction: discord.Interaction[Any],
                                   current: str) -> list[Choice[str]]:
    return await _cities(interaction, current, BuildHarbor)


@in_member_language
async def card_autocomplete(interaction: discord.Interaction[Any],
                            current: str) -> list[Choice[str]]:
    found = await _my_game(interaction)
    if found is not None and presenters.two_decks(found[0]):
        options = [Choice(name=_("The train deck (blind)"), value="train"),
                   Choice(name=_("The ship deck (blind)"), value="ship")]
    else:
        options = [Choice(name=_("The deck (blind)"), value="deck")]
    if found is not None:
        market = engine.public_view(found[1]).market
        options += [Choice(name=_("Slot {n}: {card}", n=i + 1,
                                  card=presenters.card_label(found[0], c)), value=str(i + 1))
                    for i, c in enumerate(market) if c]
    return [c for c in options if _match(current, c.name)]


async def timezone_autocomplete(interaction: discord.Interaction[Any],
                                current: str) -> list[Choice[str]]:
    return [Choice(name=z, value=z) for z in _zones() if _match(current.replace("/", " "), z)][:25]


@functools.cache
def _zones() -> list[str]:
    return sorted(zoneinfo.available_timezones())


def build_admin_group() -> app_commands.Group:
    """``/ttr-admin``: its own top-level group, since Discord applies
    ``default_member_permissions`` to top-level commands only; hidden from members
    without Manage Server (and checked again when it runs)."""
    group = app_commands.Group(name="ttr-admin", description="Ticket to Ride: server settings",
                               guild_only=True,
                               default_permissions=discord.Permissions(manage_guild=True))
    # The name alone: a meaning cut at Discord's 100 characters lost its values (the list
    # that `/ttr-admin config` shows explains each in full).
    settings = [Choice(name=name, value=name) for name in ServerSettings.configurable()]

    @group.command(name="config", description="Show or change this server's game settings")
    @app_commands.describe(setting="The setting to change (none: show them all)",
                           value="Its new value ('off' clears an optional one)")
    @app_commands.choices(setting=settings)
    async def config(interaction: discord.Interaction[Any], setting: Choice[str] | None = None,
                     value: str | None = None) -> None:
        await _guarded(interaction, handlers.server_config(
            interaction, setting.value if setting else None, value))

    return group


@in_member_language
async def seat_autocomplete(interaction: discord.Interaction[Any],
                            current: str) -> list[Choice[str]]:
    try:
        info = await channel_game(interaction)
    except Refusal:
        return []
    labels = [(presenters.seat_label(s.seat, s.name, s.controller), str(s.seat + 1))
              for s in info.seats]
    return [Choice(name=label[:100], value=v) for label, v in labels if _match(current, label)]


def _map_label(map_id: str) -> str:
    """The map's choice in ``/ttr new`` (a message id: the translator finds its German)."""
    m = load_map(map_id)
    players = f"{m.rules.players_min}–{m.rules.players_max} players"
    if estimated_parts(m):  # players learn here that part of the data is estimated
        return f"{m.name} ({players}; some data estimated, see /ttr rules)"
    return f"{m.name} ({players})"


def build_group(maps: list[str]) -> app_commands.Group:
    group = app_commands.Group(name="ttr", description="Play Ticket to Ride",
                               guild_only=True)
    map_choices = [Choice(name=_map_label(m), value=m) for m in maps][:25]

    async def game_id(interaction: discord.Interaction[Any]) -> int:
        return (await channel_game(interaction)).row.id

    @group.command(name="new", description="Open a game lobby in this channel")
    @app_commands.describe(map="The board", players="Most players (default: the map's limit)",
                           thread="Open a thread for the game (default: the server's setting)",
                           reminder="Hours before the player to act is reminded "
                                    "(default: the server's, 12)",
                           timer="Hours per turn before the bot plays it (0: no timer; "
                                 "default: the server's)",
                           language="The language of the game's posts (default: the server's)")
    @app_commands.choices(map=map_choices, language=LANGUAGE_CHOICES)
    async def new(interaction: discord.Interaction[Any], map: Choice[str],
                  players: app_commands.Range[int, 2, 5] | None = None,
                  thread: bool | None = None,
                  reminder: app_commands.Range[int, 1, 336] | None = None,
                  timer: app_commands.Range[int, 0, 336] | None = None,
                  language: Choice[str] | None = None) -> None:
        settings = GameSettings(reminder_hours=reminder, turn_timer_hours=timer,
                                language=language.value if language else None)
        await _guarded(interaction, handlers.new_game(interaction, map.value, players, thread,
                                                      settings))

    @group.command(name="join", description="Take a seat in this channel's lobby")
    async def join(interaction: discord.Interaction[Any]) -> None:
        async def run() -> None:
            await handlers.join(interaction, await game_id(interaction))
        await _guarded(interaction, run())

    # /ttr has Discord's maximum of 25 subcommands: leaving a lobby is /ttr resign there
    # (and the lobby's Leave button), which leaves room for /ttr addbot.
    @group.command(name="addbot", description="Seat a computer player in this lobby (host only)")
    @app_commands.describe(level="How well it plays")
    @app_commands.choices(level=[Choice(name=level, value=level) for level in LEVELS])
    async def addbot(interaction: discord.Interaction[Any], level: Choice[str]) -> None:
        async def run() -> None:
            await handlers.add_computer(interaction, await game_id(interaction), level.value)
        await _guarded(interaction, run())

    @group.command(name="start", description="Start the game (host only)")
    async def start(interaction: discord.Interaction[Any]) -> None:
        async def run() -> None:
            await handlers.start(interaction, await game_id(interaction))
        await _guarded(interaction, run())

    @group.command(name="end", description="End this channel's game or lobby (host or admin)")
    async def end(interaction: discord.Interaction[Any]) -> None:
        async def run() -> None:
            await handlers.end(interaction, await game_id(interaction))
        await _guarded(interaction, run())

    @group.command(name="abandon", description="Vote to abandon the game (a majority ends it)")
    async def abandon(interaction: discord.Interaction[Any]) -> None:
        async def run() -> None:
            await handlers.abandon(interaction, await game_id(interaction))
        await _guarded(interaction, run())

    @group.command(name="resign",
                   description="Leave the game (a computer player takes your seat) or the lobby")
    async def resign(interaction: discord.Interaction[Any]) -> None:
        async def run() -> None:
            await handlers.resign(interaction, await game_id(interaction))
        await _guarded(interaction, run())

    @group.command(name="autopilot",
                   description="Let a computer player play your seat, or take it back")
    @app_commands.describe(mode="on: a computer plays your turns; off: you play them again")
    @app_commands.choices(mode=[Choice(name="on", value="on"), Choice(name="off", value="off")])
    async def autopilot(interaction: discord.Interaction[Any], mode: Choice[str]) -> None:
        async def run() -> None:
            await handlers.autopilot(interaction, await game_id(interaction), mode.value == "on")
        await _guarded(interaction, run())

    @group.command(name="replace",
                   description="Hand a seat to a member who is not playing (host or admin)")
    @app_commands.describe(member="Who takes the seat",
                           seat="Whose seat (default: the one a computer plays)")
    @app_commands.autocomplete(seat=seat_autocomplete)
    async def replace(interaction: discord.Interaction[Any], member: discord.Member,
                      seat: str | None = None) -> None:
        async def run() -> None:
            await handlers.replace(interaction, await game_id(interaction), member, seat)
        await _guarded(interaction, run())

    @group.command(name="board", description="Show the board with its buttons")
    async def board(interaction: discord.Interaction[Any]) -> None:
        async def run() -> None:
            info = await channel_game(interaction, active_only=False)
            if info.state is None:
                await Responder(interaction).send(handlers.lobby_text(info))
                return
            if info.row.status in EARLY_ENDS:
                await Responder(interaction).send(presenters.ended_text(
                    info.row.id, info.row.status, None))
                return
            view = engine.public_view(info.state)
            if view.phase != Phase.GAME_OVER:
                # The table message (board, whose turn, buttons) moves to the bottom.
                await interaction.response.defer(ephemeral=True, thinking=True)
                await bot_of(interaction).service.repost_table(info.row.id)
                await Responder(interaction).send(presenters.status_text(
                    view, waiting=engine.waiting_for(info.state), draft=draft_round(info.state)))
                return
            await interaction.response.defer(thinking=True)
            png = await bot_of(interaction).renderer.draw_final(view)
            parts = presenters.chunks(presenters.final_text(view))
            await interaction.followup.send(
                parts[0], file=discord.File(io.BytesIO(png), filename="final.png"),
                allowed_mentions=handlers.NO_MENTIONS)
            for part in parts[1:]:
                await interaction.followup.send(part, allowed_mentions=handlers.NO_MENTIONS)
        await _guarded(interaction, run())

    @group.command(name="hand", description="Your cards and tickets (only you see them)")
    async def hand(interaction: discord.Interaction[Any]) -> None:
        async def run() -> None:
            await handlers.show_hand(interaction, await game_id(interaction))
        await _guarded(interaction, run())

    @group.command(name="draw", description="Draw a card: a market slot or a deck")
    @app_commands.describe(card="'deck' (Rails & Sails: 'train' or 'ship') or a market slot",
                           refill="Rails & Sails: the deck that refills the slot you take")
    @app_commands.autocomplete(card=card_autocomplete)
    @app_commands.choices(refill=[Choice(name="train deck", value="train"),
                                  Choice(name="ship deck", value="ship")])
    async def draw(interaction: discord.Interaction[Any], card: str,
                   refill: Choice[str] | None = None) -> None:
        async def run() -> None:
            await handlers.draw(interaction, await game_id(interaction), card,
                                refill.value if refill else None)
        await _guarded(interaction, run())

    @group.command(name="claim", description="Claim a route")
    @app_commands.describe(route="A route you can pay for now", colour="The colour to pay with",
                           locomotives="How many locomotives (Rails & Sails: jokers) to use "
                                       "(default: as few as possible)")
    @app_commands.autocomplete(route=route_autocomplete, colour=colour_autocomplete)
    async def claim(interaction: discord.Interaction[Any], route: str, colour: str | None = None,
                    locomotives: app_commands.Range[int, 0, 9] | None = None) -> None:
        async def run() -> None:
            await handlers.claim(interaction, await game_id(interaction), route, colour,
                                 locomotives)
        await _guarded(interaction, run())

    @group.command(name="tickets", description="Draw destination tickets (or see the offer)")
    async def tickets(interaction: discord.Interaction[Any]) -> None:
        async def run() -> None:
            await handlers.tickets(interaction, await game_id(interaction))
        await _guarded(interaction, run())

    @group.command(name="station", description="Build a station (maps with stations)")
    @app_commands.describe(city="A city without a station", colour="The colour to pay with")
    @app_commands.autocomplete(city=city_autocomplete, colour=colour_autocomplete)
    async def station(interaction: discord.Interaction[Any], city: str,
                      colour: str | None = None) -> None:
        async def run() -> None:
            info = await channel_game(interaction)
            if load_map(info.row.map_id).rules.stations is None:
                raise Refusal(_("This map has no stations."))
            await handlers.station(interaction, info.row.id, city, colour)
        await _guarded(interaction, run())

    @group.command(name="harbor", description="Rails & Sails: build a harbor")
    @app_commands.describe(city="A harbor city your routes reach", colour="The colour to pay with")
    @app_commands.autocomplete(city=harbor_city_autocomplete, colour=colour_autocomplete)
    async def harbor(interaction: discord.Interaction[Any], city: str,
                     colour: str | None = None) -> None:
        async def run() -> None:
            info = await channel_game(interaction)
            if not presenters.two_decks(info.row.map_id):
                raise Refusal(_("This map has no harbors."))
            await handlers.harbor(interaction, info.row.id, city, colour)
        await _guarded(interaction, run())

    # One command for both Rails & Sails piece decisions keeps /ttr within Discord's 25
    # subcommands: the secret split at setup, swaps with the reserve later.
    @group.command(name="exchange",
                   description="Rails & Sails: your secret split at setup; later swap pieces "
                               "with your reserve (−1 point each)")
    @app_commands.describe(trains="At setup: how many of your 60 pieces are trains. Later: +n "
                                  "takes n trains for n ships, -n n ships for n trains")
    async def exchange(interaction: discord.Interaction[Any],
                       trains: app_commands.Range[int, -60, 60]) -> None:
        async def run() -> None:
            await handlers.exchange(interaction, await game_id(interaction), trains)
        await _guarded(interaction, run())

    @group.command(name="status", description="Whose turn it is and what they must decide")
    async def status(interaction: discord.Interaction[Any]) -> None:
        async def run() -> None:
            info = await channel_game(interaction, active_only=False)
            if info.state is None:
                await Responder(interaction).send(handlers.lobby_text(info))
                return
            if info.row.status in EARLY_ENDS:
                await Responder(interaction).send(presenters.ended_text(
                    info.row.id, info.row.status, None))
                return
            state = info.state
            waiting = engine.waiting_for(state)
            text = presenters.status_text(seated_view(state, [s.name for s in info.seats]),
                                          waiting=waiting,
                                          draft=draft_round(state))
            seat = info.seat_of(interaction.user.id)
            if seat is not None and seat in waiting:
                text += "\n" + _("👉 You must act now: press **My hand** or use the commands.")
                # Only the chooser reads the options (this answer is ephemeral).
                options = [presenters.choice_label(info.row.map_id, a)
                           for a in decisions(state, seat)]
                if options:
                    text += "\n" + _("Your options: {options}.", options=" · ".join(options))
            await Responder(interaction).send(text)
        await _guarded(interaction, run())

    @group.command(name="settings", description="Your reminders, quiet hours and DMs")
    @app_commands.describe(reminders="Remind me when a game waits for me",
                           dm_every_turn="A DM with my hand every time it is my turn",
                           timezone="My time zone, e.g. Europe/Berlin (for quiet hours)",
                           quiet_from="No reminders from this hour (0–23, my time)...",
                           quiet_to="...until this hour (the same hour twice: no quiet hours)",
                           language="The language of my private answers and DMs")
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    @app_commands.choices(language=[*LANGUAGE_CHOICES,
                                    Choice(name="My Discord's language", value="auto")])
    async def settings(interaction: discord.Interaction[Any], reminders: bool | None = None,
                       dm_every_turn: bool | None = None, timezone: str | None = None,
                       quiet_from: app_commands.Range[int, 0, 23] | None = None,
                       quiet_to: app_commands.Range[int, 0, 23] | None = None,
                       language: Choice[str] | None = None) -> None:
        await _guarded(interaction, handlers.my_settings(
            interaction, reminders=reminders, dm_every_turn=dm_every_turn, timezone=timezone,
            quiet_from=quiet_from, quiet_to=quiet_to,
            language=language.value if language else None))

    @group.command(name="rules", description="The rules of this channel's map, in short")
    @app_commands.describe(map="The map (default: this channel's game, else the first offered)")
    @app_commands.choices(map=map_choices)
    async def rules(interaction: discord.Interaction[Any],
                    map: Choice[str] | None = None) -> None:
        async def run() -> None:
            if map is not None:
                map_id = map.value
            else:
                try:
                    map_id = (await channel_game(interaction, active_only=False)).row.map_id
                except Refusal:  # no game here: the first map this server offers
                    server = await bot_of(interaction).service.storage.server_settings(
                        interaction.guild_id)
                    map_id = next((m for m in maps if server.offers(m)), maps[0])
            await Responder(interaction).send(presenters.rules_text(map_id))
        await _guarded(interaction, run())

    records.add_commands(group, map_choices)
    return group
