"""Typed player actions: a pydantic discriminated union on ``type``.

Cards are named ({"green": 2, "locomotive": 1}); the engine checks the
payment against the route, the hand and the map's rules.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

CardCounts = dict[str, Annotated[int, Field(ge=0)]]


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class KeepTickets(_Action):
    """Keep these of the offered tickets (at setup or after drawing tickets)."""

    type: Literal["keep_tickets"] = "keep_tickets"
    tickets: list[int]


class DrawFaceUp(_Action):
    type: Literal["draw_face_up"] = "draw_face_up"
    slot: int = Field(ge=0, le=9)


class DrawBlind(_Action):
    type: Literal["draw_blind"] = "draw_blind"


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
    | GiveNeutralShare
    | DraftPick
    | TakeFestival,
    Field(discriminator="type"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
