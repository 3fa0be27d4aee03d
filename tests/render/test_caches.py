"""The render caches change nothing: boards built from cached map layers, from layers with
only the changed regions redrawn, and PNGs from cached compressed bands are pixel for
pixel the boards drawn from scratch."""

from __future__ import annotations

import io
import random
import struct
import zlib

import pytest
from PIL import Image

import engine
import maps
from bot import render
from bot.play import presenters
from bot.render import board_image, board_palette, map_layer, png, render_board
from bot.render.board import draw_map
from bot.render.demo import NAMES
from engine.agents import random_action
from engine.views import PublicView


def _views(map_id: str, seed: int, first_turn: int, last_turn: int) -> list[PublicView]:
    """The public view after every action of a stretch of a random game (tunnels, drafts,
    second cards and claims included), and its final board."""
    state = engine.new_game(engine.GameConfig(map_id=map_id, players=list(NAMES[:3]),
                                              seed=seed))
    rng = random.Random(seed)
    views = []
    while state.phase != "game_over":
        if first_turn <= state.turn < last_turn:
            views.append(engine.public_view(state))
        seat = engine.waiting_for(state)[0]
        engine.apply(state, seat, random_action(state, seat, rng))
    return [*views, engine.public_view(state)]


@pytest.mark.slow
@pytest.mark.parametrize("map_id", maps.map_ids())
def test_boards_from_caches_match_boards_drawn_from_scratch(map_id: str) -> None:
    render._layers.clear()
    views = _views(map_id, seed=5, first_turn=20, last_turn=26)
    palette = board_palette(map_id)
    incremental = 0
    for view in views:
        cached = len(render._layers)
        got = map_layer(view)
        incremental += len(render._layers) > cached and cached > 0
        fresh = draw_map(view).convert("RGB").quantize(palette=palette,
                                                       dither=Image.Dither.NONE)
        assert got.tobytes() == fresh.tobytes()
    assert incremental >= 1  # the changed-regions path ran, not only whole maps
    # The whole board (panel and cached map) in the PNG is the board drawn from scratch.
    decoded = Image.open(io.BytesIO(render_board(views[-1])))
    assert decoded.convert("RGB").tobytes() == board_image(views[-1]).quantize(
        palette=palette, dither=Image.Dither.NONE).convert("RGB").tobytes()


def test_layer_source_says_how_the_map_layer_will_be_had() -> None:
    """What benchmarks trace: a map seen before is cached, one a few claims from a cached
    one (or from the empty map, always kept) is redrawn in part, one far from every
    cached one is drawn whole."""
    render._layers.clear()
    views = _views("usa", seed=5, first_turn=0, last_turn=200)
    first, last = views[0], views[-1]
    assert render.layer_source(first) == "changed"  # a new game's map: the empty one
    empty_key, empty = render.empty_layer("usa")
    assert render.MapKey.of(first) == empty_key
    assert map_layer(first).tobytes() == empty.tobytes()
    assert render.layer_source(first) == "cached"
    near = next(v for v in views if render.MapKey.of(v) != render.MapKey.of(first))
    assert render.layer_source(near) == "changed"
    assert render.MapKey.of(last).changes(render.MapKey.of(first)) > render.INCREMENTAL_CHANGES
    assert render.layer_source(last) == "drawn"


def test_png_bands_are_reused_and_the_stream_is_valid() -> None:
    img = Image.new("P", (300, 100), 0)
    img.putpalette([i % 256 for i in range(768)])
    img.paste(7, (10, 10, 200, 30))
    png._bands.clear()
    first = png.encode_indexed(img)
    bands = len(png._bands)
    img.paste(9, (0, 96, 300, 100))  # only the last band (rows 96-99) changes
    second = png.encode_indexed(img)
    assert len(png._bands) == bands + 1
    for data, image in ((first, None), (second, img)):
        decoded = Image.open(io.BytesIO(data))
        decoded.load()
        assert decoded.mode == "P" and decoded.size == (300, 100)
        if image is not None:
            assert decoded.tobytes() == image.tobytes()
        _check_chunks(data)
    # An image drawn with a zero column on its left is written as it is: the same PNG.
    rows = Image.new("P", (301, 100), 0)
    rows.paste(img, (1, 0))
    assert png.encode_rows(rows, img.getpalette()) == second


def _check_chunks(data: bytes) -> None:
    """Every chunk's length and CRC (Pillow does not check IDAT's), and the IDAT stream
    inflated by zlib (its Adler-32 checked)."""
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    at, kinds, idat = 8, [], b""
    while at < len(data):
        length = struct.unpack(">I", data[at:at + 4])[0]
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length:at + 12 + length])[0] == zlib.crc32(
            kind + body), kind
        kinds.append(kind)
        idat += body if kind == b"IDAT" else b""
        at += 12 + length
    assert kinds == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    width, height = struct.unpack(">II", data[16:24])
    assert len(zlib.decompress(idat)) == (width + 1) * height


def test_adler32_combine_is_zlibs() -> None:
    rng = random.Random(3)
    for _ in range(50):
        a = rng.randbytes(rng.randrange(0, 3000))
        b = rng.randbytes(rng.randrange(0, 90000))
        assert png.adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(
            a + b)


def _changed(a: Image.Image, b: Image.Image) -> list[int]:
    """The indexes of the pixels that differ between two RGB images of one size."""
    x, y = a.tobytes(), b.tobytes()
    assert a.mode == b.mode == "RGB" and len(x) == len(y)
    return [i // 3 for i in range(0, len(x), 3) if x[i:i + 3] != y[i:i + 3]]


@pytest.mark.slow
def test_the_highlight_is_drawn_on_a_copy_and_glows_over_the_claim() -> None:
    """The last claim glows on the board with a zoomed inset; only those spots change,
    and the cached map layer stays plain."""
    from bot.render.highlight import LastMove

    views = _views("usa", seed=4, first_turn=30, last_turn=31)
    view = views[-1]
    route, seat = next(iter(view.claimed.items()))
    last = LastMove(seat=seat, routes=(route,), caption="Ana: the last claim")
    plain = Image.open(io.BytesIO(render_board(view))).convert("RGB")
    lit = Image.open(io.BytesIO(render_board(view, last=last))).convert("RGB")
    assert render_board(view) == render_board(view)  # the cache kept no highlight
    diff = [(i % plain.width, i // plain.width) for i in _changed(plain, lit)]
    assert len(diff) > 5_000  # a glow and an inset, not a few pixels
    yellow = [p for p in (lit.getpixel(xy) for xy in diff)
              if p[0] > 200 and p[1] > 170 and p[2] < 90]  # type: ignore[index]
    assert len(yellow) > 300
    # Only the highlight's spots changed: about as many pixels as in the RGB drawing
    # (reducing the whole map to the palette again would move ten times more).
    rgb = len(_changed(board_image(view), board_image(view, last)))
    assert len(diff) < 1.5 * rgb


def test_cached_fonts_draw_the_pixels_of_plain_fonts() -> None:
    """A string a font drew before comes from its cache, pixel for pixel Pillow's own
    drawing (anchors and fractional positions included)."""
    from PIL import ImageDraw, ImageFont

    from bot.render import fonts

    cached = fonts.CachedFont(io.BytesIO(fonts.font_bytes("bold")), 22)
    plain = ImageFont.FreeTypeFont(io.BytesIO(fonts.font_bytes("bold")), 22)
    texts = [((10, 10), "Ana: Zürich – München ✓", None), ((300.5, 40.25), "× 12", "ma"),
             ((200, 80), "#17   long", "mm")]
    images = []
    for font in (plain, cached, cached):  # the second time from the cache
        img = Image.new("RGBA", (400, 120), (30, 30, 30, 255))
        d = ImageDraw.Draw(img)
        for xy, text, anchor in texts:
            d.text(xy, text, font=font, fill=(240, 200, 10), anchor=anchor)
        images.append(img.tobytes())
    assert images[0] == images[1] == images[2]
    assert len(cached._masks) == len(texts)
    assert cached.getlength("× 12") == plain.getlength("× 12")


def test_ticket_tiles_are_drawn_once_and_pasted_as_drawn() -> None:
    """A hand's ticket tiles are kept (with the language they are in): the same hand drawn
    with the tiles from the cache is the hand drawn with none."""
    from bot import i18n
    from bot.render import hand
    from bot.render.demo import hand_view

    view = hand_view("world", seed=3, seat=1)  # tours (full width) and two-city tickets
    assert any(len(t.cities) > 2 for t in view.tickets)
    hand._tiles.clear()
    fresh = hand.draw_hand(view, "world").tobytes()
    kept = len(hand._tiles)
    assert kept == len(view.tickets) + len(view.offered)
    assert hand.draw_hand(view, "world").tobytes() == fresh
    assert len(hand._tiles) == kept  # every tile from the cache
    with i18n.language("de"):
        hand.draw_hand(view, "world")
    assert len(hand._tiles) == 2 * kept  # another language: tiles of its own


@pytest.mark.parametrize("map_id", ["usa", "world"])
def test_a_hand_taller_than_guessed_is_drawn_again_whole(
        map_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.render import hand
    from bot.render.demo import hand_view

    view = hand_view(map_id)  # tickets offered too: a tall hand
    drawn = hand.draw_hand(view, map_id)
    _, bottom = hand._draw_hand(view, map_id, hand._height_bound(view))
    assert drawn.height == bottom - 14  # the guess held it: cut where the drawing ends
    monkeypatch.setattr(hand, "_height_guess", lambda view: 200)  # far too short
    again = hand.draw_hand(view, map_id)
    assert again.size == drawn.size and again.tobytes() == drawn.tobytes()


def _sent_hand(map_id: str) -> tuple[engine.PrivateView, PublicView]:
    """A hand the bot sends, its seat's and the public view: its seat's turn, tickets kept."""
    state = engine.new_game(engine.GameConfig(map_id=map_id, players=list(NAMES[:3]), seed=4))
    rng = random.Random(4)
    while state.turn < 30:
        seat = engine.waiting_for(state)[0]
        engine.apply(state, seat, random_action(state, seat, rng))
    seat = engine.waiting_for(state)[0]
    return engine.private_view(state, seat), engine.public_view(state)


@pytest.mark.parametrize("map_id", maps.map_ids())
def test_a_hand_with_its_ticket_plan_is_drawn_once(
        map_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The canvas guessed for a hand holds its planner's map, as tall as the map's shape
    makes it (Nordic's, taller than wide, had every hand drawn twice)."""
    from bot.render import hand, hand_palette

    view, public = _sent_hand(map_id)
    assert view.tickets and not view.offered
    palette = hand_palette(map_id)  # drawn from a sample hand the first time
    drawn = []
    draw = hand._draw_hand

    def counted(*args: object, **kwargs: object) -> tuple[Image.Image, int]:
        drawn.append(args[2])
        return draw(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hand, "_draw_hand", counted)
    hand.hand_rows(view, map_id, palette, public)
    assert len(drawn) == 1, f"drawn on canvases {drawn} px tall"


def test_the_ticket_plans_words_are_drawn_once_and_pasted_as_drawn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The planner's heading, each ticket's name and each plan's words are kept pieces: the
    same hand again draws none of their text (it drew them for every hand, ~0.6 ms), and
    the PNG is the same."""
    from PIL import ImageDraw

    from bot.render import hand, render_hand

    view, public = _sent_hand("usa")
    first = render_hand(view, "usa", public)
    texts: list[str] = []
    text = ImageDraw.ImageDraw.text

    def counted(self: ImageDraw.ImageDraw, xy: object, words: str, *args: object,
                **kwargs: object) -> None:
        texts.append(words)
        text(self, xy, words, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", counted)
    assert render_hand(view, "usa", public) == first
    plans = presenters.ticket_plans(public, view)
    assert plans and not {hand._plan_line(p) for p in plans} & set(texts)
    assert "Ticket plan" not in texts


@pytest.mark.parametrize("map_id", ["usa", "world"])  # World: spaces across the seam
def test_the_planners_map_works_out_each_routes_lines_once(
        map_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The planner's map draws every claim and planned route from lines worked out once per
    map (each hand computed every claimed space's ends again): no space's ends are worked
    out for a hand, and each line is the one its space's ends give."""
    from bot.render import hand
    from bot.render.layout import Space

    view, public = _sent_hand(map_id)
    assert public.claimed
    plans = presenters.ticket_plans(public, view)
    first = hand._plan_map(plans, public, view.seat, map_id, None)
    along = Space.along
    worked: list[float] = []

    def counted(self: Space, t: float) -> tuple[float, float]:
        worked.append(t)
        return along(self, t)

    monkeypatch.setattr(Space, "along", counted)
    again = hand._plan_map(plans, public, view.seat, map_id, None)
    assert worked == [] and again.tobytes() == first.tobytes()
    monkeypatch.undo()
    lay = render.base_for(map_id).layout
    k = first.width / lay.width
    for rid, lines in hand._plan_lines(map_id, first.width).items():
        spaces = [c for s in lay.routes[rid] for c in lay.space_copies(s)]
        assert lines == tuple((s.along(-1)[0] * k, s.along(-1)[1] * k,
                               s.along(1)[0] * k, s.along(1)[1] * k) for s in spaces)


@pytest.mark.parametrize("map_id", maps.map_ids())
def test_a_ticket_plans_pieces_hold_every_pixel_of_their_words(map_id: str) -> None:
    """Each piece of the planner's lines is what drawing its words on the hand gives, and
    nothing that drawing does falls outside it, whatever the city (accents, descenders)
    and in German: drawn with room above and below, the rest stays bare."""
    from PIL import ImageChops, ImageDraw

    from bot import i18n
    from bot.render import hand
    from bot.render.panel import section_heading

    room = hand.WIDTH - 2 * hand.PAD - hand.PLAN_MAP_W - 20 - 26
    names = [c.name for c in render.base_for(map_id).map.cities]
    pairs = [" → ".join(names[i:i + 2]) for i in range(0, len(names), 2)]
    lines = ["12 pieces, 1 station, 9 cards to draw, 3 contested", "Ä Ö Ü ß gjpqy, (|)"]

    def roomy(piece: Image.Image, draw: object) -> None:
        img = Image.new("RGB", (piece.width, piece.height + 40), hand.PANEL_BG)
        draw(ImageDraw.Draw(img))  # type: ignore[operator]
        inside = img.crop((0, 20, piece.width, 20 + piece.height))
        assert inside.tobytes() == piece.tobytes()
        img.paste(hand.PANEL_BG, (0, 20, piece.width, 20 + piece.height))
        assert ImageChops.difference(img, Image.new("RGB", img.size, hand.PANEL_BG)
                                     ).getbbox() is None

    for lang in ("en", "de"):
        with i18n.language(lang):
            roomy(hand._plan_heading(lang), lambda d: section_heading(
                d, hand.PAD, 20, i18n._("Ticket plan"),
                i18n._("routes still to claim; ringed: others may take them next"), size=22))
            for words in [*lines, *(hand._plan_line(p) for p in _plans(map_id))]:
                roomy(hand._plan_words(words, room), lambda d, w=words: d.text(
                    (26, 20), hand.fit_text(w, 16, "regular", room), font=hand.font(16),
                    fill=hand.PANEL_DIM))
    ink = hand.PLAN_INKS[0]
    for name in pairs:
        roomy(hand._plan_name(ink, name, room), lambda d, n=name: (
            d.rounded_rectangle((0, 24, 16, 40), 4, fill=ink),
            d.text((26, 20), hand.fit_text(n, 18, "bold", room), font=hand.font(18, "bold"),
                   fill=hand.PANEL_FG)))


def _plans(map_id: str) -> list[engine.TicketPlan]:
    view, public = _sent_hand(map_id)
    return presenters.ticket_plans(public, view)


@pytest.mark.slow
@pytest.mark.parametrize("map_id", maps.map_ids())
def test_the_inset_covers_no_map_pixel(map_id: str) -> None:
    """Issue 27 (3): the last move's zoomed inset sits on the panel, never over the map
    (it hid 14-17 % of it): on the map only the glow around the claimed route changes;
    the inset is in its slot beside the map."""
    from bot.render import inset_slot, map_offset
    from bot.render.board import base_for
    from bot.render.highlight import LastMove, _glow_box, _spots

    lay = base_for(map_id).layout
    ox, oy = map_offset(map_id)
    view = _views(map_id, seed=4, first_turn=30, last_turn=31)[-1]
    for route, seat in list(view.claimed.items())[:3]:
        last = LastMove(seat=seat, routes=(route,), caption="Ana: a claim")
        plain = Image.open(io.BytesIO(render_board(view))).convert("RGB")
        lit = Image.open(io.BytesIO(render_board(view, last=last))).convert("RGB")
        gx0, gy0, gx1, gy1 = _glow_box(*_spots(base_for(map_id), last), lay.width, lay.height)
        sx0, sy0, sx1, sy1 = inset_slot(map_id)
        assert sx1 <= ox or sx0 >= ox + lay.width or sy1 <= oy or sy0 >= oy + lay.height
        in_slot = 0
        for i in _changed(plain, lit):
            x, y = i % plain.width, i // plain.width
            if ox <= x < ox + lay.width and oy <= y < oy + lay.height:
                assert gx0 <= x - ox < gx1 and gy0 <= y - oy < gy1, (route, x, y)
            else:
                assert sx0 <= x < sx1 and sy0 <= y < sy1, (route, x, y)
                in_slot += 1
        assert in_slot > (sx1 - sx0) * (sy1 - sy0) // 2  # the inset is drawn there


@pytest.mark.slow
@pytest.mark.parametrize("map_id", maps.map_ids())
def test_a_hands_png_is_its_drawing_reduced_pixel_for_pixel(map_id: str) -> None:
    """A hand's PNG pastes its tiles and cards already reduced to the palette and reduces
    only the rows between them: pixel for pixel the whole drawing reduced, whatever the
    hand holds (wide counts, a draft packet, no tickets at all)."""
    from bot.render import hand, hand_palette, render_hand
    from bot.render.demo import hand_view

    base = hand_view(map_id, seed=2, seat=1)
    views = [base, hand_view(map_id, seed=5, seat=4, offered=False),
             base.model_copy(update={"hand": {c: 17 + i for i, c in enumerate(base.hand)},
                                     "draft_packet": base.tickets[:1], "offered": []}),
             base.model_copy(update={"hand": {}, "tickets": [], "offered": []})]
    public = _views(map_id, seed=4, first_turn=30, last_turn=31)[0]  # claims on the board
    hand._indexed.clear()
    for view in views * 2:  # the second time, every piece from the cache
        # With the planner's map (drawn in the palette) when the seat is in that game.
        for shown in (None, public) if view.seat < len(public.players) else (None,):
            want = hand.draw_hand(view, map_id, shown).quantize(
                palette=hand_palette(map_id), dither=Image.Dither.NONE)
            got = Image.open(io.BytesIO(render_hand(view, map_id, shown)))
            assert got.size == want.size and got.tobytes() == want.tobytes()
    assert len(hand._indexed) > 4


def test_a_card_with_its_count_is_drawn_once_as_it_was_drawn_on_the_hand() -> None:
    """The hand pastes a card and its count from a cached piece: the pixels of drawing the
    card and the count on the hand's background (a count wider than the card too)."""
    from PIL import ImageDraw

    from bot.render import hand
    from bot.render.cards import card_sprite
    from bot.render.fonts import font
    from bot.render.palette import PANEL_BG, PANEL_FG

    for name, count, jokers in (("red", 3, False), ("locomotive", 188888, True)):
        drawn = Image.new("RGB", (400, 220), PANEL_BG)
        x, y = 150, 20
        hand.blend(drawn, card_sprite(name, hand.CARD_W, hand.CARD_H, jokers), x, y)
        ImageDraw.Draw(drawn).text((x + hand.CARD_W // 2, y + hand.CARD_H + 6), f"× {count}",
                                   font=font(22, "bold"), fill=PANEL_FG, anchor="ma")
        dx, piece = hand._card_piece(name, count, jokers)
        pasted = Image.new("RGB", (400, 220), PANEL_BG)
        pasted.paste(piece, (x + dx, y))
        assert pasted.tobytes() == drawn.tobytes()
        assert hand._card_piece(name, count, jokers)[1] is piece


def test_a_side_panel_is_drawn_as_tall_as_its_content_and_the_board_is_its_colour_below(
) -> None:
    """Beside a portrait map the panel is drawn (and reduced) only down to its content:
    its last rows are background (nothing was cut) and below it the board is the panel's
    colour, in the PNG too."""
    from bot.render import board_rows, panel_image
    from bot.render.demo import mid_view
    from bot.render.palette import PANEL_BG

    view = mid_view("nordic", seed=2, players=3, claims=12)
    panel, (px, py), _map_at = panel_image(view)
    board = board_image(view)
    assert py == 0 and panel.height < board.height
    assert panel.crop((0, panel.height - 8, panel.width, panel.height)).getcolors() == [
        (panel.width * 8, PANEL_BG)]
    below = board.crop((px, panel.height, board.width, board.height))
    assert below.getcolors() == [(below.width * below.height, PANEL_BG)]
    rows = board_rows(view)
    assert rows.crop((0, 0, 1, rows.height)).getcolors() == [(rows.height, 0)]  # filter bytes
    decoded = Image.open(io.BytesIO(render_board(view))).convert("RGB")
    colour = Image.new("RGB", (1, 1), PANEL_BG).quantize(
        palette=board_palette("nordic"), dither=Image.Dither.NONE).convert("RGB").getpixel((0, 0))
    assert decoded.crop((px, panel.height, board.width, board.height)).getcolors() == [
        (below.width * below.height, colour)]


@pytest.mark.slow
@pytest.mark.parametrize("map_id", ["pennsylvania", "world", "nordic"])
def test_a_panel_put_together_from_kept_parts_is_the_panel_drawn_whole(map_id: str) -> None:
    """A board's panel is drawn in parts (title, heading, a part per player's row, market,
    key or legend, share stacks), each kept reduced by what it shows: in both languages,
    from the first turn (setup) to the last round, through tunnels and decisions, above a
    landscape map and beside a portrait one, it is pixel for pixel the whole panel
    reduced."""
    from bot import i18n
    from bot.render import panel_image, panel_rows

    views = [v for v in _views(map_id, seed=5, first_turn=0, last_turn=22)
             if v.turn < 2 or v.turn >= 20][::2]
    views += [v.model_copy(update={"last_round": True}) for v in views[::4]]
    render._parts.clear()
    for lang in i18n.LANGUAGES:
        with i18n.language(lang):
            for view in views:
                got, at, map_at = panel_rows(view)
                whole, whole_at, whole_map_at = panel_image(view)
                assert (at, map_at) == (whole_at, whole_map_at)
                assert got.tobytes() == render._indexed(whole, map_id).tobytes()
    assert len(render._parts) > 10  # the parts were kept, and drawn again when they changed


@pytest.mark.parametrize("tall", [render.SIDE_PART_H, 40])
def test_a_side_panels_parts_too_tall_for_their_canvas_are_drawn_again_to_the_bottom(
        tall: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside a portrait map each part of the panel is drawn on a canvas ``SIDE_PART_H``
    px tall (a row: its own height); a part that does not fit (at 40 px: the title, the
    market, the legend) is drawn again down to the panel's bottom: either way the panel
    is pixel for pixel the whole panel reduced."""
    from bot.render import panel_image, panel_rows
    from bot.render.demo import mid_view

    monkeypatch.setattr(render, "SIDE_PART_H", tall)
    render._parts.clear()
    view = mid_view("nordic", seed=3, players=4, claims=10)
    got, at, map_at = panel_rows(view)
    whole, whole_at, whole_map_at = panel_image(view)
    assert (at, map_at) == (whole_at, whole_map_at)
    assert got.tobytes() == render._indexed(whole, "nordic").tobytes()
