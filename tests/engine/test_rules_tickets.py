"""RULES.md §1 Turn 3 (draw destination tickets), §2/§3: draw 3, keep at least 1, bottom."""

from __future__ import annotations

import random

import pytest

from engine import (
    DrawBlind,
    DrawTickets,
    GameConfig,
    GameState,
    KeepTickets,
    Position,
    apply,
    new_game,
    position_of,
    private_view,
    setup_position,
)
from engine.graph import components
from engine.modules import playable_maps
from engine.scoring import _network, ticket_points


def ids(state, tickets):
    return [state.board.t_ids[t] for t in tickets]


@pytest.mark.parametrize("map_id", ["usa", "europe"])
def test_draw_three_tickets_from_the_top(started, kinds, map_id):
    state = started(map_id, 2)
    seat = state.current
    top3 = state.ticket_deck[-3:][::-1]  # the top is the end of the list
    events = apply(state, seat, DrawTickets())
    assert kinds(events) == ["TicketsDrawn"]
    assert events[0].count == 3
    assert state.offered[seat] == top3
    assert state.keep_min[seat] == 1
    assert state.phase == "choose_tickets" and state.current == seat
    assert [t.id for t in private_view(state, seat).offered] == ids(state, top3)


def test_keep_one_returns_the_others_to_the_bottom_in_order(started, kinds):
    state = started("usa", 2)
    seat = state.current
    held = list(state.tickets[seat])
    apply(state, seat, DrawTickets())
    first, second, third = state.offered[seat]
    rest = list(state.ticket_deck)
    events = apply(state, seat, KeepTickets(tickets=ids(state, [first])))
    assert kinds(events) == ["TicketsKept", "TurnStarted"]
    assert (events[0].kept, events[0].returned) == (1, 2)
    assert state.tickets[seat] == [*held, first]
    # Returned under the deck as a pile in drawn order: `second` will come up before `third`.
    assert state.ticket_deck == [third, second, *rest]
    assert state.offered[seat] == [] and state.current == 1 - seat


def test_keeping_all_three_is_allowed(started):
    state = started("usa", 2)
    seat = state.current
    apply(state, seat, DrawTickets())
    offer = list(state.offered[seat])
    size = len(state.ticket_deck)
    apply(state, seat, KeepTickets(tickets=ids(state, offer)))
    assert state.tickets[seat][-3:] == offer
    assert len(state.ticket_deck) == size


def test_keeping_none_is_refused(started, illegal):
    state = started("usa", 2)
    seat = state.current
    apply(state, seat, DrawTickets())
    illegal(state, seat, KeepTickets(tickets=[]), "Keep at least 1 of your 3 tickets; you chose 0.")


def test_keeping_a_ticket_not_offered_is_refused(started, illegal):
    state = started("usa", 2)
    seat = state.current
    apply(state, seat, DrawTickets())
    illegal(
        state,
        seat,
        KeepTickets(tickets=[999]),
        "Ticket 999 is not one of the tickets offered to you.",
    )


def test_keeping_a_ticket_twice_is_refused(started, illegal):
    state = started("usa", 2)
    seat = state.current
    apply(state, seat, DrawTickets())
    t = state.offered[seat][0]
    illegal(
        state,
        seat,
        KeepTickets(tickets=ids(state, [t, t])),
        f"You chose ticket {state.board.ticket_name(t)} twice.",
    )


def test_fewer_tickets_are_drawn_when_fewer_remain(started):
    state = started("usa", 2)
    seat = state.current
    setup_position(state, Position(ticket_deck=position_of(state).ticket_deck[:2]))
    apply(state, seat, DrawTickets())
    assert len(state.offered[seat]) == 2
    assert state.keep_min[seat] == 1
    assert state.ticket_deck == []


def test_a_single_remaining_ticket_must_be_kept(started, illegal):
    state = started("usa", 2)
    seat = state.current
    setup_position(state, Position(ticket_deck=position_of(state).ticket_deck[:1]))
    apply(state, seat, DrawTickets())
    illegal(state, seat, KeepTickets(tickets=[]), "Keep at least 1 of your 1 tickets")


def test_drawing_from_an_empty_ticket_deck_is_refused(started, illegal):
    state = started("usa", 2)
    setup_position(state, Position(ticket_deck=[]))
    illegal(state, state.current, DrawTickets(), "There are no destination tickets left to draw.")


def test_nothing_else_until_the_drawn_tickets_are_chosen(started, illegal):
    state = started("usa", 2)
    seat = state.current
    apply(state, seat, DrawTickets())
    illegal(
        state,
        seat,
        DrawBlind(),
        "Choose which of your new destination tickets to keep first.",
    )


def test_keep_tickets_without_a_draw_is_refused(started, illegal):
    state = started("usa", 2)
    illegal(
        state,
        state.current,
        KeepTickets(tickets=[1]),
        "You cannot do that now: choose an action for your turn.",
    )


def test_tickets_are_only_drawn_as_a_whole_turn(started, set_deck_top, illegal):
    state = started("usa", 2)
    seat = state.current
    set_deck_top(state, ["red"])
    apply(state, seat, DrawBlind())
    illegal(state, seat, DrawTickets(), "Finish your draw first")


def reference_pair_points(state: GameState, seat: int) -> dict[int, int]:
    """Each two-city ticket by every graph node of its cities (a city may have several)
    and the network's components; tour tickets left out (they are scored by a search)."""
    board = state.board
    label = components(board.n_nodes, _network(state, seat))
    out = {}
    for t in state.tickets[seat]:
        ticket = board.map.tickets[t]
        if len(ticket.cities) == 2:
            a, b = ({label[n] for n in board.city_nodes[board.city_index[c]]}
                    for c in ticket.cities)
            out[t] = ticket.points if a & b else -ticket.fail_points
    return out


@pytest.mark.parametrize("map_id", playable_maps())
def test_ticket_points_match_the_plain_reckoning_on_random_ends(map_id):
    """Two-city tickets are scored by their nodes' roots alone: the same points as the
    general reckoning on random end positions (sparse to dense networks, every ticket)."""
    state = new_game(GameConfig(map_id=map_id, players=["A", "B", "C"], seed=3))
    board = state.board
    rng = random.Random(map_id)
    every = range(len(board.t_ids))
    for i in range(60):
        owned = (0.2, 0.5, 0.9)[i % 3]
        state.owner = [rng.randrange(3) if rng.random() < owned else -1 for _ in board.r_len]
        if board.rules.stations:
            cities = rng.sample(range(len(board.city_ids)), 9)
            state.stations = {c: k % 3 for k, c in enumerate(cities)}
        state.tickets = [rng.sample(every, min(len(every), 15)) for _ in range(3)]
        for seat in range(3):
            expected = reference_pair_points(state, seat)
            points = ticket_points(state, seat)
            assert {t: points[t] for t in expected} == expected
