"""Iberia's estimates are deterministic and well formed; the converter's guards hold."""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest

from maps import DATA_DIR, convert, estimate, load_map, parse_map


def _iberia_raw() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads((DATA_DIR / "iberia.json").read_text(encoding="utf-8"))
    return raw


def test_estimates_are_deterministic_and_match_the_file() -> None:
    raw = _iberia_raw()
    again = estimate.apply(copy.deepcopy(raw))
    assert again["tickets"] == raw["tickets"]
    assert again["rules"]["festivals"] == raw["rules"]["festivals"]
    assert again == estimate.apply(copy.deepcopy(raw))


def test_estimated_tickets_are_spread_and_valued_by_shortest_path() -> None:
    m = load_map("iberia")
    routes = [r.model_dump() for r in m.routes]
    ids = [c.id for c in m.cities]
    dist = estimate.distances(ids, routes)
    pairs = [frozenset(t.cities) for t in m.tickets]
    assert len(m.tickets) == 50 and len(set(pairs)) == 50
    neighbours = {frozenset((r.a, r.b)) for r in m.routes}
    assert not set(pairs) & neighbours
    uses = Counter(c for t in m.tickets for c in t.cities)
    assert set(uses) == set(ids) and max(uses.values()) <= estimate.MAX_TICKETS_PER_CITY
    spans: Counter[str] = Counter()
    for t in m.tickets:
        a, b = t.cities
        premium = estimate.FERRY_PREMIUM if "palma" in t.cities else 0
        assert t.points == dist[a][b] + premium and t.estimated
        spans["short" if dist[a][b] <= 6 else "medium" if dist[a][b] <= 10 else "long"] += 1
    assert spans == {"short": 17, "medium": 21, "long": 12}


def test_festival_table_fits_the_rulebook_examples() -> None:
    fest = load_map("iberia").rules.festivals
    assert fest is not None and fest.estimated
    assert [fest.points("sevilla", n) for n in range(0, 9)] == [0, 1, 3, 6, 10, 14, 18, 22, 26]
    assert fest.points("valencia", 7) == 22


def test_printed_values_are_a_data_change_only() -> None:
    raw = _iberia_raw()
    fest = raw["rules"]["festivals"]
    pile = next(p for p in fest["piles"] if p["id"] == "sevilla")
    pile.update(scores=[2, 4, 6], estimated=False)
    raw["tickets"][0].update(points=9, estimated=False)
    m = parse_map(raw, "iberia.json")
    assert m.rules.festivals is not None
    assert m.rules.festivals.points("sevilla", 2) == 4
    assert m.rules.festivals.points("sevilla", 4) == 6 + m.rules.festivals.extra_card_points
    assert m.rules.festivals.points("valencia", 2) == 3
    assert m.tickets[0].points == 9


def test_a_stale_correction_stops_the_conversion() -> None:
    data = {"cities": [{"id": "ontario", "connects_through": False}], "routes": []}
    with pytest.raises(ValueError, match="expected True in the source, found False"):
        convert._apply_corrections("pennsylvania", data)


def test_corrections_are_applied_and_noted() -> None:
    data: dict[str, Any] = {"cities": [{"id": "ontario"}], "routes": []}
    notes = convert._apply_corrections("pennsylvania", data)
    assert data["cities"][0]["connects_through"] is False
    assert len(notes) == 1 and notes[0].startswith("CORRECTION city ontario.connects_through")


def test_route_points_must_agree_with_the_rules() -> None:
    source = {"extra": {"route_points": {"1": 1, "2": 2, "3": 5}}}
    with pytest.raises(ValueError, match=r"differ from RULES\.md"):
        convert._route_points("x", source, [{"length": 3}])
    source["extra"]["route_points"]["3"] = 4
    assert convert._route_points("x", source, [{"length": 3}, {"length": 9}]) == {
        1: 1, 2: 2, 3: 4, 9: 27}


def test_tour_values_are_assigned_by_rank() -> None:
    source = {"tickets": [{"cities": ["a", "b", "c"], "points": 9, "points_any_order": 6,
                           "penalty": 15, "long": False}]}
    [t] = convert._tickets(source)
    assert (t["points"], t["points_any_order"], t["penalty"]) == (15, 9, 6)


def test_partly_rough_route_is_refused() -> None:
    route = {"id": 7, "a": "x", "b": "y", "length": 3, "color": "gray", "kind": "train",
             "tunnel": False, "double_of": None, "rough_terrain_spaces": 1, "cards_required": 4}
    with pytest.raises(ValueError, match="only 1 of 3 spaces are rough"):
        convert._route("world", route, {})


def test_estimates_never_replace_printed_values() -> None:
    raw = _iberia_raw()
    for t in raw["tickets"]:
        t["estimated"] = False
    raw["tickets"][0]["points"] = 99
    fest = raw["rules"]["festivals"]
    fest["estimated"] = False
    fest["scores"] = [5, 6]
    out = estimate.apply(raw)
    assert out["tickets"][0]["points"] == 99
    assert out["rules"]["festivals"]["scores"] == [5, 6]
    assert not any(n.startswith("ESTIMATED") for n in out["notes"])


def test_printed_festival_data_in_the_source_is_used() -> None:
    source: dict[str, Any] = {
        "cities": [{"id": "porto", "name": "Porto", "festival_group": "porto"},
                   {"id": "coimbra", "name": "Coimbra", "festival_group": "porto"},
                   {"id": "sevilla", "name": "Sevilla", "festival_group": "sevilla"}],
        "extra": {"festival_cards_per_group": {"porto": 4, "sevilla": 3},
                  "festival_score_table": {"porto": [1, 2, 4, 8], "sevilla": [2, 4, 6]}},
    }
    fest = convert._festivals(source)
    assert fest["piles"] == [
        {"id": "porto", "name": "Porto / Coimbra", "cards": 4, "scores": [1, 2, 4, 8]},
        {"id": "sevilla", "name": "Sevilla", "cards": 3, "scores": [2, 4, 6]},
    ]
    source["extra"]["festival_cards_per_group"] = None
    assert convert._festivals(source)["piles"] == []  # left to maps.estimate


def test_the_converter_explains_itself_and_a_missing_source(tmp_path, capsys):
    """On a fresh clone (no shared folder beside it): one line, not a traceback; and
    ``--help`` is help, not a folder."""
    with pytest.raises(SystemExit) as done:
        convert.main(["--help"])
    assert done.value.code == 0 and "SHARED_MAPS_DIR" in capsys.readouterr().out
    assert convert.main([str(tmp_path / "nowhere")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"maps.convert: no board data at {tmp_path / 'nowhere'} (missing ")

