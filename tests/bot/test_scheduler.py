"""Time-based work with the fake clock: reminders, turn timers, kick votes, settings."""

from __future__ import annotations

import asyncio
import datetime as dt
import zlib

import pytest

import engine
from bot.settings.preferences import PlayerSettings, ServerSettings
from bot.storage.api import JOB_LEASE_SECONDS
from tests.bot.conftest import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Every test here runs on SQLite and on PostgreSQL."""
    return request.param

HOUR = 3600.0


def reminders(table, name: str) -> list[str]:
    """Reminder DMs ``name`` got so far."""
    return [s.content for s in table.fake.dms(table.users[name])
            if s.content.startswith("⏰ Reminder")]


def channel_lines(table, text: str) -> list[str]:
    return [s.content for s in table.fake.channel_messages() if text in s.content]


async def jobs(table, **where) -> list:
    async with table.store() as store:
        found = await store.jobs(table.game_id)
    return [j for j in found if all(getattr(j, k) == v for k, v in where.items())]


@pytest.mark.slow
async def test_a_reminder_comes_once_at_the_delay_then_at_a_slower_pace(table):
    await table.open_game(["Ana", "Ben"], "usa")  # both choose their first tickets
    await table.advance(11.9)
    assert reminders(table, "Ana") == reminders(table, "Ben") == []
    await table.advance(0.1)
    assert len(reminders(table, "Ana")) == len(reminders(table, "Ben")) == 1
    assert "is waiting for you" in reminders(table, "Ana")[0]
    await table.advance(23.9)  # the second one waits twice as long: 24 h
    assert len(reminders(table, "Ana")) == 1
    await table.advance(0.1)
    assert len(reminders(table, "Ana")) == len(reminders(table, "Ben")) == 2
    await table.advance(47.9)  # then 48 h
    assert len(reminders(table, "Ana")) == 2
    await table.advance(0.1)
    assert len(reminders(table, "Ana")) == 3


async def test_reminders_follow_the_turn_and_a_simultaneous_choice_keeps_its_pace(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.stored_state()
    await table.advance(12)
    assert len(reminders(table, "Ana")) == len(reminders(table, "Ben")) == 1
    # Ana keeps her tickets: her reminders stop; Ben still decides the same thing.
    ana = next(s for s in range(2) if table.seat_user(state, s) == table.users["Ana"])
    await table.play(state, ana, table.choose(state, ana, ""))
    await table.advance(24)
    assert len(reminders(table, "Ana")) == 1
    assert len(reminders(table, "Ben")) == 2  # on his own pace, not restarted
    state = await table.step()  # Ben chooses: the first turn begins
    assert state.phase == "turn"
    first = state.config.players[state.current]
    other = state.config.players[1 - state.current]
    before = {n: len(reminders(table, n)) for n in ("Ana", "Ben")}
    await table.advance(12)
    assert len(reminders(table, first)) == before[first] + 1  # a new decision: 12 h again
    assert len(reminders(table, other)) == before[other]
    waiting = await jobs(table, kind="remind")
    assert [j.seat for j in waiting] == [state.current]


async def test_no_reminder_during_quiet_hours_it_comes_when_they_end(table):
    # The clock starts on Monday 09:00 UTC; Ben sleeps 20:00–08:00 in Berlin (UTC+2).
    await table.open_game(["Ana", "Ben"], "usa")
    ex = await table.slash("Ben", "settings", timezone="Europe/Berlin", quiet_from=20,
                           quiet_to=8)
    assert ex.reply.ephemeral and "20:00–08:00 (Europe/Berlin)" in ex.text
    await table.advance(12)  # 21:00 UTC = 23:00 in Berlin
    assert len(reminders(table, "Ana")) == 1
    assert reminders(table, "Ben") == []
    await table.advance(8.9)  # 07:54 in Berlin
    assert reminders(table, "Ben") == []
    await table.advance(0.1)  # 08:00 in Berlin
    assert len(reminders(table, "Ben")) == 1
    wake = dt.datetime.fromtimestamp(table.clock.now(), dt.UTC)
    assert (wake.hour, wake.minute) == (6, 0)


async def test_reminders_off_and_settings_are_checked(table):
    await table.open_game(["Ana", "Ben"], "usa")
    ex = await table.slash("Ben", "settings", reminders=False)
    assert "Reminders: off" in ex.text
    ex = await table.slash("Ben", "settings", timezone="Mars/Olympus")
    assert "not a valid value for `timezone`" in ex.text and "unknown time zone" in ex.text
    ex = await table.slash("Ben", "settings", quiet_from=22)
    assert "Give both" in ex.text
    ex = await table.slash("Ben", "settings")
    assert "Reminders: off" in ex.text and "Time zone: UTC" in ex.text
    got = await table.fake.autocomplete(table.bot, table.users["Ben"], "settings", "timezone",
                                        timezone="europe ber")
    assert [c["value"] for c in got] == ["Europe/Berlin"]
    await table.advance(12)
    assert reminders(table, "Ben") == [] and len(reminders(table, "Ana")) == 1


async def test_a_restart_neither_loses_nor_repeats_a_reminder(table):
    await table.open_game(["Ana", "Ben"], "usa")
    await table.advance(12)
    assert len(reminders(table, "Ana")) == 1
    await table.restart()
    await table.advance(1)
    assert len(reminders(table, "Ana")) == 1  # not sent again
    await table.restart()
    await table.advance(23)  # 24 h after the first
    assert len(reminders(table, "Ana")) == len(reminders(table, "Ben")) == 2


async def test_a_reminder_sent_just_before_a_crash_is_not_sent_again(table):
    """The process dies after a reminder went out and before its job was marked done:
    the restart runs the job again (same game version), and sends nothing twice."""
    await table.open_game(["Ana", "Ben"], "usa", refuse_dms=("Ben",))

    async def dies(*args, **kwargs):
        raise ConnectionResetError("the process dies before the job is marked done")

    for _ in range(2):  # Ana's reminder by DM; Ben's, a mention in the channel
        table.bot.service.storage.finish_job = dies
        with pytest.raises(ConnectionResetError):
            await table.advance(12 if _ == 0 else 0)
        await table.restart()
    await table.advance(1)
    ben = table.users["Ben"]
    assert len(reminders(table, "Ana")) == 1
    assert len(channel_lines(table, f"<@{ben}>, game #")) == 1
    await table.advance(24)  # the next reminders come at their pace (from the rerun)
    assert len(reminders(table, "Ana")) == 2
    assert len(channel_lines(table, f"<@{ben}>, game #")) == 2


async def test_a_player_refusing_dms_is_mentioned_in_the_channel(table):
    await table.open_game(["Ana", "Ben"], "usa", refuse_dms=("Ben",))
    sent = await table.advance(12)
    ben = table.users["Ben"]
    (mention,) = [s for s in sent if s.public and f"<@{ben}>" in s.content]
    assert "game #" in mention.content and "waiting for you" in mention.content
    assert reminders(table, "Ben") == []


async def test_server_config_needs_manage_server(table):
    await table.open_game(["Ana", "Ben"], "usa")
    ben = table.users["Ben"]
    table.fake.permissions[ben] = 0  # a plain member
    ex = await table.fake.slash(table.bot, ben, "config", group="ttr-admin",
                                setting="turn_timer_hours", value="24")
    assert ex.reply.ephemeral and "Manage Server" in ex.text
    store = table.bot.service.storage
    assert (await store.server_settings(table.fake.GUILD_ID)) == ServerSettings()
    ana = table.users["Ana"]
    ex = await table.fake.slash(table.bot, ana, "config", group="ttr-admin",
                                setting="turn_timer_hours", value="24")
    assert "Saved `turn_timer_hours`" in ex.text and "**24.0**" in ex.text
    ex = await table.fake.slash(table.bot, ana, "config", group="ttr-admin",
                                setting="kick_after_expiries", value="0")
    assert "not a valid value for `kick_after_expiries`" in ex.text
    ex = await table.fake.slash(table.bot, ana, "config", group="ttr-admin",
                                setting="reminder_hours", value="lots")
    assert "not a valid value" in ex.text
    ex = await table.fake.slash(table.bot, ana, "config", group="ttr-admin")
    assert "`reminder_hours` = **12.0**" in ex.text
    assert (await store.server_settings(table.fake.GUILD_ID)).turn_timer_hours == 24
    admin = next(c for c in table.fake.synced if c["name"] == "ttr-admin")
    assert int(admin["default_member_permissions"]) == 1 << 5  # Manage Server


def test_quiet_hours_cross_midnight_in_the_players_zone():
    ben = PlayerSettings(timezone="America/New_York", quiet_hours=(22, 6))
    at = dt.datetime(2026, 1, 15, 4, 30, tzinfo=dt.UTC)  # 23:30 in New York
    end = ben.quiet_until(at.timestamp())
    assert end == dt.datetime(2026, 1, 15, 11, 0, tzinfo=dt.UTC).timestamp()
    assert ben.quiet_until(dt.datetime(2026, 1, 15, 12, 0, tzinfo=dt.UTC).timestamp()) is None
    with pytest.raises(ValueError, match="unknown time zone"):
        PlayerSettings(timezone="Nowhere/Atlantis")



# -- turn timers ------------------------------------------------------------------------------

# The phases each map's game must reach, each of which a timer expiry resolves.
COMMON = {"turn", "second_draw", "choose_tickets"}
PHASES = {
    "usa": COMMON | {"choose_initial_tickets"},
    "nordic": COMMON | {"choose_initial_tickets"},
    "europe": COMMON | {"choose_initial_tickets", "tunnel"},
    "pennsylvania": COMMON | {"choose_initial_tickets", "choose_share",
                              "choose_neutral_share"},
    "iberia": COMMON | {"draft", "draft_keep", "choose_festival"},
    "world": COMMON | {"choose_pieces", "choose_initial_tickets"},
}


async def expire(table, hours: float):
    """Let the timer run out on the decision waiting now; check the bot took it safely."""
    before = await table.stored_state()
    waiting = engine.waiting_for(before)
    sent = await table.advance(hours)
    table.last_private.clear()  # the bot played: private controls are out of date
    table.draws.clear()
    async with table.store() as store:
        log = await store.actions(table.game_id, after=before.version)
    for seat in waiting:
        first = next(a for a in log if a.seat == seat)
        assert engine.ACTION_ADAPTER.validate_json(first.action) == engine.safe_action(
            before, seat), (before.phase, first.action)
        name = before.config.players[seat]
        assert any(s.public and f"⏰ {name}'s 24 hours ran out" in s.content for s in sent)
    after = await table.stored_state()
    assert not (after.phase == before.phase and set(engine.waiting_for(after)) & set(waiting)
                and after.turn == before.turn and before.phase != "draft"), before.phase
    return after


@pytest.mark.slow
@pytest.mark.parametrize("map_id", sorted(PHASES))
async def test_a_timer_expiry_plays_the_safe_move_in_every_phase(table, map_id):
    players = ["Ana", "Ben"] if map_id != "nordic" else ["Ana", "Ben", "Cy"]
    await table.open_game(players, map_id, timer=24)
    expired: set[str] = set()
    state = await table.stored_state()
    for _ in range(600):
        if PHASES[map_id] <= expired:
            break
        if state.phase not in expired and state.phase in PHASES[map_id]:
            expired.add(state.phase)
            state = await expire(table, 24)
            continue
        seat = state.current
        legal = engine.legal_actions(state, seat) if state.phase == "turn" else []
        if "choose_tickets" not in expired and engine.DrawTickets() in legal:
            await table.play(state, seat, engine.DrawTickets())
            state = await table.stored_state()
        elif "second_draw" not in expired and engine.DrawBlind() in legal:
            await table.play(state, seat, engine.DrawBlind())
            state = await table.stored_state()
        else:
            state = await table.step(prefer="tunnels")
        if state.phase == "game_over":
            break
    assert expired == PHASES[map_id]


async def play_others(table, absent: str) -> engine.GameState:
    """Every waiting seat but ``absent``'s acts, until only ``absent`` is waited for."""
    for _ in range(50):
        state = await table.stored_state()
        others = [s for s in engine.waiting_for(state)
                  if table.seat_user(state, s) != table.users[absent]]
        if not others:
            return state
        await table.play(state, others[0], table.choose(state, others[0], ""))
    raise AssertionError("the others never finished")


async def kick_offer(table):
    """A 3-player game whose server kicks after 2 expiries: Cy lets the timer run out until
    the channel is offered a vote to kick Cy; that offer."""
    await table.open_game(["Ana", "Ben", "Cy"], "usa", timer=24)
    ex = await table.fake.slash(table.bot, table.users["Ana"], "config", group="ttr-admin",
                                setting="kick_after_expiries", value="2")
    assert "Saved" in ex.text
    offers = []
    for _ in range(10):
        await play_others(table, "Cy")
        sent = await table.advance(24)
        table.last_private.clear()
        table.draws.clear()
        offers = [s for s in sent if s.public and any(":kick:" in c for c in s.custom_ids())]
        if offers:
            break
    (offer,) = offers
    return offer


@pytest.mark.slow
async def test_expiries_in_a_row_open_a_kick_vote_and_a_computer_takes_the_seat(table):
    offer = await kick_offer(table)
    assert "Cy's time ran out 2 turns in a row" in offer.content
    state = await table.stored_state()
    cy_seat = next(s for s in range(3) if table.seat_user(state, s) == table.users["Cy"])
    ex = await table.click("Cy", offer, prefix=f"ttr:{table.game_id}:kick:")
    assert "Only the other players" in ex.text
    ex = await table.click("Ana", offer, prefix=f"ttr:{table.game_id}:kick:")
    assert ex.reply.ephemeral and "1 of 2 needed" in ex.text
    ex = await table.click("Ana", offer, prefix=f"ttr:{table.game_id}:kick:")
    assert "1 of 2 needed" in ex.text  # a second click is the same vote
    ex = await table.click("Ben", offer, prefix=f"ttr:{table.game_id}:kick:")
    assert not ex.reply.ephemeral and "a computer player takes Cy's seat" in ex.text
    closed = table.fake.message(offer.id)  # the vote's own message says it is over
    assert closed.custom_ids() == [] and "no vote on Cy's seat now" in closed.content
    # Cy hears it from the bot (issue 27: a kicked member was told nothing).
    assert "the table voted: a computer player plays your seat" in table.fake.dms(
        table.users["Cy"])[-1].content
    info = await table.bot.service.info(table.game_id)
    assert info.seats[cy_seat].controller == "computer:normal"
    # From now on Cy's seat plays after a short pause, without any timer running out.
    for _ in range(3):
        state = await play_others(table, "Cy")
        await table.advance(seconds=1)
        assert (await table.stored_state()).version == state.version  # not instantly
        sent = await table.advance(seconds=6)
        table.last_private.clear()
        table.draws.clear()
        after = await table.stored_state()
        assert after.version > state.version
        assert not any("ran out" in s.content for s in sent)


@pytest.mark.slow
async def test_a_computer_seat_plays_after_its_pause_and_after_a_restart(table):
    await table.open_game(["Ana", "Ben"], "europe")
    state = await table.stored_state()
    await table.bot.service.set_controller(table.game_id, 1, "computer:easy", reason="test")
    bot_name = state.config.players[1]
    for _ in range(40):
        state = await table.stored_state()
        if state.phase == "game_over":
            break
        if 1 in engine.waiting_for(state):
            if state.turn % 3 == 0:
                await table.restart()  # the pending computer turn is in the database
                table.last_private.clear()
            posts = len(table.fake.channel_messages())
            await table.advance(seconds=1.5)
            assert (await table.stored_state()).version == state.version  # a pause first
            await table.advance(seconds=5)
            table.draws.clear()
            assert (await table.stored_state()).version > state.version
            assert len(table.fake.channel_messages()) > posts  # announced like any turn
            continue
        seat = engine.waiting_for(state)[0]
        await table.play(state, seat, table.choose(state, seat, ""))
    async with table.store() as store:
        log = await store.actions(table.game_id)
    played = [a for a in log if a.seat == 1]
    assert len(played) >= 5 and all(a.user_id is None for a in played)  # the bot played
    assert any(bot_name in s.content for s in table.fake.channel_messages())


async def test_the_loop_runs_due_jobs_by_itself_when_the_clock_passes_them(table):
    await table.open_game(["Ana", "Ben"], "usa")
    scheduler = table.bot.scheduler
    table.clock.advance(12 * HOUR)  # no run_due here: the loop wakes, looks and runs it
    for _ in range(5):
        if reminders(table, "Ana"):
            break
        await asyncio.wait_for(scheduler.next_pass(), 10)
    assert len(reminders(table, "Ana")) == len(reminders(table, "Ben")) == 1


async def test_a_job_planned_wakes_the_loop_only_if_due_before_its_next_look(table):
    """Each action plans jobs (a reminder hours ahead): the loop looks again only when one
    is due before the look it has planned already, not after every action."""
    await table.open_game(["Ana", "Ben"], "usa")
    scheduler = table.bot.scheduler
    scheduler.wake()
    await asyncio.wait_for(scheduler.next_pass(), 10)
    await asyncio.sleep(0)  # the loop is waiting now, for the earliest reminder
    async with table.store() as store:
        earliest = min(j.due_at for j in await store.jobs(table.game_id))
    look = scheduler._next_look  # a shared database is looked at every minute too
    assert look == (min(earliest, table.clock.now() + 60) if store.shared else earliest)
    await table.step()  # plans the next reminder, hours after that look
    assert not scheduler._wake.is_set()
    scheduler.wake(look - 1)
    assert scheduler._wake.is_set()


@pytest.mark.slow
async def test_no_dm_every_turn_when_a_player_asks_for_none(table):
    await table.open_game(["Ana", "Ben"], "usa")
    ex = await table.slash("Ben", "settings", dm_every_turn=False)
    assert "A DM every time it is your turn: off" in ex.text
    for _ in range(30):
        await table.step(prefer="draw-only")
    turns = {n: [d for d in table.fake.dms(table.users[n]) if "Your turn in" in d.content]
             for n in ("Ana", "Ben")}
    assert turns["Ana"] and not turns["Ben"]


async def test_a_job_claimed_when_the_bot_stopped_runs_once_after_the_restart(table):
    await table.open_game(["Ana", "Ben"], "usa")
    await table.bot.service.set_controller(table.game_id, 1, "auto", reason="test")
    state = await table.stored_state()
    # A process claimed the computer's job, then stopped before finishing it.
    async with table.store() as store:
        job = await store.claim_job(table.clock.now() + 10, "old-process")
        assert job is not None and job.kind == "computer" and job.seat == 1
    await table.restart()
    await table.advance(seconds=10)
    if table.bot.service.storage.shared:
        # Another process may share the database: its claim holds until the lease ends.
        assert (await table.stored_state()).version == state.version
        await table.advance(seconds=JOB_LEASE_SECONDS)
    await table.advance(seconds=10)
    async with table.store() as store:
        log = await store.actions(table.game_id, after=state.version)
    assert [a.seat for a in log] == [1]  # the safe ticket keep, once
    assert engine.ACTION_ADAPTER.validate_json(log[0].action) == engine.safe_action(state, 1)


@pytest.mark.slow
async def test_a_computer_thinks_in_a_worker_process(table):
    """With worker processes (the bot's render pool) a computer's choice is made there: its
    state, history and choice travel by pickle, and the game goes on as with a thread."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    class Counting(ProcessPoolExecutor):
        submitted = 0

        def submit(self, fn, /, *args, **kwargs):
            Counting.submitted += 1
            return super().submit(fn, *args, **kwargs)

    pool = Counting(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    table.bot.scheduler.thinkers = pool
    try:
        await table.open_game(["Ana", "Ben"], "usa")
        await table.bot.service.set_controller(table.game_id, 1, "computer:hard",
                                               reason="test")
        played = 0
        while played < 3:
            state = await table.stored_state()
            if 1 in engine.waiting_for(state):
                await table.advance(seconds=7)
                assert (await table.stored_state()).version > state.version
                table.draws.clear()
                played += 1
                continue
            seat = engine.waiting_for(state)[0]
            await table.play(state, seat, table.choose(state, seat, ""))
        assert Counting.submitted == played
    finally:
        pool.shutdown()


@pytest.mark.slow
async def test_a_computer_keeps_one_seed_per_game_and_seat(table, monkeypatch):
    """Its plans stay put from turn to turn (and differ between games): same seed each time."""
    import bot.game.scheduler

    seeds = []
    real = bot.game.scheduler.computer_action

    def spy(controller, state, seat, history, seed):
        seeds.append((seat, seed))
        return real(controller, state, seat, history, seed)

    monkeypatch.setattr(bot.game.scheduler, "computer_action", spy)
    await table.open_game(["Ana", "Ben"], "usa")
    await table.bot.service.set_controller(table.game_id, 1, "computer:hard", reason="test")
    for _ in range(12):
        state = await table.stored_state()
        if 1 in engine.waiting_for(state):
            await table.advance(seconds=7)
            table.draws.clear()
            continue
        seat = engine.waiting_for(state)[0]
        await table.play(state, seat, table.choose(state, seat, ""))
    assert len(seeds) >= 2 and len(set(seeds)) == 1
    assert seeds[0][1] != zlib.crc32(f"{table.game_id + 1}:1".encode())  # another game's


async def test_work_goes_to_started_workers_without_a_thread(monkeypatch):
    """Once every worker process is up, a job is submitted from the loop itself (a thread
    only starts the workers, which may wait for the fork server); the result is the same."""
    import asyncio
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from bot.ops.workers import off_loop, workers_up

    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    try:
        assert not workers_up(pool)
        assert await off_loop(pool, pow, 2, 10) == 1024  # starts the worker, in a thread
        assert workers_up(pool)

        def no_thread(*args, **kwargs):
            raise AssertionError("a trip to a thread")
        monkeypatch.setattr(asyncio, "to_thread", no_thread)
        assert await off_loop(pool, pow, 3, 4) == 81
    finally:
        pool.shutdown()


@pytest.mark.slow
async def test_a_kick_vote_closes_when_the_absent_player_is_back(table):
    """Issue 27 item 11: the vote's message said nothing once it went stale; now it says
    there is no vote on the seat any more, without its button."""
    offer = await kick_offer(table)
    state = await play_others(table, "Cy")  # Cy's turn again: Cy plays it
    cy = next(s for s in engine.waiting_for(state)
              if table.seat_user(state, s) == table.users["Cy"])
    await table.play(state, cy, table.choose(state, cy, ""))
    for _ in range(3):  # to the end of Cy's turn (a second card, say)
        state = await table.stored_state()
        if cy not in engine.waiting_for(state):
            break
        await table.play(state, cy, table.choose(state, cy, ""))
    await play_others(table, "Cy")  # the next turns are published
    closed = table.fake.message(offer.id)
    assert closed.custom_ids() == [] and "no vote on Cy's seat now" in closed.content
