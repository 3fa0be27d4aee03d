"""Iberia (RULES.md §6): festival cards in the deck, ticket drafts, festival sets."""

from __future__ import annotations

import pytest

from engine import (
    Claim,
    DraftPick,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameConfig,
    KeepTickets,
    Position,
    TakeFestival,
    apply,
    legal_actions,
    new_game,
    private_view,
    public_view,
    setup_position,
    waiting_for,
)
from engine.cards import CARD_INDEX, N_CARDS
from engine.modules.festivals import DRAFT_CARD, FESTIVAL_BASE
from engine.scoring import final_scores


def draft_round(state, pick=0):
    """Every waiting seat picks the ``pick``-th ticket of its packet."""
    for seat in list(waiting_for(state)):
        packet = private_view(state, seat).draft_packet
        apply(state, seat, DraftPick(ticket=packet[min(pick, len(packet) - 1)].id))


def finish_draft(state):
    while state.phase == "draft":
        draft_round(state)
    for seat in list(waiting_for(state)):
        offer = [state.board.t_ids[t] for t in state.offered[seat]]
        apply(state, seat, KeepTickets(tickets=offer[:4]))


def started_iberia(players=2, seed=3):
    state = new_game(
        GameConfig(map_id="iberia", players=[f"P{i}" for i in range(players)], seed=seed)
    )
    finish_draft(state)
    assert state.phase == "turn"
    return state


# Setup and the first draft ----------------------------------------------------------------


def test_setup_market_has_no_festival_card_and_the_deck_holds_all_54():
    state = new_game(GameConfig(map_id="iberia", players=["A", "B", "C"], seed=1))
    assert all(0 <= c < N_CARDS for c in state.market)
    assert all(sum(h) == 4 for h in state.hands)
    assert sum(1 for c in state.deck if c >= FESTIVAL_BASE) == 54
    assert state.deck.count(DRAFT_CARD) == 1
    assert state.trains == [35, 35, 35]


@pytest.mark.parametrize(("players", "depth"), [(2, 1 / 2), (3, 2 / 3), (4, 3 / 4), (5, 3 / 4)])
def test_draft_card_depth_by_player_count(players, depth):
    state = new_game(GameConfig(map_id="iberia", players=[f"P{i}" for i in range(players)], seed=2))
    from_top = len(state.deck) - 1 - state.deck.index(DRAFT_CARD)
    assert abs(from_top - depth * (len(state.deck) - 1)) <= 1


def test_first_draft_deals_six_and_passes_left():
    state = new_game(GameConfig(map_id="iberia", players=["A", "B", "C"], seed=4))
    assert state.phase == "draft" and sorted(waiting_for(state)) == [0, 1, 2]
    packets = [[t.id for t in private_view(state, s).draft_packet] for s in range(3)]
    assert [len(p) for p in packets] == [6, 6, 6]
    apply(state, 0, DraftPick(ticket=packets[0][0]))
    assert waiting_for(state) == [1, 2]  # a round waits for everyone
    apply(state, 1, DraftPick(ticket=packets[1][0]))
    apply(state, 2, DraftPick(ticket=packets[2][0]))
    after = [[t.id for t in private_view(state, s).draft_packet] for s in range(3)]
    # Seat 1 now holds what was left of seat 0's packet: it was passed to the left.
    assert after[1] == packets[0][1:] and after[2] == packets[1][1:] and after[0] == packets[2][1:]
    # Each seat sees its own picks so far (and only its own).
    assert [[t.id for t in private_view(state, s).draft_picked] for s in range(3)] == [
        [packets[s][0]] for s in range(3)
    ]


def test_draft_refusals(illegal):
    state = new_game(GameConfig(map_id="iberia", players=["A", "B"], seed=4))
    packet = [t.id for t in private_view(state, 0).draft_packet]
    other = private_view(state, 1).draft_packet[0].id
    illegal(state, 0, DraftPick(ticket=other), "not in the packet")
    apply(state, 0, DraftPick(ticket=packet[0]))
    illegal(state, 0, DraftPick(ticket=packet[1]), "wait for the others")
    illegal(state, 1, DrawBlind(), "draft")


def test_first_draft_keeps_exactly_four_and_shuffles_the_rest_back(illegal):
    state = new_game(GameConfig(map_id="iberia", players=["A", "B"], seed=5))
    while state.phase == "draft":
        draft_round(state)
    assert state.phase == "draft_keep"
    view = private_view(state, 0)
    assert len(view.offered) == 6 and view.keep_min == 4 and view.keep_max == 4
    offer = [t.id for t in view.offered]
    illegal(state, 0, KeepTickets(tickets=offer[:5]), "exactly 4")
    illegal(state, 0, KeepTickets(tickets=offer[:3]), "exactly 4")
    deck_before = len(state.ticket_deck)
    apply(state, 0, KeepTickets(tickets=offer[:4]))
    offer1 = [state.board.t_ids[t] for t in state.offered[1]]
    apply(state, 1, KeepTickets(tickets=offer1[:4]))
    assert len(state.ticket_deck) == deck_before + 4
    assert state.phase == "turn" and state.turn == 1
    assert [len(t) for t in state.tickets] == [4, 4]


def test_drawing_tickets_is_closed_until_the_second_draft(illegal):
    state = started_iberia()
    seat = state.current
    illegal(state, seat, DrawTickets(), "only after the second ticket draft")
    assert DrawTickets() not in legal_actions(state, seat)


# Festival cards in the deck ---------------------------------------------------------------


def test_a_festival_card_drawn_blind_goes_to_its_city_and_is_replaced():
    state = started_iberia()
    seat = state.current
    hand = sum(state.hands[seat])
    setup_position(state, Position(deck_top=["festival_sevilla", "red"]))
    events = apply(state, seat, DrawBlind())
    assert public_view(state).festival_piles["sevilla"] == 1
    assert sum(state.hands[seat]) == hand + 1 and state.hands[seat][CARD_INDEX["red"]] >= 1
    assert "FestivalCardPlaced" in [type(e).__name__ for e in events]


def test_a_festival_card_refilling_the_market_is_replaced_too(set_market):
    state = started_iberia()
    seat = state.current
    set_market(state, ["red", "blue", "green", "white", "black"])
    setup_position(state, Position(deck_top=["festival_madrid", "festival_valencia", "yellow"]))
    apply(state, seat, DrawFaceUp(slot=0))
    assert state.market[0] == CARD_INDEX["yellow"]
    piles = public_view(state).festival_piles
    assert piles["valencia"] == 1 and piles["madrid"] == 1


def test_reshuffled_deck_holds_only_train_cards():
    state = started_iberia()
    seat = state.current
    setup_position(state, Position(deck=[], discards=["red", "blue"]))
    apply(state, seat, DrawBlind())
    assert all(c < N_CARDS for c in state.deck)


# The second draft -------------------------------------------------------------------------


def test_draft_card_finishes_the_turn_then_a_second_draft_passes_right():
    state = started_iberia(players=3, seed=6)
    seat = state.current
    setup_position(state, Position(deck_top=["draft", "red"]))
    apply(state, seat, DrawBlind())  # the draft card is set aside, red is drawn
    assert state.phase == "second_draw" and state.current == seat
    kept_first = [list(t) for t in state.tickets]
    apply(state, seat, DrawBlind())
    assert state.phase == "draft"
    packets = [[t.id for t in private_view(state, s).draft_packet] for s in range(3)]
    assert [len(p) for p in packets] == [6, 6, 6]
    draft_round(state)
    after = [[t.id for t in private_view(state, s).draft_packet] for s in range(3)]
    # Passed right: seat 0 receives what seat 1 left.
    assert after[0] == packets[1][1:] and after[1] == packets[2][1:] and after[2] == packets[0][1:]
    while state.phase == "draft":
        draft_round(state)
    bottom_before = list(state.ticket_deck)
    for s in list(waiting_for(state)):
        apply(state, s, KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[s][:4]]))
    # The first draft's tickets were not in play; each now has 4 more.
    assert all(
        state.tickets[s][:4] == kept_first[s] and len(state.tickets[s]) == 8 for s in range(3)
    )
    # The 6 unkept went under the ticket deck.
    assert (
        state.ticket_deck[6:] == bottom_before and len(state.ticket_deck) == len(bottom_before) + 6
    )
    assert state.phase == "turn" and state.current == (seat + 1) % 3
    apply(state, state.current, DrawTickets())
    assert len(state.offered[state.current]) == 3 and state.keep_min[state.current] == 1


# Claiming and festival sets ---------------------------------------------------------------


def test_claim_takes_the_festival_cards_at_its_city(set_hand, route):
    state = started_iberia()
    seat = state.current
    setup_position(state, Position(festival_piles={"madrid": 2}))
    set_hand(state, seat, {"red": 2})
    apply(state, seat, Claim(route=route(state, "valladolid", "madrid"), cards={"red": 2}))
    assert private_view(state, seat).festival_cards == {"madrid": 2}
    assert public_view(state).festival_piles["madrid"] == 0
    assert state.current != seat


def test_porto_and_coimbra_share_one_pile(set_hand, route):
    state = started_iberia()
    seat = state.current
    setup_position(state, Position(festival_piles={"porto": 3}))
    set_hand(state, seat, {"blue": 3})
    apply(state, seat, Claim(route=route(state, "coimbra", "badajoz"), cards={"blue": 3}))
    assert private_view(state, seat).festival_cards == {"porto": 3}


def test_both_ends_with_cards_ask_which_to_take(set_hand, route, illegal):
    state = started_iberia()
    seat = state.current
    setup_position(state, Position(festival_piles={"sevilla": 1, "malaga": 2}))
    set_hand(state, seat, {"green": 2})
    apply(state, seat, Claim(route=route(state, "sevilla", "malaga"), cards={"green": 2}))
    assert state.phase == "choose_festival" and state.current == seat
    assert private_view(state, seat).festival_options == ["sevilla", "malaga"]
    illegal(state, seat, TakeFestival(pile="madrid"), "Sevilla or Málaga")
    apply(state, seat, TakeFestival(pile="malaga"))
    assert private_view(state, seat).festival_cards == {"malaga": 2}
    assert public_view(state).festival_piles["sevilla"] == 1
    assert state.current != seat


def test_festival_sets_score_by_the_table_seed_examples():
    state = started_iberia()
    setup_position(state, Position(festival_cards={0: {"sevilla": 3}, 1: {"valencia": 7}}))
    rows = final_scores(state).players
    assert sum(e.points for e in rows[0].extras) == 6
    assert sum(e.points for e in rows[1].extras) == 22


def test_no_bonuses_and_ties_shared_after_tickets():
    state = started_iberia()
    rows = final_scores(state).players
    assert all(r.longest_path_bonus == 0 and r.most_tickets_bonus == 0 for r in rows)
    assert state.board.rules.tie_breakers == ["most_tickets"]


def test_festival_holdings_are_not_in_the_public_view():
    state = started_iberia()
    before = public_view(state)
    setup_position(state, Position(festival_cards={0: {"sevilla": 3}, 1: {}}))
    assert public_view(state) == before


def test_public_view_tells_draft_progress_and_closed_ticket_draws():
    state = new_game(GameConfig(map_id="iberia", players=["A", "B", "C"], seed=4))
    view = public_view(state)
    assert view.current is None  # everyone drafts at once
    assert (view.draft.round, view.draft.rounds, view.draft.second) == (1, 6, False)
    draft_round(state)
    assert public_view(state).draft.round == 2
    apply(state, 0, DraftPick(ticket=private_view(state, 0).draft_packet[0].id))
    assert public_view(state).draft.round == 2  # the round ends when all have picked
    finish_draft(state)
    view = public_view(state)
    assert view.draft is None and view.current is not None
    assert not view.can_draw_tickets
