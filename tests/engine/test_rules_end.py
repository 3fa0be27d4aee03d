"""RULES.md §1 Game end, Final scoring, Longest path, the stall ruling; §2/§3 tie-breakers."""

from __future__ import annotations

import pytest

from engine import (
    Claim,
    DrawBlind,
    DrawTickets,
    KeepTickets,
    Position,
    apply,
    legal_actions,
    position_of,
    public_view,
    setup_position,
)
from engine import waiting_for as waiting
from engine.scoring import final_scores

# End trigger --------------------------------------------------------------------------------


def trigger(state, set_hand, route, trains_before):
    """The current player claims Atlanta–Charleston (gray 2) holding ``trains_before``."""
    seat = state.current
    setup_position(state, Position(trains={seat: trains_before}))
    set_hand(state, seat, {"red": 2})
    events = apply(
        state, seat, Claim(route=route(state, "atlanta", "charleston"), cards={"red": 2})
    )
    return seat, events


def play_out(state, pass_turn):
    """Play plain turns until the game ends; the seats that played, in order."""
    seats = []
    while state.phase != "game_over":
        seats.append(pass_turn(state))
        assert len(seats) < 20, "the game did not end"
    return seats


@pytest.mark.parametrize("left", [0, 1, 2])
def test_ending_a_turn_with_two_or_fewer_trains_starts_the_last_round(
    started, set_hand, route, kinds, left
):
    state = started("usa", 3)
    seat, events = trigger(state, set_hand, route, left + 2)
    assert state.trains[seat] == left
    assert kinds(events) == ["RouteClaimed", "LastRound", "TurnStarted"]
    assert events[1].seat == seat and events[1].turns_left == 3
    assert public_view(state).last_round is True


def test_three_trains_left_does_not_end_the_game(started, set_hand, route, kinds):
    state = started("usa", 3)
    _, events = trigger(state, set_hand, route, 5)
    assert "LastRound" not in kinds(events)
    assert public_view(state).last_round is False


@pytest.mark.parametrize("n", [2, 3, 5])
def test_every_player_including_the_trigger_gets_exactly_one_more_turn(
    started, set_hand, route, pass_turn, n
):
    state = started("usa", n)
    seat, _ = trigger(state, set_hand, route, 3)
    assert play_out(state, pass_turn) == [(seat + k) % n for k in range(1, n + 1)]
    assert state.reason == "trains"


def test_more_players_low_on_trains_do_not_extend_the_last_round(
    started, set_hand, route, pass_turn
):
    state = started("usa", 3)
    trigger(state, set_hand, route, 3)
    setup_position(state, Position(trains={0: 1, 1: 1, 2: 1}))
    assert len(play_out(state, pass_turn)) == 3


def test_the_game_ends_after_the_trigger_players_last_turn(
    started, set_hand, route, pass_turn, kinds
):
    state = started("usa", 2)
    seat, _ = trigger(state, set_hand, route, 4)
    pass_turn(state)  # the other player's last turn
    apply(state, seat, DrawBlind())
    events = apply(state, seat, DrawBlind())
    assert kinds(events) == ["CardDrawn", "GameEnded"]
    assert events[-1].reason == "trains"
    assert list(events[-1].winners) == final_scores(state).winners
    assert state.phase == "game_over"
    assert public_view(state).final is not None


def test_no_action_after_the_game_is_over(started, set_hand, route, pass_turn, illegal):
    state = started("usa", 2)
    trigger(state, set_hand, route, 4)
    play_out(state, pass_turn)
    for seat in (0, 1):
        illegal(state, seat, DrawBlind(), "The game is over.")
        illegal(state, seat, KeepTickets(tickets=[]), "The game is over.")
        assert legal_actions(state, seat) == []
    assert waiting(state) == []


# The stall ruling ---------------------------------------------------------------------------


def dry(state, set_market):
    """No train cards to draw anywhere and nobody holds a card."""
    set_market(state, [None] * 5)
    hands: dict[int, dict[str, int]] = {seat: {} for seat in range(state.n_players)}
    setup_position(state, Position(deck=[], discards=[], hands=hands))


def one_ticket_left(state):
    """Only the top ticket stays in the ticket deck."""
    setup_position(state, Position(ticket_deck=position_of(state).ticket_deck[:1]))


def test_a_player_without_any_legal_action_is_skipped(started, set_market, set_hand, kinds):
    state = started("usa", 2)
    seat = state.current
    dry(state, set_market)
    one_ticket_left(state)
    set_hand(state, seat, {"red": 1})  # can still claim a gray route of length 1 next turn
    apply(state, seat, DrawTickets())
    events = apply(state, seat, KeepTickets(tickets=[state.board.t_ids[state.offered[seat][0]]]))
    assert kinds(events) == ["TicketsKept", "TurnStarted", "TurnSkipped", "TurnStarted"]
    assert events[2].seat == 1 - seat
    assert state.current == seat and state.phase == "turn"


def test_a_full_round_without_legal_action_ends_the_game_stalled(started, set_market, kinds):
    state = started("usa", 2)
    seat = state.current
    dry(state, set_market)
    one_ticket_left(state)
    apply(state, seat, DrawTickets())
    events = apply(state, seat, KeepTickets(tickets=[state.board.t_ids[state.offered[seat][0]]]))
    assert kinds(events) == [
        "TicketsKept",
        "TurnStarted",
        "TurnSkipped",  # the other player
        "TurnStarted",
        "TurnSkipped",  # this player: a full round without an action
        "GameEnded",
    ]
    assert events[-1].reason == "stalled"
    assert state.phase == "game_over" and state.reason == "stalled"
    assert final_scores(state).reason == "stalled"


# Final scoring ------------------------------------------------------------------------------


def usa_end(started, own, ticket, routes0=(), routes1=(), tickets0=(), tickets1=()):
    state = started("usa", 2)
    own(state, 0, *routes0)
    own(state, 1, *routes1)
    ids = state.board.t_ids
    held = {
        0: [ids[ticket(state, *t)] for t in tickets0],
        1: [ids[ticket(state, *t)] for t in tickets1],
    }
    setup_position(state, Position(tickets=held))
    return state


def test_route_points_are_recounted_from_the_claimed_routes(started, own, ticket):
    state = usa_end(started, own, ticket, routes0=[("calgary", "helena"), ("atlanta", "miami")])
    setup_position(state, Position(scores={0: 999, 1: 999}))  # the running score is not trusted
    row = final_scores(state).players[0]
    assert row.routes == 7 + 10


def test_completed_tickets_add_and_failed_tickets_subtract(started, own, ticket):
    state = usa_end(
        started,
        own,
        ticket,
        routes0=[("el_paso", "santa_fe"), ("denver", "santa_fe")],
        tickets0=[("denver", "el_paso"), ("boston", "miami")],
    )
    row = final_scores(state).players[0]
    assert {tuple(t.cities): t.points for t in row.tickets} == {
        ("denver", "el_paso"): 4,
        ("boston", "miami"): -12,
    }
    assert row.tickets_completed == 1
    assert row.total == 4 + 4 - 12 + 10  # routes, tickets, longest path


def test_longest_path_bonus_goes_to_the_longest(started, own, ticket):
    state = usa_end(
        started,
        own,
        ticket,
        routes0=[("el_paso", "santa_fe"), ("denver", "santa_fe")],
        routes1=[("atlanta", "miami")],
    )
    p0, p1 = final_scores(state).players
    assert (p0.longest_path, p1.longest_path) == (4, 5)
    assert (p0.longest_path_bonus, p1.longest_path_bonus) == (0, 10)


def test_longest_path_ties_all_get_the_bonus(started, own, ticket):
    state = usa_end(
        started, own, ticket, routes0=[("calgary", "helena")], routes1=[("denver", "helena")]
    )
    p0, p1 = final_scores(state).players
    assert p0.longest_path == p1.longest_path == 4
    assert p0.longest_path_bonus == p1.longest_path_bonus == 10


def test_longest_path_may_revisit_a_city_but_not_a_route(started, own, ticket):
    # El Paso–Houston (6), then the loop Houston–Dallas–Little Rock–New Orleans–Houston
    # (1 + 2 + 3 + 2): 14, passing Houston twice.
    state = usa_end(
        started,
        own,
        ticket,
        routes0=[
            ("dallas", "little_rock"),
            ("little_rock", "new_orleans"),
            ("houston", "new_orleans"),
            ("el_paso", "houston"),
        ],
    )
    state.owner[state.board.route_index[26]] = 0  # route 26: one gray track of Dallas–Houston
    assert final_scores(state).players[0].longest_path == 14


def test_breakdown_sums_to_the_total(started, own, ticket):
    state = usa_end(
        started,
        own,
        ticket,
        routes0=[("el_paso", "santa_fe"), ("denver", "santa_fe"), ("calgary", "helena")],
        routes1=[("atlanta", "miami"), ("miami", "new_orleans")],
        tickets0=[("denver", "el_paso"), ("boston", "miami")],
        tickets1=[("los_angeles", "miami")],
    )
    for row in final_scores(state).players:
        parts = (
            row.routes
            + sum(t.points for t in row.tickets)
            + row.longest_path_bonus
            + row.most_tickets_bonus
            + row.unused_stations_bonus
        )
        assert parts == row.total
    assert [p.total for p in final_scores(state).players] == [4 + 7 + 4 - 12, 10 + 15 - 20 + 10]


# Tie-breakers -------------------------------------------------------------------------------


def test_usa_tie_goes_to_most_completed_tickets(started, own, ticket):
    state = usa_end(
        started,
        own,
        ticket,
        routes0=[("el_paso", "santa_fe"), ("denver", "santa_fe")],  # 4 points, path 4
        routes1=[("calgary", "helena"), ("atlanta", "nashville")],  # 8 points, path 4
        tickets0=[("denver", "el_paso")],
    )
    final = final_scores(state)
    assert [p.total for p in final.players] == [18, 18]
    assert final.winners == [0]
    assert [p.rank for p in final.players] == [1, 2]


def test_usa_then_longest_path(started, own, ticket):
    state = usa_end(
        started,
        own,
        ticket,
        routes0=[("montreal", "toronto"), ("montreal", "new_york")],  # 8 points, path 6
        routes1=[  # three separate routes: 7 + 7 + 4 = 18 points, path 4
            ("calgary", "helena"),
            ("atlanta", "new_orleans", "yellow"),
            ("little_rock", "nashville"),
        ],
    )
    final = final_scores(state)
    p0, p1 = final.players
    assert p0.total == p1.total == 18
    assert p0.tickets_completed == p1.tickets_completed == 0
    assert (p0.longest_path, p1.longest_path) == (6, 4)
    assert final.winners == [0]


def test_full_tie_shares_the_win(started, own, ticket):
    state = usa_end(
        started, own, ticket, routes0=[("calgary", "helena")], routes1=[("denver", "helena")]
    )
    final = final_scores(state)
    assert final.winners == [0, 1]
    assert [p.rank for p in final.players] == [1, 1]


def europe_end(started, own, routes0, routes1, stations0=(), stations1=()):
    state = started("europe", 2)
    own(state, 0, *routes0)
    own(state, 1, *routes1)
    stations = {city: seat for seat, cities in ((0, stations0), (1, stations1)) for city in cities}
    setup_position(state, Position(tickets={0: [], 1: []}, stations=stations))
    return state


def test_europe_tie_fewest_stations_before_the_european_express(started, own):
    state = europe_end(
        started,
        own,
        # 3 + 2 chain and a separate 2: 8 points, path 5, one station used
        routes0=[("cadiz", "madrid"), ("barcelona", "madrid"), ("brest", "dieppe")],
        # two separate 4s: 14 points, path 4, no station used
        routes1=[("edinburgh", "london", "black"), ("warszawa", "wien")],
        stations0=["roma"],
    )
    final = final_scores(state)
    p0, p1 = final.players
    assert (p0.longest_path_bonus, p1.longest_path_bonus) == (10, 0)
    assert p0.total == p1.total == 26
    assert final.winners == [1]


def test_europe_tie_then_the_european_express(started, own):
    state = europe_end(
        started,
        own,
        routes0=[("cadiz", "madrid"), ("barcelona", "madrid"), ("brest", "dieppe")],
        routes1=[("edinburgh", "london", "black"), ("warszawa", "wien")],
        stations0=["roma"],
        stations1=["paris"],
    )
    # both used one station: 8 + 8 + 10 = 26 against 14 + 8 = 22; add 4 route points to seat 1
    own(state, 1, ("amsterdam", "essen"))  # 3 -> 4 points, separate
    final = final_scores(state)
    p0, p1 = final.players
    assert p0.total == p1.total == 26
    assert p0.stations_used == p1.stations_used == 1
    assert final.winners == [0]


def test_europe_tie_most_tickets_before_fewest_stations(started, own, hold):
    state = europe_end(
        started,
        own,
        # 4 + 2 points, path 5, Budapest–Sofia completed (+5), two stations used (+4)
        routes0=[("budapest", "sarajevo"), ("sarajevo", "sofia")],
        # three separate routes: 7 + 4 + 2 points, path 4, no station used (+12)
        routes1=[("edinburgh", "london", "black"), ("amsterdam", "essen"), ("cadiz", "lisboa")],
        stations0=["roma", "paris"],
    )
    hold(state, 0, ("budapest", "sofia"))
    final = final_scores(state)
    p0, p1 = final.players
    assert p0.total == p1.total == 25
    assert (p0.tickets_completed, p1.tickets_completed) == (1, 0)
    assert (p0.stations_used, p1.stations_used) == (2, 0)
    assert final.winners == [0]
