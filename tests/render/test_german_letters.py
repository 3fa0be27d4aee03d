"""Issue 27 item 13: a German game's images name the colours by German letters (gelb, grün,
lila read 'Ge', 'Gr', 'Li'), not the English 'Y', 'G', 'P'."""

from __future__ import annotations

import pytest
from PIL import ImageDraw

from bot import i18n
from bot.render import _empty_layer, _layers, _parts, board, board_image, cards, empty_view, hand
from bot.render.demo import hand_view
from bot.render.shapes import space_sprite

ENGLISH_ONLY = {"Y", "G", "P", "K"}  # yellow, green, purple, black in English


def _letters_drawn(monkeypatch: pytest.MonkeyPatch, lang: str) -> tuple[set[str], set[str]]:
    """The labels centred on route spaces and cards, and every line of text, that the
    renderer draws for a Europe board and hand in ``lang``, from empty caches (a cached
    sprite draws nothing again)."""
    centred: set[str] = set()
    drawn: set[str] = set()
    real = ImageDraw.ImageDraw.text

    def spy(self: ImageDraw.ImageDraw, xy: object, text: str, *args: object,
            **kwargs: object) -> None:
        drawn.add(text)
        if kwargs.get("anchor") == "mm":  # not the fonts' probes of single glyphs
            centred.add(text)
        real(self, xy, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", spy)
    monkeypatch.setattr(board, "_bases", {})
    for cached in (cards._card_sprite, hand._card_piece_in, space_sprite, _empty_layer):
        cached.cache_clear()
    _layers.clear()
    _parts.clear()
    with i18n.language(lang):  # type: ignore[arg-type]
        board_image(empty_view("europe"))
        hand.draw_hand(hand_view("europe"), "europe")
    return centred, drawn


def test_a_german_board_and_hand_letter_the_colours_in_german(monkeypatch):
    german, lines = _letters_drawn(monkeypatch, "de")
    assert {"Ge", "Gr", "Li", "S"} <= german, sorted(german)
    assert not ENGLISH_ONLY & german, sorted(german)
    assert any("Ge" in t and "gelb" in t for t in lines)  # the key says what they stand for
    english, _ = _letters_drawn(monkeypatch, "en")
    assert english >= ENGLISH_ONLY, sorted(english)
