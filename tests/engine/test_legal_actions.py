"""``legal_actions`` on a turn is built for speed (memo tables, shared action objects); a
straightforward reference built here from the rule functions, route by route and city by
city, must give exactly the same list, in the same order, on random positions of every map."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    BuildHarbor,
    BuildStation,
    Claim,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    ExchangePieces,
    GameConfig,
    GameState,
    apply,
    legal_actions,
    new_game,
    payment,
    waiting_for,
)
from engine.agents import random_action
from engine.board import board_for
from engine.cards import LOCO, N_CARDS, names_from_counts
from engine.modules import playable_maps
from engine.modules import rails_and_sails as rs
from engine.modules.stations import station_cost
from engine.turns import cards_left, claim_problem, route_taken, tickets_closed


def _reference_draws(state: GameState) -> list[Action]:
    second = state.phase == "second_draw"
    if state.board.rules.rails_and_sails:
        refills = [k for k in ("train", "ship") if rs._has_cards(state, k)]
        out: list[Action] = [
            DrawFaceUp(slot=slot, refill=k)
            for slot, card in enumerate(state.market)
            if refills and card >= 0 and not (second and card == LOCO)
            for k in refills
        ]
        return out + [DrawBlind(deck=k) for k in refills]
    counts_two = state.board.rules.face_up_locomotive_counts_two
    out = [
        DrawFaceUp(slot=slot)
        for slot, card in enumerate(state.market)
        if card != -1 and not (second and counts_two and card == LOCO)
    ]
    return [*out, DrawBlind()] if cards_left(state) else out


def _reference_rails_and_sails(state: GameState, seat: int) -> list[Action]:
    board, ext, hand = state.board, state.ext["rs"], state.hands[seat]
    out: list[Action] = []
    for r, route in enumerate(board.map.routes):
        pieces = ext["ships" if route.kind == "ship" else "trains"][seat]
        if state.owner[r] < 0 and not route_taken(state, seat, r) and pieces >= route.length:
            for p in rs.cheapest_payments(board, r, hand):
                out.append(Claim(route=route.id, cards=names_from_counts(p)))
    if ext["harbors_left"][seat]:
        payments = rs._harbor_payments(hand, rs._config(state))
        for city in rs._harbor_cities(state, seat):
            for p in payments:
                out.append(BuildHarbor(city=board.city_ids[city], cards=names_from_counts(p)))
    config = rs._config(state)
    for sign, most in ((1, config.max_trains), (-1, config.max_ships)):
        for k in range(1, most + 1):
            if rs._exchange_problem(state, seat, sign * k) is None:
                out.append(ExchangePieces(trains=sign * k))
    return out


def reference(state: GameState, seat: int) -> list[Action]:
    """Everything ``seat`` may do on a turn (or its second draw), by the rule functions."""
    board, hand = state.board, state.hands[seat]
    out = _reference_draws(state)
    if state.phase == "second_draw":
        return out
    if tickets_closed(state) is None:
        out.append(DrawTickets())
    if board.rules.rails_and_sails:
        return out + _reference_rails_and_sails(state, seat)
    if board.rules.stations and state.stations_left[seat]:
        for p in payment.cheapest_stations(hand, station_cost(state, seat)):
            for city_id in board.city_ids:
                if board.city_index[city_id] not in state.stations:
                    out.append(BuildStation(city=city_id, cards=names_from_counts(p)))
    for r, route_id in enumerate(board.route_ids):
        if claim_problem(state, seat, r) is None:
            for p in payment.cheapest_claims(board, r, hand):
                out.append(Claim(route=route_id, cards=names_from_counts(p)))
    return out


def _random_hand(rng: random.Random, state: GameState) -> list[int]:
    """A hand of the map's card kinds, from empty to large, often heavy in one kind."""
    hand = [0] * state.board.hand_kinds
    kinds = [c for c in range(len(hand)) if state.board.rules.rails_and_sails or c < N_CARDS]
    for _ in range(rng.choice((0, 3, 8, 15, 30))):
        hand[rng.choice(kinds)] += 1
    if rng.random() < 0.5:
        hand[rng.choice(kinds)] += rng.randint(1, 9)
    if rng.random() < 0.05:  # more than a deck holds: beyond the claim tables' reach
        hand[rng.choice(kinds)] += 70
    return hand


def _check_positions(map_id: str, players: int, seed: int) -> int:
    rng = random.Random(seed)
    config = GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)], seed=seed)
    state = new_game(config)
    checked = 0
    while state.phase != "game_over":
        seat = waiting_for(state)[0]
        if state.phase in ("turn", "second_draw") and rng.random() < 0.3:
            trial = state.copy()
            if rng.random() < 0.5:  # a hand the game might not reach by itself
                trial.hands[seat] = _random_hand(rng, trial)
            for who in range(players):
                expected = reference(trial, who) if who == seat else []
                assert legal_actions(trial, who) == expected, (map_id, seed, trial.turn, who)
            checked += 1
        apply(state, seat, random_action(state, seat, rng))
    return checked


@pytest.mark.slow
@pytest.mark.parametrize("map_id", playable_maps())
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**20), players=st.integers(2, 5))
def test_legal_actions_equal_a_straightforward_reference(
    map_id: str, seed: int, players: int
) -> None:
    limits = board_for(map_id).rules  # a player count outside the map's range is clamped
    players = min(max(players, limits.players_min), limits.players_max)
    assert _check_positions(map_id, players, seed)


@pytest.mark.parametrize("map_id", playable_maps())
def test_hands_of_more_cards_than_a_byte_counts(map_id: str) -> None:
    """Counts of 256 and more (only in a position set up so) take the claim tables' slow
    way, and give the same claims."""
    board = board_for(map_id)
    players = board.rules.players_min
    state = new_game(GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)],
                                seed=5))
    rng = random.Random(5)
    while state.phase != "turn":
        seat = waiting_for(state)[0]
        apply(state, seat, random_action(state, seat, rng))
    seat = state.current
    kinds = [c for c in range(board.hand_kinds) if board.rules.rails_and_sails or c < N_CARDS]
    for kind in kinds:
        for big in (255, 256, 300):
            trial = state.copy()
            trial.hands[seat] = [1] * board.hand_kinds
            trial.hands[seat][kind] = big
            assert legal_actions(trial, seat) == reference(trial, seat), (kind, big)
