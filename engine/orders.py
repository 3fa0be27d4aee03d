"""Standing orders: a seat's next move, queued while the others play, with a condition.

An order says what to do when the seat's turn comes ("claim Denver–Omaha with red if it
is still open, else draw two from the deck"; "draw tickets and keep the cheapest").
``decide`` turns it into the action to play now, from what the seat may know (its own
``PrivateView``, the ``PublicView``, its legal actions), or says why it is dropped. It
picks only among the legal actions, so what it gives the engine accepts.

A turn may take several steps (two cards, a tunnel's payment, the tickets to keep): the
bot asks again at each step, and ``decide`` answers from the phase. A phase the order does
not speak to (a map's own decision after a claim) gives None: the player decides it.
This module is pure; the bot stores the orders and plays what it gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from engine.actions import (
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    PayTunnel,
)
from engine.board import Board
from engine.cards import CARD_NAMES, LOCO, card_suit
from engine.errors import Text
from engine.phases import Phase
from engine.planner import plan_tickets
from engine.views import PrivateView, PublicView

__all__ = [
    "ORDER_ADAPTER",
    "ClaimOrder",
    "DrawOrder",
    "Dropped",
    "Order",
    "TicketsOrder",
    "decide",
    "keep_cheapest",
]

LOCOMOTIVE = CARD_NAMES[LOCO]


class _Order(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ClaimOrder(_Order):
    """Claim ``route`` (paying with ``colour``, a card name; None: whatever pays) if it is
    still open and payable; else draw two cards from the deck (``otherwise="draw"``) or
    nothing (the order is dropped and the player plays the turn)."""

    type: Literal["claim"] = "claim"
    route: int
    colour: str | None = None
    otherwise: Literal["draw", "drop"] = "drop"


class DrawOrder(_Order):
    """Draw two cards: a face-up ``colour`` (a card name) while one lies out, else from the
    deck."""

    type: Literal["draw"] = "draw"
    colour: str | None = None


class TicketsOrder(_Order):
    """Draw destination tickets and keep the cheapest to finish (as few as the rules allow)."""

    type: Literal["tickets"] = "tickets"


Order = Annotated[ClaimOrder | DrawOrder | TicketsOrder, Field(discriminator="type")]
ORDER_ADAPTER: TypeAdapter[Order] = TypeAdapter(Order)


@dataclass(frozen=True, slots=True)
class Dropped:
    """The order cannot be played: ``reason`` says why, for the player alone."""

    reason: Text


def decide(order: Order, board: Board, public: PublicView, private: PrivateView,
           legal: Sequence[Action]) -> Action | Dropped | None:
    """The action ``order`` plays now for the seat of ``private``, or why it is dropped, or
    None when the phase is not one the order decides. ``legal``: the seat's legal actions
    (``engine.legal_actions``), which the answer is one of."""
    phase = public.phase
    if phase == Phase.TURN:
        return _first_step(order, board, public, legal)
    if phase == Phase.SECOND_DRAW and not isinstance(order, TicketsOrder):
        colour = order.colour if isinstance(order, DrawOrder) else None
        return _draw(colour, public, legal) or Dropped(Text("No second card can be drawn."))
    if phase == Phase.TUNNEL and isinstance(order, ClaimOrder):
        pay = next((a for a in legal if isinstance(a, PayTunnel)), None)
        return pay or next(a for a in legal if isinstance(a, DeclineTunnel))
    if phase == Phase.CHOOSE_TICKETS and isinstance(order, TicketsOrder) and private.offered:
        keep = keep_cheapest(board, public, private)
        return keep if keep in legal else Dropped(Text("You cannot keep those tickets now."))
    return None


def _first_step(order: Order, board: Board, public: PublicView,
                legal: Sequence[Action]) -> Action | Dropped:
    if isinstance(order, TicketsOrder):
        tickets = next((a for a in legal if isinstance(a, DrawTickets)), None)
        return tickets or Dropped(Text("No destination tickets can be drawn now."))
    if isinstance(order, DrawOrder):
        return _draw(order.colour, public, legal) or Dropped(Text("No card can be drawn now."))
    claim = _claim(order, board, public, legal)
    if isinstance(claim, Claim):
        return claim
    if order.otherwise == "draw":
        draw = _draw(None, public, legal)
        if draw is not None:
            return draw
        return Dropped(Text("{why} No card can be drawn instead.", why=claim))
    return Dropped(claim)


def _claim(order: ClaimOrder, board: Board, public: PublicView,
           legal: Sequence[Action]) -> Claim | Text:
    """The claim of the order's route in its colour that spends the fewest locomotives, or
    why there is none."""
    r = board.route_index.get(order.route)
    if r is None:
        return Text("That route is not on this map.")
    name = board.route_name(r)
    claims = [a for a in legal if isinstance(a, Claim) and a.route == order.route
              and (order.colour is None or _pays_in(a, order.colour))]
    if claims:
        return min(claims, key=lambda a: (a.cards.get(LOCOMOTIVE, 0), sum(a.cards.values())))
    if order.route in public.claimed:
        return Text("{route} is claimed already.", route=name)
    seat = public.current
    if order.route in public.closed or (
            seat is not None and order.route in public.closed_to.get(seat, [])):
        return Text("{route} is closed now.", route=name)
    if order.colour is not None:
        return Text("You cannot pay for {route} with {colour} now.", route=name,
                          colour=Text(order.colour))
    return Text("You cannot claim {route} now.", route=name)


def _pays_in(claim: Claim, colour: str) -> bool:
    """Whether ``claim`` pays with ``colour`` cards (besides locomotives, and where the map
    lets any cards stand in for a locomotive, those); 'locomotive': with them alone."""
    cards = [c for c, n in claim.cards.items() if n]
    if colour == LOCOMOTIVE:
        return cards == [LOCOMOTIVE]
    return any(card_suit(c) == colour for c in cards)


def _draw(colour: str | None, public: PublicView, legal: Sequence[Action]) -> Action | None:
    """A face-up ``colour`` if one may be taken, else the top of the train deck (else any
    deck, else any face-up card); None if no card can be drawn."""
    ups = [a for a in legal if isinstance(a, DrawFaceUp)]
    if colour is not None:
        shown = next((a for a in ups if public.market[a.slot] == colour), None)
        if shown is not None:
            return shown
    blind = [a for a in legal if isinstance(a, DrawBlind)]
    train = next((a for a in blind if a.deck == "train"), None)
    return train or next(iter(blind), None) or next(iter(ups), None)


def keep_cheapest(board: Board, public: PublicView, private: PrivateView) -> KeepTickets:
    """Keep as few of the offered tickets as the rules allow, the cheapest to finish from
    this position (``plan_tickets``): done ones first, then fewest pieces still to place,
    fewest new stations, most points; those no open way reaches last."""
    offered = private.model_copy(update={"tickets": private.offered})
    plans = plan_tickets(board, public, offered)
    ranked = sorted(plans, key=lambda p: (not p.reachable, not p.done, p.stations, p.pieces,
                                          -p.points, p.ticket))
    kept = {p.ticket for p in ranked[:max(private.keep_min, 1)]}
    return KeepTickets(tickets=[t.id for t in private.offered if t.id in kept])  # offer order
