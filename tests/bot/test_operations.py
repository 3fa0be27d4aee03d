"""What an operator sees: a log line per accepted or refused action, games started, and
the health and metrics endpoint (``bot.ops.health``) behind Docker's HEALTHCHECK."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import re
import threading
import time
import urllib.request
import warnings
from concurrent.futures import Executor, Future

import engine
from bot.__main__ import health
from bot.ops import metrics
from bot.ops.config import Settings
from bot.ops.health import GATEWAY_GRACE, HealthServer


async def test_accepted_actions_refusals_and_game_starts_are_logged_and_counted(table, caplog):
    accepted = metrics.ACTIONS.value(map="usa", action="keep_tickets")
    started = metrics.GAMES_STARTED.value(map="usa")
    timed = metrics.ACTION_SECONDS.count()
    with caplog.at_level(logging.INFO):
        await table.open_game(["Ana", "Ben"], "usa")
        state = await table.stored_state()
        await table.step()
        stranger = table.fake.add_user("Cy")
        await table.slash(stranger, "draw", card="deck")
    lines = [r.getMessage() for r in caplog.records]
    gid = table.game_id
    assert f"game {gid} (usa) started with 2 players" in lines
    (line,) = [x for x in lines if re.fullmatch(
        rf"game {gid} \(usa\) seat \d: keep_tickets in \d+\.\d ms", x)]
    seat = int(line.split("seat ")[1][0])
    assert seat in engine.waiting_for(state)
    assert metrics.ACTIONS.value(map="usa", action="keep_tickets") == accepted + 1
    assert metrics.ACTION_SECONDS.count() == timed + 1
    assert metrics.GAMES_STARTED.value(map="usa") == started + 1
    channel = table.fake.CHANNEL_ID
    assert (f"refused (not a player) channel {channel} user {stranger}: You are not playing "
            "in this game.") in lines


async def test_an_illegal_move_is_refused_by_kind(table, caplog):
    await table.open_game(["Ana", "Ben"], "usa")
    before = metrics.REFUSALS.value(kind="illegal")
    with caplog.at_level(logging.INFO):
        # Initial tickets are still to be chosen: no one may draw yet.
        await table.slash("Ana", "draw", card="deck")
    assert metrics.REFUSALS.value(kind="illegal") == before + 1
    assert any(r.getMessage().startswith("refused (illegal)") for r in caplog.records)


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


async def test_health_and_metrics_endpoint(table):
    await table.open_game(["Ana", "Ben"], "usa")
    await table.step()
    server = HealthServer(table.bot, "127.0.0.1", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # aiohttp's, in every run
        port = await server.start()
    try:
        table.bot.dispatch("connect")
        await asyncio.sleep(0)
        status, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{port}/health")
        facts = json.loads(body)
        assert status == 200 and facts["status"] == "ok"
        assert facts["gateway_connected"] and facts["games_active"] == 1
        assert facts["interactions_in_flight"] == 0 and facts["render_queue"] == 0

        status, text = await asyncio.to_thread(_get, f"http://127.0.0.1:{port}/metrics")
        assert status == 200
        assert "ttr_games_active 1" in text and "ttr_gateway_connected 1" in text
        assert re.search(r'^ttr_action_seconds_bucket\{le="\+Inf"\} [1-9]', text, re.M)
        assert re.search(r'^ttr_render_seconds_count\{kind="hand"\} [1-9]', text, re.M)
        assert 'ttr_actions_total{action="keep_tickets",map="usa"}' in text

        # The Docker HEALTHCHECK command against it: healthy now...
        settings = Settings(token="t", health_port=port)
        assert await asyncio.to_thread(health, settings) == 0
        # ...and not once the gateway has been down for longer than the grace.
        table.bot.dispatch("disconnect")
        await asyncio.sleep(0)
        table.bot.gateway_changed_at = time.monotonic() - GATEWAY_GRACE - 1
        status, body = await asyncio.to_thread(_get, f"http://127.0.0.1:{port}/health")
        assert status == 503 and json.loads(body)["status"] == "gateway down"
        assert await asyncio.to_thread(health, settings) == 1
    finally:
        await server.stop()


def test_histogram_exposition_is_cumulative():
    h = metrics.Histogram("test_seconds", "for the test", buckets=(0.1, 1.0))
    try:
        for v in (0.05, 0.1, 0.5, 3.0):
            h.observe(v, kind="x")
        lines = list(h.lines())
        assert lines == [
            'test_seconds_bucket{kind="x",le="0.1"} 2',
            'test_seconds_bucket{kind="x",le="1"} 3',
            'test_seconds_bucket{kind="x",le="+Inf"} 4',
            'test_seconds_sum{kind="x"} 3.65',
            'test_seconds_count{kind="x"} 4',
        ]
    finally:
        metrics.REGISTRY.remove(h)


def test_health_command_without_an_endpoint_is_unhealthy(capsys):
    assert health(Settings(token="t", health_port=None)) == 1
    assert "TTR_HEALTH_PORT is not set" in capsys.readouterr().err


async def test_last_round_actions_are_applied_off_the_event_loop(table, monkeypatch):
    """Final scoring runs inside the action that ends the game: in the last round the
    engine works in a thread, so the event loop keeps answering meanwhile."""
    await table.open_game(["Ana", "Ben"], "usa")
    threads = []
    real_apply = engine.apply

    def apply(state, seat, action):
        threads.append((state.turns_left, threading.current_thread() is threading.main_thread()))
        return real_apply(state, seat, action)

    monkeypatch.setattr(engine, "apply", apply)
    await table.step()  # an ordinary action: on the loop
    await table.bot.service.info(table.game_id)
    table.bot.service._games[table.game_id].state.turns_left = 4  # the last round began
    await table.step()
    assert threads == [(-1, True), (4, False)]


async def test_health_and_the_log_show_the_render_workers_warming_up(table, caplog):
    """Their fork server builds every map first (45-120 s under load): /health says so
    while it lasts, and how long it took."""
    started = threading.Event()

    class Starting(Executor):
        def submit(self, fn, /, *args, **kwargs):
            future = Future()
            threading.Thread(target=lambda: (started.wait(30),
                                              future.set_result(fn(*args)))).start()
            return future

    table.bot.renderer = dataclasses.replace(table.bot.renderer, pool=Starting())
    server = HealthServer(table.bot, "127.0.0.1", 0)
    caplog.set_level(logging.INFO)
    table.bot.renderer.start()
    assert "render workers warming up" in caplog.text
    assert (await server.facts())["render_workers"].startswith("warming up (")
    started.set()
    for _ in range(200):
        if "render workers ready in" in caplog.text:
            break
        await asyncio.sleep(0.01)
    assert (await server.facts())["render_workers"].startswith("ready (warmed up in ")
