"""Convert the shared board data (``../shared/maps``) into this project's map files.

Run ``python -m maps.convert [SHARED_MAPS_DIR]``; it rewrites ``maps/data/*.json``
and stops with the file, item and reason when the source breaks the schema.
The per-map rule numbers below are read from RULES.md, not from the source
files' free-text fields.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from maps import DATA_DIR, parse_map

DEFAULT_SOURCE = Path(__file__).resolve().parents[2] / "shared" / "maps"

BGA_BOARD = {"coordinates": "board", "width": 1744, "height": 1125}

RULES: dict[str, dict[str, Any]] = {
    "usa": {
        "players_min": 2, "players_max": 5, "trains": 45,
        "setup_tickets": {"deal": 3, "keep_min": 2},
        "draw_tickets": {"deal": 3, "keep_min": 1},
        "longest_path_bonus": 10,
        "tie_breakers": ["most_tickets", "longest_path"],
    },
    "europe": {
        "players_min": 2, "players_max": 5, "trains": 45,
        "setup_tickets": {"deal": 3, "deal_long": 1, "keep_min": 2},
        "draw_tickets": {"deal": 3, "keep_min": 1},
        "longest_path_bonus": 10,
        "tie_breakers": ["most_tickets", "fewest_stations_used", "longest_path"],
        "modules": ["stations"],
        "stations": {"per_player": 3, "costs": [1, 2, 3], "unused_points": 4},
    },
}

NAMES = {"usa": "USA", "europe": "Europe"}


def _route(r: dict[str, Any]) -> dict[str, Any]:
    out = {k: r[k] for k in ("id", "a", "b", "length", "color", "kind", "tunnel", "double_of")}
    out["ferry_locomotives"] = r.get("locomotives", 0)
    if r.get("spaces") is not None:
        out["spaces"] = r["spaces"]
    return out


def _city(c: dict[str, Any]) -> dict[str, Any]:
    return {k: c[k] for k in ("id", "name", "lat", "lon", "x", "y")}


def convert(map_id: str, source: dict[str, Any]) -> dict[str, Any]:
    extra = source["extra"]
    rules = dict(RULES[map_id])
    rules["route_points"] = {int(k): v for k, v in extra["route_points"].items()}
    rules["double_routes_min_players"] = extra["double_routes_min_players"]
    tickets = [
        {"id": i, "cities": t["cities"], "points": t["points"], "long": t["long"]}
        for i, t in enumerate(source["tickets"], start=1)
    ]
    return {
        "id": map_id,
        "name": NAMES[map_id],
        "board": {**BGA_BOARD, "note": extra["coordinates"]},
        "rules": rules,
        "cities": [_city(c) for c in source["cities"]],
        "routes": [_route(r) for r in source["routes"]],
        "tickets": tickets,
    }


def main(argv: list[str]) -> int:
    src_dir = Path(argv[0]) if argv else DEFAULT_SOURCE
    DATA_DIR.mkdir(exist_ok=True)
    for map_id in RULES:
        path = src_dir / f"{map_id}.json"
        data = convert(map_id, json.loads(path.read_text(encoding="utf-8")))
        parse_map(data, str(path))  # fail loudly before writing anything broken
        out = DATA_DIR / f"{map_id}.json"
        out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
