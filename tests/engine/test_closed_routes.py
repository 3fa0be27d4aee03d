"""``claims.closed_routes`` and ``owned_routes`` are kept on the state and brought up to date
where a claim writes its owner (``claims.claim_route``), not worked out afresh on every
call: whatever writes the owners (claims, copies, snapshots, replays with undos, positions
set by hand), every call must give what the owners say, worked out here plainly."""

from __future__ import annotations

import random

import pytest

from engine import GameConfig, GameState, Undo, apply, legal_actions, new_game, waiting_for
from engine.board import board_for
from engine.claims import closed_routes, owned_routes
from engine.game import replay
from engine.modules import playable_maps


def _reference(state: GameState) -> tuple[list[int], list[int]]:
    """Per seat, the routes closed to it and those it owns, from ``state.owner`` alone."""
    board, owner = state.board, state.owner
    closed, owned = [0] * state.n_players, [0] * state.n_players
    one_track = state.n_players < board.rules.double_routes_min_players
    for r, seat in enumerate(owner):
        if seat >= 0:
            owned[seat] |= 1 << r
            closed = [c | 1 << r for c in closed]
        twin = board.r_twin[r]
        if twin >= 0 and owner[twin] >= 0:  # the other track of a taken double
            if one_track:
                closed = [c | 1 << r for c in closed]
            else:
                closed[owner[twin]] |= 1 << r
    return closed, owned


def _check(state: GameState) -> None:
    closed, owned = _reference(state)
    assert closed_routes(state) == closed
    assert owned_routes(state) == owned


@pytest.mark.parametrize("map_id", playable_maps())
def test_closed_routes_follow_every_writer_of_the_owners(map_id: str) -> None:
    rules = board_for(map_id).rules
    for n in (rules.players_min, rules.players_max):  # one track of a double, then both
        config = GameConfig(map_id=map_id, players=[f"P{i}" for i in range(n)], seed=n)
        state = new_game(config)
        rng = random.Random(n)
        log: list[tuple[int, object]] = []
        copies: list[tuple[GameState, list[int]]] = []
        while state.phase != "game_over":
            seat = waiting_for(state)[0]
            action = rng.choice(legal_actions(state, seat))
            if rng.random() < 0.05:  # a copy, to be played on apart and checked again
                copies.append((state.copy(), state.owner.copy()))
            apply(state, seat, action)
            log.append((seat, action))
            _check(state)
        # A copy taken before later claims keeps its own answer (they were not shared).
        for copy, owner in copies:
            assert copy.owner == owner
            _check(copy)
        # A snapshot round trip, a replay with undos, a route given back by hand.
        _check(GameState.from_snapshot(state.to_snapshot()))
        undone = replay(config, [*log, (0, Undo()), (0, Undo())])  # type: ignore[list-item]
        _check(undone)
        taken = [r for r, s in enumerate(state.owner) if s >= 0]
        state.owner[taken[0]] = -1
        _check(state)
        state.owner[taken[-1]] = (state.owner[taken[-1]] + 1) % n  # changing hands
        _check(state)
