"""Rails & Sails (World map): two decks, trains and ships, harbors, piece exchange.

The train deck (6 suits, some cards with the harbor symbol, jokers = the
locomotive index) lives in ``state.deck``/``state.discards``; the ship deck
(single ships with the harbor symbol, double ships) in ``state.ext``. The
market holds 6 cards of either kind. ``state.trains`` counts a player's pieces
of both kinds (what the end trigger needs); the split, secret until everyone has
chosen and public from then on, and the reserve in the box are in ``state.ext``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import cache
from itertools import compress, count, filterfalse, repeat
from operator import add, and_
from typing import Any, ClassVar

from engine.actions import (
    Action,
    BuildHarbor,
    ChoosePieces,
    Claim,
    Deck,
    DrawBlind,
    DrawFaceUp,
    ExchangePieces,
    blind,
    exchanges,
    face_up,
    harbor_of,
)
from engine.board import Board
from engine.cards import (
    ALL_CARD_KINDS,
    CARD_INDEX,
    CARD_NAMES,
    DOUBLE_SHIP,
    GRAY,
    HARBOR_TRAIN,
    LOCO,
    SHIP,
    clip_bytes,
    clipped,
    counts_from_names,
    describe_cards,
    names_from_counts,
    suit_word,
)
from engine.claims import ClaimTable, claim_route, owned_routes, these_cards
from engine.errors import IllegalAction, Text
from engine.events import (
    Event,
    HarborBuilt,
    MarketReset,
    PiecesChosen,
    PiecesExchanged,
    RouteClaimed,
    card_drawn,
)
from engine.extras import (
    ExtraPoints,
    exchanged_pieces,
    harbor_points,
    unbuilt_harbors,
)
from engine.hooks import Handler, RuleModule
from engine.memo import MEMO_LIMIT, new_memo
from engine.phases import CHOOSE_INITIAL_TICKETS, CHOOSE_PIECES, SECOND_DRAW, TURN, Phase
from engine.scoring import connected_tickets
from engine.state import GameState
from engine.turns import (
    draw_top,
    end_turn,
    first_turn,
    player_name,
    require_turn,
    route_taken,
    spend,
)
from maps.model import MARKET_SLOTS
from maps.model import RailsAndSails as Config

JOKER = LOCO
KINDS: tuple[Deck, ...] = ("train", "ship")


def _config(state: GameState) -> Config:
    config = state.board.rules.rails_and_sails
    assert config is not None
    return config


def _ext(state: GameState) -> dict[str, Any]:
    ext: dict[str, Any] = state.ext["rs"]
    return ext


def is_ship_card(card: int) -> bool:
    return card >= SHIP


def suit(card: int) -> int:
    """The suit index of a card (JOKER for a joker)."""
    if card == JOKER:
        return JOKER
    return card if card < JOKER else (card - HARBOR_TRAIN) % JOKER


# Decks and the market ---------------------------------------------------------------------


def _pile(state: GameState, kind: str) -> tuple[list[int], list[int]]:
    if kind == "train":
        return state.deck, state.discards
    ext = _ext(state)
    return ext["ship_deck"], ext["ship_discards"]


def _has_cards(state: GameState, kind: str) -> bool:
    deck, discards = _pile(state, kind)
    return bool(deck or discards)


def _draw(state: GameState, seat: int, kind: str, events: list[Event]) -> int:
    return draw_top(state, *_pile(state, kind), seat, events)


def _discard(state: GameState, cards: Sequence[int]) -> None:
    """Counted cards back to their own deck's discards (jokers are train cards)."""
    trains, ships = state.discards, _ext(state)["ship_discards"]
    for card in compress(count(), cards):  # the kinds played, picked in C
        (ships if is_ship_card(card) else trains).extend([card] * cards[card])


def _deal(state: GameState, seat: int, kind: str, n: int, events: list[Event]) -> list[int]:
    """Up to ``n`` cards from the ``kind`` deck (its discards reshuffled when it runs out)."""
    cards: list[int] = []
    while len(cards) < n and (card := _draw(state, seat, kind, events)) >= 0:
        cards.append(card)
    return cards


def _deal_market(state: GameState, seat: int, events: list[Event]) -> None:
    """Deal the market afresh (it starts empty at setup): all its cards go to their
    discards first, then 3 are dealt from each deck; a deck that cannot give its 3 gives
    what it can and the other deck gives the rest (RULES.md §7)."""
    config, market = _config(state), state.market
    for card in market:
        if card >= 0:
            _pile(state, "ship" if is_ship_card(card) else "train")[1].append(card)
    dealt = _deal(state, seat, "train", config.market_train_cards, events)
    dealt += _deal(state, seat, "ship", config.market_ship_cards, events)
    for kind in KINDS:
        dealt += _deal(state, seat, kind, len(market) - len(dealt), events)
    dealt.sort(key=is_ship_card)  # train cards first, as the market is laid out
    market[:] = dealt + [-1] * (len(market) - len(dealt))


def _reset_on_three_jokers(state: GameState, seat: int, events: list[Event]) -> None:
    """Three face-up jokers: all six cards go and six are dealt (again while it recurs)."""
    for _ in range(20):  # with almost only jokers left a redeal cannot help: stop trying
        if state.market.count(JOKER) < 3:
            return
        _deal_market(state, seat, events)
        events.append(MarketReset(seat))


def _gap_kind(state: GameState) -> str:
    """The deck an empty slot fills from: the kind scarcer among the face-up cards (a tie:
    the train deck), else the other deck if only it has cards (RULES.md §7)."""
    ships = sum(1 for c in state.market if is_ship_card(c))
    trains = sum(1 for c in state.market if 0 <= c < SHIP)
    kind, other = ("ship", "train") if ships < trains else ("train", "ship")
    return kind if _has_cards(state, kind) else other


# Setup ------------------------------------------------------------------------------------


def _build_decks(state: GameState) -> None:
    config, rules = _config(state), state.board.rules
    trains: list[int] = []
    ships: list[int] = []
    for name in rules.deck.colors:
        c = CARD_INDEX[name]
        harbor = config.harbor_train_cards_per_color
        trains += [HARBOR_TRAIN + c] * harbor + [c] * (rules.deck.per_color - harbor)
    trains += [JOKER] * rules.deck.locomotives
    for name in config.ship_deck.colors:
        c = CARD_INDEX[name]
        ships += [SHIP + c] * config.ship_deck.singles_per_color
        ships += [DOUBLE_SHIP + c] * config.ship_deck.doubles_per_color
    state.rng.shuffle(trains)
    state.rng.shuffle(ships)
    state.deck, state.discards = trains, []
    n = state.n_players
    state.ext["rs"] = {
        "ship_deck": ships,
        "ship_discards": [],
        "chosen": [False] * n,
        "trains": [0] * n,  # in supply
        "ships": [0] * n,
        "box_trains": [config.max_trains] * n,  # the reserve for exchanges
        "box_ships": [config.max_ships] * n,
        "harbors": {},  # city index (as str for JSON) -> seat
        "harbors_left": [config.harbors_per_player] * n,
        "exchanged": [0] * n,
    }
    hands = state.hands
    for seat in range(n):
        hands[seat] = [0] * state.board.hand_kinds
        for _ in range(config.deal_train_cards):
            hands[seat][trains.pop()] += 1
        for _ in range(config.deal_ship_cards):
            hands[seat][ships.pop()] += 1
    state.market = [-1] * (config.market_train_cards + config.market_ship_cards)
    _deal_market(state, 0, [])
    _reset_on_three_jokers(state, 0, [])


def choose_pieces(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, ChoosePieces)
    config, ext = _config(state), _ext(state)
    if ext["chosen"][seat]:
        raise IllegalAction("You have already chosen your pieces.")
    early = (CHOOSE_INITIAL_TICKETS, CHOOSE_PIECES)
    if state.phase not in early or state.offered[seat]:
        # Each player chooses after keeping their own tickets, not waiting for the others'
        # (seed 002: "Nachdem ein Spieler seine Zielkarten gewählt hat").
        raise IllegalAction("Choose your pieces once you have kept your destination tickets: "
                            "keep your tickets first.")
    if action.trains + action.ships != config.pieces:
        raise IllegalAction("Choose {n} pieces in all; you chose {trains} trains and {ships} "
                            "ships.", n=config.pieces, trains=action.trains, ships=action.ships)
    if action.trains > config.max_trains or action.ships > config.max_ships:
        raise IllegalAction("At most {trains} trains and {ships} ships.",
                            trains=config.max_trains, ships=config.max_ships)
    ext["chosen"][seat] = True
    ext["trains"][seat], ext["ships"][seat] = action.trains, action.ships
    ext["box_trains"][seat] = config.max_trains - action.trains
    ext["box_ships"][seat] = config.max_ships - action.ships
    state.trains[seat] = config.pieces
    events: list[Event] = [PiecesChosen(seat)]
    if all(ext["chosen"]) and state.phase == CHOOSE_PIECES:
        return first_turn(state, events)
    return events


# Drawing cards ----------------------------------------------------------------------------


def _cards_left(state: GameState) -> bool:
    """Whether any deck or discard pile has a card: if none has, no card may be taken at
    all, face-up ones included (seed 002)."""
    return _has_cards(state, "train") or _has_cards(state, "ship")


def _after_card(state: GameState, events: list[Event], whole_turn: bool) -> list[Event]:
    if state.phase == TURN and not whole_turn and _cards_left(state):
        state.phase = SECOND_DRAW
        return events
    state.phase = TURN
    return end_turn(state, events)


def draw_blind(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, DrawBlind)
    require_turn(state, seat, TURN, SECOND_DRAW)
    if not _has_cards(state, action.deck):
        raise IllegalAction("The {deck} and its discards are empty.", deck=_DECKS[action.deck])
    events: list[Event] = []
    card = _draw(state, seat, action.deck, events)
    state.hands[seat][card] += 1
    events.append(card_drawn(seat, None, None, action.deck))
    return _after_card(state, events, whole_turn=False)


def draw_face_up(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, DrawFaceUp)
    require_turn(state, seat, TURN, SECOND_DRAW)
    market = state.market
    if action.slot >= len(market) or market[action.slot] < 0:
        raise IllegalAction("There is no face-up card in slot {slot}.", slot=action.slot + 1)
    if not _cards_left(state):
        raise IllegalAction(
            "Both decks and their discards are empty: no card may be taken, face up or not."
        )
    card = market[action.slot]
    if card == JOKER and state.phase == SECOND_DRAW:
        raise IllegalAction("A face-up joker cannot be your second card.")
    refill = action.refill
    if refill is None:
        refill = "train" if _has_cards(state, "train") else "ship"
    if not _has_cards(state, refill) and _has_cards(
        state, "ship" if refill == "train" else "train"
    ):
        raise IllegalAction("The {deck} is empty: refill from the other deck.",
                            deck=_DECKS[refill])
    events: list[Event] = []
    state.hands[seat][card] += 1
    events.append(card_drawn(seat, CARD_NAMES[card], action.slot))
    market[action.slot] = _draw(state, seat, refill, events)
    _reset_on_three_jokers(state, seat, events)
    return _after_card(state, events, whole_turn=card == JOKER)


# Claiming routes --------------------------------------------------------------------------


# The two decks as players read them.
_DECKS = {"train": Text("train deck"), "ship": Text("ship deck")}


def _route_need(board: Board, r: int) -> Text:
    route = board.map.routes[r]
    colour = suit_word(board.r_color[r])
    name = board.route_name(r)
    if route.kind == "ship":
        return Text("{route} is a ship route: it needs {n} ships in {colour} ship cards (a "
                    "double ship counts 2) or jokers", route=name, n=route.length, colour=colour)
    if route.rough_terrain:
        return Text("{route} crosses rough terrain: each of its {n} spaces needs 2 train cards "
                    "of one colour (jokers count as any)", route=name, n=route.length)
    return Text("{route} needs {n} {colour} train cards or jokers", route=name, n=route.length,
                colour=colour)


def _claim_ok(board: Board, r: int, pay: Sequence[int]) -> bool:
    """Whether ``pay`` is a valid payment for route ``r`` (ignoring what the player holds)."""
    route = board.map.routes[r]
    jokers = pay[JOKER]
    colour = board.r_color[r]
    if route.kind == "ship":
        if any(pay[:JOKER]) or any(pay[JOKER + 1:SHIP]):  # (tested in C)
            return False  # train cards on a ship route
        suits = {suit(c) for c in compress(range(SHIP, len(pay)), pay[SHIP:])}
        if len(suits) > 1 or (colour != GRAY and suits - {colour}):
            return False
        values = [1] * jokers + [
            1 if c < DOUBLE_SHIP else 2 for c in range(SHIP, len(pay)) for _ in range(pay[c])
        ]
        total = sum(values)
        # Enough ships, and no card that could be left out (a double may overshoot by one).
        return total >= route.length and (not values or total - min(values) < route.length)
    if any(pay[SHIP:]):  # (tested in C)
        return False  # ship cards on a train route
    per_suit: dict[int, int] = {}
    for c in compress(range(SHIP), pay[:SHIP]):  # the kinds paid, picked in C
        if c != JOKER:
            per_suit[suit(c)] = per_suit.get(suit(c), 0) + pay[c]
    total = sum(per_suit.values()) + jokers
    if route.rough_terrain:
        # Pairs of one suit per space; a lone card of a suit needs a joker beside it.
        odd = sum(n % 2 for n in per_suit.values())
        return total == 2 * route.length and jokers >= odd
    if len(per_suit) > 1 or (colour != GRAY and set(per_suit) - {colour}):
        return False
    return total == route.length


def cheapest_payments(board: Board, r: int, hand: Sequence[int]) -> list[list[int]]:
    """One cheapest payment per suit (plain train cards before harbor ones, doubles first);
    jokers alone when no suit pays."""
    route = board.map.routes[r]
    if route.rough_terrain and route.kind == "train":  # suits mixed per space
        rough = _cheapest_rough(hand, route.length)  # jokers alone included
        return [rough] if rough else []
    colour = board.r_color[r]
    suits = (colour,) if colour != GRAY else _deck_suits(board)
    out: list[list[int]] = []
    for s in suits:  # (no builtin min here: a call to it costs more in 3.11)
        if route.kind == "ship":
            need = route.length
            doubles = hand[DOUBLE_SHIP + s]
            if doubles > need // 2:
                doubles = need // 2
            need -= 2 * doubles
            singles = hand[SHIP + s] if hand[SHIP + s] < need else need
            need -= singles
            if need and hand[DOUBLE_SHIP + s] > doubles:  # overshoot by one rather than a joker
                doubles += 1
                need = 0
            jokers = need
            if jokers > hand[JOKER] or doubles + singles == 0:
                continue
            pay = [0] * len(hand)
            pay[DOUBLE_SHIP + s], pay[SHIP + s], pay[JOKER] = doubles, singles, jokers
        else:
            plain = hand[s] if hand[s] < route.length else route.length
            harbor = hand[HARBOR_TRAIN + s]
            if harbor > route.length - plain:
                harbor = route.length - plain
            jokers = route.length - plain - harbor
            if jokers > hand[JOKER] or plain + harbor == 0:
                continue
            pay = [0] * len(hand)
            pay[s], pay[HARBOR_TRAIN + s], pay[JOKER] = plain, harbor, jokers
        out.append(pay)
    if not out and hand[JOKER] >= route.length:  # jokers alone pay too
        pay = [0] * len(hand)
        pay[JOKER] = route.length
        out.append(pay)
    return out


@cache
def _deck_suits(board: Board) -> tuple[int, ...]:
    """The suits of the map's deck (those a gray route may be paid in), in its order."""
    return tuple(CARD_INDEX[n] for n in board.rules.deck.colors)


# The cards that can pay a train route, and a ship route.
TRAIN_CARDS = tuple(range(SHIP))  # train suits, jokers, train cards with the harbor symbol
SHIP_CARDS = (JOKER, *range(SHIP, ALL_CARD_KINDS))

# Places of ``_reach``'s list: a suit's train cards, a gray train route's, then the same
# for ships.
GRAY_TRAINS = JOKER
SHIPS = JOKER + 1


def _reach(hand: Sequence[int]) -> list[int]:
    """The most spaces ``hand`` could fill on a train route of each suit, on a gray one,
    then the same for ship routes (a double ship fills two)."""
    if len(hand) != ALL_CARD_KINDS:  # (never in a game: a hand holds every kind)
        hand = [*hand, *[0] * (ALL_CARD_KINDS - len(hand))][:ALL_CARD_KINDS]
    # Unpacked and added name by name: a comprehension costs more than twice as much.
    (t0, t1, t2, t3, t4, t5, t6, t7, j, h0, h1, h2, h3, h4, h5, h6, h7,
     s0, s1, s2, s3, s4, s5, s6, s7, d0, d1, d2, d3, d4, d5, d6, d7) = hand
    trains = [t0 + h0 + j, t1 + h1 + j, t2 + h2 + j, t3 + h3 + j,
              t4 + h4 + j, t5 + h5 + j, t6 + h6 + j, t7 + h7 + j]
    ships = [s0 + d0 + d0 + j, s1 + d1 + d1 + j, s2 + d2 + d2 + j, s3 + d3 + d3 + j,
             s4 + d4 + d4 + j, s5 + d5 + d5 + j, s6 + d6 + d6 + j, s7 + d7 + d7 + j]
    return [*trains, max(trains), *ships, max(ships)]


assert (JOKER, HARBOR_TRAIN, SHIP, DOUBLE_SHIP, ALL_CARD_KINDS) == (8, 9, 17, 25, 33)  # _reach's


@cache
def _claim_table(board: Board) -> ClaimTable:
    """Routes pay alike when kind, colour, length and terrain are alike; a coloured route's
    payments depend on its suit's cards of its kind and the jokers. Rough terrain mixes
    suits: no quick test of reach for it."""
    routes = board.map.routes

    def shape(r: int) -> tuple[object, ...]:
        return (routes[r].kind, board.r_color[r], routes[r].length, routes[r].rough_terrain)

    def suit(r: int) -> int | None:
        if routes[r].rough_terrain:
            return None
        colour = GRAY_TRAINS if board.r_color[r] == GRAY else board.r_color[r]
        return colour + SHIPS if routes[r].kind == "ship" else colour

    def counts(r: int) -> Callable[[Sequence[int]], Hashable]:
        s, ship = board.r_color[r], routes[r].kind == "ship"
        if routes[r].rough_terrain:
            return these_cards(*TRAIN_CARDS)  # which suits pair up depends on them all
        if s == GRAY:
            return _gray_ships(routes[r].length) if ship else _gray_trains(routes[r].length)
        if ship:
            return these_cards(DOUBLE_SHIP + s, SHIP + s, JOKER)
        return these_cards(s, HARBOR_TRAIN + s, JOKER)

    def pieces(r: int) -> int:
        return 1 if routes[r].kind == "ship" else 0  # ``turn_actions``' (trains, ships)

    return ClaimTable(board, shape, counts, suit, _reach, cheapest_payments, pieces)


@cache
def _gray_trains(length: int) -> Callable[[Sequence[int]], Hashable]:
    """What a gray train route's payments (``cheapest_payments``) depend on: per suit,
    the plain and harbor cards it would play (none if the jokers cannot make up the rest),
    and the jokers up to ``length``."""

    def counts(hand: Sequence[int]) -> Hashable:
        jokers = hand[JOKER]
        need = length - jokers if jokers < length else 1  # cards beside the jokers (one at least)
        out = [jokers if jokers < length else length]
        for s in range(JOKER):  # (no builtin min here: a call to it costs more in 3.11)
            plain, harbor = hand[s], hand[HARBOR_TRAIN + s]
            if plain + harbor < need:
                out += _NONE
            elif plain >= length:
                out += (length, 0)
            else:
                out += (plain, harbor if plain + harbor <= length else length - plain)
        return tuple(out)

    return counts


_NONE = (0, 0)  # a suit that cannot pay: what ``_gray_trains`` keys it by


@cache
def _gray_ships(length: int) -> Callable[[Sequence[int]], Hashable]:
    """What a gray ship route's payments depend on: per suit, the double ships up to one
    more than fit (one may overshoot), the single ships up to ``length``; the jokers up to
    ``length``."""
    most_doubles = length // 2 + 1
    singles, doubles = clipped(length), clipped(most_doubles)

    def counts(hand: Sequence[int]) -> Hashable:
        try:  # each count clipped, looked up in C
            return (*map(singles.__getitem__, hand[SHIP:DOUBLE_SHIP]),
                    *map(doubles.__getitem__, hand[DOUBLE_SHIP:ALL_CARD_KINDS]),
                    singles[hand[JOKER]])
        except IndexError:  # more cards of a kind than the tables cover
            return (*(min(n, length) for n in hand[SHIP:DOUBLE_SHIP]),
                    *(min(n, most_doubles) for n in hand[DOUBLE_SHIP:ALL_CARD_KINDS]),
                    min(hand[JOKER], length))

    return counts


def _cheapest_rough(hand: Sequence[int], spaces: int) -> list[int] | None:
    """Pairs of one suit per space from the most plentiful suits, jokers filling in."""
    pay = [0] * len(hand)
    jokers = hand[JOKER]
    totals = [*map(add, hand[:JOKER], hand[HARBOR_TRAIN:SHIP])]
    for s in sorted(range(JOKER), key=totals.__getitem__, reverse=True):  # (stable)
        if not spaces or totals[s] < 2:  # (the suits after it hold no more)
            break
        pairs = totals[s] // 2 if totals[s] < 2 * spaces else spaces
        if pairs:  # plain cards before harbor ones
            cards = 2 * pairs
            pay[s] = hand[s] if hand[s] < cards else cards
            pay[HARBOR_TRAIN + s] = cards - pay[s]
            spaces -= pairs
    for s in range(JOKER) if spaces and jokers else ():  # a lone card with a joker
        if spaces and jokers and hand[s] + hand[HARBOR_TRAIN + s] > pay[s] + pay[HARBOR_TRAIN + s]:
            kind = s if hand[s] > pay[s] else HARBOR_TRAIN + s
            pay[kind] += 1
            pay[JOKER] += 1
            jokers -= 1
            spaces -= 1
    while spaces and jokers >= 2:
        pay[JOKER] += 2
        jokers -= 2
        spaces -= 1
    return None if spaces else pay


def claim(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, Claim)
    require_turn(state, seat, TURN)
    board = state.board
    r = board.route_index.get(action.route)
    if r is None:
        raise IllegalAction("There is no route {route} on this map.", route=action.route)
    problem = route_taken(state, seat, r)
    if problem:
        raise IllegalAction(problem)
    route = board.map.routes[r]
    ext = _ext(state)
    pieces = ext["ships" if route.kind == "ship" else "trains"]
    if pieces[seat] < route.length:
        need = Text("{route} needs {n} ships; you have {left} left.") if route.kind == "ship" \
            else Text("{route} needs {n} trains; you have {left} left.")
        need.fields.update(route=board.route_name(r), n=route.length, left=pieces[seat])
        raise IllegalAction(need)
    hand = state.hands[seat]
    if not _claim_table(board).pays(r, hand):  # (its memo: legal_actions met this hand)
        raise IllegalAction("{need}; you cannot pay it now.", need=_route_need(board, r))
    pay = counts_from_names(action.cards, board.hand_kinds)
    if pay is None or not _claim_ok(board, r, pay):
        shown = describe_cards(pay) if pay else Text("unknown cards")
        raise IllegalAction("{need}; you offered {cards}.", need=_route_need(board, r),
                            cards=shown)
    spend(state, seat, pay)
    _discard(state, pay)
    pieces[seat] -= route.length
    state.trains[seat] -= route.length
    claim_route(state, r, seat)
    state.scores[seat] += board.r_points[r]
    events: list[Event] = [
        RouteClaimed(seat, action.route, names_from_counts(pay), board.r_points[r])
    ]
    return end_turn(state, events)


# Harbors and exchanges --------------------------------------------------------------------


def _harbor_ok(pay: Sequence[int], config: Config) -> bool:
    suits = {suit(c) for c, n in enumerate(pay) if n and c != JOKER}
    if len(suits) > 1:
        return False
    trains = sum(pay[c] for c in range(HARBOR_TRAIN, SHIP))
    ships = sum(pay[c] for c in range(SHIP, DOUBLE_SHIP))
    other = sum(pay) - trains - ships - pay[JOKER]
    return (
        other == 0
        and trains <= config.harbor_train_cards
        and ships <= config.harbor_ship_cards
        and trains + ships + pay[JOKER] == config.harbor_train_cards + config.harbor_ship_cards
    )


def _harbor_payments(hand: Sequence[int], config: Config) -> list[list[int]]:
    """``_harbor_options`` through a memo: they depend only on the harbor train and ship
    cards up to what a harbor takes of each, and the jokers up to its cost (shared lists:
    do not change them). Most hands pay for no harbor, which a test in C tells first."""
    trains, ships = config.harbor_train_cards, config.harbor_ship_cards
    cost = trains + ships
    jokers = hand[JOKER]
    key: tuple[Any, ...]
    try:  # each count clipped in C, a byte a count
        train_cards = bytes(hand[HARBOR_TRAIN:SHIP]).translate(clip_bytes(trains))
        ship_cards = bytes(hand[SHIP:DOUBLE_SHIP]).translate(clip_bytes(ships))
        # A suit pays with what it has of both and jokers for the rest (none: jokers alone).
        if jokers < cost and max(map(add, train_cards, ship_cards)) < cost - jokers:
            return _NO_PAYMENTS
        key = (trains, ships, len(hand), jokers if jokers < cost else cost, train_cards,
               ship_cards)
    except ValueError:  # a count beyond a byte (never in a game)
        key = (trains, ships, len(hand), min(jokers, cost),
               *map(min, hand[HARBOR_TRAIN:SHIP], repeat(trains)),
               *map(min, hand[SHIP:DOUBLE_SHIP], repeat(ships)))
    known = _HARBOR_PAYMENTS.get(key)
    if known is None:
        if len(_HARBOR_PAYMENTS) >= MEMO_LIMIT:
            _HARBOR_PAYMENTS.clear()
        known = _HARBOR_PAYMENTS[key] = _harbor_options(hand, config)
    return known


_HARBOR_PAYMENTS: dict[tuple[Any, ...], list[list[int]]] = new_memo()
_NO_PAYMENTS: list[list[int]] = []  # (shared: never changed)


# (decks that can refill, second card?, market...) -> the draws ``draw_actions`` lists.
_DRAWS: dict[tuple[Any, ...], tuple[Action, ...]] = new_memo()


def _harbor_options(hand: Sequence[int], config: Config) -> list[list[int]]:
    """Per suit, the harbor payment of its harbor cards, jokers making up the rest; jokers
    alone when no suit pays."""
    out = []
    most_trains, most_ships = config.harbor_train_cards, config.harbor_ship_cards
    cost = most_trains + most_ships
    for s in range(JOKER):  # (no builtin min here: a call to it costs more in 3.11)
        trains = hand[HARBOR_TRAIN + s] if hand[HARBOR_TRAIN + s] < most_trains else most_trains
        ships = hand[SHIP + s] if hand[SHIP + s] < most_ships else most_ships
        if trains + ships == 0 or cost - trains - ships > hand[JOKER]:
            continue
        pay = [0] * len(hand)
        pay[HARBOR_TRAIN + s], pay[SHIP + s], pay[JOKER] = trains, ships, cost - trains - ships
        out.append(pay)
    if not out and hand[JOKER] >= cost:  # jokers alone pay too
        pay = [0] * len(hand)
        pay[JOKER] = cost
        out.append(pay)
    return out


def _harbor_cities(state: GameState, seat: int) -> list[int]:
    """Harbor cities without a harbor that ``seat``'s routes reach."""
    harbors, owned = _ext(state)["harbors"], owned_routes(state)[seat]
    key = (state.board, owned)  # a board hashes by identity: one per map, kept
    reached = _REACHED.get(key)
    if reached is None:
        if len(_REACHED) >= _REACHED_LIMIT:
            _REACHED.clear()
        cities, keys, touching = _harbor_cities_of(state.board)
        reached = _REACHED[key] = dict(
            compress(zip(keys, cities, strict=True), map(and_, touching, repeat(owned))))
    if not harbors:
        return [*reached.values()]
    # (picked in C: ``harbors`` is keyed by the city index as a string)
    return [*map(reached.__getitem__, filterfalse(harbors.__contains__, reached))]


# (board, routes owned) -> the harbor cities they reach, by their key in ``harbors``: a
# seat's routes change only when it claims one, its harbor options are listed every turn.
# Kept small (a few games' worth): its dicts are objects every full garbage collection of
# the process walks.
_REACHED: dict[tuple[Board, int], dict[str, int]] = new_memo()
_REACHED_LIMIT = 1_000


@cache
def _harbor_cities_of(board: Board) -> tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...]]:
    """The harbor cities, their keys in ``harbors`` and the routes touching each (a
    bitmask)."""
    cities = tuple(c for c, city in enumerate(board.map.cities) if city.harbor)
    return (cities, tuple(map(str, cities)),
            tuple(sum(1 << r for r in board.routes_at[c]) for c in cities))


def build_harbor(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, BuildHarbor)
    require_turn(state, seat, TURN)
    board, ext, config = state.board, _ext(state), _config(state)
    if not ext["harbors_left"][seat]:
        raise IllegalAction("You have built all {n} of your harbors.",
                            n=config.harbors_per_player)
    city = board.city_index.get(action.city)
    if city is None or not board.map.cities[city].harbor:
        raise IllegalAction("{city!r} is not a harbor city (the blue ones).", city=action.city)
    name = board.city_names[city]
    if str(city) in ext["harbors"]:
        raise IllegalAction("{city} already has a harbor ({player}'s).", city=name,
                            player=player_name(state, ext["harbors"][str(city)]))
    if not any(state.owner[r] == seat for r in board.routes_at[city]):
        raise IllegalAction("Claim a route into {city} before you build a harbor there.",
                            city=name)
    pay = counts_from_names(action.cards, board.hand_kinds)
    if pay is None or not _harbor_ok(pay, config):
        raise IllegalAction("A harbor costs {trains} train and {ships} ship cards of one colour, "
                            "all with the harbor symbol; jokers replace any.",
                            trains=config.harbor_train_cards, ships=config.harbor_ship_cards)
    spend(state, seat, pay)
    _discard(state, pay)
    ext["harbors"][str(city)] = seat
    ext["harbors_left"][seat] -= 1
    return end_turn(state, [HarborBuilt(seat, board.city_ids[city], names_from_counts(pay))])


def exchange_pieces(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, ExchangePieces)
    require_turn(state, seat, TURN)
    problem = _exchange_problem(state, seat, action.trains)
    if problem:
        raise IllegalAction(problem)
    ext, n = _ext(state), action.trains
    ext["trains"][seat] += n
    ext["box_trains"][seat] -= n
    ext["ships"][seat] -= n
    ext["box_ships"][seat] += n
    ext["exchanged"][seat] += abs(n)
    points = abs(n) * _config(state).exchange_points_per_piece
    state.scores[seat] += points
    return end_turn(state, [PiecesExchanged(seat, abs(n), "trains" if n > 0 else "ships",
                                            points)])


def _exchange_problem(state: GameState, seat: int, n: int) -> Text | None:
    ext, config = _ext(state), _config(state)
    if n == 0:
        return Text("Exchange at least one piece.")
    gain, lose = ("trains", "ships") if n > 0 else ("ships", "trains")
    k = abs(n)
    if ext[f"box_{gain}"][seat] < k:
        return Text("Your reserve has only {n} {pieces}.", n=ext[f"box_{gain}"][seat],
                    pieces=_PIECES[gain])
    if ext[lose][seat] < k:
        return Text("You have only {n} {pieces} to give back.", n=ext[lose][seat],
                    pieces=_PIECES[lose])
    limit = config.max_trains if gain == "trains" else config.max_ships
    if ext[gain][seat] + k > limit:
        return Text("You may never have more than {n} {pieces}.", n=limit, pieces=_PIECES[gain])
    return None


_PIECES = {"trains": Text("trains"), "ships": Text("ships")}


# The decks a card may be drawn from, by (train deck has cards, ship deck has cards).
_REFILLS: dict[tuple[bool, bool], tuple[Deck, ...]] = {
    (train, ship): tuple(k for k, has in zip(KINDS, (train, ship), strict=True) if has)
    for train in (False, True) for ship in (False, True)
}
# Per decks to refill from, per market slot: its face-up draws.
_TAKES = {refills: [tuple(face_up(slot, k) for k in refills)
                    for slot in range(MARKET_SLOTS)]
          for refills in _REFILLS.values()}


# The module -------------------------------------------------------------------------------


_PIECE_KEYS = {
    "trains": "trains",
    "ships": "ships",
    "reserve_trains": "box_trains",
    "reserve_ships": "box_ships",
}


def _pieces(ext: dict[str, Any], seat: int) -> dict[str, int]:
    return {key: ext[name][seat] for key, name in _PIECE_KEYS.items()}


class RailsAndSails(RuleModule):
    handlers: ClassVar[dict[type, Handler]] = {
        DrawBlind: draw_blind,
        DrawFaceUp: draw_face_up,
        Claim: claim,
        ChoosePieces: choose_pieces,
        BuildHarbor: build_harbor,
        ExchangePieces: exchange_pieces,
    }
    phases: ClassVar[dict[Phase, Text]] = {
        CHOOSE_PIECES: Text("Everyone is still choosing their pieces."),
    }
    early_phase = CHOOSE_PIECES
    replaces_turn_actions = True

    def refill_market(self, state: GameState, seat: int, events: list[Event]) -> bool:
        if "rs" not in state.ext:
            return True  # the core setup's deal: this module's setup deals its own market
        for i, card in enumerate(state.market):
            if card < 0:
                state.market[i] = _draw(state, seat, _gap_kind(state), events)
        _reset_on_three_jokers(state, seat, events)
        return True

    def setup(self, state: GameState) -> None:
        _build_decks(state)
        state.trains = [_config(state).pieces] * state.n_players

    def interrupts_turn_order(self, state: GameState, events: list[Event]) -> bool:
        if state.phase == CHOOSE_INITIAL_TICKETS and not all(_ext(state)["chosen"]):
            state.phase = CHOOSE_PIECES
            return True
        return False

    def waiting_for(self, state: GameState) -> list[int]:
        return [s for s, chosen in enumerate(_ext(state)["chosen"]) if not chosen]

    def phase_actions(self, state: GameState, seat: int) -> list[Action]:
        config = _config(state)
        if _ext(state)["chosen"][seat]:
            return []
        splits = {
            (config.suggested_trains, config.suggested_ships),
            (config.max_trains, config.pieces - config.max_trains),
            (config.pieces - config.max_ships, config.max_ships),
        }
        return [ChoosePieces(trains=t, ships=s) for t, s in sorted(splits)]

    def turn_actions(self, state: GameState, seat: int) -> list[Action]:
        board, ext = state.board, _ext(state)
        hand = state.hands[seat]
        if state.phase == SECOND_DRAW:
            return []
        pieces = state.trains[seat]  # both kinds: a route's length is taken from its kind
        trains, ships = ext["trains"][seat], ext["ships"][seat]
        out = _claim_table(board).claims(  # (a new list: extended here)
            state, seat, hand, (trains if trains < pieces else pieces,
                                ships if ships < pieces else pieces)
        )
        # The payments first: most hands have none, and then the cities are not needed.
        if ext["harbors_left"][seat] and (payments := _harbor_payments(hand, _config(state))):
            for city in _harbor_cities(state, seat):  # (mapped in C: no comprehension's frame)
                out += map(harbor_of, repeat(board.city_ids[city], len(payments)), payments)
        config = _config(state)
        most_trains = min(
            ext["box_trains"][seat], ext["ships"][seat], config.max_trains - ext["trains"][seat]
        )
        most_ships = min(
            ext["box_ships"][seat], ext["trains"][seat], config.max_ships - ext["ships"][seat]
        )
        out += exchanges(most_trains, most_ships)
        return out

    def payment_with(self, state: GameState, seat: int, route: int, colour: str,
                     wild: int) -> dict[str, int]:
        """Jokers as asked, the rest from the hand: on a ship route double ships before
        single ones (one ship over rather than short), on a train route plain train cards
        before harbor ones (those are kept for harbors), two a space on rough terrain."""
        hand, spec = names_from_counts(state.hands[seat]), state.board.map.routes[route]
        cards = {"locomotive": wild}
        if spec.kind == "ship":
            need = spec.length - wild
            doubles = min(hand.get(f"{colour}_double_ship", 0), need // 2)
            singles = min(hand.get(f"{colour}_ship", 0), need - 2 * doubles)
            if need - 2 * doubles - singles > 0 and hand.get(f"{colour}_double_ship", 0) > doubles:
                doubles += 1
            cards.update({f"{colour}_double_ship": doubles, f"{colour}_ship": singles})
        else:
            per_space = _config(state).rough_terrain_cards_per_space if spec.rough_terrain else 1
            need = spec.length * per_space
            plain = min(hand.get(colour, 0), need - wild)
            cards.update({colour: plain, f"{colour}_harbor": need - wild - plain})
        return {c: n for c, n in cards.items() if n > 0}

    def can_act(self, state: GameState, seat: int) -> bool:
        return bool(self.draw_actions(state, seat) or self.turn_actions(state, seat))

    def draw_actions(self, state: GameState, seat: int) -> list[Action]:
        second = state.phase == SECOND_DRAW
        ext = _ext(state)  # (``_has_cards`` of both decks, without its calls)
        refills = _REFILLS[bool(state.deck or state.discards),
                           bool(ext["ship_deck"] or ext["ship_discards"])]
        key = (refills, second, *state.market)  # what the draws depend on: kept, per turn
        known = _DRAWS.get(key)
        if known is None:
            out: list[Action] = []
            takes = _TAKES[refills]
            for slot, card in enumerate(state.market if refills else ()):
                if card >= 0 and not (second and card == JOKER):
                    out += takes[slot]
            out += [blind(k) for k in refills]
            if len(_DRAWS) >= MEMO_LIMIT:
                _DRAWS.clear()
            known = _DRAWS[key] = tuple(out)
        return [*known]

    def final_points(self, state: GameState) -> list[list[ExtraPoints]]:
        board, ext, config = state.board, _ext(state), _config(state)
        out: list[list[ExtraPoints]] = []
        for seat in range(state.n_players):
            done = connected_tickets(state, seat)
            points: list[ExtraPoints] = []
            for city_key, owner in ext["harbors"].items():
                if owner != seat:
                    continue
                city_id = board.city_ids[int(city_key)]
                named = sum(1 for t in done if city_id in board.map.tickets[t].cities)
                if named:
                    value = config.harbor_points[min(named, len(config.harbor_points)) - 1]
                    points.append(harbor_points(board.city_names[int(city_key)], named, value))
            if unbuilt := ext["harbors_left"][seat]:
                points.append(unbuilt_harbors(unbuilt, unbuilt * config.unbuilt_harbor_points))
            if exchanged := ext["exchanged"][seat]:
                points.append(exchanged_pieces(
                    exchanged, exchanged * config.exchange_points_per_piece))
            out.append(points)
        return out

    def public_fields(self, state: GameState) -> dict[str, Any]:
        ext = _ext(state)
        # The splits are revealed once everyone has chosen (seed 002), exchanges and all.
        split = (
            [{"trains": t, "ships": s} for t, s in zip(ext["trains"], ext["ships"], strict=True)]
            if all(ext["chosen"])
            else []
        )
        return {
            "piece_split": split,
            "ship_deck": len(ext["ship_deck"]),
            "ship_discards": len(ext["ship_discards"]),
            "harbors": {state.board.city_ids[int(c)]: s for c, s in ext["harbors"].items()},
        }

    def position_fields(self, state: GameState) -> dict[str, Any]:
        ext, board = _ext(state), state.board
        names = CARD_NAMES
        return {
            "ship_deck": [names[c] for c in reversed(ext["ship_deck"])],
            "ship_discards": [names[c] for c in ext["ship_discards"]],
            "pieces": {s: _pieces(ext, s) for s in range(state.n_players)},
            "harbors": {board.city_ids[int(c)]: s for c, s in ext["harbors"].items()},
            "harbors_left": dict(enumerate(ext["harbors_left"])),
            "pieces_chosen": dict(enumerate(ext["chosen"])),
        }

    def set_position(self, state: GameState, fields: dict[str, Any]) -> None:
        ext, board = _ext(state), state.board
        for name in ("ship_deck", "ship_discards"):
            if name in fields:
                cards = [CARD_INDEX.get(n, -1) for n in fields[name]]
                if not all(SHIP <= c < len(CARD_NAMES) for c in cards):
                    raise ValueError(f"{name}: ship cards only, not {fields[name]}")
                ext[name] = cards[::-1] if name == "ship_deck" else cards
        for seat, chosen in fields.get("pieces_chosen", {}).items():
            ext["chosen"][seat] = chosen
        if state.phase not in (CHOOSE_INITIAL_TICKETS, CHOOSE_PIECES):
            ext["chosen"] = [True] * state.n_players  # in play: every split is chosen (public)
        for seat, pieces in fields.get("pieces", {}).items():
            for key, value in _pieces(ext, seat).items():
                ext[_PIECE_KEYS[key]][seat] = pieces.get(key, value)
            # Until a seat has chosen, its pieces are all in play unsplit (as at setup).
            split = ext["trains"][seat] + ext["ships"][seat]
            state.trains[seat] = split if ext["chosen"][seat] else _config(state).pieces
        for city_id, seat in fields.get("harbors", {}).items():
            if city_id not in board.city_index:
                raise ValueError(f"no city {city_id!r} on {board.map.id}")
            key = str(board.city_index[city_id])
            old = ext["harbors"].pop(key, None)
            if old is not None:  # like stations: a harbor freed goes back to its owner
                ext["harbors_left"][old] += 1
            if seat is not None:
                ext["harbors"][key] = seat
                ext["harbors_left"][seat] -= 1
        for seat, n in fields.get("harbors_left", {}).items():
            ext["harbors_left"][seat] = n

    def move_pieces(self, state: GameState, seat: int, route: int, n: int) -> None:
        kind = "ships" if state.board.map.routes[route].kind == "ship" else "trains"
        _ext(state)[kind][seat] += n

    def private_fields(self, state: GameState, seat: int) -> dict[str, Any]:
        ext = _ext(state)
        return {
            "pieces": {
                "trains": ext["trains"][seat],
                "ships": ext["ships"][seat],
                "reserve_trains": ext["box_trains"][seat],
                "reserve_ships": ext["box_ships"][seat],
            },
            "harbors_left": ext["harbors_left"][seat],
        }
