"""The renderer's fence: its one use of a library's private internals, behind a named function.

``tests/render/test_fence.py`` checks it against the installed Pillow, so an upgrade that
moves it fails there, loudly and by name, not in a worker drawing a game's board. (Not in
``bot.fence``: that one imports discord.py and aiosqlite, which the render workers never
load.)
"""

from __future__ import annotations

from collections.abc import Iterator

from PIL import Image


def row_bands(img: Image.Image, rows: int) -> Iterator[bytes]:
    """The raw bytes of a palette (or grey) image, ``rows`` rows at a time (the last band
    may be shorter): ``img.tobytes()`` in pieces, taken with Pillow's "raw" encoder
    (``Image._getencoder``, what ``tobytes`` runs) asked for one band per call.
    ``tobytes`` copies the whole image twice (into 64 KiB pieces, then into one new
    buffer, 2.3 MB for a board) before anything reads it; a band read on its own is still
    in the CPU's caches when it is checksummed and deflated (``bot.render.png``): a claim's
    board ~0.5 ms less of ~7.5."""
    if img.mode not in ("P", "L"):
        raise ValueError(f"row_bands takes a byte per pixel (P or L), not {img.mode}")
    img.load()
    encoder = Image._getencoder(img.mode, "raw", img.mode)
    try:
        encoder.setimage(img.im, (0, 0, *img.size))
        while True:
            _consumed, status, data = encoder.encode(rows * img.width)
            if data:
                yield data
            if status:
                if status < 0:
                    raise RuntimeError(f"Pillow's raw encoder failed ({status})")
                return
    finally:
        encoder.cleanup()
