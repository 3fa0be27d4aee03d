"""``/ttr seat autopilot``, ``replace`` and ``resign``: who plays a seat."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.edge.interactions import channel_game
from bot.edge.options import Choice, in_member_language, matches, on_channel_game
from bot.game.games import Refusal
from bot.seats import handlers, seat_texts


@in_member_language
async def seat_autocomplete(interaction: discord.Interaction[Any],
                            current: str) -> list[Choice[str]]:
    try:
        info = await channel_game(interaction)
    except Refusal:
        return []
    labels = [(seat_texts.seat_label(s.seat, s.name, s.controller), str(s.seat + 1))
              for s in info.seats]
    return [Choice(name=label[:100], value=v) for label, v in labels if matches(current, label)]


class Seat(app_commands.Group, name="seat",
           description="Who plays a seat: autopilot, hand it over, resign"):
    """``/ttr seat``: the rarer seat changes, apart from the turn's commands."""

    @app_commands.command(name="autopilot",
                          description="Let a computer player play your seat, or take it back")
    @app_commands.describe(mode="on: a computer plays your turns; off: you play them again")
    @app_commands.choices(mode=[Choice(name="on", value="on"), Choice(name="off", value="off")])
    async def autopilot(self, interaction: discord.Interaction[Any], mode: Choice[str]) -> None:
        await on_channel_game(interaction, lambda gid: handlers.autopilot(
            interaction, gid, mode.value == "on"))

    @app_commands.command(name="replace",
                          description="Hand a seat to a member who is not playing (host or admin)")
    @app_commands.describe(member="Who takes the seat",
                           seat="Whose seat (default: the one a computer plays)")
    @app_commands.autocomplete(seat=seat_autocomplete)
    async def replace(self, interaction: discord.Interaction[Any], member: discord.Member,
                      seat: str | None = None) -> None:
        await on_channel_game(interaction, lambda gid: handlers.replace(
            interaction, gid, member, seat))

    @app_commands.command(
        name="resign",
        description="Leave the game (a computer player takes your seat) or the lobby")
    async def resign(self, interaction: discord.Interaction[Any]) -> None:
        await on_channel_game(interaction, lambda gid: handlers.resign(interaction, gid))
