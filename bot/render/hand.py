"""The private hand image: cards (grouped by kind on Rails & Sails), the map's own holdings
(shares, festival cards, pieces and harbors), tickets, and any decision waiting.

Sections are drawn top to bottom on a tall canvas that is cropped at the end, so a
section's height never has to be known before it is drawn.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from PIL import Image, ImageChops, ImageDraw

from bot import i18n
from bot.i18n import _, _n
from engine.board import board_for
from engine.planner import TicketPlan, plan_tickets
from engine.views import PrivateView, PublicView, TicketView
from maps.model import MapData

from .board import base_for, blend, paste
from .cards import card_parts, card_sprite
from .fonts import font
from .icons import FESTIVAL, SEA_INK, anchor_badge, piece_sprite, tent_sprite
from .palette import (
    ACCENT,
    CARD_ORDER,
    INK,
    PANEL_BG,
    PANEL_DIM,
    PANEL_FG,
    RGB,
    hex_rgb,
    ink_on,
    player_fill,
    player_shape,
    shade,
)
from .panel import fit_font, fit_text, sails, section_heading
from .shapes import mark_sprite
from .shares import company_fill, draw_tag, tag_width

WIDTH = 1120
PAD = 28
CARD_W, CARD_H = 86, 124
CARD_STEP = CARD_W + 14
TILE_W, TILE_H = (WIDTH - 2 * PAD - 20) // 2, 104
THUMB_W, THUMB_H = 150, TILE_H - 16
DONE: RGB = hex_rgb("#3fb16a")
CHIPS_PER_ROW = 5
CHIP_W, CHIP_H = (WIDTH - 2 * PAD - (CHIPS_PER_ROW - 1) * 12) // CHIPS_PER_ROW, 60

# The planner's small map: its width, and one ink per ticket (also in the hand palette).
PLAN_MAP_W = 620
PLAN_INKS: tuple[RGB, ...] = tuple(hex_rgb(c) for c in (
    # Bright and apart from the seats' colours (the seat's own claims are drawn in its own).
    "#ff2d95", "#00e5ff", "#b4ff00", "#ffffff", "#c77dff", "#7fffd4", "#ff8c69"))
CONTESTED: RGB = hex_rgb("#ff1a1a")
TAKEN: RGB = hex_rgb("#2b2b2b")  # others' claims on the planner's map

_thumb_lock = threading.Lock()
_thumbs: dict[str, Image.Image] = {}


def _empty_map(map_id: str) -> Image.Image:
    """The whole empty map, labels included (RGBA, a new image)."""
    base = base_for(map_id)
    img = base.image.copy()
    img.alpha_composite(base.top)
    return img


def _thumb(map_id: str) -> Image.Image:
    """A small picture of the empty map, for ticket tiles (cached per map)."""
    with _thumb_lock:
        found = _thumbs.get(map_id)
        if found is None:
            img = _empty_map(map_id)
            k = min(THUMB_W / img.width, THUMB_H / img.height)
            size = (round(img.width * k), round(img.height * k))
            found = _thumbs[map_id] = img.resize(size, Image.Resampling.LANCZOS)
        return found


def _heading(d: ImageDraw.ImageDraw, x: int, y: int, text: str, color: RGB = PANEL_DIM) -> None:
    d.text((x, y), text, font=font(16, "bold"), fill=color)


def _plan_base(map_id: str) -> Image.Image:
    """The empty map at the planner's size, RGB (cached per map)."""
    key = f"plan:{map_id}"
    with _thumb_lock:
        found = _thumbs.get(key)
        if found is None:
            img = _empty_map(map_id)
            size = (PLAN_MAP_W, round(img.height * PLAN_MAP_W / img.width))
            small = img.resize(size, Image.Resampling.LANCZOS).convert("RGB")
            # Faded, so the claims and the planned ways stand out.
            found = _thumbs[key] = Image.blend(small, Image.new("RGB", size, PANEL_BG), 0.35)
        return found


def _plan_line(p: TicketPlan) -> str:
    if p.done:
        return _("done")
    if not p.reachable:
        return _("no open way left")
    parts = [_n("{n} piece", "{n} pieces", p.pieces)]
    if p.stations:
        parts.append(_n("{n} station", "{n} stations", p.stations))
    missing = sum(p.missing.values())
    parts.append(_n("{n} card to draw", "{n} cards to draw", missing) if missing
                 else _("cards in hand"))
    if p.contested:
        parts.append(_n("{n} contested", "{n} contested", len(p.contested)))
    return ", ".join(parts)


Box = tuple[int, int, int, int]


@dataclass
class PlanSection:
    """The planner's section as ``hand_rows`` puts it together: its map drawn in the hand's
    ``palette`` and pasted as it is; its heading and lines are pieces, and the rest of its
    rows (``top`` to ``bottom``) is bare background, not looked over pixel by pixel for
    each hand."""

    palette: Image.Image
    top: int = 0
    bottom: int = 0
    map: tuple[int, int, Image.Image] | None = None


def _plans(img: Image.Image, y: int, plans: Sequence[TicketPlan], public: PublicView,
           own: int, map_id: str, section: PlanSection | None = None,
           pieces: list[Piece] | None = None) -> int:
    """The planner: a small map of the claims (this seat's in its colour, the others'
    dark) with each open ticket's cheapest way in its ink (borrowed routes thinner,
    contested routes ringed), and a line per ticket beside it. With ``section``, the map
    is drawn in its palette and kept there, its place on ``img`` left bare; the heading and
    the lines are kept pieces (``_place``: with ``pieces``, listed there, not pasted)."""
    lang = i18n.current()
    top = y
    _place(img, 0, y, ("plan-heading", lang), _plan_heading(lang), pieces)
    y += PLAN_HEADING_H
    mp = _plan_map(plans, public, own, map_id, None if section is None else section.palette)
    if section is None:
        img.paste(mp, (PAD, y))
    base = base_for(map_id)
    tx = PAD + mp.width + 20
    room = WIDTH - PAD - tx - 26
    ty = y
    for i, p in enumerate(plans):
        ink = DONE if p.done else PLAN_INKS[i % len(PLAN_INKS)]
        name = " → ".join(base.map.cities[_city_at(map_id, c)].name for c in p.cities)
        _place(img, tx, ty, ("plan-name", ink, name, room), _plan_name(ink, name, room),
               pieces)
        line = _plan_line(p)
        _place(img, tx, ty + PLAN_NAME_H, ("plan-line", line, room, lang),
               _plan_words(line, room), pieces)
        ty += PLAN_ROW_H
    bottom = max(y + mp.height, ty) + 24
    if section is not None:
        section.top, section.bottom, section.map = top, bottom, (PAD, y, mp)
    return bottom


# The planner's rows, kept as pieces: its heading's (in a language), a ticket's name with
# its ink beside it (the names are the map's, in every language), its plan's words.
PLAN_HEADING_H = 40
PLAN_NAME_H = 24  # bold 18 px: 17 above the baseline, 5 below
PLAN_ROW_H = 54  # the name and the plan's words (16 px: 15 above, 4 below)


@lru_cache(maxsize=16)
def _plan_heading(lang: str) -> Image.Image:
    img = Image.new("RGB", (WIDTH, PLAN_HEADING_H), PANEL_BG)
    section_heading(ImageDraw.Draw(img), PAD, 0, _("Ticket plan"),
                    _("routes still to claim; ringed: others may take them next"), size=22)
    return img


@lru_cache(maxsize=512)
def _plan_name(ink: RGB, name: str, room: int) -> Image.Image:
    img = Image.new("RGB", (room + 26 + PAD, PLAN_NAME_H), PANEL_BG)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((0, 4, 16, 20), 4, fill=ink)
    d.text((26, 0), fit_text(name, 18, "bold", room), font=font(18, "bold"), fill=PANEL_FG)
    return img


@lru_cache(maxsize=512)
def _plan_words(line: str, room: int) -> Image.Image:
    img = Image.new("RGB", (room + 26 + PAD, PLAN_ROW_H - PLAN_NAME_H), PANEL_BG)
    ImageDraw.Draw(img).text((26, 0), fit_text(line, 16, "regular", room), font=font(16),
                             fill=PANEL_DIM)
    return img


def _plan_map(plans: Sequence[TicketPlan], public: PublicView, own: int, map_id: str,
              palette: Image.Image | None) -> Image.Image:
    """The planner's map, RGB, or with ``palette`` in its indices: every line and ring is
    one plain colour (Pillow draws them without smoothing), so this is pixel for pixel the
    RGB map reduced to the palette, without reducing its ~250,000 pixels for each hand."""
    lay = base_for(map_id).layout
    if palette is None:
        mp = _plan_base(map_id).copy()

        def ink(rgb: RGB) -> int | RGB:
            return rgb
    else:
        mp = _plan_base_in(map_id, palette).copy()

        def ink(rgb: RGB) -> int | RGB:
            return _index_in(rgb, palette)
    md = ImageDraw.Draw(mp)
    lines = _plan_lines(map_id, mp.width)
    for rid, seat in public.claimed.items():
        fill = ink(player_fill(seat) if seat == own else TAKEN)
        for line in lines.get(rid, ()):
            md.line(line, fill=fill, width=6)
    k = mp.width / lay.width
    rings: list[tuple[float, float]] = []
    for i, p in enumerate(plans):
        colour = ink(PLAN_INKS[i % len(PLAN_INKS)])
        for rid, width in [*((r, 7) for r in p.routes), *((r, 3) for r in p.borrowed)]:
            segments = lines.get(rid, ())
            for line in segments:
                md.line(line, fill=ink(INK), width=width + 4)
                md.line(line, fill=colour, width=width)
            if rid in p.contested and segments:
                mid = _plan_mids(map_id, mp.width)[rid]
                rings.append(mid)
        if not p.done:
            for city in (p.cities[0], p.cities[-1]):
                for cx, cy in lay.cities.get(city, ())[:1]:
                    md.ellipse((cx * k - 7, cy * k - 7, cx * k + 7, cy * k + 7), fill=colour,
                               outline=ink(INK), width=2)
    for x, yy in rings:
        md.ellipse((x - 11, yy - 11, x + 11, yy + 11), outline=ink(INK), width=5)
        md.ellipse((x - 10, yy - 10, x + 10, yy + 10), outline=ink(CONTESTED), width=3)
    return mp


Segment = tuple[float, float, float, float]


@lru_cache(maxsize=16)
def _plan_lines(map_id: str, width: int) -> dict[int, tuple[Segment, ...]]:
    """Each route's spaces as lines on the planner's map ``width`` px wide (worked out once
    per map, not for every claim on every hand)."""
    lay = base_for(map_id).layout
    k = width / lay.width
    out = {}
    for rid, spaces in lay.routes.items():
        segments = []
        for sp in (c for s in spaces for c in lay.space_copies(s)):
            (ax, ay), (bx, by) = sp.along(-1), sp.along(1)
            segments.append((ax * k, ay * k, bx * k, by * k))
        out[rid] = tuple(segments)
    return out


@lru_cache(maxsize=16)
def _plan_mids(map_id: str, width: int) -> dict[int, tuple[float, float]]:
    """Where a contested route's ring goes: its middle space's centre."""
    lay = base_for(map_id).layout
    k = width / lay.width
    out = {}
    for rid, spaces in lay.routes.items():
        copies = [c for s in spaces for c in lay.space_copies(s)]
        if copies:
            mid = copies[len(copies) // 2]
            out[rid] = (mid.x * k, mid.y * k)
    return out


def _plan_base_in(map_id: str, palette: Image.Image) -> Image.Image:
    """``_plan_base`` reduced to a hand palette (kept per map and palette; the palette is
    kept with it, so its ``id`` names no other)."""
    key = (map_id, id(palette))
    with _indexed_lock:
        found = _plan_bases.get(key)
    if found is None:
        found = (palette, _reduced(_plan_base(map_id), palette))
        with _indexed_lock:
            _plan_bases[key] = found
    return found[1]


def _index_in(rgb: RGB, palette: Image.Image) -> int:
    """The palette index a pixel of colour ``rgb`` is reduced to."""
    key = (rgb, id(palette))
    found = _inks.get(key)
    if found is None:
        index = _reduced(Image.new("RGB", (1, 1), rgb), palette).getpixel((0, 0))
        assert isinstance(index, int)
        found = _inks[key] = (palette, index)
    return found[1]


@lru_cache(maxsize=16)
def _city_index(map_id: str) -> dict[str, int]:
    return {c.id: i for i, c in enumerate(base_for(map_id).map.cities)}


def _city_at(map_id: str, city: str) -> int:
    return _city_index(map_id)[city]


# Tickets ----------------------------------------------------------------------------------


def _tile_frame(
    img: Image.Image, x: int, y: int, w: int, t: TicketView, map_id: str, offered: bool
) -> tuple[int, int]:
    """Tile background, edge and thumbnail with the ticket's cities; returns where the
    text column starts and how wide it may be (the value badge takes the right end)."""
    base = base_for(map_id)
    d = ImageDraw.Draw(img)
    edge = ACCENT if offered else (DONE if t.connected else shade(PANEL_BG, 1.5))
    d.rounded_rectangle(
        (x, y, x + w, y + TILE_H),
        radius=12,
        fill=shade(PANEL_BG, 1.15),
        outline=edge,
        width=3 if offered or t.connected else 1,
    )
    thumb = _thumb(map_id)
    tx = x + 8 + (THUMB_W - thumb.width) // 2
    ty = y + (TILE_H - thumb.height) // 2
    paste(img, thumb, tx, ty)
    k = thumb.width / base.layout.width
    pts = [base.layout.cities[c][0] for c in t.cities if c in base.layout.cities]
    scaled = [(tx + px * k, ty + py * k) for px, py in pts]
    for a, b in itertools.pairwise(scaled):
        # On a wrapping map a leg across the seam would span the picture: leave it out.
        if not base.layout.wrap or abs(a[0] - b[0]) < thumb.width / 2:
            d.line((a, b), fill=(*INK, 255), width=3)
    for i, (px, py) in enumerate(scaled):
        # A tour starts at a green dot: its order matters.
        start = len(scaled) > 2 and i == 0
        fill = DONE if start else (214, 58, 47)
        d.ellipse((px - 5, py - 5, px + 5, py + 5), fill=fill, outline=INK, width=2)
    return x + THUMB_W + 22, w - THUMB_W - 40 - 70


def _status(t: TicketView, offered: bool) -> tuple[str, RGB]:
    if offered:
        return _("on offer"), ACCENT
    if t.connected:
        return _("✓ connected"), DONE
    return _("not yet connected"), PANEL_DIM


def _value_badge(d: ImageDraw.ImageDraw, bx: int, by: int, t: TicketView) -> None:
    d.ellipse(
        (bx - 28, by - 28, bx + 28, by + 28),
        fill=ACCENT if not t.connected else DONE,
        outline=INK,
        width=2,
    )
    d.text((bx, by), str(t.points), font=font(24, "bold"), fill=INK, anchor="mm")


def _ticket_tile(
    img: Image.Image, x: int, y: int, t: TicketView, map_id: str, offered: bool
) -> None:
    names = {c.id: c.name for c in base_for(map_id).map.cities}
    d = ImageDraw.Draw(img)
    cx, text_w = _tile_frame(img, x, y, TILE_W, t, map_id, offered)
    route = " – ".join(names.get(c, c) for c in t.cities)
    f = font(20, "bold")
    lines = (
        [route]
        if f.getlength(route) <= text_w
        else [
            names.get(t.cities[0], t.cities[0]) + " –",
            " – ".join(names.get(c, c) for c in t.cities[1:]),
        ]
    )
    for i, line in enumerate(lines[:2]):
        # A long city name is set smaller rather than cut.
        d.text((cx, y + 14 + i * 25), line, font=fit_font(line, 20, "bold", text_w, 14),
               fill=PANEL_FG)
    status, col = _status(t, offered)
    tag = f"{status}   #{t.id}" + (_("   long") if t.long else "")
    d.text(
        (cx, y + TILE_H - 30), tag, font=font(15, "bold" if t.connected else "regular"), fill=col
    )
    _value_badge(d, x + TILE_W - 42, y + TILE_H // 2, t)


def _tour_tile(
    img: Image.Image, x: int, y: int, t: TicketView, m: MapData, map_id: str, offered: bool
) -> None:
    """A Rails & Sails tour (3-5 cities, full width): the cities numbered in printed order,
    and its three values: in order, in any order, and missed."""
    w = WIDTH - 2 * PAD
    names = {c.id: c.name for c in m.cities}
    d = ImageDraw.Draw(img)
    cx, _width = _tile_frame(img, x, y, w, t, map_id, offered)
    printed = next((p for p in m.tickets if p.id == t.id), None)
    values_w = 190
    text_w = x + w - 84 - values_w - cx
    d.text((cx, y + 10), _("TOUR, in this order"), font=font(12, "bold"), fill=PANEL_DIM)
    # Cities as numbered steps, wrapped over two lines if needed.
    f, small = font(18, "bold"), font(12, "bold")
    px, py = cx, y + 30
    for i, city in enumerate(t.cities):
        name = names.get(city, city)
        step = 20 + f.getlength(name) + (26 if i < len(t.cities) - 1 else 0)
        if px > cx and px + step > cx + text_w:
            px, py = cx, py + 26
        d.ellipse((px, py + 2, px + 18, py + 20), fill=DONE if i == 0 else PANEL_FG)
        d.text((px + 9, py + 11), str(i + 1), font=small, fill=INK, anchor="mm")
        d.text((px + 22, py + 11), name, font=f, fill=PANEL_FG, anchor="lm")
        px += 22 + int(f.getlength(name))
        if i < len(t.cities) - 1:
            d.text((px + 12, py + 11), "→", font=f, fill=PANEL_DIM, anchor="mm")
            px += 26
    status, col = _status(t, offered)
    d.text(
        (cx, y + TILE_H - 24),
        f"{status}   #{t.id}",
        font=font(14, "bold" if t.connected else "regular"),
        fill=col,
    )
    if printed is not None and printed.points_any_order is not None:
        vx = x + w - 84
        rows = [
            (_("in order  +{n}", n=t.points), ACCENT),
            (_("any order  +{n}", n=printed.points_any_order), PANEL_FG),
            (_("missed  −{n}", n=printed.fail_points), hex_rgb("#e0564a")),
        ]
        for i, (text, colour) in enumerate(rows):
            d.text((vx, y + 24 + i * 22), text, font=font(15, "bold"), fill=colour, anchor="ra")
    _value_badge(d, x + w - 42, y + TILE_H // 2, t)


# Tiles drawn already, by everything they show: a player's tickets come back in every
# hand they are sent. Sized for the tickets of a few dozen games at once (~200 KB each).
TILE_CACHE = 512
_tiles_lock = threading.Lock()
_tiles: OrderedDict[tuple[object, ...], Image.Image] = OrderedDict()


def _shown(t: TicketView) -> tuple[object, ...]:
    """Everything of a ticket its tile shows."""
    return t.id, tuple(t.cities), t.points, t.long, t.connected


# A piece the hand pastes as it is (opaque): where, its cache key and its pixels.
Piece = tuple[int, int, tuple[object, ...], Image.Image]


def _place(img: Image.Image, x: int, y: int, key: tuple[object, ...], piece: Image.Image,
           pieces: list[Piece] | None) -> None:
    """Paste an opaque cached ``piece`` at (x, y), or, with ``pieces``, leave it to be
    pasted later in the palette (``hand_rows``)."""
    if pieces is None:
        img.paste(piece, (x, y))
    else:
        pieces.append((x, y, key, piece))


def _tile(img: Image.Image, x: int, y: int, w: int, key: tuple[object, ...],
          draw: Callable[[Image.Image], None], pieces: list[Piece] | None) -> None:
    """A ticket tile of width ``w`` at (x, y): ``draw`` draws it at (0, 0) on a tile of the
    panel's background, kept by ``key`` (with the language: a tile holds text)."""
    key = (*key, w, i18n.current())
    with _tiles_lock:
        tile = _tiles.get(key)
        if tile is not None:
            _tiles.move_to_end(key)
    if tile is None:
        tile = Image.new("RGBA", (w + 1, TILE_H + 1), (*PANEL_BG, 255))
        draw(tile)
        tile = tile.convert("RGB")  # opaque: pasted as it is
        with _tiles_lock:
            _tiles[key] = tile
            while len(_tiles) > TILE_CACHE:
                _tiles.popitem(last=False)
    # Opaque: the tile's corners are the panel's background.
    _place(img, x, y, ("tile", *key), tile, pieces)


def _tickets(
    img: Image.Image, y: int, tickets: list[TicketView], map_id: str, offered: bool,
    pieces: list[Piece] | None,
) -> int:
    """Tours on full-width rows first, then two-city tickets two per row."""
    m = base_for(map_id).map
    tours = [t for t in tickets if len(t.cities) > 2]
    pairs = [t for t in tickets if len(t.cities) <= 2]
    for t in tours:
        _tile(img, PAD, y, WIDTH - 2 * PAD, (map_id, *_shown(t), offered),
              partial(_tour_tile, x=0, y=0, t=t, m=m, map_id=map_id, offered=offered), pieces)
        y += TILE_H + 14
    for i, t in enumerate(pairs):
        col, row = i % 2, i // 2
        _tile(img, PAD + col * (TILE_W + 20), y + row * (TILE_H + 14), TILE_W,
              (map_id, *_shown(t), offered),
              partial(_ticket_tile, x=0, y=0, t=t, map_id=map_id, offered=offered), pieces)
    return y + ((len(pairs) + 1) // 2) * (TILE_H + 14)


# Cards ------------------------------------------------------------------------------------


def _card_groups(view: PrivateView, m: MapData) -> list[tuple[str, list[str]]]:
    """(heading, card names) per group. Classic maps: one group in suit order; Rails &
    Sails: train cards (plain before harbor-symbol ones), ship cards, jokers."""
    held = [c for c, n in view.hand.items() if n > 0]
    order = {c: i for i, c in enumerate(CARD_ORDER)}

    def suit_key(name: str) -> tuple[int, str, str]:
        suit, kind = card_parts(name)
        return (order.get(suit, 99), suit, kind)

    if not sails(m):
        known = [c for c in CARD_ORDER if c in held]
        return [(_("Train cards"), known + sorted(c for c in held if c not in CARD_ORDER))]
    trains = sorted((c for c in held if card_parts(c)[1] in ("train", "harbor")), key=suit_key)
    ships = sorted(
        (c for c in held if card_parts(c)[1] in ("ship", "double")),
        key=lambda c: (card_parts(c)[1] == "double", *suit_key(c)),
    )
    jokers = [c for c in held if card_parts(c)[1] == "locomotive"]
    n = view.hand
    worth = sum(n[c] * (2 if card_parts(c)[1] == "double" else 1) for c in ships)
    groups = [
        (_("Train cards  ({n})", n=sum(n[c] for c in trains)), trains),
        (_("Jokers  ({n})", n=sum(n[c] for c in jokers)), jokers),
        (_("Ship cards  ({n} cards = {ships} ships)", n=sum(n[c] for c in ships), ships=worth),
         ships),
    ]
    return [(h, cards) for h, cards in groups if cards]


def _card_piece(name: str, count: int, jokers: bool) -> tuple[int, Image.Image]:
    return _card_piece_in(name, count, jokers, i18n.current())


@lru_cache(maxsize=512)
def _card_piece_in(name: str, count: int, jokers: bool, lang: str) -> tuple[int, Image.Image]:
    """A card with its count under it, on the panel's background (opaque): how far left of
    the card the picture starts (a count wider than the card), and the picture."""
    sprite = card_sprite(name, CARD_W, CARD_H, jokers)
    text, f = f"× {count}", font(22, "bold")
    tx, ty = CARD_W // 2, CARD_H + 6
    left, _top, right, bottom = f.getbbox(text, anchor="ma")
    # A margin round the text's box: its antialiased edge stays inside the picture.
    x0 = min(0, tx + int(left) - 2)
    img = Image.new("RGB", (max(sprite.width, tx + int(right) + 2) - x0,
                            max(sprite.height, ty + int(bottom) + 2)), PANEL_BG)
    blend(img, sprite, -x0, 0)
    ImageDraw.Draw(img).text((tx - x0, ty), text, font=f, fill=PANEL_FG, anchor="ma")
    return x0, img


def _cards(img: Image.Image, y: int, view: PrivateView, m: MapData,
           pieces: list[Piece] | None) -> int:
    """Card groups flowed left to right, each under its heading; returns the y below."""
    d = ImageDraw.Draw(img)
    jokers = sails(m)
    groups = _card_groups(view, m)
    if not groups:
        _heading(d, PAD, y, _("Train cards"))
        d.text((PAD, y + 40), _("No cards in hand."), font=font(18), fill=PANEL_DIM)
        return y + 90
    per_row = (WIDTH - 2 * PAD + 14) // CARD_STEP
    x, row_y, slot_h = PAD, y, 30 + CARD_H + 44
    for heading, cards in groups:
        need = min(len(cards), per_row) * CARD_STEP
        title_w = font(16, "bold").getlength(heading) + 20
        if x > PAD and x + max(need, title_w) > WIDTH - PAD + 14:
            x, row_y = PAD, row_y + slot_h
        _heading(d, x, row_y, heading)
        for i, name in enumerate(cards):
            if i and i % per_row == 0:
                x, row_y = PAD, row_y + slot_h - 30
            dx, piece = _card_piece(name, view.hand[name], jokers)
            _place(img, x + dx, row_y + 30, ("card", name, view.hand[name], jokers), piece,
                   pieces)
            x += CARD_STEP
        x += max(0, int(title_w) - len(cards) * CARD_STEP) + 24  # a gap between groups
    y = row_y + slot_h
    if jokers:
        d.text(
            (PAD, y - 8),
            _("⚓ harbor symbol (harbors need 2 train + 2 ship cards with it)  ·  ×2 double ship"
              "  ·  a Joker stands for any card"),
            font=font(14),
            fill=PANEL_DIM,
        )
        y += 22
    return y + 12


# Module sections ----------------------------------------------------------------------------


def _shares(img: Image.Image, y: int, view: PrivateView, m: MapData) -> int:
    """One chip per company held: its colour, the count and the share numbers; then the
    companies to choose from when a share choice waits."""
    d = ImageDraw.Draw(img)
    held = [(c, sorted(n)) for c, n in view.shares.items() if n]
    if held:
        total = sum(len(numbers) for _company, numbers in held)
        _heading(d, PAD, y, _n("Shares  ({total} in {n} company)",
                               "Shares  ({total} in {n} companies)", len(held), total=total))
        y += 34
        for i, (company, numbers) in enumerate(held):
            col, row = i % CHIPS_PER_ROW, i // CHIPS_PER_ROW
            x, cy = PAD + col * (CHIP_W + 12), y + row * (CHIP_H + 12)
            fill = company_fill(m, company)
            ink = ink_on(fill)
            d.rounded_rectangle(
                (x, cy, x + CHIP_W, cy + CHIP_H), radius=10, fill=fill, outline=INK, width=2
            )
            d.text((x + 12, cy + 8), company, font=font(20, "bold"), fill=ink)
            d.text(
                (x + CHIP_W - 12, cy + 6),
                f"× {len(numbers)}",
                font=font(22, "bold"),
                fill=ink,
                anchor="ra",
            )
            listed = "  ".join(f"#{n}" for n in numbers)
            d.text(
                (x + 12, cy + 36),
                fit_text(listed, 14, "regular", CHIP_W - 24),
                font=font(14),
                fill=ink,
            )
        y += -(-len(held) // CHIPS_PER_ROW) * (CHIP_H + 12) + 8
    if view.share_options:
        label = _("Share choice waiting:")
        d.text((PAD, y + 12), label, font=font(18, "bold"), fill=ACCENT, anchor="lm")
        x = PAD + int(font(18, "bold").getlength(label)) + 14
        for company in view.share_options:
            draw_tag(d, x, y, company, company_fill(m, company), size=15)
            x += tag_width(company, 15) + 8
        y += 44
    return y


def _pile_name(m: MapData, pile: str) -> str:
    fest = m.rules.festivals
    return next((p.name for p in fest.piles if p.id == pile), pile) if fest else pile


def _festivals(img: Image.Image, y: int, view: PrivateView, m: MapData) -> int:
    """Iberia: a tile per festival pile held (tent, city, count, what the set scores now),
    then the cities to choose from when a festival choice waits."""
    fest = m.rules.festivals
    if fest is None:
        return y
    d = ImageDraw.Draw(img)
    held = sorted(
        ((p, n) for p, n in view.festival_cards.items() if n), key=lambda pn: (-pn[1], pn[0])
    )
    total = sum(n for _pile, n in held)
    _heading(d, PAD, y, _("Festival cards  ({n})", n=total) if held else _("Festival cards"))
    y += 34
    if not held:
        d.text(
            (PAD, y),
            _("None yet: claim a route into a festival city to take the cards lying there."),
            font=font(16),
            fill=PANEL_DIM,
        )
        y += 34
    tent = tent_sprite(36)
    for i, (pile, n) in enumerate(held):
        col, row = i % CHIPS_PER_ROW, i // CHIPS_PER_ROW
        x, cy = PAD + col * (CHIP_W + 12), y + row * (CHIP_H + 12)
        d.rounded_rectangle(
            (x, cy, x + CHIP_W, cy + CHIP_H),
            radius=10,
            fill=shade(PANEL_BG, 1.15),
            outline=FESTIVAL,
            width=2,
        )
        blend(img, tent, x + 8, cy + (CHIP_H - tent.height) // 2)
        d.text(
            (x + 52, cy + 7),
            fit_text(_pile_name(m, pile), 16, "bold", CHIP_W - 60),
            font=font(16, "bold"),
            fill=PANEL_FG,
        )
        count = f"× {n}"
        d.text((x + 52, cy + 29), count, font=font(20, "bold"), fill=PANEL_FG)
        points = fest.points(pile, n)
        d.text(
            (x + 60 + font(20, "bold").getlength(count), cy + 34),
            _n("= {n} pt now", "= {n} pts now", points),
            font=font(14),
            fill=PANEL_DIM,
        )
    y += -(-len(held) // CHIPS_PER_ROW) * (CHIP_H + 12) + 8 if held else 0
    if view.festival_options:
        label = _("Festival choice waiting: take the cards of")
        d.text((PAD, y + 12), label, font=font(18, "bold"), fill=ACCENT, anchor="lm")
        x = PAD + int(font(18, "bold").getlength(label)) + 14
        options = view.festival_options
        for i, pile in enumerate(options):
            name = _pile_name(m, pile)
            x += draw_tag(d, x, y, name, FESTIVAL, size=15) + 8
            if i < len(options) - 1:
                word = _("or")
                d.text((x + 4, y + 12), word, font=font(16), fill=PANEL_DIM, anchor="lm")
                x += int(font(16).getlength(word)) + 12
        y += 44
    return y + 6


def _pieces(img: Image.Image, y: int, view: PrivateView, m: MapData) -> int:
    """Rails & Sails: trains and ships in supply and in reserve (secret), harbors left."""
    rs = m.rules.rails_and_sails
    if rs is None or not view.pieces:
        return y
    d = ImageDraw.Draw(img)
    p = view.pieces
    trains, ships = p.get("trains", 0), p.get("ships", 0)
    _heading(d, PAD, y, _("Your pieces  (secret: the board shows only their total)"))
    y += 32
    if trains + ships == 0:
        d.text(
            (PAD, y + 4),
            _("Choose your pieces: {n} in all, at most {trains} trains and {ships} ships "
              "(suggested {suggested_trains} + {suggested_ships}).", n=rs.pieces,
              trains=rs.max_trains, ships=rs.max_ships, suggested_trains=rs.suggested_trains,
              suggested_ships=rs.suggested_ships),
            font=font(17, "bold"),
            fill=ACCENT,
        )
        return y + 44
    seat = player_fill(view.seat)
    chip_w = (WIDTH - 2 * PAD - 24) // 3
    chips: list[tuple[Callable[[int, int], None], str, str]] = []

    def icon(kind: str) -> Callable[[int, int], None]:
        return lambda x, cy: blend(img, piece_sprite(kind, seat, 52), x, cy + 14)

    chips.append((icon("train"), _n("{n} train", "{n} trains", trains),
                  _("reserve {n}", n=p.get("reserve_trains", 0))))
    chips.append((icon("ship"), _n("{n} ship", "{n} ships", ships),
                  _("reserve {n}", n=p.get("reserve_ships", 0))))

    def anchors(x: int, cy: int) -> None:
        for i in range(rs.harbors_per_player):  # one anchor per harbor; built ones dimmed
            fill = seat if i < view.harbors_left else shade(PANEL_BG, 1.5)
            blend(img, anchor_badge(24, fill), x + (i % 2) * 26, cy + 6 + (i // 2) * 26)

    built = rs.harbors_per_player - view.harbors_left
    chips.append((anchors, _n("{n} harbor left", "{n} harbors left", view.harbors_left),
                   _("{n} built", n=built)))
    for i, (draw_icon, big, small) in enumerate(chips):
        x = PAD + i * (chip_w + 12)
        d.rounded_rectangle(
            (x, y, x + chip_w, y + 64), radius=10, fill=shade(PANEL_BG, 1.15), outline=SEA_INK
        )
        draw_icon(x + 12, y)
        d.text((x + 80, y + 8), big, font=font(22, "bold"), fill=PANEL_FG)
        d.text((x + 80, y + 38), small, font=font(15), fill=PANEL_DIM)
    return y + 64 + 22


# The image --------------------------------------------------------------------------------


def _summary(view: PrivateView, m: MapData) -> str:
    cards = sum(view.hand.values())
    parts = [m.name, _n("{n} card", "{n} cards", cards),
             _n("{n} ticket", "{n} tickets", len(view.tickets))]
    shares = sum(len(n) for n in view.shares.values())
    if shares:
        parts.append(_n("{n} share", "{n} shares", shares))
    festival = sum(view.festival_cards.values())
    if festival:
        parts.append(_n("{n} festival card", "{n} festival cards", festival))
    if view.pieces:
        p = view.pieces
        parts.append(_n("{n} train", "{n} trains", p.get("trains", 0)) + " + "
                     + _n("{n} ship", "{n} ships", p.get("ships", 0)))
    return "  ·  ".join(parts)


def _offer_heading(view: PrivateView) -> str:
    low, high = view.keep_min, view.keep_max
    if high is not None and high == low:
        keep = _("keep exactly {n}", n=low)
    elif high is not None:
        keep = _("keep {low} to {high}", low=low, high=high)
    else:
        keep = _("keep at least {n}", n=low)
    draft = view.keep_max is not None and not view.draft_packet
    return _("Ticket draft: {keep}", keep=keep) if draft else _("On offer: {keep}", keep=keep)


def _height_bound(view: PrivateView) -> int:
    """More than the sections can take: the canvas is cropped to what was drawn."""
    kinds = len(view.hand)
    cards = (3 + kinds // 8) * (30 + CARD_H + 44) + 40
    tiles = (len(view.tickets) + len(view.draft_packet) + len(view.offered) + 3) * (TILE_H + 14)
    chips = (3 + (len(view.festival_cards) + len(view.shares)) // CHIPS_PER_ROW) * (CHIP_H + 12)
    return 400 + cards + tiles + chips + 200


def _plans_height(view: PrivateView, map_id: str, public: PublicView | None) -> int:
    """At most what the planner's section takes (0 without it): its map is as tall as the
    map's shape makes it (Nordic's is taller than wide)."""
    if public is None or not view.tickets:
        return 0
    width, height = base_for(map_id).image.size
    return 72 + max(round(height * PLAN_MAP_W / width), 54 * len(view.tickets))


def _height_guess(view: PrivateView) -> int:
    """What the sections usually take, and a little more: the canvas is filled whole, so
    the loose ``_height_bound`` (~2,000 px for a 500 px hand) costs ~1 ms a hand."""
    def rows(tickets: list[TicketView]) -> int:
        tours = sum(1 for t in tickets if len(t.cities) > 2)
        return tours + (len(tickets) - tours + 1) // 2
    tiles = rows(view.tickets) + rows(view.draft_packet) + rows(view.offered)
    extras = view.festival_cards or view.shares or view.share_options or view.pieces
    return (400 + (1 + len(view.hand) // 9) * (30 + CARD_H + 44) + tiles * (TILE_H + 14)
            + (300 if extras else 0))


def draw_hand(view: PrivateView, map_id: str, public: PublicView | None = None,
              plans: Sequence[TicketPlan] | None = None) -> Image.Image:
    """The hand; with ``public``, the planner's small map under the tickets (``plans``:
    the planner's answer, if known)."""
    plan = _plans_height(view, map_id, public)
    img, bottom = _draw_hand(view, map_id, _height_guess(view) + plan, public=public,
                             plans=plans)
    if bottom > img.height:  # taller than guessed: again, on a canvas sure to hold it
        img, bottom = _draw_hand(view, map_id, _height_bound(view) + plan, public=public,
                                 plans=plans)
    assert bottom <= img.height, "the hand outgrew its canvas"
    return img.crop((0, 0, WIDTH, bottom - 14))


# The pieces (tiles, cards with their counts) already reduced to a map's hand palette, by
# map and key: sized like the tiles' cache (~60 KB a tile).
_indexed_lock = threading.Lock()
_indexed: OrderedDict[tuple[object, ...], Image.Image] = OrderedDict()
# The planner's empty maps reduced to a hand palette, and the palette's index of each ink:
# by map (or colour) and the palette's id, the palette kept alongside.
_plan_bases: dict[tuple[str, int], tuple[Image.Image, Image.Image]] = {}
_inks: dict[tuple[RGB, int], tuple[Image.Image, int]] = {}


def _reduced(img: Image.Image, palette: Image.Image) -> Image.Image:
    return img.quantize(palette=palette, dither=Image.Dither.NONE)


def _indexed_piece(map_id: str, key: tuple[object, ...], piece: Image.Image,
                   palette: Image.Image) -> Image.Image:
    full = (map_id, *key)
    with _indexed_lock:
        found = _indexed.get(full)
        if found is not None:
            _indexed.move_to_end(full)
            return found
    found = _reduced(piece, palette)
    with _indexed_lock:
        _indexed[full] = found
        while len(_indexed) > TILE_CACHE:
            _indexed.popitem(last=False)
    return found


# A canvas of the hand's background, to find what was drawn on a hand's rows (only the
# size both share is compared: rows are taken this many at a time).
_BLANK = Image.new("RGB", (WIDTH, 512), PANEL_BG)


def _drawn(img: Image.Image, top: int, bottom: int) -> list[tuple[int, int, int, int]]:
    """Boxes that hold every pixel of ``img``'s rows ``top``..``bottom`` that is not the
    background (the rest of those rows is background)."""
    boxes = []
    for y in range(top, bottom, _BLANK.height):
        end = min(bottom, y + _BLANK.height)
        box = ImageChops.difference(img.crop((0, y, WIDTH, end)), _BLANK).getbbox()
        if box is not None:
            boxes.append((box[0], y + box[1], box[2], y + box[3]))
    return boxes


def hand_rows(view: PrivateView, map_id: str, palette: Image.Image,
              public: PublicView | None = None,
              plans: Sequence[TicketPlan] | None = None) -> Image.Image:
    """The hand reduced to ``palette`` (map ``map_id``'s), pixel for pixel what reducing
    ``draw_hand`` gives, with a zero column on the left (``png.encode_rows``). The rows of
    the cached pieces (ticket tiles, cards with their counts) hold only them on the
    background: they are pasted from their reduced copies, and of the other rows only
    what was drawn on the background is reduced (reducing is most of a hand's cost; three
    quarters of those rows are bare background)."""
    pieces: list[Piece] = []
    section = PlanSection(palette)
    plan = _plans_height(view, map_id, public)
    img, bottom = _draw_hand(view, map_id, _height_guess(view) + plan, pieces, public, section,
                             plans, canvas=True)
    if bottom > img.height:  # the canvas is dropped: what was cut off is not known
        pieces, section = [], PlanSection(palette)
        img, bottom = _draw_hand(view, map_id, _height_bound(view) + plan, pieces, public,
                                 section, plans, canvas=True)
    assert bottom <= img.height, "the hand outgrew its canvas"
    height = bottom - 14
    out = Image.new("P", (WIDTH + 1, height), _index_in(PANEL_BG, palette))
    out.paste(0, (0, 0, 1, height))  # PNG's filter bytes
    out.putpalette(palette.getpalette() or [])
    spans: list[tuple[int, int]] = []
    known = [(y, y + p.height) for _x, y, _key, p in pieces]
    if section.map is not None:
        known.append((section.top, section.bottom))
    for y0, y1 in sorted(known):
        if spans and y0 <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], y1))
        else:
            spans.append((y0, y1))
    top = 0
    drawn: list[Box] = []
    for y0, y1 in [*spans, (height, height)]:
        drawn += _drawn(img, top, min(y0, height))
        top = max(top, y1)
    for box in drawn:
        out.paste(_reduced(img.crop(box), palette), (1 + box[0], box[1]))
    for x, y, key, piece in pieces:
        out.paste(_indexed_piece(map_id, key, piece, palette), (1 + x, y))
    if section.map is not None:
        x, y, indexed = section.map
        out.paste(indexed, (1 + x, y))
    _give_back(img, drawn)  # nothing else was drawn on it: the pieces were not pasted
    return out


# Per thread, a hand's RGB canvas kept bare between hands: a new one (~6 MB, its memory
# new to the process) cost ~2 ms a hand to fill.
_canvases = threading.local()


def _canvas(height: int) -> Image.Image:
    """A bare canvas of the hand's background at least ``height`` px tall, the thread's
    own (out of the thread's keeping until ``_give_back``: a hand that fails leaves none
    half drawn behind)."""
    found: Image.Image | None = getattr(_canvases, "image", None)
    _canvases.image = None
    if found is None or found.height < height:
        found = Image.new("RGB", (WIDTH, height), PANEL_BG)
    return found


def _give_back(img: Image.Image, drawn: Sequence[Box]) -> None:
    """Keep ``img`` for the thread's next hand, bare again: ``drawn`` holds every pixel
    drawn on it."""
    for box in drawn:
        img.paste(PANEL_BG, box)
    _canvases.image = img


def _draw_hand(view: PrivateView, map_id: str, height: int,
               pieces: list[Piece] | None = None,
               public: PublicView | None = None,
               section: PlanSection | None = None,
               plans: Sequence[TicketPlan] | None = None, *,
               canvas: bool = False) -> tuple[Image.Image, int]:
    """The hand drawn on a canvas ``height`` px tall (what does not fit is cut off) and
    the y its drawing needs; with ``pieces``, the cached pieces are listed there, not
    pasted; with ``section``, the planner's map is kept there (``_plans``); ``plans``:
    the planner's answer, if the caller has it; ``canvas``: on the thread's kept canvas
    (``_canvas``: at least that tall), which the caller gives back bare."""
    m = base_for(map_id).map
    # RGB: the hand is opaque, and an RGBA canvas costs a conversion of the whole image.
    img = _canvas(height) if canvas else Image.new("RGB", (WIDTH, height), PANEL_BG)
    d = ImageDraw.Draw(img)
    blend(img, mark_sprite(player_shape(view.seat), player_fill(view.seat), 40), PAD, PAD)
    d.text((PAD + 54, PAD - 2), _("Your hand"), font=font(30, "title"), fill=PANEL_FG)
    d.text(
        (PAD + 56, PAD + 36),
        fit_text(_summary(view, m), 16, "regular", WIDTH - 2 * PAD - 56),
        font=font(16),
        fill=PANEL_DIM,
    )
    y = _cards(img, PAD + 74, view, m, pieces)
    y = _pieces(img, y, view, m)
    y = _festivals(img, y, view, m)
    if view.shares or view.share_options:
        y = _shares(img, y, view, m)
    done = sum(1 for t in view.tickets if t.connected)
    _heading(d, PAD, y, _("Tickets  ({done} of {n} connected)", done=done, n=len(view.tickets)))
    y += 34
    if not view.tickets:
        d.text((PAD, y + 10), _("No tickets kept yet."), font=font(18), fill=PANEL_DIM)
        y += 60
    else:
        y = _tickets(img, y, view.tickets, map_id, offered=False, pieces=pieces)
    if public is not None and view.tickets:
        if plans is None:
            plans = plan_tickets(board_for(map_id), public, view)
        y = _plans(img, y + 8, plans, public, view.seat, map_id, section, pieces)
    if view.draft_packet:
        y += 16
        section_heading(d, PAD, y, _("Ticket draft: pick one"),
                        _("the rest of the packet passes to your neighbour"), size=22,
                        fill=ACCENT)
        y += 44
        y = _tickets(img, y, view.draft_packet, map_id, offered=True, pieces=pieces)
    if view.offered:
        y += 16
        d.text((PAD, y), _offer_heading(view), font=font(22, "bold"), fill=ACCENT)
        y += 44
        y = _tickets(img, y, view.offered, map_id, offered=True, pieces=pieces)
    return img, y + PAD
