"""Who plays a seat, by clicks: autopilot on and off, the vote to hand a seat whose timer
keeps running out to a computer, and the standing orders (``bot.seats.order_controls``).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.edge import interactions
from bot.edge.components import ControlId
from bot.edge.controls import ControlFamily, template
from bot.edge.interactions import Responder, bot_of
from bot.seats import handlers, order_controls


class SeatControl(ControlFamily, template=template(plain=("piloton", "pilotoff"),
                                                   numbered=("kick",))):
    async def run(self, interaction: discord.Interaction[Any], control: ControlId,
                  values: list[str]) -> None:
        gid = control.game
        if control.action != "kick":
            await handlers.autopilot(interaction, gid, control.action == "piloton")
            return
        seat = control.number
        assert seat is not None
        decided, text = await bot_of(interaction).service.vote_kick(gid, interaction.user.id,
                                                                    seat)
        await Responder(interaction, public=decided).send(text)
        if decided:  # the offer's message says there is no vote on the seat any more
            await bot_of(interaction).publisher.close_votes(
                gid, lambda v: "stale" if (v.kind, v.subject) == ("kick", seat) else None)


class OrderControl(ControlFamily, template=template(
        plain=("orders",),
        numbered=("ordroute", "orddraw", "ordtix", "ordcancel", "ordrepl"),
        slotted=("ordpay", "ordpage"))):
    """Standing orders: the list under **My hand**, and what its controls queue or change."""

    async def run(self, interaction: discord.Interaction[Any], control: ControlId,
                  values: list[str]) -> None:
        # The list opens as a new private reply under the hand; its controls edit it.
        responder = (Responder(interaction) if control.action == "orders" else
                     Responder(interaction, edit=interactions.private_message(interaction)))
        await order_controls.control(bot_of(interaction).service, interaction.user.id,
                                     control, values, responder)
