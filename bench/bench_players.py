"""Computer players' thinking time: CPU milliseconds per decision, per map and level.

Run: ``python bench/bench_players.py [--games N] [--players P]``. For every map and
level, N whole games with P players of that level (Nordic: at most 3); each decision
is timed with the CPU clock of this process (one core), from reading the seat's view
(``engine.players.observe``) to the action returned, as ``engine.players.choose_action``
does it. Prints median, 95th percentile and maximum, and how many decisions were timed.
"""

from __future__ import annotations

import argparse
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


def decision_times(map_id: str, level: str, players: int, games: int) -> list[float]:
    times: list[float] = []
    for seed in range(games):
        state = new_game(
            GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)], seed=seed)
        )
        seats = [FACTORIES[level](seat) for seat in range(players)]
        history: list[Event] = []
        while state.phase != "game_over":
            seat = waiting_for(state)[0]
            start = time.process_time()
            action = seats[seat].choose(observe(state, seat, history=history, seed=seed))
            times.append(time.process_time() - start)
            history.extend(apply(state, seat, action))
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    print(calibration_line(), flush=True)
    print(f"CPU ms per decision, {args.games} games per line, {args.players} players (Nordic 3)")
    for map_id in playable_maps():
        players = min(args.players, load_map(map_id).rules.players_max)
        for level in LEVELS:
            ms = sorted(t * 1000 for t in decision_times(map_id, level, players, args.games))
            p95 = ms[int(0.95 * (len(ms) - 1))]
            print(
                f"{map_id:13} {level:7} median {statistics.median(ms):6.2f}  p95 {p95:6.2f}  "
                f"max {ms[-1]:7.2f}  ({len(ms)} decisions)"
            )


if __name__ == "__main__":
    main()
