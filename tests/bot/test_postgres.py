"""PostgreSQL: the same schema as SQLite, jobs claimed once across processes, a dead
process's job taken over, and two services hammering the same games at once.

A real server (``postgres_server`` in conftest), never a mock."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys

import pytest

import engine
from bot.edge.client import TTRBot
from bot.game.games import Refusal
from bot.game.scheduler import SHARED_LOOK_EVERY
from bot.game.service import GameService
from bot.storage.api import JOB_LEASE_SECONDS, Job, Storage
from bot.storage.migrations import MIGRATIONS, PG_MIGRATIONS
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage
from engine import ACTION_ADAPTER, GameConfig, GameState
from tests.bot.conftest import json_renderer


@pytest.fixture
def backend():
    return "postgresql"


async def _sqlite_schema(store: SqliteStorage) -> tuple[dict[str, set[str]], set[str]]:
    tables = [str(r[0]) for r in await store._all(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence'")]
    columns = {t: {str(c[1]) for c in await store._all(f"PRAGMA table_info({t})")}
               for t in tables}
    indexes = {str(r[0]) for r in await store._all(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}
    return columns, indexes


async def _postgres_schema(store: PostgresStorage) -> tuple[dict[str, set[str]], set[str]]:
    columns: dict[str, set[str]] = {}
    for table, column in await store._all(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name <> 'ttr_schema'"):
        columns.setdefault(str(table), set()).add(str(column))
    columns.get("history", set()).discard("rowid")  # SQLite's is implicit
    # Indexes named in the schema (not those of primary keys and UNIQUE constraints).
    indexes = {str(r[0]) for r in await store._all(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
        "AND indexname NOT LIKE '%\\_pkey' AND indexname NOT LIKE '%\\_key'")}
    return columns, indexes


@pytest.mark.slow
async def test_both_backends_reach_the_same_tables_and_columns_at_every_version(
        postgres_server, tmp_path):
    """Every SQLite migration has its PostgreSQL counterpart at the same index."""
    assert len(PG_MIGRATIONS) == len(MIGRATIONS), (
        "every entry of bot.storage.migrations.MIGRATIONS needs its PostgreSQL counterpart "
        "at the same index of PG_MIGRATIONS")
    for version in range(1, len(MIGRATIONS) + 1):
        lite = await SqliteStorage.open(str(tmp_path / f"v{version}.sqlite3"),
                                        migrations=MIGRATIONS[:version])
        with postgres_server.database(template="template0") as url:
            pg = await PostgresStorage.open(url, migrations=PG_MIGRATIONS[:version])
            try:
                assert await pg.schema_version() == version
                assert await _postgres_schema(pg) == await _sqlite_schema(lite), (
                    f"PG_MIGRATIONS[{version - 1}] does not make what MIGRATIONS[{version - 1}] "
                    f"makes")
            finally:
                await pg.close()
        await lite.close()


async def test_migrations_run_once_and_a_newer_database_is_refused(database):
    store = await PostgresStorage.open(database)
    assert await store.schema_version() == len(PG_MIGRATIONS)
    await store.close()
    store = await PostgresStorage.open(database)  # reopening changes nothing
    await store.close()
    with pytest.raises(Exception, match="newer than this bot"):
        await PostgresStorage.open(database, migrations=PG_MIGRATIONS[:1])


async def _game_with_jobs(store: Storage, count: int) -> list[Job]:
    row = await store.create_game(guild_id=1, channel_id=10, map_id="usa", max_players=5,
                                  host_id=1, host_name="A")
    jobs = [Job("remind", row.id, seat, 0, due_at=100.0 + seat) for seat in range(count)]
    await store.plan_jobs(row.id, 0, carry=(), jobs=jobs)
    return await store.jobs(row.id)


async def test_two_processes_claiming_at_once_each_get_different_jobs(database):
    first, second = [await PostgresStorage.open(database) for _ in range(2)]
    try:
        planned = await _game_with_jobs(first, 12)

        async def drain(store: Storage, worker: str) -> list[int]:
            taken = []
            while (job := await store.claim_job(1000.0, worker)) is not None:
                taken.append(job.id)
            return taken

        a, b = await asyncio.gather(drain(first, "a"), drain(second, "b"))
        assert sorted(a + b) == sorted(j.id for j in planned)  # each job exactly once
        assert not set(a) & set(b)
    finally:
        await first.close()
        await second.close()


async def test_a_claim_holds_for_its_lease_then_another_process_takes_it_over(database):
    first, second = [await PostgresStorage.open(database) for _ in range(2)]
    try:
        [planned] = await _game_with_jobs(first, 1)
        job = await first.claim_job(200.0, "a")
        assert job is not None and job.id == planned.id
        assert await second.claim_job(201.0, "b") is None
        assert await second.next_due() == 200.0 + JOB_LEASE_SECONDS
        # A restart of another worker gives back its own claims only.
        assert await second.release_claims("b") == 0
        assert await second.claim_job(200.0 + JOB_LEASE_SECONDS - 1, "b") is None
        late = await second.claim_job(200.0 + JOB_LEASE_SECONDS + 1, "b")
        assert late is not None and late.id == planned.id
        await second.finish_job(late, 500.0 + JOB_LEASE_SECONDS)
        assert await first.claim_job(10_000.0, "a") is None  # done: nobody runs it again
    finally:
        await first.close()
        await second.close()


# A bot process that claims the due job, says so, and waits for its end (SIGKILL).
_DOOMED = """
import asyncio, sys
from bot.storage.postgres import PostgresStorage

async def main():
    store = await PostgresStorage.open(sys.argv[1])
    job = await store.claim_job(float(sys.argv[2]), "doomed")
    print("claimed", job.kind, job.seat, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


@pytest.mark.slow
async def test_a_killed_processes_job_is_run_once_by_another_after_its_lease(table):
    await table.open_game(["Ana", "Ben"], "usa")
    await table.bot.service.set_controller(table.game_id, 1, "auto", reason="test")
    state = await table.stored_state()
    doomed = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _DOOMED, table.database, str(table.clock.now() + 10),
        stdout=asyncio.subprocess.PIPE)
    try:
        assert doomed.stdout is not None
        line = await doomed.stdout.readline()
        assert line.decode().split() == ["claimed", "computer", "1"]
    finally:
        doomed.send_signal(signal.SIGKILL)
        await doomed.wait()
    await table.advance(seconds=10)  # its claim holds: this process leaves the job alone
    assert (await table.stored_state()).version == state.version
    await table.advance(seconds=JOB_LEASE_SECONDS)
    await table.advance(seconds=10)
    async with table.store() as store:
        log = await store.actions(table.game_id, after=state.version)
    assert [a.seat for a in log] == [1]  # the safe ticket keep, once
    assert ACTION_ADAPTER.validate_json(log[0].action) == engine.safe_action(state, 1)


def _hammer(url: str, game_ids: list[int], seed: int, steps: int) -> list[tuple[int, int]]:
    """One bot process's worth: its own event loop, pool and service, playing random legal
    actions for whichever seat a game waits for. The (game, version) of each accepted one."""

    async def run() -> list[tuple[int, int]]:
        store = await PostgresStorage.open(url, pool_size=3)
        service = GameService(store)
        rng = random.Random(seed)
        accepted = []
        try:
            for _ in range(steps):
                game_id = rng.choice(game_ids)
                state = (await service.info(game_id)).state
                assert state is not None
                if state.phase == "game_over":
                    continue
                seat = rng.choice(engine.waiting_for(state))
                action = rng.choice(engine.legal_actions(state, seat))
                try:
                    outcome = await service.act(game_id, None, action, seat=seat,
                                                expect_version=state.version)
                except Refusal:
                    continue  # the other process got there first: refused, nothing stored
                accepted.append((game_id, outcome.version))
        finally:
            await store.close()
        return accepted

    return asyncio.run(run())


@pytest.mark.slow
async def test_two_services_hammering_the_same_games_lose_and_repeat_nothing(database):
    store = await PostgresStorage.open(database)
    service = GameService(store)
    game_ids = []
    for channel in range(3):
        row = await service.create(guild_id=1, channel_id=100 + channel, user_id=1, name="Ana",
                                   map_id="usa", max_players=None)
        await service.join(row.id, 2, "Ben")
        await service.start(row.id, 1, seed=channel)
        game_ids.append(row.id)
    started = {gid: (await store.game(gid)).version for gid in game_ids}
    await store.close()

    a, b = await asyncio.gather(asyncio.to_thread(_hammer, database, game_ids, 1, 120),
                                asyncio.to_thread(_hammer, database, game_ids, 2, 120))
    assert a and b  # both processes got actions in
    accepted = a + b
    assert len(set(accepted)) == len(accepted)  # no version accepted twice

    store = await PostgresStorage.open(database)
    try:
        for gid in game_ids:
            row = await store.game(gid)
            log = await store.actions(gid)
            mine = sorted(v for g, v in accepted if g == gid)
            # Every accepted action is in the log, once, and nothing else is.
            assert [r.version for r in log] == mine == list(range(started[gid] + 1,
                                                                  row.version + 1))
            # The log replays to the stored snapshot: no action half-applied or lost.
            config = GameConfig.model_validate_json(row.config)
            replayed = engine.replay(config, [(r.seat, ACTION_ADAPTER.validate_json(r.action))
                                              for r in log])
            version, snapshot = await store.snapshot(gid)
            assert version == row.version == replayed.version
            assert GameState.from_snapshot(json.loads(snapshot)).to_snapshot() \
                == replayed.to_snapshot()
    finally:
        await store.close()


async def test_the_scheduler_looks_again_soon_as_another_process_may_plan_jobs(
        table, monkeypatch):
    """Only the process that plans a job is woken at once; if it dies before running it,
    another one's loop finds it within ``SHARED_LOOK_EVERY``, even with nothing due."""
    scheduler = table.bot.scheduler
    waits = []
    wait = table.clock.wait

    async def recorded(wake, until):
        waits.append(until)
        await wait(wake, until)

    monkeypatch.setattr(table.clock, "wait", recorded)
    for _ in range(2):  # the second pass follows the first one's wait
        scheduler.wake()
        await asyncio.wait_for(scheduler.next_pass(), 10)
    assert waits and waits[0] == table.clock.now() + SHARED_LOOK_EVERY


class _Told:
    """A publisher that records what each publish would tell, in the order they finish;
    ``gate``: publishing waits for it (a slow Discord)."""

    def __init__(self, told: list[tuple[int, str]], gate: asyncio.Event | None = None):
        self.told = told
        self.gate = gate
        self.waiting = asyncio.Event()

    async def publish(self, update) -> None:
        if update.refresh:  # only a step's buttons (the first card of two)
            return
        if self.gate is not None:
            self.waiting.set()
            await self.gate.wait()
        self.told.append((update.version, "\n".join(update.lines)))


@pytest.mark.slow
async def test_two_processes_publish_a_game_one_at_a_time_in_order_and_once(database):
    """Process A is still publishing a turn when process B applies the next one: B's
    post waits for A's, and does not tell A's turn again (4.2 % of lines out of order and
    events told twice, with a post lock per process)."""
    told: list[tuple[int, str]] = []
    gate = asyncio.Event()
    a = GameService(await PostgresStorage.open(database, pool_size=3), _Told(told, gate))
    b = GameService(await PostgresStorage.open(database, pool_size=3), _Told(told))
    try:
        row = await a.create(guild_id=1, channel_id=100, user_id=1, name="Ana", map_id="usa",
                             max_players=None)
        await a.join(row.id, 2, "Ben")
        gate.set()
        await a.start(row.id, 1, seed=3)
        state = (await a.info(row.id)).state
        while state.phase != "turn":  # both keep their tickets
            seat = engine.waiting_for(state)[0]
            await a.act(row.id, None, engine.safe_action(state, seat), seat=seat)
            state = (await a.info(row.id)).state
        gate.clear()
        a.publisher.waiting.clear()
        del told[:]

        async def turn(service: GameService, seat: int) -> None:
            for _ in range(2):
                await service.act(row.id, None, engine.DrawBlind(), seat=seat)

        first = state.current
        slow = asyncio.create_task(turn(a, first))  # its post waits for the gate
        await a.publisher.waiting.wait()
        second = asyncio.create_task(turn(b, 1 - first))
        await asyncio.sleep(0.5)  # B may apply and post meanwhile, if nothing stops it
        gate.set()
        await asyncio.gather(slow, second)
    finally:
        for service in (a, b):
            await service.storage.close()
    names = state.config.players
    assert [v for v, _ in told] == sorted(v for v, _ in told), told
    text = "\n".join(lines for _, lines in told)
    for seat in (first, 1 - first):
        assert text.count(f"{names[seat]} drew 2 cards") == 1, told


@pytest.mark.slow
async def test_a_running_job_keeps_its_claim_past_the_lease(table):
    """A job that runs longer than the lease (a slow Discord, a long think) renews its
    claim: no other process takes it over while its worker lives."""
    await table.open_game(["Ana", "Ben"], "usa")
    scheduler = table.bot.scheduler
    release = asyncio.Event()
    real = scheduler.notifier

    class Slow:
        async def remind(self, reminder):
            await release.wait()
            await real.remind(reminder)

    scheduler.notifier = Slow()
    running = asyncio.create_task(table.advance(12))
    for _ in range(12):  # 6 minutes pass while the reminder is being sent
        await asyncio.sleep(0.05)
        table.clock.advance(30)
    await asyncio.sleep(0.05)
    async with table.store() as store:
        claimed = await store._one("SELECT min(claimed_at) FROM jobs WHERE done_at IS NULL "
                                   "AND claimed_by IS NOT NULL")
    assert claimed is not None and claimed[0] > table.clock.now() - JOB_LEASE_SECONDS
    release.set()
    await running


@pytest.mark.slow
async def test_a_sharded_process_takes_back_its_own_claims_at_once_after_a_restart(table):
    """A process that runs some shards keeps its name across a restart (host and shards),
    so a computer's turn it had claimed when it died is played at once, not after the
    lease."""
    settings = table.bot.settings.model_copy(update={"shard_ids": (0,), "shard_count": 2})
    await table.open_game(["Ana", "Ben"], "usa")
    await table.bot.service.set_controller(table.game_id, 1, "auto", reason="test")
    state = await table.stored_state()
    name = TTRBot(settings, renderer=json_renderer()).worker_name()
    assert name is not None and str(os.getpid()) not in name
    async with table.store() as store:  # that process claimed the job, then died
        assert await store.claim_job(table.clock.now() + 10, name) is not None
    await table.bot.close()
    table.bot = TTRBot(settings, renderer=json_renderer(), clock=table.clock)
    await table.fake.connect(table.bot)
    await table.advance(seconds=20)
    async with table.store() as store:
        log = await store.actions(table.game_id, after=state.version)
    assert [a.seat for a in log] == [1]
