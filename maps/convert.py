"""Convert the shared board data (``../shared/maps``) into this project's map files.

Run ``python -m maps.convert [SHARED_MAPS_DIR]``; it rewrites ``maps/data/*.json``
and stops with the file, item and reason when the source breaks the schema.

- The per-map rule numbers below are read from RULES.md (and the rulebooks in
  ``shared/seeds``), never from the source files' free-text fields; the route
  scoring table is RULES.md's and must agree with the source's.
- Where the source is wrong or models something the rules forbid, the fix is a
  row of ``CORRECTIONS``: each row names the item, the field, the value expected
  in the source, the new value and the evidence. A row whose expected value is
  no longer in the source stops the run, so no correction is ever silent or stale.
  Every applied row is also written into the map's ``notes``.
- Iberia's missing tickets and festival numbers come from ``maps.estimate``.
- See ``maps/DATA_NOTES.md`` for the audit behind all of this.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, NamedTuple

from maps import DATA_DIR, estimate, parse_map
from maps.model import City, Route

DEFAULT_SOURCE = Path(__file__).resolve().parents[2] / "shared" / "maps"

# RULES.md §1: the default route scoring table (a map uses the lengths it has).
ROUTE_POINTS = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15, 7: 18, 8: 21, 9: 27}

BGA = "x/y: pixels on the BGA board image of thoun/tickettoride"
BOARDS: dict[str, dict[str, Any]] = {
    "usa": {"coordinates": "board", "width": 1744, "height": 1125},
    "europe": {"coordinates": "board", "width": 1744, "height": 1125},
    "nordic": {"coordinates": "board", "width": 1125, "height": 1744},
    "pennsylvania": {"coordinates": "board", "width": 1744, "height": 1125},
    "iberia": {"coordinates": "board", "width": 1200, "height": 924},
    # Anchorage and Honolulu sit at the east edge, Vancouver/Los Angeles/Lima at the west
    # edge: an edge at 140°W reproduces all ten crossing routes of the source.
    "world": {"coordinates": "geo", "wraps_east_west": True, "west_edge_lon": -140.0},
}

NAMES = {
    "usa": "USA",
    "europe": "Europe",
    "nordic": "Nordic Countries",
    "pennsylvania": "Pennsylvania",
    "iberia": "Iberia",
    "world": "Rails & Sails: World",
}

_BASE_TICKETS = {
    "setup_tickets": {"deal": 3, "keep_min": 2},
    "draw_tickets": {"deal": 3, "keep_min": 1},
}

RULES: dict[str, dict[str, Any]] = {
    # RULES.md §2
    "usa": {
        "players_min": 2, "players_max": 5, "trains": 45, **_BASE_TICKETS,
        "longest_path_bonus": 10,
        "tie_breakers": ["most_tickets", "longest_path_bonus"],
    },
    # RULES.md §3 (seed 001: tickets turned down at setup leave the game)
    "europe": {
        "players_min": 2, "players_max": 5, "trains": 45,
        "setup_tickets": {"deal": 3, "deal_long": 1, "keep_min": 2, "returned": "removed"},
        "draw_tickets": {"deal": 3, "keep_min": 1},
        "longest_path_bonus": 10,
        "tie_breakers": ["most_tickets", "fewest_stations_used", "longest_path_bonus"],
        "modules": ["stations"],
        "stations": {"per_player": 3, "costs": [1, 2, 3], "unused_points": 4},
    },
    # RULES.md §4 (seed 000)
    "nordic": {
        "players_min": 2, "players_max": 3, "trains": 40,
        "setup_tickets": {"deal": 5, "keep_min": 2},
        "draw_tickets": {"deal": 3, "keep_min": 1},
        "returned_tickets": "removed",
        "face_up_locomotive_counts_two": False,
        "market_reset_locomotives": None,
        "locomotives_only_tunnels_ferries": True,
        "ferry_cards_per_locomotive": 3,
        "double_routes_min_players": 3,
        "most_tickets_bonus": 10,
        "tie_breakers": ["most_tickets", "longest_path"],
    },
    # RULES.md §5 (seed 003). Tie-break: most tickets, else shared (no longest path here).
    "pennsylvania": {
        "players_min": 2, "players_max": 5, "trains": 45,
        "setup_tickets": {"deal": 5, "keep_min": 3},
        "draw_tickets": {"deal": 4, "keep_min": 1},
        "most_tickets_bonus": 15,
        "tie_breakers": ["most_tickets"],
        "modules": ["shares"],
    },
    # RULES.md §6 (seed 004)
    "iberia": {
        "players_min": 2, "players_max": 5, "trains": 35,
        "setup_tickets": {"deal": 6, "keep_min": 4, "keep_max": 4},
        "draw_tickets": {"deal": 3, "keep_min": 1},
        "tie_breakers": ["most_tickets"],
        "modules": ["festivals"],
    },
    # RULES.md §7 (seed 002). trains = the most trains a player may hold.
    "world": {
        "players_min": 2, "players_max": 5, "trains": 25,
        "deck": {"colors": ["purple", "yellow", "green", "red", "black", "white"],
                 "per_color": 11, "locomotives": 14},
        "market_size": 6,
        "starting_cards": 3,
        "setup_tickets": {"deal": 5, "keep_min": 3},
        "draw_tickets": {"deal": 4, "keep_min": 1},
        "end_trigger_pieces": 6,
        "final_turns": 2,
        "tie_breakers": ["most_tickets"],
        "modules": ["rails_and_sails"],
    },
}
for _rules in RULES.values():
    _rules.setdefault("double_routes_min_players", 4)

# Pennsylvania companies: names from the share cards, stack sizes and score tables from
# the card scans (shared/mapsrc/pennsylvania/share_score_tables.csv, checked against
# share_score_boxes.jpg); colour = the dominant colour of the company's logo.
COMPANY_COLORS = {
    "PRR": "#9e1b32", "B&O": "#1d4f6e", "ERIE": "#2f7d32", "RDG": "#e58f1a", "LV": "#8e2c8e",
    "NYC": "#c8505f", "WM": "#f2c200", "JCL": "#2b4c9b", "BR&P": "#3a3a3a",
}

RAILS_AND_SAILS: dict[str, Any] = {
    "ship_deck": {"colors": ["purple", "yellow", "green", "red", "black", "white"],
                  "singles_per_color": 4, "doubles_per_color": 6},
    "harbor_train_cards_per_color": 4, "harbor_ship_cards_per_color": 4,
    "deal_train_cards": 3, "deal_ship_cards": 7,
    "market_train_cards": 3, "market_ship_cards": 3,
    "pieces": 60, "max_trains": 25, "max_ships": 50,
    "suggested_trains": 20, "suggested_ships": 40,
    "harbors_per_player": 3, "harbor_train_cards": 2, "harbor_ship_cards": 2,
    "harbor_points": [20, 30, 40], "unbuilt_harbor_points": -4,
    "exchange_points_per_piece": -1, "rough_terrain_cards_per_space": 2,
}

FESTIVALS: dict[str, Any] = {
    "draft_card_depth": {2: 1 / 2, 3: 2 / 3, 4: 3 / 4, 5: 3 / 4},
    "draft": {"deal": 6, "keep": 4, "first_pass": "left", "second_pass": "right",
              "first_unkept": "shuffle_in", "second_unkept": "bottom"},
    "tickets_locked_until_second_draft": True,
    "reshuffle_train_cards_only": True,
}


class Correction(NamedTuple):
    kind: str  # "city" | "route"
    item: str | int  # city id or route id
    field: str  # field of OUR schema
    expected: Any  # value the conversion gives before the fix (checked)
    value: Any
    why: str


CORRECTIONS: dict[str, list[Correction]] = {
    "pennsylvania": [
        Correction(
            "city", "ontario", "connects_through", True, False,
            "seed 003: the two ferries to Ontario 'sind nicht miteinander verbunden'; the "
            "shared file merges BGA's two Ontario spots (ids 1001/1002) into one city, which "
            "would join Erie to Buffalo through Ontario",
        ),
    ],
    "iberia": [
        Correction(
            "city", "france", "lat", None, 42.7,
            "the source has no position for the off-board France location; placed at "
            "Perpignan, the French side of the border north of Barcelona (approximate)",
        ),
        Correction("city", "france", "lon", None, 2.9, "see lat"),
    ],
    "world": [
        Correction(
            "city", "antarctica", "name", "Antarctic Ocean (transit spot)", "Antarctic Ocean",
            "players see this name; 'transit spot' is a data remark, kept in transit_point",
        ),
    ],
}


def _note_for_route(r: dict[str, Any], fixes: dict[int, list[str]]) -> str | None:
    parts = [r["special"]] if r.get("special") else []
    if r.get("resolution"):
        parts.append(r["resolution"])
    parts += fixes.get(r.get("source_id", r["id"]), [])
    return "; ".join(parts) or None


def _route(map_id: str, r: dict[str, Any], fixes: dict[int, list[str]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        k: r[k] for k in ("id", "a", "b", "length", "color", "kind", "tunnel", "double_of")
    }
    out["ferry_locomotives"] = r.get("locomotives") or 0
    if r.get("spaces") is not None:
        out["spaces"] = r["spaces"]
    if r.get("any_cards_substitute"):
        out["any_cards_substitute"] = r["any_cards_substitute"]
    if r.get("shares"):
        out["shares"] = r["shares"]
    rough = r.get("rough_terrain_spaces") or 0
    if rough:
        # The schema marks whole routes; the source must agree that every space is rough.
        if rough != r["length"] or r.get("cards_required") != 2 * r["length"]:
            raise ValueError(f"{map_id} route {r['id']}: only {rough} of {r['length']} "
                             "spaces are rough terrain")
        out["rough_terrain"] = True
    if r.get("crosses_antimeridian"):
        out["crosses_antimeridian"] = True
    note = _note_for_route(r, fixes)
    if note:
        out["note"] = note
    return out


def _city(c: dict[str, Any]) -> dict[str, Any]:
    out = {k: c.get(k) for k in ("id", "name", "lat", "lon", "x", "y")}
    if c.get("board_spots"):
        out["board_spots"] = c["board_spots"]
    if c.get("harbor") is not None:
        out["harbor"] = c["harbor"]
    if "harbor" in c and c["harbor"] is None:
        raise ValueError(f"city {c['id']}: the sources disagree on its harbor")
    if c.get("festival_group"):
        out["festival_pile"] = c["festival_group"]
    if c.get("transit_point"):
        out["transit_point"] = True
    return out


def _tickets(source: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for i, t in enumerate(source["tickets"], start=1):
        ticket: dict[str, Any] = {
            "id": i, "cities": t["cities"], "points": t["points"], "long": bool(t.get("long")),
        }
        if len(t["cities"]) > 2:
            # Seed 002: highest value = printed order, middle = any order, lowest is the
            # penalty. Assign by rank whatever the source labels say (see DATA_NOTES).
            high, mid, low = sorted((t["points"], t["points_any_order"], t["penalty"]),
                                    reverse=True)
            ticket.update(points=high, points_any_order=mid, penalty=low)
        out.append(ticket)
    return out


def _route_points(map_id: str, source: dict[str, Any], routes: list[dict[str, Any]]
                  ) -> dict[int, int]:
    given = {int(k): v for k, v in (source["extra"].get("route_points") or {}).items()}
    lengths = sorted({r["length"] for r in routes} | set(given))
    table = {n: ROUTE_POINTS[n] for n in lengths}
    clash = {n: (given[n], table[n]) for n in given if given[n] != table[n]}
    if clash:
        raise ValueError(f"{map_id}: route points differ from RULES.md: {clash}")
    return table


def _shares(source: dict[str, Any]) -> dict[str, Any]:
    extra = source["extra"]
    names = extra.get("companies_card_names", {})
    companies = [
        {"id": c["id"], "name": names.get(c["id"], c["name"]), "color": COMPANY_COLORS[c["id"]],
         "shares": c["shares"], "scores": extra["share_score_table"][c["id"]]}
        for c in extra["companies"]
    ]
    if sum(c["shares"] for c in companies) != 60:  # seed 003: 60 share cards
        raise ValueError("pennsylvania: the share stacks do not add up to 60")
    return {"companies": companies, "neutral_investor_players": [2],
            "neutral_reveal_fraction": 0.5}


def _festivals(source: dict[str, Any]) -> dict[str, Any]:
    """Iberia's festival section: printed counts and table if the source has them."""
    extra = source["extra"]
    counts, table = extra.get("festival_cards_per_group"), extra.get("festival_score_table")
    if not counts or not table:
        return {**FESTIVALS, "piles": [], "scores": []}  # maps.estimate fills these
    names: dict[str, list[str]] = {}
    for c in source["cities"]:
        if c.get("festival_group"):
            names.setdefault(c["festival_group"], []).append(c["name"])
    piles = [{"id": g, "name": " / ".join(names[g]), "cards": n} for g, n in counts.items()]
    if isinstance(table, dict):  # one table per pile
        for pile in piles:
            pile["scores"] = table[pile["id"]]
        table = next(iter(table.values()))
    return {**FESTIVALS, "piles": piles, "scores": table}


def _apply_corrections(map_id: str, data: dict[str, Any]) -> list[str]:
    applied = []
    for fix in CORRECTIONS.get(map_id, []):
        items = data["cities"] if fix.kind == "city" else data["routes"]
        target = next((x for x in items if x["id"] == fix.item), None)
        if target is None:
            raise ValueError(f"{map_id}: correction names unknown {fix.kind} {fix.item!r}")
        model = City if fix.kind == "city" else Route
        if target.get(fix.field, model.model_fields[fix.field].default) != fix.expected:
            raise ValueError(f"{map_id} {fix.kind} {fix.item}.{fix.field}: expected "
                             f"{fix.expected!r} in the source, found {target.get(fix.field)!r}; "
                             "review the correction")
        target[fix.field] = fix.value
        applied.append(f"CORRECTION {fix.kind} {fix.item}.{fix.field}: {fix.expected!r} -> "
                       f"{fix.value!r} ({fix.why})")
    return applied


def _notes(map_id: str, source: dict[str, Any]) -> list[str]:
    """Decisions taken on this map where the source flags data as uncertain."""
    extra = source["extra"]
    notes = {
        "usa": [
            "Board data: BGA (thoun/tickettoride); checked against rkdarst and manhardt23 and "
            "by ticket values = shortest paths (see DATA_NOTES.md).",
        ],
        "europe": [
            "Board data: BGA (thoun/tickettoride); checked against rkdarst and dotcarls "
            "(see DATA_NOTES.md). The 1912 ticket sets of the source are not converted.",
        ],
        "nordic": [
            "Double pairs that are not alike (kept as doubles, as in BGA and the literal "
            "rule 'two routes between the same cities'): Kristiansand-Stavanger green 2 "
            "tunnel + orange 3 ferry, Mo i Rana-Trondheim green 5 tunnel + red 6 ferry, "
            "Helsinki-Stockholm gray 4 (2 locomotives) + yellow 4 (1 locomotive).",
            "No 3-locomotive market reset (RULES.md ruling; BGA does reset).",
        ],
        "pennsylvania": [
            "Share logos per route: BGA data with the shared file's 7 fixes from board "
            "pictures; the rulebook example Oil City-Warren = PRR, B&O, ERIE agrees. Logos "
            "still unconfirmed on Buffalo-Rochester, Elmira-Syracuse, Erie-Warren, "
            "Elmira-Rochester, Buffalo-Warren (student sources differ).",
            "7-space route (Baltimore-Cumberland) scores 18 (RULES.md default table).",
            f"Ferries: {extra.get('ferries', '')}",
        ],
        "iberia": [
            "Board graph from one hobby transcription (smirea/ticket-to-ride, from a board "
            "photo); x/y are pixels on that 1200x924 photo. Not checked against an image here.",
            "France is an ordinary city (seed 004).",
            "Route points 1-5: RULES.md default table (the source marks them as assumed).",
        ],
        "world": [
            "Routes: three hobby sources agree on all 130 after resolution (see route notes).",
            "Tickets: 48 two-city tickets agree in two sources; these come from the TTS-mod "
            "card transcription only: " + ", ".join(
                "-".join(t["cities"]) for t in source["tickets"] if not t.get("sources_agree")
            ) + ".",
            "Tour tickets: the TTS-mod transcription labels the values exact < any < fail; "
            "seed 002 says the highest value is for the printed order, the middle one for "
            "any order and the lowest is lost on failure, so values are assigned by rank.",
            "Harbor cities: TTS-mod harbor spots, confirmed by smirea port flags; Lima is a "
            "harbor by the rulebook example.",
            "Lima-Valparaiso double: both lanes gray per three sources (board-art colour "
            "classification says one lane yellow).",
            "Antarctic Ocean is a transit point for ships (Cape Town, Perth), not a "
            "destination. Board coordinates: none; lay out from lat/lon.",
            "Tie-break: the rulebook is silent; most completed tickets (base game).",
        ],
    }
    return notes[map_id]


def convert(map_id: str, source: dict[str, Any]) -> dict[str, Any]:
    extra = source["extra"]
    fixes: dict[int, list[str]] = {}
    for c in extra.get("corrections_vs_bga", []):
        fixes.setdefault(c["source_route_id"], []).append(
            f"corrected from BGA ({c['field']}): {c['evidence']}")
    routes = [_route(map_id, r, fixes) for r in source["routes"]]
    rules: dict[str, Any] = json.loads(json.dumps(RULES[map_id]))
    rules["route_points"] = _route_points(map_id, source, routes)
    if map_id == "pennsylvania":
        rules["shares"] = _shares(source)
    if map_id == "world":
        rules["rails_and_sails"] = RAILS_AND_SAILS
    if map_id == "iberia":
        rules["festivals"] = _festivals(source)
    board = {**BOARDS[map_id], "note": extra["coordinates"]}
    data: dict[str, Any] = {
        "id": map_id,
        "name": NAMES[map_id],
        "notes": _notes(map_id, source),
        "board": board,
        "rules": rules,
        "cities": [_city(c) for c in source["cities"]],
        "routes": routes,
        "tickets": _tickets(source),
    }
    data["notes"] += _apply_corrections(map_id, data)
    if map_id == "iberia":
        data = estimate.apply(data)  # fills only what the source lacks
    return data


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m maps.convert", description=__doc__.splitlines()[0],
        epilog="maps/data/ is committed: only a change of the shared board data needs this.")
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE,
                        metavar="SHARED_MAPS_DIR",
                        help=f"the folder of the shared map files (default: {DEFAULT_SOURCE})")
    src_dir: Path = parser.parse_args(argv).source
    missing = [m for m in RULES if not (src_dir / f"{m}.json").is_file()]
    if missing:  # e.g. a clone without the shared folder beside it
        print(f"maps.convert: no board data at {src_dir} (missing {missing[0]}.json): name "
              f"the folder of the shared map files; maps/data/ already holds the converted "
              f"maps", file=sys.stderr)
        return 2
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
