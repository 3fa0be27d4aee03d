"""Maps with only lat/lon: projection, spaces laid out along the line, the wrapping World edge."""

from __future__ import annotations

import math

import pytest
from PIL import Image

import maps
from bot.render import board as board_mod
from bot.render import board_image, demo, map_offset, render_board, render_final, render_hand
from bot.render.layout import build_layout
from bot.render.palette import player_fill
from bot.render.shapes import SpaceStyle, space_sprite
from maps.model import MapData

CITIES = [
    ("west", -170.0, 10.0),
    ("east", 170.0, 12.0),
    ("mid", 0.0, 40.0),
    ("north", 20.0, 55.0),
    ("asia", 100.0, 30.0),
    ("south", -60.0, -10.0),
]
ROUTES: list[tuple[int, str, str, int, str, dict[str, object]]] = [
    # id, a, b, length, colour, extra fields
    (1, "west", "east", 3, "red", {"crosses_antimeridian": True}),
    (2, "mid", "north", 2, "blue", {"double_of": 3}),
    (3, "mid", "north", 2, "green", {"double_of": 2}),
    (4, "north", "asia", 4, "gray", {"tunnel": True}),
    (5, "asia", "east", 3, "gray", {"ferry_locomotives": 2}),
    (6, "south", "mid", 4, "yellow", {}),
    (7, "west", "south", 4, "black", {}),
]


def _map(map_id: str, wrap: bool, lon_scale: float = 1.0) -> MapData:
    routes = []
    for rid, a, b, length, color, extra in ROUTES:
        if not wrap and extra.get("crosses_antimeridian"):
            extra = {}
        routes.append({"id": rid, "a": a, "b": b, "length": length, "color": color, **extra})
    return MapData.model_validate(
        {
            "id": map_id,
            "name": f"Test {map_id}",
            "board": {"coordinates": "geo", "wraps_east_west": wrap},
            "rules": {
                "players_min": 2,
                "players_max": 5,
                "trains": 45,
                "route_points": {i: i for i in range(1, 10)},
                "setup_tickets": {"deal": 3, "keep_min": 2},
                "draw_tickets": {"deal": 3, "keep_min": 1},
            },
            "cities": [
                {"id": c, "name": c.title(), "lat": lat, "lon": lon * lon_scale}
                for c, lon, lat in CITIES
            ],
            "routes": routes,
            "tickets": [{"id": 1, "cities": ["mid", "asia"], "points": 9}],
        }
    )


@pytest.fixture
def test_maps(monkeypatch: pytest.MonkeyPatch) -> dict[str, MapData]:
    made = {"testwrap": _map("testwrap", True), "testgeo": _map("testgeo", False, 0.1)}
    real = maps.load_map

    def load(map_id: str) -> MapData:
        return made[map_id] if map_id in made else real(map_id)

    monkeypatch.setattr(board_mod, "load_map", load)
    monkeypatch.setattr(demo, "load_map", load)
    return made


@pytest.mark.slow
def test_crossing_route_leaves_one_edge_and_enters_the_other(test_maps: dict[str, MapData]) -> None:
    lay = build_layout(test_maps["testwrap"])
    assert lay.wrap
    xs = [s.x for s in lay.routes[1]]
    assert any(x < lay.width * 0.15 for x in xs)
    assert any(x > lay.width * 0.85 for x in xs)
    assert not any(lay.width * 0.3 < x < lay.width * 0.7 for x in xs)
    # Drawn: the owner's colour shows at both edges of the map.
    view = demo.empty_view("testwrap").model_copy(update={"claimed": {1: 2}})
    img = board_image(view)
    ox, oy = map_offset("testwrap")
    seen_left = seen_right = False
    for sp in lay.routes[1]:
        for copy in lay.space_copies(sp):
            for t in (-0.6, 0.6):
                x, y = copy.along(t)
                if 0 <= x < lay.width:
                    px = img.getpixel((round(x + ox), round(y + oy)))
                    if math.dist(px[:3], player_fill(2)) < 12:  # type: ignore[index]
                        seen_left |= x < lay.width / 2
                        seen_right |= x > lay.width / 2
    assert seen_left and seen_right


def test_geo_spaces_lie_between_their_cities(test_maps: dict[str, MapData]) -> None:
    lay = build_layout(test_maps["testgeo"])
    assert not lay.wrap
    for rid, a, b, length, *_ in ROUTES:
        spaces = lay.routes[rid]
        assert len(spaces) == length
        ax, bx = lay.cities[a][0][0], lay.cities[b][0][0]
        for s in spaces:
            assert 0 <= s.x <= lay.width and 0 <= s.y <= lay.height
            assert min(ax, bx) - 30 <= s.x <= max(ax, bx) + 30
    # A double route: two parallel rows, apart from each other.
    d2, d3 = lay.routes[2], lay.routes[3]
    assert min(math.dist((p.x, p.y), (q.x, q.y)) for p in d2 for q in d3) > 10


@pytest.mark.slow
def test_geo_maps_render_every_stage(test_maps: dict[str, MapData]) -> None:
    for map_id in test_maps:
        assert render_board(demo.empty_view(map_id))
        assert render_board(demo.mid_view(map_id, seed=1, claims=5))
        assert render_final(demo.final_view(map_id, seed=1))
        assert render_hand(demo.hand_view(map_id, seed=1), map_id)


def _ink(alpha: Image.Image) -> int:
    return sum(i * n for i, n in enumerate(alpha.histogram()))


def _ship(style: SpaceStyle) -> SpaceStyle:
    from dataclasses import replace

    return replace(style, ship=True)


def test_ship_pieces_have_another_shape() -> None:
    space = build_layout(maps.load_map(maps.map_ids()[0])).routes[1][0]
    style = SpaceStyle(fill=(200, 40, 40), outline=(0, 0, 0))
    train = space_sprite(space, style).image.getchannel("A")
    ship = space_sprite(space, _ship(style)).image.getchannel("A")
    # The hull is narrower at its ends: less ink than the rounded rectangle.
    assert _ink(ship) < 0.95 * _ink(train)
