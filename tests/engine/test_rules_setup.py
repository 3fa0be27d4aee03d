"""RULES.md §1 Setup, §2 USA and §3 Europe set-up: cards, market, tickets, first player."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import DrawBlind, GameConfig, KeepTickets, apply, new_game
from engine.cards import CARD_NAMES, LOCO

PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve"]


def fresh(map_id: str, n: int, seed: int = 7):
    return new_game(GameConfig(map_id=map_id, players=PLAYERS[:n], seed=seed))


def all_cards(state) -> Counter[int]:
    """Every train card in the game: deck, discards, market and hands."""
    count: Counter[int] = Counter(state.deck)
    count.update(state.discards)
    count.update(c for c in state.market if c != -1)
    for hand in state.hands:
        count.update({c: n for c, n in enumerate(hand)})
    return count


@pytest.mark.parametrize("map_id", ["usa", "europe"])
@pytest.mark.parametrize("n", [2, 5])
def test_each_player_is_dealt_four_cards(map_id, n):
    state = fresh(map_id, n)
    assert [sum(h) for h in state.hands] == [4] * n


@pytest.mark.parametrize("map_id", ["usa", "europe"])
def test_five_cards_are_turned_face_up(map_id):
    state = fresh(map_id, 3)
    assert len(state.market) == 5
    assert all(c != -1 for c in state.market)


@pytest.mark.parametrize("map_id", ["usa", "europe"])
def test_deck_is_110_cards_twelve_per_colour_and_fourteen_locomotives(map_id):
    state = fresh(map_id, 4)
    count = all_cards(state)
    assert sum(count.values()) == 110
    assert {CARD_NAMES[c]: count[c] for c in range(LOCO)} == {
        name: 12 for name in CARD_NAMES[:LOCO]
    }
    assert count[LOCO] == 14
    assert len(state.deck) == 110 - 5 - 4 * 4


@pytest.mark.parametrize("seed", range(60))
def test_setup_market_never_shows_three_locomotives(seed):
    state = fresh("usa", 2, seed)
    assert state.market.count(LOCO) < 3


def test_usa_deals_three_tickets_and_requires_keeping_two():
    state = fresh("usa", 3)
    assert [len(o) for o in state.offered] == [3, 3, 3]
    assert state.keep_min == [2, 2, 2]
    assert len(state.ticket_deck) == 30 - 9


def test_usa_refuses_keeping_one_initial_ticket(illegal):
    state = fresh("usa", 2)
    one = state.board.t_ids[state.offered[0][0]]
    illegal(state, 0, KeepTickets(tickets=[one]), "Keep at least 2 of your 3 tickets; you chose 1.")


def test_usa_unkept_initial_ticket_goes_to_the_bottom():
    state = fresh("usa", 2)
    t1, t2, t3 = state.offered[0]
    deck_before = list(state.ticket_deck)
    apply(state, 0, KeepTickets(tickets=[state.board.t_ids[t1], state.board.t_ids[t2]]))
    assert state.tickets[0] == [t1, t2]
    assert state.ticket_deck == [t3, *deck_before]


def test_europe_deals_one_long_and_three_regular_tickets_keep_two():
    state = fresh("europe", 5)
    board = state.board
    for seat in range(5):
        offer = state.offered[seat]
        assert len(offer) == 4
        assert sum(board.t_long[t] for t in offer) == 1
        assert state.keep_min[seat] == 2


def test_europe_undealt_long_tickets_leave_the_game_unseen():
    state = fresh("europe", 2)
    board = state.board
    assert not any(board.t_long[t] for t in state.ticket_deck)
    assert len(state.ticket_deck) == 40 - 2 * 3


def test_europe_unkept_long_ticket_leaves_the_game():
    state = fresh("europe", 2)
    board = state.board
    offer = state.offered[0]
    long_t = next(t for t in offer if board.t_long[t])
    regular = [t for t in offer if not board.t_long[t]]
    deck_before = list(state.ticket_deck)
    apply(state, 0, KeepTickets(tickets=[board.t_ids[t] for t in regular]))
    assert long_t not in state.ticket_deck
    assert long_t not in state.tickets[0]
    assert state.ticket_deck == deck_before  # nothing went back


def test_europe_may_keep_any_mix_of_long_and_regular():
    state = fresh("europe", 2)
    board = state.board
    offer = state.offered[0]
    long_t = next(t for t in offer if board.t_long[t])
    reg = next(t for t in offer if not board.t_long[t])
    deck = list(state.ticket_deck)
    apply(state, 0, KeepTickets(tickets=[board.t_ids[long_t], board.t_ids[reg]]))
    assert sorted(state.tickets[0]) == sorted([long_t, reg])
    # the two unkept regular tickets leave the game (seed 001), unlike drawn tickets later
    assert state.ticket_deck == deck


def test_europe_refuses_keeping_one_of_four(illegal):
    state = fresh("europe", 2)
    one = state.board.t_ids[state.offered[1][0]]
    illegal(state, 1, KeepTickets(tickets=[one]), "Keep at least 2 of your 4 tickets")


def test_players_choose_initial_tickets_in_any_order_then_first_player_starts():
    state = fresh("usa", 3)
    for seat in (2, 0, 1):
        assert state.phase == "choose_initial_tickets"
        apply(state, seat, KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[seat]]))
    assert state.phase == "turn"
    assert state.turn == 1
    assert state.current == state.first_player


def test_no_turn_actions_while_players_choose_initial_tickets(illegal):
    state = fresh("usa", 2)
    illegal(state, state.current, DrawBlind(), "still choosing their first destination tickets")


def test_initial_tickets_cannot_be_chosen_twice(illegal):
    state = fresh("usa", 2)
    keep = [state.board.t_ids[t] for t in state.offered[0]]
    apply(state, 0, KeepTickets(tickets=keep))
    illegal(state, 0, KeepTickets(tickets=keep), "already chosen")


def test_initial_tickets_are_secret_until_the_end():
    from engine import public_view

    state = fresh("usa", 2)
    apply(state, 0, KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[0]]))
    view = public_view(state).model_dump_json()
    assert "tickets_left" in view
    # The public view counts tickets but never names them.
    assert public_view(state).players[0].tickets == 3
    assert "cities" not in view


def test_first_player_is_seeded():
    firsts = [fresh("usa", 3, seed).first_player for seed in range(5)]
    assert firsts == [fresh("usa", 3, seed).first_player for seed in range(5)]


def test_first_player_is_random_across_seeds():
    firsts = {fresh("usa", 4, seed).first_player for seed in range(80)}
    assert firsts == {0, 1, 2, 3}


def test_same_seed_same_game():
    assert fresh("europe", 4, 123).to_snapshot() == fresh("europe", 4, 123).to_snapshot()
    assert fresh("europe", 4, 123).deck != fresh("europe", 4, 124).deck


@pytest.mark.parametrize("map_id", ["usa", "europe"])
def test_player_count_outside_two_to_five_is_refused(map_id):
    with pytest.raises(ValueError, match="2-5 players"):
        fresh(map_id, 1)


@pytest.mark.parametrize(("map_id", "trains", "stations"), [("usa", 45, 0), ("europe", 45, 3)])
def test_pieces_per_player(map_id, trains, stations):
    state = fresh(map_id, 3)
    assert state.trains == [trains] * 3
    assert state.stations_left == [stations] * 3
