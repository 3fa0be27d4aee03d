"""Board, hand and final-score images from engine views (Pillow).

Every function is pure and thread-safe: the static layer of each map is
built once under a lock and copied before anything is drawn on it.
"""

from __future__ import annotations

import functools
import io
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from PIL import Image

from bot import i18n
from engine.phases import Phase
from engine.planner import TicketPlan
from engine.views import PrivateView, PublicPlayer, PublicView
from maps.model import MapData

from .board import Box, base_for, city_boxes, draw_map, route_boxes
from .demo import empty_view, final_view, hand_view
from .final import WIDTH as FINAL_WIDTH
from .final import draw_scores
from .hand import PLAN_INKS, draw_hand, hand_rows
from .highlight import LastMove, highlight
from .palette import CARD_ORDER, PANEL_BG, player_fill
from .panel import (
    HEADING_H,
    PHASE_H,
    TITLE_H,
    acting,
    key_line,
    legend_block,
    market_block,
    market_width,
    phase_text,
    player_name,
    player_row,
    player_stats,
    players_block,
    players_heading,
    stacks_block,
    status_block,
    table_shape,
    title_block,
    title_line,
)
from .png import encode_indexed, encode_rows
from .shares import companies, company_fill

__all__ = ["MAX_BYTES", "draw_scores", "render_board", "render_board_png", "render_final",
           "render_hand"]

Format = Literal["PNG", "WEBP"]
MAX_BYTES = 1_500_000
# The header above a landscape map, in three columns: the title, whose move and the players
# table (A); the market, the deck and the key (B); the last move's inset (C).
HEADER_H = 400
STACKS_H = 40  # a row of share stacks under the header (maps with shares)
COL_A_W = 748
COL_B_X = 24 + COL_A_W + 28
TITLE_Y = 14 + TITLE_H  # where whose move is told under the title in column A
TABLE_Y = TITLE_Y + PHASE_H + 6  # where the players table starts in column A
STATUS_Y = 132  # the deck's line and banners under the market
KEY_Y = 232  # the key's lines under them
SIDE_W = 500
SIDE_PART_H = 360  # what a part of the side panel usually takes, and some more
INSET_H = 340  # the inset's slot at the bottom of a side panel


def encode(img: Image.Image, fmt: str = "PNG", palette: Image.Image | None = None) -> bytes:
    """WebP, or a 256-colour PNG: the images are flat art, and a palette PNG is
    several times smaller and faster to write than a true-colour one. Mapping
    to a ready ``palette`` is much faster than choosing one."""
    rgb = img.convert("RGB") if img.mode != "RGB" else img
    buf = io.BytesIO()
    if fmt.upper() == "WEBP":
        rgb.save(buf, "WEBP", quality=90, method=2)
    elif fmt.upper() == "PNG":
        if palette is not None:  # our writer: no per-row filter search, unchanged rows kept
            return encode_indexed(rgb.quantize(palette=palette, dither=Image.Dither.NONE))
        pal = rgb.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        pal.save(buf, "PNG", compress_level=3)
    else:
        raise ValueError(f"unknown image format {fmt!r}; use PNG or WEBP")
    return buf.getvalue()


def header_height(map_id: str) -> int:
    """The panel above a landscape map: taller on maps with share stacks to show."""
    return HEADER_H + (STACKS_H if base_for(map_id).map.rules.shares is not None else 0)


def map_offset(map_id: str) -> tuple[int, int]:
    """Where the map's top-left corner sits in the board image."""
    lay = base_for(map_id).layout
    return (0, header_height(map_id)) if lay.width >= lay.height else (0, 0)


def panel_image(view: PublicView) -> tuple[Image.Image, tuple[int, int], tuple[int, int]]:
    """The information panel (RGB): above a landscape map, beside a portrait one.

    Returns the panel, where it goes in the board image and where the map goes."""
    base = base_for(view.map_id)
    m, lay = base.map, base.layout
    shares = m.rules.shares is not None
    if lay.width >= lay.height:
        top = header_height(view.map_id)
        img = Image.new("RGB", (lay.width, top), PANEL_BG)
        market_w = market_width(view)
        title_block(img, 24, 14, COL_A_W, view, m)
        players_block(img, 24, TABLE_Y, COL_A_W, view, m)
        y = market_block(img, COL_B_X, 14, market_w, view, m)
        status_block(img, COL_B_X, max(y, STATUS_Y), market_w, view, m)
        if view.tunnel is None:
            key_line(img, COL_B_X, KEY_Y, market_w, m)
        if shares:
            stacks_block(img, 24, HEADER_H - 4, lay.width - 48, view, m)
        return img, (0, 0), (0, top)
    img = Image.new("RGB", (SIDE_W, lay.height), PANEL_BG)
    x, w = 28, SIDE_W - 52
    y = title_block(img, x, 20, w, view, m, most=2) + 6
    y = status_block(img, x, y, w, view, m) + 18
    y = players_block(img, x, y, w, view, m) + 28
    y = market_block(img, x, y, w, view, m) + 28
    if shares:
        y = stacks_block(img, x, y, w, view, m) + 28
    y = legend_block(img, x, y, w, m)
    # Only as tall as drawn (the board is the panel's colour below): less to reduce.
    return img.crop((0, 0, SIDE_W, min(lay.height, y + 28))), (lay.width, 0), (0, 0)


@functools.cache
def inset_slot(map_id: str) -> Box:
    """Where the last move's inset goes on the board: the header's third column above a
    landscape map, the bottom of the side panel beside a portrait one; never on the map."""
    lay = base_for(map_id).layout
    if lay.width >= lay.height:
        return (COL_B_X + market_width(empty_view(map_id)) + 28, 14, lay.width - 24,
                HEADER_H - 14)
    return (lay.width + 28, lay.height - 24 - INSET_H, lay.width + SIDE_W - 24, lay.height - 24)


# Parts of a board's panel already reduced to the board palette, by everything they show:
# a claim's board draws its title and the rows of the players whose figures or turn
# changed; the headings, the other rows, the market and the key or legend come from here.
PANEL_PARTS = 512
_parts_lock = threading.Lock()
_parts: OrderedDict[tuple[object, ...], tuple[Image.Image, int | None]] = OrderedDict()


def _part(map_id: str, box: Box, key: tuple[object, ...] | None,
          draw: Callable[[Image.Image, int, int], int | None],
          below: int | None = None) -> tuple[Image.Image, int | None]:
    """The part of the panel in ``box``, reduced: ``draw(canvas, dx, dy)`` draws it shifted
    by (dx, dy) on a canvas the size of ``box``. The panel is one flat colour under every
    part and no part draws outside its box, so its pixels are those it has on the whole
    panel. Kept by ``key`` (None: drawn every time), with what ``draw`` returned (a y on
    the canvas: where the part ends), as a y on the panel; with ``below``, the part is cut
    ``below`` px under it (the box's bottom is only a bound). The language is part of the
    key."""
    full = (map_id, box, below, i18n.current(), key)
    if key is not None:
        with _parts_lock:
            found = _parts.get(full)
            if found is not None:
                _parts.move_to_end(full)
                return found
    canvas = Image.new("RGB", (box[2] - box[0], box[3] - box[1]), PANEL_BG)
    end = draw(canvas, -box[0], -box[1])
    if below is not None and end is not None:
        canvas = canvas.crop((0, 0, canvas.width, min(canvas.height, end + below)))
    found = _indexed(canvas, map_id), None if end is None else end + box[1]
    if key is not None:
        with _parts_lock:
            _parts[full] = found
            while len(_parts) > PANEL_PARTS:
                _parts.popitem(last=False)
    return found


def _row(c: Image.Image, dx: int, dy: int, *, x: int, y: int, w: int, row_h: int,
         p: PublicPlayer, view: PublicView, m: MapData) -> int:
    """A player's row of the table, drawn shifted by (dx, dy); returns where it ends."""
    player_row(c, x + dx, y + dy, w, p, view, m)
    return y + dy + row_h


def _row_shows(p: PublicPlayer, view: PublicView, m: MapData) -> tuple[object, ...]:
    """Everything a player's row of the table shows (the key of its kept part)."""
    return (p.seat, player_name(p), p.seat == acting(view), tuple(player_stats(p, view, m)))


def _side_rows(view: PublicView) -> tuple[Image.Image, tuple[int, int], tuple[int, int]]:
    """``panel_image``'s panel beside a portrait map, reduced, from parts: each block is
    drawn on a canvas down to the panel's bottom and cut where it ends."""
    base = base_for(view.map_id)
    m, lay, map_id = base.map, base.layout, view.map_id
    img = Image.new("P", (SIDE_W, lay.height), panel_index(map_id))
    x, w = 28, SIDE_W - 52

    def put(y: int, key: tuple[object, ...] | None,
            draw: Callable[[Image.Image, int, int], int], gap: int,
            tall: int = SIDE_PART_H) -> int:
        # On a canvas ``tall`` px tall (filling one down to the panel's bottom cost more
        # than drawing the part); again down to the bottom if the part did not fit.
        bottom = min(lay.height, y + tall)
        part, end = _part(map_id, (0, y, SIDE_W, bottom), key, draw, gap)
        assert end is not None
        if end + gap > bottom < lay.height:
            part, end = _part(map_id, (0, y, SIDE_W, lay.height), key, draw, gap)
            assert end is not None
        img.paste(part, (0, y))
        return end + gap

    def top(c: Image.Image, dx: int, dy: int) -> int:
        y = title_block(c, x + dx, 20 + dy, w, view, m, most=2) + 6
        return status_block(c, x + dx, y, w, view, m)

    y = put(0, None, top, 18)
    _name_w, compact, row_h = table_shape(view, m, w)
    if not compact:
        at = y
        y = put(y, ("heading", w),
                lambda c, dx, dy: players_heading(c, x + dx, at + dy, w, view, m), 0)
    for p in view.players:
        y = put(y, ("row", row_h, *_row_shows(p, view, m)),
                functools.partial(_row, x=x, y=y, w=w, row_h=row_h, p=p, view=view, m=m), 0,
                row_h)
    y += 28
    at = y
    y = put(y, ("market", tuple(view.market)) if view.tunnel is None else None,
            lambda c, dx, dy: market_block(c, x + dx, at + dy, w, view, m), 28)
    if m.rules.shares is not None:
        at = y
        y = put(y, None, lambda c, dx, dy: stacks_block(c, x + dx, at + dy, w, view, m), 28)
    at = y
    y = put(y, ("legend",), lambda c, dx, dy: legend_block(c, x + dx, at + dy, w, m), 28)
    return img.crop((0, 0, SIDE_W, min(lay.height, y))), (lay.width, 0), (0, 0)


def panel_rows(view: PublicView) -> tuple[Image.Image, tuple[int, int], tuple[int, int]]:
    """``panel_image`` reduced to the board palette, pixel for pixel, put together from
    its parts (``_part``). Above a landscape map: column A's title and whose move, and its
    players table (a part per row); column B's market, deck line and key; the share
    stacks under them."""
    base = base_for(view.map_id)
    m, lay = base.map, base.layout
    if lay.width < lay.height:
        return _side_rows(view)
    map_id = view.map_id
    top = header_height(map_id)
    img = Image.new("P", (lay.width, top), panel_index(map_id))
    shares = m.rules.shares is not None
    main = HEADER_H - 4 if shares else top  # the share stacks' row below
    market_w = market_width(view)
    a_end, b_end = COL_B_X - 14, COL_B_X + market_w + 14  # the columns' parts' edges

    def put(box: Box, key: tuple[object, ...] | None,
            draw: Callable[[Image.Image, int, int], int | None]) -> None:
        img.paste(_part(map_id, box, key, draw)[0], box[:2])

    def title(c: Image.Image, dx: int, dy: int) -> int:
        return title_block(c, 24 + dx, 14 + dy, COL_A_W, view, m)

    line = title_line(view, m, COL_A_W)
    if line[3]:  # the turn under a long name: one part
        put((0, 0, a_end, TABLE_Y), None, title)
    else:  # the name and turn, and whose move (each part has the whole block, cut)
        put((0, 0, a_end, TITLE_Y), ("title", *line), title)
        put((0, TITLE_Y, a_end, TABLE_Y), ("phase", acting(view), phase_text(view)), title)
    _name_w, compact, row_h = table_shape(view, m, COL_A_W)
    first = TABLE_Y if compact else TABLE_Y + HEADING_H
    labels = tuple(label for label, _v, _t in player_stats(view.players[0], view, m)
                   ) if view.players else ()
    put((0, TABLE_Y, a_end, first), ("heading", labels),
        lambda c, dx, dy: players_heading(c, 24 + dx, TABLE_Y + dy, COL_A_W, view, m))
    y = first
    for p in view.players:
        if y >= main:
            break
        put((0, y, a_end, min(main, y + row_h)), ("row", row_h, *_row_shows(p, view, m)),
            functools.partial(_row, x=24, y=y, w=COL_A_W, row_h=row_h, p=p, view=view, m=m))
        y += row_h
    if view.tunnel is None:
        put((a_end, 0, b_end, STATUS_Y), ("market", tuple(view.market)),
            lambda c, dx, dy: market_block(c, COL_B_X + dx, 14 + dy, market_w, view, m))
        put((a_end, STATUS_Y, b_end, KEY_Y), None,
            lambda c, dx, dy: status_block(c, COL_B_X + dx, STATUS_Y + dy, market_w, view, m))
        put((a_end, KEY_Y, b_end, main), ("key", market_w),
            lambda c, dx, dy: key_line(c, COL_B_X + dx, KEY_Y + dy, market_w, m))
    else:
        def market_and_status(c: Image.Image, dx: int, dy: int) -> int:
            y = market_block(c, COL_B_X + dx, 14 + dy, market_w, view, m)
            return status_block(c, COL_B_X + dx, max(y, STATUS_Y + dy), market_w, view, m)

        put((a_end, 0, b_end, main), None, market_and_status)
    if shares:
        put((0, main, lay.width, top), None,
            lambda c, dx, dy: stacks_block(c, 24 + dx, main + dy, lay.width - 48, view, m))
    return img, (0, 0), (0, top)


@dataclass(frozen=True)
class MapKey:
    """Everything the map layer of a board shows: boards with equal keys share it."""

    map_id: str
    claimed: frozenset[tuple[int, int]]
    closed: frozenset[int]
    tunnel: frozenset[tuple[int, int]]
    stations: frozenset[tuple[str, int]]
    harbors: frozenset[tuple[str, int]]
    festival_piles: frozenset[tuple[str, int]]
    lang: str = i18n.DEFAULT  # the route spaces' letters are the colours' in this language

    @classmethod
    def of(cls, view: PublicView) -> MapKey:
        tunnel = () if view.tunnel is None else ((view.tunnel.route, view.tunnel.seat),)
        return cls(view.map_id, frozenset(view.claimed.items()), frozenset(view.closed),
                   frozenset(tunnel), frozenset(view.stations.items()),
                   frozenset(view.harbors.items()), frozenset(view.festival_piles.items()),
                   i18n.current())

    def changes(self, other: MapKey) -> int:
        return (len(self.claimed ^ other.claimed) + len(self.closed ^ other.closed)
                + len(self.tunnel ^ other.tunnel) + len(self.stations ^ other.stations)
                + len(self.harbors ^ other.harbors)
                + len(self.festival_piles ^ other.festival_piles))

    def changed_boxes(self, other: MapKey) -> list[Box]:
        """Map regions that hold every pixel that differs between the two layers."""
        boxes: list[Box] = []
        routes = ({r for r, _ in self.claimed ^ other.claimed} | (self.closed ^ other.closed)
                  | {r for r, _ in self.tunnel ^ other.tunnel})
        for route in sorted(routes):
            boxes += route_boxes(self.map_id, route)
        cities = {c for c, _ in (self.stations ^ other.stations) | (self.harbors ^ other.harbors)}
        piles = {p for p, _ in self.festival_piles ^ other.festival_piles}
        if piles:
            cities |= {c.id for c in base_for(self.map_id).map.cities if c.festival_pile in piles}
        for city in sorted(cities):
            boxes += city_boxes(self.map_id, city)
        return merge_boxes(boxes)


def merge_boxes(boxes: list[Box]) -> list[Box]:
    """Overlapping boxes joined, so no region is drawn twice."""
    out: list[Box] = []
    for box in boxes:
        while True:
            hit = next((b for b in out if b[0] < box[2] and box[0] < b[2]
                        and b[1] < box[3] and box[1] < b[3]), None)
            if hit is None:
                break
            out.remove(hit)
            box = (min(box[0], hit[0]), min(box[1], hit[1]), max(box[2], hit[2]),
                   max(box[3], hit[3]))
        out.append(box)
    return out


def _compose(view: PublicView, panel: Image.Image, panel_at: tuple[int, int],
             mp: Image.Image, map_at: tuple[int, int], left: int = 0) -> Image.Image:
    """The panel and the map on one image, ``left`` columns from its left edge (those
    stay 0)."""
    size = (left + max(panel_at[0] + panel.width, map_at[0] + mp.width),
            max(panel_at[1] + panel.height, map_at[1] + mp.height))
    img = Image.new(mp.mode, size)
    background: int | tuple[int, int, int] = PANEL_BG
    if mp.mode == "P":
        img.putpalette(board_palette(view.map_id).getpalette() or [])
        background = panel_index(view.map_id)
    bottom = panel_at[1] + panel.height
    if map_at[1] < bottom < size[1]:  # a side panel, drawn only as tall as its content
        img.paste(background, (left + panel_at[0], bottom, left + panel_at[0] + panel.width,
                               size[1]))
    img.paste(panel, (left + panel_at[0], panel_at[1]))
    img.paste(mp, (left + map_at[0], map_at[1]))
    return img


def board_image(view: PublicView, last: LastMove | None = None) -> Image.Image:
    """The whole board picture: map plus information panel (RGB); ``last`` (what the
    last turn built) glows, with a zoomed inset."""
    panel, panel_at, map_at = panel_image(view)
    mp = draw_map(view)
    inset = None
    if last is not None:
        mp = mp.convert("RGBA")
        slot = inset_slot(view.map_id)
        patches, inset = highlight(mp, base_for(view.map_id), view, last, _size(slot))
        for box, patch in patches:
            mp.paste(patch, box[:2])
    img = _compose(view, panel, panel_at, mp.convert("RGB"), map_at)
    if inset is not None:
        img.paste(inset, slot[:2])
    return img


def _size(box: Box) -> tuple[int, int]:
    return box[2] - box[0], box[3] - box[1]


# Map layers already reduced to the board palette, by ``MapKey``: while a game's map
# does not change (most turns draw cards), its next board redraws only the panel; when it
# does, only the changed regions of the nearest cached layer are redrawn. Sized for the
# map states of a few dozen games at once (~1.5 MB each).
MAP_LAYERS = 64
# Beyond this many changed pieces, drawing the whole map is as quick.
INCREMENTAL_CHANGES = 12
_layers_lock = threading.Lock()
_layers: OrderedDict[MapKey, Image.Image] = OrderedDict()


def _indexed(img: Image.Image, map_id: str) -> Image.Image:
    return img.quantize(palette=board_palette(map_id), dither=Image.Dither.NONE)


@functools.cache
def panel_index(map_id: str) -> int:
    """The panel's background colour in the board palette."""
    index = _indexed(Image.new("RGB", (1, 1), PANEL_BG), map_id).getpixel((0, 0))
    assert isinstance(index, int)
    return index


def empty_layer(map_id: str) -> tuple[MapKey, Image.Image]:
    """The map with nothing built on it, in the board palette and the language being
    drawn: kept for good (the render workers' fork server builds it, ``bot.render.preload``),
    so every game's first boards start from it, however many other games went through the
    cache since."""
    return _empty_layer(map_id, i18n.current())


@functools.cache
def _empty_layer(map_id: str, lang: str) -> tuple[MapKey, Image.Image]:
    view = empty_view(map_id)
    return MapKey.of(view), _indexed(draw_map(view).convert("RGB"), map_id)


def _nearest_layer(key: MapKey) -> tuple[MapKey, Image.Image] | None:
    """The cached layer of ``key``'s map (or its empty one) with the fewest changes from
    it, if that is few enough to redraw them rather than the whole map (the caller holds
    ``_layers_lock``)."""
    changes, near, layer = min(((k.changes(key), k, v) for k, v in (
        *((k, v) for k, v in _layers.items() if (k.map_id, k.lang) == (key.map_id, key.lang)),
        _empty_layer(key.map_id, key.lang))), key=lambda t: t[0])
    return None if changes > INCREMENTAL_CHANGES else (near, layer)


def layer_source(view: PublicView) -> Literal["cached", "changed", "drawn"]:
    """How ``map_layer`` would have this view's map now: from the cache, a cached layer
    redrawn in part, or drawn whole (benchmarks trace it)."""
    key = MapKey.of(view)
    with _layers_lock:
        if key in _layers:
            return "cached"
        return "changed" if _nearest_layer(key) is not None else "drawn"


def map_layer(view: PublicView) -> Image.Image:
    """The map of this view in the board palette ("P"): from the cache, else the nearest
    cached layer of that map with only what changed redrawn, else drawn whole."""
    key = MapKey.of(view)
    with _layers_lock:
        found = _layers.get(key)
        if found is not None:
            _layers.move_to_end(key)
            return found
        near = _nearest_layer(key)
    if near is not None:
        layer = near[1].copy()
        for box in key.changed_boxes(near[0]):
            layer.paste(_indexed(draw_map(view, box).convert("RGB"), view.map_id), box[:2])
    else:
        layer = _indexed(draw_map(view).convert("RGB"), view.map_id)
    with _layers_lock:
        _layers[key] = layer
        while len(_layers) > MAP_LAYERS:
            _layers.popitem(last=False)
    return layer


def board_rows(view: PublicView, last: LastMove | None = None) -> Image.Image:
    """The board in its 256-colour palette, pixel for pixel what quantizing
    ``board_image`` gives, built from the cached map layer and a new panel, with a zero
    column on the left (``png.encode_rows``: no copy to encode it). The highlight of
    ``last`` is pasted over the map layer's copy on the board (the cache keeps the plain
    map), and only its patches are reduced to the palette (doing it to the whole map
    would move colours: the palette reduction is not exact)."""
    panel, panel_at, map_at = panel_rows(view)
    mp = map_layer(view)
    img = _compose(view, panel, panel_at, mp, map_at, left=1)
    if last is not None:
        slot = inset_slot(view.map_id)
        patches, inset = highlight(mp, base_for(view.map_id), view, last, _size(slot))
        for box, patch in patches:
            img.paste(_indexed(patch, view.map_id), (1 + map_at[0] + box[0], map_at[1] + box[1]))
        if inset is not None:
            img.paste(_indexed(inset, view.map_id), (1 + slot[0], slot[1]))
    return img


_palette_lock = threading.Lock()
_palettes: dict[str, Image.Image] = {}


def board_palette(map_id: str) -> Image.Image:
    """256 colours chosen once per map from a busy sample board (every seat, every suit)."""
    with _palette_lock:
        found = _palettes.get(map_id)
        if found is None:
            m = base_for(map_id).map
            market: list[str | None] = list(CARD_ORDER[-5:])
            if m.rules.rails_and_sails is not None:
                market = ["red_harbor", "locomotive", "white", "green_ship", "black_double_ship"]
                market.append("yellow_ship")
            harbor_sites = [c.id for c in m.cities if c.harbor]
            sample = empty_view(map_id, players=5).model_copy(
                update={
                    "claimed": {r.id: i % 5 for i, r in enumerate(m.routes) if i % 3},
                    "stations": {c.id: i % 5 for i, c in enumerate(m.cities[:5])},
                    "market": market,
                    "current": 0,
                    "phase": Phase.TURN,
                    "last_round": True,
                    "festival_piles": {
                        p: 1 + i % 9
                        for i, p in enumerate(
                            sorted({c.festival_pile for c in m.cities if c.festival_pile})
                        )
                    },
                    "harbors": {c: i % 5 for i, c in enumerate(harbor_sites[:10])},
                }
            )
            found = _palettes[map_id] = board_image(sample).quantize(
                256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
            )
        return found


def render_board(view: PublicView, fmt: Format | str = "PNG", *,
                 last: LastMove | None = None) -> bytes:
    if str(fmt).upper() == "PNG":
        return encode_rows(board_rows(view, last))
    return encode(board_image(view, last), fmt, board_palette(view.map_id))


def render_board_png(view: PublicView, last: LastMove | None = None) -> bytes:
    """The bot's board: a PNG, with the last turn's building highlighted."""
    return render_board(view, last=last)


_hand_palettes: dict[str, Image.Image] = {}


def hand_palette(map_id: str) -> Image.Image:
    """256 colours chosen once per map: from a sample hand (every card, tickets on the
    map's thumbnail), plus exactly every seat's colour (a hand shows its seat's) and every
    share company's (its chips). Mapping a hand to it is ~4x faster than choosing
    colours for each hand, and looks the same."""
    with _palette_lock:
        found = _hand_palettes.get(map_id)
        if found is None:
            m = base_for(map_id).map
            suits = [*m.rules.deck.colors, "locomotive"]
            rs = m.rules.rails_and_sails
            if rs is not None:
                suits += [f"{c}_harbor" for c in m.rules.deck.colors]
                suits += [f"{c}_{k}" for c in rs.ship_deck.colors
                          for k in ("ship", "double_ship")]
            sample = draw_hand(hand_view(map_id).model_copy(
                update={"hand": {s: 1 + i % 4 for i, s in enumerate(suits)}}), map_id)
            exact = [player_fill(seat) for seat in range(5)] + list(PLAN_INKS)
            if m.rules.shares is not None:
                exact += [company_fill(m, c.id) for c in companies(m)]
            chosen = sample.convert("RGB").quantize(
                256 - len(exact), method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
            colours = (chosen.getpalette() or [])[:3 * (256 - len(exact))]
            found = Image.new("P", (1, 1))
            found.putpalette(colours + [v for rgb in exact for v in rgb])
            _hand_palettes[map_id] = found
        return found


def render_hand(view: PrivateView, map_id: str, public: PublicView | None = None,
                plans: Sequence[TicketPlan] | None = None, fmt: Format | str = "PNG") -> bytes:
    """The seat's hand; with ``public``, its planner (built from its own views only: the
    private and the public view) as a small map; ``plans``: the planner's answer for
    them, when the caller has it (else it is worked out here)."""
    if str(fmt).upper() == "PNG":
        return encode_rows(hand_rows(view, map_id, hand_palette(map_id), public, plans))
    return encode(draw_hand(view, map_id, public, plans), fmt, hand_palette(map_id))


# Of the final image's 256 colours, those chosen from a sample of its scores part; the
# rest are the map's.
FINAL_OWN_COLOURS = 64


@functools.cache
def final_palette(map_id: str) -> tuple[Image.Image, list[int]]:
    """The final image's 256 colours ("P" image) and, per board palette index, the final
    palette's index nearest to that colour: the final map is the board's map layer, its
    indices mapped through that table (~1 ms), neither drawn again nor reduced again.

    The colours are the board palette reduced to make room for the scores' own (sample
    scores with 5 players, the map's points), so the bars and marks keep their colours."""
    from .final import exact_colours

    board = board_palette(map_id)
    sample = final_view(map_id, seed=1, players=5)
    scores = draw_scores(sample)
    exact = exact_colours(base_for(map_id).map)
    own = scores.quantize(FINAL_OWN_COLOURS - len(exact), method=Image.Quantize.FASTOCTREE,
                          dither=Image.Dither.NONE).getpalette() or []
    # The board's colours squeezed into the rest, by their use on a sample final map.
    layer = map_layer(sample).convert("RGB")
    kept = layer.quantize(256 - FINAL_OWN_COLOURS, method=Image.Quantize.FASTOCTREE,
                          dither=Image.Dither.NONE).getpalette() or []
    colours = (kept[:3 * (256 - FINAL_OWN_COLOURS)]
               + own[:3 * (FINAL_OWN_COLOURS - len(exact))]
               + [v for rgb in exact for v in rgb])
    palette = Image.new("P", (1, 1))
    palette.putpalette(colours)
    strip = Image.new("P", (256, 1))
    strip.putpalette(board.getpalette() or [])
    strip.putdata(range(256))
    lut = list(strip.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)
               .tobytes())
    return palette, lut


def final_image(view: PublicView) -> Image.Image:
    """The final scores over the final map, in the map's final palette ("P"), with a zero
    column on the left (``png.encode_rows``). The map is the game's board layer (the
    worker that drew the game's boards has it cached), not drawn again or scaled."""
    mp = map_layer(view)
    palette, lut = final_palette(view.map_id)
    scores = draw_scores(view).quantize(palette=palette, dither=Image.Dither.NONE)
    img = Image.new("P", (1 + FINAL_WIDTH, scores.height + mp.height), 0)
    img.putpalette(palette.getpalette() or [])
    img.paste(scores.getpixel((0, 0)) or 0, (1, 0, img.width, img.height))
    img.paste(scores, (1, 0))
    img.paste(mp.point(lut), (1 + (FINAL_WIDTH - mp.width) // 2, scores.height))
    return img


def render_final(view: PublicView, fmt: Format | str = "PNG") -> bytes:
    if view.final is None:
        raise ValueError("render_final needs a view of a finished game (view.final is None)")
    img = final_image(view)
    if str(fmt).upper() == "PNG":
        return encode_rows(img)
    return encode(img.crop((1, 0, img.width, img.height)), fmt)
