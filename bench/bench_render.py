"""Render timings and sizes: ``python bench/bench_render.py [--maps europe usa] [--runs 15]``.

Per map: the one-off base-layer build, then the median of a full mid-game
board render from the cached base (drawing, encoding, and both together),
output sizes (PNG and WebP), and the hand and final images. The hand-made
mid-game view is busy on purpose (5 players, 60 claims, every module's pieces:
share stacks, festival badges, harbors, ship cards); ``real`` is a board from a
random engine game (3 players, turn 60), the kind the bot renders. The budget:
a full board in 100 ms or less (median) and at most 1.5 MB of PNG.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.render import (
    MAX_BYTES,
    board_image,
    board_palette,
    encode,
    render_board,
    render_final,
    render_hand,
)
from bot.render.board import base_for
from bot.render.demo import engine_views, final_view, hand_view, mid_view
from maps import map_ids

BOARD_MS = 100.0


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--maps", nargs="*", default=map_ids())
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print(
        f"{'map':<13}{'base':>7}{'draw':>7}{'encode':>8}{'board':>7}{'real':>7}{'PNG KiB':>9}"
        f"{'WebP KiB':>10}{'hand':>7}{'final':>7}   (ms unless noted; medians of {args.runs})"
    )
    worst_ms, worst_png = 0.0, 0
    for map_id in args.maps:
        start = time.perf_counter()
        base_for(map_id)
        base_ms = 1000 * (time.perf_counter() - start)
        view = mid_view(map_id, seed=7, players=5, claims=60)
        render_board(view)  # warm the piece caches, as a running bot has them
        img = board_image(view)
        pal = board_palette(map_id)
        hand = hand_view(map_id, seed=7)
        over = final_view(map_id, seed=7, players=5)
        real, _, _ = engine_views(map_id, seed=7, turns=60, players=3)
        few = max(3, args.runs // 3)
        draw = median_ms(partial(board_image, view), args.runs)
        enc = median_ms(partial(encode, img, "PNG", pal), args.runs)
        full = median_ms(partial(render_board, view), args.runs)
        real_ms = median_ms(partial(render_board, real), args.runs)
        png, webp = render_board(view), render_board(view, "WEBP")
        hand_ms = median_ms(partial(render_hand, hand, map_id), few)
        final_ms = median_ms(partial(render_final, over), few)
        worst_ms = max(worst_ms, full, real_ms)
        worst_png = max(worst_png, len(png), len(render_board(real)))
        print(
            f"{map_id:<13}{base_ms:7.0f}{draw:7.1f}{enc:8.1f}{full:7.1f}{real_ms:7.1f}"
            f"{len(png) / 1024:9.0f}{len(webp) / 1024:10.0f}{hand_ms:7.0f}{final_ms:7.0f}"
        )
    ok = worst_ms <= BOARD_MS and worst_png <= MAX_BYTES
    verdict = "ok" if ok else "OVER BUDGET"
    print(
        f"slowest board {worst_ms:.1f} ms (budget {BOARD_MS:.0f}), largest PNG "
        f"{worst_png / 1024:.0f} KiB (budget {MAX_BYTES / 1024:.0f}): {verdict}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
