"""Computer players' thinking time: CPU milliseconds per decision, per map and level.

Run: ``python bench/bench_players.py [--games N] [--players P] [--busy] [--maps M,...]``.
For every map and level, N whole games with P players of that level (Nordic: at most 3);
each decision is timed with the CPU clock of this process (one core) and the wall clock,
from reading the seat's view (``engine.players.observe``) to the action returned, as
``engine.players.choose_action`` does it. Prints median, 99th percentile and maximum,
and how many decisions were timed. ``--busy`` keeps another core busy meanwhile (a
spinning process), as a bot's other worker would. *hard* searches against the wall
clock, so its figures depend on the machine's load.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.calibration import calibration_line
from engine import GameConfig, apply, new_game, waiting_for
from engine.events import Event
from engine.modules import playable_maps
from engine.players import FACTORIES, LEVELS, observe
from maps import load_map


def decision_times(
    map_id: str, level: str, players: int, games: int
) -> tuple[list[float], list[float]]:
    """CPU and wall seconds per decision."""
    times: list[float] = []
    walls: list[float] = []
    for seed in range(games):
        state = new_game(
            GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)], seed=seed)
        )
        seats = [FACTORIES[level](seat) for seat in range(players)]
        history: list[Event] = []
        while state.phase != "game_over":
            seat = waiting_for(state)[0]
            start, wall = time.process_time(), time.perf_counter()
            action = seats[seat].choose(observe(state, seat, history=history, seed=seed))
            times.append(time.process_time() - start)
            walls.append(time.perf_counter() - wall)
            history.extend(apply(state, seat, action))
    return times, walls


def _spin() -> None:
    while True:
        pass


def _line(ms: list[float]) -> str:
    ms = sorted(ms)
    p99 = ms[int(0.99 * (len(ms) - 1))]
    return f"median {statistics.median(ms):6.1f}  p99 {p99:6.1f}  max {ms[-1]:7.1f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--busy", action="store_true", help="keep another core busy")
    parser.add_argument("--maps", default=",".join(playable_maps()))
    parser.add_argument("--levels", default=",".join(LEVELS))
    args = parser.parse_args()
    busy = multiprocessing.Process(target=_spin, daemon=True) if args.busy else None
    if busy:
        busy.start()
    print(calibration_line(), flush=True)
    print(f"ms per decision (CPU | wall), {args.games} games per line, {args.players} players"
          f" (Nordic 3){', another core busy' if busy else ''}")
    try:
        for map_id in args.maps.split(","):
            players = min(args.players, load_map(map_id).rules.players_max)
            for level in args.levels.split(","):
                cpu, wall = decision_times(map_id, level, players, args.games)
                print(
                    f"{map_id:13} {level:7} CPU {_line([t * 1000 for t in cpu])} | wall "
                    f"{_line([t * 1000 for t in wall])}  ({len(cpu)} decisions)",
                    flush=True,
                )
    finally:
        if busy:
            busy.terminate()


if __name__ == "__main__":
    main()
