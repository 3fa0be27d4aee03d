"""Iberia (festivals, ticket drafts) and Rails & Sails (ships, harbors, pieces) in pictures,
from real engine games: every stage renders, badges and harbors show where they belong,
the new card kinds and holdings reach the hand, the map points reach the final image, and
the public board is a function of the public view alone."""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from functools import cache

import pytest
from PIL import Image, ImageChops

import maps
from bot.render import (
    MAX_BYTES,
    board_image,
    header_height,
    map_offset,
    render_board,
    render_final,
    render_hand,
)
from bot.render.board import base_for
from bot.render.cards import WAVE, card_parts, card_sprite
from bot.render.extras import BAD
from bot.render.final import _extra_chips_height
from bot.render.icons import FESTIVAL, SEA_INK
from bot.render.layout import festival_badge_spot, harbor_spot
from bot.render.palette import player_fill
from engine import GameConfig, GameState, apply, new_game, private_view, public_view, waiting_for
from engine.agents import random_action
from engine.extras import exchanged_pieces, harbor_points, unbuilt_harbors
from engine.views import PlayerScore, PrivateView, PublicView, TicketView

RGB = tuple[int, int, int]
NAMES = ["Ana", "Benedikt", "Cy", "Dagmar"]


def _open(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img.convert("RGB")


def _near(img: Image.Image, colour: RGB, box: tuple[int, int, int, int], tol: int = 12) -> int:
    """Pixels in ``box`` within ``tol`` of ``colour`` in every channel."""
    crop = img.convert("RGB").crop(box)
    diff = ImageChops.difference(crop, Image.new("RGB", crop.size, colour))
    r, g, b = (band.point(lambda v: 255 if v < tol else 0) for band in diff.split())
    return ImageChops.multiply(ImageChops.multiply(r, g), b).histogram()[255]


def _whole(img: Image.Image) -> tuple[int, int, int, int]:
    return (0, 0, img.width, img.height)


def _play(
    map_id: str, seed: int, stop: Callable[[GameState, int], bool] = lambda s, n: False
) -> GameState:
    """A random game from the engine, played until ``stop(state, actions)`` or its end."""
    state = new_game(GameConfig(map_id=map_id, players=NAMES[:3], seed=seed))
    rng = random.Random(seed)
    n = 0
    while state.phase != "game_over" and not stop(state, n):
        seat = waiting_for(state)[0]
        apply(state, seat, random_action(state, seat, rng))
        n += 1
    return state


@cache
def _stages(map_id: str, seed: int) -> dict[str, tuple[PublicView, PrivateView]]:
    """Public and private views at the first moment of each phase (the second ticket draft
    as 'draft2'), at a late turn ('late', turn 60 or after) and at the end ('game_over')."""
    state = new_game(GameConfig(map_id=map_id, players=NAMES[:3], seed=seed))
    rng = random.Random(seed)
    out: dict[str, tuple[PublicView, PrivateView]] = {}
    while True:
        key = state.phase
        if key == "draft" and state.turn > 1:
            key = "draft2"
        if state.turn >= 60 and state.phase == "turn":
            key = "late"
        if key not in out:
            seat = waiting_for(state)[0] if state.phase != "game_over" else 0
            out[key] = (public_view(state), private_view(state, seat))
        if state.phase == "game_over":
            return out
        seat = waiting_for(state)[0]
        apply(state, seat, random_action(state, seat, rng))


def _check_board(data: bytes) -> Image.Image:
    assert len(data) <= MAX_BYTES
    img = _open(data)
    assert 1000 <= img.width <= 2200 and 600 <= img.height <= 2200
    return img


# Every stage of real games ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("map_id", "expected"),
    [
        ("iberia", {"draft", "draft_keep", "turn", "choose_festival", "draft2", "game_over"}),
        ("world", {"choose_initial_tickets", "choose_pieces", "turn", "second_draw", "game_over"}),
    ],
)
@pytest.mark.slow
def test_every_stage_of_a_real_game_renders(map_id: str, expected: set[str]) -> None:
    stages = _stages(map_id, 3)
    assert expected <= set(stages)
    for public, private in stages.values():
        _check_board(render_board(public))
        hand = _open(render_hand(private, map_id))
        assert hand.width == 1120 and 300 <= hand.height <= 3000
    end = stages["game_over"][0]
    assert end.final is not None
    final = _open(render_final(end))
    assert final.height <= 2200


# Iberia -----------------------------------------------------------------------------------


def _badge_box(map_id: str, city: str) -> tuple[int, int, int, int]:
    x, y = base_for(map_id).layout.cities[city][0]
    bx, by = festival_badge_spot(x, y)
    ox, oy = map_offset(map_id)
    return (round(bx + ox - 7), round(by + oy - 7), round(bx + ox + 7), round(by + oy + 7))


def test_festival_badges_show_where_cards_lie() -> None:
    m = maps.load_map("iberia")
    public = _stages("iberia", 3)["late"][0]
    lying = {p for p, n in public.festival_piles.items() if n}
    assert lying and lying != set(public.festival_piles)  # some piles with cards, some without
    for fmt_img in (board_image(public), _open(render_board(public))):
        for c in m.cities:
            if c.festival_pile is None:
                continue
            shown = _near(fmt_img, FESTIVAL, _badge_box("iberia", c.id), tol=20)
            if c.festival_pile in lying:
                assert shown > 30, c.id
            else:
                assert shown == 0, c.id
    # Porto and Coimbra share one pile: both show its cards.
    both = public.model_copy(update={"festival_piles": {"porto": 3}})
    img = board_image(both)
    for city in ("porto", "coimbra"):
        assert _near(img, FESTIVAL, _badge_box("iberia", city), tol=20) > 30


def test_header_says_when_a_ticket_draft_is_running() -> None:
    stages = _stages("iberia", 3)
    top = header_height("iberia")
    for phase, running in (
        ("draft", True),
        ("draft2", True),
        ("draft_keep", True),
        ("turn", False),
    ):
        img = board_image(stages[phase][0])
        banner = _near(img, FESTIVAL, (0, 0, img.width, top), tol=8)
        assert (banner > 500) == running, phase


def test_hand_shows_festival_cards_the_draft_packet_and_the_festival_choice() -> None:
    stages = _stages("iberia", 3)
    drafting = stages["draft"][1]
    assert drafting.draft_packet and not drafting.tickets
    plain = drafting.model_copy(update={"draft_packet": []})
    a, b = _open(render_hand(plain, "iberia")), _open(render_hand(drafting, "iberia"))
    assert b.height > a.height + 300  # the packet, "Pick one"
    keeping = stages["draft_keep"][1]
    assert keeping.keep_max == keeping.keep_min and keeping.offered
    assert _open(render_hand(keeping, "iberia")).height > a.height
    # Festival cards held: one tile per pile, edged in the festival colour.
    held = plain.model_copy(update={"festival_cards": {"valencia": 3, "porto": 1}})
    c = _open(render_hand(held, "iberia"))
    assert _near(a, FESTIVAL, _whole(a)) == 0
    tiles = _near(c, FESTIVAL, _whole(c))
    assert tiles > 400
    choosing = held.model_copy(update={"festival_options": ["madrid", "sevilla"]})
    d = _open(render_hand(choosing, "iberia"))
    assert d.height > c.height and _near(d, FESTIVAL, _whole(d)) > tiles + 500


def test_final_shows_the_festival_points() -> None:
    end = _stages("iberia", 3)["game_over"][0]
    assert end.final is not None
    assert any(e.kind == "festival" for p in end.final.players for e in p.extras)
    bare = end.model_copy(
        update={
            "final": end.final.model_copy(
                update={"players": [_no_extras(p) for p in end.final.players]}
            )
        }
    )
    with_sets, without = _open(render_final(end)), _open(render_final(bare))
    assert with_sets.height > without.height  # the festival sets section
    top = (0, 0, with_sets.width, 700)
    assert _near(with_sets, FESTIVAL, top) > 200  # the chips' edges
    assert _near(without, FESTIVAL, top) == 0


def _no_extras(p: PlayerScore) -> PlayerScore:
    return p.model_copy(update={"extras": [], "total": p.total - sum(e.points for e in p.extras)})


# Rails & Sails ----------------------------------------------------------------------------


def _harbor_box(city: str) -> tuple[int, int, int, int]:
    x, y = base_for("world").layout.cities[city][0]
    hx, hy = harbor_spot(x, y)
    ox, oy = map_offset("world")
    return (round(hx + ox - 9), round(hy + oy - 9), round(hx + ox + 9), round(hy + oy + 9))


@cache
def _world_with_harbors() -> PublicView:
    state = _play("world", 1, lambda s, n: len(public_view(s).harbors) >= 2 and s.phase == "turn")
    view = public_view(state)
    assert len(view.harbors) >= 2
    return view


@pytest.mark.slow
def test_built_harbors_show_in_the_owner_colour_at_their_city() -> None:
    view = _world_with_harbors()
    unbuilt = view.model_copy(update={"harbors": {}})
    for img in (board_image(view), _open(render_board(view))):
        empty = board_image(unbuilt)
        for city, seat in view.harbors.items():
            box = _harbor_box(city)
            colour = player_fill(seat)
            assert _near(img, colour, box) > 80 + _near(empty, colour, box), city
    # A harbor site without a harbor keeps its small sea-blue anchor.
    free = next(
        c.id for c in maps.load_map("world").cities if c.harbor and c.id not in view.harbors
    )
    assert _near(board_image(view), SEA_INK, _harbor_box(free), tol=20) > 20


def test_world_header_counts_both_decks_and_shows_ship_cards_apart() -> None:
    view = _world_with_harbors()
    top = header_height("world")
    trains_only = view.model_copy(update={"market": ["red", "locomotive", "white_harbor"] * 2})
    ships = view.model_copy(
        update={
            "market": ["red", "locomotive", "white", "red_ship", "black_double_ship", "green_ship"]
        }
    )
    a, b = board_image(trains_only), board_image(ships)
    # The ship cards' wave bands (a stray anti-aliased pixel or two may come near).
    assert _near(a, WAVE, (0, 0, a.width, top)) < 20 < 150 < _near(b, WAVE, (0, 0, b.width, top))
    # All six cards are drawn: the last one's right edge is not cut off.
    from bot.render import COL_B_X
    from bot.render.panel import market_width

    end = COL_B_X + market_width(ships)
    last = (end - 40, 40, end - 20, 90)
    assert _near(b, (0x3E, 0x9B, 0x45), last, tol=20) > 50  # green_ship's colour
    # The deck counts are drawn: changing the ship deck changes the header alone.
    more = board_image(ships.model_copy(update={"ship_deck": ships.ship_deck + 17}))
    diff = ImageChops.difference(b, more).getbbox()
    assert diff is not None and diff[3] <= top


def test_card_kinds_have_their_own_marks() -> None:
    def has(name: str, colour: RGB, box: tuple[int, int, int, int], jokers: bool = True) -> int:
        img = Image.new("RGB", (86, 124), (0, 0, 0))
        sprite = card_sprite(name, 86, 124, jokers)
        img.paste(sprite, (0, 0), sprite)
        return _near(img, colour, box)

    corner, band = (0, 0, 30, 30), (0, 80, 86, 124)
    assert card_parts("red_double_ship") == ("red", "double")
    assert has("red_harbor", SEA_INK, corner) > 10 and has("red", SEA_INK, corner) == 0
    assert has("red_ship", WAVE, band) > 50 and has("red_harbor", WAVE, band) == 0
    assert has("red_ship", SEA_INK, corner) > 10  # single ships carry the harbor symbol
    assert has("red_double_ship", SEA_INK, corner) == 0
    assert (
        card_sprite("red_double_ship", 86, 124).tobytes()
        != card_sprite("red_ship", 86, 124).tobytes()
    )
    joker, loco = card_sprite("locomotive", 86, 124, True), card_sprite("locomotive", 86, 124)
    assert joker.tobytes() != loco.tobytes()


def test_world_hand_groups_cards_and_shows_pieces_harbors_and_tours() -> None:
    m = maps.load_map("world")
    tour = next(t for t in m.tickets if len(t.cities) == 5)
    pair = next(t for t in m.tickets if len(t.cities) == 2)
    base = PrivateView(
        seat=2,
        hand={"red": 2, "red_harbor": 1, "locomotive": 1},
        tickets=[TicketView(id=pair.id, cities=pair.cities, points=pair.points)],
        offered=[],
        keep_min=0,
        pieces={"trains": 0, "ships": 0, "reserve_trains": 25, "reserve_ships": 50},
        harbors_left=3,
    )
    ships = base.model_copy(
        update={"hand": {**base.hand, "red_ship": 2, "black_double_ship": 3, "white_ship": 1}}
    )
    a, b = _open(render_hand(base, "world")), _open(render_hand(ships, "world"))
    assert _near(a, WAVE, _whole(a)) == 0 and _near(b, WAVE, _whole(b)) > 300
    # Pieces chosen: a wagon and a ship in the player's colour, three anchors.
    chosen = ships.model_copy(
        update={"pieces": {"trains": 18, "ships": 37, "reserve_trains": 7, "reserve_ships": 13}}
    )
    c = _open(render_hand(chosen, "world"))
    seat = player_fill(2)
    assert _near(c, seat, _whole(c)) > _near(b, seat, _whole(b)) + 800
    # A tour ticket takes a full row and lists its values (the penalty in red).
    toured = chosen.model_copy(
        update={
            "tickets": [
                *chosen.tickets,
                TicketView(id=tour.id, cities=tour.cities, points=tour.points),
            ]
        }
    )
    d = _open(render_hand(toured, "world"))
    assert d.height > c.height
    assert _near(d, BAD, _whole(d)) > _near(c, BAD, _whole(c)) + 40


def test_world_final_shows_harbor_points_and_penalties() -> None:
    end = _stages("world", 3)["game_over"][0]
    assert end.final is not None
    seat = end.final.players[0].seat
    extras = [harbor_points("Perth", 1, 20), unbuilt_harbors(2, -8), exchanged_pieces(3, -3)]
    players = [
        p.model_copy(update={"extras": extras,
                             "total": p.total - sum(e.points for e in p.extras) + 9})
        if p.seat == seat
        else _no_extras(p)
        for p in end.final.players
    ]
    view = end.model_copy(update={"final": end.final.model_copy(update={"players": players})})
    bare = end.model_copy(
        update={
            "final": end.final.model_copy(
                update={"players": [_no_extras(p) for p in end.final.players]}
            )
        }
    )
    img, without = _open(render_final(view)), _open(render_final(bare))
    # The harbors section sits between the score table and the bars.
    order = sorted(players, key=lambda p: (p.rank, p.seat))
    start = 32 + 110 + 30 + len(order) * 44
    height = _extra_chips_height(order, maps.load_map("world"))
    assert img.height == without.height + height
    band = (0, start, img.width, start + height)
    assert _near(img, BAD, band) > 60  # the penalties' points
    assert _near(img, player_fill(seat), band) > 100  # the harbor's anchor, owner's colour


# The public board depends on the public view alone ------------------------------------------


@pytest.mark.parametrize("map_id", ["iberia", "world"])
def test_public_board_ignores_hidden_information(map_id: str) -> None:
    state = _play(map_id, 5, lambda s, n: n >= 150 and s.phase == "turn")
    before = public_view(state)
    secret = [private_view(state, s) for s in range(state.n_players)]
    png = render_board(before)
    # Reshuffle what nobody may see: deck order, each hand's mix, the ticket deck (the
    # Rails & Sails piece split is public by now: everyone has chosen).
    rng = random.Random(0)
    rng.shuffle(state.deck)
    rng.shuffle(state.ticket_deck)
    for hand in state.hands:
        hand[:] = hand[1:] + hand[:1]
    if map_id == "world":
        rng.shuffle(state.ext["rs"]["ship_deck"])
    after = public_view(state)
    assert [private_view(state, s) for s in range(state.n_players)] != secret
    assert after == before
    assert render_board(after) == png
    # And the bytes survive the view's trip through JSON (what a bot stores).
    assert render_board(PublicView.model_validate_json(before.model_dump_json())) == png


def test_world_board_shows_each_players_trains_and_ships_once_everyone_has_chosen() -> None:
    state = _play("world", 3, lambda s, n: s.phase == "turn")
    png = render_board(public_view(state))
    rs = state.ext["rs"]
    rs["ships"][0] -= 1
    rs["trains"][0] += 1
    assert render_board(public_view(state)) != png
