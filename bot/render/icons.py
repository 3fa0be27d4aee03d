"""Small symbols of the module maps: anchors (harbors), festival tents, count badges, pieces.

Drawn supersampled like the other pieces and cached; treat results as read-only.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from .fonts import font
from .palette import INK, PAPER, RGB, hex_rgb, ink_on, shade
from .shapes import SS

FESTIVAL: RGB = hex_rgb("#c2185b")  # festival badges and tiles (no seat uses it)
SEA_INK: RGB = hex_rgb("#1f4a7a")  # harbor sites, ship cards' sea band
PENNANT: RGB = hex_rgb("#2f9e5a")  # not FESTIVAL: that colour is kept for count badges
TENT: tuple[RGB, RGB] = (hex_rgb("#d63a2f"), hex_rgb("#fbe7b0"))


def draw_anchor(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float, color: RGB) -> None:
    """An anchor filling a box of side ``s`` centred on (cx, cy): ring, stock, shank, arms."""
    w = max(1, round(s * 0.11))
    top = cy - s * 0.5
    ring_r = s * 0.1
    d.ellipse(
        (cx - ring_r, top, cx + ring_r, top + 2 * ring_r), outline=color, width=max(1, w * 3 // 4)
    )
    d.line((cx, top + 2 * ring_r, cx, cy + s * 0.44), fill=color, width=w)
    d.line((cx - s * 0.24, cy - s * 0.16, cx + s * 0.24, cy - s * 0.16), fill=color, width=w)
    r = s * 0.36
    arc_cy = cy + s * 0.08
    d.arc((cx - r, arc_cy - r, cx + r, arc_cy + r), 20, 160, fill=color, width=w)
    for side in (-1, 1):  # barbs at the arms' ends
        a = math.radians(90 - side * 70)
        ex, ey = cx + r * math.cos(a), arc_cy + r * math.sin(a)
        k = s * 0.13
        d.polygon(
            [
                (ex + side * k * 0.7, ey - k * 1.1),
                (ex + side * k * 0.9, ey + k * 0.4),
                (ex - side * k * 0.6, ey),
            ],
            fill=color,
        )


@lru_cache(maxsize=64)
def anchor_badge(size: int, fill: RGB, ring: RGB = INK, halo: bool = False) -> Image.Image:
    """A round badge with an anchor: a harbor site (sea blue) or a built harbor (its owner);
    ``halo`` adds a light outer ring so it stands out over routes."""
    img = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    s = size * SS
    inset = SS
    if halo:
        d.ellipse((SS, SS, s - SS, s - SS), fill=PAPER)
        inset = round(3.5 * SS)
    d.ellipse((inset, inset, s - inset, s - inset), fill=fill, outline=ring, width=round(1.4 * SS))
    draw_anchor(d, s / 2, s / 2 + 0.02 * s, (s - 2 * inset) * 0.6, ink_on(fill))
    return img.reduce(SS)


@lru_cache(maxsize=16)
def tent_sprite(size: int) -> Image.Image:
    """A striped festival tent with a pennant on its pole."""
    img = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    s = size * SS
    apex, left, right = (0.5 * s, 0.3 * s), (0.08 * s, 0.94 * s), (0.92 * s, 0.94 * s)
    body = Image.new("L", img.size, 0)
    ImageDraw.Draw(body).polygon([apex, left, right], fill=255)
    stripes = Image.new("RGBA", img.size, (0, 0, 0, 0))
    sd = ImageDraw.Draw(stripes)
    for i in range(-4, 5):  # stripes fanning out from the apex
        x0, x1 = apex[0] + i * 0.11 * s, apex[0] + (i + 1) * 0.11 * s
        sd.polygon([apex, (x0 * 1.0, right[1]), (x1, right[1])], fill=TENT[i % 2])
    img.paste(stripes, (0, 0), body)
    d.polygon([apex, left, right], outline=INK, width=round(1.3 * SS))
    d.polygon(  # the door
        [(0.5 * s, 0.62 * s), (0.38 * s, 0.94 * s), (0.62 * s, 0.94 * s)], fill=INK
    )
    d.line((apex[0], apex[1], apex[0], 0.04 * s), fill=INK, width=round(1.3 * SS))
    d.polygon(
        [(apex[0], 0.04 * s), (apex[0] + 0.3 * s, 0.1 * s), (apex[0], 0.17 * s)],
        fill=PENNANT,
        outline=INK,
        width=SS,
    )
    return img.reduce(SS)


def count_badge(
    d: ImageDraw.ImageDraw, cx: float, cy: float, n: int, fill: RGB = FESTIVAL, r: float = 11
) -> None:
    """A round number badge (a notification dot) centred on (cx, cy)."""
    text = str(n)
    f = font(round(r * 1.3), "bold")
    half = max(r, f.getlength(text) / 2 + 4)
    d.rounded_rectangle(
        (cx - half, cy - r, cx + half, cy + r), radius=r, fill=fill, outline=PAPER, width=2
    )
    d.text((cx, cy), text, font=f, fill=ink_on(fill), anchor="mm")


def draw_ship(
    d: ImageDraw.ImageDraw, cx: float, bottom: float, w: float, fill: RGB, edge: RGB, width: int
) -> None:
    """A ship from the side, ``w`` long, its keel at ``bottom``: hull, cabin and funnel."""
    h = w * 0.26
    top = bottom - h
    d.polygon(
        [(cx - w / 2, top), (cx + w / 2, top), (cx + w * 0.32, bottom), (cx - w * 0.34, bottom)],
        fill=fill,
        outline=edge,
        width=width,
    )
    d.rectangle(
        (cx - w * 0.2, top - h * 0.75, cx + w * 0.12, top), fill=fill, outline=edge, width=width
    )
    d.rectangle((cx - w * 0.1, top - h * 1.45, cx + w * 0.0, top - h * 0.75), fill=edge)


@lru_cache(maxsize=32)
def piece_sprite(kind: str, fill: RGB, w: int) -> Image.Image:
    """A player's piece seen from the side: a train wagon or a little ship."""
    h = round(w * 0.6)
    img = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    W, H = w * SS, h * SS
    edge = round(1.4 * SS)
    if kind == "ship":
        draw_ship(d, W / 2, 0.92 * H, W * 0.96, fill, INK, edge)
    else:  # a wagon on a rail, couplers at both ends
        d.line((0, 0.95 * H, W, 0.95 * H), fill=INK, width=edge)
        d.line((0.0, 0.55 * H, W, 0.55 * H), fill=INK, width=edge * 2)
        d.rounded_rectangle(
            (0.1 * W, 0.12 * H, 0.9 * W, 0.74 * H),
            radius=0.08 * H,
            fill=fill,
            outline=INK,
            width=edge,
        )
        d.line((0.14 * W, 0.3 * H, 0.86 * W, 0.3 * H), fill=shade(fill, 1.45), width=edge)
        for x in (0.28, 0.72):
            r = 0.14 * H
            d.ellipse((x * W - r, 0.8 * H - r, x * W + r, 0.8 * H + r), fill=INK)
    return img.reduce(SS)
