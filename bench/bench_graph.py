"""Time engine.graph.longest_trail on random player networks grown on the real boards.

Run from the repository root: .venv/bin/python -m bench.bench_graph [samples]

A network is grown route by route: usually a free route touching the network so
far, sometimes any free route (a player's second front). One route per city pair
(a player may not own both routes of a double). Prints median, 90th percentile
and maximum time per call for 20-, 30- and 40-edge networks on each board.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from engine.graph import longest_trail
from maps import load_map


def grow_network(
    routes: list[tuple[int, int, int]], size: int, rng: random.Random
) -> list[tuple[int, int, int]]:
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


def board_routes(map_id: str) -> list[tuple[int, int, int]]:
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


def main() -> None:
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rng = random.Random(2024)
    for map_id in ("usa", "europe"):
        routes = board_routes(map_id)
        for size in (20, 30, 40):
            times = []
            for _ in range(samples):
                net = grow_network(routes, size, rng)
                t0 = time.perf_counter()
                longest_trail(net)
                times.append(time.perf_counter() - t0)
            times.sort()
            p90 = times[int(0.9 * (len(times) - 1))]
            print(
                f"{map_id:7} {size} edges: median {statistics.median(times) * 1e3:8.3f} ms"
                f"   p90 {p90 * 1e3:8.3f} ms   max {times[-1] * 1e3:9.3f} ms   (n={samples})"
            )


if __name__ == "__main__":
    main()
