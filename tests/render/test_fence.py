"""The renderer's use of Pillow's private internals (``bot.render.fence``) against the
installed Pillow: an upgrade that moves its raw encoder fails here, by name."""

from __future__ import annotations

import random

import pytest
from PIL import Image

from bot.render.fence import row_bands


@pytest.mark.parametrize("mode", ["P", "L"])
@pytest.mark.parametrize(("width", "height"), [(5, 1), (5, 23), (5, 24), (7, 48), (7, 49),
                                               (1601, 95)])
def test_row_bands_are_the_images_bytes_band_by_band(mode: str, width: int,
                                                      height: int) -> None:
    rng = random.Random(width * height)
    img = Image.new(mode, (width, height))
    img.putdata(rng.randbytes(width * height))
    bands = list(row_bands(img, 24))
    assert b"".join(bands) == img.tobytes()
    assert [len(b) for b in bands] == [width * min(24, height - top)
                                       for top in range(0, height, 24)]


def test_row_bands_refuses_an_image_of_several_bytes_a_pixel() -> None:
    with pytest.raises(ValueError, match="RGB"):
        next(row_bands(Image.new("RGB", (4, 4)), 24))
