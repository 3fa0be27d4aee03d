"""Time engine.graph on random player networks grown on the real boards.

Run from the repository root: .venv/bin/python -m bench.bench_graph [samples] [climb]

A network is grown route by route: usually a free route touching the network so
far, sometimes any free route (a player's second front). One route per city pair
(a player may not own both routes of a double). Prints the median, 90th
percentile and maximum time per call of ``longest_trail`` for 20-, 30- and
40-route networks on each board, and of ``trail_in_order`` for a random 3-5 city
tour on 20-, 40- and 60-route networks. (A real player holds about 10-25 routes.)

Then the slowest networks known (``WORLD_HARD``, ``WORLD_SLOWEST``,
``WORLD_SLOWEST_BEFORE`` and ``SLOWEST``, one per map), each timed 5 times (CPU: best,
median, max), with the calibration printed again right before them. Then the search that
found them, on every map: networks within a player's pieces (45 trains on most maps, 60
trains and ships on World, counted as one pool) grown three ways (touching routes as
above; closing cycles first, the densest; shortest routes first, the most routes), then
a hill climb (``climb`` steps, default 3000) that drops and refills routes to make
``longest_trail`` slower. Prints the slowest network found per map, and the network
itself when it is slower than the map's ``SLOWEST`` case (to record it there).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.calibration import calibration_line
from engine.graph import longest_trail, trail_in_order
from engine.modules import playable_maps
from maps import load_map

Net = list[tuple[int, int, int]]

# A slow network within a player's pieces (World, 28 routes, 60 pieces; a 900-step hill
# climb; WORLD_SLOWEST below is slower): (city index, city index, length) on the World map.
WORLD_HARD: Net = [
    (0, 3, 1),
    (0, 10, 3),
    (0, 14, 2),
    (0, 40, 1),
    (3, 40, 2),
    (5, 21, 3),
    (5, 47, 3),
    (8, 12, 3),
    (8, 24, 2),
    (8, 42, 3),
    (10, 20, 4),
    (10, 26, 1),
    (12, 14, 1),
    (12, 24, 2),
    (12, 30, 4),
    (15, 16, 1),
    (15, 26, 1),
    (16, 26, 1),
    (16, 29, 2),
    (20, 24, 1),
    (21, 30, 1),
    (21, 33, 2),
    (21, 40, 2),
    (29, 33, 4),
    (29, 40, 3),
    (30, 40, 3),
    (33, 47, 3),
    (41, 47, 1),
]

# Slower still: found by ``worst_network`` itself (World, seed 133 of ``random.Random``,
# 50 samples, a 200-step climb; 30 routes, 60 pieces): 2-2.5x WORLD_HARD's time.
WORLD_SLOWEST: Net = [
    (0, 3, 1), (0, 10, 3), (0, 14, 2), (0, 40, 1), (3, 26, 2), (3, 40, 2), (4, 17, 1),
    (4, 25, 2), (5, 47, 3), (8, 12, 3), (8, 24, 2), (8, 42, 3), (10, 20, 4), (10, 26, 1),
    (12, 14, 1), (12, 24, 2), (12, 30, 4), (12, 42, 1), (15, 16, 1), (15, 26, 1), (15, 37, 2),
    (16, 26, 1), (16, 29, 2), (20, 24, 1), (21, 30, 1), (21, 33, 2), (21, 40, 2), (25, 43, 2),
    (29, 33, 4), (29, 40, 3),
]

# The slowest network the stronger climb found for the longest_trail before 2026-11-28's
# (World, seed 2, 50 samples a way, 3,000 steps): 57-60 ms then, 3x WORLD_SLOWEST.
WORLD_SLOWEST_BEFORE: Net = [
    (0, 3, 1), (0, 10, 3), (0, 14, 2), (0, 40, 1), (3, 26, 2), (3, 40, 2), (4, 17, 1),
    (4, 30, 3), (5, 17, 2), (5, 21, 3), (5, 33, 3), (8, 12, 3), (8, 24, 2), (10, 20, 4),
    (10, 26, 1), (12, 14, 1), (12, 24, 2), (12, 30, 4), (12, 42, 1), (15, 16, 1), (15, 26, 1),
    (16, 26, 1), (16, 29, 2), (17, 25, 1), (20, 24, 1), (21, 30, 1), (21, 33, 2), (21, 40, 2),
    (29, 33, 4), (29, 40, 3),
]

# The slowest network ``worst_network`` found on each board for the current ``longest_trail``
# (seeds 2-6 of ``random.Random``, 50 samples a way, 3,000- and 8,000-step climbs).
SLOWEST: dict[str, Net] = {
    "europe": [
        (0, 7, 1), (0, 16, 3), (0, 22, 2), (4, 16, 2), (4, 17, 3), (4, 43, 3), (7, 13, 2),
        (7, 29, 2), (8, 9, 4), (9, 43, 1), (9, 45, 2), (13, 22, 2), (13, 29, 1), (16, 17, 2),
        (17, 26, 2), (26, 41, 2), (26, 46, 2), (29, 46, 3), (41, 45, 2), (41, 46, 2),
        (43, 45, 2),
    ],
    "iberia": [
        (16, 17, 1), (16, 22, 2), (16, 23, 3), (17, 18, 2), (17, 23, 1), (18, 24, 1),
        (22, 26, 2), (22, 27, 3), (23, 18, 2), (23, 24, 2), (23, 25, 2), (24, 25, 1),
        (25, 28, 2), (26, 27, 1), (26, 30, 1), (27, 28, 1), (29, 28, 3), (30, 29, 2),
        (30, 32, 1), (32, 29, 2),
    ],
    "nordic": [
        (4, 36, 1), (4, 38, 3), (6, 8, 3), (6, 16, 1), (6, 35, 1), (8, 15, 2), (8, 16, 2),
        (9, 15, 2), (9, 18, 1), (9, 24, 2), (12, 21, 1), (15, 18, 1), (16, 31, 1), (24, 27, 2),
        (24, 36, 1), (26, 30, 2), (27, 36, 1), (29, 35, 3), (30, 37, 3), (30, 38, 3),
        (31, 35, 1), (31, 37, 2), (37, 38, 1),
    ],
    "pennsylvania": [
        (2, 24, 2), (2, 26, 3), (2, 27, 2), (3, 11, 2), (3, 18, 2), (6, 12, 3), (6, 26, 3),
        (6, 29, 2), (8, 14, 1), (12, 28, 4), (12, 29, 2), (14, 15, 2), (14, 33, 1), (15, 17, 2),
        (15, 18, 2), (15, 24, 2), (15, 33, 1), (17, 24, 1), (17, 33, 1), (18, 32, 3),
        (26, 27, 2), (29, 32, 2),
    ],
    "usa": [
        (0, 3, 2), (0, 17, 1), (0, 25, 2), (3, 25, 2), (4, 7, 3), (4, 21, 4), (4, 23, 3),
        (5, 10, 1), (5, 13, 2), (5, 20, 2), (7, 21, 2), (10, 18, 2), (11, 20, 2), (11, 21, 1),
        (11, 26, 2), (13, 17, 3), (13, 20, 2), (16, 32, 3), (17, 26, 2), (23, 25, 2),
        (23, 32, 2),
    ],
    "world": [
        (0, 40, 1), (1, 35, 3), (4, 17, 1), (4, 19, 2), (4, 30, 3), (5, 17, 2), (5, 33, 3),
        (5, 47, 3), (11, 39, 1), (13, 19, 2), (13, 36, 1), (13, 39, 2), (17, 25, 1),
        (18, 23, 3), (18, 36, 3), (18, 43, 5), (19, 25, 2), (21, 30, 1), (21, 33, 2),
        (21, 40, 2), (25, 43, 2), (30, 40, 3), (33, 47, 3), (35, 43, 2), (35, 47, 3),
        (36, 39, 3), (41, 47, 1),
    ],
}


def grow_network(routes: Net, size: int, rng: random.Random) -> Net:
    free = list(routes)
    rng.shuffle(free)
    net = [free.pop()]
    touched = {net[0][0], net[0][1]}
    while len(net) < size and free:
        near = [i for i, (a, b, _) in enumerate(free) if a in touched or b in touched]
        i = rng.choice(near) if near and rng.random() < 0.9 else rng.randrange(len(free))
        a, b, length = free.pop(i)
        net.append((a, b, length))
        touched.update((a, b))
    return net


def grow_within(routes: Net, pieces: int, rng: random.Random, how: str) -> Net:
    """A connected network of total length at most ``pieces``, grown ``how``: "touching",
    "dense" (a route closing a cycle when one fits) or "short" (a shortest one)."""
    free = list(routes)
    rng.shuffle(free)
    net = [free.pop()]
    used, touched = net[0][2], {net[0][0], net[0][1]}
    while True:
        fits = [i for i, (_, _, length) in enumerate(free) if used + length <= pieces]
        near = [i for i in fits if free[i][0] in touched or free[i][1] in touched]
        if not fits:
            return net
        if how == "dense":
            pool = [i for i in near if free[i][0] in touched and free[i][1] in touched]
            pool = pool or sorted(near, key=lambda i: free[i][2])[:3] or fits
        elif how == "short":
            shortest = min(free[i][2] for i in near or fits)
            pool = [i for i in near or fits if free[i][2] == shortest]
        else:
            pool = near if near and rng.random() < 0.9 else fits
        a, b, length = free.pop(rng.choice(pool))
        net.append((a, b, length))
        used += length
        touched.update((a, b))


def cpu_time(net: Net, runs: int = 2) -> float:
    """Least CPU time of ``runs`` calls: other load only ever adds to it."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        longest_trail(net)
        best = min(best, time.process_time() - started)
    return best


def pieces_of(map_id: str) -> int:
    rules = load_map(map_id).rules
    return rules.rails_and_sails.pieces if rules.rails_and_sails else rules.trains


def refill(net: Net, routes: Net, pieces: int, rng: random.Random) -> Net:
    """Add routes touching ``net`` while one fits in ``pieces``; half the time one that
    closes a cycle when there is one (cycles are what make a trail search hard)."""
    net = list(net)
    used = sum(length for _, _, length in net)
    touched = {v for a, b, _ in net for v in (a, b)}
    pairs = {frozenset((a, b)) for a, b, _ in net}
    while True:
        fits = [
            e
            for e in routes
            if used + e[2] <= pieces
            and (e[0] in touched or e[1] in touched)
            and frozenset(e[:2]) not in pairs
        ]
        if not fits:
            return net
        closing = [e for e in fits if e[0] in touched and e[1] in touched]
        e = rng.choice(closing if closing and rng.random() < 0.5 else fits)
        net.append(e)
        used += e[2]
        touched.update(e[:2])
        pairs.add(frozenset(e[:2]))


def worst_network(map_id: str, samples: int, climb: int, rng: random.Random) -> tuple[float, Net]:
    """The slowest network for ``longest_trail`` found within a player's pieces.

    ``samples`` networks grown each of three ways, then a hill climb from each of the
    three slowest (``climb`` steps in all): drop one to three routes, refill, keep the
    change if the network got slower (confirmed by three more runs: a lucky quiet
    moment must not steer the climb).
    """
    pieces = pieces_of(map_id)
    routes = board_routes(map_id)
    nets = [
        grow_within(routes, pieces, rng, how)
        for how in ("touching", "dense", "short")
        for _ in range(samples)
    ]
    starts = sorted(((cpu_time(n), n) for n in nets), key=lambda tn: tn[0], reverse=True)[:3]
    found = []
    for worst, net in starts:
        for _ in range(climb // len(starts)):
            trial = list(net)
            for _ in range(rng.randint(1, 3)):
                trial.pop(rng.randrange(len(trial)))
            trial = refill(trial, routes, pieces, rng)
            t = cpu_time(trial)
            if t > worst:
                t = min(t, cpu_time(trial, 3))
                if t > worst:
                    worst, net = t, trial
        found.append((cpu_time(net, 5), net))
    return max(found, key=lambda tn: tn[0])


def board_routes(map_id: str) -> Net:
    m = load_map(map_id)
    index = {c.id: i for i, c in enumerate(m.cities)}
    seen: set[frozenset[int]] = set()
    out = []
    for r in m.routes:
        pair = frozenset((index[r.a], index[r.b]))
        if pair not in seen:
            seen.add(pair)
            out.append((index[r.a], index[r.b], r.length))
    return out


def timed(calls: list[Callable[[], object]]) -> str:
    times = []
    for call in calls:
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    times.sort()
    p90 = times[int(0.9 * (len(times) - 1))]
    return (
        f"median {statistics.median(times) * 1e3:8.3f} ms   p90 {p90 * 1e3:8.3f} ms"
        f"   max {times[-1] * 1e3:9.3f} ms   (n={len(times)})"
    )


def trail_call(net: Net) -> Callable[[], object]:
    return lambda: longest_trail(net)


def tour_call(net: Net, rng: random.Random) -> Callable[[], object]:
    pairs = [(a, b) for a, b, _ in net]
    stops = rng.sample(sorted({v for e in pairs for v in e}), rng.randint(3, 5))
    return lambda: trail_in_order(pairs, stops)


def main() -> None:
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    climb = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    print(calibration_line(), flush=True)
    rng = random.Random(2024)
    for map_id in ("usa", "europe"):
        routes = board_routes(map_id)
        for size in (20, 30, 40):
            calls = [trail_call(grow_network(routes, size, rng)) for _ in range(samples)]
            print(f"longest_trail  {map_id:7} {size} routes: {timed(calls)}")
    for map_id in ("usa", "europe"):
        routes = board_routes(map_id)
        for size in (20, 40, 60):
            calls = [tour_call(grow_network(routes, size, rng), rng) for _ in range(samples)]
            print(f"trail_in_order {map_id:7} {size} routes: {timed(calls)}")
    print(calibration_line(), flush=True)
    cases = [
        ("world", "WORLD_HARD", WORLD_HARD),
        ("world", "WORLD_SLOWEST", WORLD_SLOWEST),
        ("world", "WORLD_SLOWEST_BEFORE", WORLD_SLOWEST_BEFORE),
    ]
    cases += [(map_id, f"SLOWEST[{map_id!r}]", net) for map_id, net in sorted(SLOWEST.items())]
    for map_id, name, net in cases:
        times = sorted(cpu_time(net, 1) for _ in range(5))
        print(
            f"longest_trail  {map_id:12} {name:22} ({len(net)} routes): best {times[0] * 1e3:6.2f}"
            f" ms   median {times[2] * 1e3:6.2f} ms   max {times[-1] * 1e3:6.2f} ms (CPU, 5 runs)"
        )
    for map_id in playable_maps():
        worst, net = worst_network(map_id, samples // 4, climb, rng)
        pieces = sum(length for _, _, length in net)
        print(
            f"longest_trail  {map_id:12} worst within a player's pieces: {worst * 1e3:6.2f} ms"
            f" ({len(net)} routes, {pieces} pieces)",
            flush=True,
        )
        if map_id not in SLOWEST or worst > cpu_time(SLOWEST[map_id], 5):
            print(f"    slower than SLOWEST[{map_id!r}]: {sorted(net)}")

if __name__ == "__main__":
    main()
