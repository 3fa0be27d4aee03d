"""The outside cases of /work/shared/tests-external.md, data-driven, by city names."""

from __future__ import annotations

import pytest

from engine import Claim, IllegalAction, Position, apply, setup_position
from engine.scoring import final_scores

# Routes are (a, b) or (a, b, colour) for one track of a double route.
SIX_ROUTES = [
    ("portland", "salt_lake_city"),
    ("helena", "salt_lake_city"),
    ("las_vegas", "salt_lake_city"),
    ("las_vegas", "los_angeles"),
    ("denver", "salt_lake_city", "red"),
    ("denver", "kansas_city", "black"),
]


def usa_player(started, own, routes, tickets=(), ticket=None):
    state = started("usa", 2)
    own(state, 0, *routes)
    held = [state.board.t_ids[ticket(state, *t)] for t in tickets]
    setup_position(state, Position(tickets={0: held, 1: []}))
    return final_scores(state).players[0]


def test_usa_longest_path_of_the_six_routes_is_13(started, own):
    assert usa_player(started, own, SIX_ROUTES).longest_path == 13


@pytest.mark.parametrize(
    ("routes", "tkt", "completed"),
    [
        (SIX_ROUTES, ("portland", "phoenix"), False),
        ([*SIX_ROUTES, ("denver", "phoenix")], ("portland", "phoenix"), True),
        ([("el_paso", "santa_fe"), ("denver", "santa_fe")], ("denver", "el_paso"), True),
        (
            [("helena", "salt_lake_city"), ("calgary", "helena")],
            ("calgary", "salt_lake_city"),
            True,
        ),
        ([("helena", "salt_lake_city")], ("calgary", "salt_lake_city"), False),
    ],
)
def test_usa_ticket_completion(started, own, ticket, routes, tkt, completed):
    row = usa_player(started, own, routes, [tkt], ticket)
    assert row.tickets_completed == int(completed)
    assert (row.tickets[0].points > 0) is completed


@pytest.mark.parametrize("map_id", ["usa", "europe"])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_double_routes_by_player_count(started, set_hand, route, pass_turn, map_id, n):
    """Both tracks usable only at 4+ players (USA, Europe); never both by one player."""
    state = started(map_id, n)
    a, b, colours = (
        ("new_york", "pittsburgh", ("white", "green"))
        if map_id == "usa"
        else ("frankfurt", "paris", ("orange", "white"))
    )
    one, twin = route(state, a, b, colours[0]), route(state, a, b, colours[1])
    length = state.board.r_len[state.board.route_index[one]]
    first = state.current
    set_hand(state, first, {colours[0]: length})
    apply(state, first, Claim(route=one, cards={colours[0]: length}))
    second = state.current
    set_hand(state, second, {colours[1]: length})
    before = state.to_snapshot()
    try:
        apply(state, second, Claim(route=twin, cards={colours[1]: length}))
        second_track_claimed = True
    except IllegalAction as refused:
        assert "only one track of a double route is used" in str(refused)
        assert state.to_snapshot() == before
        second_track_claimed = False
    assert second_track_claimed is (n >= 4)
    # The first player may never take the other track, at any player count.
    while state.current != first:
        pass_turn(state)
    if not second_track_claimed:
        set_hand(state, first, {colours[1]: length})
        before = state.to_snapshot()
        with pytest.raises(IllegalAction, match="nobody may claim both"):
            apply(state, first, Claim(route=twin, cards={colours[1]: length}))
        assert state.to_snapshot() == before
