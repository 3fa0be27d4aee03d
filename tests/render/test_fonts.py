"""Players' names in any script are drawn with real glyphs (issue 27, 5): DejaVu first, then
the bundled fallback fonts (WenQuanYi Micro Hei for Chinese, Japanese, Korean and fullwidth
forms, Noto Emoji for emoji), never FreeType's missing-glyph box."""

from __future__ import annotations

import io
from importlib.resources import files

import pytest
from PIL import Image, ImageDraw, ImageFont

from bot.render import draw_scores, panel_image
from bot.render.demo import final_view, mid_view
from bot.render.fonts import FALLBACKS, MISSING, Face, font

NAMES = ["王小明", "김민준", "Ｔａｒｏ１２３", "Ana 🚂🔥", "さくら・ミク"]
FILES = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansCondensed-Bold.ttf",
         "DejaVuSerif-Bold.ttf", *FALLBACKS]


def _drawn(ch: str, f: ImageFont.FreeTypeFont) -> bytes:
    img = Image.new("L", (90, 90))
    ImageDraw.Draw(img).text((12, 12), ch, font=f, fill=255)
    return img.tobytes()


def _boxes(size: int) -> set[bytes]:
    """The missing-glyph box of every bundled font at ``size``, drawn by plain FreeType."""
    return {_drawn(MISSING, ImageFont.truetype(
        io.BytesIO((files("assets") / "fonts" / name).read_bytes()), size)) for name in FILES}


@pytest.mark.parametrize("face", ["regular", "bold", "label", "title"])
def test_names_in_other_scripts_and_with_emoji_are_drawn_not_boxes(face: Face) -> None:
    f = font(28, face)
    boxes = _boxes(28)
    for name in NAMES:
        for ch in name.replace(" ", ""):
            drawn = _drawn(ch, f)
            assert any(drawn), (name, ch)
            assert drawn not in boxes, f"{ch!r} of {name!r} is drawn as a missing-glyph box"


@pytest.mark.parametrize("anchor", ["la", "ls", "lm", "ld", "mm", "rm"])
def test_a_mixed_name_sits_where_a_one_font_name_would(anchor: str) -> None:
    """A name of several fonts keeps the first font's baseline and the anchor's meaning:
    its Latin part is drawn where that part alone would be, and it is measured as wide
    as it is drawn."""
    f = font(30, "bold")
    latin, rest = "Ana ", "王🚂"
    mixed, alone = Image.new("L", (500, 120)), Image.new("L", (500, 120))
    x = {"l": 100.0, "m": 250.0, "r": 400.0}[anchor[0]]
    d = ImageDraw.Draw(mixed)
    d.text((x, 60), latin + rest, font=f, fill=255, anchor=anchor)
    # The Latin part alone, put where the whole string's anchor puts its start.
    start = x - {"l": 0.0, "m": 0.5, "r": 1.0}[anchor[0]] * f.getlength(latin + rest)
    ImageDraw.Draw(alone).text((start, 60), latin, font=f, fill=255, anchor="l" + anchor[1])
    cut = (0, 0, round(start + f.getlength("Ana")), 120)
    if anchor[0] == "l":  # pixel for pixel; else within a pixel (a fractional start)
        assert mixed.crop(cut).tobytes() == alone.crop(cut).tobytes()
    mine, theirs = mixed.crop(cut).getbbox(), alone.crop(cut).getbbox()
    assert mine and theirs and all(abs(a - b) <= 1 for a, b in zip(mine, theirs, strict=True))
    x0, _y0, x1, _y1 = mixed.getbbox() or (0, 0, 0, 0)
    assert abs(f.getlength(latin + rest) - (x1 - start)) <= 4
    box = d.textbbox((x, 60), latin + rest, font=f, anchor=anchor)
    assert abs(box[0] - x0) <= 1 and abs(box[2] - x1) <= 1


def test_boards_and_final_scores_with_such_names_render() -> None:
    view = mid_view("usa", players=5)
    players = [p.model_copy(update={"name": n}) for p, n in zip(view.players, NAMES,
                                                                 strict=True)]
    panel_image(view.model_copy(update={"players": players}))
    over = final_view("usa", players=5)
    assert over.final is not None
    scored = [p.model_copy(update={"name": n}) for p, n in zip(over.final.players, NAMES,
                                                                strict=True)]
    draw_scores(over.model_copy(update={"final": over.final.model_copy(
        update={"players": scored})}))
