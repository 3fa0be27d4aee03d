"""Standing orders on the bot's side: which order speaks for a seat now, and playing it.

A player queues up to ``MOST`` orders (``bot.seats.order_controls``, under **My hand**); each
plays one later turn of their seat, in order. They are rows of the ``orders`` table,
seen by their player alone. When the seat's turn comes the scheduler plays the order at
once (a job of kind 'order', planned with the turn like a computer player's), each step
through ``GameService.play_for``, as the computer players and the turn timer play;
``engine.orders.decide`` says what it plays, or why it is dropped. While an order holds
for the turn, the seat is "ready": the turn line names it without a ping, no DM, no
reminder and no turn timer.

Durable before played: an order is marked begun (its turn and the game's version) before
its first action is stored. An order begun at an earlier turn, or at an earlier version
of this turn (an undo took its move back), is spent: it never plays twice, also after a
crash at any point. Spent orders are removed as they are found.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import engine
from bot import i18n
from bot.i18n import _
from bot.play import presenters
from bot.storage.api import OrderRow, SeatRow, Storage
from engine import Action, GameState
from engine.errors import Text
from engine.orders import ORDER_ADAPTER, ClaimOrder, DrawOrder, Dropped, Order, decide
from engine.phases import Phase
from engine.views import PublicView

log = logging.getLogger(__name__)

MOST = 3  # orders a player may queue per game


@dataclass(frozen=True, slots=True)
class Standing:
    """The order that speaks for a seat now, and what it does: an action (the order
    holds: the seat is ready), ``Dropped`` (it will be dropped with a note) or None."""

    row: OrderRow
    order: Order
    decision: Action | Dropped | None

    @property
    def holds(self) -> bool:
        return self.decision is not None and not isinstance(self.decision, Dropped)


def due(rows: Sequence[OrderRow], user_id: int, state: GameState
        ) -> tuple[OrderRow | None, list[OrderRow]]:
    """Of one seat's ``rows`` (in order), the order that speaks now for ``user_id`` (whose
    turn it is, or in the middle of it), and the spent ones."""
    spent: list[OrderRow] = []
    for row in rows:
        if row.user_id != user_id:
            spent.append(row)  # left behind by the seat's former player
        elif row.played_turn is not None:
            if row.played_turn != state.turn or (
                    state.phase == Phase.TURN and row.played_version != state.version):
                spent.append(row)  # played on an earlier turn, or taken back by an undo
            else:
                return row, spent  # begun this turn: its next step (or a restart)
        elif state.phase == Phase.TURN and state.turn > row.queued_turn:
            return row, spent
        else:
            return None, spent  # queued during this very turn, or the turn began by hand
    return None, spent


def decision(state: GameState, seat: int, order: Order) -> Action | Dropped | None:
    """What ``order`` plays for ``seat`` now, from that seat's own views only."""
    return decide(order, state.board, engine.public_view(state),
                  engine.private_view(state, seat), engine.legal_actions(state, seat))


async def standing(storage: Storage, game_id: int, seats: Sequence[SeatRow],
                   state: GameState) -> dict[int, Standing]:
    """Per seat the game waits for, played by its member, the order that speaks now."""
    waiting = [s for s in engine.waiting_for(state) if seats[s].human]
    if not waiting or state.phase == Phase.GAME_OVER:
        return {}
    rows = await storage.orders(game_id)
    if not rows:
        return {}
    out: dict[int, Standing] = {}
    for seat in waiting:
        row, _spent = due([r for r in rows if r.seat == seat], seats[seat].user_id, state)
        if row is not None:
            order = ORDER_ADAPTER.validate_json(row.spec)
            out[seat] = Standing(row, order, decision(state, seat, order))
    return out


async def ready(storage: Storage, game_id: int, seats: Sequence[SeatRow],
                state: GameState) -> set[int]:
    """Seats whose order holds now: no ping, no reminder, no timer for them."""
    found = await standing(storage, game_id, seats, state)
    return {seat for seat, s in found.items() if s.holds}


class _Stop(Exception):
    """The order has nothing more to play this turn (``dropped``: it cannot be played)."""

    def __init__(self, dropped: Dropped | None):
        super().__init__()
        self.dropped = dropped


class Played(Protocol):
    """What ``GameService.play_for`` answers (``bot.game.service.Outcome``), as far as read here."""

    @property
    def view(self) -> PublicView: ...


Choose = Callable[[GameState, int], Awaitable[Action]]
PlayFor = Callable[[int, int, int, Choose], Awaitable[Played | None]]  # GameService.play_for


@dataclass(frozen=True, slots=True)
class Note:
    """Why a player's order was dropped, for them alone (``dropped_note``)."""

    user_id: int
    order_id: int
    order: Order
    reason: Text


async def play(storage: Storage, play_for: PlayFor, game_id: int, seat: SeatRow, version: int,
               state: GameState) -> Note | None:
    """Play the seat's order for its turn (a job at ``version``), step by step, or drop it:
    then the note for its player."""
    rows = await storage.orders(game_id, seat.seat)
    row, spent = due(rows, seat.user_id, state)
    await storage.forget_orders([r.id for r in spent])
    if row is None or not seat.human:
        return None
    order = ORDER_ADAPTER.validate_json(row.spec)
    first = decision(state, seat.seat, order)
    if first is None:
        return None
    if isinstance(first, Dropped):
        return await _drop(storage, game_id, seat, row, order, first)
    if row.played_turn is None and not await storage.begin_order(row.id, state.turn,
                                                                 state.version):
        return None  # cancelled meanwhile

    async def choose(now: GameState, s: int) -> Action:
        chosen = decision(now, s, order)
        if chosen is None or isinstance(chosen, Dropped):
            raise _Stop(chosen)
        return chosen

    try:
        last = await play_for(game_id, seat.seat, version, choose)
    except _Stop as stop:
        if stop.dropped is not None:
            return await _drop(storage, game_id, seat, row, order, stop.dropped)
        await storage.forget_orders([row.id])  # the rest of the turn is the player's
        return None
    if last is not None and (last.view.turn != state.turn or last.view.current != seat.seat):
        await storage.forget_orders([row.id])  # its turn is over (else a tunnel is to pay)
    return None


async def _drop(storage: Storage, game_id: int, seat: SeatRow, row: OrderRow, order: Order,
                dropped: Dropped) -> Note:
    await storage.forget_orders([row.id])  # before the note: dropped once, told at most once
    log.info("game %s: seat %s's standing order %s dropped: %s", game_id, seat.seat, row.id,
             dropped.reason)
    return Note(seat.user_id, row.id, order, dropped.reason)


def dropped_note(game_id: int, map_id: str, note: Note) -> str:
    return _("📋 Game #{game}: your standing order “{order}” was dropped: {why} It is your "
             "turn: press **My hand** there.", game=game_id, order=describe(map_id, note.order),
             why=i18n.text(note.reason))


def describe(map_id: str, order: Order) -> str:
    """An order in words, as its player reads it in their list."""
    if isinstance(order, ClaimOrder):
        route = presenters.route_label(map_id, order.route)
        what = (_("Claim {route} with {colour}", route=route,
                  colour=presenters.card_label(map_id, order.colour))
                if order.colour is not None else _("Claim {route}", route=route))
        if order.otherwise == "draw":
            return _("{what} if it is still open, else draw two cards from the deck", what=what)
        return _("{what} if it is still open", what=what)
    if isinstance(order, DrawOrder):
        if order.colour is not None:
            return _("Draw two cards: {colour} when one lies face up, else from the deck",
                     colour=presenters.card_label(map_id, order.colour))
        return _("Draw two cards from the deck")
    return _("Draw destination tickets and keep the cheapest to finish")
