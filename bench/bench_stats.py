"""History and statistics benchmarks, no network: ``python bench/bench_stats.py [--games N]``.

1. With N finished 4-player USA games stored (default 1,000; 20 distinct games played by
   random legal moves, stored again and again with seats drawn from 40 members), the
   time to derive every game's results from its snapshot (``stats.sync``, what the first
   ``/ttr stats`` after an upgrade or a ``stats.rebuild`` does), then the time of what
   ``/ttr leaderboard`` and ``/ttr stats`` compute for each call: read the server's
   results and rate all N games with openskill, or summarise one member's.
   Wall and CPU times are printed: on a busy machine the wall time is the larger.
2. For one whole stored game: the history (``history.turn_logs`` + ``history.pages``)
   and the replay of its last turn through the engine (``history.board_at``, without
   the image). Medians of 20 runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.calibration import calibration_line
from bot import history, stats
from bot.service import GameService, event_to_json
from bot.storage import ActionRow, SeatRow, SqliteStorage, Storage
from engine import ACTION_ADAPTER, GameConfig
from engine.agents import random_action

GUILD = 1
MEMBERS = 40
DISTINCT = 20


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


async def store_game(store: Storage, n: int, config: GameConfig, state: engine.GameState,
                     rng: random.Random) -> None:
    """A finished game as the bot keeps one (here with one log row: the snapshot is what
    ``stats.sync`` reads)."""
    members = rng.sample(range(1, MEMBERS + 1), 4)
    row = await store.create_game(guild_id=GUILD, channel_id=10_000 + n, map_id="usa",
                                  max_players=4, host_id=members[0], host_name=f"m{members[0]}")
    seats = [SeatRow(i, m, f"m{m}") for i, m in enumerate(members)]
    start = engine.new_game(config)
    await store.start_game(row.id, config=config.model_dump_json(), seats=seats,
                           version=0, state=json.dumps(start.to_snapshot()))
    await store.record_action(row.id, seat=0, action="{}", events="[]", before=0,
                              after=state.version, state=json.dumps(state.to_snapshot()),
                              finished=True)


async def main_async(games: int) -> None:
    played = [play(seed) for seed in range(DISTINCT)]
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        store = await SqliteStorage.open(str(Path(tmp) / "bench.sqlite3"), durable=False)
        service = GameService(store)
        for n in range(games):
            config, _, state = played[n % DISTINCT]
            await store_game(store, n, config, state, rng)

        t0, c0 = time.perf_counter(), time.process_time()
        derived = await stats.sync(service)
        t_sync, c_sync = time.perf_counter() - t0, time.process_time() - c0
        print(f"derive the results of {derived} finished games (stats.sync): "
              f"{t_sync:.2f} s wall, {c_sync:.2f} s CPU; {1000 * t_sync / derived:.2f} ms "
              "a game")

        rate_times, rate_cpu, summary_times = [], [], []
        for _ in range(5):
            t0, c0 = time.perf_counter(), time.process_time()
            rated = stats.ratings(await store.results(GUILD))
            rate_times.append(time.perf_counter() - t0)
            rate_cpu.append(time.process_time() - c0)
            t0 = time.perf_counter()
            mine = [r for r in await store.results(GUILD) if r.user_id == 1]
            stats.summarize(mine)
            summary_times.append(time.perf_counter() - t0)
        print(f"/ttr leaderboard over {games} games ({len(rated)} players rated): "
              f"{1000 * statistics.median(rate_times):.0f} ms wall, "
              f"{1000 * statistics.median(rate_cpu):.0f} ms CPU median (read + openskill)")
        print(f"/ttr stats of one member over {games} games: "
              f"{1000 * statistics.median(summary_times):.0f} ms median")
        await store.close()

    config, log, state = played[0]
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
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    print(calibration_line(), flush=True)
    asyncio.run(main_async(args.games))


if __name__ == "__main__":
    main()
