"""Bundled fonts (DejaVu, see bot/render/assets/fonts/LICENSE-DejaVu.txt); no system font
is used. They are package data, read through ``importlib.resources``, so an installed wheel
renders the same as the source tree, from any working directory.

FreeType faces are not safe to share between threads, so each thread keeps its own.
Each font remembers the strings it drew (``CachedFont``).
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from functools import cache
from importlib.resources import files
from typing import Any, Literal

from PIL import ImageFont

Face = Literal["regular", "bold", "label", "title"]
_FILES: dict[Face, str] = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "label": "DejaVuSansCondensed-Bold.ttf",
    "title": "DejaVuSerif-Bold.ttf",
}

_local = threading.local()

# Strings kept per font (and thread): more than the texts of a few dozen games' panels
# and hands; a mask is a few KB.
TEXT_CACHE = 2048
Mask = tuple[Any, tuple[int, int]]  # Pillow's core image of the glyphs, and its offset


class CachedFont(ImageFont.FreeTypeFont):
    """A FreeType font that keeps the masks and lengths of the strings it laid out.

    Consecutive boards and hands repeat nearly all their texts (names, labels, counts),
    and laying out and rasterising a string is most of the cost of drawing it. The masks
    are Pillow's own, so the pixels are exactly those of an uncached font. Not shared
    between threads (``font`` keeps one per thread)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._masks: OrderedDict[tuple[Any, ...], Mask] = OrderedDict()
        self._lengths: dict[tuple[Any, ...], float] = {}

    def getmask2(self, text: str | bytes, mode: str = "", direction: str | None = None,
                 features: list[str] | None = None, language: str | None = None,
                 stroke_width: float = 0, anchor: str | None = None, ink: int = 0,
                 start: tuple[float, float] | None = None, *args: Any,
                 **kwargs: Any) -> Mask:
        if mode == "RGBA" or args:  # colour glyphs are drawn with their ink: not kept
            return super().getmask2(text, mode, direction, features, language, stroke_width,
                                    anchor, ink, start, *args, **kwargs)
        key = (text, mode, direction, features and tuple(features), language, stroke_width,
               anchor, start, tuple(sorted(kwargs.items())))
        found = self._masks.get(key)
        if found is not None:
            self._masks.move_to_end(key)
            return found
        found = self._masks[key] = super().getmask2(
            text, mode, direction, features, language, stroke_width, anchor, ink, start,
            **kwargs)
        if len(self._masks) > TEXT_CACHE:
            self._masks.popitem(last=False)
        return found

    def getlength(self, text: str | bytes, mode: str = "", direction: str | None = None,
                  features: list[str] | None = None, language: str | None = None) -> float:
        key = (text, mode, direction, features and tuple(features), language)
        found = self._lengths.get(key)
        if found is None:
            if len(self._lengths) >= TEXT_CACHE:
                self._lengths.clear()
            found = self._lengths[key] = super().getlength(text, mode, direction, features,
                                                           language)
        return found


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
        found = faces[key] = CachedFont(io.BytesIO(font_bytes(face)), size)
    return found
