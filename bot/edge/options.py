"""What the commands of every feature share: autocomplete in the member's language, matching
what was typed, the maps and languages offered, the channel's game."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import discord
from discord import app_commands

from bot import i18n
from bot.edge import interactions
from bot.play.estimates import estimated_parts
from bot.play.maps import supported_maps
from maps import load_map

Choice = app_commands.Choice
Suggest = Callable[[discord.Interaction[Any], str], Coroutine[Any, Any, list[Choice[str]]]]

# Each language by its own name.
LANGUAGE_CHOICES = [Choice(name="English", value="en"), Choice(name="Deutsch", value="de")]


def in_member_language(suggest: Suggest) -> Suggest:
    """An autocomplete callback whose suggestions are in the member's language (discord.py
    calls it directly, outside ``interactions.guarded``)."""
    @functools.wraps(suggest)
    async def localized(interaction: discord.Interaction[Any],
                        current: str) -> list[Choice[str]]:
        with i18n.language(await interactions.private_language(interaction)):
            return await suggest(interaction, current)
    return localized


def matches(current: str, label: str) -> bool:
    """Whether every word typed so far is in ``label``."""
    words = current.lower().replace("-", " ").replace("–", " ").split()
    low = label.lower()
    return all(w in low for w in words)


def map_label(map_id: str) -> str:
    """The map's choice in ``/ttr new`` (a message id: the translator finds its German)."""
    m = load_map(map_id)
    players = f"{m.rules.players_min}–{m.rules.players_max} players"
    if estimated_parts(m):  # players learn here that part of the data is estimated
        return f"{m.name} ({players}; some data estimated, see /ttr rules)"
    return f"{m.name} ({players})"


# The maps a command offers: those the service can start (Discord shows at most 25).
MAP_CHOICES = [Choice(name=map_label(m), value=m) for m in supported_maps()][:25]


async def game_id(interaction: discord.Interaction[Any]) -> int:
    """The id of this channel's running game or lobby (else a ``Refusal``)."""
    return (await interactions.channel_game(interaction)).row.id


async def on_channel_game(interaction: discord.Interaction[Any],
                          act: Callable[[int], Awaitable[None]]) -> None:
    """Run ``act`` with the id of this channel's game, under ``interactions.guarded`` (which
    answers a ``Refusal``, also the one for a channel without a game)."""
    async def run() -> None:
        await act(await game_id(interaction))
    await interactions.guarded(interaction, run())
