"""Board, hand and final-score images from engine views (Pillow).

Every function is pure and thread-safe: the static layer of each map is
built once under a lock and copied before anything is drawn on it.
"""

from __future__ import annotations

import io
import threading
from typing import Literal

from PIL import Image

from engine.views import PrivateView, PublicView

from .board import base_for, draw_map
from .demo import empty_view
from .final import draw_final
from .fonts import font
from .hand import draw_hand
from .palette import CARD_ORDER, PANEL_BG
from .panel import (
    key_line,
    legend_block,
    market_block,
    market_width,
    players_block,
    stacks_block,
    title_block,
)

__all__ = ["MAX_BYTES", "render_board", "render_final", "render_hand"]

Format = Literal["PNG", "WEBP"]
MAX_BYTES = 1_500_000
HEADER_H = 214
STACKS_H = 40  # a row of share stacks under the header (maps with shares)
SIDE_W = 500


def encode(img: Image.Image, fmt: str = "PNG", palette: Image.Image | None = None) -> bytes:
    """WebP, or a 256-colour PNG: the images are flat art, and a palette PNG is
    several times smaller and faster to write than a true-colour one. Mapping
    to a ready ``palette`` is much faster than choosing one."""
    rgb = img.convert("RGB") if img.mode != "RGB" else img
    buf = io.BytesIO()
    if fmt.upper() == "WEBP":
        rgb.save(buf, "WEBP", quality=90, method=2)
    elif fmt.upper() == "PNG":
        if palette is not None:
            pal = rgb.quantize(palette=palette, dither=Image.Dither.NONE)
        else:
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


def board_image(view: PublicView) -> Image.Image:
    """The whole board picture: map plus information panel (RGB)."""
    base = base_for(view.map_id)
    m = base.map
    mp = draw_map(view)
    shares = m.rules.shares is not None
    if mp.width >= mp.height:
        top = header_height(view.map_id)
        img = Image.new("RGBA", (mp.width, mp.height + top), (*PANEL_BG, 255))
        img.paste(mp, (0, top))
        market_w = market_width(view)
        # A long map name widens the title column rather than being cut short.
        title_w = max(330, min(430, round(font(24, "title").getlength(m.name)) + 126))
        px = 24 + title_w + 26
        title_block(img, 24, 18, title_w, view, m)
        players_block(img, px, 18, mp.width - px - market_w - 70, view, m)
        market_block(img, mp.width - market_w - 24, 18, market_w, view, m)
        if view.tunnel is None:
            key_line(img, mp.width - market_w - 24, 150, market_w, m)
        if shares:
            stacks_block(img, 24, HEADER_H - 4, mp.width - 48, view, m)
    else:
        img = Image.new("RGBA", (mp.width + SIDE_W, mp.height), (*PANEL_BG, 255))
        img.paste(mp, (0, 0))
        x, w = mp.width + 28, SIDE_W - 52
        y = title_block(img, x, 28, w, view, m) + 24
        y = players_block(img, x, y, w, view, m) + 28
        y = market_block(img, x, y, w, view, m) + 28
        if shares:
            y = stacks_block(img, x, y, w, view, m) + 28
        legend_block(img, x, y, w, m)
    return img.convert("RGB")


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
                    "phase": "turn",
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


def render_board(view: PublicView, fmt: Format | str = "PNG") -> bytes:
    return encode(board_image(view), fmt, board_palette(view.map_id))


def render_hand(view: PrivateView, map_id: str, fmt: Format | str = "PNG") -> bytes:
    return encode(draw_hand(view, map_id), fmt)


def render_final(view: PublicView, fmt: Format | str = "PNG") -> bytes:
    if view.final is None:
        raise ValueError("render_final needs a view of a finished game (view.final is None)")
    return encode(draw_final(view), fmt)
