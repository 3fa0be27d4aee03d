"""Small anti-aliased pieces (route spaces, city dots, houses, marks), drawn supersampled.

Pillow does not anti-alias polygons, so each piece is drawn at ``SS`` times
its size and reduced. Pieces are pure functions of hashable arguments and are
cached; callers must treat the returned images as read-only.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from .fonts import font
from .layout import Space
from .palette import INK, PAPER, RGB, ink_on, letters_scale, shade

SS = 4
Poly = list[tuple[float, float]]


@dataclass(frozen=True)
class Sprite:
    x: int  # top-left position on the target
    y: int
    image: Image.Image


@dataclass(frozen=True)
class SpaceStyle:
    fill: RGB
    outline: RGB
    outline_width: float = 1.3
    dashed: bool = False  # tunnel
    ship: bool = False
    letter: str = ""
    icon: bool = False  # locomotive symbol of a ferry space
    mark: str | None = None  # player shape
    shadow: bool = False
    grow: float = 0.0  # claimed pieces cover the unclaimed one fully
    alpha: int = 255
    halo: RGB | None = None  # a light ring around the piece, so claimed routes stand out


def _rounded_rect(length: float, width: float, radius: float) -> Poly:
    hl, hw = length / 2, width / 2
    r = min(radius, hw, hl)
    pts: Poly = []
    for cx, cy, start in (
        (hl - r, hw - r, 0),
        (-hl + r, hw - r, 90),
        (-hl + r, -hw + r, 180),
        (hl - r, -hw + r, 270),
    ):
        for i in range(6):
            a = math.radians(start + i * 18)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def _hull(length: float, width: float) -> Poly:
    """A boat seen from above: pointed bow, rounded stern."""
    hl, hw = length / 2, width / 2
    # Bow: a parabola from side to side; stern: a half ellipse.
    pts: Poly = [
        (hl * 0.55 + hl * 0.45 * (1 - t * t), hw * t) for t in (i / 6 - 1 for i in range(13))
    ]
    for i in range(13):
        a = math.radians(90 + i * 15)
        pts.append((-hl * 0.55 + hl * 0.45 * math.cos(a), hw * math.sin(a)))
    return pts


def _place(poly: Poly, angle: float, cx: float, cy: float) -> Poly:
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    return [(cx + (x * ca - y * sa) * SS, cy + (x * sa + y * ca) * SS) for x, y in poly]


def mark_poly(shape: str, cx: float, cy: float, r: float) -> Poly:
    """A player's shape centred on (cx, cy) with outer radius r."""
    if shape == "square":
        k = r * 0.82
        return [(cx - k, cy - k), (cx + k, cy - k), (cx + k, cy + k), (cx - k, cy + k)]
    if shape == "triangle":
        return [
            (
                cx + r * math.cos(math.radians(a)),
                cy + r * 1.1 * math.sin(math.radians(a)) + r * 0.15,
            )
            for a in (-90, 30, 150)
        ]
    if shape == "diamond":
        return [(cx, cy - r * 1.1), (cx + r * 0.85, cy), (cx, cy + r * 1.1), (cx - r * 0.85, cy)]
    if shape == "star":
        pts = []
        for i in range(10):
            rr = r * 1.1 if i % 2 == 0 else r * 0.47
            a = math.radians(-90 + i * 36)
            pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a) + r * 0.08))
        return pts
    return [
        (cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a)))
        for a in range(0, 360, 15)
    ]


_LOCO_RECTS = (
    (-0.92, -0.22, 0.3, 0.32),  # boiler
    (0.25, -0.62, 0.9, 0.32),  # cab
    (0.15, -0.76, 1.0, -0.6),  # cab roof
    (-0.72, -0.62, -0.45, -0.2),  # chimney
)
_LOCO_WHEELS = ((-0.55, 0.48, 0.2), (-0.05, 0.48, 0.2), (0.55, 0.48, 0.24))


def draw_loco(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, color: RGB) -> None:
    """A little steam locomotive silhouette inside a circle of radius r."""
    for x0, y0, x1, y1 in _LOCO_RECTS:
        d.rectangle((cx + x0 * r, cy + y0 * r, cx + x1 * r, cy + y1 * r), fill=color)
    d.polygon(
        [
            (cx - 0.92 * r, cy + 0.3 * r),
            (cx - 1.1 * r, cy + 0.66 * r),
            (cx - 0.7 * r, cy + 0.66 * r),
        ],
        fill=color,
    )
    for wx, wy, wr in _LOCO_WHEELS:
        d.ellipse(
            (cx + (wx - wr) * r, cy + (wy - wr) * r, cx + (wx + wr) * r, cy + (wy + wr) * r),
            fill=color,
        )


def _dashes(poly: Poly, on: float, off: float) -> list[Poly]:
    out: list[Poly] = []
    pts = [*poly, poly[0]]
    pos, drawing, seg = 0.0, True, [pts[0]]
    limit = on
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        d = math.hypot(x1 - x0, y1 - y0)
        t = 0.0
        while d - t > 1e-9:
            step = min(limit - pos, d - t)
            t += step
            pos += step
            p = (x0 + (x1 - x0) * t / d, y0 + (y1 - y0) * t / d)
            if drawing:
                seg.append(p)
            if pos >= limit - 1e-9:
                if drawing:
                    out.append(seg)
                drawing, pos = not drawing, 0.0
                limit = on if drawing else off
                seg = [p]
    if drawing and len(seg) > 1:
        out.append(seg)
    return out


# Enough for every map at once: ~1,800 spaces over all maps, each unclaimed, closed,
# under a tunnel or claimed by one of 5 seats (a bot runs games on all maps together).
SPRITE_CACHE = 16384


@lru_cache(maxsize=SPRITE_CACHE)
def space_sprite(sp: Space, st: SpaceStyle) -> Sprite:
    length, width = sp.length + st.grow, sp.width + st.grow
    reach = math.hypot(length, width) / 2 + 4
    x0, y0 = math.floor(sp.x - reach), math.floor(sp.y - reach)
    size = math.ceil(2 * reach) + 2
    img = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    cx, cy = (sp.x - x0) * SS, (sp.y - y0) * SS
    base = _hull(length, width) if st.ship else _rounded_rect(length, width, width * 0.28)
    if st.shadow:
        d.polygon(_place(base, sp.angle, cx + 1.6 * SS, cy + 2.0 * SS), fill=(0, 0, 0, 70))
    poly = _place(base, sp.angle, cx, cy)
    ow = round(st.outline_width * SS)
    if st.halo is not None:
        d.line([*poly, poly[0]], fill=st.halo, width=ow + round(4.4 * SS), joint="curve")
    d.polygon(poly, fill=(*st.fill, st.alpha))
    if st.dashed:
        d.line([*poly, poly[0]], fill=(*st.outline, st.alpha), width=max(1, ow // 2), joint="curve")
        for dash in _dashes(poly, 4.5 * SS, 2.6 * SS):
            d.line(dash, fill=(*INK, st.alpha), width=round(2.4 * SS), joint="curve")
    else:
        d.line([*poly, poly[0]], fill=(*st.outline, st.alpha), width=ow, joint="curve")
    r = min(width * 0.42, length * 0.3) * SS
    if st.icon:
        d.ellipse((cx - r * 1.1, cy - r * 1.1, cx + r * 1.1, cy + r * 1.1), fill=(*PAPER, 235))
        draw_loco(d, cx, cy, r * 0.85, INK)
    elif st.mark:
        ink = ink_on(st.fill)
        d.polygon(mark_poly(st.mark, cx, cy, r * 1.05), fill=ink)
    elif st.letter:
        f = font(round(width * 0.66 * SS * letters_scale(st.letter)), "bold")
        d.text((cx, cy), st.letter, font=f, anchor="mm", fill=(*ink_on(st.fill), st.alpha))
    return Sprite(x0, y0, img.reduce(SS))


@lru_cache(maxsize=64)
def city_sprite(radius: float) -> Image.Image:
    size = math.ceil(radius * 2 + 4)
    img = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    c, r = size * SS / 2, radius * SS
    d.ellipse((c - r + SS, c - r + 1.5 * SS, c + r + SS, c + r + 1.5 * SS), fill=(0, 0, 0, 60))
    d.ellipse((c - r, c - r, c + r, c + r), fill=INK)
    r2 = r - 2.4 * SS
    d.ellipse((c - r2, c - r2, c + r2, c + r2), fill=PAPER)
    r3 = r * 0.32
    d.ellipse((c - r3, c - r3, c + r3, c + r3), fill=shade((200, 60, 40), 1.0))
    return img.reduce(SS)


@lru_cache(maxsize=16)
def house_sprite(color: RGB, size: int) -> Image.Image:
    """A station: a small house in the owner's colour."""
    img = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    s = size * SS
    poly = [
        (0.5 * s, 0.06 * s),
        (0.94 * s, 0.44 * s),
        (0.84 * s, 0.44 * s),
        (0.84 * s, 0.92 * s),
        (0.16 * s, 0.92 * s),
        (0.16 * s, 0.44 * s),
        (0.06 * s, 0.44 * s),
    ]
    d.polygon(poly, fill=color, outline=INK, width=round(1.6 * SS))
    d.rectangle((0.42 * s, 0.62 * s, 0.58 * s, 0.92 * s), fill=INK)
    return img.reduce(SS)


@lru_cache(maxsize=64)
def mark_sprite(shape: str, fill: RGB, size: int) -> Image.Image:
    """A player's shape in a disc of their colour, for legends."""
    img = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    s = size * SS
    d.rounded_rectangle(
        (SS, SS, s - SS, s - SS), radius=s * 0.22, fill=fill, outline=INK, width=round(1.5 * SS)
    )
    d.polygon(mark_poly(shape, s / 2, s / 2, s * 0.26), fill=ink_on(fill))
    return img.reduce(SS)
