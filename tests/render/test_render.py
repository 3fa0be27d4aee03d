"""The renderer: every map at every stage, pixel probes, sizes, determinism, threads."""

from __future__ import annotations

import io
import math
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image, ImageChops, ImageStat

import maps
from bot.render import (
    MAX_BYTES,
    board_image,
    hand_palette,
    map_offset,
    render_board,
    render_final,
    render_hand,
)
from bot.render.board import base_for
from bot.render.demo import empty_view, final_view, hand_view, mid_view
from bot.render.palette import player_fill, suit_fill
from engine.phases import Phase
from engine.views import PrivateView, PublicView, TicketView

MAP_IDS = maps.map_ids()


def _open(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img


def _check_size(data: bytes, fmt: str = "PNG") -> Image.Image:
    assert len(data) <= MAX_BYTES
    img = _open(data)
    assert img.format == fmt
    assert 1000 <= img.width <= 2200
    assert 600 <= img.height <= 2200
    return img


def _dist(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    return math.dist(a[:3], b[:3])


def _probes(view: PublicView, route: int) -> list[tuple[int, int]]:
    """Points inside the spaces of a route, beside the owner's mark, in board-image pixels."""
    lay = base_for(view.map_id).layout
    ox, oy = map_offset(view.map_id)
    out = []
    for sp in lay.routes[route]:
        x, y = sp.along(0.55)
        if 0 <= x < lay.width and 0 <= y < lay.height:
            out.append((round(x + ox), round(y + oy)))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("map_id", MAP_IDS)
def test_every_stage_renders_within_bounds(map_id: str) -> None:
    empty, mid, over = empty_view(map_id), mid_view(map_id, seed=2), final_view(map_id, seed=3)
    for view in (empty, mid, over):
        _check_size(render_board(view))
    _check_size(render_final(over))
    hand = _open(render_hand(hand_view(map_id, seed=4), map_id))
    assert hand.width >= 800 and hand.height >= 300


@pytest.mark.parametrize("map_id", MAP_IDS)
def test_claimed_routes_show_the_owner_colour(map_id: str) -> None:
    view = mid_view(map_id, seed=5, players=5)
    assert view.claimed
    claimed_img = board_image(view)
    empty_img = board_image(empty_view(map_id))
    hits = total = 0
    for route, seat in view.claimed.items():
        colour = player_fill(seat)
        probes = _probes(view, route)
        total += 1
        if any(_dist(claimed_img.getpixel(p), colour) < 12 for p in probes):  # type: ignore[arg-type]
            hits += 1
        r = next(r for r in maps.load_map(map_id).routes if r.id == route)
        if _dist(suit_fill(r.color), colour) > 60:
            # Unclaimed, the same spots show the suit colour, not the player's (a label or
            # a share tag of a neighbour may cover one of them).
            same = [p for p in probes if _dist(empty_img.getpixel(p), colour) < 40]  # type: ignore[arg-type]
            assert len(same) < max(1, len(probes) / 2)
    # A city label or dot may cover a space here and there, never most of them.
    assert hits >= 0.9 * total, f"{hits} of {total} claimed routes show their owner's colour"


def test_claim_is_visible_in_the_encoded_png() -> None:
    map_id = MAP_IDS[0]
    base = empty_view(map_id)
    route = maps.load_map(map_id).routes[0]
    view = base.model_copy(update={"claimed": {route.id: 1}})
    png = _open(render_board(view)).convert("RGB")
    probes = _probes(view, route.id)
    assert any(_dist(png.getpixel(p), player_fill(1)) < 30 for p in probes)  # type: ignore[arg-type]


def test_same_view_same_bytes() -> None:
    view = mid_view(MAP_IDS[0], seed=9)
    assert render_board(view) == render_board(view)
    assert render_final(final_view(MAP_IDS[0], seed=9)) == render_final(
        final_view(MAP_IDS[0], seed=9)
    )


@pytest.mark.slow
def test_many_threads_at_once_match_one_thread() -> None:
    views = [mid_view(m, seed=s) for m in MAP_IDS[:3] for s in (11, 12)]
    expected = [render_board(v) for v in views]
    with ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(render_board, views * 2))
    assert got == expected * 2


@pytest.mark.slow
def test_webp_output() -> None:
    data = render_board(mid_view(MAP_IDS[0], seed=1), "WEBP")
    _check_size(data, "WEBP")
    with pytest.raises(ValueError):
        render_board(mid_view(MAP_IDS[0], seed=1), "BMP")


def test_final_needs_a_finished_game() -> None:
    with pytest.raises(ValueError):
        render_final(mid_view(MAP_IDS[0]))


def test_hand_with_nothing_and_with_unknown_cards() -> None:
    map_id = MAP_IDS[0]
    t = maps.load_map(map_id).tickets[0]
    empty = PrivateView(seat=0, hand={}, tickets=[], offered=[], keep_min=0)
    odd = PrivateView(
        seat=4,
        hand={"red": 2, "ship_red": 3, "locomotive": 1},
        tickets=[TicketView(id=t.id, cities=t.cities, points=t.points, connected=True)],
        offered=[TicketView(id=t.id, cities=t.cities, points=t.points)],
        keep_min=1,
    )
    small = _open(render_hand(empty, map_id))
    big = _open(render_hand(odd, map_id))
    assert big.height > small.height


def test_stations_and_closed_routes_and_tunnel_do_not_break() -> None:
    map_id = next((m for m in MAP_IDS if maps.load_map(m).rules.stations), MAP_IDS[0])
    m = maps.load_map(map_id)
    twin = next(r for r in m.routes if r.double_of is not None)
    tunnel = next((r for r in m.routes if r.tunnel), m.routes[0])
    from engine.views import PendingTunnel

    view = mid_view(map_id, seed=3, players=2).model_copy(
        update={
            "stations": {m.cities[0].id: 0, m.cities[1].id: 1},
            "claimed": {twin.id: 0},
            "closed": [twin.double_of],
            "phase": Phase.TUNNEL,
            "tunnel": PendingTunnel(
                seat=1,
                route=tunnel.id,
                color="red",
                revealed=["red", "blue", "locomotive"],
                extra=2,
            ),
            "last_round": True,
        }
    )
    img = board_image(view)
    # The station house sits on its city in the owner's colour.
    ox, oy = map_offset(map_id)
    x, y = base_for(map_id).layout.cities[m.cities[0].id][0]
    near = [
        img.getpixel((round(x + ox + dx), round(y + oy + dy)))
        for dx in range(-6, 7, 2)
        for dy in range(-12, 0, 2)
    ]
    assert any(_dist(px, player_fill(0)) < 12 for px in near)  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize("map_id", [m for m in ("usa", "europe", "pennsylvania") if m in MAP_IDS])
def test_views_from_a_real_engine_game(map_id: str) -> None:
    from bot.render.demo import engine_views

    mid, hand, end, last = engine_views(map_id, seed=21, turns=50, players=3)
    assert last is not None and set(last.routes) <= set(mid.claimed)
    assert end.final is not None and end.claimed
    _check_size(render_board(mid, last=last))
    _check_size(render_final(end))
    assert _open(render_hand(hand, map_id)).width > 0
    img = board_image(end)
    shown = sum(
        any(_dist(img.getpixel(p), player_fill(seat)) < 12 for p in _probes(end, route))  # type: ignore[arg-type]
        for route, seat in end.claimed.items()
    )
    assert shown >= 0.9 * len(end.claimed)


def _near(img: Image.Image, colour: tuple[int, int, int], box: tuple[int, int, int, int],
          tol: float = 10) -> int:
    """How many pixels in ``box`` are within ``tol`` of ``colour`` in every channel."""
    crop = img.convert("RGB").crop(box)
    diff = ImageChops.difference(crop, Image.new("RGB", crop.size, colour))
    r, g, b = (band.point(lambda v: 255 if v < tol else 0) for band in diff.split())
    return ImageChops.multiply(ImageChops.multiply(r, g), b).histogram()[255]


def _company(company: str) -> tuple[int, int, int]:
    from bot.render.shares import company_fill

    return company_fill(maps.load_map("pennsylvania"), company)


def test_hand_shows_shares_per_company_and_a_waiting_choice() -> None:
    plain = PrivateView(seat=0, hand={"red": 2}, tickets=[], offered=[], keep_min=0)
    held = plain.model_copy(update={"shares": {"PRR": [1, 4], "B&O": [3]}})
    choosing = held.model_copy(update={"share_options": ["ERIE", "LV"]})
    a, b, c = (_open(render_hand(v, "pennsylvania")) for v in (plain, held, choosing))
    assert a.height < b.height < c.height
    whole = (0, 0, b.width, b.height)
    # Absent: at most a few edge pixels the palette maps to a company's colour.
    stray = 100
    for company in ("PRR", "B&O"):
        assert _near(a, _company(company), whole) < stray
        assert _near(b, _company(company), whole) > 5000  # a chip in the company's colour
    for company in ("ERIE", "LV"):  # the options, as tags
        assert _near(b, _company(company), whole) < stray
        assert _near(c, _company(company), (0, 0, c.width, c.height)) > 200


def test_pennsylvania_board_shows_the_share_stacks_in_the_header() -> None:
    from bot.render import HEADER_H, header_height

    view = mid_view("pennsylvania", seed=4, players=2)
    assert view.share_stacks and view.neutral_shares
    assert header_height("pennsylvania") > HEADER_H == header_height("usa")
    img = board_image(view)
    row = (0, HEADER_H - 6, img.width, header_height("pennsylvania"))
    full = {c: n for c, n in view.share_stacks.items() if n}
    assert full
    for company in full:
        assert _near(img, _company(company), row) > 150, company
    # The same stacks, all taken: every tag is dimmed.
    empty = view.model_copy(update={"share_stacks": dict.fromkeys(view.share_stacks, 0)})
    gone = board_image(empty)
    # (BR&P's near-black would match the panel's own dark edges.)
    assert all(_near(gone, _company(c), row) < 20 for c in full if c != "BR&P")
    _check_size(render_board(view))


@pytest.mark.slow
def test_final_scores_break_down_the_share_points() -> None:
    from bot.render.final import SHARES

    view = final_view("pennsylvania", seed=5, players=3)
    assert view.final is not None and any(p.extras for p in view.final.players)
    bare = view.model_copy(update={"final": view.final.model_copy(update={
        "players": [p.model_copy(update={"extras": []}) for p in view.final.players]})})
    with_extras, without = _open(render_final(view)), _open(render_final(bare))
    assert with_extras.height > without.height  # the share majorities table
    top = (0, 0, with_extras.width, with_extras.height - 900)  # above the map
    assert _near(with_extras, SHARES, top) > 2000  # share points and bar segments
    assert _near(without, SHARES, top) == 0
    scored = {str(e.fields["company"]) for p in view.final.players for e in p.extras}
    for company in scored:  # each company's tag heads its column
        assert _near(with_extras, _company(company), top) > 100, company


@pytest.mark.parametrize("map_id", ["usa", "world", "pennsylvania"])
def test_a_hand_in_the_maps_hand_palette_looks_like_its_drawing(map_id: str) -> None:
    """Hands are reduced to one palette per map (chosen once): a hand it was not built
    from keeps its colours (mean error of a few levels, like a palette of its own)."""
    from bot.render.hand import draw_hand

    view = hand_view(map_id, seed=11, seat=3)
    drawn = draw_hand(view, map_id).convert("RGB")
    png = _open(render_hand(view, map_id)).convert("RGB")
    assert png.size == drawn.size
    diff = ImageChops.difference(drawn, png).convert("L")
    mean = sum(i * n for i, n in enumerate(diff.histogram())) / (drawn.width * drawn.height)
    assert mean < 3.0, mean
    # Each seat's colour is in the palette exactly (the hand shows its seat's colour).
    flat = hand_palette(map_id).getpalette() or []
    colours = {tuple(flat[i:i + 3]) for i in range(0, len(flat), 3)}
    assert all(player_fill(seat) in colours for seat in range(5))
    if map_id == "pennsylvania":  # and every company's, for the share chips
        assert all(_company(c.id) in colours for c in maps.load_map(map_id).rules.shares.companies)


@pytest.mark.slow
@pytest.mark.parametrize("map_id", MAP_IDS)
def test_the_hand_draws_the_ticket_plan_as_a_small_map(
        map_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the public view, the hand adds the planner's map: each open ticket's way in its
    ink (an exact colour of the hand palette), and a row per ticket beside it."""
    from bot.render.hand import PLAN_INKS
    from engine import plan_tickets
    from engine.board import board_for

    public, private = mid_view(map_id, seed=2), hand_view(map_id, seed=4)
    plans = plan_tickets(board_for(map_id), public, private)
    first = next(i for i, p in enumerate(plans) if p.routes)  # an open way to draw
    plain = _open(render_hand(private, map_id)).convert("RGB")
    planned = _open(render_hand(private, map_id, public)).convert("RGB")
    assert planned.width == plain.width and planned.height > plain.height + 300

    def inked(img: Image.Image) -> int:
        counts = {colour: n for n, colour in img.getcolors(1 << 24) or []}
        return counts.get(PLAN_INKS[first % len(PLAN_INKS)], 0)

    assert inked(plain) == 0 and inked(planned) > 100
    # Given the planner's answer (the bot has it from the DM's text), the same picture,
    # without working it out again.
    with monkeypatch.context() as patched:
        patched.setattr("bot.render.hand.plan_tickets", None)  # not called
        given = _open(render_hand(private, map_id, public, plans)).convert("RGB")
    assert given.tobytes() == planned.tobytes()


@pytest.mark.slow
def test_the_final_map_is_the_boards_map_layer_not_drawn_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31: the final image takes the map layer the game's last board left in the
    worker's cache (10-20x cheaper than drawing and scaling it again), and its colours
    stay the board's (mapped to the final palette: a small error on average)."""
    import bot.render as render

    view = final_view("usa", seed=5)
    render.final_palette("usa")  # built once per process (the fork server's warm-up)
    render_board(view)

    def no_drawing(*args: object) -> None:
        raise AssertionError("the final map was drawn again")

    monkeypatch.setattr(render, "draw_map", no_drawing)
    img = _open(render_final(view)).convert("RGB")
    layer = render.map_layer(view).convert("RGB")
    assert img.width == layer.width
    under = img.crop((0, img.height - layer.height, img.width, img.height))
    error = ImageStat.Stat(ImageChops.difference(under, layer)).mean
    assert max(error) < 3, error
