"""The private hand image: cards by suit with counts, tickets, and tickets on offer."""

from __future__ import annotations

import threading

from PIL import Image, ImageDraw

from engine.views import PrivateView, TicketView

from .board import base_for, paste
from .fonts import font
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
from .panel import fit_text
from .shapes import card_sprite, mark_sprite
from .shares import company_fill, draw_tag, tag_width

WIDTH = 1120
PAD = 28
CARD_W, CARD_H = 86, 124
TILE_W, TILE_H = (WIDTH - 2 * PAD - 20) // 2, 104
THUMB_W, THUMB_H = 150, TILE_H - 16
DONE: RGB = hex_rgb("#3fb16a")
CHIPS_PER_ROW = 5
CHIP_W, CHIP_H = (WIDTH - 2 * PAD - (CHIPS_PER_ROW - 1) * 12) // CHIPS_PER_ROW, 60

_thumb_lock = threading.Lock()
_thumbs: dict[str, Image.Image] = {}


def _thumb(map_id: str) -> Image.Image:
    """A small picture of the empty map, for ticket tiles (cached per map)."""
    with _thumb_lock:
        found = _thumbs.get(map_id)
        if found is None:
            base = base_for(map_id)
            img = base.image.copy()
            img.alpha_composite(base.top)
            k = min(THUMB_W / img.width, THUMB_H / img.height)
            size = (round(img.width * k), round(img.height * k))
            found = _thumbs[map_id] = img.resize(size, Image.Resampling.LANCZOS)
        return found


def _ticket_tile(
    img: Image.Image, x: int, y: int, t: TicketView, map_id: str, offered: bool
) -> None:
    base = base_for(map_id)
    names = {c.id: c.name for c in base.map.cities}
    d = ImageDraw.Draw(img)
    edge = ACCENT if offered else (DONE if t.connected else shade(PANEL_BG, 1.5))
    d.rounded_rectangle(
        (x, y, x + TILE_W, y + TILE_H),
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
    td = ImageDraw.Draw(img)
    scaled = [(tx + px * k, ty + py * k) for px, py in pts]
    if len(scaled) > 1:
        td.line(scaled, fill=(*INK, 255), width=3)
    for px, py in scaled:
        td.ellipse((px - 5, py - 5, px + 5, py + 5), fill=(214, 58, 47), outline=INK, width=2)
    cx = x + THUMB_W + 22
    text_w = TILE_W - THUMB_W - 40 - 70
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
        d.text((cx, y + 14 + i * 25), fit_text(line, 20, "bold", text_w), font=f, fill=PANEL_FG)
    if offered:
        status, col = "on offer", ACCENT
    elif t.connected:
        status, col = "✓ connected", DONE
    else:
        status, col = "not yet connected", PANEL_DIM
    tag = f"{status}   #{t.id}" + ("   long" if t.long else "")
    d.text(
        (cx, y + TILE_H - 30), tag, font=font(15, "bold" if t.connected else "regular"), fill=col
    )
    # The value in a round badge at the right.
    bx, by = x + TILE_W - 42, y + TILE_H // 2
    d.ellipse(
        (bx - 28, by - 28, bx + 28, by + 28),
        fill=ACCENT if not t.connected else DONE,
        outline=INK,
        width=2,
    )
    d.text((bx, by), str(t.points), font=font(24, "bold"), fill=INK, anchor="mm")


def _tickets(
    img: Image.Image, y: int, tickets: list[TicketView], map_id: str, offered: bool
) -> int:
    for i, t in enumerate(tickets):
        col, row = i % 2, i // 2
        _ticket_tile(img, PAD + col * (TILE_W + 20), y + row * (TILE_H + 14), t, map_id, offered)
    return y + ((len(tickets) + 1) // 2) * (TILE_H + 14)


def _shares_height(view: PrivateView) -> int:
    held = [c for c, numbers in view.shares.items() if numbers]
    rows = -(-len(held) // CHIPS_PER_ROW)
    return (34 + rows * (CHIP_H + 12) + 8 if held else 0) + (44 if view.share_options else 0)


def _shares(img: Image.Image, y: int, view: PrivateView, map_id: str) -> int:
    """One chip per company held: its colour, the count and the share numbers; then the
    companies to choose from when a share choice waits."""
    m = base_for(map_id).map
    d = ImageDraw.Draw(img)
    held = [(c, sorted(n)) for c, n in view.shares.items() if n]
    if held:
        total = sum(len(n) for _, n in held)
        d.text(
            (PAD, y),
            f"Shares  ({total} in {len(held)} compan{'y' if len(held) == 1 else 'ies'})",
            font=font(16, "bold"),
            fill=PANEL_DIM,
        )
        y += 34
        for i, (company, numbers) in enumerate(held):
            col, row = i % CHIPS_PER_ROW, i // CHIPS_PER_ROW
            x, cy = PAD + col * (CHIP_W + 12), y + row * (CHIP_H + 12)
            fill = company_fill(m, company)
            ink = ink_on(fill)
            d.rounded_rectangle((x, cy, x + CHIP_W, cy + CHIP_H), radius=10, fill=fill,
                                outline=INK, width=2)
            d.text((x + 12, cy + 8), company, font=font(20, "bold"), fill=ink)
            d.text((x + CHIP_W - 12, cy + 6), f"× {len(numbers)}", font=font(22, "bold"),
                   fill=ink, anchor="ra")
            listed = "  ".join(f"#{n}" for n in numbers)
            d.text((x + 12, cy + 36), fit_text(listed, 14, "regular", CHIP_W - 24),
                   font=font(14), fill=ink)
        y += -(-len(held) // CHIPS_PER_ROW) * (CHIP_H + 12) + 8
    if view.share_options:
        label = "Share choice waiting:"
        d.text((PAD, y + 12), label, font=font(18, "bold"), fill=ACCENT, anchor="lm")
        x = PAD + int(font(18, "bold").getlength(label)) + 14
        for company in view.share_options:
            draw_tag(d, x, y, company, company_fill(m, company), size=15)
            x += tag_width(company, 15) + 8
        y += 44
    return y


def draw_hand(view: PrivateView, map_id: str) -> Image.Image:
    known = [c for c in CARD_ORDER if view.hand.get(c, 0) > 0]
    other = sorted(c for c, n in view.hand.items() if n > 0 and c not in CARD_ORDER)
    suits = known + other
    per_row = (WIDTH - 2 * PAD + 14) // (CARD_W + 14)
    card_rows = max(1, -(-len(suits) // per_row))
    ticket_rows = -(-len(view.tickets) // 2)
    offer_rows = -(-len(view.offered) // 2)
    height = (
        PAD + 60 + 34 + card_rows * (CARD_H + 44) + 20 + 34 + max(1, ticket_rows) * (TILE_H + 14)
    )
    if view.offered:
        height += 60 + offer_rows * (TILE_H + 14)
    height += _shares_height(view) + PAD
    img = Image.new("RGBA", (WIDTH, height), (*PANEL_BG, 255))
    d = ImageDraw.Draw(img)
    base = base_for(map_id)
    paste(img, mark_sprite(player_shape(view.seat), player_fill(view.seat), 40), PAD, PAD)
    d.text((PAD + 54, PAD - 2), "Your hand", font=font(30, "title"), fill=PANEL_FG)
    total = sum(view.hand.values())
    shares = sum(len(n) for n in view.shares.values())
    d.text(
        (PAD + 56, PAD + 36),
        f"{base.map.name}  ·  {total} cards  ·  {len(view.tickets)} tickets"
        + (f"  ·  {shares} shares" if shares else ""),
        font=font(16),
        fill=PANEL_DIM,
    )
    y = PAD + 74
    d.text((PAD, y), "Train cards", font=font(16, "bold"), fill=PANEL_DIM)
    y += 30
    if not suits:
        d.text((PAD, y + 10), "No cards in hand.", font=font(18), fill=PANEL_DIM)
    for i, suit in enumerate(suits):
        col, row = i % per_row, i // per_row
        x, cy = PAD + col * (CARD_W + 14), y + row * (CARD_H + 44)
        paste(img, card_sprite(suit, CARD_W, CARD_H), x, cy)
        label = f"× {view.hand[suit]}"
        d.text(
            (x + CARD_W // 2, cy + CARD_H + 6),
            label,
            font=font(22, "bold"),
            fill=PANEL_FG,
            anchor="ma",
        )
        if suit not in CARD_ORDER:
            d.text(
                (x + CARD_W // 2, cy + CARD_H - 16),
                fit_text(suit, 12, "regular", CARD_W - 8),
                font=font(12),
                fill=INK,
                anchor="mm",
            )
    y += card_rows * (CARD_H + 44) + 20
    y = _shares(img, y, view, map_id)
    done = sum(1 for t in view.tickets if t.connected)
    d.text(
        (PAD, y),
        f"Tickets  ({done} of {len(view.tickets)} connected)",
        font=font(16, "bold"),
        fill=PANEL_DIM,
    )
    y += 34
    if not view.tickets:
        d.text((PAD, y + 10), "No tickets kept yet.", font=font(18), fill=PANEL_DIM)
        y += TILE_H + 14
    else:
        y = _tickets(img, y, view.tickets, map_id, offered=False)
    if view.offered:
        y += 16
        d.text(
            (PAD, y), f"On offer: keep at least {view.keep_min}", font=font(22, "bold"), fill=ACCENT
        )
        y += 44
        _tickets(img, y, view.offered, map_id, offered=True)
    return img.convert("RGB")
