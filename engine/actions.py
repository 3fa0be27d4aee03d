"""Typed player actions: a pydantic discriminated union on ``type``.

Cards are named ({"green": 2, "locomotive": 1}); the engine checks the
payment against the route, the hand and the map's rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from engine.board import Board
from engine.cards import names_from_counts
from engine.fence import unvalidated
from engine.memo import MEMO_LIMIT
from maps.model import MARKET_SLOTS

CardCounts = dict[str, Annotated[int, Field(ge=0)]]


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class KeepTickets(_Action):
    """Keep these of the offered tickets (at setup or after drawing tickets)."""

    type: Literal["keep_tickets"] = "keep_tickets"
    tickets: list[int]


Deck = Literal["train", "ship"]


class DrawFaceUp(_Action):
    """Take a face-up card; Rails & Sails: ``refill`` names the deck that replaces it."""

    type: Literal["draw_face_up"] = "draw_face_up"
    slot: int = Field(ge=0, lt=MARKET_SLOTS)
    refill: Deck | None = None


class DrawBlind(_Action):
    """Draw the top card of a deck (Rails & Sails has a train and a ship deck)."""

    type: Literal["draw_blind"] = "draw_blind"
    deck: Deck = "train"


class DrawTickets(_Action):
    type: Literal["draw_tickets"] = "draw_tickets"


class Claim(_Action):
    type: Literal["claim"] = "claim"
    route: int
    cards: CardCounts


class PayTunnel(_Action):
    """Pay the tunnel's extra cards; ``cards=None``: the engine picks, colour first."""

    type: Literal["pay_tunnel"] = "pay_tunnel"
    cards: CardCounts | None = None


class DeclineTunnel(_Action):
    type: Literal["decline_tunnel"] = "decline_tunnel"


class BuildStation(_Action):
    type: Literal["build_station"] = "build_station"
    city: str
    cards: CardCounts


class TakeShare(_Action):
    """Pennsylvania: take the top share of one company shown on the route just claimed."""

    type: Literal["take_share"] = "take_share"
    company: str


class DeclineShare(_Action):
    """Pennsylvania: take no share for the route just claimed (taking one is optional);
    with 2 players the neutral investor then gets none either."""

    type: Literal["decline_share"] = "decline_share"


class GiveNeutralShare(_Action):
    """Pennsylvania, 2 players: put one shown company's top share into the neutral pile."""

    type: Literal["give_neutral_share"] = "give_neutral_share"
    company: str


class DraftPick(_Action):
    """Iberia: pick one ticket from the packet in front of you in a ticket draft."""

    type: Literal["draft_pick"] = "draft_pick"
    ticket: int


class TakeFestival(_Action):
    """Iberia: take the festival cards of this pile (when the route claimed reaches two)."""

    type: Literal["take_festival"] = "take_festival"
    pile: str


class ChoosePieces(_Action):
    """Rails & Sails setup: the secret split of the starting pieces."""

    type: Literal["choose_pieces"] = "choose_pieces"
    trains: int = Field(ge=0)
    ships: int = Field(ge=0)


class BuildHarbor(_Action):
    """Rails & Sails: build a harbor in a harbor city your routes reach."""

    type: Literal["build_harbor"] = "build_harbor"
    city: str
    cards: CardCounts


class ExchangePieces(_Action):
    """Rails & Sails: swap pieces with your reserve, 1 point each; ``trains`` > 0 takes
    trains for ships, < 0 ships for trains."""

    type: Literal["exchange_pieces"] = "exchange_pieces"
    trains: int


Action = Annotated[
    KeepTickets
    | DrawFaceUp
    | DrawBlind
    | DrawTickets
    | Claim
    | PayTunnel
    | DeclineTunnel
    | BuildStation
    | TakeShare
    | DeclineShare
    | GiveNeutralShare
    | DraftPick
    | TakeFestival
    | ChoosePieces
    | BuildHarbor
    | ExchangePieces,
    Field(discriminator="type"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


class Undo(_Action):
    """A log entry, not a move: it takes back the last action still in effect (18xx's
    undo). The log only grows; ``engine.game.replay`` plays what is still in effect."""

    type: Literal["undo"] = "undo"


# One entry of a game's log: an action, or an undo of the last one still in effect.
LogEntry = Annotated[Action | Undo, Field(discriminator="type")]
LOG_ADAPTER: TypeAdapter[LogEntry] = TypeAdapter(LogEntry)


# The engine's own actions ---------------------------------------------------------------
#
# ``legal_actions`` lists hundreds of actions per call; building each through pydantic's
# validation was most of its time. Actions are frozen values, so the engine builds each
# (route or city, payment) once, unvalidated (its own values are valid), and hands out
# the same object again. Do not mutate an action's ``cards``.

_CLAIMS: dict[tuple[int, tuple[int, ...]], Claim] = {}
_PICKS: dict[int, DraftPick] = {}  # ticket ids: a few hundred at most
_STATIONS: dict[tuple[Board, tuple[int, ...], tuple[int, ...]], list[BuildStation]] = {}
_FACE_UP = {
    (slot, refill): DrawFaceUp(slot=slot, refill=refill)
    for slot in range(MARKET_SLOTS)
    for refill in (None, "train", "ship")
}
_BLIND = {deck: DrawBlind(deck=deck) for deck in ("train", "ship")}
DRAW_TICKETS = DrawTickets()
DECLINE_TUNNEL = DeclineTunnel()


def keep(tickets: tuple[int, ...]) -> KeepTickets:
    """``KeepTickets`` of these ticket ids (the engine's own, so built unvalidated). Not
    shared: an offer's keeps are met once or twice, and kept ones would pile up (a memo of
    them held 500 actions, 2,000 objects, after three World games)."""
    return unvalidated(
        KeepTickets, {"type": "keep_tickets", "tickets": list(tickets)}, {"tickets"})


def pick_of(ticket_id: int) -> DraftPick:
    """``DraftPick`` of this ticket id (the engine's own, so built unvalidated; shared)."""
    action = _PICKS.get(ticket_id)
    if action is None:
        action = _PICKS[ticket_id] = unvalidated(
            DraftPick, {"type": "draft_pick", "ticket": ticket_id}, {"ticket"})
    return action


def face_up(slot: int, refill: Deck | None = None) -> DrawFaceUp:
    return _FACE_UP[slot, refill]


def blind(deck: Deck = "train") -> DrawBlind:
    return _BLIND[deck]


def claim_of(route_id: int, pay: Sequence[int]) -> Claim:
    """The ``Claim`` of ``route_id`` paying ``pay`` (counts by card)."""
    key = (route_id, tuple(pay))
    action = _CLAIMS.get(key)
    if action is None:
        action = _CLAIMS[key] = unvalidated(
            Claim, {"type": "claim", "route": route_id, "cards": names_from_counts(pay)},
            {"route", "cards"})
    return action


_HARBORS: dict[tuple[str, tuple[int, ...]], BuildHarbor] = {}
_MOST_EXCHANGED = 60  # more pieces than any map's reserve holds
_FOR_TRAINS = tuple(ExchangePieces(trains=k) for k in range(1, _MOST_EXCHANGED + 1))
_FOR_SHIPS = tuple(ExchangePieces(trains=-k) for k in range(1, _MOST_EXCHANGED + 1))


def harbor_of(city_id: str, pay: Sequence[int]) -> BuildHarbor:
    """The ``BuildHarbor`` in ``city_id`` paying ``pay`` (counts by card)."""
    key = (city_id, tuple(pay))
    action = _HARBORS.get(key)
    if action is None:
        cards = names_from_counts(pay)
        action = _HARBORS[key] = unvalidated(
            BuildHarbor, {"type": "build_harbor", "city": city_id, "cards": cards},
            {"city", "cards"})
    return action


def exchanges(trains: int, ships: int) -> list[ExchangePieces]:
    """``ExchangePieces`` taking 1 to ``trains`` trains, then 1 to ``ships`` ships."""
    if max(trains, ships) > _MOST_EXCHANGED:  # a larger reserve than any map's so far
        counts = (*range(1, trains + 1), *range(-1, -ships - 1, -1))
        return [ExchangePieces(trains=k) for k in counts]
    return [*_FOR_TRAINS[:trains], *_FOR_SHIPS[:ships]]


def stations_of(board: Board, built: tuple[int, ...], pay: Sequence[int]) -> list[BuildStation]:
    """A ``BuildStation`` paying ``pay`` (counts by card) in each city of ``board`` whose
    index is not in ``built``."""
    key = (board, built, tuple(pay))  # a board hashes by identity: one per map, kept
    actions = _STATIONS.get(key)
    if actions is None:
        if len(_STATIONS) >= MEMO_LIMIT:
            _STATIONS.clear()
        everywhere = _STATIONS.get((board, (), key[2]))
        if everywhere is None:
            cards = names_from_counts(pay)
            everywhere = _STATIONS[board, (), key[2]] = [
                unvalidated(BuildStation,
                            {"type": "build_station", "city": city_id, "cards": cards},
                            {"city", "cards"})
                for city_id in board.city_ids
            ]
        open_cities = [True] * len(everywhere)
        for c in built:
            open_cities[c] = False
        actions = _STATIONS[key] = [*compress(everywhere, open_cities)]
    return actions


def clear_shared_actions() -> None:
    """Forget the shared claims, stations and harbors (they are built again on demand)."""
    for shared in (_CLAIMS, _STATIONS, _HARBORS, _PICKS):
        shared.clear()
