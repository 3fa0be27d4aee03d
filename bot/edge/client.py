"""The Discord client: wires storage, the game service, commands and components.

``prepare`` does the local part (database, service, command tree) and needs no
network; ``setup_hook`` (run by discord.py at login, before the gateway connects)
syncs the commands when they changed, then lets the gateway connect at once while,
in the background, it posts what a restart left unposted and starts the scheduler
(``catch_up``): those may wait for the render workers to warm up, and interactions
are answered meanwhile. ``shutdown`` stops taking interactions and lets the ones in
flight finish before closing.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import socket
import time
from typing import Any

import discord
from discord import app_commands

from bot import i18n, stats
from bot.clock import Clock, SystemClock
from bot.edge import interactions
from bot.edge.commands import CommandTranslator, command_groups
from bot.edge.controls import unrecognised
from bot.game.images import Renderer, default_renderer
from bot.game.publisher import RATE_LIMIT_WAIT, DiscordPublisher
from bot.game.scheduler import Scheduler
from bot.game.service import GameService
from bot.lobby.controls import LobbyControl
from bot.ops.config import Settings
from bot.ops.database import describe, open_storage
from bot.play.controls import BuildControl, TurnControl
from bot.records.controls import RecordsControl
from bot.seats.away_commands import BackButton
from bot.seats.controls import OrderControl, SeatControl
from bot.seats.watch_commands import StopButton
from bot.storage.api import Storage

log = logging.getLogger(__name__)
# Every control family, registered once at start-up; an id none of them takes is answered
# as no longer valid.
FAMILIES = (LobbyControl, TurnControl, BuildControl, SeatControl, OrderControl, RecordsControl)
# Beside the families (ids outside ``ttr:<game>:``): I'm back, stop watching.
CONTROLS = (*FAMILIES, BackButton, StopButton, unrecognised(FAMILIES))

# bot_state key: the hash of the command tree last synced (and where to).
SYNCED_KEY = "synced_commands"
RESTARTING = i18n.N_("The bot is restarting: try again in a minute.")
NOT_RUN = i18n.N_("That command could not be run. Try `/ttr status` or `/ttr rules`.")


def in_client_language(interaction: discord.Interaction[Any], message: str) -> str:
    """``message`` in the language of the member's Discord client (for answers given
    without the database: the bot stopping, a command that never ran)."""
    return i18n.translate(message, {}, i18n.player_language(None, interaction.locale))


class _Tree(app_commands.CommandTree["TTRBot"]):
    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        return await self.client.admit(interaction)


class TTRBot(discord.AutoShardedClient):
    """The bot. Sharded by Discord's gateway (discord.py's ``AutoShardedClient``): alone,
    one process runs every shard (as many as Discord recommends, or ``TTR_SHARD_COUNT``);
    with ``TTR_SHARD_IDS`` it runs those, and other processes on the same PostgreSQL
    database run the rest. Any process may post to any channel (REST), so scheduled
    jobs run in whichever process claims them."""

    def __init__(self, settings: Settings, *, renderer: Renderer | None = None,
                 sync_commands: bool = True, force_sync: bool = False,
                 storage: Storage | None = None, clock: Clock | None = None):
        # The bot has no voice: discord.py's warnings about voice libraries are noise.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        # Slash commands and components need no gateway intents beyond the default guilds.
        # Nothing the bot sends pings anyone unless that send names the users to ping.
        super().__init__(intents=discord.Intents.none() | discord.Intents(guilds=True),
                         allowed_mentions=discord.AllowedMentions.none(),
                         # A longer rate limit raises instead of sleeping (see publisher).
                         max_ratelimit_timeout=RATE_LIMIT_WAIT,
                         shard_count=settings.shard_count,
                         # None (the default) runs every shard; the stubs want a list.
                         shard_ids=None if settings.shard_ids is None  # type: ignore[arg-type]
                         else list(settings.shard_ids))
        # discord.py makes the shards' event queue only when it connects, and close()
        # needs it: a bot that never connected (a failed start-up, a test) must close too.
        self.__dict__["_AutoShardedClient__queue"] = asyncio.PriorityQueue()
        self.settings = settings
        self.renderer = renderer or default_renderer()
        self.sync_commands = sync_commands
        self.force_sync = force_sync  # sync even if the tree is unchanged
        self.tree = _Tree(self)
        self.tree.on_error = self._on_command_error  # type: ignore[method-assign]
        self.clock: Clock = clock or SystemClock()
        self._storage = storage
        self._service: GameService | None = None
        self._publisher: DiscordPublisher | None = None
        self.scheduler: Scheduler | None = None
        self.stopping = False
        self._in_flight: set[asyncio.Task[Any]] = set()
        self._catching_up: asyncio.Task[None] | None = None
        self.gateway_connected = False
        self.gateway_changed_at: float | None = None  # time.monotonic() of the last change

    @property
    def ready_service(self) -> GameService | None:
        """The service once ``prepare`` ran, else None (for the health endpoint)."""
        return self._service

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    def _gateway(self, connected: bool) -> None:
        if connected != self.gateway_connected:
            log.info("gateway %s", "connected" if connected else "disconnected")
        self.gateway_connected = connected
        self.gateway_changed_at = time.monotonic()

    async def on_connect(self) -> None:
        self._gateway(True)

    async def on_resumed(self) -> None:
        self._gateway(True)

    async def on_disconnect(self) -> None:
        self._gateway(False)

    @property
    def service(self) -> GameService:
        if self._service is None:
            raise RuntimeError("the bot is not set up yet (setup_hook has not run)")
        return self._service

    @property
    def publisher(self) -> DiscordPublisher:
        if self._publisher is None:
            raise RuntimeError("the bot is not set up yet (setup_hook has not run)")
        return self._publisher

    async def prepare(self) -> None:
        """The local set-up, no network: database, game service, commands. Runs once."""
        if self._service is not None:
            return
        storage = self._storage or await open_storage(self.settings.database)
        self._publisher = publisher = DiscordPublisher(self, self.renderer, lambda: self.service)
        self._service = GameService(storage, publisher, clock=self.clock)
        await stats.build_if_stale(self._service)  # once, after the standings' migration
        # Computer players think in the render workers: both are CPU work off the loop.
        self.scheduler = Scheduler(self._service, publisher, thinkers=self.renderer.pool,
                                   worker=self.worker_name())
        log.info("database %s ready; maps: %s", describe(self.settings.database),
                 ", ".join(self._service.maps))
        self.add_dynamic_items(*CONTROLS)
        for group in command_groups():
            self.tree.add_command(group)
        await self.tree.set_translator(CommandTranslator())
        if self.settings.dev_guild_id is not None:
            self.tree.copy_global_to(guild=discord.Object(id=self.settings.dev_guild_id))

    def worker_name(self) -> str | None:
        """The name this process claims jobs under when it runs some shards: the host and
        its shards, which a restart keeps, so it takes back its own unfinished jobs at once
        (processes sharing a database run different shards). Else the scheduler's own
        (host and pid): a dead process's claims wait for their lease."""
        shards = self.settings.shard_ids
        if shards is None:
            return None
        return f"{socket.gethostname()}:shards-{','.join(map(str, shards))}"

    async def setup_hook(self) -> None:
        await self.prepare()
        await self._sync()
        self._catching_up = asyncio.create_task(self._catch_up(), name="ttr-catch-up")

    async def _catch_up(self) -> None:
        """Post what a restart left unposted, then start the scheduler (in the background:
        the bot is on Discord meanwhile)."""
        try:
            resumed = await self.service.resume()
            if resumed:
                log.info("posted the pending updates of %d game(s) after the restart",
                         resumed)
        except Exception:  # the scheduler must start all the same
            log.exception("posting the pending updates after the restart failed")
        assert self.scheduler is not None
        await self.scheduler.start()

    async def caught_up(self) -> None:
        """Return once the pending posts are out and the scheduler runs (tests wait)."""
        if self._catching_up is not None:
            await asyncio.shield(self._catching_up)

    def command_hash(self) -> str:
        """A fingerprint of the commands as Discord would receive them, and where to."""
        guild_id = self.settings.dev_guild_id
        guild = None if guild_id is None else discord.Object(id=guild_id)
        payload = [c.to_dict(self.tree) for c in self.tree.get_commands(guild=guild)]
        # The German names and descriptions are sent at a sync too: a changed catalog syncs.
        german = i18n.po_path("de").read_bytes().decode()
        text = json.dumps({"guild": guild_id, "commands": payload, "de": german},
                          sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    async def _sync(self) -> None:
        """Sync the command tree only when it changed since the last sync (Discord limits
        syncs; the maintainers advise against syncing at every start), or when forced."""
        if not self.sync_commands:
            return
        storage = self.service.storage
        digest = self.command_hash()
        if not self.force_sync and await storage.bot_state(SYNCED_KEY) == digest:
            log.info("commands unchanged since the last sync: not syncing "
                     "(force it with `python -m bot --sync-commands`)")
            return
        guild_id = self.settings.dev_guild_id
        if guild_id is not None:
            synced = await self.tree.sync(guild=discord.Object(id=guild_id))
            log.info("synced %d commands to guild %s", len(synced), guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands (may take up to an hour to appear)", len(synced))
        await storage.set_bot_state(SYNCED_KEY, digest)

    async def admit(self, interaction: discord.Interaction[Any]) -> bool:
        """Take an interaction in (and count it as in flight), unless the bot is stopping."""
        if self.stopping:
            if interaction.type is not discord.InteractionType.autocomplete:
                await interactions.refuse_late(interaction,
                                               in_client_language(interaction, RESTARTING))
            return False
        task = asyncio.current_task()
        if task is not None:
            self._in_flight.add(task)
            task.add_done_callback(self._in_flight.discard)
        return True

    async def shutdown(self, grace: float) -> None:
        """Stop taking interactions, give those in flight ``grace`` seconds, then close."""
        self.stopping = True
        pending = {t for t in self._in_flight if t is not asyncio.current_task()}
        if pending:
            log.info("waiting for %d interaction(s) in flight", len(pending))
            _, late = await asyncio.wait(pending, timeout=grace)
            if late:
                log.warning("%d interaction(s) still running after %.0f s: stopping anyway "
                            "(their actions are stored; unposted boards follow at start-up)",
                            len(late), grace)
        await self.close()

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s)", self.user, getattr(self.user, "id", "?"))

    async def _on_command_error(self, interaction: discord.Interaction[Any],
                                error: app_commands.AppCommandError) -> None:
        # Outdated or malformed commands end here: log it, answer briefly, never a traceback.
        log.warning("command failed for %s: %r", interaction.user.id, error)
        await interactions.refuse_late(interaction, in_client_language(interaction, NOT_RUN))

    async def close(self) -> None:
        await super().close()
        if self._catching_up is not None:
            self._catching_up.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._catching_up
            self._catching_up = None
        if self.scheduler is not None:
            await self.scheduler.stop()
            self.scheduler = None
        if self._service is not None:
            await self._service.storage.close()
            self._service = None
            log.info("database closed")
        elif self._storage is not None:
            await self._storage.close()
        self._storage = None
        self.renderer.close()
