"""The deviations an outside audit found (issue 9), one rule test each (RULES.md §1-§8)."""

from __future__ import annotations

import pytest

from engine import (
    BuildHarbor,
    ChoosePieces,
    Claim,
    DraftPick,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    ExchangePieces,
    GameConfig,
    IllegalAction,
    KeepTickets,
    Position,
    TakeShare,
    apply,
    legal_actions,
    new_game,
    public_view,
    setup_position,
    waiting_for,
)
from engine.cards import CARD_INDEX, LOCO, SPECIAL
from engine.graph import best_station_assignment
from engine.scoring import final_scores

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]


def fresh(map_id: str, players: int = 2, seed: int = 7):
    return new_game(GameConfig(map_id=map_id, players=NAMES[:players], seed=seed))


def iberia_started(players: int = 2):
    """An Iberia game past its first ticket draft (everyone takes its first option)."""
    state = fresh("iberia", players)
    while state.phase != "turn":
        for seat in waiting_for(state):
            apply(state, seat, legal_actions(state, seat)[0])
    return state


def claims_of(state, seat, route_id):
    return [a for a in legal_actions(state, seat) if isinstance(a, Claim) and a.route == route_id]


# 1. Europe: tickets turned down at setup leave the game (RULES.md §3) ---------------------


def test_europe_setup_tickets_turned_down_leave_the_game():
    state = fresh("europe")
    deck_before = list(state.ticket_deck)
    board = state.board
    turned_down = []
    for seat in range(2):
        offer = state.offered[seat]
        regular = [t for t in offer if not board.t_long[t]]
        keep = regular[:2]
        turned_down += [t for t in offer if t not in keep]
        apply(state, seat, KeepTickets(tickets=[board.t_ids[t] for t in keep]))
    assert state.ticket_deck == deck_before
    assert not set(turned_down) & set(state.ticket_deck)


def test_europe_tickets_returned_after_a_later_draw_still_go_under_the_deck(started):
    state = started("europe", 2)
    seat = state.current
    apply(state, seat, DrawTickets())
    offered = list(state.offered[seat])
    apply(state, seat, KeepTickets(tickets=[state.board.t_ids[offered[0]]]))
    assert state.ticket_deck[:2] == offered[:0:-1]


def test_usa_setup_tickets_turned_down_still_go_under_the_deck():
    state = fresh("usa")
    seat_offer = list(state.offered[0])
    apply(state, 0, KeepTickets(tickets=[state.board.t_ids[t] for t in seat_offer[:2]]))
    assert state.ticket_deck[0] == seat_offer[2]


# 2. Nordic: coloured ferries without the colour (RULES.md §4) -----------------------------


def test_kristiansand_stavanger_with_two_locomotives_and_three_blue(started, set_hand, route):
    state = started("nordic", 2)
    seat = state.current
    set_hand(state, seat, {"loco": 2, "blue": 3})
    rid = route(state, "kristiansand", "stavanger", "orange")
    cards = {"locomotive": 2, "blue": 3}
    assert Claim(route=rid, cards=cards) in legal_actions(state, seat)
    apply(state, seat, Claim(route=rid, cards=cards))
    assert state.owner[state.board.route_index[rid]] == seat


def test_sundsvall_vaasa_with_one_blue_and_two_three_card_substitutes(started, set_hand, route):
    state = started("nordic", 2)
    seat = state.current
    set_hand(state, seat, {"blue": 1, "red": 3, "green": 3})
    rid = route(state, "sundsvall", "vaasa")
    assert claims_of(state, seat, rid) == [
        Claim(route=rid, cards={"blue": 1, "red": 3, "green": 3})
    ]
    apply(state, seat, Claim(route=rid, cards={"blue": 1, "red": 3, "green": 3}))
    assert state.owner[state.board.route_index[rid]] == seat


def test_a_ferry_substitute_still_needs_the_route_colour_or_a_locomotive_per_space(
    started, set_hand, route, illegal
):
    state = started("nordic", 2)
    seat = state.current
    set_hand(state, seat, {"red": 3, "green": 3, "white": 2})
    rid = route(state, "sundsvall", "vaasa")
    # 8 cards: no split into single cards and groups of three covers the 3 spaces exactly.
    illegal(state, seat, Claim(route=rid, cards={"red": 3, "green": 3, "white": 2}), "ferry")
    assert claims_of(state, seat, rid) == []


# 3. Tie-break by the bonus holder, not by raw path length (RULES.md §1, §2, §3) -----------


def _routes_of_length(state, length, count):
    board = state.board
    taken: set[int] = set()
    out = []
    for r in range(len(board.route_ids)):
        ends = {board.r_a[r], board.r_b[r]}
        if board.r_len[r] == length and not ends & taken:
            out.append(r)
            taken |= ends
            if len(out) == count:
                return out
    raise AssertionError(f"no {count} disjoint routes of length {length}")


@pytest.mark.parametrize("map_id", ["usa", "europe"])
def test_tied_players_without_the_bonus_share_the_win(map_id):
    """Ann and Bob tie on points and tickets; Cid holds the longest path bonus. Bob's path
    is longer than Ann's, but neither holds the bonus: they share the win."""
    state = fresh(map_id, 3)
    ids = state.board.route_ids
    owners = {ids[r]: 0 for r in _routes_of_length(state, 2, 2)}  # Ann: 4 points, path 2
    owners[ids[_routes_of_length(state, 3, 1)[0]]] = 1  # Bob: one 3-route, 4 points, path 3
    # Cid: a long route for the bonus, and failed tickets that sink his total.
    owners[ids[_routes_of_length(state, 6, 1)[0]]] = 2
    tickets = {0: [], 1: [], 2: list(state.board.t_ids[:6])}
    setup_position(state, Position(owners=owners, tickets=tickets))
    final = final_scores(state)
    ann, bob, cid = final.players
    assert ann.total == bob.total and ann.tickets_completed == bob.tickets_completed
    assert bob.longest_path > ann.longest_path and cid.longest_path_bonus > 0
    assert cid.total < ann.total
    assert final.winners == [0, 1]


# 4. Station choice: equal ticket points prefer more completed tickets (RULES.md §3) ------


def test_station_assignment_tie_prefers_more_completed_tickets():
    """No own routes; the one station may borrow route 1 (0-1) or route 2 (2-3). Route 1
    completes the 10-point ticket and fails both 5-point ones: 0 points. Route 2 completes
    both 5-point tickets and fails the 10: 0 points too, with two tickets completed."""
    tickets = [(0, 1, 10), (2, 3, 5), (3, 2, 5)]
    choices = [[(0, 1, 1), (2, 3, 2)]]
    score, chosen = best_station_assignment(6, [], choices, tickets)
    assert score == 0
    assert chosen == (2,)


# 5. Pennsylvania: tie-break most tickets only; a share is optional (RULES.md §5) ----------


def test_pennsylvania_tie_on_tickets_is_shared_whatever_the_paths():
    state = fresh("pennsylvania", 2)
    ids = state.board.route_ids
    owners = {ids[r]: 0 for r in _routes_of_length(state, 2, 2)}  # Ann: 4 points, path 2
    owners[ids[_routes_of_length(state, 3, 1)[0]]] = 1  # Bob: one 3-route, 4 points, path 3
    setup_position(state, Position(owners=owners, tickets={0: [], 1: []}))
    final = final_scores(state)
    assert final.players[0].total == final.players[1].total
    assert final.players[1].longest_path > final.players[0].longest_path
    assert final.winners == [0, 1]


def _logo_route(state, companies: int):
    board = state.board
    for r, route in enumerate(board.map.routes):
        if len(route.shares) == companies and board.r_len[r] <= 3 and route.color != "gray":
            return r
    raise AssertionError("no such route")


def test_a_share_may_be_declined(started, set_hand):
    from engine.actions import DeclineShare

    state = started("pennsylvania", 3)
    seat = state.current
    r = _logo_route(state, 1)
    route = state.board.map.routes[r]
    set_hand(state, seat, {route.color: route.length})
    apply(state, seat, Claim(route=route.id, cards={route.color: route.length}))
    assert state.phase == "choose_share"
    options = legal_actions(state, seat)
    assert options == [TakeShare(company=route.shares[0]), DeclineShare()]
    apply(state, seat, DeclineShare())
    assert state.ext["shares"]["held"][seat] == [] and state.current != seat
    assert state.ext["shares"]["taken"][route.shares[0]] == 0


def test_two_players_declining_the_share_gives_the_neutral_investor_none(started, set_hand):
    from engine.actions import DeclineShare

    state = started("pennsylvania", 2)
    seat = state.current
    r = _logo_route(state, 2)
    route = state.board.map.routes[r]
    set_hand(state, seat, {route.color: route.length})
    apply(state, seat, Claim(route=route.id, cards={route.color: route.length}))
    assert DeclineShare() in legal_actions(state, seat)
    apply(state, seat, DeclineShare())
    assert state.ext["shares"]["neutral"] == [] and state.current != seat


# 6. Rails & Sails: jokers alone pay (RULES.md §7) -----------------------------------------


def _world_route(state, a, b, kind):
    [found] = [
        r.id for r in state.board.map.routes if {r.a, r.b} == {a, b} and r.kind == kind
    ][:1]
    return found


def test_jokers_alone_pay_a_train_route_and_a_ship_route(started, set_hand):
    state = started("world", 2)
    seat = state.current
    train = _world_route(state, "novosibirsk", "yakutsk", "train")  # purple 3
    ship = _world_route(state, "dar_es_salaam", "mumbai", "ship")  # white 4
    set_hand(state, seat, {"loco": 4})
    assert Claim(route=train, cards={"locomotive": 3}) in legal_actions(state, seat)
    assert Claim(route=ship, cards={"locomotive": 4}) in legal_actions(state, seat)
    apply(state, seat, Claim(route=ship, cards={"locomotive": 4}))
    assert state.owner[state.board.route_index[ship]] == seat


def test_jokers_alone_build_a_harbor(started, set_hand, own):
    state = started("world", 2)
    seat = state.current
    own(state, seat, ("caracas", "lima", "yellow"))
    set_hand(state, seat, {"loco": 4})
    harbor = BuildHarbor(city="lima", cards={"locomotive": 4})
    assert harbor in legal_actions(state, seat)
    apply(state, seat, harbor)
    assert public_view(state).harbors == {"lima": seat}


# 7. Rails & Sails: pieces are chosen only after keeping tickets (RULES.md §7) -------------


def test_pieces_cannot_be_chosen_before_keeping_tickets(illegal):
    state = fresh("world", 2)
    illegal(state, 0, ChoosePieces(trains=20, ships=40), "tickets")
    illegal(state, 1, ChoosePieces(trains=20, ships=40), "tickets")
    for seat in range(2):
        apply(
            state, seat, KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[seat]])
        )
    assert state.phase == "choose_pieces"
    for seat in range(2):
        apply(state, seat, ChoosePieces(trains=20, ships=40))
    assert state.phase == "turn"
    assert all(len(t) == 5 for t in state.tickets)


# 8. Rails & Sails: the piece split is public once everyone has chosen (RULES.md §7) -------


def test_piece_split_is_secret_while_choosing_and_public_after():
    state = fresh("world", 2)
    for seat in range(2):
        apply(
            state, seat, KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[seat]])
        )
    apply(state, 0, ChoosePieces(trains=25, ships=35))
    assert public_view(state).piece_split == []
    apply(state, 1, ChoosePieces(trains=10, ships=50))
    assert public_view(state).piece_split == [
        {"trains": 25, "ships": 35},
        {"trains": 10, "ships": 50},
    ]


def test_every_exchange_says_which_way_and_how_many(started):
    state = started("world", 2)
    seat = state.current
    [event] = [e for e in apply(state, seat, ExchangePieces(trains=-3)) if hasattr(e, "count")]
    assert (event.count, event.to) == (3, "ships")
    assert public_view(state).piece_split[seat] == {"trains": 17, "ships": 43}
    other = state.current
    [event] = [e for e in apply(state, other, ExchangePieces(trains=2)) if hasattr(e, "count")]
    assert (event.count, event.to) == (2, "trains")


# 9. Market: refilled slots are checked; nothing to take when all piles are empty ----------


def test_world_slot_refilled_at_turn_end_with_a_third_joker_resets(started, set_hand):
    state = started("world", 2)
    seat = state.current
    setup_position(
        state,
        Position(
            market=["locomotive", "locomotive", None, "white_ship", "yellow_ship", "white_ship"],
            deck_top=["locomotive"] + ["white"] * 6,  # the refill brings a third joker
        ),
    )
    events = apply(state, seat, ExchangePieces(trains=1))
    assert "MarketReset" in [type(e).__name__ for e in events]
    assert state.market.count(LOCO) < 3 and -1 not in state.market


def test_world_no_face_up_card_when_both_decks_and_discards_are_empty(started, illegal):
    state = started("world", 2)
    seat = state.current
    setup_position(
        state,
        Position(
            deck=[],
            discards=[],
            ship_deck=[],
            ship_discards=[],
            market=["white", None, None, None, None, None],
        ),
    )
    illegal(state, seat, DrawFaceUp(slot=0), "empty")
    assert not any(isinstance(a, DrawFaceUp) for a in legal_actions(state, seat))


def test_classic_three_locomotives_reset_once_cards_come_back(started, set_hand):
    """No reset was possible (no cards left to deal); a claim brings cards back to the
    discards, and the market is checked again at the end of that turn."""
    state = started("usa", 2)
    seat = state.current
    red = CARD_INDEX["red"]
    market = ["locomotive", "locomotive", "locomotive", "red", "blue"]
    setup_position(state, Position(market=market, deck=[], discards=[]))
    set_hand(state, seat, {"red": 2})
    board = state.board
    r = next(
        r for r in range(len(board.route_ids)) if board.r_len[r] == 2 and board.r_color[r] == red
    )
    events = apply(state, seat, Claim(route=board.route_ids[r], cards={"red": 2}))
    assert "MarketReset" in [type(e).__name__ for e in events]
    assert state.market.count(LOCO) < 3


# 10. Iberia: no phantom locomotive from a deck of festival cards only (RULES.md §6) -------


def test_iberia_blind_draw_from_festival_cards_only_is_refused(illegal):
    state = iberia_started()
    seat = state.current
    piles = [p.id for p in state.board.rules.festivals.piles]
    setup_position(state, Position(deck=[f"festival_{p}" for p in piles[:2]], discards=[]))
    illegal(state, seat, DrawBlind(), "empty")
    assert DrawBlind() not in legal_actions(state, seat)


# 11. Refusals are IllegalAction (RULES.md §8) ---------------------------------------------


def test_draft_pick_outside_a_draft_is_refused():
    state = iberia_started()
    with pytest.raises(IllegalAction):
        apply(state, state.current, DraftPick(ticket=state.board.t_ids[0]))


def test_keep_tickets_from_another_seat_while_a_festival_is_chosen_is_refused():
    state = iberia_started()
    setup_position(
        state, Position(phase="choose_festival", festival_choice=["sevilla", "valencia"])
    )
    with pytest.raises(IllegalAction):
        apply(state, 1 - state.current, KeepTickets(tickets=[1]))


# 12. Smaller: hand size during a tunnel, Iberia's deck, exchanges of any number ----------


def test_hand_size_during_a_pending_tunnel_counts_the_cards_paid(started, set_hand, set_deck_top):
    state = started("europe", 2)
    seat = state.current
    board = state.board
    r = next(r for r in range(len(board.route_ids)) if board.r_tunnel[r] and board.r_len[r] == 2
             and board.r_color[r] >= 0)
    colour = board.map.routes[r].color
    set_hand(state, seat, {colour: 2})
    others = [c for c in ("red", "blue", "white") if c != colour]
    set_deck_top(state, [colour, *others[:2]])  # one more card asked
    size = public_view(state).players[seat].hand_size
    assert size == 2
    apply(state, seat, Claim(route=board.route_ids[r], cards={colour: 2}))
    assert state.phase == "tunnel"
    assert public_view(state).players[seat].hand_size == size


def test_iberia_public_deck_count_says_how_many_are_festival_or_draft_cards():
    state = iberia_started()
    view = public_view(state)
    special = sum(1 for c in state.deck if c >= SPECIAL)
    assert special > 0 and view.deck_special == special and view.deck == len(state.deck)


def test_legal_actions_offer_every_exchange_apply_accepts(started):
    state = started("world", 2)  # 20 trains + 40 ships; reserve 5 trains and 10 ships
    seat = state.current
    listed = {a.trains for a in legal_actions(state, seat) if isinstance(a, ExchangePieces)}
    assert listed == set(range(-10, 0)) | set(range(1, 6))
