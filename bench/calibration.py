"""A host's speed in one figure, printed by every benchmark beside its results.

The CPU time of a fixed pure-Python workload (dict and list work, small function calls, a
depth-first search: the kind of code the engine and the bot run). Benchmark figures taken on
two hosts, or on one host under different load, compare after dividing by it: a run whose
calibration is 1.9x another's is expected to be about 1.9x slower for the same code.

Run alone: ``python bench/calibration.py``.
"""

from __future__ import annotations

import platform
import time

ROUNDS = 3  # the figure is the least of this many runs: other load only ever adds to it


def _grid(rows: int, columns: int) -> dict[int, list[tuple[int, int]]]:
    """A rows x columns grid graph: node -> [(neighbour, edge id)]."""
    edges: dict[int, list[tuple[int, int]]] = {node: [] for node in range(rows * columns)}
    pairs = [(n, n + 1) for n in range(rows * columns) if (n + 1) % columns]
    pairs += [(n, n + columns) for n in range(rows * columns - columns)]
    for edge, (a, b) in enumerate(pairs):
        edges[a].append((b, edge))
        edges[b].append((a, edge))
    return edges


def _longest_trail(edges: dict[int, list[tuple[int, int]]], start: int, used: set[int]) -> int:
    best = 0
    for other, edge in edges[start]:
        if edge not in used:
            used.add(edge)
            best = max(best, 1 + _longest_trail(edges, other, used))
            used.discard(edge)
    return best


def workload() -> int:
    """The fixed work; returns a checksum so that nothing is optimised away."""
    total = 0
    counts: dict[str, int] = {}
    for i in range(60_000):
        key = f"c{i % 97}"
        counts[key] = counts.get(key, 0) + i % 7
    total += sum(sorted(counts.values()))
    items = [(i * 7919) % 10_007 for i in range(40_000)]
    items.sort()
    total += sum(items[::100])
    edges = _grid(4, 4)
    for start in edges:
        total += _longest_trail(edges, start, set())
    return total


def calibration_ms() -> float:
    """Least CPU milliseconds of ``workload`` over ``ROUNDS`` runs in this process."""
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.process_time()
        workload()
        best = min(best, time.process_time() - started)
    return best * 1e3


def calibration_line() -> str:
    return (
        f"calibration: {calibration_ms():.0f} ms CPU (bench/calibration.py, least of {ROUNDS};"
        f" Python {platform.python_version()})"
    )


if __name__ == "__main__":
    print(calibration_line())
