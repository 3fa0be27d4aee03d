"""The engine API computer players lean on: fast legal actions that still list exactly the
legal moves, every ticket keep, twins closed to one seat, copies and position scores."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from engine import (
    ACTION_ADAPTER,
    BuildHarbor,
    Claim,
    DrawBlind,
    DrawFaceUp,
    GameConfig,
    GameState,
    KeepTickets,
    Position,
    apply,
    legal_actions,
    new_game,
    public_view,
    replay,
    score_position,
    setup_position,
    waiting_for,
)
from engine.agents import random_action
from engine.cards import names_from_counts
from engine.modules import playable_maps, rails_and_sails
from engine.payment import cheapest_claims
from engine.turns import claim_problem


def _games(map_id: str, seeds: int, players: int = 3):
    """Random games on ``map_id``, yielding each state before every action."""
    for seed in range(seeds):
        state = new_game(
            GameConfig(map_id=map_id, players=["A", "B", "C", "D"][:players], seed=seed)
        )
        rng = random.Random(seed)
        while state.phase != "game_over":
            seat = waiting_for(state)[0]
            yield state, seat
            apply(state, seat, random_action(state, seat, rng))


@pytest.mark.slow
@pytest.mark.parametrize("map_id", playable_maps())
def test_fast_legal_actions_list_what_the_full_checks_allow(map_id: str) -> None:
    players = 4 if map_id != "nordic" else 3
    for n, (state, seat) in enumerate(_games(map_id, 2, players)):
        if n % 5:
            continue
        # The routes open to the seat by the full checks: what the claims below must cover.
        open_ = [r for r in range(len(state.owner)) if claim_problem(state, seat, r) is None]
        options = legal_actions(state, seat)
        for action in options:  # built unvalidated, yet exactly what validation gives
            assert ACTION_ADAPTER.validate_python(action.model_dump()) == action
        if state.phase == "turn":
            board, hand = state.board, state.hands[seat]
            if board.rules.rails_and_sails:  # pieces of the route's kind, the map's payments
                pieces = {"train": state.ext["rs"]["trains"][seat],
                          "ship": state.ext["rs"]["ships"][seat]}
                open_ = [r for r in open_ if pieces[board.map.routes[r].kind] >= board.r_len[r]]
                payments = rails_and_sails.cheapest_payments
            else:
                payments = cheapest_claims
            expected = [
                Claim(route=board.route_ids[r], cards=names_from_counts(p))
                for r in open_
                for p in payments(board, r, hand)
            ]
            assert [a for a in options if isinstance(a, Claim)] == expected
            if board.rules.rails_and_sails and state.ext["rs"]["harbors_left"][seat]:
                config = board.rules.rails_and_sails
                payments = rails_and_sails._harbor_options(hand, config)
                harbors = [
                    BuildHarbor(city=board.city_ids[c], cards=names_from_counts(p))
                    for c, city in enumerate(board.map.cities)
                    if city.harbor and str(c) not in state.ext["rs"]["harbors"]
                    and any(state.owner[r] == seat for r in board.routes_at[c])
                    for p in payments
                ]
                assert [a for a in options if isinstance(a, BuildHarbor)] == harbors


def test_every_ticket_keep_is_listed() -> None:
    state = new_game(GameConfig(map_id="nordic", players=["A", "B"], seed=3))
    offer = [state.board.t_ids[t] for t in state.offered[0]]
    keeps = [a.tickets for a in legal_actions(state, 0) if isinstance(a, KeepTickets)]
    expected = [list(c) for k in range(2, len(offer) + 1) for c in combinations(offer, k)]
    assert len(offer) == 5 and keeps == expected and len(keeps) == 26


def test_the_other_track_of_a_double_is_closed_to_its_owner_alone() -> None:
    state = new_game(GameConfig(map_id="usa", players=["A", "B", "C", "D"], seed=1))
    board = state.board
    r = next(r for r in range(len(board.route_ids)) if board.r_twin[r] >= 0)
    twin = board.route_ids[board.r_twin[r]]
    setup_position(state, Position(owners={board.route_ids[r]: 2}))
    view = public_view(state)
    assert view.closed_to == {2: [twin]} and view.closed == []
    small = new_game(GameConfig(map_id="usa", players=["A", "B"], seed=1))
    setup_position(small, Position(owners={board.route_ids[r]: 1}))
    assert public_view(small).closed == [twin] and public_view(small).closed_to == {}


def test_a_copy_plays_on_alone_and_alike() -> None:
    for state, _ in _games("pennsylvania", 1):
        if state.turn == 30:
            break
    copy = state.copy()
    before = state.to_snapshot()
    twin = GameState.from_snapshot(before)
    rng_a, rng_b = random.Random(1), random.Random(1)
    while copy.phase != "game_over":
        seat = waiting_for(copy)[0]
        apply(copy, seat, random_action(copy, seat, rng_a))
        apply(twin, seat, random_action(twin, seat, rng_b))
    assert state.to_snapshot() == before  # the original did not move
    assert copy.to_snapshot() == twin.to_snapshot()  # the copy played on as the state would


def test_a_snapshot_shares_no_list_with_its_state() -> None:
    state = new_game(GameConfig(map_id="usa", players=["A", "B"], seed=3))
    hand = list(state.hands[0])
    snap = state.to_snapshot()
    snap["hands"][0][0] += 5
    snap["deck"].clear()
    assert state.hands[0] == hand and state.deck


@pytest.mark.parametrize("map_id", ["usa", "europe", "pennsylvania", "world"])
def test_scoring_a_position_gives_the_final_scores_without_ending_it(map_id: str) -> None:
    for seed in range(20):
        config = GameConfig(map_id=map_id, players=["A", "B", "C"], seed=seed)
        state = new_game(config)
        rng, log = random.Random(seed), []
        while state.phase != "game_over":
            seat = waiting_for(state)[0]
            log.append((seat, random_action(state, seat, rng)))
            apply(state, seat, log[-1][1])
        last = log[-1][1]
        if isinstance(last, DrawBlind | DrawFaceUp) and state.reason == "trains":
            break  # the last action changed no score: the position before it scores the same
    else:
        raise AssertionError("no game ended on a card draw")
    before = replay(config, log[:-1])
    snap = before.to_snapshot()
    scored = score_position(before)
    assert before.to_snapshot() == snap and before.phase != "game_over"
    final = public_view(state).final
    assert final is not None
    assert [p.total for p in scored.players] == [p.total for p in final.players]
    assert scored == final
    assert score_position(state) == final
