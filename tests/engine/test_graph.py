"""Tests for engine.graph: checked by hand-made cases and against tiny brute forces."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.bench_graph import SLOWEST, WORLD_SLOWEST_BEFORE, board_routes
from engine import GameConfig, graph, new_game
from engine.graph import (
    best_station_assignment,
    components,
    longest_trail,
    roots,
    trail_in_order,
)
from engine.modules import playable_maps
from engine.modules.stations import station_problem

# --------------------------------------------------------------------------- brute forces


def brute_longest(edges):
    """Longest trail by trying every trail from every city (no cleverness at all)."""
    best = 0

    def walk(v, used, run):
        nonlocal best
        best = max(best, run)
        for i, (a, b, length) in enumerate(edges):
            if i not in used and v in (a, b):
                walk(b if v == a else a, used | {i}, run + length)

    for v in {c for a, b, _ in edges for c in (a, b)}:
        walk(v, frozenset(), 0)
    return best


def reference_longest(edges):
    """Every trail from every city, each (city, used edges) state once: plain and exact."""
    best = 0
    seen = set()

    def walk(v, used, run):
        nonlocal best
        best = max(best, run)
        for i, (a, b, length) in enumerate(edges):
            if not used >> i & 1 and v in (a, b):
                w = b if v == a else a
                if (w, used | 1 << i) not in seen:
                    seen.add((w, used | 1 << i))
                    walk(w, used | 1 << i, run + length)

    for v in {c for a, b, _ in edges for c in (a, b)}:
        walk(v, 0, 0)
    return best


@contextmanager
def search_only() -> Iterator[None]:
    """Turn off the exact pairing bound and its shortcut, so the enumeration of unused
    edges does it all under the weak bound."""
    old = graph._BlockSearch.EXACT_PAIRING_MAX
    graph._BlockSearch.EXACT_PAIRING_MAX = 0
    try:
        yield
    finally:
        graph._BlockSearch.EXACT_PAIRING_MAX = old


def brute_in_order(edges, stops):
    """Enumerate every trail from stops[0]; is stops a subsequence of its cities?"""

    def is_subsequence(seq):
        it = iter(seq)
        return all(any(c == s for c in it) for s in stops)

    def walk(path, used):
        if is_subsequence(path):
            return True
        v = path[-1]
        for i, (a, b) in enumerate(edges):
            if i not in used and v in (a, b) and walk([*path, b if v == a else a], used | {i}):
                return True
        return False

    return walk([stops[0]], frozenset())


def brute_stations(n, own, choices, tickets):
    """Every combination of raw candidates; the documented tie order picks the winner."""
    best_key, best = None, None
    for combo in product(*[[None, *c] for c in choices]):
        borrowed = [(a, b) for a, b, _ in (x for x in combo if x is not None)]
        label = components(n, [*own, *borrowed])
        score = sum(p if label[a] == label[b] else -p for a, b, p in tickets)
        completed = sum(label[a] == label[b] for a, b, _ in tickets)
        chosen = tuple(None if x is None else x[2] for x in combo)
        ids = [r for r in chosen if r is not None]
        # RULES.md: equal ticket points prefer the assignment completing more tickets.
        key = (-score, -completed, len(ids), sorted(ids),
               [1 << 62 if r is None else r for r in chosen])
        if best_key is None or key < best_key:
            best_key, best = key, (score, chosen)
    return best


# --------------------------------------------------------------------------- longest_trail


def test_empty_is_zero():
    assert longest_trail([]) == 0


def test_single_edge_and_simple_path():
    assert longest_trail([(0, 1, 4)]) == 4
    assert longest_trail([(0, 1, 1), (1, 2, 2), (2, 3, 3)]) == 6


def test_cycle_counts_every_edge():
    assert longest_trail([(0, 1, 1), (1, 2, 2), (2, 0, 3)]) == 6


def test_cycle_with_tail_goes_around_the_loop():
    loop = [(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 0, 1)]
    assert longest_trail([*loop, (0, 4, 5)]) == 9


def test_figure_eight():
    eight = [(0, 1, 2), (1, 2, 2), (2, 0, 2), (0, 3, 3), (3, 4, 3), (4, 0, 3)]
    assert longest_trail(eight) == 15
    # Tails at 1 and 3: four odd cities, so one edge (the short tail) stays unused.
    assert longest_trail([*eight, (1, 5, 4), (3, 6, 1)]) == 19


def test_star_uses_only_two_arms():
    assert longest_trail([(0, 1, 1), (0, 2, 2), (0, 3, 3)]) == 5
    assert longest_trail([(0, 1, 1), (0, 2, 2), (0, 3, 3), (0, 4, 4)]) == 7


def test_parallel_edges():
    assert longest_trail([(0, 1, 2), (0, 1, 3)]) == 5
    assert longest_trail([(0, 1, 1), (1, 0, 2), (0, 1, 3)]) == 6
    assert longest_trail([(0, 1, 2), (0, 1, 3), (1, 2, 4), (1, 3, 6)]) == 15


def test_disconnected_components_take_the_best_not_the_sum():
    assert longest_trail([(0, 1, 4), (1, 2, 4), (5, 6, 1), (6, 7, 1), (7, 5, 1)]) == 8
    assert longest_trail([(0, 1, 1), (5, 6, 2), (6, 7, 2), (7, 5, 2)]) == 6


def test_slowest_known_world_network():
    # WORLD_HARD of bench/bench_graph.py (World, 28 routes within 60 pieces), the network
    # that drove the search's speed-up. 50 was computed by the previous exact
    # implementation and confirmed by reference_longest (about 1.5 s, so not rerun here).
    world_hard = [
        (0, 3, 1), (0, 10, 3), (0, 14, 2), (0, 40, 1), (3, 40, 2), (5, 21, 3), (5, 47, 3),
        (8, 12, 3), (8, 24, 2), (8, 42, 3), (10, 20, 4), (10, 26, 1), (12, 14, 1),
        (12, 24, 2), (12, 30, 4), (15, 16, 1), (15, 26, 1), (16, 26, 1), (16, 29, 2),
        (20, 24, 1), (21, 30, 1), (21, 33, 2), (21, 40, 2), (29, 33, 4), (29, 40, 3),
        (30, 40, 3), (33, 47, 3), (41, 47, 1),
    ]  # fmt: skip
    assert longest_trail(world_hard) == 50
    assert longest_trail(list(reversed(world_hard))) == 50


@pytest.mark.slow
def test_slowest_found_world_network():
    # WORLD_SLOWEST of bench/bench_graph.py: the slowest network its own search found
    # (World, 30 routes within 60 pieces), some 2x WORLD_HARD's time.
    world_slowest = [
        (0, 3, 1), (0, 10, 3), (0, 14, 2), (0, 40, 1), (3, 26, 2), (3, 40, 2), (4, 17, 1),
        (4, 25, 2), (5, 47, 3), (8, 12, 3), (8, 24, 2), (8, 42, 3), (10, 20, 4), (10, 26, 1),
        (12, 14, 1), (12, 24, 2), (12, 30, 4), (12, 42, 1), (15, 16, 1), (15, 26, 1),
        (15, 37, 2), (16, 26, 1), (16, 29, 2), (20, 24, 1), (21, 30, 1), (21, 33, 2),
        (21, 40, 2), (25, 43, 2), (29, 33, 4), (29, 40, 3),
    ]  # fmt: skip
    assert longest_trail(world_slowest) == reference_longest(world_slowest) == 42


def test_slowest_network_for_the_search_over_trails_is_fast():
    # bench_graph's WORLD_SLOWEST_BEFORE took 57-60 ms CPU with the depth-first search over
    # trails (a bound 1 above the answer to refute); leaving edges unused takes ~0.6 ms.
    # 20 ms is issue 31's target: far from both, so a loaded host does not decide it.
    assert longest_trail(WORLD_SLOWEST_BEFORE) == 49  # reference_longest agrees (slow)
    cpu = []
    for _ in range(3):
        started = time.process_time()
        longest_trail(WORLD_SLOWEST_BEFORE)
        cpu.append(time.process_time() - started)
    assert min(cpu) < 0.020


def test_usa_outside_case():
    portland, slc, helena, las_vegas, los_angeles, denver, kansas_city = range(7)
    routes = [
        (portland, slc, 6),
        (helena, slc, 3),
        (las_vegas, slc, 3),
        (las_vegas, los_angeles, 2),
        (denver, slc, 3),
        (denver, kansas_city, 4),
    ]
    assert longest_trail(routes) == 13


def test_degree_two_chains_and_many_odd_cities():
    # A ladder: rails 0-1-2-3 and 4-5-6-7, rungs i-(i+4); every inner city has degree 3.
    ladder = [(0, 1, 1), (1, 2, 1), (2, 3, 1), (4, 5, 1), (5, 6, 1), (6, 7, 1)]
    ladder += [(i, i + 4, 2) for i in range(4)]
    assert longest_trail(ladder) == brute_longest(ladder)
    # Same ladder with every edge subdivided (degree-2 cities everywhere).
    split = []
    for n, (a, b, length) in enumerate(ladder):
        mid = 100 + n
        split += [(a, mid, length), (mid, b, 1)]
    assert longest_trail(split) == brute_longest(split)


multigraphs = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(1, 6)).filter(
        lambda e: e[0] != e[1]
    ),
    max_size=8,
)


@pytest.mark.slow
@given(multigraphs)
@settings(max_examples=400, deadline=None)
def test_longest_trail_matches_brute_force(edges):
    assert longest_trail(edges) == brute_longest(edges)


@pytest.mark.slow
@given(multigraphs)
@settings(max_examples=300, deadline=None)
def test_longest_trail_search_alone_matches_brute_force(edges):
    with search_only():
        assert longest_trail(edges) == brute_longest(edges)


@st.composite
def networks(draw, max_cities=12, max_extra=6):
    """Tree-like player networks: a random tree plus a few extra (maybe parallel) routes,
    so there are bridges, blocks, chains of degree 2 and pendant routes."""
    n = draw(st.integers(2, max_cities))
    lengths = st.integers(1, 6)
    edges = [(draw(st.integers(0, v - 1)), v, draw(lengths)) for v in range(1, n)]
    for _ in range(draw(st.integers(0, max_extra))):
        a, b = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if a != b:
            edges.append((a, b, draw(lengths)))
    return draw(st.permutations(edges))


@pytest.mark.slow
@given(networks())
@settings(max_examples=300, deadline=None)
def test_longest_trail_matches_reference_on_networks(edges):
    assert longest_trail(edges) == reference_longest(edges)


@pytest.mark.slow
@given(networks(max_cities=9, max_extra=6))
@settings(max_examples=100, deadline=None)
def test_longest_trail_search_alone_matches_reference_on_networks(edges):
    with search_only():
        assert longest_trail(edges) == reference_longest(edges)


@pytest.mark.slow
def test_longest_trail_ignores_city_labels_and_edge_order():
    rng = random.Random(11)
    edges = [(rng.randrange(12), rng.randrange(12), rng.randint(1, 6)) for _ in range(20)]
    edges = [e for e in edges if e[0] != e[1]]
    expected = reference_longest(edges)
    for _ in range(5):
        relabel = list(range(12))
        rng.shuffle(relabel)
        moved = [(relabel[a] * 7 + 100, relabel[b] * 7 + 100, n) for a, b, n in edges]
        rng.shuffle(moved)
        assert longest_trail(moved) == expected


@st.composite
def board_networks(draw, max_routes=14):
    """Connected networks a player could own on a real board (one route per city pair),
    grown route by route, often closing cycles (what makes the search work)."""
    routes = board_routes(draw(st.sampled_from(playable_maps())))
    net = [draw(st.sampled_from(routes))]
    touched = set(net[0][:2])
    for _ in range(draw(st.integers(0, max_routes - 1))):
        near = [e for e in routes if e not in net and (e[0] in touched or e[1] in touched)]
        closing = [e for e in near if e[0] in touched and e[1] in touched]
        if not near:
            break
        e = draw(st.sampled_from(closing if closing and draw(st.booleans()) else near))
        net.append(e)
        touched.update(e[:2])
    return net


@pytest.mark.slow
@given(board_networks())
@settings(max_examples=300, deadline=None)
def test_longest_trail_matches_reference_on_every_board(edges):
    assert longest_trail(edges) == reference_longest(edges)


@pytest.mark.slow
@given(board_networks(max_routes=12))
@settings(max_examples=150, deadline=None)
def test_longest_trail_search_alone_matches_reference_on_every_board(edges):
    with search_only():
        assert longest_trail(edges) == reference_longest(edges)


@pytest.mark.slow
@pytest.mark.parametrize("map_id", [*sorted(SLOWEST), "world before"])
def test_slowest_found_network_of_each_map(map_id):
    # bench_graph's SLOWEST: the slowest network its own search found on each board (and
    # WORLD_SLOWEST_BEFORE, the slowest it found for the previous search).
    net = WORLD_SLOWEST_BEFORE if map_id == "world before" else SLOWEST[map_id]
    assert longest_trail(net) == reference_longest(net)
    assert longest_trail(list(reversed(net))) == reference_longest(net)


def grid(width, height):
    edges = []
    for x in range(width):
        for y in range(height):
            v = height * x + y
            if x < width - 1:
                edges.append((v, v + height, 1 + v % 4))
            if y < height - 1:
                edges.append((v, v + 1, 1 + (v * 3) % 5))
    return edges


@pytest.mark.slow
def test_longest_trail_on_grids():
    # Every inner rim city has degree 3: many odd cities, no bridges, one big block.
    assert longest_trail(grid(4, 4)) == reference_longest(grid(4, 4)) == 55
    five = grid(5, 5)
    assert len(five) == 40
    started = time.perf_counter()
    result = longest_trail(five)
    assert time.perf_counter() - started < 2.0  # milliseconds normally; catches a blow-up
    with search_only():
        assert longest_trail(five) == result == 100


# --------------------------------------------------------------------------- components


def test_components_labels():
    label = components(6, [(0, 1), (1, 2), (4, 5)])
    assert label[0] == label[1] == label[2]
    assert label[4] == label[5]
    assert len({label[0], label[3], label[4]}) == 3
    assert label == [0, 0, 0, 3, 4, 4]  # the smallest city of each component
    assert components(3, []) == [0, 1, 2]


# --------------------------------------------------------------------------- stations


def test_station_joint_choice_beats_greedy():
    a, b, c, d = 0, 1, 2, 3
    # Station 1 (at a) can borrow a-b (r11) or a-c (r12); station 2 (at c) can borrow c-d (r21).
    # Alone, a-b is station 1's best (it completes a-b); jointly a-c + c-d completes a-d (8).
    choices = [[(a, b, 11), (a, c, 12)], [(c, d, 21)]]
    tickets = [(a, b, 5), (a, d, 8)]
    assert best_station_assignment(4, [], choices, tickets) == (3, (12, 21))
    assert brute_stations(4, [], choices, tickets) == (3, (12, 21))


def test_station_borrowing_nothing_is_best():
    own = [(0, 1), (1, 2)]
    # Candidates join cities already connected, or cities no ticket cares about.
    choices = [[(0, 2, 5), (1, 0, 6)], [(3, 4, 7)]]
    assert best_station_assignment(5, own, choices, [(0, 2, 9)]) == (9, (None, None))
    # No stations at all: just the own network.
    assert best_station_assignment(5, own, [], [(0, 2, 9), (0, 4, 3)]) == (6, ())


def test_station_scores_failed_tickets_negative():
    assert best_station_assignment(4, [(0, 1)], [[]], [(0, 1, 4), (2, 3, 7)]) == (-3, (None,))


def test_station_ties_are_deterministic():
    tickets = [(0, 1, 5)]
    # Two routes do the same job: the lower id wins, whatever the input order.
    assert best_station_assignment(2, [], [[(0, 1, 7), (1, 0, 3)]], tickets) == (5, (3,))
    assert best_station_assignment(2, [], [[(1, 0, 3), (0, 1, 7)]], tickets) == (5, (3,))
    # Two stations could each complete the ticket: borrow once, the lower id.
    assert best_station_assignment(2, [], [[(0, 1, 9)], [(0, 1, 4)]], tickets) == (5, (None, 4))
    assert best_station_assignment(2, [], [[(0, 1, 4)], [(0, 1, 9)]], tickets) == (5, (4, None))
    # Different pairs of components that complete the same ticket: lowest id again.
    own = [(0, 2), (1, 3)]
    assert best_station_assignment(4, own, [[(2, 3, 8), (0, 1, 6)]], tickets) == (5, (6,))


route_pool = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 6)).filter(lambda e: e[0] != e[1]),
    min_size=1,
    max_size=7,
)


@st.composite
def station_cases(draw):
    own = draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=5))
    pool = [(a, b, 10 + i) for i, (a, b) in enumerate(draw(route_pool))]
    n_stations = draw(st.integers(0, 3))
    choices = [
        draw(st.lists(st.sampled_from(pool), max_size=4, unique=True)) for _ in range(n_stations)
    ]
    tickets = draw(
        st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(1, 12)), max_size=5)
    )
    return own, choices, tickets


def test_station_assignment_tie_found_by_hypothesis():
    """Equal points (0 either way): completing two tickets beats completing one."""
    choices = [[(0, 1, 10), (0, 1, 11), (0, 1, 12), (0, 3, 13)]]
    tickets = [(0, 1, 4), (0, 3, 1), (0, 3, 3)]
    assert best_station_assignment(7, [], choices, tickets) == (0, (13,))
    assert brute_stations(7, [], choices, tickets) == (0, (13,))


@pytest.mark.slow
@given(station_cases())
@settings(max_examples=300, deadline=None)
def test_station_assignment_matches_brute_force(case):
    own, choices, tickets = case
    assert best_station_assignment(7, own, choices, tickets) == brute_stations(
        7, own, choices, tickets
    )


def europe_station_problems(positions: int, seed: int) -> Iterator[tuple]:
    """``best_station_assignment``'s arguments as Europe's final scoring builds them, for
    random end positions: routes owned by random seats (sparse to dense), up to three
    stations and up to a dozen tickets a seat."""
    rng = random.Random(seed)
    state = new_game(GameConfig(map_id="europe", players=["A", "B", "C", "D"], seed=seed))
    board = state.board
    for i in range(positions):
        owned = (0.3, 0.6, 0.9)[i % 3]
        state.owner = [rng.randrange(4) if rng.random() < owned else -1 for _ in board.r_len]
        cities = rng.sample(range(len(board.city_ids)), 12)
        state.stations = {c: k % 4 for k, c in enumerate(cities[: rng.randrange(13)])}
        state.tickets = [
            rng.sample(range(len(board.t_ids)), rng.randrange(1, 13)) for _ in range(4)
        ]
        for seat in range(4):
            problem = station_problem(state, seat)
            if problem is not None:
                yield problem


def check_station_problems(positions: int, seed: int) -> int:
    """Pruned against exhaustive on each problem; how many had more than one choice."""
    choosing = 0
    for n, own, choices, tickets in europe_station_problems(positions, seed):
        assert best_station_assignment(n, own, choices, tickets) == brute_stations(
            n, own, choices, tickets
        )
        choosing += any(choices)
    return choosing


def test_station_assignment_matches_brute_force_on_europe_ends():
    """The pruning (tickets no borrowing can complete, candidates no open ticket needs)
    keeps the exhaustive answer, tie-breaks included, on positions like a game's end."""
    assert check_station_problems(150, seed=1) > 300


@pytest.mark.slow
def test_station_assignment_matches_brute_force_on_many_europe_ends():
    assert check_station_problems(400, seed=2) > 800


# --------------------------------------------------------------------------- trail_in_order


def test_in_order_on_a_path_depends_on_the_order():
    a, b, c = 0, 1, 2
    edges = [(a, b), (a, c)]  # b - a - c
    assert trail_in_order(edges, [b, a, c])
    assert trail_in_order(edges, [c, a, b])
    # All connected, but the middle stop is a leaf: b -> c -> a would need a-c twice.
    assert not trail_in_order(edges, [b, c, a])
    assert not trail_in_order(edges, [a, b, c])


def test_in_order_needs_passing_a_city_twice():
    a, b, c, d, e = 0, 1, 2, 3, 4
    # Bow tie around c: triangles c-a-b and c-d-e.
    bowtie = [(c, a), (a, b), (b, c), (c, d), (d, e), (e, c)]
    # a -> e -> b: a-c-e-d-c-b passes c twice.
    assert trail_in_order(bowtie, [a, e, b])
    assert trail_in_order(bowtie, [a, d, e, b])
    # As a star around c, e -> b would need c-e twice.
    star = [(c, a), (c, e), (c, b)]
    assert not trail_in_order(star, [a, e, b])


def test_in_order_cycle_and_revisiting_a_stop():
    p, q, r = 0, 1, 2
    assert trail_in_order([(p, q), (q, r), (r, p)], [q, p, r])
    assert not trail_in_order([(p, q), (q, r)], [q, p, r])
    # Parallel routes let the trail come back.
    assert trail_in_order([(p, q), (q, p), (q, r)], [q, p, r])


def test_in_order_disconnected_or_missing_stop():
    assert not trail_in_order([(0, 1), (2, 3)], [0, 1, 2])
    assert not trail_in_order([(0, 1)], [0, 1, 5])
    assert trail_in_order([], [4])


def test_in_order_ignores_dead_ends_and_non_stop_loops():
    # Stops 0 -> 5 -> 9 along a chain with side spurs and a loop hanging off a non-stop city.
    edges = [(0, 1), (1, 5), (5, 6), (6, 9), (1, 20), (20, 21), (6, 30), (30, 31), (31, 6)]
    assert trail_in_order(edges, [0, 5, 9])
    assert not trail_in_order(edges, [0, 9, 5])
    # Going around the loop 6-30-31 allows 9 ... no: 9 is a leaf, a trail cannot leave it.
    assert not trail_in_order(edges, [5, 9, 6])
    assert trail_in_order(edges, [5, 30, 6, 9])


@st.composite
def tour_cases(draw):
    edges = draw(
        st.lists(
            st.tuples(st.integers(0, 6), st.integers(0, 6)).filter(lambda e: e[0] != e[1]),
            max_size=8,
        )
    )
    stops = draw(st.lists(st.integers(0, 6), min_size=2, max_size=5, unique=True))
    return edges, stops


@pytest.mark.slow
@given(tour_cases())
@settings(max_examples=400, deadline=None)
def test_trail_in_order_matches_brute_force(case):
    edges, stops = case
    assert trail_in_order(edges, stops) == brute_in_order(edges, stops)


def test_in_order_cut_between_two_sides():
    # Sides {a, b} and {c, d}, each held together by two parallel routes, joined by a-c and b-d.
    a, b, c, d = 0, 1, 2, 3
    edges = [(a, b), (a, b), (c, d), (c, d), (a, c), (b, d)]
    # a -> c -> b -> d crosses between the sides three times: only two routes cross.
    assert not trail_in_order(edges, [a, c, b, d])
    assert not brute_in_order(edges, [a, c, b, d])
    # a -> d -> c -> b crosses twice: a-b-d, d-c, c-a-b.
    assert trail_in_order(edges, [a, d, c, b])


def test_in_order_cannot_cross_a_bridge_back():
    # Triangles 1-2-3 and 4-5-6 joined by the bridge 3-4.
    edges = [(1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 6), (6, 4)]
    assert trail_in_order(edges, [1, 2, 5])
    assert trail_in_order(edges, [2, 1, 4, 6])
    assert not trail_in_order(edges, [1, 5, 2])
    assert not trail_in_order(edges, [4, 1, 5])


@st.composite
def network_tours(draw):
    edges = [(a, b) for a, b, _ in draw(networks(max_cities=10, max_extra=5))]
    cities = sorted({v for e in edges for v in e})
    stops = draw(st.lists(st.sampled_from(cities), min_size=2, max_size=5, unique=True))
    return edges, stops


@pytest.mark.slow
@given(network_tours())
@settings(max_examples=300, deadline=None)
def test_trail_in_order_matches_brute_force_on_networks(case):
    edges, stops = case
    assert trail_in_order(edges, stops) == brute_in_order(edges, stops)


@pytest.mark.slow
@given(network_tours())
@settings(max_examples=200, deadline=None)
def test_trail_in_order_is_the_same_backwards(case):
    # A trail read backwards visits the stops in the reverse order.
    edges, stops = case
    assert trail_in_order(edges, stops) == trail_in_order(edges, stops[::-1])


def test_trail_in_order_on_a_grid_is_quick():
    edges = [(a, b) for a, b, _ in grid(5, 5)]
    started = time.perf_counter()
    assert trail_in_order(edges, [0, 4, 24, 20])  # round the rim
    assert trail_in_order(edges, [12, 0, 24, 4, 20])  # criss-cross through the middle
    # The corner {0, 1, 5} has four routes out, but these stops cross its border five times.
    assert not trail_in_order(edges, [0, 12, 1, 13, 5, 14])
    assert trail_in_order(edges, [0, 12, 1, 13, 5])
    assert time.perf_counter() - started < 2.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 6)), min_size=1, max_size=9))
def test_longest_trail_of_forests_matches_brute_force(links: list[tuple[int, int]]) -> None:
    """Trees take their own way (their longest path); forests of several, with paths and
    stars among them, give what the brute force gives."""
    edges = [(parent % (i + 1), i + 1, length) for i, (parent, length) in enumerate(links)]
    edges = [(a, b, n) for a, b, n in edges if (a + b) % 4]  # cut some: several trees
    assert longest_trail(edges) == brute_longest(edges)


@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=15))
def test_roots_join_the_cities_components_joins(edges: list[tuple[int, int]]) -> None:
    labels, root = components(12, edges), roots(12, edges)
    for a in range(12):
        for b in range(12):
            assert (labels[a] == labels[b]) == (root(a) == root(b))
