"""Rails & Sails' payment functions, as sped up, against their first straightforward
versions (kept here as the reference) on many random hands of the World map."""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine import GameConfig, game, new_game
from engine.board import Board
from engine.cards import (
    ALL_CARD_KINDS,
    CARD_INDEX,
    DOUBLE_SHIP,
    GRAY,
    HARBOR_TRAIN,
    LOCO,
    SHIP,
)
from engine.claims import clear_memos
from engine.modules import rails_and_sails as rs

JOKER = LOCO


def reference_rough(hand: Sequence[int], spaces: int) -> list[int] | None:
    pay = [0] * len(hand)
    jokers = hand[JOKER]
    totals = [hand[s] + hand[HARBOR_TRAIN + s] for s in range(JOKER)]
    for s in sorted(range(JOKER), key=totals.__getitem__, reverse=True):
        while spaces and hand[s] + hand[HARBOR_TRAIN + s] - pay[s] - pay[HARBOR_TRAIN + s] >= 2:
            for _ in range(2):
                kind = s if hand[s] > pay[s] else HARBOR_TRAIN + s
                pay[kind] += 1
            spaces -= 1
    for s in range(JOKER):
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


def reference_payments(board: Board, r: int, hand: Sequence[int]) -> list[list[int]]:
    route = board.map.routes[r]
    colour = board.r_color[r]
    suits = [colour] if colour != GRAY else [CARD_INDEX[n] for n in board.rules.deck.colors]
    out: list[list[int]] = []
    for s in suits:
        pay = [0] * len(hand)
        if route.kind == "ship":
            need = route.length
            doubles = min(hand[DOUBLE_SHIP + s], need // 2)
            need -= 2 * doubles
            singles = min(hand[SHIP + s], need)
            need -= singles
            if need and hand[DOUBLE_SHIP + s] > doubles:
                doubles += 1
                need = 0
            if need > hand[JOKER] or doubles + singles == 0:
                continue
            pay[DOUBLE_SHIP + s], pay[SHIP + s], pay[JOKER] = doubles, singles, need
        elif route.rough_terrain:
            continue
        else:
            plain = min(hand[s], route.length)
            harbor = min(hand[HARBOR_TRAIN + s], route.length - plain)
            jokers = route.length - plain - harbor
            if jokers > hand[JOKER] or plain + harbor == 0:
                continue
            pay[s], pay[HARBOR_TRAIN + s], pay[JOKER] = plain, harbor, jokers
        out.append(pay)
    if route.kind == "train" and route.rough_terrain:
        rough = reference_rough(hand, route.length)
        if rough:
            out.append(rough)
    elif not out and hand[JOKER] >= route.length:
        pay = [0] * len(hand)
        pay[JOKER] = route.length
        out.append(pay)
    return out


def reference_harbor(hand: Sequence[int], config: rs.Config) -> list[list[int]]:
    out = []
    for s in range(JOKER):
        pay = [0] * len(hand)
        pay[HARBOR_TRAIN + s] = min(hand[HARBOR_TRAIN + s], config.harbor_train_cards)
        pay[SHIP + s] = min(hand[SHIP + s], config.harbor_ship_cards)
        if pay[HARBOR_TRAIN + s] + pay[SHIP + s] == 0:
            continue
        pay[JOKER] = config.harbor_train_cards + config.harbor_ship_cards - sum(pay)
        if pay[JOKER] <= hand[JOKER]:
            out.append(pay)
    cost = config.harbor_train_cards + config.harbor_ship_cards
    if not out and hand[JOKER] >= cost:
        pay = [0] * len(hand)
        pay[JOKER] = cost
        out.append(pay)
    return out


def random_hands(n: int) -> list[list[int]]:
    """Sparse and dense hands, with counts up to beyond any route's length."""
    rng = random.Random(31)
    return [[rng.choice((0, 0, 0, 1, 2, 3, rng.randint(0, 9))) if rng.random() < density else 0
             for _ in range(ALL_CARD_KINDS)]
            for density in (0.2, 0.5, 0.9) for _ in range(n)]


def test_payments_equal_the_reference_on_random_world_hands() -> None:
    state = new_game(GameConfig(map_id="world", players=["a", "b", "c", "d"], seed=1))
    board, config = state.board, rs._config(state)
    hands = random_hands(400)
    for hand in hands:
        for r in range(len(board.map.routes)):
            assert rs.cheapest_payments(board, r, hand) == reference_payments(board, r, hand)
        for spaces in range(1, 7):
            assert rs._cheapest_rough(hand, spaces) == reference_rough(hand, spaces)
        assert rs._harbor_options(hand, config) == reference_harbor(hand, config)


def reference_reach(hand: Sequence[int]) -> list[int]:
    jokers = hand[JOKER]
    trains = [hand[s] + hand[HARBOR_TRAIN + s] + jokers for s in range(JOKER)]
    ships = [hand[SHIP + s] + 2 * hand[DOUBLE_SHIP + s] + jokers for s in range(JOKER)]
    return [*trains, max(trains), *ships, max(ships)]


def test_reach_equals_the_reference_on_random_hands() -> None:
    for hand in random_hands(400):
        assert rs._reach(hand) == reference_reach(hand)
        assert rs._reach(tuple(hand)) == reference_reach(hand)


def test_harbor_payments_through_their_memo_equal_the_reference() -> None:
    """The memo's key (counts clipped to what a harbor takes) tells apart every two hands
    that pay differently: a hand never gets another's payments."""
    state = new_game(GameConfig(map_id="world", players=["a", "b", "c", "d"], seed=1))
    config = rs._config(state)
    clear_memos()
    hands = []
    jokers_only = [[0] * JOKER + [j] + [0] * (ALL_CARD_KINDS - JOKER - 1) for j in range(8)]
    for hand in jokers_only + random_hands(60):  # each with its neighbours: one count
        hands += [hand] + [[n + (i == kind) * more for i, n in enumerate(hand)]
                           for kind in range(ALL_CARD_KINDS) for more in (1, 2)]  # more
    hands += [[300 if i % 7 == k else n for i, n in enumerate(hand)]  # beyond a byte
              for k, hand in enumerate(hands[::500])]
    for hand in hands:
        assert rs._harbor_payments(hand, config) == reference_harbor(hand, config), hand
    assert len(rs._HARBOR_PAYMENTS) < len(hands) / 2  # (hands did share keys)


def test_a_claim_tables_pays_tells_whether_the_payments_list_any() -> None:
    """``ClaimTable.pays`` (the claim handler's test, from the memo) against the payment
    function itself, on World (shapes through the memo) and Europe (plain shapes)."""
    hands = random_hands(150)
    for map_id in ("world", "europe"):
        state = new_game(GameConfig(map_id=map_id, players=["a", "b", "c", "d"], seed=1))
        board = state.board
        table = rs._claim_table(board) if map_id == "world" else game._claim_table(board)
        clear_memos()
        for hand in hands:
            hand = hand[:board.hand_kinds]
            for r in range(len(board.route_ids)):
                assert table.pays(r, hand) == bool(table.payments(board, r, hand)), (r, hand)
