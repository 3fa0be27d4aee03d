"""The map files hold the published games' known facts (see maps/DATA_NOTES.md)."""

from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter, defaultdict

import pytest

from maps import load_map, map_ids
from maps.model import MapData, Route

ALL = ["europe", "iberia", "nordic", "pennsylvania", "usa", "world"]


def test_every_map_loads() -> None:
    assert map_ids() == ALL
    for m in ALL:
        assert load_map(m).id == m


# cities, routes, double pairs, spaces, tickets, long tickets, tunnels, ferry routes,
# locomotive symbols, players, trains
FACTS = {
    "usa": (36, 100, 22, 309, 30, 0, 0, 0, 0, (2, 5), 45),
    "europe": (47, 101, 11, 300, 46, 6, 18, 13, 17, (2, 5), 45),
    "nordic": (39, 81, 14, 207, 46, 0, 10, 24, 30, (2, 3), 40),
    "pennsylvania": (35, 95, 24, 322, 50, 0, 0, 4, 6, (2, 5), 45),
    "iberia": (33, 103, 33, 237, 50, 0, 0, 5, 9, (2, 5), 35),
    "world": (48, 130, 34, 411, 65, 0, 0, 0, 0, (2, 5), 25),
}


@pytest.mark.parametrize("map_id", ALL)
def test_counts(map_id: str) -> None:
    m = load_map(map_id)
    got = (
        len(m.cities), len(m.routes), sum(r.double_of is not None for r in m.routes) // 2,
        sum(r.length for r in m.routes), len(m.tickets), sum(t.long for t in m.tickets),
        sum(r.tunnel for r in m.routes), sum(r.ferry_locomotives > 0 for r in m.routes),
        sum(r.ferry_locomotives for r in m.routes),
        (m.rules.players_min, m.rules.players_max), m.rules.trains,
    )
    assert got == FACTS[map_id]


def _colour_totals(m: MapData) -> dict[str, tuple[int, int]]:
    routes: Counter[str] = Counter()
    spaces: Counter[str] = Counter()
    for r in m.routes:
        routes[r.color] += 1
        spaces[r.color] += r.length
    return {c: (routes[c], spaces[c]) for c in routes}


def test_usa_colours_are_balanced() -> None:
    # Each colour has 7 routes and 27 spaces on the USA board; this is what settles
    # El Paso-Houston green (rkdarst: gray) and El Paso-Oklahoma City 5 (manhardt23: 4).
    totals = _colour_totals(load_map("usa"))
    assert totals.pop("gray") == (44, 93)
    assert set(totals.values()) == {(7, 27)}


def test_europe_colours_have_eight_routes() -> None:
    # Settles Wien-Zagrab gray (rkdarst: green).
    totals = _colour_totals(load_map("europe"))
    assert totals.pop("gray")[0] == 37
    assert {n for n, _ in totals.values()} == {8}


def _route(m: MapData, a: str, b: str, color: str | None = None) -> list[Route]:
    return [r for r in m.routes if {r.a, r.b} == {a, b} and color in (None, r.color)]


def test_spot_checks_against_other_sources() -> None:
    usa, europe = load_map("usa"), load_map("europe")
    assert [r.length for r in _route(usa, "charleston", "raleigh")] == [2]
    assert [(r.length, r.color) for r in _route(usa, "el_paso", "houston")] == [(6, "green")]
    assert [(r.length, r.color) for r in _route(usa, "el_paso", "oklahoma_city")] == [
        (5, "yellow")]
    assert [(r.length, r.color) for r in _route(europe, "wien", "zagrab")] == [(2, "gray")]
    [mr] = _route(europe, "marseille", "roma")
    assert (mr.length, mr.tunnel) == (4, True)


@pytest.mark.parametrize("map_id", ALL)
def test_doubles_are_symmetric_and_parallel(map_id: str) -> None:
    m = load_map(map_id)
    by_id = {r.id: r for r in m.routes}
    pairs: dict[frozenset[str], list[int]] = defaultdict(list)
    for r in m.routes:
        pairs[frozenset((r.a, r.b))].append(r.id)
        if r.double_of is not None:
            twin = by_id[r.double_of]
            assert twin.double_of == r.id
            assert {twin.a, twin.b} == {r.a, r.b}
            assert twin.kind == r.kind
            assert twin.color != r.color or r.color == "gray", f"route {r.id}"
    for ids in pairs.values():
        assert len(ids) <= 2
        if len(ids) == 2:  # two routes between the same cities are always a double pair
            assert by_id[ids[0]].double_of == ids[1]


def test_only_nordic_has_unlike_doubles() -> None:
    def shape(route_id: int, by_id: dict[int, Route]) -> tuple[int, bool, int]:
        r = by_id[route_id]
        return (r.length, r.tunnel, r.ferry_locomotives)

    for map_id in ALL:
        m = load_map(map_id)
        by_id = {r.id: r for r in m.routes}
        unlike = sorted(
            tuple(sorted((r.a, r.b))) for r in m.routes
            if r.double_of is not None and r.id < r.double_of
            and shape(r.id, by_id) != shape(r.double_of, by_id)
        )
        expected = [("helsinki", "stockholm"), ("kristiansand", "stavanger"),
                    ("mo_i_rana", "trondheim")] if map_id == "nordic" else []
        assert unlike == expected


def _distances(m: MapData, start: str) -> dict[str, int]:
    """Shortest path in spaces; cities that do not connect through end a path."""
    through = {c.id: c.connects_through for c in m.cities}
    adj: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for r in m.routes:
        adj[r.a].append((r.b, r.length))
        adj[r.b].append((r.a, r.length))
    dist = {start: 0}
    heap = [(0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u] or (u != start and not through[u]):
            continue
        for v, w in adj[u]:
            if d + w < dist.get(v, math.inf):
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    return dist


def _ticket_distance(m: MapData, cities: list[str]) -> int:
    return sum(_distances(m, a)[b] for a, b in itertools.pairwise(cities))


@pytest.mark.parametrize("map_id", ALL)
def test_every_ticket_can_be_completed(map_id: str) -> None:
    m = load_map(map_id)
    for t in m.tickets:
        reach = _distances(m, t.cities[0])
        assert all(c in reach for c in t.cities), f"ticket {t.id} {t.cities}"


@pytest.mark.parametrize("map_id", ["usa", "europe", "nordic", "pennsylvania"])
def test_ticket_values_match_shortest_paths(map_id: str) -> None:
    # On these maps a ticket is worth its shortest path in spaces, or up to 2 more.
    m = load_map(map_id)
    over = Counter(t.points - _ticket_distance(m, t.cities) for t in m.tickets)
    assert set(over) <= {0, 1, 2}
    assert over[0] >= 0.8 * len(m.tickets)


def test_world_ticket_values_are_at_least_the_shortest_path() -> None:
    m = load_map("world")
    for t in m.tickets:
        assert t.points >= _ticket_distance(m, t.cities), f"ticket {t.id}"


def test_pennsylvania_ontario_is_not_a_through_city() -> None:
    m = load_map("pennsylvania")
    ontario = next(c for c in m.cities if c.id == "ontario")
    assert not ontario.connects_through
    assert {s.routes_to for s in ontario.board_spots} == {"buffalo", "erie"}
    ferries = [r for r in m.routes if r.ferry_locomotives]
    assert all("ontario" in (r.a, r.b) for r in ferries)
    assert sorted((sorted((r.a, r.b))[0], r.ferry_locomotives) for r in ferries) == [
        ("buffalo", 1), ("buffalo", 1), ("erie", 2), ("erie", 2)]
    # Erie to Buffalo through Ontario would be 3 + 1 = 4 spaces; the land route is longer.
    assert _distances(m, "erie")["buffalo"] == 5


def test_pennsylvania_shares() -> None:
    m = load_map("pennsylvania")
    shares = m.rules.shares
    assert shares is not None and m.rules.modules == ["shares"]
    tables = {c.id: (c.shares, c.scores) for c in shares.companies}
    assert sum(n for n, _ in tables.values()) == 60
    assert tables["PRR"] == (15, [30, 21, 14, 9, 6])  # printed in seed 003
    assert tables["B&O"][1][0] == 20 and tables["B&O"][1][2] == 9  # seed 003 example
    assert shares.neutral_investor_players == [2]
    # Seed 003 example: Oil City-Warren offers PRR, B&O and ERIE.
    [ocw] = _route(m, "oil_city", "warren")
    assert set(ocw.shares) == {"PRR", "B&O", "ERIE"}
    assert sum(bool(r.shares) for r in m.routes) > 70
    assert m.rules.most_tickets_bonus == 15 and m.rules.longest_path_bonus == 0


def test_nordic_rules_and_special_routes() -> None:
    m = load_map("nordic")
    rules = m.rules
    assert (rules.locomotives_only_tunnels_ferries, rules.ferry_cards_per_locomotive) == (True, 3)
    assert (rules.face_up_locomotive_counts_two, rules.market_reset_locomotives) == (False, None)
    assert (rules.returned_tickets, rules.double_routes_min_players) == ("removed", 3)
    assert (rules.most_tickets_bonus, rules.longest_path_bonus) == (10, 0)
    assert rules.route_points[9] == 27
    [ml] = _route(m, "murmansk", "lieksa")
    assert (ml.length, ml.color, ml.any_cards_substitute) == (9, "gray", 4)
    # Seed 000 example and the outside test cases (shared/tests-external.md).
    facts = {
        ("kristiansand", "stavanger", "orange"): (3, 1),
        ("helsinki", "stockholm", "gray"): (4, 2),
        ("sundsvall", "vaasa", "blue"): (3, 1),
        ("arhus", "kobenhavn", "gray"): (1, 1),
        ("sundsvall", "umea", "purple"): (3, 0),
    }
    for (a, b, color), (length, locos) in facts.items():
        [r] = _route(m, a, b, color)
        assert (r.length, r.ferry_locomotives, r.tunnel) == (length, locos, False)


def test_iberia_festivals() -> None:
    m = load_map("iberia")
    fest = m.rules.festivals
    assert fest is not None and m.status == "estimated"
    assert fest.total_cards == 54 and len(fest.piles) == 17
    cards = {p.id: p.cards for p in fest.piles}
    assert cards["valencia"] >= 7 and cards["sevilla"] >= 3
    assert fest.points("sevilla", 3) == 6 and fest.points("valencia", 7) == 22  # seed 004
    piles = {c.id: c.festival_pile for c in m.cities}
    assert piles["porto"] == piles["coimbra"] == "porto"
    assert fest.draft_card_depth == {2: 0.5, 3: pytest.approx(2 / 3), 4: 0.75, 5: 0.75}
    assert (fest.draft.deal, fest.draft.keep) == (6, 4)
    assert (m.rules.setup_tickets.keep_min, m.rules.setup_tickets.keep_max) == (4, 4)
    assert all(t.estimated for t in m.tickets)
    assert not any(r.tunnel for r in m.routes)
    assert {c.id for c in m.cities} == {c for t in m.tickets for c in t.cities}


def test_world_rails_and_sails() -> None:
    m = load_map("world")
    rs = m.rules.rails_and_sails
    assert rs is not None and m.rules.modules == ["rails_and_sails"]
    assert m.rules.deck.total == 80 and rs.ship_deck.total == 60
    assert (rs.pieces, rs.max_trains, rs.max_ships, rs.harbors_per_player) == (60, 25, 50, 3)
    assert (rs.harbor_points, rs.unbuilt_harbor_points) == ([20, 30, 40], -4)
    assert (m.rules.end_trigger_pieces, m.rules.final_turns) == (6, 2)
    assert (m.rules.draw_tickets.deal, m.rules.setup_tickets.deal) == (4, 5)
    assert m.board.coordinates == "geo" and m.board.wraps_east_west
    kinds = Counter(r.kind for r in m.routes)
    assert kinds == {"ship": 59, "train": 71}
    assert sum(c.harbor for c in m.cities) == 38
    assert {c.id for c in m.cities if c.transit_point} == {"antarctica"}
    rough = sorted(tuple(sorted((r.a, r.b))) for r in m.routes if r.rough_terrain)
    assert rough == [("anchorage", "vancouver"), ("beijing", "lahore"),
                     ("casablanca", "marseille"), ("dar_es_salaam", "luanda"),
                     ("lahore", "tehran")]
    assert all(r.kind == "train" and r.color == "gray" for r in m.routes if r.rough_terrain)
    tours = [t for t in m.tickets if len(t.cities) > 2]
    assert len(tours) == 8
    for t in tours:
        assert t.penalty is not None and t.points_any_order is not None
        assert t.points > t.points_any_order > t.penalty > 0  # seed 002 ranking
    names = {tuple(t.cities) for t in m.tickets}
    for example in [("buenos_aires", "manila"), ("buenos_aires", "sydney"),
                    ("lagos", "luanda", "dar_es_salaam", "djibouti")]:
        assert example in names  # seed 002 scoring example
    assert any(set(t.cities) == {"hamburg", "dar_es_salaam"} for t in m.tickets)
    harbors = {c.id for c in m.cities if c.harbor}
    assert {"buenos_aires", "dar_es_salaam", "lima"} <= harbors


def test_world_edge_crossings_agree_with_the_board_edge() -> None:
    m = load_map("world")
    edge = m.board.west_edge_lon
    assert edge is not None
    lon = {c.id: c.lon + 360 if c.lon < edge else c.lon for c in m.cities}
    crossing = {r.id for r in m.routes if abs(lon[r.a] - lon[r.b]) > 180}
    assert crossing == {r.id for r in m.routes if r.crosses_antimeridian}
    assert len(crossing) == 10


@pytest.mark.parametrize("map_id", ["usa", "europe", "nordic", "pennsylvania"])
def test_route_spaces_lie_between_their_cities(map_id: str) -> None:
    m = load_map(map_id)
    spots: dict[str, list[tuple[float, float]]] = {
        c.id: [(c.x or 0.0, c.y or 0.0), *((s.x, s.y) for s in c.board_spots)] for c in m.cities
    }
    for r in m.routes:
        assert r.spaces is not None
        mid = (sum(s[0] for s in r.spaces) / r.length, sum(s[1] for s in r.spaces) / r.length)
        ax, ay = min(spots[r.a], key=lambda p: math.dist(p, mid))
        bx, by = min(spots[r.b], key=lambda p: math.dist(p, mid))
        dx, dy = bx - ax, by - ay
        length = math.hypot(dx, dy)
        for x, y, _ in r.spaces:
            t = ((x - ax) * dx + (y - ay) * dy) / length**2
            off = abs((x - ax) * dy - (y - ay) * dx) / length
            # Curved routes (Madrid-Cádiz, Madrid-Lisboa) bow out by up to ~0.65 of their span.
            assert -0.05 <= t <= 1.05 and off <= 0.7 * length, f"route {r.id} {r.a}-{r.b}"


REGIONS = {  # lat min, lat max, lon min, lon max
    "usa": (25, 52, -125, -70),
    "europe": (36, 61, -10, 42),
    "nordic": (55, 72, 4, 34),
    "pennsylvania": (39, 44, -81, -73),
    "iberia": (36, 44, -10, 4),
}


@pytest.mark.parametrize("map_id", list(REGIONS))
def test_cities_lie_in_the_maps_region(map_id: str) -> None:
    lat0, lat1, lon0, lon1 = REGIONS[map_id]
    for c in load_map(map_id).cities:
        assert lat0 <= c.lat <= lat1 and lon0 <= c.lon <= lon1, c.id


def _lstsq(rows: list[list[float]], ys: list[float]) -> list[float]:
    """Least squares by the normal equations (6 unknowns; no numpy needed)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)]
         + [sum(r[i] * y for r, y in zip(rows, ys, strict=True))] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda k: abs(a[k][i]))
        a[i], a[p] = a[p], a[i]
        for k in range(n):
            if k != i:
                f = a[k][i] / a[i][i]
                a[k] = [x - f * y for x, y in zip(a[k], a[i], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


@pytest.mark.parametrize("map_id", ["usa", "europe", "nordic", "pennsylvania", "iberia"])
def test_board_positions_follow_geography(map_id: str) -> None:
    # A smooth (quadratic) map from lat/lon to the board picture fits every city to
    # within a tenth of the board: catches a city placed in the wrong town or country.
    m = load_map(map_id)
    cs = [c for c in m.cities if c.x is not None and c.y is not None]
    rows = [[1.0, c.lon, c.lat, c.lon * c.lat, c.lon**2, c.lat**2] for c in cs]
    fx = _lstsq(rows, [c.x for c in cs])  # type: ignore[misc]
    fy = _lstsq(rows, [c.y for c in cs])  # type: ignore[misc]
    assert m.board.width is not None and m.board.height is not None
    limit = 0.1 * max(m.board.width, m.board.height)
    for c, row in zip(cs, rows, strict=True):
        px = sum(k * v for k, v in zip(fx, row, strict=True))
        py = sum(k * v for k, v in zip(fy, row, strict=True))
        assert math.dist((px, py), (c.x, c.y)) < limit, c.id  # type: ignore[arg-type]
