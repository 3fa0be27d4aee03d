"""Nordic Countries (RULES.md §4): its payment cases from tests-external.md and its own rules."""

from __future__ import annotations

import pytest

from engine import (
    Claim,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    Position,
    apply,
    legal_actions,
    public_view,
    setup_position,
)
from engine.board import board_for
from engine.cards import CARD_INDEX, LOCO, N_CARDS, counts_from_names
from engine.payment import NO, cheapest_claims, claim_colour
from engine.scoring import final_scores

BOARD = board_for("nordic")


def nordic_route(a: str, b: str, color: str | None = None) -> int:
    for r, route in enumerate(BOARD.map.routes):
        if {route.a, route.b} == {a, b} and color in (None, route.color):
            return r
    raise KeyError((a, b, color))


def pays(a: str, b: str, cards: dict[str, int], color: str | None = None) -> bool:
    counts = counts_from_names(cards)
    assert counts is not None
    return claim_colour(BOARD, nordic_route(a, b, color), counts) != NO


def hand(**cards: int) -> list[int]:
    counts = counts_from_names(cards)
    assert counts is not None
    return counts


# The outside cases ------------------------------------------------------------------------


def test_helsinki_stockholm_two_orange_and_two_three_card_substitutes():
    cards = {"orange": 2, "red": 3, "blue": 2, "green": 1}  # 8 cards
    assert sum(cards.values()) == 8
    assert pays("helsinki", "stockholm", cards, "gray")


def test_sundsvall_vaasa_one_locomotive_and_two_blue():
    assert pays("sundsvall", "vaasa", {"blue": 2, "locomotive": 1})


def test_sundsvall_vaasa_two_blue_and_a_three_card_substitute():
    assert pays("sundsvall", "vaasa", {"blue": 2, "red": 2, "green": 1})
    assert not pays("sundsvall", "vaasa", {"blue": 2, "red": 2})  # 4 cards: no valid split


def test_arhus_kobenhavn_paid_by_a_three_card_substitute():
    assert pays("arhus", "kobenhavn", {"red": 1, "white": 1, "black": 1})
    assert pays("arhus", "kobenhavn", {"locomotive": 1})


@pytest.mark.parametrize(
    "cards",
    [{"purple": 2, "locomotive": 1}, {"purple": 2, "red": 3}, {"purple": 3, "red": 2}],
)
def test_sundsvall_umea_takes_neither_substitutes_nor_locomotives(cards):
    assert not pays("sundsvall", "umea", cards, "purple")
    assert pays("sundsvall", "umea", {"purple": 3}, "purple")


def test_no_card_counts_twice():
    # 2 blue + a locomotive cover Sundsvall–Vaasa; the same locomotive cannot also be part
    # of a substitute, so 2 blue + 1 locomotive + 1 red is one card too many for any split.
    assert not pays("sundsvall", "vaasa", {"blue": 2, "locomotive": 1, "red": 1})
    # Helsinki–Stockholm gray: 2 orange + 1 locomotive + 3 others covers both symbols once;
    # 2 orange + 3 others alone leaves a symbol uncovered.
    assert pays("helsinki", "stockholm", {"orange": 2, "locomotive": 1, "red": 3}, "gray")
    assert not pays("helsinki", "stockholm", {"orange": 2, "red": 3}, "gray")


# Cheapest payments offered when substitutes are involved ----------------------------------


def test_cheapest_payment_prefers_locomotives_over_substitutes():
    r = nordic_route("sundsvall", "vaasa")
    [pay] = cheapest_claims(BOARD, r, hand(blue=2, locomotive=1, red=3))
    assert pay == hand(blue=2, locomotive=1)


def test_cheapest_payment_uses_a_substitute_when_no_locomotive():
    r = nordic_route("sundsvall", "vaasa")
    [pay] = cheapest_claims(BOARD, r, hand(blue=2, red=3))
    assert pay == hand(blue=2, red=3)


def test_cheapest_payment_of_a_symbol_only_ferry():
    r = nordic_route("arhus", "kobenhavn")
    assert cheapest_claims(BOARD, r, hand(green=1, red=2)) == [hand(green=1, red=2)]
    assert cheapest_claims(BOARD, r, hand(green=1, red=1)) == []


# Murmansk–Lieksa: any 4 cards replace one card of the chosen colour -----------------------


def test_murmansk_lieksa_seven_green_and_eight_others():
    assert pays("murmansk", "lieksa", {"green": 7, "red": 4, "locomotive": 4})
    assert not pays("murmansk", "lieksa", {"green": 7, "red": 4, "locomotive": 3})
    assert pays("murmansk", "lieksa", {"green": 9})


def test_murmansk_lieksa_cheapest_payment():
    r = nordic_route("murmansk", "lieksa")
    options = cheapest_claims(BOARD, r, hand(green=8, red=4, locomotive=1))
    assert hand(green=8, red=4) in options
    assert all(sum(p) >= 12 for p in options)


# Map rules ---------------------------------------------------------------------------------


def test_locomotives_do_not_pay_ordinary_routes(started, set_hand, route, illegal):
    state = started("nordic", 2)
    seat = state.current
    set_hand(state, seat, {"purple": 2, "locomotive": 3})
    r = route(state, "sundsvall", "umea", "purple")
    illegal(state, seat, Claim(route=r, cards={"purple": 2, "locomotive": 1}), "purple cards")
    assert not any(isinstance(a, Claim) and a.route == r for a in legal_actions(state, seat))


def test_face_up_locomotive_is_an_ordinary_card(started, set_market):
    state = started("nordic", 2)
    seat = state.current
    set_market(state, ["locomotive", "locomotive", "red", "blue", "green"])
    apply(state, seat, DrawFaceUp(slot=0))
    assert state.phase == "second_draw"
    apply(state, seat, DrawFaceUp(slot=1))  # a second face-up locomotive is allowed too
    assert state.current != seat
    assert state.hands[seat][LOCO] >= 2


def test_no_market_reset_with_three_locomotives(started, set_market, set_deck_top):
    state = started("nordic", 3)
    seat = state.current
    set_market(state, ["locomotive", "locomotive", "red", "locomotive", "green"])
    set_deck_top(state, ["locomotive"])  # the refill shows a fourth locomotive
    apply(state, seat, DrawFaceUp(slot=2))
    assert state.market.count(LOCO) == 4


def test_returned_tickets_leave_the_game(started):
    state = started("nordic", 2)
    seat = state.current
    before = len(state.ticket_deck)
    apply(state, seat, DrawTickets())
    offered = [state.board.t_ids[t] for t in state.offered[seat]]
    apply(state, seat, KeepTickets(tickets=offered[:1]))
    assert len(state.ticket_deck) == before - 3
    assert all(state.board.t_index[t] not in state.ticket_deck for t in offered[1:])


def test_setup_deals_five_keep_two_and_removes_the_rest():
    from engine import GameConfig, new_game

    state = new_game(GameConfig(map_id="nordic", players=["A", "B"], seed=5))
    assert [len(o) for o in state.offered] == [5, 5] and state.keep_min == [2, 2]
    deck = len(state.ticket_deck)
    apply(state, 0, KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[0][:2]]))
    assert len(state.ticket_deck) == deck
    assert state.trains == [40, 40]


def test_doubles_close_only_with_two_players(started, set_hand, route, illegal, pass_turn):
    for players, closed in ((2, True), (3, False)):
        state = started("nordic", players)
        first = state.current
        set_hand(state, first, {"yellow": 4, "locomotive": 1})
        apply(
            state,
            first,
            Claim(
                route=route(state, "helsinki", "stockholm", "yellow"),
                cards={"yellow": 3, "locomotive": 1},
            ),
        )
        other = state.current
        set_hand(state, other, {"red": 2, "locomotive": 2})
        twin = route(state, "helsinki", "stockholm", "gray")
        action = Claim(route=twin, cards={"red": 2, "locomotive": 2})
        if closed:
            illegal(state, other, action, "only one track")
        else:
            apply(state, other, action)
            assert state.owner[state.board.route_index[twin]] == other


def test_globetrotter_bonus_and_no_longest_path_bonus(started, own, hold):
    state = started("nordic", 2)
    own(state, 0, ("oslo", "orebro", "green"), ("orebro", "stockholm", "black"))
    own(state, 1, ("goteborg", "oslo"))
    hold(state, 0, ("oslo", "stockholm"))
    hold(state, 1)
    scores = final_scores(state).players
    assert scores[0].most_tickets_bonus == 10 and scores[1].most_tickets_bonus == 0
    assert scores[0].longest_path_bonus == scores[1].longest_path_bonus == 0


def test_nine_space_route_scores_27():
    r = nordic_route("murmansk", "lieksa")
    assert BOARD.r_points[r] == 27
    assert N_CARDS == 9 and CARD_INDEX["green"] < LOCO


def test_no_face_up_card_when_deck_and_discards_are_empty(started, set_market, illegal):
    """Seed 000: with no card in the deck or the discards only claiming and drawing tickets
    remain; face-up cards may not be taken (unlike Europe, RULES.md §4)."""
    state = started("nordic", 2)
    seat = state.current
    set_market(state, ["red", "blue", "locomotive", None, None])
    setup_position(state, Position(deck=[], discards=[]))
    assert not any(isinstance(a, DrawFaceUp | DrawBlind) for a in legal_actions(state, seat))
    assert DrawTickets() in legal_actions(state, seat)
    for action in (DrawFaceUp(slot=0), DrawBlind()):
        illegal(state, seat, action, "deck and the discard pile are empty",
                "face-up ones included")
    assert public_view(state).market_closed


def test_face_up_cards_may_be_taken_again_once_cards_are_discarded(started, set_market):
    state = started("nordic", 2)
    seat = state.current
    set_market(state, ["red", "blue", "locomotive", None, None])
    setup_position(state, Position(deck=[], discards=["green"]))
    assert DrawFaceUp(slot=0) in legal_actions(state, seat)
    apply(state, seat, DrawFaceUp(slot=0))
    # The green came from the discards into the market: nothing is left to draw, so the
    # turn ends after one card.
    assert state.current != seat and state.market[0] == CARD_INDEX["green"]
    assert not any(isinstance(a, DrawFaceUp) for a in legal_actions(state, state.current))
