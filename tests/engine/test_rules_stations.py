"""RULES.md §3 Europe stations: costs, one per city, borrowed routes at the end, +4 unbuilt."""

from __future__ import annotations

import random

import pytest

from engine import BuildStation, Position, apply, payment, setup_position
from engine.actions import stations_of
from engine.cards import CARD_NAMES, N_CARDS
from engine.modules.stations import Stations, station_cost
from engine.scoring import final_scores


def test_first_station_costs_one_card(started, set_hand, cards, kinds):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 2})
    discards = len(state.discards)
    events = apply(state, seat, BuildStation(city="paris", cards={"red": 1}))
    assert kinds(events) == ["StationBuilt", "TurnStarted"]
    assert events[0].city == "paris" and events[0].cards == {"red": 1}
    assert state.stations[state.board.city_index["paris"]] == seat
    assert state.stations_left[seat] == 2
    assert state.hands[seat][cards("red")] == 1
    assert state.discards[discards:] == [cards("red")]
    assert state.current == 1 - seat


def build_in_turn(state, seat, city, pay, pass_turn):
    while state.current != seat:
        pass_turn(state)
    return apply(state, seat, BuildStation(city=city, cards=pay))


@pytest.mark.parametrize(
    ("nth", "pay"),
    [
        (2, {"blue": 2}),
        (2, {"blue": 1, "locomotive": 1}),
        (2, {"locomotive": 2}),
        (3, {"blue": 3}),
        (3, {"blue": 1, "locomotive": 2}),
        (3, {"locomotive": 3}),
    ],
)
def test_later_stations_cost_two_then_three_of_one_colour(started, set_hand, pass_turn, nth, pay):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 3, "blue": 3, "locomotive": 3})
    build_in_turn(state, seat, "paris", {"red": 1}, pass_turn)
    if nth == 3:
        build_in_turn(state, seat, "wien", {"red": 2}, pass_turn)
    build_in_turn(state, seat, "roma", pay, pass_turn)
    assert state.stations_left[seat] == 3 - nth


@pytest.mark.parametrize(
    ("built", "pay", "message"),
    [
        (0, {"red": 2}, "Your first station costs 1 card of one colour"),
        (1, {"red": 1}, "Your second station costs 2 cards of one colour"),
        (1, {"red": 1, "blue": 1}, "Your second station costs 2 cards of one colour"),
        (2, {"red": 2, "blue": 1}, "Your third station costs 3 cards of one colour"),
    ],
)
def test_wrong_station_payment_is_refused(
    started, set_hand, pass_turn, illegal, built, pay, message
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 9, "blue": 3})
    for city in ["paris", "wien"][:built]:
        build_in_turn(state, seat, city, {"red": 1 + (city == "wien")}, pass_turn)
    while state.current != seat:
        pass_turn(state)
    illegal(state, seat, BuildStation(city="roma", cards=pay), message)


def test_station_cards_must_be_held(started, set_hand, illegal):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 1})
    illegal(
        state,
        seat,
        BuildStation(city="roma", cards={"blue": 1}),
        "You do not hold those cards: you are missing 1 blue.",
    )


def test_no_fourth_station(started, set_hand, pass_turn, illegal):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 9})
    for city, n in [("paris", 1), ("wien", 2), ("roma", 3)]:
        build_in_turn(state, seat, city, {"red": n}, pass_turn)
    while state.current != seat:
        pass_turn(state)
    illegal(
        state,
        seat,
        BuildStation(city="berlin", cards={"red": 3}),
        "You have built all 3 of your stations.",
    )


def test_one_station_per_city_for_all_players(started, set_hand, illegal):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 1})
    set_hand(state, 1 - seat, {"red": 1})
    apply(state, seat, BuildStation(city="paris", cards={"red": 1}))
    illegal(
        state,
        1 - seat,
        BuildStation(city="paris", cards={"red": 1}),
        f"Paris already has a station ({state.config.players[seat]}'s).",
    )


def test_station_in_a_city_no_route_touches_yet(started, set_hand):
    state = started("europe", 2)
    seat = state.current
    city = state.board.city_index["edinburgh"]
    assert all(state.owner[r] == -1 for r in state.board.routes_at[city])
    set_hand(state, seat, {"green": 1})
    apply(state, seat, BuildStation(city="edinburgh", cards={"green": 1}))
    assert state.stations[city] == seat


def test_station_in_an_unknown_city_is_refused(started, set_hand, illegal):
    state = started("europe", 2)
    set_hand(state, state.current, {"red": 1})
    illegal(
        state,
        state.current,
        BuildStation(city="atlantis", cards={"red": 1}),
        "There is no city 'atlantis' on this map.",
    )


def test_usa_has_no_stations(started, set_hand, illegal):
    state = started("usa", 2)
    set_hand(state, state.current, {"red": 1})
    illegal(
        state,
        state.current,
        BuildStation(city="denver", cards={"red": 1}),
        "This map has no action 'build_station'.",
    )


# End of game -------------------------------------------------------------------------------


def europe_end(started, ticket, own, stations, tickets, mine, theirs):
    """Seat 0: ``mine`` routes, ``stations`` cities, ``tickets``; seat 1 owns ``theirs``."""
    state = started("europe", 2)
    held = [state.board.t_ids[ticket(state, a, b)] for a, b in tickets]
    setup_position(state, Position(tickets={0: held, 1: []}))
    own(state, 0, *mine)
    own(state, 1, *theirs)
    setup_position(state, Position(stations=dict.fromkeys(stations, 0)))
    state.stations_left = [3 - len(stations), 3]
    return state


def ticket_points(row):
    return {tuple(t.cities): t.points for t in row.tickets}


def test_station_borrows_the_most_valuable_route(started, ticket, own):
    state = europe_end(
        started,
        ticket,
        own,
        stations=["munchen"],
        tickets=[("paris", "wien"), ("paris", "zagrab")],
        mine=[("paris", "zurich"), ("munchen", "zurich"), ("venezia", "zagrab")],
        theirs=[("munchen", "wien"), ("munchen", "venezia")],
    )
    row = final_scores(state).players[0]
    assert ticket_points(row) == {("paris", "wien"): 8, ("paris", "zagrab"): -7}


def test_station_borrows_only_one_route(started, ticket, own):
    # Zürich–Budapest needs both München–Wien and Wien–Budapest through the Wien station.
    state = europe_end(
        started,
        ticket,
        own,
        stations=["wien"],
        tickets=[("zurich", "budapest")],
        mine=[("munchen", "zurich")],
        theirs=[("munchen", "wien"), ("budapest", "wien", "red")],
    )
    assert ticket_points(final_scores(state).players[0]) == {("zurich", "budapest"): -6}


def test_station_borrows_only_claimed_routes_of_other_players(started, ticket, own):
    state = europe_end(
        started,
        ticket,
        own,
        stations=["munchen"],
        tickets=[("paris", "wien")],
        mine=[("paris", "zurich"), ("munchen", "zurich")],
        theirs=[],
    )
    assert ticket_points(final_scores(state).players[0]) == {("paris", "wien"): -8}


def test_borrowed_routes_are_chosen_jointly_over_all_stations(started, ticket, own):
    # Alone, the München station would take München–Zürich (completing Paris–Wien), but
    # the Zürich station can take only that route; the best pair is München–Venezia for
    # München and München–Zürich for Zürich, completing both tickets.
    state = europe_end(
        started,
        ticket,
        own,
        stations=["munchen", "zurich"],
        tickets=[("paris", "zagrab"), ("paris", "wien")],
        mine=[("paris", "zurich"), ("venezia", "zagrab"), ("munchen", "wien")],
        theirs=[("munchen", "zurich"), ("munchen", "venezia")],
    )
    row = final_scores(state).players[0]
    assert ticket_points(row) == {("paris", "zagrab"): 7, ("paris", "wien"): 8}
    assert row.tickets_completed == 2


def test_borrowed_routes_never_count_for_the_longest_path(started, ticket, own):
    state = europe_end(
        started,
        ticket,
        own,
        stations=["munchen"],
        tickets=[("paris", "wien")],
        mine=[("paris", "zurich"), ("munchen", "zurich")],
        theirs=[("munchen", "wien")],
    )
    final = final_scores(state)
    assert ticket_points(final.players[0]) == {("paris", "wien"): 8}
    assert final.players[0].longest_path == 5  # 3 + 2, not 8 through München–Wien
    assert final.players[1].longest_path == 3


@pytest.mark.parametrize("built", [0, 1, 2, 3])
def test_each_unbuilt_station_scores_four(started, ticket, own, built):
    cities = ["paris", "wien", "roma"][:built]
    state = europe_end(started, ticket, own, cities, tickets=[], mine=[], theirs=[])
    row = final_scores(state).players[0]
    assert row.unused_stations_bonus == 4 * (3 - built)
    assert row.stations_used == built
    assert row.total == 4 * (3 - built)


def test_station_options_match_a_fresh_listing_for_any_hand(started, set_hand):
    """``Stations.turn_actions`` keeps its options per hand clipped to the station's cost
    and per cities built: hands alike up to the cost (also with more of a card than a
    byte holds) must share them, hands or cities unlike must not (each answer against one
    worked out afresh)."""
    state = started("europe", 2)
    rng = random.Random(5)
    module = Stations()
    cities = range(len(state.board.city_ids))
    for i in range(900):
        state.stations_left[0] = 3 - i % 3  # costs 1, 2, 3
        counts = [rng.choice((0, 0, 1, 2, 3, 4, 70, 300)) for _ in range(N_CARDS)]
        set_hand(state, 0, {CARD_NAMES[c]: n for c, n in enumerate(counts)})
        state.stations = {c: rng.randrange(2) for c in rng.sample(cities, rng.choice((0, 1, 3)))}
        hand, cost = state.hands[0], station_cost(state, 0)
        built = tuple(sorted(state.stations))
        fresh = tuple(a for p in payment.cheapest_stations(hand, cost)
                      for a in stations_of(state.board, built, p))
        assert tuple(module.turn_actions(state, 0)) == fresh
