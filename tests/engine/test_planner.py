"""The planner on the hand: its chains checked against a plain Dijkstra written here, on
random positions of every map, and shown to read nothing a seat may not see."""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from itertools import pairwise

import pytest

from engine import (
    GameConfig,
    GameState,
    Position,
    TicketPlan,
    new_game,
    plan_tickets,
    private_view,
    public_view,
    setup_position,
)
from engine.board import board_for
from engine.graph import components

MAPS = ("usa", "europe", "nordic", "pennsylvania", "iberia", "world")
BIG = 1000  # a new station weighs more than any chain of pieces: fewest stations first


def plan_of(state: GameState, seat: int) -> list[TicketPlan]:
    return plan_tickets(state.board, public_view(state), private_view(state, seat))


def random_position(started: Callable[..., GameState], map_id: str, seed: int) -> GameState:
    """A started game with random claims, stations, pieces left and tickets for seat 0."""
    rng = random.Random(seed)
    rules = board_for(map_id).rules
    players = rng.randint(rules.players_min, rules.players_max)
    if map_id == "iberia":  # the planner needs no finished draft: tickets are set below
        state = new_game(GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)],
                                    seed=seed))
    else:
        state = started(map_id, players, seed)
    board, n = state.board, state.n_players
    share = rng.choice((0.1, 0.3, 0.6))
    owners: dict[int, int | None] = {}
    for r, rid in enumerate(board.route_ids):
        twin = board.r_twin[r]
        if rng.random() < share and not (twin >= 0 and board.route_ids[twin] in owners):
            owners[rid] = rng.randrange(n)
    stations: dict[str, int | None] = {}
    if rules.stations:
        for seat in range(n):
            for city in rng.sample(board.city_ids, rng.randint(0, rules.stations.per_player)):
                stations.setdefault(city, seat)
    tickets = rng.sample(board.t_ids, rng.randint(1, 6))
    setup_position(state, Position(owners=owners, stations=stations, tickets={0: tickets}))
    if not rules.rails_and_sails:
        setup_position(state, Position(trains={s: rng.randint(2, 45) for s in range(n)}))
    return state


def referee(state: GameState, seat: int) -> list[tuple[bool, int, int] | None]:
    """Per ticket of ``seat``: None when done, else (reachable, pieces, new stations), by a
    Dijkstra over (node, stations used) on the state's own arrays, legs chained in order."""
    board = state.board
    small = state.n_players < board.rules.double_routes_min_players
    pieces = private_view(state, seat).pieces
    stations_left = state.stations_left[seat] if board.rules.stations else 0
    done = {t.id for t in private_view(state, seat).tickets if t.connected}

    def usable(r: int, zero: set[int]) -> list[tuple[int, int]]:
        owner, twin = state.owner[r], board.r_twin[r]
        if owner == seat or r in zero:
            return [(0, 0)]
        if owner < 0:
            twin_owner = state.owner[twin] if twin >= 0 else -1
            closed = twin_owner >= 0 and (small or twin_owner == seat)
            kind = board.map.routes[r].kind
            fits = board.r_len[r] <= state.trains[seat] and (
                not board.rules.rails_and_sails
                or board.r_len[r] <= pieces[f"{kind}s"] + pieces[f"reserve_{kind}s"]
            )
            return [] if closed or not fits else [(board.r_len[r], 0)]
        if not board.rules.stations:
            return []
        ends = (board.r_a[r], board.r_b[r])
        if any(state.stations.get(c) == seat for c in ends):
            return [(0, 0)]
        if any(c not in state.stations for c in ends):
            return [(0, 1)]
        return []

    adj: dict[int, list[int]] = {}
    for r in range(len(board.route_ids)):
        adj.setdefault(board.r_na[r], []).append(r)
        adj.setdefault(board.r_nb[r], []).append(r)
    out: list[tuple[bool, int, int] | None] = []
    for t in state.tickets[seat]:
        if board.t_ids[t] in done:
            out.append(None)
            continue
        stops = [board.city_nodes[board.city_index[c]] for c in board.map.tickets[t].cities]
        zero: set[int] = set()
        total = used_total = 0
        ok = True
        for a, b in pairwise(stops):
            dist = {(x, 0): 0 for x in a}
            prev: dict[tuple[int, int], tuple[tuple[int, int], int]] = {}
            heap = [(0, x, 0) for x in a]
            end = None
            while heap:
                d, x, k = heapq.heappop(heap)
                if d > dist[(x, k)]:
                    continue
                if x in b:
                    end = (x, k)
                    break
                for r in adj.get(x, []):
                    y = board.r_nb[r] if board.r_na[r] == x else board.r_na[r]
                    for cost, extra in usable(r, zero):
                        if used_total + k + extra > stations_left:
                            continue
                        nd = d + cost + extra * BIG
                        if nd < dist.get((y, k + extra), 1 << 40):
                            dist[(y, k + extra)] = nd
                            prev[(y, k + extra)] = ((x, k), r)
                            heapq.heappush(heap, (nd, y, k + extra))
            if end is None:
                ok = False
                break
            total += dist[end] % BIG
            used_total += dist[end] // BIG
            node = end
            while node in prev:
                node, r = prev[node]
                zero.add(r)
        out.append((True, total, used_total) if ok else (False, 0, 0))
    return out


@pytest.mark.parametrize("map_id", MAPS)
def test_planned_chains_cost_what_a_plain_dijkstra_finds(
    started: Callable[..., GameState], map_id: str
) -> None:
    seen_unreachable = seen_open = 0
    for seed in range(12):
        state = random_position(started, map_id, seed)
        board = state.board
        plans = plan_of(state, 0)
        expected = referee(state, 0)
        assert len(plans) == len(expected) == len(state.tickets[0])
        for plan, want in zip(plans, expected, strict=True):
            if want is None:
                assert plan.done and not plan.routes
                continue
            assert not plan.done
            reachable, pieces, stations = want
            assert plan.reachable == reachable, (seed, plan)
            if not reachable:
                seen_unreachable += 1
                continue
            seen_open += 1
            assert (plan.pieces, plan.stations) == (pieces, stations), (seed, plan)
            # The chain itself: its routes' lengths are the pieces, all open, and with the
            # seat's own and borrowed routes they join the ticket's cities.
            routes = [board.route_index[rid] for rid in plan.routes]
            assert sum(board.r_len[r] for r in routes) == plan.pieces
            assert all(state.owner[r] < 0 for r in routes)
            net = routes + [board.route_index[rid] for rid in plan.borrowed]
            net += [r for r, s in enumerate(state.owner) if s == 0]
            label = components(board.n_nodes, [(board.r_na[r], board.r_nb[r]) for r in net])
            groups = [{label[x] for x in board.city_nodes[board.city_index[c]]}
                      for c in plan.cities]
            assert set.intersection(*groups), (seed, plan)
            # Contested: open routes of the chain touching an opponent's route.
            rivals = {c for r, s in enumerate(state.owner) if s > 0
                      for c in (board.r_a[r], board.r_b[r])}
            assert set(plan.contested) == {board.route_ids[r] for r in routes
                                           if {board.r_a[r], board.r_b[r]} & rivals}
    assert seen_open, "no ticket left open: the positions test nothing"
    if map_id == "usa":
        assert seen_unreachable, "no ticket cut off: the positions are too easy"


@pytest.mark.parametrize("map_id", MAPS)
def test_the_planner_never_reads_hidden_state(
    started: Callable[..., GameState], map_id: str
) -> None:
    rng = random.Random(99)
    for seed in range(3):
        state = random_position(started, map_id, seed)
        board, n = state.board, state.n_players
        before = plan_of(state, 0)
        # Other seats' hands and tickets and the deck order change; their sizes stay.
        for seat in range(1, n):
            size = sum(state.hands[seat])
            hand = [0] * board.hand_kinds
            for _ in range(size):
                hand[rng.randrange(board.hand_kinds)] += 1
            state.hands[seat] = hand
            others = [t for t in range(len(board.t_ids)) if t not in state.tickets[0]]
            state.tickets[seat] = rng.sample(others, len(state.tickets[seat]))
        rng.shuffle(state.deck)
        rng.shuffle(state.ticket_deck)
        assert plan_of(state, 0) == before


def test_cards_by_colour_ferries_stations_and_a_cut_off_ticket(
    started: Callable[..., GameState], route: Callable[..., int]
) -> None:
    # Europe, Ann's ticket Edinburgh-Paris; Ann owns Dieppe-Paris, Bob the black track of
    # Edinburgh-London (the only way into Edinburgh). With 4 players the orange track is
    # open to Ann: it and a London-Dieppe ferry (2, one locomotive) finish the ticket.
    state = started("europe", 4)
    ticket = next(t.id for t in state.board.map.tickets
                  if set(t.cities) == {"edinburgh", "paris"})
    black = route(state, "edinburgh", "london", "black")
    orange = route(state, "edinburgh", "london", "orange")
    setup_position(state, Position(
        owners={black: 1, route(state, "dieppe", "paris"): 0}, tickets={0: [ticket]},
        hands={0: {"orange": 1, "locomotive": 2}}))
    (plan,) = plan_of(state, 0)
    assert plan.reachable and not plan.done
    assert plan.routes[0] == orange and len(plan.routes) == 2
    ferry = state.board.map.routes[state.board.route_index[plan.routes[1]]]
    assert {ferry.a, ferry.b} == {"dieppe", "london"}
    assert (plan.pieces, plan.stations, plan.borrowed) == (6, 0, ())
    assert plan.cards == {"orange": 4, "locomotive": 1, "gray": 1}
    assert plan.missing == {"orange": 3, "gray": 1}  # two locomotives in hand: enough
    assert plan.contested == plan.routes  # both touch London, where Bob's track ends

    # Orange taken by Cid: only a station borrowing a track into Edinburgh is left.
    setup_position(state, Position(owners={orange: 2}))
    (plan,) = plan_of(state, 0)
    assert (plan.pieces, plan.stations) == (2, 1)
    assert len(plan.borrowed) == 1 and set(plan.new_stations) <= {"edinburgh", "london"}
    # No stations left: the ticket cannot be finished any more.
    setup_position(state, Position(stations_left={0: 0}))
    (plan,) = plan_of(state, 0)
    assert not plan.reachable and not plan.routes
