"""Controls: one ``discord.ui.DynamicItem`` subclass per family of buttons and selects.

Every control's custom_id is ``ttr:<game>:<action>[:<arg>]`` (``ControlId``), the format
buttons already sent carry for days. A family (lobby, turn, building, seats, orders,
past play) lives in its feature package: its ``template`` names its actions by the shape
of their argument, so discord.py parses a click's id and hands it to the one family that
matches; ``run`` does what the action asks. Families are registered once at start-up
(``TTRBot.prepare``), so clicks keep working after a restart with nothing per message.
discord.py calls *every* family whose template matches, so templates never overlap; an
id no family takes (an old or malformed one) reaches ``Unrecognised``, which says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Self

import discord

from bot.edge.components import ControlId
from bot.i18n import N_, _
from bot.play import handlers

GAME = r"ttr:(?P<game>[1-9][0-9]{0,17}):"
NOT_VALID = N_("That control is not valid (any more).")


def template(*, plain: Iterable[str] = (), versioned: Iterable[str] = (),
             numbered: Iterable[str] = (), slotted: Iterable[str] = ()) -> str:
    """The custom_ids of a family's actions, by the shape of their argument: none
    (``plain``), a state version, a number (a page, turn or seat), or ``<slot>.<version>``
    (a slot, option, page or target, then the version or the options' tag)."""
    shapes = [(plain, "plain", ""),
              (versioned, "versioned", r":(?P<version>[0-9]{1,9})"),
              (numbered, "numbered", r":(?P<number>[0-9]{1,9})"),
              (slotted, "slotted", r":(?P<slot>[0-9]{1,3})\.(?P<slot_version>[0-9]{1,9})")]
    alternatives = []
    for actions, name, arg in shapes:
        names = "|".join(actions)
        if names:
            alternatives.append(f"(?P<{name}>{names}){arg}")
    return GAME + "(?:" + "|".join(alternatives) + ")"


def control_id(match: re.Match[str]) -> ControlId:
    """The control a family's template matched."""
    game = int(match["game"])
    groups = match.groupdict()
    if groups.get("versioned"):
        return ControlId(game, groups["versioned"], int(groups["version"]))
    if groups.get("numbered"):
        return ControlId(game, groups["numbered"], number=int(groups["number"]))
    if groups.get("slotted"):
        return ControlId(game, groups["slotted"], int(groups["slot_version"]),
                         int(groups["slot"]))
    return ControlId(game, groups["plain"])


class ControlFamily(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"(?!)"):
    """A family of controls (the base matches nothing). A subclass gives its ``template``
    (built by ``template``) and ``run``."""

    def __init__(self, item: discord.ui.Item[Any], control: ControlId) -> None:
        super().__init__(item)
        self.control = control

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str], /,
    ) -> Self:
        return cls(item, control_id(match))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if not await handlers.bot_of(interaction).admit(interaction):
            return
        values = list(getattr(self.item, "values", []) or [])
        await handlers.guarded(interaction, self.run(interaction, self.control, values))

    async def run(self, interaction: discord.Interaction[Any], control: ControlId,
                  values: list[str]) -> None:
        """What the click asks (under ``handlers.guarded``: a ``Refusal`` is answered)."""
        raise NotImplementedError


def pattern(family: type[ControlFamily]) -> re.Pattern[str]:
    """A family's compiled template (discord.py keeps it on the class)."""
    return family.__discord_ui_compiled_template__


def unrecognised(families: Iterable[type[ControlFamily]]) -> type[ControlFamily]:
    """The family of every ``ttr:`` id that none of ``families`` takes: an id from an older
    version of the bot, or a forged one. Its click gets a short private refusal."""
    # The families' templates, without their group names (each names ``game``, ...).
    known = "|".join(re.sub(r"\(\?P<\w+>", "(?:", pattern(family).pattern)
                     for family in families)

    class Unrecognised(ControlFamily, template=rf"(?!(?:{known})\Z)ttr:.{{0,96}}"):
        @classmethod
        async def from_custom_id(
            cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
            match: re.Match[str], /,
        ) -> Self:
            return cls(item, ControlId(0, "unknown"))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            if await handlers.bot_of(interaction).admit(interaction):
                await handlers.refuse_late(interaction, _(NOT_VALID))

    return Unrecognised
