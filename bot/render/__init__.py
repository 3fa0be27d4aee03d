"""Board, hand and final-score images from engine views (Pillow).

Every function is pure and thread-safe: the static layer of each map is
built once under a lock and copied before anything is drawn on it.
"""

from __future__ import annotations

import io
from typing import Literal

from PIL import Image

from engine.views import PrivateView, PublicView

from .board import base_for, draw_map
from .final import draw_final
from .hand import draw_hand
from .palette import PANEL_BG
from .panel import market_block, players_block, title_block

__all__ = ["MAX_BYTES", "render_board", "render_final", "render_hand"]

Format = Literal["PNG", "WEBP"]
MAX_BYTES = 1_500_000
HEADER_H = 214
SIDE_W = 500


def encode(img: Image.Image, fmt: str = "PNG") -> bytes:
    """WebP, or a 256-colour PNG: the images are flat art, and a palette PNG is
    several times smaller and faster to write than a true-colour one."""
    rgb = img.convert("RGB") if img.mode != "RGB" else img
    buf = io.BytesIO()
    if fmt.upper() == "WEBP":
        rgb.save(buf, "WEBP", quality=90, method=2)
    elif fmt.upper() == "PNG":
        pal = rgb.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        pal.save(buf, "PNG", compress_level=6)
    else:
        raise ValueError(f"unknown image format {fmt!r}; use PNG or WEBP")
    return buf.getvalue()


def board_image(view: PublicView) -> Image.Image:
    """The whole board picture: map plus information panel (RGB)."""
    base = base_for(view.map_id)
    m = base.map
    mp = draw_map(view)
    if mp.width >= mp.height:
        img = Image.new("RGBA", (mp.width, mp.height + HEADER_H), (*PANEL_BG, 255))
        img.paste(mp, (0, HEADER_H))
        market_w = 5 * 54 + 4 * 12
        title_block(img, 24, 18, 330, view, m)
        players_block(img, 380, 18, mp.width - 380 - market_w - 70, view, m)
        market_block(img, mp.width - market_w - 24, 18, market_w, view)
    else:
        img = Image.new("RGBA", (mp.width + SIDE_W, mp.height), (*PANEL_BG, 255))
        img.paste(mp, (0, 0))
        x, w = mp.width + 28, SIDE_W - 52
        y = title_block(img, x, 28, w, view, m) + 24
        y = players_block(img, x, y, w, view, m) + 28
        market_block(img, x, y, w, view)
    return img.convert("RGB")


def render_board(view: PublicView, fmt: Format | str = "PNG") -> bytes:
    return encode(board_image(view), fmt)


def render_hand(view: PrivateView, map_id: str, fmt: Format | str = "PNG") -> bytes:
    return encode(draw_hand(view, map_id), fmt)


def render_final(view: PublicView, fmt: Format | str = "PNG") -> bytes:
    if view.final is None:
        raise ValueError("render_final needs a view of a finished game (view.final is None)")
    return encode(draw_final(view), fmt)
