"""Bot benchmarks, no network: ``python bench/bench_bot.py [--concurrent 20] [--games N]
[--backend sqlite|postgresql|both]``.

Each runs on the chosen database backend (default SQLite; ``both`` runs everything on
each, one after the other, and prints the figures side by side). PostgreSQL is
``TTR_DATABASE_URL`` if set (the bench creates and drops its own databases there), else
a local server started from the ``pgserver`` package (as the tests do): same machine,
Unix socket, fsync on.

1. Actions end to end in the fake-Discord harness, ``--concurrent`` games (20) in
   their own channels acting all at once: every game is opened first (lobby, joins,
   start, the deal's posts and DMs; not timed), then in every game the next player acts
   as soon as the previous action is answered (no thinking time), so 20 actions are
   always in flight, beginning with every player's initial ticket choice at once.
   ``--open-while-acting``: each game acts as soon as it is open, while the others are
   still opening (their start-ups' posts and images, not timed, compete with the first
   actions). Each goes through discord.py's dispatch, the game lock, the engine, the
   SQLite commit, the private answer, the board drawn by the real renderer in its
   worker processes (one per core, warmed up first as at the bot's start-up) and the
   channel post with its DMs. The harness returns an action when its own work is done
   (not when all 20 are), so each action's time is its own. Prints p50/p99 over all
   actions (target: p99 <= 250 ms) and, separately, the same for the actions that
   post nothing (a first card, a ticket draw), for the actions begun once every game's
   initial ticket choices were done (past the start-up burst of 20 games' players
   choosing at once), and the p50/p99 of the actor's own answer
   (the first reply to their interaction: what the player waits for; the board and the
   next player's DM follow), and the CPU load of the machine. Then
   the CPU time per action of the bot's process and of the render workers: CPU time,
   not wall time (it still varies with the host's load: compare runs by the calibration
   line printed first, ``bench/calibration.py``). The bot's process
   also runs the fake Discord and this driver; the CPU they spend answering the bot's
   requests and choosing each action (Discord's and the players' work) is printed
   apart and taken off the bot's own. With SQLite: the trips to the database's writer
   thread per action.
   ``--threads`` draws in threads of the bot's own process instead (as before the
   worker processes), for comparison under the same load.
2. With 1,000 games stored: load one game cold (row, seats, snapshot, engine
   state) and store one action (log row + snapshot, one transaction).
   Prints the medians (target: < 5 ms).
3. The database alone: ``--writers`` games (8) storing 100 actions each at once,
   each the transaction an action commits; prints actions committed per second (what
   one database carries, whatever the number of bot processes in front of it).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import json
import logging
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg

import engine
from bench.calibration import calibration_line
from bot.edge.client import TTRBot
from bot.edge.testing import Exchange, FakeDiscord
from bot.game.games import GameInfo
from bot.game.images import TRACE_TAG, JobTrace, Renderer, cores, default_renderer
from bot.game.service import GameService
from bot.ops import collector
from bot.ops.config import Settings
from bot.ops.database import is_postgres, open_storage
from bot.ops.lifecycle import tune_interpreter
from bot.ops.workers import worker_pids
from bot.storage.sqlite import SqliteStorage
from engine import Claim, DeclineTunnel, DrawBlind, DrawFaceUp, KeepTickets, PayTunnel
from tests.postgres import PgServer


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux ``/proc``; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def workers_cpu(renderer: Renderer) -> dict[int, float]:
    """CPU seconds so far of each render worker process, by pid."""
    return {pid: cpu_seconds(pid) for pid in worker_pids(renderer.pool)}


@dataclass
class Run:
    """What one concurrent run measured."""

    times: list[tuple[float, bool]] = field(default_factory=list)  # (seconds, posted?)
    openings_end: float = 0.0  # when the last initial ticket choice ended
    answers: list[float] = field(default_factory=list)  # seconds to the actor's answer
    bot_cpu: float = 0.0  # CPU seconds of the bot's process (every thread) over the run
    workers_cpu: float = 0.0  # CPU seconds of the render workers over the run
    trips: int | None = None  # SQLite: trips to the database's writer thread over the run
    fake_cpu: float = 0.0  # of bot_cpu: the fake Discord answering requests (Discord's work)
    driver_cpu: float = 0.0  # of bot_cpu: the driver choosing each action (the players')
    jobs: list[JobTrace] = field(default_factory=list)  # --trace: every render job
    # each action's (started, ended), by its tag (the game's number, the action's)
    spans: dict[object, tuple[float, float]] = field(default_factory=dict)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _open(fake: FakeDiscord, bot: TTRBot, users: list[int], map_id: str,
                channel: int) -> int:
    lobby = (await fake.slash(bot, users[0], "new", map=map_id, channel_id=channel)).reply
    for uid in users[1:]:
        await fake.click(bot, uid, lobby, label="Join")
    await fake.click(bot, users[0], lobby, label="Start")
    info = await bot.service.channel_game(channel)
    assert info is not None
    return info.row.id


async def _act(fake: FakeDiscord, bot: TTRBot, gid: int, rng: random.Random,
               channel: int, run: Run) -> tuple[Exchange, bool]:
    """One legal action by a waiting player, through a slash command or a button; and
    whether it was an initial ticket choice."""
    info = await bot.service.info(gid)
    started = time.thread_time()  # the driver's choice: CPU of the bench, not of the bot
    send = _choose(fake, bot, info, rng, channel)
    run.driver_cpu += time.thread_time() - started
    assert info.state is not None
    return await send(), info.state.phase == "choose_initial_tickets"


def _choose(fake: FakeDiscord, bot: TTRBot, info: GameInfo, rng: random.Random,
            channel: int) -> Callable[[], Awaitable[Exchange]]:
    """What a waiting player does next: the interaction to send."""
    gid, state = info.row.id, info.state
    assert state is not None
    seat = rng.choice(engine.waiting_for(state))
    uid = info.seats[seat].user_id
    legal = engine.legal_actions(state, seat)
    if state.phase == "choose_initial_tickets":
        keep = rng.choice([a for a in legal if isinstance(a, KeepTickets)])
        dm = next(d for d in reversed(fake.dms(uid))
                  if fake.message(d.id).custom_ids() == [f"ttr:{gid}:keep"])
        return lambda: fake.choose(bot, uid, dm, [str(t) for t in keep.tickets])
    if state.phase == "tunnel":
        label = "Pay the extra cards" if rng.random() < 0.7 else "Decline"
        assert any(isinstance(a, PayTunnel | DeclineTunnel) for a in legal)
        board = fake.last_board(channel)
        return lambda: fake.click(bot, uid, board, label=label)
    claims = [a for a in legal if isinstance(a, Claim)]
    if claims and state.phase == "turn" and rng.random() < 0.6:
        a = rng.choice(claims)
        colour = next((c for c in a.cards if c != "locomotive"), "locomotive")
        return lambda: fake.slash(bot, uid, "claim", route=str(a.route), colour=colour,
                                  channel_id=channel)
    draw = rng.choice([a for a in legal if isinstance(a, DrawFaceUp | DrawBlind)])
    card = "deck" if isinstance(draw, DrawBlind) else str(draw.slot + 1)
    return lambda: fake.slash(bot, uid, "draw", card=card, channel_id=channel)


def _counted(fake: FakeDiscord, run: Run) -> None:
    """Count the CPU the fake Discord spends answering the bot's requests (REST and
    interaction webhooks): Discord's work, not the bot's."""
    for name in ("rest", "webhook"):
        answer = getattr(fake, name)

        def timed(*args: Any, answer: Callable[..., Any] = answer, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return answer(*args, **kwargs)
            finally:
                run.fake_cpu += time.thread_time() - started
        setattr(fake, name, timed)


MAPS = ("europe", "usa", "nordic")  # maps whose every decision this driver can make


async def _play(fake: FakeDiscord, bot: TTRBot, number: int, actions: int, run: Run,
                opened: asyncio.Barrier | None) -> None:
    """One game (and the next when it ends) in its own channel, acting back to back; with
    ``opened``, once every game is open (its lobby, start, deal and first posts done)."""
    channel = fake.next_id()
    fake.channels[channel] = fake._text_channel(channel)
    map_id = MAPS[number % len(MAPS)]
    users = [fake.add_user(f"P{number}-{i}") for i in range(3 if map_id == "nordic" else 4)]
    rng = random.Random(number)
    gid = await _open(fake, bot, users, map_id, channel)
    if opened is not None:
        await opened.wait()
    for i in range(actions):
        TRACE_TAG.set((number, i))  # the render jobs this action submits carry it
        t0 = time.perf_counter()
        ex, opening = await _act(fake, bot, gid, rng, channel, run)
        posted = any(s.public and s.kind == "channel" for s in ex.sent)
        done = time.perf_counter()
        run.spans[number, i] = (t0, done)
        run.times.append((done - t0, posted))
        if opening:
            run.openings_end = max(run.openings_end, done)
        if ex.replies:  # what the actor sees first: their interaction answered
            run.answers.append(min(r.at for r in ex.replies) - t0)
        if (await bot.service.info(gid)).row.status == "finished":
            gid = await _open(fake, bot, users, map_id, channel)


async def bench_actions(concurrent: int, actions: int, database: str,
                        threads: bool = False, trace: bool = False,
                        open_while_acting: bool = False) -> Run:
    fake = FakeDiscord()
    renderer = default_renderer(processes=0 if threads else cores())
    run = Run()
    if trace:
        renderer = dataclasses.replace(renderer, traces=run.jobs)
    settings = (Settings(token="bench", database_url=database) if is_postgres(database)
                else Settings(token="bench", db_path=database))
    bot = TTRBot(settings, renderer=renderer)
    await fake.connect(bot)
    try:
        # As at the bot's start-up: every worker forks warm (bases and pieces built).
        if renderer.pool is not None:
            jobs = [renderer.pool.submit(int) for _ in range(cores())]
            await asyncio.wait_for(asyncio.gather(*map(asyncio.wrap_future, jobs)), 600)
        collector.freeze()  # as ``bot.ops.lifecycle.serve`` does once the bot is prepared
        storage = bot.service.storage
        trips_before = storage.trips if isinstance(storage, SqliteStorage) else 0
        workers_before = workers_cpu(renderer)
        bot_before = time.process_time()
        _counted(fake, run)
        opened = None if open_while_acting else asyncio.Barrier(concurrent)
        await asyncio.gather(*(_play(fake, bot, i, actions, run, opened)
                               for i in range(concurrent)))
        run.bot_cpu = time.process_time() - bot_before
        if isinstance(storage, SqliteStorage):
            run.trips = storage.trips - trips_before
        run.workers_cpu = sum(cpu - workers_before.get(pid, 0.0)
                              for pid, cpu in workers_cpu(renderer).items())
        assert not fake.unexpected
    finally:
        await bot.close()
    return run


async def bench_storage(games: int, samples: int, database: str
                        ) -> tuple[list[float], list[float], list[float]]:
    fill = (await open_storage(database) if is_postgres(database)
            else await SqliteStorage.open(database, durable=False))
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

    store = await open_storage(database)  # production settings (SQLite: WAL, FULL sync)
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


async def bench_commits(database: str, writers: int, each: int) -> tuple[float, int]:
    """The database alone: ``writers`` games storing actions at once, each action the
    transaction the bot commits (version check, log row, snapshot of a real game's size).
    Returns actions committed per second and the snapshot's size in bytes."""
    store = await open_storage(database)
    config = engine.GameConfig(map_id="europe", players=["A", "B", "C", "D"], seed=1)
    state = engine.new_game(config)
    for _ in range(40):  # some turns in: a snapshot of a game under way
        seat = engine.waiting_for(state)[0]
        engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    snapshot = json.dumps(state.to_snapshot())
    ids = []
    for i in range(writers):
        row = await store.create_game(guild_id=1, channel_id=20_000 + i, map_id="europe",
                                      max_players=4, host_id=1, host_name="A")
        await store.start_game(row.id, config=config.model_dump_json(), version=0,
                               state=snapshot, seats=[])
        ids.append(row.id)

    async def write(gid: int) -> None:
        for v in range(each):
            await store.record_action(gid, seat=0, action='{"type": "draw_blind"}',
                                      events="[]", before=v, after=v + 1, state=snapshot,
                                      finished=False)

    t0 = time.perf_counter()
    await asyncio.gather(*(write(gid) for gid in ids))
    elapsed = time.perf_counter() - t0
    await store.close()
    return writers * each / elapsed, len(snapshot)


async def _service_step(service: GameService, gid: int, rng: random.Random) -> None:
    info = await service.info(gid)
    state = info.state
    assert state is not None
    seat = rng.choice(engine.waiting_for(state))
    action = rng.choice(engine.legal_actions(state, seat))
    await service.act(gid, info.seats[seat].user_id, action)


class Databases:
    """Fresh databases for each part of the bench: SQLite files in a temporary folder, or
    PostgreSQL databases (TTR_DATABASE_URL's server, else one pgserver starts)."""

    def __init__(self, backend: str, tmp: Path):
        self.backend = backend
        self.tmp = tmp
        self._server: PgServer | None = None
        self._made: list[str] = []

    def __enter__(self) -> Databases:
        return self

    def new(self, name: str) -> str:
        if self.backend == "sqlite":
            return str(self.tmp / f"{name}.sqlite3")
        url = os.environ.get("TTR_DATABASE_URL")
        if url:  # databases of its own on the operator's server, next to the bot's
            run_sql(url, f"CREATE DATABASE bench_{name}")
            self._made.append(name)
            return url.rsplit("/", 1)[0] + f"/bench_{name}"
        if self._server is None:
            self._server = PgServer.start()
        return self._server.database_url(name)

    def __exit__(self, *exc: object) -> None:
        url = os.environ.get("TTR_DATABASE_URL")
        for name in self._made:
            if url:
                run_sql(url, f"DROP DATABASE IF EXISTS bench_{name} WITH (FORCE)")
        if self._server is not None:
            self._server.stop()


def run_sql(url: str, command: str) -> None:
    async def run() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(command)
        finally:
            await conn.close()

    asyncio.run(run())


def _ms(values: list[float]) -> str:
    return (f"p50 {pct(values, 0.5) * 1000:.1f} / p99 {pct(values, 0.99) * 1000:.1f} / "
            f"max {max(values, default=float('nan')) * 1000:.1f} ms")


def trace_lines(run: Run) -> list[str]:
    """--trace: where the render jobs' time goes (queued for a worker, in it, back to the
    loop), by kind, and what the slowest actions waited for against the median ones."""
    jobs = [j for j in run.jobs if j.answered]
    lines = []
    for kind in sorted({j.kind for j in jobs}):
        of = [j for j in jobs if j.kind == kind]
        layers = {name: [j.ended - j.started for j in of if j.layer == name]
                  for name in ("cached", "changed", "drawn")}
        lines.append(
            f"render {kind}: {len(of)} jobs; queued (submitted to a worker starting it) "
            f"{_ms([j.started - j.submitted for j in of])}; in the worker "
            f"{_ms([j.ended - j.started for j in of])} (CPU p50 "
            f"{pct([j.cpu for j in of], 0.5) * 1000:.1f} ms); back to the loop "
            f"{_ms([j.answered - j.ended for j in of])}; pickled job p50 "
            f"{pct([j.args_bytes for j in of], 0.5) / 1024:.0f} KiB, max "
            f"{max(j.args_bytes for j in of) / 1024:.0f} KiB; result p50 "
            f"{pct([j.result_bytes for j in of], 0.5) / 1024:.0f} KiB"
            + "".join(f"; map layer {name}: {len(t)} jobs, in the worker {_ms(t)}"
                      for name, t in layers.items() if t))
    # Does a game's board cost less when its previous board was drawn by the same worker
    # (that worker's caches hold the game's map layer and PNG bands)?
    previous: dict[object, int] = {}
    same, other = [], []
    for j in sorted((j for j in jobs if j.kind == "board"), key=lambda j: j.started):
        game = j.tag[0] if isinstance(j.tag, tuple) else None
        if game in previous:
            (same if previous[game] == j.pid else other).append(j.cpu)
        previous[game] = j.pid
    span = max(j.ended for j in jobs) - min(j.started for j in jobs)
    busy = {pid: sum(j.ended - j.started for j in jobs if j.pid == pid) / span
            for pid in sorted({j.pid for j in jobs})}
    # A worker's wait between two jobs while the next was already submitted: sending its
    # image back and being handed and scheduled for the next one.
    gaps = []
    for pid in busy:
        mine = sorted((j for j in jobs if j.pid == pid), key=lambda j: j.started)
        gaps += [b.started - a.ended for a, b in itertools.pairwise(mine)
                 if b.submitted < a.ended]
    lines.append(
        f"a worker between two jobs (the next one waiting): {_ms(gaps)}, p90 "
        f"{pct(gaps, 0.9) * 1000:.1f} ms, {sum(gaps):.1f} s in all; "
        f"boards of a game whose last board the same worker drew: {len(same)}, CPU p50 "
        f"{pct(same, 0.5) * 1000:.1f} ms, mean {statistics.fmean(same or [0]) * 1000:.1f}; "
        f"the other worker drew it: {len(other)}, CPU p50 {pct(other, 0.5) * 1000:.1f} ms, "
        f"mean {statistics.fmean(other or [0]) * 1000:.1f}; workers busy (a job in hand) "
        + ", ".join(f"{b:.0%}" for b in busy.values()) + f" of {span:.1f} s")
    by_action: dict[object, list[JobTrace]] = {}
    for j in jobs:
        by_action.setdefault(j.tag, []).append(j)
    spans = sorted(run.spans.items(), key=lambda item: item[1][1] - item[1][0])
    if not spans:
        return lines

    def waits(group: list[tuple[object, tuple[float, float]]], name: str) -> str:
        n = len(group)
        mine = [by_action.get(tag, []) for tag, _ in group]
        # Of each action's time: until its last render job was back, and after.
        last = [max((j.answered for j in js), default=t0) - t0
                for js, (_, (t0, _end)) in zip(mine, group, strict=True)]
        after = [end - t0 - before
                 for before, (_, (t0, end)) in zip(last, group, strict=True)]
        queued = [max((j.started - j.submitted for j in js), default=0.0) for js in mine]
        return (f"{name} ({n} actions, {_ms([e - t for _, (t, e) in group])}): render jobs "
                f"per action {sum(map(len, mine)) / n:.2f}; until the last job was back "
                f"mean {statistics.fmean(last) * 1000:.0f} ms, after it "
                f"{statistics.fmean(after) * 1000:.0f} ms; the longest queued job "
                f"mean {statistics.fmean(queued) * 1000:.0f} ms")

    tail = spans[int(0.99 * len(spans)):]
    middle = spans[int(0.45 * len(spans)):int(0.55 * len(spans))]
    lines.append(waits(tail, "slowest 1 %") + "; " + waits(middle, "median 10 %"))
    return lines


def bench(backend: str, args: argparse.Namespace, tmp: Path) -> list[str]:
    """Every figure of one backend, one line each."""
    with Databases(backend, tmp) as databases:
        load = os.getloadavg()[0]
        started = time.perf_counter()
        run = asyncio.run(bench_actions(args.concurrent, args.actions,
                                        databases.new("actions"), args.threads, args.trace,
                                        args.open_while_acting))
        wall = time.perf_counter() - started
        times = run.times
        where = "threads" if args.threads else f"{cores()} worker processes"
        ms = [t * 1000 for t, _ in times]
        quiet = [t * 1000 for t, posted in times if not posted]
        answers = [t * 1000 for t in run.answers]
        # Past the start-up burst (20 games' players choosing tickets at once): the
        # actions begun after every game's last initial ticket choice was done.
        steady = [(end - begun) * 1000 for begun, end in run.spans.values()
                  if begun > run.openings_end]
        opening = ("each game acting as soon as it is open, while the others open"
                   if args.open_while_acting else "every game opened first")
        lines = [
            f"{args.concurrent} games acting at once ({', '.join(MAPS)}; {opening}; "
            f"{len(ms)} actions, real renderer in {where}): p50 {pct(ms, 0.5):.0f} ms, "
            f"p99 {pct(ms, 0.99):.0f} ms, max {max(ms):.0f} ms (target p99 <= 250 ms); "
            f"{len(quiet)} actions that post nothing: p50 {pct(quiet, 0.5):.0f} ms, "
            f"p99 {pct(quiet, 0.99):.0f} ms; {len(steady)} actions begun after every "
            f"game's initial ticket choices were done: p50 {pct(steady, 0.5):.0f} ms, "
            f"p99 {pct(steady, 0.99):.0f} ms, max {max(steady, default=0):.0f} ms; "
            f"the actor's own answer (the first reply to "
            f"their interaction, sent once the action is stored and before the channel "
            f"post and the images): p50 {pct(answers, 0.5):.0f} ms, "
            f"p99 {pct(answers, 0.99):.0f} ms; {len(ms) / wall:.1f} actions/s over the "
            f"whole run (start-up included); machine load average {load:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs",
            f"CPU per action over the same run (games opened included): bot process "
            f"{run.bot_cpu / len(ms) * 1000:.1f} ms (of which the fake Discord answering "
            f"requests {run.fake_cpu / len(ms) * 1000:.1f} ms and the driver choosing "
            f"actions {run.driver_cpu / len(ms) * 1000:.1f} ms: the bot's own "
            f"{(run.bot_cpu - run.fake_cpu - run.driver_cpu) / len(ms) * 1000:.1f} ms), "
            f"render workers {run.workers_cpu / len(ms) * 1000:.1f} ms, together "
            f"{(run.bot_cpu + run.workers_cpu) / len(ms) * 1000:.1f} ms"
            + ("" if run.trips is None else
               f"; {run.trips / len(ms):.1f} trips to the database's writer thread per "
               f"action")]
        if args.trace:
            lines += trace_lines(run)
        if args.actions_only:
            return lines
        reads, writes, acts = asyncio.run(bench_storage(args.games, args.samples,
                                                        databases.new("many")))
        lines.append(
            f"with {args.games} games stored ({len(reads)} samples): "
            f"load one game cold median {statistics.median(reads) * 1000:.2f} ms; "
            f"write one snapshot median {statistics.median(writes) * 1000:.2f} ms; "
            f"apply+store one action median {statistics.median(acts) * 1000:.2f} ms "
            f"(target < 5 ms)")
        rate, size = asyncio.run(bench_commits(databases.new("commits"), args.writers, 100))
        lines.append(f"the database alone: {args.writers} games storing actions at once "
                     f"(one transaction each: version check, log row, {size // 1024} KiB "
                     f"snapshot): {rate:.0f} actions/s")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrent", type=int, default=20, help="games acting at once")
    parser.add_argument("--actions", type=int, default=30, help="actions per game")
    parser.add_argument("--threads", action="store_true",
                        help="draw in threads of the bot's process, not worker processes "
                             "(for comparison)")
    parser.add_argument("--actions-only", action="store_true",
                        help="only the concurrent games (part 1), not the storage figures")
    parser.add_argument("--open-while-acting", action="store_true",
                        help="each game acts as soon as it is open, while the others are "
                             "still opening (the start-ups' posts and images compete with "
                             "the first actions); by default every game is opened first")
    parser.add_argument("--trace", action="store_true",
                        help="time every render job: queued, in the worker, back to the loop")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--writers", type=int, default=8,
                        help="games storing actions at once in the database-only figure")
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"),
                        default="sqlite", help="the database the bot uses")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    print(calibration_line(), flush=True)
    tune_interpreter()  # as ``bot.ops.lifecycle.serve`` does at the bot's start
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    with tempfile.TemporaryDirectory() as tmp:
        for backend in backends:
            for line in bench(backend, args, Path(tmp)):
                print(f"[{backend}] {line}", flush=True)


if __name__ == "__main__":
    main()
