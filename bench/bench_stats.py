"""History and statistics benchmarks, no network:
``python bench/bench_stats.py [--games N ...]``.

1. For each N (default 4,000 and 100,000): N finished 4-player games of one server (USA
   and Europe, seats drawn from 40 members, each seat with a few turns' times in its
   log) written straight into a new SQLite file, their standings built from the stored
   results (``stats.build_standings``: what the first start after the upgrade does),
   then the CPU time of what each ``/ttr leaderboard`` and ``/ttr stats`` reads and
   computes (median of 50 calls; and whether it took a trip to the SQLite writer's
   thread), and of one more game's end (its results stored and folded into the
   standings, in the transaction of its last action). Wall and CPU times are printed:
   on a busy machine the wall time is the larger.
2. For one whole stored game: the history (``history.turn_logs`` + ``history.pages``)
   and the replay of its last turn through the engine (``history.board_at``, without
   the image). Medians of 20 runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.calibration import calibration_line
from bot import stats
from bot.records import history
from bot.records.standings import results_of
from bot.storage.api import ActionRow, SeatRow
from bot.storage.codec import event_to_json
from bot.storage.sqlite import SqliteStorage
from engine import ACTION_ADAPTER, GameConfig
from engine.agents import random_action

GUILD = 1
MEMBERS = 40


def play(seed: int) -> tuple[GameConfig, list[tuple[int, str, str]], engine.GameState]:
    config = GameConfig(map_id="usa", players=["A", "B", "C", "D"], seed=seed)
    state = engine.new_game(config)
    rng = random.Random(seed)
    log = []
    while state.phase != "game_over":
        seat = rng.choice(engine.waiting_for(state))
        action = random_action(state, seat, rng)
        events = engine.apply(state, seat, action)
        log.append((seat, ACTION_ADAPTER.dump_json(action).decode(),
                    json.dumps([event_to_json(e) for e in events])))
    return config, log, state


def _seed(path: str, games: int, rng: random.Random) -> None:
    """``games`` finished games, their results and a short log each, in one transaction."""
    db = sqlite3.connect(path)
    game_rows, result_rows, action_rows = [], [], []
    for n in range(1, games + 1):
        map_id = ("usa", "europe")[n % 2]
        members = rng.sample(range(1, MEMBERS + 1), 4)
        ranks = sorted(range(1, 5), key=lambda _: rng.random())
        game_rows.append((n, GUILD, 10_000 + n, map_id, members[0], n, n))
        when = float(n)
        for seat, member in enumerate(members):
            result_rows.append((n, seat, f"user:{member}", member, f"m{member}",
                                rng.randint(40, 160), ranks[seat], rng.randint(0, 5),
                                rng.randint(0, 2), rng.randint(5, 30),
                                json.dumps(rng.sample(range(70), 12))))
        version = 0
        for _turn in range(3):  # each seat's turn: started by the one before, then played
            for seat, member in enumerate(members):
                version += 1
                when += rng.lognormvariate(7, 1.5)
                started = json.dumps([{"type": "TurnStarted", "seat": (seat + 1) % 4,
                                       "turn": version}])
                action_rows.append((n, version, seat, "{}", started, when, member))
    db.executemany(
        "INSERT INTO games (id, guild_id, channel_id, status, map_id, max_players, host_id, "
        "created_at, updated_at) VALUES (?, ?, ?, 'finished', ?, 4, ?, ?, ?)", game_rows)
    db.executemany(
        "INSERT INTO game_results (game_id, seat, player, user_id, name, score, rank, "
        "tickets_completed, tickets_failed, longest_path, routes) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", result_rows)
    db.executemany(
        "INSERT INTO actions (game_id, version, seat, action, events, created_at, user_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)", action_rows)
    db.commit()
    db.close()


def _timed(samples: list[tuple[float, float]]) -> str:
    wall = statistics.median(w for w, _ in samples)
    cpu = statistics.median(c for _, c in samples)
    return f"{1000 * cpu:.2f} ms CPU, {1000 * wall:.2f} ms wall"


async def _calls(store: SqliteStorage, call: Callable[[], Awaitable[object]],
                 runs: int = 50) -> str:
    trips = store.trips
    samples = []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        await call()
        samples.append((time.perf_counter() - t0, time.process_time() - c0))
    return f"{_timed(samples)} median; writer trips {store.trips - trips}"


async def stats_at(games: int, played: tuple[GameConfig, engine.GameState]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "bench.sqlite3")
        store = await SqliteStorage.open(path, durable=False)
        await store.close()
        _seed(path, games, random.Random(games))
        store = await SqliteStorage.open(path, durable=False)
        t0, c0 = time.perf_counter(), time.process_time()
        built = await stats.build_standings(store)
        print(f"{games} games: standings built from the stored results in "
              f"{time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU "
              f"({built} games)")
        print(f"  /ttr leaderboard: "
              f"{await _calls(store, lambda: stats.leaderboard(store, GUILD, None))}")
        print(f"  /ttr leaderboard map:usa: "
              f"{await _calls(store, lambda: stats.leaderboard(store, GUILD, 'usa'))}")
        print(f"  /ttr stats member: "
              f"{await _calls(store, lambda: stats.summary(store, GUILD, None, 7))}")
        print(f"  /ttr stats (server): "
              f"{await _calls(store, lambda: stats.summary(store, GUILD, None))}")
        config, state = played
        view = engine.public_view(state)
        ends = []
        for n in range(20):
            members = random.Random(n).sample(range(1, MEMBERS + 1), 4)
            row = await store.create_game(guild_id=GUILD, channel_id=1 + n, map_id="usa",
                                          max_players=4, host_id=members[0],
                                          host_name=f"m{members[0]}")
            seats = [SeatRow(i, m, f"m{m}") for i, m in enumerate(members)]
            await store.start_game(row.id, config=config.model_dump_json(), seats=seats,
                                   version=0, state="{}")
            t0, c0 = time.perf_counter(), time.process_time()
            await store.save_results(row.id, results_of(row.id, seats, view))
            ends.append((time.perf_counter() - t0, time.process_time() - c0))
        print(f"  a game's end (results stored, standings folded): {_timed(ends)} median")
        await store.close()


async def main_async(sizes: list[int]) -> None:
    config, log, state = play(0)
    for games in sizes:
        await stats_at(games, (config, state))

    rows = [ActionRow(v, seat, action, events)
            for v, (seat, action, events) in enumerate(log, start=1)]
    names = config.players
    page_times, replay_times = [], []
    for _ in range(20):
        t0 = time.perf_counter()
        book = history.pages(history.turn_logs("usa", names, rows), names)
        page_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        history.board_at(config, rows, len(rows))
        replay_times.append(time.perf_counter() - t0)
    print(f"history of one game ({len(rows)} actions, {state.turn} turns, {len(book)} pages): "
          f"{1000 * statistics.median(page_times):.1f} ms median")
    print(f"replay of its last turn (engine only): "
          f"{1000 * statistics.median(replay_times):.1f} ms median")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[4000, 100_000])
    args = parser.parse_args()
    print(calibration_line(), flush=True)
    asyncio.run(main_async(args.games))


if __name__ == "__main__":
    main()
