"""``/ttr new``, ``join``, ``addbot``, ``start``, ``end`` and ``abandon``: a game's life."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.edge.interactions import guarded
from bot.edge.options import LANGUAGE_CHOICES, MAP_CHOICES, Choice, on_channel_game
from bot.lobby import handlers
from bot.seats import handlers as seats_handlers
from bot.settings.preferences import GameSettings
from engine.players import LEVELS


@app_commands.command(name="new", description="Open a game lobby in this channel")
@app_commands.describe(map="The board", players="Most players (default: the map's limit)",
                       thread="Open a thread for the game (default: the server's setting)",
                       reminder="Hours before the player to act is reminded "
                                "(default: the server's, 12)",
                       timer="Hours per turn before the bot plays it (0: no timer; "
                             "default: the server's)",
                       language="The language of the game's posts (default: the server's)")
@app_commands.choices(map=MAP_CHOICES, language=LANGUAGE_CHOICES)
async def new(interaction: discord.Interaction[Any], map: Choice[str],
              players: app_commands.Range[int, 2, 5] | None = None,
              thread: bool | None = None,
              reminder: app_commands.Range[int, 1, 336] | None = None,
              timer: app_commands.Range[int, 0, 336] | None = None,
              language: Choice[str] | None = None) -> None:
    settings = GameSettings(reminder_hours=reminder, turn_timer_hours=timer,
                            language=language.value if language else None)
    await guarded(interaction, handlers.new_game(interaction, map.value, players, thread,
                                                 settings))


@app_commands.command(name="join", description="Take a seat in this channel's lobby")
async def join(interaction: discord.Interaction[Any]) -> None:
    await on_channel_game(interaction, lambda gid: handlers.join(interaction, gid))


@app_commands.command(name="addbot", description="Seat a computer player in this lobby (host only)")
@app_commands.describe(level="How well it plays")
@app_commands.choices(level=[Choice(name=level, value=level) for level in LEVELS])
async def addbot(interaction: discord.Interaction[Any], level: Choice[str]) -> None:
    await on_channel_game(interaction, lambda gid: handlers.add_computer(
        interaction, gid, level.value))


@app_commands.command(name="start", description="Start the game (host only)")
async def start(interaction: discord.Interaction[Any]) -> None:
    await on_channel_game(interaction, lambda gid: handlers.start(interaction, gid))


@app_commands.command(name="end", description="End this channel's game or lobby (host or admin)")
async def end(interaction: discord.Interaction[Any]) -> None:
    await on_channel_game(interaction, lambda gid: seats_handlers.end(interaction, gid))


@app_commands.command(name="abandon", description="Vote to abandon the game (a majority ends it)")
async def abandon(interaction: discord.Interaction[Any]) -> None:
    await on_channel_game(interaction, lambda gid: seats_handlers.abandon(interaction, gid))


COMMANDS: tuple[app_commands.Command[Any, ..., None], ...] = (
    new, join, addbot, start, end, abandon)
