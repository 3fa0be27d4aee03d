"""Bot benchmarks, no network: ``python bench/bench_bot.py [--actions N] [--games N]``.

1. One action end to end in the fake-Discord harness: the interaction goes
   through discord.py's dispatch, the game lock, the engine, the SQLite
   commit, the private answer, the board rendered in a worker thread (the
   real renderer) and the channel post with its DMs. Prints p50/p99
   (target: p99 <= 250 ms).
2. With 1,000 games stored: load one game cold (row, seats, snapshot, engine
   state) and store one action (log row + snapshot, one transaction).
   Prints the medians (target: < 5 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bot.client import TTRBot
from bot.config import Settings
from bot.service import GameService
from bot.storage import Storage
from bot.testing import Exchange, FakeDiscord
from engine import Claim, DeclineTunnel, DrawBlind, DrawFaceUp, KeepTickets, PayTunnel


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _open(fake: FakeDiscord, bot: TTRBot, users: list[int], map_id: str) -> int:
    lobby = (await fake.slash(bot, users[0], "new", map=map_id)).reply
    for uid in users[1:]:
        await fake.click(bot, uid, lobby, label="Join")
    await fake.click(bot, users[0], lobby, label="Start")
    info = await bot.service.channel_game(fake.CHANNEL_ID)
    assert info is not None
    return info.row.id


async def _act(fake: FakeDiscord, bot: TTRBot, gid: int, rng: random.Random) -> Exchange:
    """One legal action by a waiting player, through a slash command or a button."""
    info = await bot.service.info(gid)
    state = info.state
    assert state is not None
    seat = rng.choice(engine.waiting_for(state))
    uid = info.seats[seat].user_id
    legal = engine.legal_actions(state, seat)
    if state.phase == "choose_initial_tickets":
        keep = rng.choice([a for a in legal if isinstance(a, KeepTickets)])
        dm = next(d for d in reversed(fake.dms(uid))
                  if fake.message(d.id).custom_ids() == [f"ttr:{gid}:keep"])
        return await fake.choose(bot, uid, dm, [str(t) for t in keep.tickets])
    if state.phase == "tunnel":
        label = "Pay the extra cards" if rng.random() < 0.7 else "Decline"
        assert any(isinstance(a, PayTunnel | DeclineTunnel) for a in legal)
        return await fake.click(bot, uid, fake.last_board(), label=label)
    claims = [a for a in legal if isinstance(a, Claim)]
    if claims and state.phase == "turn" and rng.random() < 0.6:
        a = rng.choice(claims)
        colour = next((c for c in a.cards if c != "locomotive"), "locomotive")
        return await fake.slash(bot, uid, "claim", route=str(a.route), colour=colour)
    draw = rng.choice([a for a in legal if isinstance(a, DrawFaceUp | DrawBlind)])
    card = "deck" if isinstance(draw, DrawBlind) else str(draw.slot + 1)
    return await fake.slash(bot, uid, "draw", card=card)


async def bench_actions(n: int, tmp: Path) -> list[float]:
    fake = FakeDiscord()
    bot = TTRBot(Settings(token="bench", db_path=str(tmp / "actions.sqlite3")))
    await fake.connect(bot)
    users = [fake.add_user(name) for name in ("Ana", "Ben", "Cy", "Di")]
    rng = random.Random(1)
    times: list[float] = []
    try:
        gid = await _open(fake, bot, users, "europe")
        while len(times) < n:
            t0 = time.perf_counter()
            await _act(fake, bot, gid, rng)
            times.append(time.perf_counter() - t0)
            info = await bot.service.info(gid)
            if info.row.status == "finished":
                gid = await _open(fake, bot, users, "europe")
        assert not fake.unexpected
    finally:
        await bot.close()
    return times


async def bench_storage(games: int, samples: int, tmp: Path) -> tuple[list[float], list[float],
                                                                      list[float]]:
    path = str(tmp / "many.sqlite3")
    fill = await Storage.open(path, durable=False)
    service = GameService(fill)
    rng = random.Random(2)
    ids = []
    for i in range(games):  # 1,000 running games, each some turns in
        row = await service.create(guild_id=1, channel_id=10_000 + i, user_id=1, name="Ana",
                                   map_id="europe" if i % 2 else "usa", max_players=4)
        await service.join(row.id, 2, "Ben")
        await service.join(row.id, 3, "Cy")
        await service.start(row.id, 1, seed=i)
        for _ in range(rng.randrange(3, 30)):
            await _service_step(service, row.id, rng)
        ids.append(row.id)
    await fill.close()

    store = await Storage.open(path)  # production settings: WAL, synchronous=FULL
    service = GameService(store)
    reads, writes, acts = [], [], []
    for gid in rng.sample(ids, min(samples, len(ids))):
        service._forget(gid)  # cold: nothing cached
        t0 = time.perf_counter()
        info = await service.info(gid)
        reads.append(time.perf_counter() - t0)
        state = info.state
        assert state is not None
        snap = json.dumps(state.to_snapshot())
        t0 = time.perf_counter()  # the transaction an action commits, alone
        await store.save_snapshot(gid, state.version, snap)
        writes.append(time.perf_counter() - t0)
        t0 = time.perf_counter()  # a whole action: lock, engine, log row + snapshot commit
        await _service_step(service, gid, rng)
        acts.append(time.perf_counter() - t0)
    await store.close()
    return reads, writes, acts


async def _service_step(service: GameService, gid: int, rng: random.Random) -> None:
    info = await service.info(gid)
    state = info.state
    assert state is not None
    seat = rng.choice(engine.waiting_for(state))
    action = rng.choice(engine.legal_actions(state, seat))
    await service.act(gid, info.seats[seat].user_id, action)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        times = asyncio.run(bench_actions(args.actions, Path(tmp)))
        ms = [t * 1000 for t in times]
        print(f"action end to end ({len(ms)} actions, 4-player Europe, real renderer): "
              f"p50 {pct(ms, 0.5):.1f} ms, p99 {pct(ms, 0.99):.1f} ms, max {max(ms):.1f} ms "
              f"(target p99 <= 250 ms)")
        reads, writes, acts = asyncio.run(bench_storage(args.games, args.samples, Path(tmp)))
        print(f"with {args.games} games stored ({len(reads)} samples): "
              f"load one game cold median {statistics.median(reads) * 1000:.2f} ms; "
              f"write one snapshot median {statistics.median(writes) * 1000:.2f} ms; "
              f"apply+store one action median {statistics.median(acts) * 1000:.2f} ms "
              f"(target < 5 ms)")


if __name__ == "__main__":
    main()
