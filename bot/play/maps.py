"""The maps the bot offers: those the engine can start and whose every decision has its
command or control here."""

from __future__ import annotations

import logging

import engine
from engine import GameConfig
from maps import load_map, map_ids

log = logging.getLogger(__name__)

# Maps whose every decision has its command or component here; the engine may know more.
BOT_MAPS = ("usa", "europe", "nordic", "pennsylvania", "iberia", "world")


def supported_maps() -> list[str]:
    """Maps the engine can start (a map whose module is missing fails ``new_game``)."""
    ok = []
    for map_id in map_ids():
        if map_id not in BOT_MAPS:
            continue
        try:
            n = load_map(map_id).rules.players_min
            engine.new_game(GameConfig(map_id=map_id, players=[f"p{i}" for i in range(n)], seed=0))
        except Exception as exc:  # any failure means "not playable"
            log.info("map %s is not playable: %s", map_id, exc)
            continue
        ok.append(map_id)
    return ok
