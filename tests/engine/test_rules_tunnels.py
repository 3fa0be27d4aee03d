"""RULES.md §1 Tunnels (Europe): reveal 3, extra cards, pay or decline, colour played."""

from __future__ import annotations

import pytest

from engine import (
    Claim,
    DeclineTunnel,
    DrawBlind,
    PayTunnel,
    Position,
    apply,
    legal_actions,
    public_view,
    setup_position,
)
from engine.cards import LOCO

# München–Venezia: blue tunnel of length 2. Paris–Zürich: gray tunnel of length 3.
MV = ("munchen", "venezia")
PZ = ("paris", "zurich")


def revealed_event(events):
    return next(e for e in events if type(e).__name__ == "TunnelRevealed")


def test_tunnel_reveals_three_cards_and_asks_one_per_match(
    started, set_hand, set_deck_top, route, kinds
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"blue": 3, "locomotive": 1})
    set_deck_top(state, ["blue", "locomotive", "red"])
    r = route(state, *MV)
    events = apply(state, seat, Claim(route=r, cards={"blue": 2}))
    assert kinds(events) == ["TunnelRevealed"]
    ev = events[0]
    assert ev.revealed == ("blue", "locomotive", "red") and ev.extra == 2
    assert state.phase == "tunnel" and state.current == seat
    assert state.owner[state.board.route_index[r]] == -1
    view = public_view(state).tunnel
    assert view is not None and view.extra == 2 and view.color == "blue"


def test_paying_the_extra_claims_the_tunnel_and_discards_everything(
    started, set_hand, set_deck_top, route, cards, kinds
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"blue": 3, "locomotive": 1})
    set_deck_top(state, ["blue", "locomotive", "red"])
    r = route(state, *MV)
    discards = len(state.discards)
    apply(state, seat, Claim(route=r, cards={"blue": 2}))
    events = apply(state, seat, PayTunnel(cards={"blue": 1, "locomotive": 1}))
    assert kinds(events) == ["RouteClaimed", "TurnStarted"]
    assert events[0].cards == {"blue": 3, "locomotive": 1}
    assert events[0].points == 2
    assert state.owner[state.board.route_index[r]] == seat
    assert state.trains[seat] == 45 - 2  # extra cards, not extra trains
    assert sum(state.hands[seat]) == 0
    assert sorted(state.discards[discards:]) == sorted(
        [cards("blue")] * 3 + [LOCO] + [cards("blue"), LOCO, cards("red")]
    )
    assert state.current == 1 - seat and state.tunnel is None


def test_declining_returns_the_played_cards_and_ends_the_turn(
    started, set_hand, set_deck_top, route, cards, kinds
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"blue": 3})
    set_deck_top(state, ["blue", "green", "red"])
    r = route(state, *MV)
    discards = len(state.discards)
    apply(state, seat, Claim(route=r, cards={"blue": 2}))
    events = apply(state, seat, DeclineTunnel())
    assert kinds(events) == ["TunnelDeclined", "TurnStarted"]
    assert state.hands[seat][cards("blue")] == 3
    assert state.owner[state.board.route_index[r]] == -1
    assert state.trains[seat] == 45
    assert sorted(state.discards[discards:]) == sorted(
        [cards("blue"), cards("green"), cards("red")]
    )
    assert state.current == 1 - seat and state.phase == "turn"


def test_no_match_claims_the_tunnel_at_once(started, set_hand, set_deck_top, route, cards, kinds):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"blue": 2})
    set_deck_top(state, ["green", "red", "white"])
    r = route(state, *MV)
    discards = len(state.discards)
    events = apply(state, seat, Claim(route=r, cards={"blue": 2}))
    assert kinds(events) == ["TunnelRevealed", "RouteClaimed", "TurnStarted"]
    assert events[0].extra == 0
    assert state.owner[state.board.route_index[r]] == seat
    assert sorted(state.discards[discards:]) == sorted(
        [cards("blue")] * 2 + [cards("green"), cards("red"), cards("white")]
    )


def test_a_player_who_cannot_pay_still_gets_the_decision(
    started, set_hand, set_deck_top, route, cards, kinds, illegal
):
    """Skipping the decision would tell the table the hand cannot pay; only Decline is legal."""
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"blue": 2, "red": 5})
    set_deck_top(state, ["blue", "red", "red"])
    r = route(state, *MV)
    events = apply(state, seat, Claim(route=r, cards={"blue": 2}))
    assert kinds(events) == ["TunnelRevealed"]
    assert state.phase == "tunnel" and state.current == seat
    assert legal_actions(state, seat) == [DeclineTunnel()]
    illegal(state, seat, PayTunnel(), "1 more blue cards or locomotives")
    events = apply(state, seat, DeclineTunnel())
    assert kinds(events) == ["TunnelDeclined", "TurnStarted"]
    assert state.hands[seat][cards("blue")] == 2
    assert state.owner[state.board.route_index[r]] == -1
    assert state.current == 1 - seat


def test_only_locomotives_played_only_revealed_locomotives_count(
    started, set_hand, set_deck_top, route
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"locomotive": 3, "blue": 3})
    set_deck_top(state, ["blue", "blue", "locomotive"])
    events = apply(state, seat, Claim(route=route(state, *MV), cards={"locomotive": 2}))
    ev = revealed_event(events)
    assert ev.extra == 1
    assert public_view(state).tunnel.color == "locomotive"


def test_only_locomotives_played_extra_must_be_locomotives(
    started, set_hand, set_deck_top, route, illegal
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"locomotive": 3, "blue": 3})
    set_deck_top(state, ["blue", "blue", "locomotive"])
    r = route(state, *MV)
    apply(state, seat, Claim(route=r, cards={"locomotive": 2}))
    illegal(
        state, seat, PayTunnel(cards={"blue": 1}), "The tunnel needs exactly 1 more locomotives."
    )
    apply(state, seat, PayTunnel(cards={"locomotive": 1}))
    assert state.owner[state.board.route_index[r]] == seat


def test_only_locomotives_played_cannot_pay_with_colour_cards(
    started, set_hand, set_deck_top, route, cards, kinds
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"locomotive": 2, "blue": 3})
    set_deck_top(state, ["blue", "locomotive", "red"])
    events = apply(state, seat, Claim(route=route(state, *MV), cards={"locomotive": 2}))
    assert kinds(events) == ["TunnelRevealed"] and events[0].extra == 1
    assert legal_actions(state, seat) == [DeclineTunnel()]  # blue cards do not count
    events = apply(state, seat, DeclineTunnel())
    assert kinds(events) == ["TunnelDeclined", "TurnStarted"]
    assert state.hands[seat][LOCO] == 2 and state.hands[seat][cards("blue")] == 3


def test_gray_tunnel_is_in_the_colour_of_the_cards_played(started, set_hand, set_deck_top, route):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 3, "blue": 3, "locomotive": 2})
    set_deck_top(state, ["red", "blue", "locomotive"])
    events = apply(state, seat, Claim(route=route(state, *PZ), cards={"red": 2, "locomotive": 1}))
    assert revealed_event(events).extra == 2  # red and the locomotive; blue does not match
    assert public_view(state).tunnel.color == "red"


def test_extra_cards_must_be_the_colour_played_or_locomotives(
    started, set_hand, set_deck_top, route, illegal
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 3, "blue": 3, "locomotive": 2})
    set_deck_top(state, ["red", "blue", "locomotive"])
    r = route(state, *PZ)
    apply(state, seat, Claim(route=r, cards={"red": 2, "locomotive": 1}))
    need = "The tunnel needs exactly 2 more red cards or locomotives."
    illegal(state, seat, PayTunnel(cards={"blue": 2}), need)
    illegal(state, seat, PayTunnel(cards={"red": 1}), need)
    illegal(state, seat, PayTunnel(cards={"red": 3}), need)
    illegal(
        state,
        seat,
        PayTunnel(cards={"locomotive": 2}),
        "You do not hold those cards: you are missing 1 locomotive.",
    )
    apply(state, seat, PayTunnel(cards={"red": 1, "locomotive": 1}))
    assert state.owner[state.board.route_index[r]] == seat


def test_pay_without_naming_cards_spends_the_colour_first(
    started, set_hand, set_deck_top, route, cards
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 3, "locomotive": 3})
    set_deck_top(state, ["red", "locomotive", "green"])
    apply(state, seat, Claim(route=route(state, *PZ), cards={"red": 2, "locomotive": 1}))
    apply(state, seat, PayTunnel())
    assert state.hands[seat][cards("red")] == 0
    assert state.hands[seat][LOCO] == 1


def test_extra_cards_come_from_the_rest_of_the_hand(started, set_hand, set_deck_top, route, kinds):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"blue": 2})  # both spent on the claim itself
    set_deck_top(state, ["locomotive", "red", "red"])
    apply(state, seat, Claim(route=route(state, *MV), cards={"blue": 2}))
    # The two blue cards on the table cannot pay the extra card as well.
    assert legal_actions(state, seat) == [DeclineTunnel()]


def test_short_deck_reshuffles_the_discards_to_reveal_three(started, set_hand, route, cards, kinds):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 5})
    setup_position(state, Position(deck=["green"], discards=["red", "locomotive"]))
    events = apply(state, seat, Claim(route=route(state, *PZ), cards={"red": 3}))
    assert kinds(events)[:2] == ["DeckReshuffled", "TunnelRevealed"]
    ev = revealed_event(events)
    assert ev.revealed[0] == "green"
    assert sorted(ev.revealed[1:]) == ["locomotive", "red"]
    assert ev.extra == 2


def test_reveals_fewer_when_deck_and_discards_cannot_supply_three(started, set_hand, route, cards):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 5})
    setup_position(state, Position(deck=["red"], discards=[]))
    events = apply(state, seat, Claim(route=route(state, *PZ), cards={"red": 3}))
    ev = revealed_event(events)
    assert ev.revealed == ("red",) and ev.extra == 1


def test_reveals_nothing_when_no_cards_are_left(started, set_hand, route):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 3})
    setup_position(state, Position(deck=[], discards=[]))
    r = route(state, *PZ)
    events = apply(state, seat, Claim(route=r, cards={"red": 3}))
    assert revealed_event(events).revealed == ()
    assert state.owner[state.board.route_index[r]] == seat


@pytest.mark.parametrize(
    "action", [DrawBlind(), Claim(route=1, cards={"red": 2})], ids=["draw", "claim"]
)
def test_nothing_else_while_a_tunnel_waits(started, set_hand, set_deck_top, route, illegal, action):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"blue": 3, "red": 2})
    set_deck_top(state, ["blue", "green", "green"])
    apply(state, seat, Claim(route=route(state, *MV), cards={"blue": 2}))
    illegal(state, seat, action, "Pay the tunnel's extra cards or decline it first.")
    illegal(state, 1 - seat, DeclineTunnel(), f"It is {state.config.players[seat]}'s turn")


@pytest.mark.parametrize("action", [PayTunnel(), DeclineTunnel()], ids=["pay", "decline"])
def test_tunnel_answers_without_a_tunnel_are_refused(started, illegal, action):
    state = started("europe", 2)
    illegal(state, state.current, action, "You cannot do that now")
