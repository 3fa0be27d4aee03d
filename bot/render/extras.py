"""The map's own final points as chips (Iberia's festival sets, Rails & Sails' harbors and
penalties), from the engine's ``ExtraPoints``: 'Valencia ×7', 'Perth, 1 ticket',
'2 harbors not built', '3 pieces exchanged'."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot import i18n
from bot.i18n import _n
from engine.extras import ExtraPoints
from maps.model import MapData

from .board import blend
from .fonts import font
from .icons import FESTIVAL, SEA_INK, anchor_badge, tent_sprite
from .palette import PANEL_BG, PANEL_DIM, PANEL_FG, RGB, hex_rgb, player_fill, shade

GOOD: RGB = hex_rgb("#a77bdb")  # as the map points' part of the score bars
BAD: RGB = hex_rgb("#e0564a")
CHIP_H = 28
ROW_GAP = 6


@dataclass(frozen=True)
class Chip:
    icon: str  # "tent", "anchor" or ""
    text: str
    points: int

    @property
    def width(self) -> int:
        return (
            (30 if self.icon else 10)
            + int(font(15, "bold").getlength(self.text))
            + 10
            + int(font(16, "bold").getlength(f"{self.points:+d}"))
            + 12
        )


def chip_of(extra: ExtraPoints) -> Chip:
    fields = extra.fields
    if extra.kind == "festival":
        return Chip("tent", f"{fields['city']} ×{fields['n']}", extra.points)
    if extra.kind == "harbor":
        n = int(fields["n"])
        return Chip("anchor", _n("{city}, {n} ticket", "{city}, {n} tickets", n,
                                 city=fields["city"]), extra.points)
    return Chip("", i18n.text(extra.text()), extra.points)


def chips_of(extras: list[ExtraPoints]) -> list[Chip]:
    """Gains first (largest first), then losses."""
    chips = [chip_of(extra) for extra in extras]
    return sorted(chips, key=lambda c: (c.points < 0, -abs(c.points), c.text))


def extras_note(extras: list[ExtraPoints], m: MapData) -> str:
    """The small note beside the map-points total in the score table."""
    if m.rules.festivals is not None:
        cards = sum(int(e.fields["n"]) for e in extras if e.kind == "festival")
        return _n("{n} card", "{n} cards", cards) if cards else ""
    if m.rules.rails_and_sails is not None:
        harbors = sum(1 for e in extras if e.kind == "harbor")
        return f"{harbors} ⚓" if harbors else ""
    return f"{len(extras)}" if extras else ""


def rows_needed(chips: list[Chip], width: int) -> int:
    rows, x = 1, 0
    for c in chips:
        if x and x + c.width > width:
            rows, x = rows + 1, 0
        x += c.width + 8
    return rows


def draw_chips(img: Image.Image, x0: int, y: int, width: int, chips: list[Chip], seat: int) -> int:
    """Chips flowed into ``width`` px from (x0, y); returns the y below the last row."""
    d = ImageDraw.Draw(img)
    x = x0
    for c in chips:
        if x > x0 and x + c.width > x0 + width:
            x, y = x0, y + CHIP_H + ROW_GAP
        edge = FESTIVAL if c.icon == "tent" else SEA_INK if c.icon == "anchor" else PANEL_DIM
        d.rounded_rectangle(
            (x, y, x + c.width, y + CHIP_H), radius=8, fill=shade(PANEL_BG, 1.18), outline=edge
        )
        tx = x + 10
        if c.icon == "tent":
            blend(img, tent_sprite(24), x + 4, y + 2)
            tx = x + 30
        elif c.icon == "anchor":  # in the owner's colour, as on the board
            blend(img, anchor_badge(22, player_fill(seat)), x + 4, y + 3)
            tx = x + 30
        d.text((tx, y + CHIP_H / 2), c.text, font=font(15, "bold"), fill=PANEL_FG, anchor="lm")
        d.text(
            (x + c.width - 10, y + CHIP_H / 2),
            f"{c.points:+d}",
            font=font(16, "bold"),
            fill=GOOD if c.points > 0 else BAD if c.points < 0 else PANEL_DIM,
            anchor="rm",
        )
        x += c.width + 8
    return y + CHIP_H + ROW_GAP
