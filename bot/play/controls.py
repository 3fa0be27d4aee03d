"""A turn's buttons and selects: the market and decks, tickets to keep, a tunnel's
payment, a map's choices, the hand, undo; and building by clicks (``bot.play.claiming``).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.edge import interactions
from bot.edge.components import ControlId
from bot.edge.controls import ControlFamily, template
from bot.edge.interactions import Responder
from bot.game.games import Refusal
from bot.i18n import _
from bot.play import claiming, handlers
from bot.play.decisions import Pick
from bot.seats import handlers as seats_handlers
from engine import KeepTickets

REFILL = {"upt": "train", "ups": "ship"}  # Rails & Sails: the deck that refills a taken slot


def _responder(interaction: discord.Interaction[Any]) -> Responder:
    """Answers that replace a private message clicked on, else new private ones."""
    return Responder(interaction, edit=interactions.private_message(interaction))


class TurnControl(ControlFamily, template=template(
        plain=("hand", "keep"),
        versioned=("blind", "shipdeck", "tickets", "pay", "decline", "undo", "undovote"),
        slotted=("up", "upt", "ups", "pick"))):
    async def run(self, interaction: discord.Interaction[Any], control: ControlId,
                  values: list[str]) -> None:
        gid, version = control.game, control.version
        match control.action:
            case "hand":
                await handlers.show_hand(interaction, gid)
            case "keep":
                if not values or not all(v.isdigit() and len(v) < 10 for v in values):
                    raise Refusal(_("Choose the tickets to keep from the list."))
                await handlers.perform(interaction, gid,
                                       KeepTickets(tickets=[int(v) for v in values]),
                                       responder=_responder(interaction))
            case "undo":
                await seats_handlers.undo(interaction, gid, version)
            case "undovote":
                await interactions.acknowledge(interaction, _("Asked."))
                await seats_handlers.undo(interaction, gid, version, ask=True)
            case "up" | "upt" | "ups":
                assert control.slot is not None
                await handlers.draw_face_up(interaction, gid, control.slot, version,
                                            _responder(interaction),
                                            refill=REFILL.get(control.action))
            case "pick":
                assert control.slot is not None and version is not None
                await handlers.perform(interaction, gid, Pick(control.slot, version),
                                       responder=_responder(interaction))
            case action:  # blind, shipdeck, tickets, pay, decline
                await handlers.perform(interaction, gid, handlers.BUTTON_ACTIONS[action](),
                                       expect_version=version,
                                       responder=_responder(interaction))


class BuildControl(ControlFamily, template=template(
        plain=claiming.KINDS,
        versioned=(f"{kind}to" for kind in claiming.KINDS),
        slotted=(f"{kind}{step}" for kind in claiming.KINDS for step in ("pg", "pay")))):
    """**Claim a route** (or a station, a harbor): its private list, pages and payments."""

    async def run(self, interaction: discord.Interaction[Any], control: ControlId,
                  values: list[str]) -> None:
        gid, version, action = control.game, control.version, control.action
        if action in claiming.KINDS:
            await handlers.open_picker(interaction, gid, action)  # a new private message
        elif action.endswith("pg"):
            assert control.slot is not None
            await handlers.open_picker(interaction, gid, action[:-2], control.slot, version,
                                       _responder(interaction))
        elif action.endswith("to"):
            await handlers.pick_target(interaction, gid, action[:-2], version, values,
                                       _responder(interaction))
        else:  # <kind>pay
            assert control.slot is not None
            await handlers.pay_target(interaction, gid, action[:-3], control.slot, version,
                                      values, _responder(interaction))
