"""Rails & Sails, World map (RULES.md §7), with the rulebook's own examples."""

from __future__ import annotations

import pytest

from engine import (
    BuildHarbor,
    ChoosePieces,
    Claim,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    ExchangePieces,
    GameConfig,
    KeepTickets,
    Position,
    apply,
    legal_actions,
    new_game,
    position_of,
    private_view,
    public_view,
    setup_position,
    waiting_for,
)
from engine.cards import (
    ALL_CARD_KINDS,
    CARD_INDEX,
    CARD_NAMES,
    DOUBLE_SHIP,
    HARBOR_TRAIN,
    LOCO,
    SHIP,
    card_suit,
)
from engine.modules.rails_and_sails import cheapest_payments, suit
from engine.scoring import PlayerScore, final_scores

WHITE, YELLOW, PURPLE = CARD_INDEX["white"], CARD_INDEX["yellow"], CARD_INDEX["purple"]


def labelled(row: PlayerScore) -> dict[str, int]:
    """A player's map points by their English label."""
    return {str(e): e.points for e in row.extras}


def new(players=2, seed=3):
    return new_game(
        GameConfig(map_id="world", players=[f"P{i}" for i in range(players)], seed=seed)
    )


def rid(state, a, b, color=None, kind=None):
    found = [
        r.id
        for r in state.board.map.routes
        if {r.a, r.b} == {a, b}
        and (color is None or r.color == color)
        and (kind is None or r.kind == kind)
    ]
    assert len(found) == 1, found
    return found[0]


# Setup ------------------------------------------------------------------------------------


def test_setup_deals_3_train_7_ship_cards_and_a_3_plus_3_market():
    state = new(3)
    for hand in state.hands:
        assert sum(hand[:SHIP]) == 3 and sum(hand[SHIP:]) == 7
    assert all(c < SHIP for c in state.market[:3]) or state.market.count(LOCO) >= 3
    assert all(c >= SHIP for c in state.market[3:])
    assert [len(o) for o in state.offered] == [5, 5, 5] and state.keep_min == [3, 3, 3]


def test_piece_split_follows_the_tickets_and_stays_secret(illegal):
    state = new(2)
    for seat in range(2):
        apply(
            state,
            seat,
            KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[seat][:3]]),
        )
    assert state.phase == "choose_pieces" and waiting_for(state) == [0, 1]
    illegal(state, 0, ChoosePieces(trains=30, ships=30), "At most 25 trains")
    illegal(state, 0, ChoosePieces(trains=20, ships=30), "60 pieces")
    apply(state, 0, ChoosePieces(trains=25, ships=35))
    illegal(state, 0, ChoosePieces(trains=20, ships=40), "already chosen")
    before = public_view(state)
    apply(state, 1, ChoosePieces(trains=10, ships=50))
    assert state.phase == "turn"
    assert private_view(state, 0).pieces == {
        "trains": 25,
        "ships": 35,
        "reserve_trains": 0,
        "reserve_ships": 15,
    }
    assert [p.trains for p in public_view(state).players] == [60, 60]
    assert before.players[0].trains == 60


def test_a_player_chooses_pieces_right_after_keeping_tickets(illegal):
    """Seed 002: "Nachdem ein Spieler seine Zielkarten gewählt hat": no waiting for the
    others' tickets; the splits are still revealed only once everyone has chosen."""
    state = new(3)
    keep = [[state.board.t_ids[t] for t in state.offered[s][:3]] for s in range(3)]
    apply(state, 0, KeepTickets(tickets=keep[0]))
    assert state.phase == "choose_initial_tickets" and waiting_for(state) == [0, 1, 2]
    assert legal_actions(state, 0) == [
        ChoosePieces(trains=10, ships=50), ChoosePieces(trains=20, ships=40),
        ChoosePieces(trains=25, ships=35)]
    illegal(state, 1, ChoosePieces(trains=20, ships=40), "keep your tickets first")
    assert [p.deciding for p in public_view(state).players] == [True, True, True]
    apply(state, 0, ChoosePieces(trains=25, ships=35))
    assert waiting_for(state) == [1, 2] and legal_actions(state, 0) == []
    assert public_view(state).piece_split == []  # secret while others choose
    apply(state, 1, KeepTickets(tickets=keep[1]))
    apply(state, 1, ChoosePieces(trains=20, ships=40))
    apply(state, 2, KeepTickets(tickets=keep[2]))
    assert state.phase == "choose_pieces" and waiting_for(state) == [2]
    assert public_view(state).piece_split == []
    apply(state, 2, ChoosePieces(trains=10, ships=50))
    assert state.phase == "turn"
    assert public_view(state).piece_split == [
        {"trains": 25, "ships": 35}, {"trains": 20, "ships": 40}, {"trains": 10, "ships": 50}]


# Drawing ----------------------------------------------------------------------------------


def test_draw_from_either_deck_and_refill_from_the_chosen_deck(started):
    state = started("world", 2)
    seat = state.current
    market = position_of(state).market
    setup_position(state, Position(market=["white", *market[1:]]))
    ships_before, trains_before = public_view(state).ship_deck, len(state.deck)
    apply(state, seat, DrawFaceUp(slot=0, refill="ship"))
    assert state.market[0] >= SHIP and public_view(state).ship_deck == ships_before - 1
    apply(state, seat, DrawBlind(deck="train"))
    assert len(state.deck) == trains_before - 1 and state.current != seat


def test_face_up_joker_is_the_whole_draw_and_never_second(started, illegal):
    state = started("world", 2)
    seat = state.current
    market = position_of(state).market
    setup_position(state, Position(market=["locomotive", "white", "yellow", *market[3:]]))
    apply(state, seat, DrawBlind(deck="ship"))
    illegal(state, seat, DrawFaceUp(slot=0, refill="train"), "joker cannot be your second")
    apply(state, seat, DrawFaceUp(slot=1, refill="train"))
    other = state.current
    setup_position(state, Position(market=["locomotive", *position_of(state).market[1:]]))
    apply(state, other, DrawFaceUp(slot=0, refill="train"))
    assert state.current != other


def test_a_blind_joker_counts_as_one_card(started):
    state = started("world", 2)
    seat = state.current
    setup_position(state, Position(deck_top=["locomotive"]))
    apply(state, seat, DrawBlind(deck="train"))
    assert state.phase == "second_draw" and state.hands[seat][LOCO] >= 1


def test_three_face_up_jokers_replace_all_six(started):
    state = started("world", 2)
    seat = state.current
    market = ["locomotive", "locomotive", "white", "white_ship", "yellow_ship"]
    market.append("white_double_ship")
    setup_position(state, Position(market=market, deck_top=["locomotive"]))  # a third joker
    discards = len(state.discards), public_view(state).ship_discards
    events = apply(state, seat, DrawFaceUp(slot=2, refill="train"))
    assert "MarketReset" in [type(e).__name__ for e in events]
    assert len(state.discards) >= discards[0] + 3
    assert public_view(state).ship_discards == discards[1] + 3
    assert all(c < SHIP for c in state.market[:3]) and all(c >= SHIP for c in state.market[3:])


# Claiming: the rulebook's examples --------------------------------------------------------


def test_white_four_ship_route_with_two_double_white_ships(started, set_hand):
    state = started("world", 2)
    seat = state.current
    set_hand(state, seat, {"white_double_ship": 2, "white_ship": 4})
    apply(
        state,
        seat,
        Claim(route=rid(state, "dar_es_salaam", "mumbai"), cards={"white_double_ship": 2}),
    )
    assert state.ext["rs"]["ships"][seat] == 36 and state.scores[seat] == 7


@pytest.mark.parametrize(
    ("cards", "ok"),
    [
        ({"white_double_ship": 2, "white_ship": 1}, True),
        ({"white_double_ship": 3}, True),  # one ship is lost
        ({"white_double_ship": 2, "white_ship": 2}, False),  # a card too many
        ({"white_double_ship": 2}, False),
        ({"white_double_ship": 2, "locomotive": 1}, True),
        ({"white_double_ship": 2, "white": 1}, False),  # never mix trains into a ship route
    ],
)
def test_five_space_ship_route_payments(started, set_hand, illegal, cards, ok):
    state = started("world", 2)
    seat = state.current
    set_hand(state, seat, {"white_double_ship": 3, "white_ship": 2, "locomotive": 1, "white": 1})
    action = Claim(route=rid(state, "honolulu", "manila"), cards=cards)
    if ok:
        apply(state, seat, action)
        assert state.ext["rs"]["ships"][seat] == 35
    else:
        illegal(state, seat, action, "ship route")


def test_purple_three_train_route_with_jokers(started, set_hand, illegal):
    state = started("world", 2)
    seat = state.current
    set_hand(state, seat, {"purple": 1, "purple_harbor": 1, "locomotive": 2, "purple_ship": 3})
    route = rid(state, "novosibirsk", "yakutsk")
    illegal(state, seat, Claim(route=route, cards={"purple_ship": 3}), "train cards")
    apply(state, seat, Claim(route=route, cards={"purple": 1, "locomotive": 2}))
    assert state.ext["rs"]["trains"][seat] == 17


def test_rough_terrain_needs_two_cards_of_one_colour_per_space(started, set_hand, illegal):
    state = started("world", 2)
    seat = state.current
    route = rid(state, "beijing", "lahore")  # 3 rough spaces
    set_hand(state, seat, {"red": 3, "green": 2, "locomotive": 1, "white": 1})
    illegal(state, seat, Claim(route=route, cards={"red": 3, "green": 2, "white": 1}), "rough")
    apply(state, seat, Claim(route=route, cards={"red": 3, "green": 2, "locomotive": 1}))
    assert state.ext["rs"]["trains"][seat] == 17 and state.scores[seat] == 4


def test_cheapest_payments_prefer_plain_cards_and_doubles():
    state = new()
    board = state.board
    r = board.route_index[rid(state, "novosibirsk", "yakutsk")]
    hand = [0] * board.hand_kinds
    hand[PURPLE], hand[HARBOR_TRAIN + PURPLE], hand[LOCO] = 2, 2, 1
    [pay] = cheapest_payments(board, r, hand)
    assert pay[PURPLE] == 2 and pay[HARBOR_TRAIN + PURPLE] == 1 and pay[LOCO] == 0
    r5 = board.route_index[rid(state, "honolulu", "manila")]
    hand = [0] * board.hand_kinds
    hand[DOUBLE_SHIP + WHITE], hand[SHIP + WHITE] = 3, 1
    [pay] = cheapest_payments(board, r5, hand)
    assert pay[DOUBLE_SHIP + WHITE] == 2 and pay[SHIP + WHITE] == 1


def test_pieces_of_the_right_kind_are_needed(started, set_hand, illegal):
    state = started("world", 2)
    seat = state.current
    setup_position(state, Position(pieces={seat: {"ships": 3}}))
    set_hand(state, seat, {"white_double_ship": 2})
    illegal(
        state,
        seat,
        Claim(route=rid(state, "dar_es_salaam", "mumbai"), cards={"white_double_ship": 2}),
        "needs 4 ships",
        "3 left",
    )


# Harbors ----------------------------------------------------------------------------------


def test_harbor_in_lima_with_a_joker_a_yellow_ship_and_two_yellow_trains(
    started, set_hand, own, illegal
):
    state = started("world", 2)
    seat = state.current
    cards = {"locomotive": 1, "yellow_ship": 1, "yellow_harbor": 2}
    set_hand(state, seat, cards)
    illegal(state, seat, BuildHarbor(city="lima", cards=cards), "Claim a route into Lima")
    own(state, seat, ("caracas", "lima", "yellow"))
    illegal(
        state,
        seat,
        BuildHarbor(city="lima", cards={"locomotive": 1, "yellow_ship": 1, "yellow": 2}),
        "harbor symbol",
    )
    apply(state, seat, BuildHarbor(city="lima", cards=cards))
    assert public_view(state).harbors == {"lima": seat}
    other = state.current
    own(state, other, ("caracas", "lima", "white"))
    set_hand(state, other, cards)
    illegal(state, other, BuildHarbor(city="lima", cards=cards), "already has a harbor")
    illegal(state, other, BuildHarbor(city="tehran", cards=cards), "not a harbor city")


def test_harbor_scoring_buenos_aires_is_worth_30(started, own, ticket):
    """Two completed tickets naming Buenos Aires: its harbor scores 30; -4 per unbuilt."""
    state = started("world", 2)
    own(state, 0, ("buenos_aires", "rio_de_janeiro", "red"))
    tickets = [ticket(state, "buenos_aires", "manila"), ticket(state, "buenos_aires", "sydney")]
    # Complete both tickets directly through a chain of owned routes.
    board = state.board
    ba = board.city_index["buenos_aires"]
    owners: dict[int, int | None] = {}
    for t in tickets:
        target = board.t_b[t] if board.t_a[t] == ba else board.t_a[t]
        owners.update((board.route_ids[r], 0) for r in _shortest_routes(board, ba, target))
    setup_position(
        state,
        Position(
            tickets={0: [board.t_ids[t] for t in tickets]},
            owners=owners,
            harbors={"buenos_aires": 0},
        ),
    )
    extras = labelled(final_scores(state).players[0])
    assert extras["harbor Buenos Aires (2 tickets)"] == 30
    assert extras["2 harbors not built"] == -8


def _shortest_routes(board, a, b):
    """Route indexes of a shortest path (fewest routes) from city a to city b."""
    from collections import deque

    prev = {a: None}
    queue = deque([a])
    while queue:
        c = queue.popleft()
        for r in board.routes_at[c]:
            n = board.r_b[r] if board.r_a[r] == c else board.r_a[r]
            if n not in prev:
                prev[n] = (c, r)
                queue.append(n)
    out, c = [], b
    while prev[c] is not None:
        c, r = prev[c]
        out.append(r)
    return out


# Exchange, tickets, tours, the end --------------------------------------------------------


def test_exchange_pieces_costs_a_point_each_within_the_reserve(started, illegal):
    state = started("world", 2)  # 20 trains + 40 ships; reserve 5 trains, 10 ships
    seat = state.current
    illegal(state, seat, ExchangePieces(trains=6), "reserve has only 5 trains")
    illegal(state, seat, ExchangePieces(trains=0), "at least one")
    before = state.scores[seat]
    events = apply(state, seat, ExchangePieces(trains=2))
    assert type(events[0]).__name__ == "PiecesExchanged" and events[0].count == 2
    assert events[0].points == state.scores[seat] - before == -2  # the event tells the score
    rs = state.ext["rs"]
    assert (rs["trains"][seat], rs["ships"][seat]) == (22, 38)
    assert (rs["box_trains"][seat], rs["box_ships"][seat]) == (3, 12)
    assert state.scores[seat] == -2
    assert labelled(final_scores(state).players[seat])["2 pieces exchanged"] == -2


def test_exchange_never_above_25_trains(started, illegal):
    state = started("world", 2)
    seat = state.current
    # A made-up reserve to reach the cap.
    setup_position(state, Position(pieces={seat: {"trains": 24, "reserve_trains": 5}}))
    illegal(state, seat, ExchangePieces(trains=2), "more than 25 trains")


def test_draw_four_tickets_keep_one_returned_to_the_bottom(started):
    state = started("world", 2)
    seat = state.current
    apply(state, seat, DrawTickets())
    assert len(state.offered[seat]) == 4 and state.keep_min[seat] == 1
    offered = list(state.offered[seat])
    apply(state, seat, KeepTickets(tickets=[state.board.t_ids[offered[0]]]))
    assert state.ticket_deck[:3] == offered[:0:-1]  # under the deck, as the core does


@pytest.mark.parametrize(
    ("routes", "points"),
    [
        ([("casablanca", "al_qahira"), ("al_qahira", "tehran", "black")], 15),
        (
            [
                ("al_qahira", "casablanca"),
                ("casablanca", "marseille"),
                ("marseille", "athina"),
                ("athina", "tehran"),
            ],
            9,
        ),
        ([("casablanca", "al_qahira")], -6),
    ],
)
def test_tour_ticket_in_order_any_order_or_failed(started, own, hold, routes, points):
    state = started("world", 2)
    own(state, 0, *routes)
    hold(state, 0, ("casablanca", "tehran"))
    [result] = final_scores(state).players[0].tickets
    assert result.points == points


def test_six_pieces_left_gives_everyone_two_more_turns(started, pass_turn):
    state = started("world", 3)
    seat = state.current
    setup_position(
        state,
        Position(pieces={seat: {"trains": 3, "ships": 4}}, hands={seat: {"green_ship": 1}}),
    )
    apply(state, seat, Claim(route=rid(state, "al_qahira", "athina"), cards={"green_ship": 1}))
    assert state.trains[seat] == 6 and state.turns_left == 6
    for _ in range(5):
        pass_turn(state)
    assert state.phase != "game_over"
    pass_turn(state)
    assert state.phase == "game_over"


def test_no_longest_path_or_most_tickets_bonus():
    state = new()
    rules = state.board.rules
    assert rules.longest_path_bonus == 0 and rules.most_tickets_bonus == 0


def test_legal_actions_offer_both_decks_harbors_and_exchanges(started, set_hand, own):
    state = started("world", 2)
    seat = state.current
    own(state, seat, ("caracas", "lima", "yellow"))
    set_hand(state, seat, {"yellow_harbor": 2, "yellow_ship": 2})
    actions = legal_actions(state, seat)
    assert DrawBlind(deck="train") in actions and DrawBlind(deck="ship") in actions
    assert any(isinstance(a, BuildHarbor) and a.city == "lima" for a in actions)
    assert ExchangePieces(trains=1) in actions and ExchangePieces(trains=-1) in actions


def test_a_blind_draw_tells_which_deck_and_the_piece_choice_has_no_current_player(started):
    state = new(2)
    for seat in range(2):
        apply(
            state,
            seat,
            KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[seat][:3]]),
        )
    assert state.phase == "choose_pieces" and public_view(state).current is None
    state = started("world", 2)
    events = apply(state, state.current, DrawBlind(deck="ship"))
    assert events[-1].deck == "ship" and events[-1].card is None


# The market's corners (issue 25) ----------------------------------------------------------


def test_empty_slots_fill_from_the_ship_deck_when_only_ship_cards_came_back(started):
    """Slots left empty by empty decks fill at the turn's end from whichever deck can give
    a card: here only ship cards came back (the audit's market)."""
    state = started("world", 2)
    seat = state.current
    setup_position(state, Position(
        market=["red", None, None, "red_ship", None, None],
        deck=[], discards=[], ship_deck=[], ship_discards=["white_ship", "green_double_ship"],
    ))
    apply(state, seat, ExchangePieces(trains=1))
    market = position_of(state).market
    assert (market[0], market[3], market[4:]) == ("red", "red_ship", [None, None])
    assert sorted(market[1:3]) == ["green_double_ship", "white_ship"]


def test_empty_slots_fill_from_the_scarcer_kind_a_tie_from_the_train_deck(started):
    state = started("world", 2)
    seat = state.current
    setup_position(state, Position(
        market=["red", "white", None, "red_ship", None, None],
        deck_top=["yellow", "green"], ship_deck=["white_ship", "black_ship", "red_ship"],
    ))
    apply(state, seat, ExchangePieces(trains=1))
    # Slot 3: 2 trains, 1 ship -> a ship; slot 5: 2 and 2 -> a train; slot 6: 3 trains,
    # 2 ships -> a ship.
    assert position_of(state).market == [
        "red", "white", "white_ship", "red_ship", "yellow", "black_ship"]


def test_three_jokers_deal_six_from_the_train_deck_when_no_ship_card_is_left(started):
    """A deck that cannot give its 3 gives what it can and the other deck gives the rest
    (RULES.md §7): no ship card is left anywhere but in hands."""
    state = started("world", 2)
    seat = state.current
    trains = ["white", "yellow", "green", "red", "black", "purple", "white", "yellow"]
    setup_position(state, Position(
        market=["locomotive", "locomotive", "white", "red", None, None],
        deck=["locomotive", *trains], discards=[], ship_deck=[], ship_discards=[],
    ))
    events = apply(state, seat, DrawFaceUp(slot=2, refill="train"))  # a third joker shows
    assert "MarketReset" in [type(e).__name__ for e in events]
    assert position_of(state).market == trains[:6]


def test_three_jokers_take_what_the_ship_deck_has_and_the_rest_from_the_train_deck(started):
    state = started("world", 2)
    seat = state.current
    trains = ["white", "yellow", "green", "red", "black", "purple", "white", "yellow"]
    setup_position(state, Position(
        market=["locomotive", "locomotive", "white", "red", None, None],
        deck=["locomotive", *trains], discards=[], ship_deck=["green_ship"], ship_discards=[],
    ))
    apply(state, seat, DrawFaceUp(slot=2, refill="train"))
    assert sorted(c for c in position_of(state).market if c) == sorted(
        [*trains[:5], "green_ship"])


def test_three_jokers_discard_all_six_before_dealing(started, kinds):
    """The rulebook's order: all six cards go to the discards, then six are dealt; with the
    ship deck empty its three discarded cards come back in one reshuffle."""
    state = started("world", 2)
    seat = state.current
    setup_position(state, Position(
        market=["locomotive", "locomotive", "white", "white_ship", "yellow_ship",
                "white_double_ship"],
        deck_top=["locomotive", "red", "green", "black"], ship_deck=[], ship_discards=[],
    ))
    events = apply(state, seat, DrawFaceUp(slot=2, refill="train"))
    shuffles = [e for e in events if type(e).__name__ == "DeckReshuffled"]
    assert [e.cards for e in shuffles] == [3]
    market = position_of(state).market
    assert market[:3] == ["red", "green", "black"]
    assert sorted(market[3:]) == ["white_double_ship", "white_ship", "yellow_ship"]


def test_a_claim_with_a_chosen_number_of_jokers(started):
    """``payment_with``: the rest of a payment with exactly n jokers comes from the hand,
    double ships before single ones, plain train cards before harbor trains (moved here
    from the bot, which had its own copy of the rule)."""
    from engine import payment_with

    state = started("world", 2)
    world = state.board.map
    ship = next(r for r in world.routes if r.kind == "ship" and r.length == 3)
    train = next(r for r in world.routes if r.kind == "train" and r.length == 3
                 and not r.rough_terrain)
    rough = next(r for r in world.routes if r.kind == "train" and r.rough_terrain)
    setup_position(state, Position(hands={0: {"red_double_ship": 2, "red_ship": 1,
                                              "locomotive": 2}}))
    assert payment_with(state, 0, ship.id, "red", 1) == {"locomotive": 1, "red_double_ship": 1}
    assert payment_with(state, 0, ship.id, "red", 0) == {"red_double_ship": 1, "red_ship": 1}
    setup_position(state, Position(hands={0: {"red": 1, "red_harbor": 3, "locomotive": 1}}))
    assert payment_with(state, 0, train.id, "red", 1) == {
        "locomotive": 1, "red": 1, "red_harbor": 1}
    setup_position(state, Position(hands={0: {"red": 9}}))
    assert payment_with(state, 0, rough.id, "red", 0) == {"red": 2 * rough.length}


def test_a_claim_with_a_chosen_number_of_locomotives_on_a_core_map():
    from engine import payment_with

    state = new_game(GameConfig(map_id="europe", players=["A", "B"], seed=1))
    route = next(r for r in state.board.map.routes if r.length == 4)
    assert payment_with(state, 0, route.id, "red", 1) == {"red": 3, "locomotive": 1}
    assert payment_with(state, 0, route.id, "red", 4) == {"locomotive": 4}


def test_a_cards_suit_by_name_is_its_suit_by_index():
    # The bot and the orders read a suit from a card's name; the rules from its index.
    assert [card_suit(CARD_NAMES[i]) for i in range(ALL_CARD_KINDS)] == [
        CARD_NAMES[suit(i)] for i in range(ALL_CARD_KINDS)]
    assert {card_suit(c) for c in ("red", "red_harbor", "red_ship", "red_double_ship")} == {"red"}
    assert card_suit("locomotive") == "locomotive"
