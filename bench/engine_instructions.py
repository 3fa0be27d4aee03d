"""Machine instructions per uniform-random game, per map: a figure that does not move with
the host's load (valgrind's callgrind counts instructions, not seconds).

Run: ``python bench/engine_instructions.py [--maps usa,europe] [--games 3] [--root DIR]``.
For each map it runs this file under ``valgrind --tool=callgrind`` twice, once playing a
warm-up game only and once the warm-up then ``--games`` games (4 players, Nordic 3, the
``uniform`` agent of ``bench_engine.py``: a uniform choice among ``legal_actions``), and
prints the difference divided by the games. ``--root``: the checkout whose engine is
measured (another commit's clone, to compare in one run); default this one.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()


def play(root: str, map_id: str, games: int) -> None:
    """The measured workload (run inside valgrind): a warm-up game, then ``games``."""
    sys.path.insert(0, root)
    import random

    from engine import GameConfig, apply, legal_actions, new_game, waiting_for

    players = 3 if map_id == "nordic" else 4
    for seed in [10**6, *range(games)]:
        state = new_game(GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)],
                                    seed=seed))
        rng = random.Random(seed)
        while state.phase != "game_over":
            seat = waiting_for(state)[0]
            apply(state, seat, rng.choice(legal_actions(state, seat)))


def instructions(root: str, map_id: str, games: int) -> int:
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg",
             sys.executable, str(HERE), "--play", map_id, "--games", str(games),
             "--root", root],
            check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        text = Path(out, "cg").read_text()
    found = re.search(r"^totals: (\d+)", text, re.M) or re.search(r"^summary: (\d+)", text, re.M)
    assert found, "no totals in callgrind's output"
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--maps", default="usa,europe,nordic,pennsylvania,iberia,world")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--root", default=str(HERE.parent.parent))
    parser.add_argument("--play", help=argparse.SUPPRESS)  # the measured run itself
    args = parser.parse_args()
    if args.play:
        play(args.root, args.play, args.games)
        return
    for map_id in args.maps.split(","):
        base = instructions(args.root, map_id, 0)
        total = instructions(args.root, map_id, args.games)
        print(f"{map_id:13} {(total - base) / args.games / 1e6:7.1f} M instructions a game",
              flush=True)


if __name__ == "__main__":
    main()
