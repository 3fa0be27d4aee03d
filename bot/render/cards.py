"""Card pictures, and how the engine's card names read (Rails & Sails adds ship cards).

Names: a suit (``red``), ``locomotive``, and on Rails & Sails ``red_harbor`` (a
train card with the harbor symbol), ``red_ship`` (a single ship, with the
symbol) and ``red_double_ship``; there the locomotive is the Joker.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Literal

from PIL import Image, ImageChops, ImageDraw

from bot import i18n

from .fonts import font
from .icons import SEA_INK, draw_anchor, draw_ship
from .palette import (
    INK,
    LOCO_STRIPES,
    PAPER,
    RGB,
    SUIT_FILL,
    ink_on,
    letters_scale,
    shade,
    suit_letter,
)
from .shapes import SS, draw_loco, mark_poly

Kind = Literal["train", "harbor", "ship", "double", "locomotive"]
WAVE: RGB = (104, 160, 214)


def card_parts(name: str) -> tuple[str, Kind]:
    """(suit, kind) of a card name; unknown words fall back to a gray train card."""
    tokens = name.split("_")
    if name in ("locomotive", "joker") or "joker" in tokens:
        return "locomotive", "locomotive"
    suit = next((t for t in tokens if t in SUIT_FILL and t != "locomotive"), "gray")
    if "double" in tokens:
        return suit, "double"
    if "ship" in tokens:
        return suit, "ship"
    if "harbor" in tokens:
        return suit, "harbor"
    return suit, "train"


def card_label(name: str, jokers: bool = False) -> str:
    """'red ship', 'red double ship', 'red train ⚓', 'Joker' — for captions."""
    suit, kind = card_parts(name)
    if kind == "locomotive":
        return "Joker" if jokers else "Locomotive"
    return {
        "train": suit,
        "harbor": f"{suit} ⚓",
        "ship": f"{suit} ship ⚓",
        "double": f"{suit} double",
    }[kind]


def _rainbow(img: Image.Image, box: tuple[int, int, int, int], rad: int) -> None:
    stripes = Image.new("RGBA", img.size, (0, 0, 0, 0))
    sd = ImageDraw.Draw(stripes)
    band = (box[3] - box[1]) / len(LOCO_STRIPES)
    for i, col in enumerate(LOCO_STRIPES):
        sd.rectangle((box[0], box[1] + i * band, box[2], box[1] + (i + 1) * band + 1), fill=col)
    clip = Image.new("L", img.size, 0)
    ImageDraw.Draw(clip).rounded_rectangle(box, radius=rad, fill=255)
    img.paste(stripes, (0, 0), clip)


def _sea_band(img: Image.Image, box: tuple[int, int, int, int], rad: int, top: float) -> None:
    """The lower part of a ship card: dark sea with two wave lines."""
    sea = Image.new("RGBA", img.size, (0, 0, 0, 0))
    sd = ImageDraw.Draw(sea)
    sd.rectangle((box[0], top, box[2], box[3]), fill=SEA_INK)
    w = box[2] - box[0]
    h = box[3] - top
    for k, frac in enumerate((0.42, 0.74)):
        y0 = top + h * frac
        amp, period = h * 0.07, w / 2.5
        pts = [
            (box[0] + x, y0 + amp * math.sin((x / period + k * 0.5) * 2 * math.pi))
            for x in range(0, w + 1, max(1, w // 40))
        ]
        sd.line(pts, fill=WAVE, width=max(SS, round(h * 0.06)))
    clip = Image.new("L", img.size, 0)
    ImageDraw.Draw(clip).rounded_rectangle(box, radius=rad, fill=255)
    sea.putalpha(ImageChops.multiply(sea.getchannel("A"), clip))
    img.alpha_composite(sea)


def card_sprite(name: str | None, w: int, h: int, jokers: bool = False) -> Image.Image:
    """A card: suit colour and letter (in the language being drawn); a rainbow with a
    locomotive (or, where ``jokers``, a star and 'JOKER'); ship cards add a sea band with
    one hull (two and '×2' for a double); cards with the harbor symbol carry a small
    anchor."""
    return _card_sprite(name, w, h, jokers, i18n.current())


@lru_cache(maxsize=256)
def _card_sprite(name: str | None, w: int, h: int, jokers: bool, lang: str) -> Image.Image:
    img = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    box = (SS, SS, w * SS - SS, h * SS - SS)
    rad = round(min(w, h) * 0.14 * SS)
    edge = round(1.5 * SS)
    if name is None:  # an empty slot
        d.rounded_rectangle(box, radius=rad, outline=(255, 255, 255, 90), width=edge)
        return img.reduce(SS)
    suit, kind = card_parts(name)
    d.rounded_rectangle(
        (box[0] + SS, box[1] + 2 * SS, box[2] + SS, box[3] + 2 * SS), radius=rad, fill=(0, 0, 0, 80)
    )
    W, H = w * SS, h * SS
    if kind == "locomotive":
        _rainbow(img, box, rad)
        d.rounded_rectangle(box, radius=rad, outline=INK, width=edge)
        r = min(w, h) * 0.3 * SS
        cx, cy = W / 2, H * (0.44 if jokers else 0.5)
        d.ellipse(
            (cx - r * 1.15, cy - r * 1.15, cx + r * 1.15, cy + r * 1.15),
            fill=PAPER,
            outline=INK,
            width=round(1.2 * SS),
        )
        if not jokers:
            draw_loco(d, cx, cy, r * 0.8, INK)
            return img.reduce(SS)
        d.polygon(mark_poly("star", cx, cy, r * 0.85), fill=INK)
        if w >= 48:
            f = font(max(7, round(w * 0.17)) * SS, "bold")
            tw = f.getlength("JOKER")
            ty = H * 0.83
            th = w * 0.13 * SS
            d.rounded_rectangle(
                (cx - tw / 2 - 3 * SS, ty - th, cx + tw / 2 + 3 * SS, ty + th),
                radius=th,
                fill=PAPER,
                outline=INK,
                width=SS,
            )
            d.text((cx, ty), "JOKER", font=f, fill=INK, anchor="mm")
        return img.reduce(SS)
    fill = SUIT_FILL.get(suit, SUIT_FILL["gray"])
    ink = ink_on(fill)
    d.rounded_rectangle(box, radius=rad, fill=fill)
    ship = kind in ("ship", "double")
    inset = round(min(w, h) * 0.12 * SS)
    if ship:
        sea_top = H * 0.6
        _sea_band(img, box, rad, sea_top)
        outline = INK if suit == "white" else PAPER
        if kind == "double":  # two ships, the second a little behind
            draw_ship(d, W * 0.66, sea_top + 0.1 * H, W * 0.44, fill, outline, SS)
            draw_ship(d, W * 0.36, sea_top + 0.17 * H, W * 0.44, fill, outline, SS)
        else:
            draw_ship(d, W / 2, sea_top + 0.15 * H, W * 0.56, fill, outline, SS)
    else:
        d.rounded_rectangle(
            (box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset),
            radius=rad // 2,
            outline=(*ink, 90),
            width=round(1.0 * SS),
        )
    d.rounded_rectangle(box, radius=rad, outline=INK, width=edge)
    letter = suit_letter(suit) or suit[:1].upper()
    size = min(w * 0.62, h * 0.5) * (0.7 if ship else 1.0) * letters_scale(letter)
    lx = W * (0.4 if kind == "double" else 0.5)
    d.text(
        (lx, H * (0.28 if ship else 0.5)),
        letter,
        font=font(round(size * SS), "bold"),
        anchor="mm",
        fill=ink,
    )
    corner = min(w, h) * 0.3 * SS  # the corner symbols' size
    if kind in ("harbor", "ship"):
        cx, cy = box[0] + corner * 0.62, box[1] + corner * 0.62
        r = corner * 0.5
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=PAPER, outline=INK, width=SS)
        draw_anchor(d, cx, cy, r * 1.3, SEA_INK)
    if kind == "double":
        d.text(
            (box[2] - inset * 0.6, box[1] + inset * 0.5),
            "×2",
            font=font(round(h * 0.16 * SS), "bold"),
            anchor="ra",
            fill=ink,
            stroke_width=SS,
            stroke_fill=shade(fill, 0.7) if ink != INK else shade(fill, 1.3),
        )
    return img.reduce(SS)
