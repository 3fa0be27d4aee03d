"""The lobby's and a game's life's buttons: join, leave, start, computer players, and the
confirmations of ending, resigning and abandoning."""

from __future__ import annotations

from typing import Any

import discord

from bot.edge.components import ControlId
from bot.edge.controls import ControlFamily, template
from bot.game.games import Refusal
from bot.lobby import handlers
from bot.seats import handlers as seats_handlers
from bot.seats import seat_texts


class LobbyControl(ControlFamily, template=template(
        plain=("join", "leave", "start", "addbot", "rmbot", "endok", "resign", "abandon"))):
    async def run(self, interaction: discord.Interaction[Any], control: ControlId,
                  values: list[str]) -> None:
        gid = control.game
        match control.action:
            case "join":
                await handlers.join(interaction, gid)
            case "leave":
                await handlers.leave(interaction, gid)
            case "start":
                await handlers.start(interaction, gid)
            case "addbot":
                if len(values) != 1:
                    raise Refusal(seat_texts.CHOOSE_LEVEL)
                await handlers.add_computer(interaction, gid, values[0])
            case "rmbot":
                await handlers.remove_computer(interaction, gid, values)
            case "endok":
                await seats_handlers.end_confirmed(interaction, gid)
            case "resign":
                await seats_handlers.resign_confirmed(interaction, gid)
            case "abandon":
                await seats_handlers.abandon(interaction, gid)
