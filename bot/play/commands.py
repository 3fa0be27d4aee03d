"""The commands of a turn: ``/ttr board``, ``hand``, ``draw``, ``claim``, ``tickets``,
``station``, ``harbor``, ``exchange``, ``status`` and ``rules``, and their autocomplete.

Autocomplete offers only what the engine says is legal now for the asking
player (``engine.legal_actions``): routes they can claim with the colours they
can pay with (and how), cities where they can build a station or a harbor,
market slots and decks.
"""

from __future__ import annotations

import io
from typing import Any

import discord
from discord import app_commands

import engine
from bot.edge import interactions
from bot.edge.interactions import Responder, bot_of, channel_game, guarded
from bot.edge.options import (
    MAP_CHOICES,
    Choice,
    in_member_language,
    matches,
    on_channel_game,
)
from bot.game.games import GameInfo, Refusal, seated_view
from bot.i18n import _
from bot.lobby import lobby_texts
from bot.play import handlers, presenters
from bot.play.claiming import claim_colour
from bot.play.decisions import decisions, draft_round
from bot.seats import away, seat_texts
from engine import Action, BuildHarbor, BuildStation, Claim, GameState
from engine.phases import Phase
from maps import load_map

EARLY_ENDS = ("ended", "abandoned")  # games stopped before their end: no board, no turn


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


def _colour_name(map_id: str, colour: str) -> str:
    """A payment's colour ('red', 'locomotive') as players read it."""
    return presenters.card_label(map_id, colour) if colour == "locomotive" else _(colour)


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
            if matches(current, label)][:25]


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
    return [Choice(name=n, value=c) for n, c in named if matches(current, n)][:25]


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
    return [c for c in options if matches(current, c.name)]


async def _played_state(interaction: discord.Interaction[Any],
                        info: GameInfo) -> GameState | None:
    """The game's state; None once a lobby or a game ended early (no board, no turn) is
    answered for."""
    if info.state is None:
        await Responder(interaction).send(lobby_texts.lobby_text(info))
        return None
    if info.row.status in EARLY_ENDS:
        await Responder(interaction).send(seat_texts.ended_text(info.row.id, info.row.status,
                                                                None))
        return None
    return info.state


@app_commands.command(name="board", description="Show the board with its buttons")
async def board(interaction: discord.Interaction[Any]) -> None:
    async def run() -> None:
        info = await channel_game(interaction, active_only=False)
        state = await _played_state(interaction, info)
        if state is None:
            return
        view = engine.public_view(state)
        if view.phase != Phase.GAME_OVER:
            # The table message (board, whose turn, buttons) moves to the bottom.
            await interaction.response.defer(ephemeral=True, thinking=True)
            await bot_of(interaction).service.repost_table(info.row.id)
            await Responder(interaction).send(presenters.status_text(
                view, waiting=engine.waiting_for(state), draft=draft_round(state)))
            return
        await interaction.response.defer(thinking=True)
        png = await bot_of(interaction).renderer.draw_final(view)
        parts = presenters.chunks(presenters.final_text(view))
        await interaction.followup.send(
            parts[0], file=discord.File(io.BytesIO(png), filename="final.png"),
            allowed_mentions=interactions.NO_MENTIONS)
        for part in parts[1:]:
            await interaction.followup.send(part, allowed_mentions=interactions.NO_MENTIONS)
    await guarded(interaction, run())


@app_commands.command(name="hand", description="Your cards and tickets (only you see them)")
async def hand(interaction: discord.Interaction[Any]) -> None:
    await on_channel_game(interaction, lambda gid: handlers.show_hand(interaction, gid))


@app_commands.command(name="draw", description="Draw a card: a market slot or a deck")
@app_commands.describe(card="'deck' (Rails & Sails: 'train' or 'ship') or a market slot",
                       refill="Rails & Sails: the deck that refills the slot you take")
@app_commands.autocomplete(card=card_autocomplete)
@app_commands.choices(refill=[Choice(name="train deck", value="train"),
                              Choice(name="ship deck", value="ship")])
async def draw(interaction: discord.Interaction[Any], card: str,
               refill: Choice[str] | None = None) -> None:
    await on_channel_game(interaction, lambda gid: handlers.draw(
        interaction, gid, card, refill.value if refill else None))


@app_commands.command(name="claim", description="Claim a route")
@app_commands.describe(route="A route you can pay for now", colour="The colour to pay with",
                       locomotives="How many locomotives (Rails & Sails: jokers) to use "
                                   "(default: as few as possible)")
@app_commands.autocomplete(route=route_autocomplete, colour=colour_autocomplete)
async def claim(interaction: discord.Interaction[Any], route: str, colour: str | None = None,
                locomotives: app_commands.Range[int, 0, 9] | None = None) -> None:
    await on_channel_game(interaction, lambda gid: handlers.claim(
        interaction, gid, route, colour, locomotives))


@app_commands.command(name="tickets", description="Draw destination tickets (or see the offer)")
async def tickets(interaction: discord.Interaction[Any]) -> None:
    await on_channel_game(interaction, lambda gid: handlers.tickets(interaction, gid))


@app_commands.command(name="station", description="Build a station (maps with stations)")
@app_commands.describe(city="A city without a station", colour="The colour to pay with")
@app_commands.autocomplete(city=city_autocomplete, colour=colour_autocomplete)
async def station(interaction: discord.Interaction[Any], city: str,
                  colour: str | None = None) -> None:
    async def run() -> None:
        info = await channel_game(interaction)
        if load_map(info.row.map_id).rules.stations is None:
            raise Refusal(_("This map has no stations."))
        await handlers.station(interaction, info.row.id, city, colour)
    await guarded(interaction, run())


@app_commands.command(name="harbor", description="Rails & Sails: build a harbor")
@app_commands.describe(city="A harbor city your routes reach", colour="The colour to pay with")
@app_commands.autocomplete(city=harbor_city_autocomplete, colour=colour_autocomplete)
async def harbor(interaction: discord.Interaction[Any], city: str,
                 colour: str | None = None) -> None:
    async def run() -> None:
        info = await channel_game(interaction)
        if not presenters.two_decks(info.row.map_id):
            raise Refusal(_("This map has no harbors."))
        await handlers.harbor(interaction, info.row.id, city, colour)
    await guarded(interaction, run())


# One command for both Rails & Sails piece decisions: the secret split at setup, swaps
# with the reserve later.
@app_commands.command(name="exchange",
                      description="Rails & Sails: your secret split at setup; later swap "
                                  "pieces with your reserve (−1 point each)")
@app_commands.describe(trains="At setup: how many of your 60 pieces are trains. Later: +n "
                              "takes n trains for n ships, -n n ships for n trains")
async def exchange(interaction: discord.Interaction[Any],
                   trains: app_commands.Range[int, -60, 60]) -> None:
    await on_channel_game(interaction, lambda gid: handlers.exchange(interaction, gid, trains))


@app_commands.command(name="status", description="Whose turn it is and what they must decide")
async def status(interaction: discord.Interaction[Any]) -> None:
    async def run() -> None:
        info = await channel_game(interaction, active_only=False)
        state = await _played_state(interaction, info)
        if state is None:
            return
        waiting = engine.waiting_for(state)
        text = presenters.status_text(seated_view(state, [s.name for s in info.seats]),
                                      waiting=waiting,
                                      draft=draft_round(state))
        # Who is away says why their turns pass by themselves, or wait.
        service = bot_of(interaction).service
        absent = await away.absences(service.storage, info.row.guild_id, info.seats,
                                     service.clock.now())
        text += "".join("\n" + line for line in away.table_lines(info.seats, absent))
        seat = info.seat_of(interaction.user.id)
        if seat is not None and seat in waiting:
            text += "\n" + _("👉 You must act now: press **My hand** or use the commands.")
            # Only the chooser reads the options (this answer is ephemeral).
            options = [presenters.choice_label(info.row.map_id, a)
                       for a in decisions(state, seat)]
            if options:
                text += "\n" + _("Your options: {options}.", options=" · ".join(options))
        await Responder(interaction).send(text)
    await guarded(interaction, run())


@app_commands.command(name="rules", description="The rules of this channel's map, in short")
@app_commands.describe(map="The map (default: this channel's game, else the first offered)")
@app_commands.choices(map=MAP_CHOICES)
async def rules(interaction: discord.Interaction[Any],
                map: Choice[str] | None = None) -> None:
    async def run() -> None:
        if map is not None:
            map_id = map.value
        else:
            try:
                map_id = (await channel_game(interaction, active_only=False)).row.map_id
            except Refusal:  # no game here: the first map this server offers
                service = bot_of(interaction).service
                server = await service.storage.server_settings(interaction.guild_id)
                map_id = next((m for m in service.maps if server.offers(m)), service.maps[0])
        await Responder(interaction).send(presenters.rules_text(map_id))
    await guarded(interaction, run())


COMMANDS: tuple[app_commands.Command[Any, ..., None], ...] = (
    board, hand, draw, claim, tickets, station, harbor, exchange, status, rules)
