"""Statistics and ratings from seeded finished games: every figure is computed again here,
independently, from the engine's final scores and openskill called directly."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
from collections import Counter

import pytest
from openskill.models import PlackettLuce

import engine
from bot import stats
from bot.edge.testing import Mention
from bot.play import presenters
from bot.records import record_texts
from bot.records.standings import (
    EVERY_MAP,
    SERVER,
    FinishedGame,
    Record,
    ResultRow,
    Standings,
    TurnRecord,
    median_seconds,
    player_key,
    turn_bucket,
    turn_records,
)
from bot.storage.api import STANDINGS_TABLES, SeatRow
from bot.storage.codec import event_to_json
from bot.storage.sqlite import SqliteStorage
from engine import GameConfig, GameState
from engine.agents import random_action
from maps import load_map
from tests.bot.conftest import BACKENDS

GUILD = 1_100_000_000_000_000_003  # FakeDiscord.GUILD_ID
OTHER_GUILD = 77


async def seed_game(db_path, *, map_id: str, seats: list[tuple[int, str, str]], seed: int,
                    guild: int = GUILD, channel: int = 5000, finish: bool = True
                    ) -> tuple[int, GameState]:
    """A game stored as the bot stores one, played by random legal moves (to the end unless
    ``finish`` is false): seats are (user id, name, controller), a computer's id negative."""
    store = await SqliteStorage.open(str(db_path), durable=False)
    try:
        (host, host_name, _), *others = seats
        row = await store.create_game(guild_id=guild, channel_id=channel + seed, map_id=map_id,
                                      max_players=len(seats), host_id=host, host_name=host_name)
        for uid, name, controller in others:
            await store.add_seat(row.id, uid, name, controller=controller)
        config = GameConfig(map_id=map_id, players=[s[1] for s in seats], seed=seed)
        state = engine.new_game(config)
        await store.start_game(row.id, config=config.model_dump_json(), seats=[
            SeatRow(i, *s) for i, s in enumerate(seats)], version=state.version,
            state=json.dumps(state.to_snapshot()))
        rng = random.Random(seed)
        while state.phase != "game_over" and (finish or state.turn < 10):
            seat = rng.choice(engine.waiting_for(state))
            action = random_action(state, seat, rng)
            before = state.version
            events = engine.apply(state, seat, action)
            await store.record_action(
                row.id, seat=seat, action=engine.ACTION_ADAPTER.dump_json(action).decode(),
                events=json.dumps([event_to_json(e) for e in events]), before=before,
                after=state.version, state=json.dumps(state.to_snapshot()),
                finished=state.phase == "game_over")
    finally:
        await store.close()
    return row.id, state


def expected_row(game_id: int, state: GameState, seat: int, player: str) -> dict:
    """What one seat's results are, read straight from the engine's final scoring."""
    view = engine.public_view(state)
    (p,) = [p for p in view.final.players if p.seat == seat]
    return {"game": game_id, "player": player, "map": state.config.map_id, "score": p.total,
            "rank": p.rank, "done": sum(t.points > 0 for t in p.tickets),
            "failed": sum(t.points < 0 for t in p.tickets), "path": p.longest_path,
            "routes": [r for r, s in view.claimed.items() if s == seat]}


@pytest.fixture
async def seeded(table):
    """Three finished games on this server (USA 2p, USA 3p with a computer, Nordic 2p), one
    on another server, and one ended early; the members are Ana, Ben, Cy, Di (no games)."""
    for name in ("Ana", "Ben", "Cy", "Di"):
        table.users[name] = table.fake.add_user(name)
    ana, ben, cy = table.users["Ana"], table.users["Ben"], table.users["Cy"]
    games = [
        ("usa", [(ana, "Ana", "human"), (ben, "Ben", "human")], 1),
        ("usa", [(ben, "Ben", "human"), (-1, "Robo", "computer:hard"), (ana, "Ana", "human")], 2),
        ("nordic", [(cy, "Cy", "human"), (ana, "Ana", "human")], 3),
    ]
    expected = []
    for map_id, seats, seed in games:
        game_id, state = await seed_game(table.db_path, map_id=map_id, seats=seats, seed=seed)
        assert state.phase == "game_over"
        for i, (uid, _, _) in enumerate(seats):
            player = f"user:{uid}" if uid > 0 else "computer:hard"
            expected.append(expected_row(game_id, state, i, player))
    await seed_game(table.db_path, map_id="usa", seats=[(ana, "Ana", "human"),
                    (ben, "Ben", "human")], seed=4, guild=OTHER_GUILD)
    ended, _ = await seed_game(table.db_path, map_id="usa", seats=[
        (ana, "Ana", "human"), (cy, "Cy", "human")], seed=5, finish=False)
    store = await SqliteStorage.open(str(table.db_path))
    try:
        await store.end_game(ended, "ended", by_user=ana, detail={})
    finally:
        await store.close()
    # Stored behind the bot's back: derived as at a start after an upgrade.
    assert await stats.sync(table.bot.service) == 4
    return table, expected


def _expected_ratings(expected: list[dict]) -> dict[str, tuple[float, float]]:
    model = PlackettLuce()
    ratings: dict = {}
    for game in sorted({e["game"] for e in expected}):
        rows = [e for e in expected if e["game"] == game]
        new = model.rate([[ratings.get(e["player"]) or model.rating()] for e in rows],
                         ranks=[float(e["rank"]) for e in rows])
        for e, (r,) in zip(rows, new, strict=True):
            ratings[e["player"]] = r
    return {p: (r.mu, r.sigma) for p, r in ratings.items()}


@pytest.mark.slow
async def test_stats_and_ratings_of_seeded_games(seeded):
    table, expected = seeded
    ana = table.users["Ana"]
    mine = [e for e in expected if e["player"] == f"user:{ana}"]
    scores = [e["score"] for e in mine]
    best = max(mine, key=lambda e: (e["score"], -e["game"]))
    longest = max(mine, key=lambda e: (e["path"], -e["game"]))
    usa = [e for e in mine if e["map"] == "usa"]
    nordic = [e for e in mine if e["map"] == "nordic"]
    ex = await table.slash("Ben", "records stats", member=Mention(ana))
    assert not ex.reply.ephemeral
    text = ex.text
    wins = sum(e["rank"] == 1 for e in mine)
    assert f"Games: 3 played, {wins} won" in text
    # Per map as the whole line says it (issue 27: 'USA 1/0 won' read as a fraction).
    assert (f"{load_map('nordic').name}: 1 played, {sum(e['rank'] == 1 for e in nordic)} won · "
            f"USA: {len(usa)} played, {sum(e['rank'] == 1 for e in usa)} won") in text
    assert f"average {sum(scores) / 3:.1f}, best {best['score']} (game #{best['game']})" in text
    done = sum(e["done"] for e in mine)
    failed = sum(e["failed"] for e in mine)
    assert f"Tickets: {done} completed, {failed} failed" in text
    assert f"Longest path: {longest['path']} (game #{longest['game']})" in text
    claimed = Counter((e["map"], r) for e in mine for r in e["routes"])
    top = sorted(claimed.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    # Only routes claimed in two games or more: a route claimed once is no favourite.
    routes = " · ".join(f"{presenters.route_label(m, r)} [{load_map(m).name}] ({n} times)"
                        for (m, r), n in top if n >= 2)
    assert routes and f"Routes claimed most often: {routes}" in text
    # Nordic's one game: no route was claimed twice, so none is listed ('×1' before).
    ex = await table.slash("Ben", "records stats", member=Mention(ana), map="nordic")
    assert "claimed most" not in ex.text and "×1" not in ex.text

    # One map only.
    ex = await table.slash("Ben", "records stats", member=Mention(ana), map="nordic")
    assert "Games: 1 played" in ex.text and f"average {nordic[0]['score']:.1f}" in ex.text

    # The whole server: three games, every seat's tickets; nothing from the other server or
    # the game ended early.
    ex = await table.slash("Ben", "records stats")
    assert f"Games: 3 finished — {load_map('nordic').name} 1 · USA 2" in ex.text
    everyone = sum(e["score"] for e in expected) / len(expected)
    assert f"average {everyone:.1f}" in ex.text
    assert (f"Tickets: {sum(e['done'] for e in expected)} completed, "
            f"{sum(e['failed'] for e in expected)} failed") in ex.text

    # Ratings: openskill over the three games in the order they ended.
    want = _expected_ratings(expected)
    service = table.bot.service
    got = {r.player: (r.rating.mu, r.rating.sigma)
           for r in await stats.leaderboard(service.storage, GUILD, None)}
    assert got == want
    ex = await table.slash("Cy", "records leaderboard")
    order = sorted(want, key=lambda p: -(want[p][0] - 3 * want[p][1]))
    lines = ex.text.splitlines()[1:]
    assert len(lines) == len(order) == 4
    for i, (player, line) in enumerate(zip(order, lines, strict=True), start=1):
        mu, sigma = want[player]
        assert line.startswith(f"{i}. **")
        assert f" {mu - 3 * sigma:.1f} (μ {mu:.1f} ± {sigma:.1f})" in line
        if player == "computer:hard":
            assert "**Computer (hard) 🤖**" in line and "1 game," in line
    ex = await table.slash("Cy", "records leaderboard", map="nordic")
    assert len(ex.text.splitlines()) == 3 and "Computer" not in ex.text

    # Both read a few rows on the event loop: no trip to SQLite's writer thread, whose
    # commits would wait behind them.
    trips = service.storage.trips
    await table.slash("Cy", "records leaderboard")
    await table.slash("Cy", "records stats", member=Mention(ana))
    await table.slash("Cy", "records stats", map="usa")
    assert service.storage.trips == trips

    # The results and standings can be thrown away and derived again, the same.
    before = await service.storage.results(GUILD)
    kept = await standings_tables(service.storage)
    assert await stats.rebuild(service) == 4  # both servers' finished games
    assert await service.storage.results(GUILD) == before
    assert await standings_tables(service.storage) == kept
    assert await stats.build_standings(service.storage) == 4
    assert await standings_tables(service.storage) == kept

    # The same from the command line, on the database file.
    await service.storage.clear_results()
    assert await service.storage.results(GUILD) == []
    assert await asyncio.to_thread(stats.main, ["--db", str(table.db_path)]) == 0
    assert await service.storage.results(GUILD) == before
    assert await standings_tables(service.storage) == kept

    # /ttr games says who won the finished ones.
    ex = await table.slash("Ana", "records games")
    winners = [e for e in expected if e["rank"] == 1 and e["game"] == expected[0]["game"]]
    names = {f"user:{table.users[n]}": n for n in ("Ana", "Ben", "Cy")}
    assert f"won by {', '.join(names[w['player']] for w in winners)}" in ex.text
    assert "ended early" in ex.text


@pytest.mark.slow
async def test_stats_refusals(seeded):
    table, _ = seeded
    ex = await table.slash("Ana", "records leaderboard")  # read, not derived: answered at once
    assert ex.callback_types == [4] and "Leaderboard" in ex.text
    ex = await table.slash("Ana", "records stats", member=Mention(table.users["Di"]))
    assert ex.reply.ephemeral and "Di has no finished games on this server yet" in ex.text
    ex = await table.slash("Ana", "records stats", member=Mention(table.users["Cy"]), map="usa")
    assert "Cy has no finished games on this server on USA yet" in ex.text
    ex = await table.slash("Ana", "records leaderboard", map="europe")
    assert "No finished games on this server on Europe yet" in ex.text


async def test_nothing_finished_yet(table):
    table.users["Ana"] = table.fake.add_user("Ana")
    ex = await table.slash("Ana", "records stats")
    assert "No finished games on this server yet" in ex.text
    ex = await table.slash("Ana", "records leaderboard")
    assert "No finished games on this server yet" in ex.text


async def standings_tables(store) -> dict[str, list[tuple]]:
    """Every row of the standings tables, in a fixed order."""
    return {t: sorted(tuple(r) for r in await store._all(f"SELECT * FROM {t}"))
            for t in STANDINGS_TABLES}


def _row(game: int, seat: int, player: str, score: int, rank: int, **extra) -> ResultRow:
    fields = {"tickets_completed": 0, "tickets_failed": 0, "longest_path": 0, "routes": (),
              "map_id": "usa", "user_id": None, "name": player} | extra
    return ResultRow(game_id=game, seat=seat, player=player, score=score, rank=rank, **fields)


def _folded(*games: list[ResultRow], turns: dict | None = None) -> Standings:
    folded = Standings()
    for rows in games:
        folded.add(FinishedGame(rows[0].game_id, 1, rows[0].map_id, tuple(rows),
                                (turns or {}).get(rows[0].game_id, {})))
    return folded


def test_ratings_by_hand():
    """Ties share a place; a computer level with two seats in a game is rated once, on its
    best-placed seat; a game left with one rated player changes nothing."""
    games = [
        [_row(1, 0, "user:1", 90, 1), _row(1, 1, "user:2", 90, 1), _row(1, 2, "user:3", 40, 3)],
        [_row(2, 0, "computer:easy", 70, 2), _row(2, 1, "user:1", 80, 1),
         _row(2, 2, "computer:easy", 60, 3)],
        [_row(3, 0, "computer:easy", 10, 1), _row(3, 1, "computer:easy", 5, 2)],
    ]
    model = PlackettLuce()
    a, b, c = (model.rating() for _ in range(3))
    [[a], [b], [c]] = model.rate([[a], [b], [c]], ranks=[1.0, 1.0, 3.0])
    [[e], [a]] = model.rate([[model.rating()], [a]], ranks=[2.0, 1.0])
    folded = _folded(*games)
    got = {p: (r.mu, r.sigma, r.games, r.wins) for (_g, scope, p), r in folded.ratings.items()
           if scope == EVERY_MAP}
    assert got == {"user:1": (a.mu, a.sigma, 2, 2), "user:2": (b.mu, b.sigma, 1, 1),
                   "user:3": (c.mu, c.sigma, 1, 0), "computer:easy": (e.mu, e.sigma, 1, 0)}
    # Each map is rated apart: here all games are on USA, so the same.
    assert {p: (r.mu, r.sigma, r.games, r.wins) for (_g, scope, p), r in folded.ratings.items()
            if scope == "usa"} == got


def test_tallies_by_hand():
    games = [
        [_row(1, 0, "user:1", 50, 2, tickets_completed=2, tickets_failed=1, longest_path=9,
              routes=(3, 4), user_id=1), _row(1, 1, "computer:easy", 60, 1, routes=(7,))],
        [_row(2, 1, "user:1", 71, 1, tickets_completed=3, tickets_failed=0, longest_path=12,
              routes=(4, 5), map_id="europe", user_id=1)],
        [_row(3, 0, "user:1", 71, 1, tickets_completed=1, tickets_failed=2, longest_path=12,
              routes=(4,), user_id=1)],
    ]
    folded = _folded(*games, turns={1: {0: TurnRecord((30.0, 90.0), 2)},
                                    3: {0: TurnRecord((), 1)}})
    mine = folded.tallies[(1, EVERY_MAP, "user:1")]
    assert (mine.games, mine.wins, mine.seats, mine.average) == (3, 2, 3, 64.0)
    assert mine.best == Record(71, 2, "user:1") and mine.longest == Record(12, 2, "user:1")
    assert (mine.tickets_completed, mine.tickets_failed, mine.timeouts) == (6, 3, 3)
    usa = folded.tallies[(1, "usa", "user:1")]
    assert (usa.games, usa.wins, usa.best, usa.timeouts) == (2, 1, Record(71, 3, "user:1"), 3)
    server = folded.tallies[(1, EVERY_MAP, SERVER)]
    assert (server.games, server.seats, server.score_sum) == (3, 4, 252)
    assert server.best == Record(71, 2, "user:1")
    assert (1, EVERY_MAP, "computer:easy") not in folded.tallies  # members and the server
    routes = {k[2:]: n for k, n in folded.routes.items() if k[1] == EVERY_MAP}
    assert routes == {("user:1", "usa", 3): 1, ("user:1", "usa", 4): 2,
                      ("user:1", "europe", 4): 1, ("user:1", "europe", 5): 1,
                      (SERVER, "usa", 3): 1, (SERVER, "usa", 4): 2, (SERVER, "usa", 7): 1,
                      (SERVER, "europe", 4): 1, (SERVER, "europe", 5): 1}
    assert dict(folded.turn_times) == {
        (1, scope, "user:1", b): 1 for scope in (EVERY_MAP, "usa")
        for b in (turn_bucket(30.0), turn_bucket(90.0))}


def test_turn_times_by_hand():
    # Four buckets per doubling: 60 s lies in [2^(23/4), 2^(24/4)) = [53.8, 64).
    assert turn_bucket(60) == 23 and turn_bucket(64) == 24 and turn_bucket(0.2) == 0
    assert median_seconds({}) is None
    assert median_seconds({23: 1}) == pytest.approx(58.69, abs=0.01)
    assert median_seconds({10: 1, 23: 2, 40: 1}) == pytest.approx(58.69, abs=0.01)
    assert median_seconds({10: 2, 23: 2}) == pytest.approx(2 ** (10.5 / 4))
    rng = random.Random(5)
    for _ in range(50):
        waits = [rng.lognormvariate(8, 2) for _ in range(rng.randint(1, 40))]
        got = median_seconds(Counter(turn_bucket(w) for w in waits))
        want = statistics.median_low(waits)
        assert abs(got / max(want, 1.0) - 1) < 0.1  # within a bucket's half width
    events = [{"type": "CardDrawn", "seat": 0}]
    log = [(0, 10, 100.0, None), (1, 11, 105.0, None),  # set-up: no turn has started
           (0, 10, 110.0, json.dumps([{"type": "TurnStarted", "seat": 1, "turn": 1}])),
           (1, 11, 170.0, json.dumps(events)),  # Ben acts 60 s after his turn began
           (1, 11, 175.0, json.dumps([{"type": "TurnStarted", "seat": 0, "turn": 2}])),
           (0, None, 4000.0, json.dumps([{"type": "TurnStarted", "seat": 1, "turn": 3}])),
           (1, 11, 4030.0, None)]
    assert turn_records(log, [0]) == {0: TurnRecord((), 1), 1: TurnRecord((60.0, 30.0), 0)}


def test_who_a_seat_is_rated_as():
    assert player_key(SeatRow(0, 42, "Ana", "human")) == ("user:42", 42)
    assert player_key(SeatRow(0, 42, "Ana", "computer:hard")) == ("user:42", 42)
    assert player_key(SeatRow(1, -2, "Robo", "computer:easy")) == ("computer:easy", None)
    assert player_key(SeatRow(1, -2, "Left", "auto")) == ("computer:auto", None)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
async def test_a_game_played_through_the_bot_keeps_the_standings(table):
    """A game played through Discord, one of Ana's turns timed out: its end folds it into
    the standings (turn speed and timeouts included); rebuilt from the stored games they
    are the same."""
    await table.open_game(["Ana", "Ben"], "usa", timer=24)
    ana, ben = table.users["Ana"], table.users["Ben"]
    table.rng = random.Random(4)
    waits = random.Random(5)
    timed_out = False
    for _ in range(3000):
        state = await table.stored_state()
        if state.phase == "game_over":
            break
        if (not timed_out and state.phase == "turn" and state.turn > 3
                and table.seat_user(state, state.current) == ana):
            await table.advance(24)  # the bot plays Ana's turn for her
            table.last_private.clear()
            table.draws.clear()
            timed_out = True
            continue
        table.clock.advance(waits.uniform(1, 3 * 3600))
        await table.step()
    assert state.phase == "game_over" and timed_out

    # Each member's times to act, found again from the log through the engine: a turn
    # begins when the seat to play or the turn number changes after set-up.
    async with table.store() as store:
        log = await store._all("SELECT seat, user_id, created_at, action FROM actions "
                               "WHERE game_id = ? ORDER BY version", (table.game_id,))
        config = GameConfig.model_validate_json(str((await store.game(table.game_id)).config))
    replay = engine.new_game(config)
    samples: dict[int, list[float]] = {}
    began: dict[int, float] = {}
    for seat, user_id, when, action in log:
        since = began.pop(seat, None)
        if since is not None and user_id is not None:
            samples.setdefault(seat, []).append(when - since)
        before = (replay.current, replay.turn)
        engine.apply(replay, seat, engine.ACTION_ADAPTER.validate_json(action))
        if replay.turn >= 1 and (replay.current, replay.turn) != before:
            began[replay.current] = when
    seat_of = {table.seat_user(state, s): s for s in range(2)}

    def median(user: int) -> str:
        middle = statistics.median_low(samples[seat_of[user]])
        return record_texts.duration(2 ** ((turn_bucket(middle) + 0.5) / 4))

    ex = await table.slash("Ben", "records stats", member=Mention(ana))
    assert f"Turns: median time to act {median(ana)}, 1 turn timed out" in ex.text
    ex = await table.slash("Ana", "records stats", member=Mention(ben))
    assert f"Turns: median time to act {median(ben)}, 0 turns timed out" in ex.text
    board = (await table.slash("Ana", "records leaderboard")).text.splitlines()
    (ana_line,) = [line for line in board if "**Ana**" in line]
    (ben_line,) = [line for line in board if "**Ben**" in line]
    assert ana_line.endswith(f" · ⏱ {median(ana)} · 1 timed out")
    assert ben_line.endswith(f" · ⏱ {median(ben)}")
    table.fake.locales[ben] = "de"
    ex = await table.slash("Ben", "records stats", member=Mention(ana))
    assert "Züge:" in ex.text and "1 Zug abgelaufen" in ex.text

    # What the game's end stored is what a rebuild from the stored games gives.
    storage = table.bot.service.storage
    kept = await standings_tables(storage)
    assert kept["tallies"] and kept["turn_times"] and kept["ratings"]
    assert await stats.build_standings(storage) == 1
    assert await standings_tables(storage) == kept
    assert await stats.rebuild(table.bot.service) == 1
    assert await standings_tables(storage) == kept


@pytest.mark.slow
async def test_an_upgraded_database_gets_its_standings_at_start(seeded):
    """A database from before the standings (results stored, no standings, no mark that
    they were built) gets them at the next start, from its stored results, once."""
    table, _ = seeded
    storage = table.bot.service.storage
    kept = await standings_tables(storage)
    want = (await table.slash("Ana", "records leaderboard")).text
    for name in STANDINGS_TABLES:  # as the migration leaves an older database
        await storage._write(f"DELETE FROM {name}")
    await storage._write("DELETE FROM bot_state WHERE key = ?", (stats.BUILT_KEY,))
    assert "No finished games" in (await table.slash("Ana", "records leaderboard")).text
    await table.restart()
    assert (await table.slash("Ana", "records leaderboard")).text == want
    async with table.store() as store:
        assert await standings_tables(store) == kept
        assert await store.bot_state(stats.BUILT_KEY) == "built"
