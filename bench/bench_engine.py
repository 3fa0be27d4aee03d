"""Engine speed: random legal full games per CPU second, and longest-path time on final networks.

Run: ``python bench/bench_engine.py [--games N]``. Single process, one core; times are
CPU time of this process, so other load on the machine disturbs them less.
Every action goes through ``engine.apply`` with its full checks; the computer
players are ``engine.agents.random_action``. Final scoring (longest path,
station assignment) is included in every game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine import GameConfig, GameState, apply, new_game, waiting_for
from engine.agents import random_action
from engine.scoring import longest_path


def play(map_id: str, players: int, seed: int) -> tuple[GameState, int]:
    state = new_game(
        GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)], seed=seed)
    )
    rng = random.Random(seed)
    actions = 0
    while state.phase != "game_over":
        seat = waiting_for(state)[0]
        apply(state, seat, random_action(state, seat, rng))
        actions += 1
    return state, actions


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=400)
    args = parser.parse_args()
    finals: list[GameState] = []
    for map_id in ("usa", "europe"):
        for players in (2, 4):
            play(map_id, players, 10**6)  # warm caches (map loading) outside the timing
            start = time.process_time()
            actions = 0
            for seed in range(args.games):
                state, n = play(map_id, players, seed)
                actions += n
                if players == 4 and seed < 50:
                    finals.append(state)
            elapsed = time.process_time() - start
            print(
                f"{map_id:7} {players}p: {args.games / elapsed:7.1f} games/s "
                f"({actions / args.games:.0f} actions/game, "
                f"{elapsed / actions * 1e6:.1f} µs/action)"
            )
    times = []
    for state in finals:
        for seat in range(state.n_players):
            t0 = time.process_time()
            longest_path(state, seat)
            times.append(time.process_time() - t0)
    print(
        f"longest path on {len(times)} final 4-player networks: "
        f"median {statistics.median(times) * 1e6:.0f} µs, max {max(times) * 1e6:.0f} µs"
    )


if __name__ == "__main__":
    main()
