"""The map layer: a cached static base per map, and the pieces a view adds on top."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot import i18n
from engine.views import PublicView
from maps import load_map
from maps.model import MapData, Route

from .background import background
from .fonts import font
from .icons import SEA_INK, anchor_badge, count_badge, tent_sprite
from .layout import (
    CITY_RADIUS,
    HARBOR_BUILT,
    HARBOR_SITE,
    LABEL_SIZE,
    TENT,
    Layout,
    Space,
    build_layout,
    festival_badge_spot,
    festival_spot,
    harbor_spot,
)
from .palette import (
    INK,
    PAPER,
    hex_rgb,
    ink_on,
    player_fill,
    player_shape,
    shade,
    suit_fill,
    suit_letter,
)
from .shapes import SpaceStyle, city_sprite, house_sprite, space_sprite

HOUSE = 24  # px, station icon


@dataclass(frozen=True)
class Base:
    map: MapData
    layout: Layout
    image: Image.Image  # RGBA: backdrop and unclaimed routes; never drawn on
    top: Image.Image  # RGBA, transparent: city dots and labels, laid over claimed routes


_lock = threading.Lock()
_bases: dict[tuple[str, str], Base] = {}


def base_for(map_id: str) -> Base:
    """The static layer of a map in the language being drawn (its route spaces carry the
    colours' letters), built once per process and language (thread-safe)."""
    key = (map_id, i18n.current())
    found = _bases.get(key)
    if found is not None:
        return found
    with _lock:
        found = _bases.get(key)
        if found is None:
            found = _bases[key] = _build(load_map(map_id))
    return found


def warm_pieces(map_id: str, seats: int = 5) -> None:
    """Draw (and cache) every route space as claimed by each seat and as closed, so no
    board waits for them (the render workers do this once, at start-up)."""
    base = base_for(map_id)
    for r in base.map.routes:
        styles = [claimed_style(r, seat) for seat in range(seats)] + [CLOSED_STYLE]
        for sp in base.layout.routes[r.id]:
            for copy in base.layout.space_copies(sp):
                for st in styles:
                    space_sprite(copy, st)


def paste(target: Image.Image, src: Image.Image, x: int, y: int) -> None:
    """alpha_composite ``src`` at (x, y), clipped to the target."""
    sx, sy = max(0, -x), max(0, -y)
    w = min(src.width - sx, target.width - max(0, x))
    h = min(src.height - sy, target.height - max(0, y))
    if w <= 0 or h <= 0:
        return
    target.alpha_composite(src, (max(0, x), max(0, y)), (sx, sy, sx + w, sy + h))


def blend(target: Image.Image, src: Image.Image, x: int, y: int) -> None:
    """RGBA ``src`` at (x, y) over an opaque RGB ``target``, by its alpha: the pixels
    ``paste`` gives on an opaque RGBA target, without an RGBA canvas to convert."""
    target.paste(src, (x, y), src)


def unclaimed_style(r: Route, index: int) -> SpaceStyle:
    fill = suit_fill(r.color)
    outline = shade(fill, 0.55) if r.color != "white" else (120, 116, 108)
    return SpaceStyle(
        fill=fill,
        outline=outline,
        outline_width=1.4,
        dashed=r.tunnel,
        ship=r.kind == "ship",
        letter=suit_letter(r.color),
        icon=index < r.ferry_locomotives,
        shadow=True,
    )


def claimed_style(r: Route, seat: int) -> SpaceStyle:
    return SpaceStyle(
        fill=player_fill(seat),
        outline=INK,
        outline_width=2.0,
        ship=r.kind == "ship",
        mark=player_shape(seat),
        shadow=True,
        grow=3.0,
        halo=PAPER,
    )


CLOSED_STYLE = SpaceStyle(
    fill=(196, 192, 184), outline=(140, 136, 128), outline_width=1.2, grow=1.0, alpha=235
)


def _draw_spaces(
    img: Image.Image, lay: Layout, spaces: tuple[Space, ...], style_of: list[SpaceStyle],
    ox: int = 0, oy: int = 0,
) -> None:
    for sp, st in zip(spaces, style_of, strict=True):
        for copy in lay.space_copies(sp):
            s = space_sprite(copy, st)
            paste(img, s.image, s.x - ox, s.y - oy)


def _share_tags(top: Image.Image, m: MapData, lay: Layout) -> None:
    """Pennsylvania: the companies whose shares a route pays, as small tags beside it."""
    shares = getattr(m.rules, "shares", None)
    colours = {c.id: c.color for c in getattr(shares, "companies", [])}
    d = ImageDraw.Draw(top)
    f = font(10, "bold")
    for r in m.routes:
        if not r.shares:
            continue
        spaces = lay.routes[r.id]
        mid = spaces[len(spaces) // 2]
        a = math.radians(mid.angle)
        nx, ny = -math.sin(a), math.cos(a)
        if r.double_of is not None:  # the side away from the twin
            twin = lay.routes[r.double_of][0]
            if (twin.x - mid.x) * nx + (twin.y - mid.y) * ny > 0:
                nx, ny = -nx, -ny
        cx, cy = mid.x + nx * (mid.width / 2 + 9), mid.y + ny * (mid.width / 2 + 9)
        widths = [f.getlength(c) + 8 for c in r.shares]
        x = cx - (sum(widths) + 2 * (len(widths) - 1)) / 2
        for company, w in zip(r.shares, widths, strict=True):
            code = colours.get(company, "#555555")
            fill = hex_rgb(code)
            d.rounded_rectangle((x, cy - 7, x + w, cy + 7), radius=4, fill=fill, outline=INK)
            d.text((x + w / 2, cy), company, font=f, fill=ink_on(fill), anchor="mm")
            x += w + 2


def _build(m: MapData) -> Base:
    lay = build_layout(m)
    img = background(lay, m.id)
    d = ImageDraw.Draw(img)
    # A faint track line under each route ties its spaces together.
    for r in m.routes:
        sp = lay.routes[r.id]
        if len(sp) > 1 and not lay.wrap:
            d.line([(s.x, s.y) for s in sp], fill=(*shade(suit_fill(r.color), 0.7), 60), width=3)
    for r in m.routes:
        _draw_spaces(img, lay, lay.routes[r.id], [unclaimed_style(r, i) for i in range(r.length)])
    top = Image.new("RGBA", img.size, (0, 0, 0, 0))
    _share_tags(top, m, lay)
    dot = city_sprite(CITY_RADIUS)
    for pts in lay.cities.values():
        for x, y in pts:
            paste(top, dot, round(x - dot.width / 2), round(y - dot.height / 2))
    td = ImageDraw.Draw(top)
    for c in m.cities:
        for x, y in lay.cities[c.id][:1]:
            if c.harbor:  # Rails & Sails: a harbor may be built here
                site = anchor_badge(HARBOR_SITE, SEA_INK, PAPER)
                hx, hy = harbor_spot(x, y)
                paste(top, site, round(hx - site.width / 2), round(hy - site.height / 2))
            if c.festival_pile is not None:  # Iberia: festival cards are laid here
                tent = tent_sprite(TENT)
                tx, ty = festival_spot(x, y)
                paste(top, tent, round(tx - tent.width / 2), round(ty - tent.height / 2))
    f = font(LABEL_SIZE, "label")
    for lab in lay.labels.values():
        td.text(
            (lab.x + 2, lab.y + 2),
            lab.text,
            font=f,
            fill=INK,
            anchor="la",
            stroke_width=3,
            stroke_fill=(*PAPER, 235),
        )
    # Re-anchor: getbbox includes the font's top bearing, drawn text starts at its own offset.
    return Base(m, lay, img, top)


Box = tuple[int, int, int, int]  # left, top, right, bottom (exclusive), in map pixels


# Shapes Pillow draws (badges) are not the same when cut by the image edge: a region is
# drawn with this much room around it, more than any badge's size, then cut out.
REGION_PAD = 32


def draw_map(view: PublicView, box: Box | None = None) -> Image.Image:
    """The map with this view's claims, closed routes, stations and pending tunnel (RGBA).

    With ``box``, only that part of it, pixel for pixel as the whole map has it there
    (every piece is drawn shifted and clipped), so a changed corner can be redrawn alone.
    """
    if box is None:
        return _draw_map(view, None)
    lay = base_for(view.map_id).layout
    outer = (max(0, box[0] - REGION_PAD), max(0, box[1] - REGION_PAD),
             min(lay.width, box[2] + REGION_PAD), min(lay.height, box[3] + REGION_PAD))
    x, y = box[0] - outer[0], box[1] - outer[1]
    return _draw_map(view, outer).crop((x, y, x + box[2] - box[0], y + box[3] - box[1]))


def _draw_map(view: PublicView, box: Box | None) -> Image.Image:
    base = base_for(view.map_id)
    m, lay = base.map, base.layout
    routes = {r.id: r for r in m.routes}
    ox, oy = (box[0], box[1]) if box is not None else (0, 0)
    img = base.image.crop(box) if box is not None else base.image.copy()
    for rid in sorted(view.closed):
        if rid in routes and rid not in view.claimed:
            _draw_spaces(img, lay, lay.routes[rid], [CLOSED_STYLE] * routes[rid].length,
                         ox, oy)
    for rid, seat in sorted(view.claimed.items()):
        if rid in routes:
            st = claimed_style(routes[rid], seat)
            _draw_spaces(img, lay, lay.routes[rid], [st] * routes[rid].length, ox, oy)
    if view.tunnel is not None and view.tunnel.route in routes:
        r = routes[view.tunnel.route]
        st = SpaceStyle(
            fill=suit_fill(r.color),
            outline=player_fill(view.tunnel.seat),
            outline_width=3.4,
            dashed=False,
            letter="?",
            shadow=True,
            grow=2.0,
        )
        _draw_spaces(img, lay, lay.routes[r.id], [st] * r.length, ox, oy)
    img.alpha_composite(base.top, (0, 0), box or (0, 0))
    d = ImageDraw.Draw(img)
    piles = view.festival_piles
    if piles:
        for c in m.cities:
            n = piles.get(c.festival_pile or "", 0)
            for x, y in lay.cities.get(c.id, ())[:1] if n > 0 else ():
                bx, by = festival_badge_spot(x, y)
                count_badge(d, bx - ox, by - oy, n)
    for city, seat in sorted(view.harbors.items()):
        for x, y in lay.cities.get(city, ())[:1]:
            badge = anchor_badge(HARBOR_BUILT, player_fill(seat), halo=True)
            hx, hy = harbor_spot(x, y)
            paste(img, badge, round(hx - badge.width / 2) - ox, round(hy - badge.height / 2) - oy)
    for city, seat in sorted(view.stations.items()):
        for x, y in lay.cities.get(city, ())[:1]:
            house = house_sprite(player_fill(seat), HOUSE)
            paste(img, house, round(x - HOUSE / 2) - ox, round(y - HOUSE * 0.62) - oy)
    return img


# How far a piece may reach from its centre: a space's half-diagonal plus its halo,
# shadow and growth; a city's station, harbor badge and festival badge.
SPACE_MARGIN = 12
CITY_REACH = 64


def _clip(box: tuple[float, float, float, float], lay: Layout) -> Box | None:
    left, top = max(0, math.floor(box[0])), max(0, math.floor(box[1]))
    right, bottom = min(lay.width, math.ceil(box[2])), min(lay.height, math.ceil(box[3]))
    return (left, top, right, bottom) if left < right and top < bottom else None


def route_boxes(map_id: str, route: int) -> list[Box]:
    """Boxes that hold everything any style of this route draws (one per wrap copy)."""
    lay = base_for(map_id).layout
    boxes: list[Box] = []
    for sp in lay.routes.get(route, ()):
        for copy in lay.space_copies(sp):
            r = math.hypot(copy.length, copy.width) / 2 + SPACE_MARGIN
            box = _clip((copy.x - r, copy.y - r, copy.x + r, copy.y + r), lay)
            if box is not None:
                boxes.append(box)
    return boxes


def city_boxes(map_id: str, city: str) -> list[Box]:
    lay = base_for(map_id).layout
    out = []
    for x, y in lay.cities.get(city, ())[:1]:
        box = _clip((x - CITY_REACH, y - CITY_REACH, x + CITY_REACH, y + CITY_REACH), lay)
        if box is not None:
            out.append(box)
    return out
