"""Standing orders by clicks, under **My hand**: the list of a player's orders, adding,
replacing and cancelling them. Everything here answers privately (ephemeral replies).

Custom ids (``bot.edge.components``): ``orders`` opens the list; ``ordroute:<target>`` (a
select of routes) then ``ordpay:<route>.<target>`` (a select of colour and fallback) queue
a claim; ``orddraw:<target>`` (a select: from the deck, or a face-up colour) queues a draw;
``ordtix:<target>`` queues tickets; ``ordcancel:<id>`` cancels an order; ``ordrepl:<id>``
shows the list with its controls aimed at that order; ``ordpage:<page>.<target>`` shows
another page of the routes. ``target`` is the id of the order to replace, 0 to add one.
Every control reads the database: it works after a restart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.edge import components
from bot.edge.components import ControlId, Item, SentButton
from bot.game.games import GameInfo, Refusal
from bot.game.service import GameService
from bot.i18n import _
from bot.play import presenters
from bot.seats.orders import MOST, describe
from bot.storage.api import OrderRow
from engine import GameState, private_view, public_view
from engine.board import board_for
from engine.cards import GRAY, card_suit
from engine.orders import ORDER_ADAPTER, ClaimOrder, DrawOrder, Order, TicketsOrder
from engine.phases import Phase
from engine.planner import plan_tickets

ANY = "any"  # a colour option's value: whatever pays
LOCOMOTIVE = "locomotive"
OPTIONS = 25  # Discord's most options in one select


def panel_button(game_id: int) -> Item:
    """**Standing orders** under a seated player's hand."""
    return SentButton(custom_id=str(ControlId(game_id, "orders")),
                      label=_("Standing orders"), style=discord.ButtonStyle.secondary,
                      disabled=False, emoji="📋", row=4)


async def control(service: GameService, user_id: int, c: ControlId, values: list[str],
                  answer: Any) -> None:
    """One click on a standing-orders control (``answer``: a ``Responder``)."""
    info = await service.info(c.game)
    seat, state = _seated(info, user_id)
    number = c.number or 0
    target: int | None = None
    page = 0
    match c.action:
        case "orders":
            pass
        case "ordpage":
            assert c.slot is not None
            page, target = c.slot, c.version or None
        case "ordrepl":
            target = number
        case "ordcancel":
            if not await service.storage.cancel_order(number, user_id):
                raise Refusal(_("That order is gone already."))
        case "ordroute":
            route = _route_value(info, values)
            await answer.send(_("How should **{route}** be claimed, and what if it cannot be?",
                                route=presenters.route_label(info.row.map_id, route)),
                              view=_colour_view(info, route, number))
            return
        case "ordpay":
            assert c.slot is not None and c.version is not None
            await _queue(service, info, seat, user_id, c.version,
                         _claim_order(info, c.slot, values))
        case "orddraw":
            colour = values[0] if len(values) == 1 else ""
            if colour != ANY and colour not in _colours(info.row.map_id, LOCOMOTIVE):
                raise Refusal(_("Choose from the list."))
            await _queue(service, info, seat, user_id, number,
                         DrawOrder(colour=None if colour == ANY else colour))
        case "ordtix":
            await _queue(service, info, seat, user_id, number, TicketsOrder())
        case _:
            raise Refusal(_("That control is not valid (any more)."))
    rows = [r for r in await service.storage.orders(c.game, seat) if r.user_id == user_id
            and r.played_turn is None]
    if target is not None and target not in {r.id for r in rows}:
        raise Refusal(_("That order is gone already."))
    await answer.send(_panel_text(info, seat, state, rows, target),
                      view=_panel_view(info, state, seat, rows, target, page))


def _seated(info: GameInfo, user_id: int) -> tuple[int, GameState]:
    seat = info.seat_of(user_id)
    if seat is None:
        raise Refusal(_("You are not playing in this game."), "not a player")
    if info.state is None:
        raise Refusal(_("The game has not started yet."), "not started")
    if info.row.status != "running" or info.state.phase == Phase.GAME_OVER:
        raise Refusal(_("The game is over."), "game over")
    return seat, info.state


async def _queue(service: GameService, info: GameInfo, seat: int, user_id: int, target: int,
                 order: Order) -> None:
    """Store ``order`` after the others, or in the place of order ``target``."""
    assert info.state is not None
    spec = ORDER_ADAPTER.dump_json(order).decode()
    turn = info.state.turn
    if target:
        if not await service.storage.replace_order(target, user_id, spec, queued_turn=turn):
            raise Refusal(_("That order is gone already (or is being played)."))
    elif not await service.storage.add_order(info.row.id, seat, user_id, spec,
                                             queued_turn=turn, most=MOST):
        raise Refusal(_("You have {n} standing orders already: cancel or replace one.", n=MOST))


def _route_value(info: GameInfo, values: list[str]) -> int:
    routes = {r.id for r in board_for(info.row.map_id).map.routes}
    if len(values) != 1 or not values[0].isdigit() or int(values[0]) not in routes:
        raise Refusal(_("Choose a route from the list."))
    return int(values[0])


def _claim_order(info: GameInfo, route: int, values: list[str]) -> ClaimOrder:
    """The claim a colour select chose: its value is '<colour or any>:<draw or drop>'."""
    colour, _sep, otherwise = (values[0] if len(values) == 1 else "").partition(":")
    if (route not in {r.id for r in board_for(info.row.map_id).map.routes}
            or otherwise not in ("draw", "drop")
            or (colour != ANY and colour not in _colours(info.row.map_id, LOCOMOTIVE))):
        raise Refusal(_("Choose from the list."))
    return ClaimOrder(route=route, colour=None if colour == ANY else colour,
                      otherwise="draw" if otherwise == "draw" else "drop")


def _colours(map_id: str, *extra: str) -> list[str]:
    return [*board_for(map_id).rules.deck.colors, *extra]


def _panel_text(info: GameInfo, seat: int, state: GameState, rows: Sequence[OrderRow],
                target: int | None) -> str:
    map_id = info.row.map_id
    lines = [_("📋 Your standing orders in game #{game}, only you see them. Each plays one of "
               "your next turns, in this order, the moment it comes (no ping, no wait); one "
               "that cannot be played is dropped and you are told.", game=info.row.id)]
    for i, row in enumerate(rows, 1):
        order = ORDER_ADAPTER.validate_json(row.spec)
        lines.append(f"{i}. {describe(map_id, order)}")
    if not rows:
        lines.append(_("No orders yet."))
    if target is not None:
        place = next(i for i, r in enumerate(rows, 1) if r.id == target)
        lines.append(_("👉 Choose the new order {n} below.", n=place))
    elif len(rows) >= MOST:
        lines.append(_("That is the most ({n}): cancel or replace one.", n=MOST))
    else:
        lines.append(_("👉 Add one below (at most {n}).", n=MOST))
    if state.current == seat and state.phase == Phase.TURN:
        lines.append(_("It is your turn now: play it; a new order waits for your next turn."))
    return "\n".join(lines)


def _panel_view(info: GameInfo, state: GameState, seat: int, rows: Sequence[OrderRow],
                target: int | None, page: int = 0) -> discord.ui.View | None:
    game_id = info.row.id
    aim = target or 0
    items: list[Item] = []
    grey = discord.ButtonStyle.secondary
    if target is not None or len(rows) < MOST:
        routes = _route_options(info.row.map_id, state, seat)
        pages = max(1, -(-len(routes) // OPTIONS))
        page = min(max(page, 0), pages - 1)
        if routes:
            items.append(discord.ui.Select(
                custom_id=str(ControlId(game_id, "ordroute", number=aim)),
                options=routes[page * OPTIONS:(page + 1) * OPTIONS], row=0,
                placeholder=_("Claim a route…") if pages == 1 else _(
                    "Claim a route… (page {n} of {pages})", n=page + 1, pages=pages)))
        items.append(discord.ui.Select(
            custom_id=str(ControlId(game_id, "orddraw", number=aim)),
            options=_draw_options(info.row.map_id), row=1,
            placeholder=_("Draw two cards…")))
        items.append(_button(ControlId(game_id, "ordtix", number=aim),
                             _("Draw tickets, keep the cheapest"), "🎫", 2))
        for other, emoji in ((page - 1, "◀"), (page + 1, "▶")):
            if 0 <= other < pages:
                items.append(_button(ControlId(game_id, "ordpage", aim, other),
                                     _("Page {n}", n=other + 1), emoji, 2, style=grey))
    for i, row in enumerate(rows, 1):
        items.append(_button(ControlId(game_id, "ordrepl", number=row.id),
                             _("Replace {n}", n=i), "✏️", 3, style=grey))
        items.append(_button(ControlId(game_id, "ordcancel", number=row.id),
                             _("Cancel {n}", n=i), "✖️", 4, style=discord.ButtonStyle.danger))
    return components.with_controls(items)


def _button(control: ControlId, label: str, emoji: str, row: int, *,
            style: discord.ButtonStyle = discord.ButtonStyle.primary) -> Item:
    return SentButton(custom_id=str(control), label=label, style=style, disabled=False,
                      emoji=emoji, row=row)


def _route_options(map_id: str, state: GameState, seat: int) -> list[discord.SelectOption]:
    """Every open route to queue a claim of, from the seat's own views: those of its ticket
    plan first, then those its hand holds enough cards for, the longest first (the list
    shows ``OPTIONS`` a page)."""
    board = board_for(map_id)
    public, private = public_view(state), private_view(state, seat)
    shut = {*public.claimed, *public.closed, *public.closed_to.get(seat, [])}
    left = public.players[seat].trains
    planned = [r for p in plan_tickets(board, public, private) for r in p.routes]
    hand = private.hand
    locos = hand.get(LOCOMOTIVE, 0)

    def coverable(r: int) -> bool:
        i = board.route_index[r]
        colour = board.r_color[i]
        suits = [card_suit(c) for c in hand if c != LOCOMOTIVE]
        held = (max((sum(n for c, n in hand.items() if card_suit(c) == s)
                     for s in suits), default=0) if colour == GRAY else
                sum(n for c, n in hand.items()
                    if card_suit(c) == board.map.routes[i].color))
        return held + locos >= board.r_len[i]

    open_ids = [r for r in board.route_ids
                if r not in shut and board.r_len[board.route_index[r]] <= left]
    rest = sorted((r for r in open_ids if r not in planned),
                  key=lambda r: (not coverable(r), -board.r_len[board.route_index[r]], r))
    chosen = [*dict.fromkeys(r for r in planned if r in open_ids), *rest]
    return [discord.SelectOption(label=presenters.route_label(map_id, r)[:100], value=str(r),
                                 emoji="🎯" if r in planned else None) for r in chosen]


def _draw_options(map_id: str) -> list[discord.SelectOption]:
    out = [discord.SelectOption(label=_("From the deck"), value=ANY)]
    out += [discord.SelectOption(
        label=_("{colour} when one lies face up, else from the deck",
                colour=presenters.card_label(map_id, c))[:100],
        value=c, emoji=presenters.card_emoji(c)) for c in _colours(map_id, LOCOMOTIVE)]
    return out


def _colour_view(info: GameInfo, route: int, target: int) -> discord.ui.View | None:
    """The ways to claim ``route``: each colour it can be paid in (any, for a gray route),
    each with drawing two cards, or nothing, if it cannot be claimed."""
    map_id = info.row.map_id
    board = board_for(map_id)
    i = board.route_index[route]
    colours = ([ANY, *_colours(map_id)] if board.r_color[i] == GRAY
               else [ANY, board.map.routes[i].color])
    options = []
    for colour in colours:
        paid = (_("with any colour") if colour == ANY
                else _("with {colour}", colour=presenters.card_label(map_id, colour)))
        for otherwise, label in (("draw", _("{paid}; else draw two cards from the deck")),
                                 ("drop", _("{paid}; else nothing (I play that turn)"))):
            options.append(discord.SelectOption(
                label=label.format(paid=paid)[:100], value=f"{colour}:{otherwise}",
                emoji=presenters.card_emoji(None if colour == ANY else colour)))
    return components.with_controls([discord.ui.Select(
        custom_id=str(ControlId(info.row.id, "ordpay", target, route)),
        options=options[:OPTIONS], placeholder=_("Choose the colour and what else"))])
