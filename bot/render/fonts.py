"""Bundled fonts, from the top-level ``assets/fonts/`` (package data, with their licences):
DejaVu for every face, then a fallback chain for what DejaVu lacks (players' names in
Chinese, Japanese, Korean, fullwidth forms, emoji): WenQuanYi Micro Hei, then Noto Emoji
(monochrome). No system font is used; ``importlib.resources`` reads them, so an installed
wheel renders the same as the source tree, from any working directory.

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

from PIL import Image, ImageDraw, ImageFont

Face = Literal["regular", "bold", "label", "title"]
# Tried in order for a character the face's own font lacks (each for every face).
FALLBACKS = ("wqy-microhei.ttc", "NotoEmoji.ttf")
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

        self.file = ""  # the font's file name in assets/fonts (``font`` sets it)

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
        runs = self._runs(text)
        if runs is None:
            found = super().getmask2(text, mode, direction, features, language, stroke_width,
                                     anchor, ink, start, **kwargs)
        else:
            found = self._mixed_mask(runs, mode, stroke_width, anchor)
        self._masks[key] = found
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
            runs = self._runs(text)
            found = self._lengths[key] = (
                super().getlength(text, mode, direction, features, language) if runs is None
                else sum(f.getlength(part, mode) for f, part in runs))
        return found

    def getbbox(self, text: str | bytes | bytearray, mode: str = "",
                direction: str | None = None, features: list[str] | None = None,
                language: str | None = None, stroke_width: float = 0,
                anchor: str | None = None) -> tuple[float, float, float, float]:
        runs = None if isinstance(text, bytearray) else self._runs(text)
        if runs is None:
            return super().getbbox(text, mode, direction, features, language, stroke_width,
                                   anchor)
        mask, (x, y) = self._mixed_mask(runs, mode, stroke_width, anchor)
        return x, y, x + mask.size[0], y + mask.size[1]

    def _runs(self, text: str | bytes) -> list[tuple[Font, str]] | None:
        """``text`` cut into runs of the first font of the chain that has their characters,
        or None when this font has them all (nearly always: the quick path)."""
        if isinstance(text, bytes) or text.isascii() or not self.file:
            return None
        covered = _covered.setdefault(self.file, set())
        if covered.issuperset(text):  # every character seen in this font before
            return None
        if all(has_glyph(self, ch) for ch in text):
            covered.update(text)
            return None
        chain = [self, *(font_file(name, round(self.size)) for name in FALLBACKS)]
        runs: list[tuple[Font, str]] = []
        for ch in text:
            f = next((f for f in chain if has_glyph(f, ch)), self)
            if runs and runs[-1][0] is f:
                runs[-1] = (f, runs[-1][1] + ch)
            else:
                runs.append((f, ch))
        return None if len(runs) == 1 and runs[0][0] is self else runs

    def _mixed_mask(self, runs: list[tuple[Font, str]], mode: str, stroke_width: float,
                    anchor: str | None) -> Mask:
        """The mask of runs set in different fonts on one baseline, placed for ``anchor``
        by this font's ascent and descent (as Pillow places a one-font string)."""
        ascent, descent = self.getmetrics()
        pad = round(stroke_width + self.size)  # room for glyphs taller than this font's
        width = sum(f.getlength(part) for f, part in runs)
        img = Image.new("L", (int(width) + 2 * pad, round(ascent + descent) + 2 * pad))
        d = ImageDraw.Draw(img)
        x = float(pad)
        for f, part in runs:
            d.text((x, pad + ascent), part, font=f, fill=255, anchor="ls",
                   stroke_width=stroke_width)
            x += f.getlength(part)
        box = img.getbbox() or (pad, pad, pad + 1, pad + 1)
        horizontal, vertical = (anchor or "la")[0], (anchor or "la")[1]
        dx = {"l": 0.0, "m": width / 2, "r": width}[horizontal]
        dy = {"a": 0, "t": box[1] - pad, "m": (ascent + descent) / 2, "s": ascent,
              "b": box[3] - pad, "d": ascent + descent}[vertical]
        core = img.crop(box).im
        return core, (round(box[0] - pad - dx), round(box[1] - pad - dy))


Font = ImageFont.FreeTypeFont


@cache
def file_bytes(name: str) -> bytes:
    """A font file of assets/fonts, read once per process from the package."""
    return (files("assets") / "fonts" / name).read_bytes()


def font_bytes(face: Face) -> bytes:
    """The font file of ``face``."""
    return file_bytes(_FILES[face])


def font_file(name: str, size: int) -> CachedFont:
    """The font in the file ``name`` at ``size`` px, kept per thread."""
    fonts: dict[tuple[str, int], CachedFont] | None = getattr(_local, "fonts", None)
    if fonts is None:
        fonts = _local.fonts = {}
    found = fonts.get((name, size))
    if found is None:
        found = fonts[(name, size)] = CachedFont(io.BytesIO(file_bytes(name)), size)
        found.file = name
    return found


def font(size: int, face: Face = "regular") -> Font:
    return font_file(_FILES[face], size)


# A character the font has not: FreeType draws its "missing" glyph (a box) instead.
MISSING = "\U0010fffd"  # a private-use code point no bundled font has
_glyphs: dict[tuple[str, str], bool] = {}
_covered: dict[str, set[str]] = {}  # per font file: characters it has, as met


def has_glyph(f: CachedFont, ch: str) -> bool:
    """Whether the font file of ``f`` has a glyph for ``ch`` (not its missing-glyph box),
    by drawing both once per file and character."""
    key = (f.file, ch)
    found = _glyphs.get(key)
    if found is None:
        found = _glyphs[key] = not ch.isprintable() or _pixels(f.file, ch) != _pixels(
            f.file, MISSING)
    return found


def _pixels(name: str, ch: str) -> bytes:
    """``ch`` drawn in the font file ``name`` alone (a plain font: no fallback)."""
    probes: dict[str, Font] | None = getattr(_local, "probes", None)
    if probes is None:
        probes = _local.probes = {}
    probe = probes.get(name)
    if probe is None:
        probe = probes[name] = ImageFont.FreeTypeFont(io.BytesIO(file_bytes(name)), 24)
    img = Image.new("L", (64, 64))
    ImageDraw.Draw(img).text((8, 8), ch, font=probe, fill=255)
    return img.tobytes()
