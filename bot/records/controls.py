"""The paging buttons under a history page and a replayed board: each names the page or
turn it shows, so they need no state and keep working after a restart."""

from __future__ import annotations

from typing import Any

import discord

from bot.edge.components import ControlId
from bot.edge.controls import ControlFamily, template
from bot.records.commands import show_history, show_replay


class RecordsControl(ControlFamily, template=template(plain=("hfirst", "hlast"),
                                                      numbered=("hpage", "rturn"))):
    async def run(self, interaction: discord.Interaction[Any], control: ControlId,
                  values: list[str]) -> None:
        match control.action:
            case "hfirst":
                await show_history(interaction, control.game, 1, edit=True)
            case "hlast":
                await show_history(interaction, control.game, edit=True)
            case "hpage":
                await show_history(interaction, control.game, control.number, edit=True)
            case _:  # rturn
                assert control.number is not None
                await show_replay(interaction, control.game, control.number, edit=True)
