"""Colours, letters and player marks shared by every image.

Suit colours match the cards; every suit also carries a letter so the board
reads without colour vision. Player colours are hues no card has (``PLAYER_FILL``),
and each seat also has its own shape mark.
"""

from __future__ import annotations

from bot import i18n

RGB = tuple[int, int, int]


def hex_rgb(code: str) -> RGB:
    code = code.lstrip("#")
    return (int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16))


SUIT_FILL: dict[str, RGB] = {
    "purple": hex_rgb("#9b5cc8"),
    "white": hex_rgb("#f7f5ee"),
    "blue": hex_rgb("#2f72d6"),
    "yellow": hex_rgb("#f4d03a"),
    "orange": hex_rgb("#f28b25"),
    "black": hex_rgb("#2e2e33"),
    "red": hex_rgb("#d63a2f"),
    "green": hex_rgb("#3e9b45"),
    "gray": hex_rgb("#b3b0a8"),
    "locomotive": hex_rgb("#7a7a7a"),
}

# One letter per suit (K = black, as in CMYK); gray routes take any colour and show none.
# English; ``suit_letter`` gives a suit's in the language being drawn.
SUIT_LETTER: dict[str, str] = {
    "purple": "P",
    "white": "W",
    "blue": "B",
    "yellow": "Y",
    "orange": "O",
    "black": "K",
    "red": "R",
    "green": "G",
    "gray": "",
    "locomotive": "L",
}

# The letters where German players read the colour's own word (gelb, grün, lila): the first
# letters of the German names, two where two names share one (gelb/grün; lila/Lok).
SUIT_LETTERS: dict[str, dict[str, str]] = {
    "en": SUIT_LETTER,
    "de": {"purple": "Li", "white": "W", "blue": "B", "yellow": "Ge", "orange": "O",
           "black": "S", "red": "R", "green": "Gr", "gray": "", "locomotive": "Lok"},
}


def suit_letter(suit: str) -> str:
    """The letter(s) of a suit in the language being drawn ('' for gray)."""
    return SUIT_LETTERS.get(i18n.current(), SUIT_LETTER).get(suit, "")


def letters_scale(letters: str) -> float:
    """How much smaller a label of several letters is set than one of one ('Ge', 'Lok')."""
    return min(1.0, 1.25 / max(1, len(letters)))


# Rainbow stripes of a locomotive card.
LOCO_STRIPES: tuple[RGB, ...] = tuple(
    SUIT_FILL[s] for s in ("red", "orange", "yellow", "green", "blue", "purple")
)

CARD_ORDER: tuple[str, ...] = (
    "purple",
    "white",
    "blue",
    "yellow",
    "orange",
    "black",
    "red",
    "green",
    "locomotive",
)

# Cyan, magenta, brown, navy, olive: hues no card has, so a claimed route never looks like
# a free one of a card colour, even ~550 px wide where the shapes are too small to see
# (CIELAB distance >= 26 to every card colour and score-bar colour; the Okabe-Ito
# colours used before were 12-24 from the blue, orange, green and yellow cards). Under
# simulated deuteranopia and protanopia they stay apart as well as those did.
PLAYER_FILL: tuple[RGB, ...] = (
    hex_rgb("#00a6c8"),
    hex_rgb("#e6399b"),
    hex_rgb("#7b4a24"),
    hex_rgb("#23338f"),
    hex_rgb("#8f8a00"),
)
PLAYER_SHAPE: tuple[str, ...] = ("circle", "square", "triangle", "diamond", "star")

INK: RGB = hex_rgb("#23201c")
PAPER: RGB = hex_rgb("#fbf6ea")
PANEL_BG: RGB = hex_rgb("#2b2f36")
PANEL_FG: RGB = hex_rgb("#f3efe6")
PANEL_DIM: RGB = hex_rgb("#aeb4bd")
ACCENT: RGB = hex_rgb("#f5c542")

LAND: RGB = hex_rgb("#efe3c4")
LAND_EDGE: RGB = hex_rgb("#c9b48a")
SEA: RGB = hex_rgb("#b7d3da")
SEA_DEEP: RGB = hex_rgb("#9cbfca")
SEA_LINE: RGB = hex_rgb("#8fb5c1")


def player_fill(seat: int) -> RGB:
    return PLAYER_FILL[seat % len(PLAYER_FILL)]


def player_shape(seat: int) -> str:
    return PLAYER_SHAPE[seat % len(PLAYER_SHAPE)]


def is_light(rgb: RGB) -> bool:
    r, g, b = rgb
    return 0.299 * r + 0.587 * g + 0.114 * b > 150


def ink_on(rgb: RGB) -> RGB:
    """Black or white, whichever reads better on ``rgb``."""
    return INK if is_light(rgb) else (255, 255, 255)


def suit_fill(name: str) -> RGB:
    return SUIT_FILL.get(name, SUIT_FILL["gray"])


def shade(rgb: RGB, factor: float) -> RGB:
    """Darker (factor < 1) or lighter (factor > 1, mixed towards white) version."""
    if factor <= 1:
        return (int(rgb[0] * factor), int(rgb[1] * factor), int(rgb[2] * factor))
    t = min(1.0, factor - 1)
    return (
        int(rgb[0] + (255 - rgb[0]) * t),
        int(rgb[1] + (255 - rgb[1]) * t),
        int(rgb[2] + (255 - rgb[2]) * t),
    )
