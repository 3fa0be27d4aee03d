"""Pennsylvania's railroad companies in pictures: coloured tags for stacks, hands and scores."""

from __future__ import annotations

from PIL import ImageDraw

from bot.i18n import N_, _
from maps.model import Company, MapData

from .fonts import font
from .palette import INK, RGB, hex_rgb, ink_on, shade


def companies(m: MapData) -> list[Company]:
    return list(m.rules.shares.companies) if m.rules.shares is not None else []


def company_fill(m: MapData, company: str) -> RGB:
    found = next((c.color for c in companies(m) if c.id == company), "#777777")
    return hex_rgb(found)


def tag_width(text: str, size: int = 14) -> int:
    return int(font(size, "bold").getlength(text)) + 14


def draw_tag(
    d: ImageDraw.ImageDraw,
    x: float,
    y: float,
    text: str,
    fill: RGB,
    *,
    size: int = 14,
    height: int = 24,
    dim: bool = False,
) -> int:
    """A rounded tag in a company's colour with ``text`` on it; returns its width."""
    w = tag_width(text, size)
    body = shade(fill, 0.45) if dim else fill
    d.rounded_rectangle(
        (x, y, x + w, y + height), radius=6, fill=body, outline=INK, width=1
    )
    d.text(
        (x + w / 2, y + height / 2),
        text,
        font=font(size, "bold"),
        fill=shade(ink_on(fill), 0.75) if dim else ink_on(fill),
        anchor="mm",
    )
    return w


# A place in a company's majority, as the share grid of the final scores shows it.
PLACES = (N_("1st"), N_("2nd"), N_("3rd"), N_("4th"), N_("5th"), N_("6th"))


def place_text(place: int) -> str:
    """'1st' for the majority (``place`` 1), in the current language."""
    return _(PLACES[place - 1]) if 1 <= place <= len(PLACES) else str(place)
