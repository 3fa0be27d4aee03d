"""The Discord client: wires storage, the game service, commands and components."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot import handlers, records
from bot.clock import Clock, SystemClock
from bot.commands import build_admin_group, build_group
from bot.components import Control, ControlId
from bot.config import Settings
from bot.images import Renderer, default_renderer
from bot.publisher import DiscordPublisher
from bot.scheduler import Scheduler
from bot.service import GameService
from bot.storage import Storage

log = logging.getLogger(__name__)


class TTRBot(discord.Client):
    def __init__(self, settings: Settings, *, renderer: Renderer | None = None,
                 sync_commands: bool = True, clock: Clock | None = None):
        # Slash commands and components need no gateway intents beyond the default guilds.
        super().__init__(intents=discord.Intents.none() | discord.Intents(guilds=True))
        self.settings = settings
        self.renderer = renderer or default_renderer()
        self.sync_commands = sync_commands
        self.tree = app_commands.CommandTree(self)
        self.tree.on_error = self._on_command_error  # type: ignore[method-assign]
        self.clock: Clock = clock or SystemClock()
        self._service: GameService | None = None
        self.scheduler: Scheduler | None = None

    @property
    def service(self) -> GameService:
        if self._service is None:
            raise RuntimeError("the bot is not set up yet (setup_hook has not run)")
        return self._service

    async def setup_hook(self) -> None:
        storage = await Storage.open(self.settings.db_path)
        publisher = DiscordPublisher(self, self.renderer, lambda: self.service)
        self._service = GameService(storage, publisher, clock=self.clock)
        self.scheduler = Scheduler(self._service, publisher)
        log.info("database %s ready; maps: %s", self.settings.db_path,
                 ", ".join(self._service.maps))
        self.add_dynamic_items(Control)
        self.tree.add_command(build_group(self._service.maps))
        self.tree.add_command(build_admin_group())
        await self._sync()
        resumed = await self._service.resume()
        if resumed:
            log.info("posted the pending updates of %d game(s) after the restart", resumed)
        await self.scheduler.start()

    async def _sync(self) -> None:
        if not self.sync_commands:
            return
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), guild.id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands (may take up to an hour to appear)", len(synced))

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s)", self.user, getattr(self.user, "id", "?"))

    async def on_control(self, interaction: discord.Interaction[Any], control: ControlId | None,
                         values: list[str]) -> None:
        if control is not None and control.action in records.ACTIONS:
            await handlers.guarded(interaction, records.on_control(interaction, control))
            return
        await handlers.on_control(interaction, control, values)

    async def _on_command_error(self, interaction: discord.Interaction[Any],
                                error: app_commands.AppCommandError) -> None:
        # Outdated or malformed commands end here: log it, answer briefly, never a traceback.
        log.warning("command failed for %s: %r", interaction.user.id, error)
        await handlers.refuse_late(interaction, "That command could not be run. "
                                   "Try `/ttr status` or `/ttr rules`.")

    async def close(self) -> None:
        await super().close()
        if self.scheduler is not None:
            await self.scheduler.stop()
            self.scheduler = None
        if self._service is not None:
            await self._service.storage.close()
            self._service = None
