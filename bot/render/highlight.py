"""What the last turn built, drawn so the picture tells it at Discord's inline size.

``LastMove`` is built by the bot from public events only (a claim, a station, a
harbor); the board marks it with a glow in the player's colour and a zoomed inset
of that spot with a caption, readable when the image is shown ~550 px wide.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.views import PublicView

from .board import Base, Box, _draw_spaces, claimed_style
from .fonts import font
from .layout import Point, Space
from .palette import INK, ink_on, player_fill

GLOW = (255, 221, 0)  # the band under the pieces just placed
GLOW_EDGE = (40, 30, 0)
INSET_SHARE = 0.34  # of the map's width
INSET_ZOOM_MAX = 2.4
INSET_MARGIN = 100  # px of map around the spot
INSET_MIN_SPAN = 330
INSET_RATIO = 0.62  # height / width
CAPTION_SIZE = 30
BORDER = 6
PAD = 14
SHADOW = 6  # px the inset's shadow is offset by
SHADE = (0, 0, 0, 90)


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


def _box(spaces: list[Space], cities: list[Point], width: int, height: int
         ) -> tuple[int, int, int, int] | None:
    xs = [p[0] for s in spaces for p in (s.along(-1), s.along(1))] + [p[0] for p in cities]
    ys = [p[1] for s in spaces for p in (s.along(-1), s.along(1))] + [p[1] for p in cities]
    if not xs:
        return None
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    # The spot with some country around it, in the inset's proportions.
    w = max(max(xs) - min(xs) + 2 * INSET_MARGIN, INSET_MIN_SPAN)
    h = max(max(ys) - min(ys) + 2 * INSET_MARGIN, INSET_MIN_SPAN * INSET_RATIO)
    w, h = max(w, h / INSET_RATIO), max(h, w * INSET_RATIO)
    x0 = min(max(0, round(cx - w / 2)), max(0, width - round(w)))
    y0 = min(max(0, round(cy - h / 2)), max(0, height - round(h)))
    return x0, y0, min(width, x0 + round(w)), min(height, y0 + round(h))


def _shift(box: Box, at: tuple[int, int]) -> Box:
    return box[0] - at[0], box[1] - at[1], box[2] - at[0], box[3] - at[1]


def _lit(mp: Image.Image, work: Image.Image, at: tuple[int, int], box: Box) -> Image.Image:
    """``box`` of the map (RGBA), with the lit region ``work`` (at ``at``) where it reaches:
    as if the glow were drawn on the whole map."""
    out = mp.crop(box).convert("RGBA")
    inner = (max(box[0], at[0]), max(box[1], at[1]), min(box[2], at[0] + work.width),
             min(box[3], at[1] + work.height))
    if inner[0] < inner[2] and inner[1] < inner[3]:
        out.paste(work.crop(_shift(inner, at)), (inner[0] - box[0], inner[1] - box[1]))
    return out


def _inset(mp: Image.Image, work: Image.Image, at: tuple[int, int], last: LastMove,
           box: Box) -> list[tuple[Box, Image.Image]]:
    """A zoomed copy of ``box`` (taken from ``work``, the lit region at ``at``) with a
    caption, in the map corner farthest from it, and its shadow: the patches (opaque RGB)."""
    target_w = round(mp.width * INSET_SHARE)
    # The map is opaque: zoomed and framed in RGB, the pixels are those of RGBA, for
    # less work (resizing RGBA premultiplies and divides the alpha back).
    crop = work.crop(_shift(box, at)).convert("RGB")
    scale = min(INSET_ZOOM_MAX, target_w / crop.width)
    # Bilinear: at this zoom it looks like bicubic, at ~60 % of the time.
    zoomed = crop.resize((round(crop.width * scale), round(crop.height * scale)),
                         Image.Resampling.BILINEAR)
    colour = player_fill(last.seat)
    f = font(CAPTION_SIZE, "bold")
    caption = last.caption
    while caption and f.getlength(caption) > zoomed.width - 24:
        caption = caption[:-2] + "…" if len(caption) > 2 else ""
    bar = CAPTION_SIZE + 18
    frame = Image.new("RGB", (zoomed.width + 2 * BORDER, zoomed.height + bar + 2 * BORDER),
                      colour)
    frame.paste(zoomed, (BORDER, BORDER + bar))
    d = ImageDraw.Draw(frame)
    d.rectangle((0, 0, frame.width - 1, frame.height - 1), outline=INK, width=2)
    d.text((frame.width / 2, BORDER + bar / 2), caption, font=f, fill=ink_on(colour),
           anchor="mm")
    # The corner farthest from the spot, so the inset never hides it.
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    x = PAD if cx > mp.width / 2 else mp.width - frame.width - PAD
    y = PAD if cy > mp.height / 2 else mp.height - frame.height - PAD
    fw, fh = frame.size
    patches = [((x, y, x + fw, y + fh), frame)]
    # A shadow offset by SHADOW down and right: the strips right of and below the frame
    # (the frame is opaque: only they need the map under them).
    right = (x + fw, y, min(mp.width, x + fw + SHADOW), min(mp.height, y + fh + SHADOW))
    below = (x, y + fh, min(mp.width, x + fw), min(mp.height, y + fh + SHADOW))
    for strip, shade_at, shade_size in ((right, (0, SHADOW), (SHADOW, fh)),
                                        (below, (SHADOW, 0), (fw - SHADOW, SHADOW))):
        if strip[0] < strip[2] and strip[1] < strip[3]:
            under = _lit(mp, work, at, strip)
            under.alpha_composite(Image.new("RGBA", shade_size, SHADE), shade_at)
            patches.append((strip, under.convert("RGB")))
    return patches


def highlight(mp: Image.Image, base: Base, view: PublicView, last: LastMove
              ) -> list[tuple[Box, Image.Image]]:
    """``last`` marked on the map image ``mp`` (any mode; not drawn on): a glow on the
    pieces and a zoomed, captioned inset of the spot. Returns the patches (box, opaque
    RGB pixels), inside the map, to paste over it in order; only their regions are
    converted, not the whole map (~2 ms)."""
    spaces, cities = _spots(base, last)
    if not spaces and not cities:
        return []
    glow = _glow_box(spaces, cities, mp.width, mp.height)
    box = _box(spaces, cities, mp.width, mp.height)
    region = glow if box is None else (min(glow[0], box[0]), min(glow[1], box[1]),
                                       max(glow[2], box[2]), max(glow[3], box[3]))
    at = region[0], region[1]
    work = mp.crop(region).convert("RGBA")
    _glow(work, at, glow, base, view, last, spaces, cities)
    patches = [(glow, work.crop(_shift(glow, at)).convert("RGB"))]
    if box is not None:
        patches += _inset(mp, work, at, last, box)
    return patches
