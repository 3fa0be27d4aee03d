"""``python -m bot.render --map europe --out out/``: render boards, a hand and final scores
(``--language de``: their words in German).

Without ``--seed`` the mid-game and final pictures come from hand-made views;
with ``--seed N [--turns K]`` a game of computer players is played and pictured
after a claim from turn K on (the claim highlighted) and at its end.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bot import i18n
from maps import map_ids

from . import render_board, render_final, render_hand
from .demo import empty_view, engine_views, final_view, hand_view, mid_view


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--map", default="europe", help=f"one of {', '.join(map_ids())}, or all")
    parser.add_argument("--out", default="out", type=Path)
    parser.add_argument("--seed", type=int, help="play a game of computer players with this seed")
    parser.add_argument("--turns", type=int, default=40, help="picture the game after this turn")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--format", default="PNG", choices=["PNG", "WEBP"])
    parser.add_argument("--language", default=i18n.DEFAULT, choices=i18n.LANGUAGES)
    args = parser.parse_args(argv)
    with i18n.language(args.language):
        return _render(args, parser)


def _render(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    maps = map_ids() if args.map == "all" else [args.map]
    for m in maps:
        if m not in map_ids():
            parser.error(f"unknown map {m!r}; known: {', '.join(map_ids())}")
    args.out.mkdir(parents=True, exist_ok=True)
    ext = args.format.lower()
    for map_id in maps:
        last = None
        if args.seed is not None:
            mid, hand, end, last = engine_views(map_id, args.seed, args.turns, args.players)
        else:
            mid, hand, end = (
                mid_view(map_id, 1, args.players),
                hand_view(map_id, 1),
                final_view(map_id, 1, args.players),
            )
        fmt = args.format
        jobs: dict[str, Callable[[], bytes]] = {
            "empty": partial(render_board, empty_view(map_id, args.players), fmt),
            "mid": partial(render_board, mid, fmt, last=last),
            "final": partial(render_final, end, fmt),
        }
        for name, render in jobs.items():
            start = time.perf_counter()
            data = render()
            _save(args.out / f"{map_id}_{name}.{ext}", data, start)
        start = time.perf_counter()
        _save(args.out / f"{map_id}_hand.{ext}", render_hand(hand, map_id, fmt), start)
    return 0


def _save(path: Path, data: bytes, start: float) -> None:
    path.write_bytes(data)
    ms = 1000 * (time.perf_counter() - start)
    print(f"{path}  {len(data) / 1024:.0f} KiB  {ms:.0f} ms")


if __name__ == "__main__":
    sys.exit(main())
