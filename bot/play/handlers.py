"""What the bot does for a turn's command or click: drawing, claiming, building, the hand.

These functions turn a Discord interaction into calls on the ``GameService``
and answer it. Anything a player must not see in the channel (hand, tickets,
the card drawn blind) only ever goes out through an ephemeral ``Responder``.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import discord

import engine
from bot import i18n
from bot.edge import components
from bot.edge.interactions import (
    Responder,
    bot_of,
    refuse_late,
    refused,
    seated,
)
from bot.game.games import Refusal
from bot.game.service import Outcome
from bot.i18n import _, _n
from bot.play import claiming, presenters
from bot.play.claiming import claim_colour
from bot.play.decisions import Pick, decisions, draft_round, tunnel_hand
from bot.seats import away, order_controls, seat_texts
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

# Buttons whose action takes no argument (the engine picks a tunnel's extra cards).
BUTTON_ACTIONS: dict[str, Callable[[], Action]] = {
    "blind": DrawBlind, "shipdeck": lambda: DrawBlind(deck="ship"), "tickets": DrawTickets,
    "pay": PayTunnel, "decline": DeclineTunnel,
}

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
    text += "\n" + _(seat_texts.UNDO_HELP)  # its button is below
    plans = presenters.ticket_plans(public, private)
    if plans:  # last: a clipped long reply loses the plan, never the decision
        text += "\n" + presenters.planner_text(info.row.map_id, plans)
    controls = components.with_row(controls, [*components.seat_buttons(
        game_id, state.version, autopilot=not info.controller(seat).human),
        order_controls.panel_button(game_id)])
    controls = await away.offer_back(bot.service.storage, interaction.user.id,
                                     bot.service.clock.now(), controls)
    png = await bot.renderer.draw_hand(private, info.row.map_id, public=public, plans=plans)
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
