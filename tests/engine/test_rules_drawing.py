"""RULES.md §1 Turn 1 (draw train cards) and Decks: two cards, locomotive rules, market reset."""

from __future__ import annotations

from engine import Claim, DrawBlind, DrawFaceUp, Position, apply, setup_position
from engine.cards import CARD_INDEX, LOCO

GREEN, RED = CARD_INDEX["green"], CARD_INDEX["red"]

MARKET = ["red", "blue", "green", "yellow", "black"]


def test_drawing_two_blind_cards_is_one_turn(started, set_deck_top):
    state = started("usa", 2)
    seat = state.current
    before = sum(state.hands[seat])
    set_deck_top(state, ["red", "blue"])
    apply(state, seat, DrawBlind())
    assert state.phase == "second_draw" and state.current == seat
    apply(state, seat, DrawBlind())
    assert sum(state.hands[seat]) == before + 2
    assert state.current == 1 - seat and state.phase == "turn"


def test_blind_draw_takes_the_top_of_the_deck(started, set_hand, set_deck_top, cards):
    state = started("usa", 2)
    seat = state.current
    set_hand(state, seat, {})
    set_deck_top(state, ["orange", "purple"])
    events = apply(state, seat, DrawBlind())
    assert events[0].card is None  # the public event never names a blind card
    apply(state, seat, DrawBlind())
    assert state.hands[seat][cards("orange")] == 1
    assert state.hands[seat][cards("purple")] == 1


def test_face_up_card_is_replaced_from_the_deck(started, set_market, set_deck_top, cards, kinds):
    state = started("usa", 2)
    seat = state.current
    set_market(state, MARKET)
    set_deck_top(state, ["white"])
    hand_green = state.hands[seat][cards("green")]
    events = apply(state, seat, DrawFaceUp(slot=2))
    assert state.hands[seat][cards("green")] == hand_green + 1
    assert state.market[2] == cards("white")
    assert kinds(events) == ["CardDrawn"]
    assert events[0].card == "green" and events[0].slot == 2
    assert state.phase == "second_draw"


def test_face_up_locomotive_as_first_card_is_the_whole_turn(started, set_market, set_deck_top):
    state = started("usa", 2)
    seat = state.current
    set_market(state, ["loco", *MARKET[1:]])
    set_deck_top(state, ["white"])
    locos = state.hands[seat][LOCO]
    apply(state, seat, DrawFaceUp(slot=0))
    assert state.hands[seat][LOCO] == locos + 1
    assert state.current == 1 - seat and state.phase == "turn"


def test_face_up_locomotive_is_refused_as_second_card(started, set_market, set_deck_top, illegal):
    state = started("usa", 2)
    seat = state.current
    set_market(state, ["loco", *MARKET[1:]])
    set_deck_top(state, ["white"])
    apply(state, seat, DrawFaceUp(slot=1))
    illegal(
        state,
        seat,
        DrawFaceUp(slot=0),
        "A face-up locomotive cannot be your second card",
    )


def test_locomotive_drawn_blind_counts_as_one_card(started, set_deck_top):
    state = started("usa", 2)
    seat = state.current
    set_deck_top(state, ["loco", "loco"])
    apply(state, seat, DrawBlind())
    assert state.phase == "second_draw" and state.current == seat
    apply(state, seat, DrawBlind())
    assert state.current == 1 - seat


def test_second_card_may_be_a_face_up_non_locomotive(started, set_market, set_deck_top, cards):
    state = started("usa", 2)
    seat = state.current
    set_market(state, MARKET)
    set_deck_top(state, ["white", "white"])
    apply(state, seat, DrawBlind())
    apply(state, seat, DrawFaceUp(slot=0))
    assert state.current == 1 - seat
    assert state.market[0] == cards("white")


def test_three_face_up_locomotives_reset_the_market(
    started, set_market, set_deck_top, cards, kinds
):
    state = started("usa", 2)
    seat = state.current
    set_market(state, ["loco", "loco", "red", "blue", "green"])
    # The red slot is refilled with a third locomotive; then five whites are dealt.
    set_deck_top(state, ["loco", "white", "white", "white", "white", "white"])
    discards = len(state.discards)
    events = apply(state, seat, DrawFaceUp(slot=2))
    assert kinds(events) == ["CardDrawn", "MarketReset"]
    assert state.market == [cards("white")] * 5
    assert sorted(state.discards[discards:]) == sorted(
        [LOCO, LOCO, LOCO, cards("blue"), cards("green")]
    )


def test_market_reset_repeats_while_three_locomotives_show(
    started, set_market, set_deck_top, cards, kinds
):
    state = started("usa", 2)
    seat = state.current
    set_market(state, ["loco", "loco", "red", "blue", "green"])
    set_deck_top(state, ["loco", "loco", "loco", "loco", "white", "white", *["black"] * 5])
    events = apply(state, seat, DrawFaceUp(slot=2))
    assert kinds(events) == ["CardDrawn", "MarketReset", "MarketReset"]
    assert state.market == [cards("black")] * 5


def test_market_reset_stops_when_the_cards_run_out(started, set_market, cards):
    state = started("usa", 2)
    seat = state.current
    set_market(state, ["loco", "loco", "red", "blue", "green"])
    setup_position(state, Position(deck=["locomotive"], discards=[]))
    events = apply(state, seat, DrawFaceUp(slot=2))  # terminates, no endless reshuffling
    assert "MarketReset" not in [type(e).__name__ for e in events]
    assert state.market == [LOCO, LOCO, LOCO, cards("blue"), cards("green")]
    assert state.phase == "second_draw"


def test_empty_deck_is_rebuilt_from_the_discards(started, cards, kinds):
    state = started("usa", 2)
    seat = state.current
    setup_position(state, Position(deck=[], discards=["red"] * 3))
    reds = state.hands[seat][cards("red")]
    events = apply(state, seat, DrawBlind())
    assert kinds(events) == ["DeckReshuffled", "CardDrawn"]
    assert events[0].cards == 3
    assert state.hands[seat][cards("red")] == reds + 1
    assert state.discards == [] and len(state.deck) == 2


def test_market_refill_reshuffles_the_discards_when_the_deck_is_empty(started, set_market, cards):
    state = started("usa", 2)
    seat = state.current
    set_market(state, MARKET)
    setup_position(state, Position(deck=[], discards=["purple"]))
    apply(state, seat, DrawFaceUp(slot=0))
    assert state.market[0] == cards("purple")


def test_blind_draw_is_illegal_when_deck_and_discards_are_empty(started, illegal):
    state = started("usa", 2)
    setup_position(state, Position(deck=[], discards=[]))
    illegal(state, state.current, DrawBlind(), "The deck and the discard pile are empty")


def test_second_draw_is_skipped_when_no_card_can_be_taken(started, set_market, kinds):
    state = started("usa", 2)
    seat = state.current
    set_market(state, [None] * 5)
    setup_position(state, Position(deck=["locomotive"], discards=[]))
    events = apply(state, seat, DrawBlind())
    assert kinds(events) == ["CardDrawn", "TurnStarted"]
    assert state.current == 1 - seat and state.phase == "turn"


def test_second_draw_is_skipped_when_only_a_face_up_locomotive_is_left(started, set_market):
    state = started("usa", 2)
    seat = state.current
    set_market(state, ["red", "loco", None, None, None])
    setup_position(state, Position(deck=[], discards=[]))
    apply(state, seat, DrawFaceUp(slot=0))
    assert state.current == 1 - seat and state.phase == "turn"


def test_second_draw_from_the_market_when_the_deck_is_gone(started, set_market, illegal):
    state = started("usa", 2)
    seat = state.current
    set_market(state, ["red", "blue", None, None, None])
    setup_position(state, Position(deck=[], discards=[]))
    apply(state, seat, DrawFaceUp(slot=0))
    assert state.phase == "second_draw"
    assert state.market[0] == -1  # nothing left to replace it
    illegal(state, seat, DrawBlind(), "The deck and the discard pile are empty")
    apply(state, seat, DrawFaceUp(slot=1))
    assert state.current == 1 - seat


def test_taking_an_empty_market_slot_is_refused(started, set_market, illegal):
    state = started("usa", 2)
    set_market(state, ["red", "blue", None, "green", "black"])
    illegal(state, state.current, DrawFaceUp(slot=2), "There is no face-up card in slot 3.")


def test_hand_size_is_unlimited(started, give, set_deck_top, cards):
    state = started("usa", 2)
    seat = state.current
    give(state, seat, {"red": 60})
    set_deck_top(state, ["red", "red"])
    apply(state, seat, DrawBlind())
    apply(state, seat, DrawBlind())
    assert state.hands[seat][cards("red")] >= 62


def test_europe_uses_the_base_locomotive_rule_and_market_reset(
    started, set_market, set_deck_top, illegal, kinds
):
    state = started("europe", 2)
    seat = state.current
    set_market(state, ["loco", "loco", "red", "blue", "green"])
    set_deck_top(state, ["white", "white", "white", "white", "white"])
    apply(state, seat, DrawFaceUp(slot=2))
    illegal(state, seat, DrawFaceUp(slot=0), "A face-up locomotive cannot be your second card")
    apply(state, seat, DrawBlind())
    other = state.current
    set_market(state, ["loco", "loco", "red", "blue", "green"])
    set_deck_top(state, ["loco", "white", "white", "white", "white", "white"])
    assert kinds(apply(state, other, DrawFaceUp(slot=2))) == ["CardDrawn", "MarketReset"]


def test_empty_market_slots_fill_again_once_cards_are_discarded(
    started, set_hand, set_market, route
):
    """A market left short by an empty deck fills its gaps when cards come back."""
    state = started("usa", 2, seed=3)
    seat = state.current
    setup_position(state, Position(deck=[], discards=[]))
    set_market(state, ["red", None, None, None, None])
    set_hand(state, seat, {"green": 3})
    apply(state, seat, Claim(route=route(state, "little_rock", "new_orleans"), cards={"green": 3}))
    # The three cards paid went to the discards, and from there into the empty slots.
    assert state.market[0] == RED
    assert sorted(state.market[1:]) == [-1, GREEN, GREEN, GREEN]
    assert state.discards == [] and state.deck == []
