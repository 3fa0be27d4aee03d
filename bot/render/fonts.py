"""Bundled fonts (DejaVu, see bot/render/assets/fonts/LICENSE-DejaVu.txt); no system font
is used. They are package data, read through ``importlib.resources``, so an installed wheel
renders the same as the source tree, from any working directory.

FreeType faces are not safe to share between threads, so each thread keeps its own.
"""

from __future__ import annotations

import io
import threading
from functools import cache
from importlib.resources import files
from typing import Literal

from PIL import ImageFont

Face = Literal["regular", "bold", "label", "title"]
_FILES: dict[Face, str] = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "label": "DejaVuSansCondensed-Bold.ttf",
    "title": "DejaVuSerif-Bold.ttf",
}

_local = threading.local()

Font = ImageFont.FreeTypeFont


@cache
def font_bytes(face: Face) -> bytes:
    """The font file of ``face``, read once per process from the package."""
    return (files("bot.render") / "assets" / "fonts" / _FILES[face]).read_bytes()


def font(size: int, face: Face = "regular") -> Font:
    faces: dict[tuple[int, Face], Font] | None = getattr(_local, "fonts", None)
    if faces is None:
        faces = _local.fonts = {}
    key = (size, face)
    found = faces.get(key)
    if found is None:
        found = faces[key] = ImageFont.truetype(io.BytesIO(font_bytes(face)), size)
    return found
