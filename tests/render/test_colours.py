"""Owners can be told apart from free routes at Discord's inline width (issue 26, 18): at
~550 px the shape marks are a pixel or two, so a player's colour must itself differ from
every card colour (a free route's) and from the score bars' colours, and from the other
players'. Measured as CIELAB distance (CIE76): ~2.3 is a just noticeable difference."""

from __future__ import annotations

import itertools
import math

from bot.render.extras import GOOD as MAP_POINTS
from bot.render.final import BAD, GOOD
from bot.render.palette import ACCENT, LAND, PLAYER_FILL, RGB, SUIT_FILL


def _lab(rgb: RGB) -> tuple[float, float, float]:
    def linear(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _distance(a: RGB, b: RGB) -> float:
    return math.dist(_lab(a), _lab(b))


def test_player_colours_are_far_from_every_card_and_score_bar_colour() -> None:
    others = {**SUIT_FILL, "tickets": GOOD, "failed": BAD, "bonuses": ACCENT,
              "map points": MAP_POINTS, "land": LAND}
    near = [(seat, name, round(_distance(fill, colour), 1))
            for seat, fill in enumerate(PLAYER_FILL) for name, colour in others.items()
            if _distance(fill, colour) < 25]
    assert not near, near


def test_player_colours_are_far_from_one_another() -> None:
    near = [(a, b, round(_distance(PLAYER_FILL[a], PLAYER_FILL[b]), 1))
            for a, b in itertools.combinations(range(len(PLAYER_FILL)), 2)
            if _distance(PLAYER_FILL[a], PLAYER_FILL[b]) < 40]
    assert not near, near
