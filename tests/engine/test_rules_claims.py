"""RULES.md §1 Turn 2 (claim a route), route scoring, double routes and ferries."""

from __future__ import annotations

import pytest

from engine import Claim, Position, apply, public_view, setup_position
from engine.cards import LOCO

# Little Rock–New Orleans: green, length 3 (USA).
LR, NO = "little_rock", "new_orleans"


def test_claim_a_coloured_route_with_matching_cards(started, set_hand, route, cards, kinds):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3, "red": 1})
    r = route(state, LR, NO)
    discards = len(state.discards)
    events = apply(state, seat, Claim(route=r, cards={"green": 3}))
    assert kinds(events) == ["RouteClaimed", "TurnStarted"]
    assert events[0].route == r and events[0].points == 4 and events[0].cards == {"green": 3}
    assert state.owner[state.board.route_index[r]] == seat
    assert state.trains[seat] == 45 - 3
    assert state.scores[seat] == 4
    assert state.hands[seat][cards("green")] == 0 and state.hands[seat][cards("red")] == 1
    assert state.discards[discards:] == [cards("green")] * 3
    assert state.current == 1 - seat


def test_gray_route_takes_any_one_colour(started, set_hand, route):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"orange": 3})
    r = route(state, "montreal", "toronto")  # gray 3
    apply(state, seat, Claim(route=r, cards={"orange": 3}))
    assert state.owner[state.board.route_index[r]] == seat


@pytest.mark.parametrize(
    "pay", [{"green": 2, "locomotive": 1}, {"green": 1, "locomotive": 2}, {"locomotive": 3}]
)
def test_locomotives_substitute_for_the_colour(started, set_hand, route, pay):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3, "locomotive": 3})
    r = route(state, LR, NO)
    apply(state, seat, Claim(route=r, cards=pay))
    assert state.owner[state.board.route_index[r]] == seat


def test_locomotives_pay_a_gray_route_with_one_colour(started, set_hand, route):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"blue": 1, "locomotive": 2})
    r = route(state, "montreal", "toronto")
    apply(state, seat, Claim(route=r, cards={"blue": 1, "locomotive": 2}))
    assert state.owner[state.board.route_index[r]] == seat


def test_mixing_two_colours_on_a_gray_route_is_refused(started, set_hand, route, illegal):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"red": 3, "blue": 3})
    r = route(state, "montreal", "toronto")
    illegal(
        state,
        seat,
        Claim(route=r, cards={"red": 2, "blue": 1}),
        "Montréal–Toronto needs 3 cards of one colour or locomotives",
        "you offered 1 blue, 2 red",
    )


def test_wrong_colour_is_refused(started, set_hand, route, illegal):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3, "red": 3})
    r = route(state, LR, NO)
    illegal(state, seat, Claim(route=r, cards={"red": 3}), "needs 3 green cards", "3 red")


@pytest.mark.parametrize("pay", [{"green": 2}, {"green": 4}, {"green": 2, "locomotive": 2}])
def test_payment_must_match_the_route_length(started, set_hand, route, illegal, pay):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 4, "locomotive": 2})
    illegal(state, seat, Claim(route=route(state, LR, NO), cards=pay), "needs 3 green cards")


def test_refusal_names_the_missing_cards(started, set_hand, route, illegal):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 2, "red": 5})
    message = illegal(state, seat, Claim(route=route(state, LR, NO), cards={"green": 3}))
    assert message == (
        "Little Rock–New Orleans needs 3 green cards or locomotives; "
        "you have 2 green, 0 locomotives."
    )


def test_refusal_for_a_gray_route_names_the_best_colour(started, set_hand, route, illegal):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"red": 1, "blue": 2})
    message = illegal(state, seat, Claim(route=route(state, "montreal", "toronto"), cards={}))
    assert message.endswith("you have at most 2 of one colour (blue), 0 locomotives.")


def test_cards_not_held_are_refused(started, set_hand, route, illegal):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3})
    illegal(
        state,
        seat,
        Claim(route=route(state, LR, NO), cards={"locomotive": 3}),
        "You do not hold those cards: you are missing 3 locomotives.",
    )


def test_enough_trains_are_needed(started, set_hand, route, illegal):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3})
    setup_position(state, Position(trains={seat: 2}))
    illegal(
        state,
        seat,
        Claim(route=route(state, LR, NO), cards={"green": 3}),
        "Little Rock–New Orleans needs 3 trains; you have 2 left.",
    )


def test_exactly_enough_trains_is_enough(started, set_hand, route):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3})
    setup_position(state, Position(trains={seat: 3}))
    apply(state, seat, Claim(route=route(state, LR, NO), cards={"green": 3}))
    assert state.trains[seat] == 0


@pytest.mark.parametrize(
    ("a", "b", "colour", "length", "points"),
    [
        ("atlanta", "nashville", "gray", 1, 1),
        ("atlanta", "charleston", "gray", 2, 2),
        ("montreal", "toronto", "gray", 3, 4),
        ("calgary", "helena", "gray", 4, 7),
        ("atlanta", "miami", "blue", 5, 10),
        ("sault_st_marie", "winnipeg", "gray", 6, 15),
    ],
)
def test_route_score_table(started, set_hand, route, a, b, colour, length, points):
    state = started("usa", 2)
    seat = state.current
    suit = "blue" if colour == "gray" else colour
    set_hand(state, seat, {suit: length})
    r = route(state, a, b)
    assert state.board.r_len[state.board.route_index[r]] == length
    events = apply(state, seat, Claim(route=r, cards={suit: length}))
    assert events[0].points == points
    assert state.scores[seat] == points
    assert public_view(state).players[seat].score == points


def test_only_one_route_per_turn(started, set_hand, route, illegal):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3, "orange": 3})
    apply(state, seat, Claim(route=route(state, LR, NO), cards={"green": 3}))
    illegal(
        state,
        seat,
        Claim(route=route(state, "montreal", "toronto"), cards={"orange": 3}),
        f"It is {state.config.players[1 - seat]}'s turn, not yours.",
    )


def test_routes_need_not_connect_to_the_network(started, set_hand, route, pass_turn):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3, "orange": 3})
    apply(state, seat, Claim(route=route(state, LR, NO), cards={"green": 3}))
    pass_turn(state)
    r = route(state, "montreal", "toronto")  # far from Little Rock
    apply(state, seat, Claim(route=r, cards={"orange": 3}))
    assert state.owner[state.board.route_index[r]] == seat


def test_a_claimed_route_cannot_be_claimed_again(started, set_hand, route, illegal):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3})
    set_hand(state, 1 - seat, {"green": 3})
    r = route(state, LR, NO)
    apply(state, seat, Claim(route=r, cards={"green": 3}))
    illegal(
        state,
        1 - seat,
        Claim(route=r, cards={"green": 3}),
        f"Little Rock–New Orleans is already claimed by {state.config.players[seat]}.",
    )


def test_unknown_route_is_refused(started, illegal):
    state = started("usa", 2)
    illegal(state, state.current, Claim(route=999, cards={}), "There is no route 999 on this map.")


def test_unknown_card_name_is_refused(started, set_hand, route, illegal):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {"green": 3})
    illegal(
        state,
        seat,
        Claim(route=route(state, LR, NO), cards={"pink": 3}),
        "Unknown card name: use purple, white, blue, yellow, orange, black, red, green, "
        "locomotive.",
    )


# Double routes ------------------------------------------------------------------------------


def claim_first_track(state, route, set_hand, a, b, colour):
    """The current player claims one track; returns (that seat, the other track's id)."""
    seat = state.current
    r = route(state, a, b, colour)
    twin = state.board.route_ids[state.board.r_twin[state.board.route_index[r]]]
    set_hand(state, seat, {colour: 6})
    apply(state, seat, Claim(route=r, cards={colour: 3}))
    return seat, twin


@pytest.mark.parametrize(("map_id", "n"), [("usa", 2), ("usa", 3), ("europe", 2), ("europe", 3)])
def test_with_two_or_three_players_claiming_one_track_closes_the_other(
    started, set_hand, route, illegal, map_id, n
):
    state = started(map_id, n)
    a, b, colour = (
        ("chicago", "pittsburgh", "orange") if map_id == "usa" else ("berlin", "frankfurt", "red")
    )
    _, twin = claim_first_track(state, route, set_hand, a, b, colour)
    nxt = state.current
    set_hand(state, nxt, {"black": 3})
    illegal(
        state,
        nxt,
        Claim(route=twin, cards={"black": 3}),
        "The other track of",
        "with fewer than 4 players only one track of a double route is used",
    )
    assert twin in public_view(state).closed


@pytest.mark.parametrize(("map_id", "n"), [("usa", 4), ("usa", 5), ("europe", 4), ("europe", 5)])
def test_with_four_or_more_players_both_tracks_are_used_by_different_players(
    started, set_hand, route, map_id, n
):
    state = started(map_id, n)
    a, b, colour = (
        ("chicago", "pittsburgh", "orange") if map_id == "usa" else ("berlin", "frankfurt", "red")
    )
    first, twin = claim_first_track(state, route, set_hand, a, b, colour)
    nxt = state.current
    set_hand(state, nxt, {"black": 3})
    apply(state, nxt, Claim(route=twin, cards={"black": 3}))
    assert state.owner[state.board.route_index[twin]] == nxt != first
    assert public_view(state).closed == []


@pytest.mark.parametrize("n", [2, 4, 5])
def test_no_player_may_claim_both_tracks(started, set_hand, route, illegal, pass_turn, n):
    state = started("usa", n)
    seat, twin = claim_first_track(state, route, set_hand, "chicago", "pittsburgh", "orange")
    while state.current != seat:
        pass_turn(state)
    set_hand(state, seat, {"black": 3})
    illegal(
        state,
        seat,
        Claim(route=twin, cards={"black": 3}),
        "You already own the other track of Chicago–Pittsburgh; nobody may claim both.",
    )


# Ferries (Europe) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "pay"),
    [
        ("dieppe", "london", {"red": 1, "locomotive": 1}),  # 2, one symbol (double)
        ("amsterdam", "london", {"locomotive": 2}),  # 2, two symbols
        ("palermo", "smyrna", {"red": 4, "locomotive": 2}),  # 6, two symbols
        ("athina", "brindisi", {"yellow": 3, "locomotive": 1}),  # 4, one symbol
    ],
)
def test_ferry_needs_one_locomotive_per_symbol(started, set_hand, route, a, b, pay):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 6, "yellow": 6, "locomotive": 4})
    ids = [r.id for r in state.board.map.routes if {r.a, r.b} == {a, b}]
    apply(state, seat, Claim(route=ids[0], cards=pay))
    assert state.owner[state.board.route_index[ids[0]]] == seat


@pytest.mark.parametrize(
    "pay", [{"red": 3, "locomotive": 3}, {"red": 1, "locomotive": 5}, {"locomotive": 6}]
)
def test_extra_locomotives_may_stand_in_on_a_ferry(started, set_hand, route, pay):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 6, "locomotive": 6})
    r = route(state, "palermo", "smyrna")
    events = apply(state, seat, Claim(route=r, cards=pay))
    assert events[0].points == 15


@pytest.mark.parametrize(
    "pay",
    [
        {"red": 5, "locomotive": 1},  # one symbol unpaid
        {"red": 6},
        {"red": 3, "blue": 1, "locomotive": 2},  # two colours
        {"red": 4, "locomotive": 3},  # too many cards
    ],
)
def test_ferry_payment_without_enough_locomotives_is_refused(
    started, set_hand, route, illegal, pay
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 6, "blue": 2, "locomotive": 3})
    illegal(
        state,
        seat,
        Claim(route=route(state, "palermo", "smyrna"), cards=pay),
        "Palermo–Smyrna is a ferry: it needs 2 locomotives",
    )


def test_ferry_refusal_when_the_hand_lacks_locomotives(started, set_hand, route, illegal):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 6, "locomotive": 1})
    illegal(
        state,
        seat,
        Claim(route=route(state, "palermo", "smyrna"), cards={"red": 5, "locomotive": 1}),
        "is a ferry: it needs 2 locomotives",
        "1 locomotive",
    )


def test_europe_scores_an_eight_route_21(started, set_hand, set_deck_top, route):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 8})
    set_deck_top(state, ["blue", "blue", "blue"])  # the tunnel asks nothing more
    events = apply(
        state, seat, Claim(route=route(state, "petrograd", "stockholm"), cards={"red": 8})
    )
    claimed = [e for e in events if type(e).__name__ == "RouteClaimed"]
    assert claimed[0].points == 21
    assert state.hands[seat][LOCO] == 0
