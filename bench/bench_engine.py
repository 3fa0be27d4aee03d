"""Engine speed on every map: legal_actions per call for every player count, full random
games per CPU second for two computer players, state copies, and longest path on the final
networks.

Run: ``python bench/bench_engine.py [--games N] [--maps usa,europe]``. Single process, one
core.

``legal_actions``, per map and player count: the positions at the start of a turn met in 3
games of the ``sampler`` agent (below), every 3rd turn, each call timed on its own in CPU
time of this process (``time.process_time_ns``, less the median cost of reading that clock),
median and 99th percentile. Each figure is the least of 3 rounds alike (the memo emptied and
taught again before each), so that other load on a shared machine disturbs it less:

- ``warm``: the first call on each position, after the engine met the positions of 10 other
  games of the map (their payments and actions are in its memo, as in a process that has
  played a while, or a search that keeps meeting similar hands).
- ``cold``: the same calls with every memo of the engine emptied before each one
  (``engine.claims.clear_memos``): the worst case, e.g. the first turn after a start.

Per map (4 players, 3 on Nordic), CPU time of this process (``time.process_time``):

- games/s, agent ``sampler``: ``engine.agents.random_action``, the cheap random player
  (samples a few routes, never lists every option).
- games/s, agent ``uniform``: a uniform random choice among ``engine.legal_actions`` at
  every decision: what a search-based player pays per move.
- ``copy``: median µs of ``GameState.copy()`` against a snapshot round trip, on the same
  positions.

Before each map's games the objects alive so far (memos, kept positions, earlier maps'
games) are collected and frozen (``gc.freeze``): otherwise a full collection walks them all
and charges that to whichever map's games it lands in, so one map's figure moved by 30 %
with another map's memo size.

Every action goes through ``engine.apply`` with its full checks; final scoring (longest
path, station assignment) is included in every game. The last line is longest path
(``engine.scoring.longest_path``) on every final network of the sampler's games; see
``bench/bench_graph.py`` for constructed worst cases.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.calibration import calibration_line
from engine import (
    Action,
    GameConfig,
    GameState,
    apply,
    board_for,
    legal_actions,
    new_game,
    waiting_for,
)
from engine.agents import random_action
from engine.claims import clear_memos
from engine.modules import playable_maps
from engine.scoring import longest_path

Agent = Callable[[GameState, int, random.Random], Action]


def uniform(state: GameState, seat: int, rng: random.Random) -> Action:
    return rng.choice(legal_actions(state, seat))


def play(
    map_id: str, players: int, seed: int, agent: Agent, keep: list[tuple[GameState, int]] | None
) -> GameState:
    names = [f"P{i}" for i in range(players)]
    state = new_game(GameConfig(map_id=map_id, players=names, seed=seed))
    rng = random.Random(seed)
    turns = 0
    while state.phase != "game_over":
        seat = waiting_for(state)[0]
        if keep is not None and state.phase == "turn":
            turns += 1
            if turns % 3 == 0:
                keep.append((state.copy(), seat))
        apply(state, seat, agent(state, seat, rng))
    return state


def per_call(calls: list[Callable[[], object]], repeat: int) -> float:
    """Median CPU seconds of one call."""
    times = []
    for call in calls:
        started = time.process_time()
        for _ in range(repeat):
            call()
        times.append((time.process_time() - started) / repeat)
    return statistics.median(times)


def games_per_second(map_id: str, players: int, games: int, agent: Agent) -> float:
    play(map_id, players, 10**6, agent, None)  # warm caches (map loading) outside the timing
    started = time.process_time()
    for seed in range(games):
        play(map_id, players, seed, agent, None)
    return games / (time.process_time() - started)


def percentiles(times_ns: list[int]) -> str:
    ordered = sorted(times_ns)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered) / 1e3:6.1f} {p99 / 1e3:6.1f}"


ROUNDS = 3  # legal_actions figures: the least of this many rounds


def clock_cost() -> int:
    """Median ns between two readings of the CPU clock (taken off every timing)."""
    gaps = []
    for _ in range(1000):
        started = time.process_time_ns()
        gaps.append(time.process_time_ns() - started)
    return int(statistics.median(gaps))


def legal_actions_times(map_id: str, players: int, cost: int) -> str:
    """``warm`` and ``cold`` median and p99 µs over the sampler's positions (see above)."""
    turns: list[tuple[GameState, int]] = []
    for seed in range(3):
        play(map_id, players, seed, random_action, turns)
    others: list[tuple[GameState, int]] = []
    for seed in range(1000, 1010):
        play(map_id, players, seed, random_action, others)
    warm, cold = [10**12] * len(turns), [10**12] * len(turns)
    for _ in range(ROUNDS):
        clear_memos()
        for state, seat in others:
            legal_actions(state, seat)
        for i, (state, seat) in enumerate(turns):
            started = time.process_time_ns()
            legal_actions(state, seat)
            warm[i] = min(warm[i], time.process_time_ns() - started - cost)
        for i, (state, seat) in enumerate(turns):
            clear_memos()
            started = time.process_time_ns()
            legal_actions(state, seat)
            cold[i] = min(cold[i], time.process_time_ns() - started - cost)
    return f"{len(turns):5} {percentiles(warm)}   {percentiles(cold)}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=40, help="games per map and agent")
    parser.add_argument("--maps", default=",".join(playable_maps()))
    args = parser.parse_args()
    maps = args.maps.split(",")
    print(calibration_line(), flush=True)
    cost = clock_cost()
    print(f"legal_actions µs per call (positions: agent sampler; clock cost {cost} ns taken off)")
    heads = ("players", "calls", "warm", "p99", "cold", "p99")
    print(f"{'map':13} " + " ".join(f"{h:>{len(h) if h == 'players' else 6}}" for h in heads))
    for map_id in maps:
        rules = board_for(map_id).rules
        for players in range(rules.players_min, rules.players_max + 1):
            figures = legal_actions_times(map_id, players, cost)
            print(f"{map_id:13} {players:7} {figures}", flush=True)
    finals: list[GameState] = []
    print(f"\n{'map':13} {'sampler':>14} {'uniform':>14} {'copy/snapshot':>16}")
    for map_id in maps:
        players = 3 if map_id == "nordic" else 4
        turns: list[tuple[GameState, int]] = []
        for seed in range(5):
            finals.append(play(map_id, players, seed, random_action, turns))
        copy = per_call([s.copy for s, _ in turns], 20)
        snapshot = per_call(
            [lambda s=s: GameState.from_snapshot(s.to_snapshot()) for s, _ in turns[::5]], 3
        )
        gc.collect()
        gc.freeze()
        sampler = games_per_second(map_id, players, args.games, random_action)
        uniform_rate = games_per_second(map_id, players, max(1, args.games // 4), uniform)
        print(
            f"{map_id:13} {sampler:8.1f} games/s {uniform_rate:6.1f} games/s"
            f" {copy * 1e6:6.1f}/{snapshot * 1e6:.0f} µs",
            flush=True,
        )
    times = []
    for state in finals:
        for seat in range(state.n_players):
            started = time.process_time()
            longest_path(state, seat)
            times.append(time.process_time() - started)
    print(
        f"longest path on {len(times)} final networks (all maps): "
        f"median {statistics.median(times) * 1e6:.0f} µs, max {max(times) * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
