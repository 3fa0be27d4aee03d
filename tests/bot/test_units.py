"""Small pure pieces: custom_ids, event text, settings."""

from __future__ import annotations

import pytest

from bot.components import ControlId, parse_custom_id
from bot.config import ConfigError, Settings
from bot.presenters import clip, event_lines, route_label
from engine.events import (
    CardDrawn,
    DeckReshuffled,
    RouteClaimed,
    TicketsKept,
    TunnelDeclined,
    TurnStarted,
)


@pytest.mark.parametrize("control", [
    ControlId(12, "join"), ControlId(3, "blind", 57), ControlId(3, "up", 57, 4),
    ControlId(99, "keep"), ControlId(1, "decline", 0),
])
def test_custom_ids_round_trip(control):
    text = str(control)
    assert text.startswith(f"ttr:{control.game}:") and len(text) <= 100
    assert parse_custom_id(text) == control


@pytest.mark.parametrize("bad", [
    "ttr:1", "ttr:1:up", "ttr:1:up:3", "ttr:1:blind", "ttr:1:blind:1.2", "ttr:1:keep:3",
    "ttr:01:hand", "ttr:1:HAND", "ttr:1:hand ", "xttr:1:hand", "ttr:1:nope:1",
])
def test_malformed_custom_ids_parse_to_none(bad):
    assert parse_custom_id(bad) is None


def test_draw_lines_never_name_a_blind_card():
    names = ["Ana", "Ben"]
    lines = event_lines("usa", names, [
        CardDrawn(0, "red", 2), CardDrawn(0, None, None), TurnStarted(1, 2),
        CardDrawn(1, None, None), DeckReshuffled(1, 40), CardDrawn(1, None, None),
        TurnStarted(0, 3), CardDrawn(0, "locomotive", 1),
    ])
    assert lines == [
        "Ana drew 2 cards (1 from the market: red)",
        "Ben drew 2 cards from the deck",
        "The discards were shuffled into a new deck (40 cards).",
        "Ana took a face-up locomotive",
    ]


def test_claim_and_ticket_lines_are_public_facts_only():
    lines = event_lines("europe", ["Ana"], [
        RouteClaimed(0, 1, {"red": 2}, 2), TicketsKept(0, 2, 1),
        TunnelDeclined(0, 1),
    ])
    assert lines[0] == f"Ana claimed {route_label('europe', 1)} for 2 points, paying 2 red"
    assert lines[1] == "Ana kept 2 of 3 destination tickets"
    assert "could" not in lines[2] and "gave up" in lines[2]


def test_route_labels_name_cities_length_colour_and_kind():
    assert route_label("europe", 1) == "Bruxelles–Paris (2, red)"
    assert "tunnel" in " ".join(route_label("europe", r) for r in range(1, 102))
    assert route_label("usa", 10_000) == "route 10000"


def test_clip_keeps_messages_under_discord_limit():
    text = "\n".join(f"line {i} " + "x" * 50 for i in range(100))
    out = clip(text)
    assert len(out) <= 1900 and out.endswith("…")
    assert clip("short") == "short"


def test_settings_from_environment():
    s = Settings.from_env({"DISCORD_TOKEN": " abc ", "TTR_DEV_GUILD_ID": "123"})
    assert (s.token, s.db_path, s.dev_guild_id, s.log_level) == ("abc", "./ttr.sqlite3", 123,
                                                                 "INFO")
    s = Settings.from_env({"DISCORD_TOKEN": "t", "TTR_DB_PATH": "/data/x.db",
                           "TTR_LOG_LEVEL": "debug"})
    assert (s.db_path, s.dev_guild_id, s.log_level) == ("/data/x.db", None, "DEBUG")
    with pytest.raises(ConfigError, match="DISCORD_TOKEN"):
        Settings.from_env({})
    with pytest.raises(ConfigError, match="numeric"):
        Settings.from_env({"DISCORD_TOKEN": "t", "TTR_DEV_GUILD_ID": "my-server"})
