"""Standing orders (``engine.orders``): on random positions of every map each kind of order
plays a whole legal turn, or is dropped with the reason, from the seat's own views."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine import (
    Action,
    Claim,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameConfig,
    GameState,
    KeepTickets,
    Position,
    apply,
    legal_actions,
    new_game,
    plan_tickets,
    private_view,
    public_view,
    setup_position,
    waiting_for,
)
from engine.agents import random_action
from engine.orders import (
    ORDER_ADAPTER,
    ClaimOrder,
    DrawOrder,
    Dropped,
    Order,
    TicketsOrder,
    decide,
    keep_cheapest,
)

MAPS = ("usa", "europe", "nordic", "pennsylvania", "iberia", "world")


def decide_now(state: GameState, order: Order) -> Action | Dropped | None:
    seat = state.current
    assert seat is not None
    return decide(order, state.board, public_view(state), private_view(state, seat),
                  legal_actions(state, seat))


def play_order(state: GameState, order: Order) -> list[Action] | Dropped:
    """Play ``order`` for the current seat, step by step, until its turn is over or the
    order has nothing to say (a map's own decision): the actions played, or the drop."""
    seat, turn = state.current, state.turn
    played: list[Action] = []
    while state.phase != "game_over" and state.current == seat and state.turn == turn:
        if seat not in waiting_for(state):
            break
        chosen = decide_now(state, order)
        if isinstance(chosen, Dropped):
            assert not played or state.phase != "turn"
            return chosen
        if chosen is None:
            break
        assert chosen in legal_actions(state, seat)
        apply(state, seat, chosen)  # raises if it were illegal
        played.append(chosen)
    return played


def random_turn(map_id: str, seed: int) -> GameState:
    """A game some random turns in (its setup too), at the start of someone's turn."""
    rng = random.Random(seed)
    rules = new_game(GameConfig(map_id=map_id, players=["a", "b"], seed=1)).board.rules
    players = rng.randint(rules.players_min, min(rules.players_max, 4))
    state = new_game(GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)],
                                seed=seed))
    for _ in range(rng.randint(10, 80)):
        if state.phase == "game_over":
            break
        seat = waiting_for(state)[0]
        apply(state, seat, random_action(state, seat, rng))
    for _ in range(40):  # on to the start of a turn
        if state.phase in ("turn", "game_over"):
            break
        seat = waiting_for(state)[0]
        apply(state, seat, random_action(state, seat, rng))
    return state


def copy(state: GameState) -> GameState:
    return GameState.from_snapshot(state.to_snapshot())


@pytest.mark.parametrize("map_id", MAPS)
@pytest.mark.parametrize("seed", range(6))
def test_every_order_plays_a_legal_turn_or_is_dropped(map_id: str, seed: int) -> None:
    state = random_turn(map_id, seed)
    assert state.phase == "turn"  # (these seeds end no game)
    seat = state.current
    assert seat is not None
    legal = legal_actions(state, seat)
    view = public_view(state)

    # Drawing two: both cards from the deck (or what may be drawn), the turn ends.
    draws = play_order(copy(state), DrawOrder())
    if any(isinstance(a, (DrawBlind, DrawFaceUp)) for a in legal):
        assert isinstance(draws, list) and draws
        assert all(isinstance(a, (DrawBlind, DrawFaceUp)) for a in draws)
    else:
        assert isinstance(draws, Dropped)

    # A face-up colour that lies out is taken first.
    shown = [a for a in legal if isinstance(a, DrawFaceUp)]
    if shown:
        colour = view.market[shown[0].slot]
        assert colour is not None
        first = decide_now(state, DrawOrder(colour=colour))
        assert isinstance(first, DrawFaceUp) and view.market[first.slot] == colour

    # A route the seat can pay for: claimed in the colour asked, the turn played out.
    claims = [a for a in legal if isinstance(a, Claim)]
    if claims:
        claim = random.Random(seed).choice(claims)
        suits = [c.split("_")[0] for c in claim.cards if c != "locomotive"]
        colour = suits[0] if suits else "locomotive"
        order = ClaimOrder(route=claim.route, colour=colour)
        played = play_order(copy(state), order)
        assert isinstance(played, list) and played
        first = played[0]
        assert isinstance(first, Claim) and first.route == claim.route
        assert colour in (c.split("_")[0] for c in first.cards)

    # A claimed route: dropped with the reason, or two cards instead if the order says so.
    taken = next(iter(view.claimed), None)
    if taken is not None:
        dropped = decide_now(state, ClaimOrder(route=taken))
        assert isinstance(dropped, Dropped)
        assert "claimed already" in str(dropped.reason)
        instead = play_order(copy(state), ClaimOrder(route=taken, otherwise="draw"))
        if isinstance(instead, list):
            assert all(isinstance(a, (DrawBlind, DrawFaceUp)) for a in instead)
        else:
            assert "No card can be drawn instead" in str(instead.reason)

    # Tickets: drawn, then the cheapest kept (as few as allowed).
    tickets = play_order(copy(state), TicketsOrder())
    if DrawTickets() in legal:
        assert isinstance(tickets, list) and tickets[0] == DrawTickets()
        if len(tickets) > 1:
            assert isinstance(tickets[1], KeepTickets)
    else:
        assert isinstance(tickets, Dropped)


def test_a_claim_in_a_colour_the_hand_cannot_pay_is_dropped(
        started: Callable[..., GameState], set_hand: Callable[..., None],
        route: Callable[..., int]) -> None:
    state = started("usa", 2, 3)
    seat = state.current
    set_hand(state, seat, {"purple": 4})
    denver_omaha = route(state, "denver", "omaha")  # purple, 4
    assert isinstance(decide_now(state, ClaimOrder(route=denver_omaha, colour="purple")), Claim)
    dropped = decide_now(state, ClaimOrder(route=denver_omaha, colour="blue"))
    assert isinstance(dropped, Dropped)
    assert str(dropped.reason) == "You cannot pay for Denver–Omaha with blue now."
    instead = decide_now(state, ClaimOrder(route=denver_omaha, colour="blue", otherwise="draw"))
    assert isinstance(instead, DrawBlind)


def test_keep_cheapest_keeps_a_done_ticket_first(started: Callable[..., GameState]) -> None:
    state = started("usa", 2, 5)
    seat = state.current
    board = state.board
    apply(state, seat, DrawTickets())
    private = private_view(state, seat)
    kept = keep_cheapest(board, public_view(state), private)
    assert len(kept.tickets) == private.keep_min
    # Give the seat the whole way of one offered ticket: that one is done, kept first.
    target = private.offered[-1]
    plan = plan_tickets(board, public_view(state),
                        private.model_copy(update={"tickets": [target]}))[0]
    if plan.routes:
        setup_position(state, Position(owners=dict.fromkeys(plan.routes, seat)))
    kept = keep_cheapest(board, public_view(state), private_view(state, seat))
    assert kept.tickets == [target.id]


def test_orders_round_trip_as_json() -> None:
    for order in (ClaimOrder(route=3, colour="red", otherwise="draw"), DrawOrder(),
                  DrawOrder(colour="locomotive"), TicketsOrder()):
        assert ORDER_ADAPTER.validate_json(ORDER_ADAPTER.dump_json(order)) == order
