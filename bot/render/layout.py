"""Where everything goes on the map picture, in output pixels (pure geometry, cached per map).

Board-coordinate maps scale their reference picture; geo-only maps project
lat/lon (Miller cylindrical for a map that wraps east-west, equirectangular
otherwise). Routes without drawn spaces get their spaces laid out evenly
along the straight line between the two cities; parallel routes between the
same cities are set side by side.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import median

from maps.model import City, MapData, Route

from .fonts import font

LANDSCAPE_WIDTH = 1600
PORTRAIT_HEIGHT = 1500
GEO_MARGIN = 70.0
SPACE_LEN = 50.0  # output px, for spaces we lay out ourselves
SPACE_WIDTH = 17.0
CITY_RADIUS = 9.0
LABEL_SIZE = 16
TENT = 30  # px, an Iberia festival city's tent
HARBOR_SITE = 17  # px, a Rails & Sails harbor city's anchor
HARBOR_BUILT = 32  # px, a built harbor in its owner's colour

Point = tuple[float, float]


@dataclass(frozen=True)
class Space:
    x: float
    y: float
    angle: float  # degrees, direction of the long side, y pointing down
    length: float
    width: float

    def along(self, t: float) -> Point:
        """The point ``t`` half-lengths from the centre along the long side."""
        a = math.radians(self.angle)
        return (
            self.x + math.cos(a) * t * self.length / 2,
            self.y + math.sin(a) * t * self.length / 2,
        )


@dataclass(frozen=True)
class Label:
    text: str
    x: float  # top-left of the text box
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    wrap: bool  # the map continues at the other side (the World map)
    cities: dict[str, tuple[Point, ...]]  # dot positions (two for a city drawn twice)
    label_at: dict[str, Point]  # anchor the label is placed around
    routes: dict[int, tuple[Space, ...]]
    labels: dict[str, Label] = field(default_factory=dict)
    # Polylines of the land the train routes run over, for the background.
    land: tuple[tuple[Point, Point], ...] = ()
    # Graticule: lines of equal latitude or longitude, as point lists.
    grid: tuple[tuple[Point, ...], ...] = ()

    def space_copies(self, s: Space) -> list[Space]:
        """The space, plus its copy across the seam when it straddles a wrapping edge."""
        out = [s]
        if self.wrap:
            reach = s.length / 2 + s.width
            if s.x < reach:
                out.append(Space(s.x + self.width, s.y, s.angle, s.length, s.width))
            elif s.x > self.width - reach:
                out.append(Space(s.x - self.width, s.y, s.angle, s.length, s.width))
        return out


def harbor_spot(x: float, y: float) -> Point:
    """Centre of a harbor city's anchor: up and right of the city dot."""
    return x + 12, y - 12


def festival_spot(x: float, y: float) -> Point:
    """Centre of a festival city's tent: up and left of the city dot."""
    return x - 16, y - 17


def festival_badge_spot(x: float, y: float) -> Point:
    """Centre of the count badge on a festival tent (its upper-left corner)."""
    tx, ty = festival_spot(x, y)
    return tx - 14, ty - 10


def _marks(m: MapData, cities: dict[str, tuple[Point, ...]]) -> list[tuple[float, float, float]]:
    """Boxes (centre x, y, half size) of the symbols drawn beside cities, kept clear of labels."""
    out = []
    for c in m.cities:
        x, y = cities[c.id][0]
        if c.harbor:
            out.append((*harbor_spot(x, y), HARBOR_BUILT / 2))
        if c.festival_pile is not None:
            out.append((*festival_spot(x, y), TENT / 2))
            out.append((*festival_badge_spot(x, y), 10.0))
    return out


# ---------------------------------------------------------------- projections

Project = Callable[[float, float], Point]  # (lat, lon) -> output px


def _miller(lat: float) -> float:
    phi = math.radians(max(-80.0, min(80.0, lat)))
    return math.degrees(1.25 * math.log(math.tan(math.pi / 4 + 0.4 * phi)))


def _seam(m: MapData) -> float:
    """The longitude of the board edge that best matches the routes marked as crossing it."""
    lon = {c.id: c.lon for c in m.cities}
    best, best_cost = -180.0, math.inf
    for cand in range(-180, 180, 2):
        cost = 0.0
        for r in m.routes:
            dx = abs(((lon[r.a] - cand) % 360) - ((lon[r.b] - cand) % 360))
            cost += 360 - dx if r.crosses_antimeridian else dx
        if cost < best_cost:
            best, best_cost = float(cand), cost
    return best


def _spread(
    points: dict[str, Point],
    width: int,
    height: int,
    wrap: bool,
    gap: float = 100.0,
    rounds: int = 150,
) -> dict[str, Point]:
    """Push apart cities closer than ``gap`` (a crowded Europe on a world map), gently:
    each keeps a pull towards its true place, so the geography still reads."""
    ids = sorted(points)
    home = [points[i] for i in ids]
    pos = [list(p) for p in home]
    n = len(ids)
    for _ in range(rounds):
        moved = False
        for i in range(n):
            for j in range(i + 1, n):
                dx = pos[j][0] - pos[i][0]
                if wrap and abs(dx) > width / 2:
                    dx -= math.copysign(width, dx)
                dy = pos[j][1] - pos[i][1]
                d = math.hypot(dx, dy)
                if d >= gap:
                    continue
                moved = True
                if d < 1e-6:
                    dx, dy, d = 1.0, 0.0, 1.0
                push = (gap - d) * 0.25 / d
                pos[i][0] -= dx * push
                pos[i][1] -= dy * push
                pos[j][0] += dx * push
                pos[j][1] += dy * push
        for p, h in zip(pos, home, strict=True):
            p[0] += (h[0] - p[0]) * 0.03
            p[1] += (h[1] - p[1]) * 0.03
            p[1] = min(max(p[1], GEO_MARGIN * 0.6), height - GEO_MARGIN * 0.6)
            p[0] = (
                p[0] % width if wrap else min(max(p[0], GEO_MARGIN * 0.6), width - GEO_MARGIN * 0.6)
            )
        if not moved:
            break
    return {i: (p[0], p[1]) for i, p in zip(ids, pos, strict=True)}


def _geo_projection(m: MapData) -> tuple[Project, int, int, bool]:
    wrap = m.board.wraps_east_west or any(r.crosses_antimeridian for r in m.routes)
    lats = [c.lat for c in m.cities]
    if wrap:
        seam = m.board.west_edge_lon if m.board.west_edge_lon is not None else _seam(m)
        top, bottom = _miller(max(lats)), _miller(min(lats))
        width = LANDSCAPE_WIDTH
        k = width / 360.0
        height = round((top - bottom) * k + 2 * GEO_MARGIN)

        def project_wrap(lat: float, lon: float) -> Point:
            return (((lon - seam) % 360) * k, GEO_MARGIN + (top - _miller(lat)) * k)

        return project_wrap, width, height, True
    mid = math.radians((max(lats) + min(lats)) / 2)
    us = [c.lon * math.cos(mid) for c in m.cities]
    u0, u1, v0, v1 = min(us), max(us), min(lats), max(lats)
    du, dv = max(u1 - u0, 1e-6), max(v1 - v0, 1e-6)
    if du >= dv:
        k = (LANDSCAPE_WIDTH - 2 * GEO_MARGIN) / du
    else:
        k = (PORTRAIT_HEIGHT - 2 * GEO_MARGIN) / dv
    width, height = round(du * k + 2 * GEO_MARGIN), round(dv * k + 2 * GEO_MARGIN)

    def project(lat: float, lon: float) -> Point:
        return (GEO_MARGIN + (lon * math.cos(mid) - u0) * k, GEO_MARGIN + (v1 - lat) * k)

    return project, width, height, False


def _board_fit(m: MapData) -> tuple[float, int, int]:
    """Scale of a board-coordinate map, and its output size."""
    bw = m.board.width or max(c.x or 0.0 for c in m.cities) + 60
    bh = m.board.height or max(c.y or 0.0 for c in m.cities) + 60
    scale = LANDSCAPE_WIDTH / bw if bw >= bh else PORTRAIT_HEIGHT / bh
    return scale, round(bw * scale), round(bh * scale)


def _affine_lonlat(m: MapData) -> Project | None:
    """Least-squares affine map from (lon, lat) to board x/y, to draw a rough graticule."""
    pts = [(c.lon, c.lat, c.x, c.y) for c in m.cities if c.x is not None and c.y is not None]
    if len(pts) < 3:
        return None
    # Normal equations of [lon lat 1] * coef = target, solved by Cramer's rule (3x3).
    rows = [(lo, la, 1.0) for lo, la, _, _ in pts]
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(3)] for i in range(3)]

    def det(a: list[list[float]]) -> float:
        return (
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
            - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        )

    d = det(ata)
    if abs(d) < 1e-9:
        return None
    coefs = []
    for target in (2, 3):
        atb = [
            sum(r[i] * float(p[target] or 0.0) for r, p in zip(rows, pts, strict=True))
            for i in range(3)
        ]
        sol = []
        for col in range(3):
            mcol = [[atb[i] if j == col else ata[i][j] for j in range(3)] for i in range(3)]
            sol.append(det(mcol) / d)
        coefs.append(sol)
    (a, b, c), (e, f, g) = coefs

    def project(lat: float, lon: float) -> Point:
        return (a * lon + b * lat + c, e * lon + f * lat + g)

    return project


# ---------------------------------------------------------------- spaces


def _laid_out(pa: Point, pb: Point, length: int, offset: float) -> tuple[Space, ...]:
    """``length`` spaces evenly along pa-pb, shifted sideways by ``offset``."""
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    dist = math.hypot(dx, dy) or 1.0
    ux, uy = dx / dist, dy / dist
    nx, ny = -uy, ux
    margin = CITY_RADIUS + 3
    avail = max(dist - 2 * margin, length * 8.0)
    pitch = avail / length
    size = min(pitch * 0.88, SPACE_LEN * 1.15)
    width = min(SPACE_WIDTH, max(8.0, size * 0.45))
    angle = math.degrees(math.atan2(dy, dx))
    start = (dist - pitch * length) / 2 + pitch / 2
    return tuple(
        Space(
            pa[0] + ux * (start + i * pitch) + nx * offset,
            pa[1] + uy * (start + i * pitch) + ny * offset,
            angle,
            size,
            width,
        )
        for i in range(length)
    )


def _scaled_spaces(r: Route, scale: float, size: float) -> tuple[Space, ...]:
    assert r.spaces is not None
    return tuple(Space(x * scale, y * scale, ang, size, size * 0.34) for x, y, ang in r.spaces)


def _end_point(city: City, other: str, pos: Point, scale: float) -> Point:
    for spot in city.board_spots:
        if spot.routes_to == other:
            return (spot.x * scale, spot.y * scale)
    return pos


# ---------------------------------------------------------------- labels


def _place_labels(
    lay: Layout, names: dict[str, str], marks: list[tuple[float, float, float]]
) -> dict[str, Label]:
    """Greedy placement: each label takes the spot around its city that covers least."""
    f = font(LABEL_SIZE, "label")
    samples: list[Point] = []
    for spaces in lay.routes.values():
        for s in spaces:
            samples.extend(s.along(t) for t in (-0.7, 0.0, 0.7))
    dots = [p for pts in lay.cities.values() for p in pts]
    placed: list[Label] = []
    out: dict[str, Label] = {}
    gap = CITY_RADIUS + 3
    for cid in sorted(names, key=lambda c: (lay.label_at[c][1], lay.label_at[c][0])):
        text = names[cid]
        left, t, r, b = f.getbbox(text)
        w, h = r - left + 4, b - t + 4
        cx, cy = lay.label_at[cid]
        candidates = [
            (cx + gap, cy - h / 2),
            (cx - gap - w, cy - h / 2),
            (cx - w / 2, cy + gap - 2),
            (cx - w / 2, cy - gap - h + 2),
            (cx + gap - 4, cy + gap - 6),
            (cx + gap - 4, cy - gap - h + 6),
            (cx - gap - w + 4, cy + gap - 6),
            (cx - gap - w + 4, cy - gap - h + 6),
        ]
        best: Label | None = None
        best_cost = math.inf
        for rank, (x, y) in enumerate(candidates):
            cost = rank * 0.6
            if x < 2 or y < 2 or x + w > lay.width - 2 or y + h > lay.height - 2:
                cost += 500
            cost += 4 * sum(
                1 for px, py in samples if x - 3 <= px <= x + w + 3 and y - 3 <= py <= y + h + 3
            )
            cost += 60 * sum(
                1
                for px, py in dots
                if x - gap <= px <= x + w + gap and y - gap <= py <= y + h + gap
            )
            cost += 60 * sum(
                1
                for mx, my, half in marks
                if x - half < mx < x + w + half and y - half < my < y + h + half
            )
            for o in placed:
                ox = min(x + w, o.x + o.w) - max(x, o.x)
                oy = min(y + h, o.y + o.h) - max(y, o.y)
                if ox > -2 and oy > -2:
                    cost += 200 + (ox + 2) * (oy + 2)
            if cost < best_cost:
                best, best_cost = Label(text, x, y, w, h), cost
        assert best is not None
        best = Label(
            best.text,
            min(max(best.x, 2), lay.width - w - 2),
            min(max(best.y, 2), lay.height - h - 2),
            w,
            h,
        )
        placed.append(best)
        out[cid] = best
    return out


# ---------------------------------------------------------------- layout


def _graticule(
    project: Project,
    wrap: bool,
    width: int,
    height: int,
    lats: tuple[float, float],
    lons: tuple[float, float],
    step: float,
) -> tuple[tuple[Point, ...], ...]:
    lines: list[tuple[Point, ...]] = []
    lat0 = math.floor((lats[0] - 10) / step) * step
    lat1 = math.ceil((lats[1] + 10) / step) * step
    lon0 = math.floor((lons[0] - 20) / step) * step
    lon1 = math.ceil((lons[1] + 20) / step) * step
    if wrap:
        lon0, lon1 = -180.0, 180.0
    lat = lat0
    while lat <= lat1:
        if wrap:
            lines.append(((0.0, project(lat, 0)[1]), (float(width), project(lat, 0)[1])))
        else:
            lines.append(tuple(project(lat, lon0 + i * (lon1 - lon0) / 40) for i in range(41)))
        lat += step
    lon = lon0
    while lon <= lon1:
        lines.append(tuple(project(lat0 + i * (lat1 - lat0) / 40, lon) for i in range(41)))
        lon += step
    return tuple(lines)


def build_layout(m: MapData) -> Layout:
    by_id = {c.id: c for c in m.cities}
    names = {c.id: c.name for c in m.cities}
    cities: dict[str, tuple[Point, ...]] = {}
    label_at: dict[str, Point] = {}
    wrap = False
    lat_rng = (min(c.lat for c in m.cities), max(c.lat for c in m.cities))
    lon_rng = (min(c.lon for c in m.cities), max(c.lon for c in m.cities))
    if m.board.coordinates == "board" and all(c.x is not None for c in m.cities):
        scale, width, height = _board_fit(m)
        for c in m.cities:
            assert c.x is not None and c.y is not None
            label_at[c.id] = (c.x * scale, c.y * scale)
            cities[c.id] = tuple((s.x * scale, s.y * scale) for s in c.board_spots) or (
                label_at[c.id],
            )
        pitches = [
            math.dist(a[:2], b[:2])
            for r in m.routes
            if r.spaces
            for a, b in zip(r.spaces, r.spaces[1:], strict=False)
        ]
        size = (median(pitches) if pitches else SPACE_LEN / scale) * scale * 0.88
        fit = _affine_lonlat(m)
        grid_project: Project | None = (
            (lambda lat, lon: (fit(lat, lon)[0] * scale, fit(lat, lon)[1] * scale)) if fit else None
        )
    else:
        project, width, height, wrap = _geo_projection(m)
        scale, size = 1.0, SPACE_LEN
        spread = _spread({c.id: project(c.lat, c.lon) for c in m.cities}, width, height, wrap)
        for c in m.cities:
            label_at[c.id] = spread[c.id]
            cities[c.id] = (label_at[c.id],)
        grid_project = project

    groups: dict[tuple[str, str], list[Route]] = defaultdict(list)
    for r in m.routes:
        groups[(min(r.a, r.b), max(r.a, r.b))].append(r)
    routes: dict[int, tuple[Space, ...]] = {}
    land: list[tuple[Point, Point]] = []
    for (a, b), group in groups.items():
        group.sort(key=lambda r: r.id)
        for i, r in enumerate(group):
            pa = _end_point(by_id[a], b, label_at[a], scale)
            pb = _end_point(by_id[b], a, label_at[b], scale)
            if wrap and r.crosses_antimeridian:
                pb = (pb[0] + width, pb[1]) if pa[0] > pb[0] else (pb[0] - width, pb[1])
            if r.spaces is not None:
                routes[r.id] = _scaled_spaces(r, scale, size)
            else:
                offset = (i - (len(group) - 1) / 2) * SPACE_WIDTH * 1.25
                spaces = _laid_out(pa, pb, r.length, offset)
                if wrap:
                    spaces = tuple(
                        Space(s.x % width, s.y, s.angle, s.length, s.width) for s in spaces
                    )
                routes[r.id] = spaces
            if r.kind == "train" and r.ferry_locomotives == 0:
                land.append((pa, pb))
                if wrap and r.crosses_antimeridian:
                    shift = width if pb[0] < 0 else -width
                    land.append(((pa[0] + shift, pa[1]), (pb[0] + shift, pb[1])))
    grid: tuple[tuple[Point, ...], ...] = ()
    if grid_project is not None:
        span = max(lon_rng[1] - lon_rng[0], lat_rng[1] - lat_rng[0])
        step = 30.0 if wrap or span > 90 else 10.0 if span > 30 else 5.0 if span > 12 else 2.0
        grid = _graticule(grid_project, wrap, width, height, lat_rng, lon_rng, step)
    lay = Layout(width, height, wrap, cities, label_at, routes, land=tuple(land), grid=grid)
    return Layout(
        width,
        height,
        wrap,
        cities,
        label_at,
        routes,
        _place_labels(lay, names, _marks(m, cities)),
        tuple(land),
        grid,
    )
