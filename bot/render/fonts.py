"""Bundled fonts (DejaVu, see assets/fonts/LICENSE-DejaVu.txt); no system font is used.

FreeType faces are not safe to share between threads, so each thread keeps its own.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Literal

from PIL import ImageFont

FONT_DIR = Path(__file__).resolve().parents[2] / "assets" / "fonts"

Face = Literal["regular", "bold", "label", "title"]
_FILES: dict[Face, str] = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "label": "DejaVuSansCondensed-Bold.ttf",
    "title": "DejaVuSerif-Bold.ttf",
}

_local = threading.local()

Font = ImageFont.FreeTypeFont


def font(size: int, face: Face = "regular") -> Font:
    cache: dict[tuple[int, Face], Font] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = _local.fonts = {}
    key = (size, face)
    found = cache.get(key)
    if found is None:
        found = cache[key] = ImageFont.truetype(str(FONT_DIR / _FILES[face]), size)
    return found
