"""The final image tells what a map only estimates (Iberia's footnote) and the shares behind
Pennsylvania's majorities (issue 25, items 5 and 6)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops

import bot.render.final as final_module
from bot import i18n
from bot.play.estimates import estimate_note
from bot.render.demo import final_view
from bot.render.final import FOOTNOTE_H, ShareCell, draw_scores, share_rows
from bot.render.palette import PANEL_DIM
from maps import load_map
from tests.bot.test_final_notes import finished_pennsylvania


def _changed(a: Image.Image, b: Image.Image, box: tuple[int, int, int, int]) -> int:
    """Pixels that differ between ``a`` and ``b`` inside ``box``."""
    diff = ImageChops.difference(a.crop(box), b.crop(box)).convert("L")
    return sum(diff.point(lambda v: 255 if v > 40 else 0).histogram()[255:])


def test_iberia_final_image_has_the_estimate_footnote_in_the_game_language(monkeypatch):
    view = final_view("iberia", seed=3, players=3)
    english = draw_scores(view)
    with i18n.language("de"):
        german = draw_scores(view)
    monkeypatch.setattr(final_module, "estimate_note", lambda m: None)
    bare = draw_scores(view)
    assert english.height == german.height == bare.height + FOOTNOTE_H
    # The footnote strip at the bottom of the scores (right above the map): text in the dim
    # colour, which differs by language; everything above it is the same image.
    strip = (0, bare.height, english.width, english.height)
    assert _changed(english, german, strip) > 500
    above = (0, 0, bare.width, bare.height)
    assert _changed(english, bare, above) == 0
    crop = english.crop(strip)
    dim = ImageChops.difference(crop, Image.new("RGB", crop.size, PANEL_DIM)).convert("L")
    assert dim.point(lambda v: 255 if v < 30 else 0).histogram()[255] > 300


def test_printed_maps_have_no_footnote():
    assert estimate_note(load_map("usa")) is None
    assert estimate_note(load_map("iberia")) is not None


def test_the_share_grid_shows_each_players_shares_and_the_neutral_revealed_ones():
    view = finished_pennsylvania()
    assert view.final is not None
    order = sorted(view.final.players, key=lambda p: (p.rank, p.seat))
    m = load_map("pennsylvania")
    rows = dict(share_rows(view, order, m))
    column = [c.id for c in m.rules.shares.companies].index  # type: ignore[union-attr]
    # A: 3 B&O, the majority; B: 1 B&O behind the neutral investor's revealed one (3rd).
    assert rows["A"][column("B&O")] == ShareCell("3×", "+20", "1st")
    assert rows["B"][column("B&O")] == ShareCell("1×", "+9", "3rd")
    assert rows["B"][column("PRR")] == ShareCell("2×", "+30", "1st")
    assert rows["Neutral investor"][column("B&O")] == ShareCell("1×", "", "")
    assert rows["A"][column("PRR")] == ShareCell("", "", "")
    with i18n.language("de"):
        german = dict(share_rows(view, order, m))
    assert german["Neutraler Investor"][column("B&O")].shares == "1×"
    assert german["B"][column("B&O")].place != "3rd"

    # Drawn: without the share counts (and the neutral row) the grid is a row shorter and
    # the cells differ (the scores part of the final image).
    bare = view.model_copy(update={"shares_held": [], "neutral_revealed": {}})
    drawn, without = draw_scores(view), draw_scores(bare)
    assert drawn.height == without.height + final_module.GRID_ROW
    assert _changed(drawn, without, (0, 0, drawn.width, 600)) > 200


@pytest.mark.parametrize("players", [3])
def test_a_grid_of_scores_alone_still_draws(players):
    """The demo's final view has share points but no counts: the grid still shows."""
    view = final_view("pennsylvania", seed=5, players=players)
    assert view.final is not None
    order = sorted(view.final.players, key=lambda p: (p.rank, p.seat))
    rows = share_rows(view, order, load_map("pennsylvania"))
    assert len(rows) == players and all(c.shares == "" for _name, cells in rows for c in cells)
