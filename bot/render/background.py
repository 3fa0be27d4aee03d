"""The generated backdrop: land and sea derived from the map's own routes.

Land is the soft union of the cities and the (non-ferry) train routes,
blurred and roughened by smooth noise seeded from the map id, so every map
gets a stable coastline of its own without copying any board art. The sea
gets old-chart ripple lines along the coast; a faint graticule and a
vignette finish it.
"""

from __future__ import annotations

import random
import zlib

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from .layout import Layout
from .palette import INK, LAND, LAND_EDGE, RGB, SEA, SEA_DEEP, SEA_LINE, shade

DOWN = 4  # the land mask is shaped at a quarter of the size


def _solid(size: tuple[int, int], rgb: RGB) -> Image.Image:
    return Image.new("RGB", size, rgb)


def _band(mask: Image.Image, lo: int, hi: int) -> Image.Image:
    """255 where lo <= value <= hi, soft-edged."""
    lut = [255 if lo <= v <= hi else 0 for v in range(256)]
    return mask.point(lut).filter(ImageFilter.GaussianBlur(0.8))


def _fill_lakes(mask: Image.Image, wrap: bool) -> Image.Image:
    """Turn water enclosed by land into land, unless it is a real inland sea (large)."""
    w, h = mask.size
    px = mask.load()
    assert px is not None
    border = [(x, y) for x in range(w) for y in (0, h - 1)]
    if not wrap:
        border += [(x, y) for y in range(h) for x in (0, w - 1)]
    for x, y in border:
        if px[x, y] == 0:
            ImageDraw.floodfill(mask, (x, y), 128)
    big_sea = w * h // 40
    while True:
        box = mask.point([255 if v == 0 else 0 for v in range(256)]).getbbox()
        if box is None:
            break
        x0, y0 = box[0], box[1]
        start = next((x, y0) for x in range(x0, box[2]) if px[x, y0] == 0)
        ImageDraw.floodfill(mask, start, 64)
        area = mask.histogram()[64]
        ImageDraw.floodfill(mask, start, 128 if area > big_sea else 255)
    return mask.point([0 if v == 128 else 255 for v in range(256)])


def land_mask(lay: Layout, seed: str) -> Image.Image:
    w, h = lay.width, lay.height
    sw, sh = max(1, w // DOWN), max(1, h // DOWN)
    small = Image.new("L", (sw, sh), 0)
    d = ImageDraw.Draw(small)
    shifts = (-w, 0, w) if lay.wrap else (0,)
    for dx in shifts:
        for (ax, ay), (bx, by) in lay.land:
            d.line(
                [((ax + dx) / DOWN, ay / DOWN), ((bx + dx) / DOWN, by / DOWN)],
                fill=255,
                width=round(58 / DOWN),
            )
        for pts in lay.cities.values():
            for x, y in pts:
                r = 46 / DOWN
                cx, cy = (x + dx) / DOWN, y / DOWN
                d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=255)
    small = small.filter(ImageFilter.GaussianBlur(22 / DOWN))
    # Smooth noise makes the coast wander instead of following the routes exactly.
    rng = random.Random(zlib.crc32(seed.encode()))
    nw, nh = max(2, sw // 10), max(2, sh // 10)
    noise = Image.frombytes("L", (nw, nh), bytes(rng.randrange(40, 216) for _ in range(nw * nh)))
    noise = noise.resize((sw, sh), Image.Resampling.BICUBIC)
    small = Image.blend(small, noise, 0.38)
    small = _fill_lakes(small.point([255 if v > 88 else 0 for v in range(256)]), lay.wrap)
    small = small.filter(ImageFilter.GaussianBlur(5 / DOWN))
    big = small.resize((w, h), Image.Resampling.BILINEAR).filter(ImageFilter.GaussianBlur(1.2))
    return big.point([max(0, min(255, (v - 128) * 6 + 128)) for v in range(256)])


def _vignette(size: tuple[int, int]) -> Image.Image:
    g = Image.radial_gradient("L").resize(size, Image.Resampling.BILINEAR)
    return g.point([max(0, min(255, int((v - 150) * 0.6))) for v in range(256)])


def background(lay: Layout, seed: str) -> Image.Image:
    size = (lay.width, lay.height)
    land = land_mask(lay, seed)
    near = land.filter(ImageFilter.GaussianBlur(40))
    sea = Image.composite(
        _solid(size, SEA), _solid(size, SEA_DEEP), near.point([min(255, v * 4) for v in range(256)])
    )
    # Ripple lines offshore: contours of the blurred coast at two distances.
    water = ImageChops.invert(land)
    for radius, lo, hi in ((7, 52, 66), (16, 40, 48)):
        ring = _band(land.filter(ImageFilter.GaussianBlur(radius)), lo, hi)
        ring = ImageChops.multiply(ring, water)
        sea = Image.composite(_solid(size, SEA_LINE), sea, ring)
    inner = ImageChops.multiply(land, ImageChops.invert(land.filter(ImageFilter.GaussianBlur(6))))
    ground = Image.composite(
        _solid(size, LAND_EDGE),
        _solid(size, LAND),
        inner.point([min(255, v * 3) for v in range(256)]),
    )
    img = Image.composite(ground, sea, land)
    coast = _band(land, 90, 170)
    img = Image.composite(_solid(size, shade(LAND_EDGE, 0.62)), img, coast)
    out = img.convert("RGBA")
    grid = Image.new("RGBA", size, (0, 0, 0, 0))
    gd = ImageDraw.Draw(grid)
    for line in lay.grid:
        gd.line(list(line), fill=(*INK, 26), width=1)
    out.alpha_composite(grid)
    dark = Image.new("RGBA", size, (*shade(SEA_DEEP, 0.45), 0))
    dark.putalpha(_vignette(size))
    out.alpha_composite(dark)
    return out
