"""A game's stored form: the snapshot (JSON text), events as JSON, and the state a stored
log replays to. The engine's types in, the database's text out."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import orjson

import engine
import engine.events as engine_events
from bot.storage.api import ActionRow
from engine import LOG_ADAPTER, GameConfig, GameState
from engine.events import Event


def replay_log(config: str, log: Sequence[ActionRow]) -> GameState:
    """The state a game's stored config and log (undo rows included) replay to: the source
    of truth."""
    return engine.replay(GameConfig.model_validate_json(config),
                         [(a.seat, LOG_ADAPTER.validate_json(a.action)) for a in log])


def snapshot_json(state: GameState) -> str:
    """``state``'s snapshot as JSON text, serialised by orjson (~5x the standard library's
    speed; it is stored after every action)."""
    return orjson.dumps(state.to_snapshot(shared=True), option=orjson.OPT_NON_STR_KEYS).decode()


def event_to_json(e: Event) -> dict[str, Any]:
    return {"type": type(e).__name__, **dataclasses.asdict(e)}


def event_from_json(d: dict[str, Any]) -> Event:
    fields = dict(d)
    cls = getattr(engine_events, fields.pop("type"))
    if cls is engine_events.PiecesExchanged and "points" not in fields:
        # Stored before the event carried its points: the only Rails & Sails map then
        # (world) charged 1 point a piece.
        fields["points"] = -fields["count"]
    return cls(**fields)  # type: ignore[no-any-return]
