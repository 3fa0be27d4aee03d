"""Time-based work from the database: reminders, turn timers and computer players' turns.

Whenever a game changes, the service asks ``jobs`` what the seats it now waits for
need and stores them with the change (an action's in its own transaction): a person
gets a reminder (and, with a turn timer, an expiry); a seat played by the bot ('auto',
'computer:<level>') gets its turn after a short, natural pause.
Each plan is a row in ``jobs`` for one seat at one game version: when the game has
moved on, the job finds itself stale and does nothing, so no job is ever cancelled
in a hurry and none runs twice with effect.

One loop claims due jobs one at a time (``Storage.claim_job``: one worker gets each
job) and sleeps until the next one is due, or until a new job is planned. Time comes
from the injected ``Clock``: tests move a fake one forward instead of sleeping. At
start-up, jobs claimed by a process that stopped are given back and every running
game is planned again (a job planned already stays as it is), so a restart neither
loses nor repeats a reminder, a timer or a computer's turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import random
import socket
import zlib
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol

import engine
from bot import i18n
from bot.game.games import GameInfo
from bot.game.service import GameService
from bot.lobby import lobby_texts
from bot.ops.diskspace import log_failure
from bot.ops.workers import computer_action, off_loop
from bot.seats import away, orders, seat_texts
from bot.settings.preferences import PlayerSettings
from bot.storage.api import JOB_LEASE_SECONDS, LOBBY_IDLE_SECONDS, Job, in_effect
from bot.storage.codec import event_from_json
from engine import Action, GameState
from engine.events import Event
from engine.players import HUMAN

log = logging.getLogger(__name__)

HOUR = 3600.0
# Each further reminder for the same decision waits this many times longer than the last.
REMINDER_PACE = 2
# ...but never longer than this between two reminders.
REMINDER_GAP_MAX = 7 * 24 * HOUR
# No member has played a move for this long while the bot played their timed-out turns:
# the game ends as abandoned (counted in no statistics) rather than play on by itself.
IDLE_ABANDON_HOURS = 7 * 24.0
# A computer player's pause before it acts (seconds): long enough to look considered.
COMPUTER_DELAY = (2.0, 6.0)
# After an unexpected error the loop rests this long before it looks again (seconds).
ERROR_PAUSE = 60.0
# With a shared database the loop looks at least this often (seconds): another process
# may plan a job and die before running it, and only the planner is woken at once.
SHARED_LOOK_EVERY = 60.0
# A publish that failed (Discord or the disk had trouble) is tried again this soon
# (seconds), if no newer publish of its game came first.
PUBLISH_RETRY = 30.0


@dataclass(frozen=True)
class Reminder:
    """A nudge for one player: by DM, or in the game's channel if DMs are refused."""

    game_id: int
    version: int  # the job's: with ``attempt``, which reminder this is (sent once)
    attempt: int
    channel_id: int
    user_id: int
    dm_text: str
    channel_text: str


@dataclass(frozen=True)
class KickOffer:
    """The others may vote to hand ``seat`` to a computer player (its timer kept expiring)."""

    game_id: int
    version: int  # the game's after the expired turn (the offer is sent once)
    channel_id: int
    seat: int
    text: str
    vote: seat_texts.OpenVote | None = None  # closed once the player is back, or at the end


class Notifier(Protocol):
    """What the scheduler posts besides turns (``bot.game.publisher.DiscordPublisher``): each
    once only, keyed like a game's posts, so a job run again after a crash repeats none."""

    async def remind(self, reminder: Reminder) -> None: ...

    async def offer_kick(self, offer: KickOffer) -> None: ...

    async def announce(self, channel_id: int, text: str, *, key: tuple[int, int],
                       target: str) -> None:
        """A line in a channel that pings nobody; ``key`` (game, version) and ``target``
        name it among the game's posts."""
        ...

    async def follow_lobby(self, game_id: int, text: str,
                           newest: tuple[int, int] | None = None) -> None:
        """Every copy of a lobby's message shows ``text`` (without buttons, but ``newest``)."""
        ...

    async def close_votes(self, game_id: int,
                          outcome: Callable[[seat_texts.OpenVote], str | None],
                          texts: dict[str, str] | None = None) -> None:
        """Say each decided vote's outcome in its messages; their buttons go."""
        ...


@dataclass(frozen=True)
class Postpone:
    """Give the job back, due again at ``due_at`` (a reminder in quiet hours)."""

    due_at: float


class Scheduler:
    def __init__(self, service: GameService, notifier: Notifier, *,
                 rng: random.Random | None = None, worker: str | None = None,
                 thinkers: Executor | None = None):
        self.service = service
        self.storage = service.storage
        self.clock = service.clock
        self.notifier = notifier
        self.thinkers = thinkers  # the processes computer players think in (else a thread)
        self.rng = rng or random.Random()
        self.worker = worker or f"{socket.gethostname()}:{os.getpid()}"
        self._wake = asyncio.Event()
        self._next_look: float | None = None  # when the loop looks next (None: any wake)
        self._running = asyncio.Lock()  # one pass over the due jobs at a time
        self._task: asyncio.Task[None] | None = None
        self._passed = asyncio.Event()  # set (and replaced) after each pass of the loop
        service.planner = self

    # -- the loop ----------------------------------------------------------------------

    async def start(self) -> None:
        """Take over the jobs a stopped process left claimed, plan every running game and
        start the loop."""
        released = await self.storage.release_claims(self.worker)
        games = await self.service.replan()
        log.info("scheduler: %d running game(s) planned, %d job(s) taken over", games, released)
        self._task = asyncio.create_task(self._loop(), name="ttr-scheduler")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def wake(self, due_at: float | None = None) -> None:
        """Look at the jobs again now: jobs were planned, the earliest due at ``due_at``
        (None: unknown). One due after the loop's next look already planned waits for it."""
        if due_at is None or self._next_look is None or due_at < self._next_look:
            self._wake.set()

    async def next_pass(self) -> None:
        """Return when the loop has next looked at (and run) the due jobs."""
        await self._passed.wait()

    async def _loop(self) -> None:
        while True:
            self._wake.clear()  # before looking: a job planned from now on wakes us again
            self._next_look = None
            try:
                await self.run_due()
                due = [t for t in (await self.storage.next_due(),
                                   await self.storage.next_lobby_expiry(),
                                   await self.storage.next_return()) if t is not None]
                until = min(due, default=None)
            except Exception as exc:
                log_failure(log, exc, "scheduler: a pass over the due jobs failed")
                until = self.clock.now() + ERROR_PAUSE
            if self.storage.shared:
                soon = self.clock.now() + SHARED_LOOK_EVERY
                until = soon if until is None else min(until, soon)
            if self.service.has_unsent():
                soon = self.clock.now() + PUBLISH_RETRY
                until = soon if until is None else min(until, soon)
            self._passed.set()
            self._passed = asyncio.Event()
            self._next_look = until
            await self.clock.wait(self._wake, until)

    async def run_due(self) -> int:
        """Publish again what failed to publish, close the idle lobbies, bring back the
        members whose time away ran out, then run every job due now, one at a time; returns
        how many jobs ran."""
        ran = 0
        async with self._running:
            await self.service.retry_unsent()
            await self.close_idle_lobbies()
            await self.end_absences()
            while (job := await self.storage.claim_job(self.clock.now(), self.worker)) is not None:
                heartbeat = asyncio.create_task(self._keep_claim(job))
                try:
                    after = await self._run(job)
                except Exception as exc:  # a failing job must not stop the others: done
                    log_failure(log, exc, "scheduler: job %s (%s, game %s) failed", job.id,
                                job.kind, job.game_id)
                    after = None
                finally:
                    heartbeat.cancel()
                if isinstance(after, Postpone):
                    await self.storage.postpone_job(job, after.due_at)
                else:
                    await self.storage.finish_job(job, self.clock.now(), then=after)
                ran += 1
        return ran

    async def end_absences(self) -> None:
        """End the absences (``/ttr away``) whose time ran out: their members' reminders
        and timers start afresh (``bot.seats.away``)."""
        due = await self.storage.next_return()
        if due is None or due > self.clock.now():
            return  # every pass asks; a single-row read
        try:
            await away.returns_due(self.service)
        except Exception as exc:  # the next pass tries again; the jobs must run meanwhile
            log_failure(log, exc, "scheduler: ending the absences that ran out failed")

    async def _keep_claim(self, job: Job) -> None:
        """Renew the claim on ``job`` while it runs (a computer thinking long, a slow
        Discord): its lease runs out only when this process is gone."""
        wake = asyncio.Event()
        while True:
            due = self.clock.now() + JOB_LEASE_SECONDS / 3
            while self.clock.now() < due:
                wake.clear()
                await self.clock.wait(wake, due)
            try:
                await self.storage.renew_claim(job, self.clock.now(), self.worker)
            except Exception as exc:  # the job goes on; the next beat tries again
                log_failure(log, exc, "scheduler: renewing the claim on job %s failed", job.id)

    async def close_idle_lobbies(self) -> None:
        """Cancel the lobbies idle for ``LOBBY_IDLE_SECONDS`` and say so in their channels
        (their buttons then answer that the lobby is closed)."""
        due = await self.storage.next_lobby_expiry()
        if due is None or due > self.clock.now():
            return  # every pass asks; a single-row read, not a write transaction
        for game in await self.storage.expire_lobbies():
            with i18n.language(await self.storage.game_language(game)):
                text = lobby_texts.lobby_expired(game.id, LOBBY_IDLE_SECONDS / HOUR)
            try:
                await self.notifier.announce(game.channel_id, text, key=(game.id, game.version),
                                             target="expired")
                await self.notifier.follow_lobby(game.id, text)  # no copy invites a join
            except Exception:  # the channel may be gone: the lobby is closed all the same
                log.warning("scheduler: could not announce that lobby %s closed", game.id,
                            exc_info=True)

    async def _run(self, job: Job) -> Job | Postpone | None:
        info = await self.service.info(job.game_id)
        state = info.state
        if (state is None or info.row.status != "running" or state.version != job.version
                or job.seat not in engine.waiting_for(state)):
            return None  # the game moved on: nothing to do
        # What a job posts in the channel is in the game's language.
        with i18n.language(await self.storage.game_language(info.row)):
            return await self._run_kind(job, info)

    async def _run_kind(self, job: Job, info: GameInfo) -> Job | Postpone | None:
        match job.kind:
            case "remind":
                return await self._remind(job, info)
            case "timeout":
                return await self._expire(job, info)
            case "computer":
                await self._computer(job, info)
            case "order":
                await self._order(job, info)
        return None

    # -- planning ----------------------------------------------------------------------

    async def jobs(self, game: GameInfo) -> list[Job]:
        state = game.state
        assert state is not None
        now = self.clock.now()
        timing = await self.storage.timing(game.row.guild_id, game.row.id)
        standing = await orders.standing(self.storage, game.row.id, game.seats, state)
        absent = await away.absences(self.storage, game.row.guild_id, game.seats, now)
        jobs = []
        for seat in engine.waiting_for(state):
            def job(kind: str, delay: float, seat: int = seat) -> Job:
                return Job(kind, game.row.id, seat, state.version, now + delay)  # type: ignore[arg-type]
            if game.seats[seat].controller != HUMAN:
                jobs.append(job("computer", self.rng.uniform(*COMPUTER_DELAY)))
                continue
            if seat in standing:  # a standing order plays (or is dropped) at once
                jobs.append(job("order", 0.0))
                if standing[seat].holds:
                    continue  # ready: no reminder, no timer
            if seat in absent and absent[seat].computer is not None:
                jobs.append(job("computer", self.rng.uniform(*COMPUTER_DELAY)))
                continue  # away: the computer of their choice plays (bot.seats.away)
            jobs.append(job("remind", timing.reminder_hours * HOUR))
            if timing.turn_timer_hours is not None:
                jobs.append(job("timeout", timing.turn_timer_hours * HOUR))
        return jobs

    # -- the jobs ----------------------------------------------------------------------

    async def _remind(self, job: Job, info: GameInfo) -> Job | Postpone | None:
        seat = info.seats[job.seat]
        if seat.controller != HUMAN:
            return None
        absence = await self._absence(info, job.seat)
        if absence is not None:  # away: no reminder before they are back
            return Postpone(absence.back_at)
        player = await self.storage.player_settings(seat.user_id)
        if not player.reminders:
            return None
        now = self.clock.now()
        quiet_until = player.quiet_until(now)
        if quiet_until is not None:
            return Postpone(quiet_until)
        await self.notifier.remind(Reminder(
            game_id=info.row.id, version=job.version, attempt=job.attempt,
            channel_id=info.row.channel_id, user_id=seat.user_id,
            dm_text=self._in_own_language(player, seat_texts.reminder_dm,
                                          info.row.channel_id, info.row.id),
            channel_text=seat_texts.reminder_mention(seat.user_id, info.row.id)))
        timing = await self.storage.timing(info.row.guild_id, info.row.id)
        gap = min(timing.reminder_hours * HOUR * REMINDER_PACE ** (job.attempt + 1),
                  REMINDER_GAP_MAX)
        return dataclasses.replace(job, attempt=job.attempt + 1, due_at=now + gap, id=0)

    @staticmethod
    def _in_own_language(player: PlayerSettings, text: Callable[..., str], *args: Any) -> str:
        """A DM in the player's chosen language (else the game's, the current one)."""
        with i18n.language(player.language):
            return text(*args)

    async def _expire(self, job: Job, info: GameInfo) -> Postpone | None:
        seat = info.seats[job.seat]
        if seat.controller != HUMAN:
            return None  # the seat's computer player has its own job
        timing = await self.storage.timing(info.row.guild_id, info.row.id)
        hours = timing.turn_timer_hours or 0.0
        absence = await self._absence(info, job.seat)
        if absence is not None:  # away: the timer waits, and runs in full once they are back
            return Postpone(absence.back_at + hours * HOUR)
        if await self._abandon_if_idle(info):
            return None

        async def safe(state: GameState, seat: int) -> Action:
            return engine.safe_action(state, seat)  # never new tickets

        try:
            played = await self.service.play_for(job.game_id, job.seat, job.version, safe,
                                                 note=seat_texts.timeout_line(seat.name, hours),
                                                 timed_out=True)
        except engine.IllegalAction:  # only tickets could be drawn: the turn stays theirs
            await self.notifier.announce(info.row.channel_id,
                                         seat_texts.timeout_waits(seat.name, hours),
                                         key=(job.game_id, job.version),
                                         target=f"waits:{job.seat}")
            return None
        if played is None:
            return None
        in_a_row = await self.storage.count_expiry(job.game_id, job.seat)
        others = [s for s in info.seats if s.seat != job.seat and s.human]
        if in_a_row == timing.kick_after_expiries and others:
            await self.notifier.offer_kick(KickOffer(
                game_id=info.row.id, version=played.version, channel_id=info.row.channel_id,
                seat=job.seat, text=seat_texts.kick_offer(seat.name, in_a_row),
                vote=seat_texts.open_vote("kick", job.seat, info.row.id, seat.name)))
        return None

    async def _abandon_if_idle(self, info: GameInfo) -> bool:
        """End the game as abandoned if no member has played for ``IDLE_ABANDON_HOURS``,
        and say so in its channel."""
        idle = self.clock.now() - await self.storage.last_person_action(info.row.id)
        if idle < IDLE_ABANDON_HOURS * HOUR:
            return False
        if await self.service.abandon_idle(info.row.id, IDLE_ABANDON_HOURS) is None:
            return False
        await self.notifier.announce(
            info.row.channel_id, seat_texts.idle_abandoned(
                info.row.id, IDLE_ABANDON_HOURS, [s.name for s in info.seats if s.human]),
            key=(info.row.id, info.row.version), target="abandoned:idle")
        await self.notifier.close_votes(info.row.id, lambda vote: "over")
        return True

    async def _absence(self, info: GameInfo, seat: int) -> away.Absence | None:
        """The seat's member's absence now (``/ttr away``), if they are away."""
        absent = await away.absences(self.storage, info.row.guild_id, [info.seats[seat]],
                                     self.clock.now())
        return absent.get(seat)

    async def _computer(self, job: Job, info: GameInfo) -> None:
        player = info.seats[job.seat].controller
        if player == HUMAN:  # a member away lets the computer of their choice play
            absence = await self._absence(info, job.seat)
            if absence is None or absence.computer is None:
                return
            player = absence.computer
        # One seed per game and seat: a computer keeps its plan from turn to turn, and its
        # plans differ between games. Not the game's own seed, which fixes the deck order.
        seed = zlib.crc32(f"{job.game_id}:{job.seat}".encode())

        async def think(state: GameState, seat: int) -> Action:
            history = await self._history(job.game_id)  # events are public by design
            return await off_loop(self.thinkers, computer_action, player, state, seat,
                                  history, seed)

        await self.service.play_for(job.game_id, job.seat, job.version, think)

    async def _order(self, job: Job, info: GameInfo) -> None:
        """Play the seat's standing order (``bot.seats.orders``), or drop it with a private note,
        sent once like a reminder (its key: the order's id as a negative attempt)."""
        assert info.state is not None
        seat = info.seats[job.seat]
        note = await orders.play(self.storage, self.service.play_for, job.game_id, seat,
                                 job.version, info.state)
        if note is not None:
            player = await self.storage.player_settings(note.user_id)
            await self.notifier.remind(Reminder(
                game_id=job.game_id, version=job.version, attempt=-note.order_id,
                channel_id=info.row.channel_id, user_id=note.user_id,
                dm_text=self._in_own_language(player, orders.dropped_note, job.game_id,
                                              info.row.map_id, note),
                channel_text=seat_texts.reminder_mention(note.user_id, job.game_id)))

    async def _history(self, game_id: int) -> list[Event]:
        """The game's public events so far, from the stored log (what every seat saw)."""
        rows = in_effect(await self.storage.actions(game_id))
        return [event_from_json(e) for row in rows for e in json.loads(row.events)]
