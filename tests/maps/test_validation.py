"""A broken map file fails with the file, the item and the reason."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from maps import DATA_DIR, MapDataError, parse_map


def _raw(map_id: str) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads((DATA_DIR / f"{map_id}.json").read_text(encoding="utf-8"))
    return raw


def _route(raw: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    return next(r for r in raw["routes"] if {r["a"], r["b"]} == {a, b})


def _city(raw: dict[str, Any], cid: str) -> dict[str, Any]:
    return next(c for c in raw["cities"] if c["id"] == cid)


def _ticket_unknown_city(raw: dict[str, Any]) -> None:
    raw["tickets"][0]["cities"][1] = "atlantis"


def _asymmetric_double(raw: dict[str, Any]) -> None:
    _route(raw, "paris", "pamplona")["double_of"] = 1


def _double_elsewhere(raw: dict[str, Any]) -> None:
    a = next(r for r in raw["routes"] if r["id"] == 1)
    b = next(r for r in raw["routes"] if r["id"] == 2)
    a["double_of"], b["double_of"] = 2, 1


def _colour_not_in_palette(raw: dict[str, Any]) -> None:
    _route(raw, "wien", "zagrab")["color"] = "pink"


def _colour_not_in_deck(raw: dict[str, Any]) -> None:
    raw["rules"]["deck"] = {"colors": ["purple", "white", "blue", "yellow", "black", "red",
                                       "green"]}


def _wrong_space_count(raw: dict[str, Any]) -> None:
    _route(raw, "marseille", "roma")["length"] = 3


def _unknown_route_city(raw: dict[str, Any]) -> None:
    _route(raw, "wien", "zagrab")["b"] = "zagreb"


def _no_points_for_length(raw: dict[str, Any]) -> None:
    del raw["rules"]["route_points"]["8"]


def _duplicate_city(raw: dict[str, Any]) -> None:
    raw["cities"].append(dict(raw["cities"][0]))


# (map, break it, what the message must say)
CASES: list[tuple[str, Callable[[dict[str, Any]], None], list[str]]] = [
    ("europe", _ticket_unknown_city, ["ticket 1 (amsterdam-atlantis)", "unknown city 'atlantis'"]),
    ("europe", _asymmetric_double, ["(pamplona-paris)", "double_of 1 is not symmetric"]),
    ("europe", _double_elsewhere, ["route 1", "joins other cities"]),
    ("europe", _colour_not_in_palette, ["(wien-zagrab).color", "Input should be 'purple'"]),
    ("usa", _colour_not_in_deck, ["(", "colour 'orange' is not in the deck"]),
    ("europe", _wrong_space_count, ["route 93 (marseille-roma)", "4 spaces drawn but length 3"]),
    ("europe", _unknown_route_city, ["(wien-zagreb)", "unknown city 'zagreb'"]),
    ("europe", _no_points_for_length, ["(petrograd-stockholm)", "no points for length 8"]),
    ("usa", _duplicate_city, ["city 'atlanta' is defined twice"]),
]


@pytest.mark.parametrize(("map_id", "breaker", "expected"), CASES,
                         ids=[c[1].__name__.strip("_") for c in CASES])
def test_broken_file_names_file_item_and_reason(
    map_id: str, breaker: Callable[[dict[str, Any]], None], expected: list[str]
) -> None:
    raw = _raw(map_id)
    parse_map(copy.deepcopy(raw), "ok.json")  # the unbroken file is valid
    breaker(raw)
    with pytest.raises(MapDataError) as err:
        parse_map(raw, f"maps/data/{map_id}.json")
    message = str(err.value)
    assert message.startswith(f"maps/data/{map_id}.json: ")
    for part in expected:
        assert part in message, message


# The optional rule sections: their references are checked too.
MODULE_CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("pennsylvania", lambda raw: _route(raw, "oil_city", "warren")["shares"].append("UP"),
     "(oil_city-warren): unknown company 'UP'"),
    ("pennsylvania", lambda raw: raw["rules"].pop("shares"),
     "the shares module and the shares section go together"),
    ("pennsylvania", lambda raw: raw["rules"]["modules"].clear(),
     "the shares module and the shares section go together"),
    ("iberia", lambda raw: _city(raw, "coimbra").update(festival_pile="coimbra"),
     "city coimbra: unknown festival pile 'coimbra'"),
    ("iberia", lambda raw: _city(raw, "malaga").pop("festival_pile"),
     "festival pile 'malaga': no city uses it"),
    ("iberia", lambda raw: raw["rules"]["setup_tickets"].update(keep_max=3),
     "keep_max is below keep_min"),
    ("world", lambda raw: raw["rules"].pop("rails_and_sails") and raw["rules"].update(modules=[]),
     "ship route without the rails_and_sails module"),
    ("world", lambda raw: raw["tickets"][0]["cities"].__setitem__(1, "antarctica"),
     "'antarctica' is a transit point, not a destination"),
    ("world", lambda raw: raw["board"].update(wraps_east_west=False),
     "crosses the board edge on a board that does not wrap"),
    ("world", lambda raw: next(t for t in raw["tickets"] if len(t["cities"]) > 2).pop("penalty"),
     "tour values are set iff it names 3+ cities"),
    ("usa", lambda raw: _route(raw, "el_paso", "houston").update(kind="ship"),
     "ship route without the rails_and_sails module"),
    ("usa", lambda raw: _city(raw, "boston").update(harbor=True),
     "city boston: harbor without the rails_and_sails module"),
    # More face-up slots than a draw can name (``DrawFaceUp.slot``, the engine's tables).
    ("usa", lambda raw: raw["rules"].update(market_size=11), "market_size"),
]


@pytest.mark.parametrize(("map_id", "breaker", "expected"), MODULE_CASES)
def test_broken_module_data_is_reported(
    map_id: str, breaker: Callable[[dict[str, Any]], None], expected: str
) -> None:
    raw = _raw(map_id)
    breaker(raw)
    with pytest.raises(MapDataError) as err:
        parse_map(raw, f"{map_id}.json")
    assert expected in str(err.value)
    assert str(err.value).startswith(f"{map_id}.json: ")
