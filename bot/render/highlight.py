"""What the last turn built, drawn so the picture tells it at Discord's inline size.

``LastMove`` is built by the bot from public events only (a claim, a station, a
harbor); the board marks it with a glow and a zoomed inset of that spot with a caption,
readable when the image is shown ~550 px wide. The inset goes on the panel
(``bot.render.inset_slot``), never over the map.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.views import PublicView

from .board import Base, Box, _draw_spaces, claimed_style
from .layout import Point, Space
from .palette import INK, ink_on, player_fill
from .panel import fit_font, fit_text

GLOW = (255, 221, 0)  # the band under the pieces just placed
GLOW_EDGE = (40, 30, 0)
INSET_ZOOM_MAX = 2.4
INSET_MARGIN = 100  # px of map around the spot
INSET_MIN_SPAN = 330
CAPTION_SIZE = 30
CAPTION_SMALLEST = 22
BORDER = 6


@dataclass(frozen=True)
class LastMove:
    seat: int
    routes: tuple[int, ...] = ()  # claimed this turn
    cities: tuple[str, ...] = ()  # a station or harbor built there this turn
    caption: str = ""  # 'Ana: Paris–Wien', drawn on the inset


def _spots(base: Base, last: LastMove) -> tuple[list[Space], list[Point]]:
    lay = base.layout
    spaces = [c for rid in last.routes for s in lay.routes.get(rid, ())
              for c in lay.space_copies(s)]
    cities = [p for city in last.cities for p in lay.cities.get(city, ())[:1]]
    return spaces, cities


def _glow_box(spaces: list[Space], cities: list[Point], width: int, height: int) -> Box:
    """Where the glow of ``spaces`` and ``cities`` goes."""
    ends = [p for s in spaces for p in (s.along(-1.15), s.along(1.15))]
    reach = max([round(s.width + 22) for s in spaces] + [36 * 2 if cities else 0]) // 2 + 2
    xs = [p[0] for p in ends] + [p[0] for p in cities]
    ys = [p[1] for p in ends] + [p[1] for p in cities]
    return (max(0, int(min(xs)) - reach), max(0, int(min(ys)) - reach),
            min(width, int(max(xs)) + reach + 1), min(height, int(max(ys)) + reach + 1))


def _glow(work: Image.Image, at: tuple[int, int], box: Box, base: Base, view: PublicView,
          last: LastMove, spaces: list[Space], cities: list[Point]) -> None:
    """A bright band under the pieces just placed, drawn in ``box`` of the map: the eye
    finds them at a glance. ``work`` is the map region whose top-left corner is ``at``."""
    left, top, right, bottom = box
    # Drawn on a layer just the size of the spot (a whole-map layer costs ~20 ms).
    glow = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)), (0, 0, 0, 0))
    d = ImageDraw.Draw(glow)
    for s in spaces:
        (x0, y0), (x1, y1) = s.along(-1.15), s.along(1.15)
        line = [(x0 - left, y0 - top), (x1 - left, y1 - top)]
        d.line(line, fill=(*GLOW_EDGE, 255), width=round(s.width + 22))
        d.line(line, fill=(*GLOW, 255), width=round(s.width + 14))
    for x, y in cities:  # a ring: the station or harbor inside stays visible
        x, y = x - left, y - top
        d.ellipse((x - 34, y - 34, x + 34, y + 34), outline=(*GLOW_EDGE, 255), width=14)
        d.ellipse((x - 31, y - 31, x + 31, y + 31), outline=(*GLOW, 255), width=8)
    work.alpha_composite(glow, (left - at[0], top - at[1]))
    routes = {r.id: r for r in base.map.routes}
    lay = base.layout
    for rid in last.routes:  # the pieces again, over their glow
        r = routes.get(rid)
        if r is not None and rid in view.claimed:
            _draw_spaces(work, lay, lay.routes[rid],
                         [claimed_style(r, view.claimed[rid])] * r.length, *at)


def _box(spaces: list[Space], cities: list[Point], width: int, height: int, ratio: float
         ) -> tuple[int, int, int, int] | None:
    xs = [p[0] for s in spaces for p in (s.along(-1), s.along(1))] + [p[0] for p in cities]
    ys = [p[1] for s in spaces for p in (s.along(-1), s.along(1))] + [p[1] for p in cities]
    if not xs:
        return None
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    # The spot with some country around it, in the inset's proportions.
    w = max(max(xs) - min(xs) + 2 * INSET_MARGIN, INSET_MIN_SPAN)
    h = max(max(ys) - min(ys) + 2 * INSET_MARGIN, INSET_MIN_SPAN * ratio)
    w, h = max(w, h / ratio), max(h, w * ratio)
    x0 = min(max(0, round(cx - w / 2)), max(0, width - round(w)))
    y0 = min(max(0, round(cy - h / 2)), max(0, height - round(h)))
    return x0, y0, min(width, x0 + round(w)), min(height, y0 + round(h))


def _shift(box: Box, at: tuple[int, int]) -> Box:
    return box[0] - at[0], box[1] - at[1], box[2] - at[0], box[3] - at[1]


def _bar() -> int:
    return CAPTION_SIZE + 18


def _zoom_size(size: tuple[int, int]) -> tuple[int, int]:
    """The zoomed map's room in an inset of ``size``: inside the border, under the caption."""
    return size[0] - 2 * BORDER, size[1] - _bar() - 2 * BORDER


def _inset(work: Image.Image, at: tuple[int, int], last: LastMove, box: Box,
           size: tuple[int, int]) -> Image.Image:
    """A zoomed copy of ``box`` (taken from ``work``, the lit region at ``at``) under a
    caption, framed in the player's colour: an opaque RGB image of ``size``."""
    room_w, room_h = _zoom_size(size)
    # The map is opaque: zoomed and framed in RGB, the pixels are those of RGBA, for
    # less work (resizing RGBA premultiplies and divides the alpha back).
    crop = work.crop(_shift(box, at)).convert("RGB")
    scale = min(INSET_ZOOM_MAX, room_w / crop.width, room_h / crop.height)
    # Box (each pixel the mean of the map pixels it covers): at these zooms (0.7-1.4x) it
    # looks like bilinear, a little crisper when enlarging, at ~70 % of the time.
    zoomed = crop.resize((round(crop.width * scale), round(crop.height * scale)),
                         Image.Resampling.BOX)
    colour = player_fill(last.seat)
    # A long caption is set smaller, then cut.
    f = fit_font(last.caption, CAPTION_SIZE, "bold", size[0] - 24, CAPTION_SMALLEST)
    caption = fit_text(last.caption, round(f.size), "bold", size[0] - 24)
    bar = _bar()
    frame = Image.new("RGB", size, colour)
    frame.paste(zoomed, (BORDER + (room_w - zoomed.width) // 2,
                         BORDER + bar + (room_h - zoomed.height) // 2))
    d = ImageDraw.Draw(frame)
    d.rectangle((0, 0, frame.width - 1, frame.height - 1), outline=INK, width=2)
    d.text((frame.width / 2, BORDER + bar / 2), caption, font=f, fill=ink_on(colour),
           anchor="mm")
    return frame


def highlight(mp: Image.Image, base: Base, view: PublicView, last: LastMove,
              inset: tuple[int, int]) -> tuple[list[tuple[Box, Image.Image]], Image.Image | None]:
    """``last`` marked on the map image ``mp`` (any mode; not drawn on): a glow on the
    pieces, and a zoomed, captioned inset of the spot of size ``inset`` (to put beside
    the map). Returns the glow's patches (box, opaque RGB pixels), inside the map, to
    paste over it in order (only their regions are converted, not the whole map), and
    the inset (None when nothing was built)."""
    spaces, cities = _spots(base, last)
    if not spaces and not cities:
        return [], None
    glow = _glow_box(spaces, cities, mp.width, mp.height)
    room_w, room_h = _zoom_size(inset)
    box = _box(spaces, cities, mp.width, mp.height, room_h / room_w)
    region = glow if box is None else (min(glow[0], box[0]), min(glow[1], box[1]),
                                       max(glow[2], box[2]), max(glow[3], box[3]))
    at = region[0], region[1]
    work = mp.crop(region).convert("RGBA")
    _glow(work, at, glow, base, view, last, spaces, cities)
    patches = [(glow, work.crop(_shift(glow, at)).convert("RGB"))]
    return patches, None if box is None else _inset(work, at, last, box, inset)
