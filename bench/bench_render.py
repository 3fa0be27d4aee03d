"""Board render timings, cold and warm: ``python bench/bench_render.py [--maps usa] [--games 1]``.

Per map, in this one process (a render worker does the same work):

- ``start``: the one-off static layer, palettes and route pieces (every seat's
  claimed spaces): the bot builds them once at start-up, before its render workers
  fork, so no player waits for them.
- ``cold``: a mid-game board with the map-layer and PNG-band caches empty, median of 5
  different boards: the first board of a game a worker has never seen.
- ``bare``: the same with the piece sprites dropped too (a worker that skipped the
  start-up warm-up; for comparison).
- ``warm``: every board of a random engine game in order (one per turn, as the bot
  posts them: what the turn before built highlighted on an inset), with the caches as
  that sequence leaves them: median and p90; ``claim``: the median of those boards
  that highlight a claim (most boards the bot posts: it posts one when the board
  changed).
- PNG size (largest), hand image (median); ``plan``: the hand with the ticket planner's
  small map (on a mid-game board), as the bot sends it, and its size; ``final``: each
  game's final-scores image right after its boards (the bot has the worker that drew a
  game's boards draw its final image: the map layer is its last board's), ``f.cold``:
  the largest of those and a hand-made five-player one, each with the caches emptied first;
  ``lapse``: the first game's animated timelapse (every turn that built something, as the
  bot posts it with the final scores; median of 3, the map caches as the game's boards
  left them: the timelapse uses none of them but the empty map at frame size, which
  ``start`` builds, as the workers' start-up does), its size (``L KiB``) and frames.

Times are the CPU time of this process unless ``--wall``: on a machine shared with
other work, wall time measures the neighbours. Targets: warm median <= 25 ms, cold
median <= 60 ms, PNG <= 1.5 MB, final image (as the bot draws it: ``final``) <= 40 ms,
timelapse < 10 MiB (Discord's attachment limit).
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine
from bench.calibration import calibration_line
from bot import render
from bot.game.telling import last_move
from bot.render import (
    MAX_BYTES,
    board_palette,
    final_palette,
    png,
    render_board,
    render_final,
    render_hand,
)
from bot.render.board import warm_pieces
from bot.render.demo import NAMES, final_view, hand_view
from bot.render.highlight import LastMove
from bot.render.shapes import space_sprite
from bot.render.timelapse import LIMIT_BYTES, empty_map, render_timelapse
from engine.agents import random_action
from engine.views import PublicView
from maps import map_ids

WARM_MS, COLD_MS, FINAL_MS = 25.0, 60.0, 40.0


Board = tuple[PublicView, LastMove | None]


def game_boards(map_id: str, seed: int, players: int) -> list[Board]:
    """The public view at the start of every turn of one random game, and at its end,
    each with what the turn before built (as the bot highlights it)."""
    names = list(NAMES[:players])
    state = engine.new_game(engine.GameConfig(map_id=map_id, players=names, seed=seed))
    rng = random.Random(seed)
    boards: list[Board] = []
    turn, events = -1, []
    while state.phase != "game_over":
        if state.phase == "turn" and state.turn != turn:
            turn = state.turn
            boards.append((engine.public_view(state), last_move(map_id, names, events)))
            events = []
        seat = engine.waiting_for(state)[0]
        events += engine.apply(state, seat, random_action(state, seat, rng))
    boards.append((engine.public_view(state), last_move(map_id, names, events)))
    return boards


def clear_caches(sprites: bool = False) -> None:
    """What a worker learns from the games it renders (and, with ``sprites``, the
    pieces it built at start-up); base layers and palettes stay."""
    render._layers.clear()
    png._bands.clear()
    if sprites:
        space_sprite.cache_clear()


# CPU time of this process by default: on a shared machine the wall clock mostly
# measures the other processes (``--wall`` to use it anyway).
CLOCK = time.process_time


def ms(fn: Callable[[], object]) -> float:
    start = CLOCK()
    fn()
    return 1000 * (CLOCK() - start)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--maps", nargs="*", default=map_ids())
    parser.add_argument("--games", type=int, default=1, help="random games per map (warm)")
    parser.add_argument("--wall", action="store_true", help="wall-clock time, not CPU time")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.process_time
    print(calibration_line(), flush=True)
    print(f"clock: {'wall' if args.wall else 'CPU time of this process'}")
    print(f"{'map':<13}{'start':>7}{'bare':>7}{'cold':>7}{'warm':>7}{'p90':>7}{'claim':>7}"
          f"{'boards':>8}{'PNG KiB':>9}{'hand':>7}{'plan':>7}{'KiB':>5}{'final':>7}"
          f"{'f.cold':>7}{'lapse':>7}{'L KiB':>7}{'frames':>7}"
          f"   (ms; bare/cold/warm/claim/hand/plan/final/lapse: medians; f.cold: the largest)")
    colds, warms, claims, finals, cold_finals, biggest = [], [], [], [], [], 0
    lapses, lapse_bytes = [], 0
    for map_id in args.maps:
        start_ms = ms(lambda m=map_id: (board_palette(m), final_palette(m), warm_pieces(m),
                                        empty_map(m)))
        seqs = [game_boards(map_id, seed, 3 + seed % 3) for seed in range(args.games)]
        boards = [b for seq in seqs for b in seq]
        mids = [seq[len(seq) * k // 6] for seq in seqs for k in range(1, 6)][:5]
        bare = []
        for view, last in mids[:2]:
            clear_caches(sprites=True)
            bare.append(ms(lambda v=view, m=last: render_board(v, last=m)))
        warm_pieces(map_id)
        cold = []
        for view, last in mids:
            clear_caches()
            cold.append(ms(lambda v=view, m=last: render_board(v, last=m)))
        clear_caches()
        warm, claim = [], []
        for view, last in boards:
            took = ms(lambda v=view, m=last: render_board(v, last=m))
            warm.append(took)
            if last is not None and last.routes:
                claim.append(took)
        size = max(len(render_board(v, last=m)) for v, m in (boards[-1], *mids))
        mine = hand_view(map_id, seed=7)
        hand = statistics.median(ms(lambda m=map_id, v=mine: render_hand(v, m))
                                 for _ in range(3))
        public = mids[len(mids) // 2][0]
        planned = statistics.median(ms(lambda m=map_id, v=mine, p=public: render_hand(v, m, p))
                                    for _ in range(3))
        plan_kib = len(render_hand(mine, map_id, public)) / 1024
        # The final image of each game, as the bot draws it: by the worker that drew the
        # game's boards (its map layer is the last board's), and cold (caches empty).
        ends = [seq[-1][0] for seq in seqs] + [final_view(map_id, seed=7, players=5)]
        final = statistics.median(ms(lambda v=over: render_final(v)) for over in ends[:-1])
        final_cold = []
        for over in ends:
            clear_caches()
            final_cold.append(ms(lambda v=over: render_final(v)))
        over, built = seqs[0][-1][0], tuple(m for _v, m in seqs[0] if m is not None)
        lapse = statistics.median(ms(lambda v=over, b=built: render_timelapse(v, b))
                                  for _ in range(3))
        gif = render_timelapse(over, built)
        frames = Image.open(io.BytesIO(gif)).n_frames
        lapses.append(lapse)
        lapse_bytes = max(lapse_bytes, len(gif))
        colds += cold
        finals.append(final)
        cold_finals += final_cold
        warms += warm
        claims += claim
        biggest = max(biggest, size)
        warm.sort()
        print(f"{map_id:<13}{start_ms:7.0f}{statistics.median(bare):7.0f}"
              f"{statistics.median(cold):7.1f}"
              f"{statistics.median(warm):7.1f}{warm[int(0.9 * len(warm))]:7.1f}"
              f"{statistics.median(claim):7.1f}{len(warm):8d}"
              f"{size / 1024:9.0f}{hand:7.0f}{planned:7.0f}{plan_kib:5.0f}{final:7.1f}"
              f"{max(final_cold):7.1f}{lapse:7.0f}{len(gif) / 1024:7.0f}{frames:7d}")
    cold_ms, warm_ms = statistics.median(colds), statistics.median(warms)
    ok = (warm_ms <= WARM_MS and cold_ms <= COLD_MS and biggest <= MAX_BYTES
          and max(finals) <= FINAL_MS and lapse_bytes < LIMIT_BYTES)
    print(f"all maps: warm median {warm_ms:.1f} ms over {len(warms)} boards (target "
          f"{WARM_MS:.0f}; the {len(claims)} that highlight a claim: median "
          f"{statistics.median(claims):.1f} ms), cold median {cold_ms:.1f} ms (target "
          f"{COLD_MS:.0f}), largest PNG "
          f"{biggest / 1024:.0f} KiB (budget {MAX_BYTES / 1024:.0f}), final image at most "
          f"{max(finals):.1f} ms per map (target {FINAL_MS:.0f}; cold, a worker without the "
          f"game's map layer: at most {max(cold_finals):.1f} ms), timelapse at most "
          f"{max(lapses):.0f} ms and {lapse_bytes / 1024:.0f} KiB (budget "
          f"{LIMIT_BYTES / 2**20:.0f} MiB): "
          f"{'ok' if ok else 'OVER BUDGET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
