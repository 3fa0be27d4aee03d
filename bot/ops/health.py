"""The optional health and metrics endpoint (aiohttp, which discord.py already needs).

``GET /health``: JSON (alive, gateway connected, games active, interactions in
flight, render queue, the render workers' warm-up); 200 while the bot works, 503 once
the gateway has been down longer than ``GATEWAY_GRACE`` seconds (Docker's HEALTHCHECK runs
``ttr-bot health`` against it). ``GET /metrics``: Prometheus text (action
latency and render time histograms, counters of actions, refusals and games).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from aiohttp import web

from bot.ops import metrics

if TYPE_CHECKING:
    from bot.edge.client import TTRBot

log = logging.getLogger(__name__)

# A reconnect takes seconds; only a gateway down for longer than this is unhealthy.
GATEWAY_GRACE = 180.0


class HealthServer:
    def __init__(self, bot: TTRBot, host: str, port: int):
        self.bot = bot
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None
        self.started = time.monotonic()

    async def facts(self) -> dict[str, object]:
        bot = self.bot
        since = bot.gateway_changed_at or self.started
        down_for = 0.0 if bot.gateway_connected else time.monotonic() - since
        games = 0
        if bot.ready_service is not None:
            games = len(await bot.ready_service.storage.games_with_status("running"))
        return {
            "status": "ok" if down_for <= GATEWAY_GRACE else "gateway down",
            "gateway_connected": bot.gateway_connected,
            "gateway_down_seconds": round(down_for, 1),
            "games_active": games,
            "interactions_in_flight": bot.in_flight,
            "render_queue": int(metrics.RENDER_QUEUE.value()),
            "render_workers": bot.renderer.workers_state(),
            "stopping": bot.stopping,
            "uptime_seconds": round(time.monotonic() - self.started, 1),
        }

    async def _health(self, request: web.Request) -> web.Response:
        facts = await self.facts()
        return web.json_response(facts, status=200 if facts["status"] == "ok" else 503)

    async def _metrics(self, request: web.Request) -> web.Response:
        facts = await self.facts()
        extra = {
            "ttr_gateway_connected": float(bool(facts["gateway_connected"])),
            "ttr_games_active": float(str(facts["games_active"])),
            "ttr_interactions_in_flight": float(str(facts["interactions_in_flight"])),
        }
        return web.Response(text=metrics.exposition(extra),
                            content_type="text/plain", charset="utf-8")

    async def start(self) -> int:
        """Listen; returns the port (useful with port 0)."""
        app = web.Application()
        app.add_routes([web.get("/health", self._health), web.get("/metrics", self._metrics)])
        # Stopping waits at most a second for open requests: docker stop allows 10 s.
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self.port
        log.info("health and metrics on http://%s:%s/health and /metrics", self.host, self.port)
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
