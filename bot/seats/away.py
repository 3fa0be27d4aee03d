"""Away from all my games (``/ttr away``): until a member is back, in every game they sit in,
a computer player of their choice plays their seat or their reminders pause and their turn
timers wait (the server's ``away_mode``).

An absence is one row of the ``away`` table. Nothing about a seat changes: the scheduler
asks ``absences`` when it plans a game's jobs (a computer's turn instead of a reminder)
and when a reminder or timer falls due (it waits until the member is back), and the table
shows "away until …". Coming back (a click, ``/ttr away duration:off``, or the time running
out, found by the scheduler's loop through ``Storage.next_return``) starts their reminders
and timers afresh.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from bot.clock import Clock
from bot.game.games import GameInfo, Refusal
from bot.i18n import _
from bot.play.presenters import safe_name
from bot.storage.api import GameRow, SeatRow, Storage
from engine import waiting_for
from engine.players import Controller

HOUR = 3600.0
LISTED = 15  # games a "your absence is over" DM names at most (a DM holds 2,000 characters)
SHORTEST = 15 * 60.0  # an absence shorter than this is a typo, not a plan
LONGEST = 30 * 24 * HOUR  # ...and one longer than this, a game left behind
UNITS = {"w": 7 * 24 * HOUR, "d": 24 * HOUR, "h": HOUR, "m": 60.0}
DURATION = re.compile(r"(?:\s*(\d{1,4})\s*([wdhm]))+\s*")
PART = re.compile(r"(\d{1,4})\s*([wdhm])")
BACK_WORDS = frozenset({"off", "back", "zurück", "aus"})
BACK_ID = "ttr-away:back"  # the "I'm back" button's custom id: the same for everyone


@dataclass(frozen=True)
class Absence:
    """A seat's member is away until ``back_at``; ``computer`` plays for them meanwhile
    (None: their turns wait for them)."""

    back_at: float
    computer: Controller | None


def parse_duration(text: str) -> float:
    """Seconds from '3d', '12h', '1d 6h', '90m' or '2w'; a ``Refusal`` says what is wrong."""
    typed = text.strip().lower()
    if not DURATION.fullmatch(typed):
        raise Refusal(_("“{text}” is not a duration: write a number and a unit, like 3d, 12h "
                        "or 1d6h (w: weeks, d: days, h: hours, m: minutes).", text=text[:40]))
    seconds = sum(int(n) * UNITS[unit] for n, unit in PART.findall(typed))
    if seconds < SHORTEST:
        raise Refusal(_("An absence lasts at least 15 minutes."))
    if seconds > LONGEST:
        raise Refusal(_("An absence lasts at most 30 days."))
    return seconds


def when(back_at: float) -> str:
    """A moment as Discord shows it to each reader, in their own time zone."""
    return f"<t:{int(back_at)}:f> (<t:{int(back_at)}:R>)"


async def absences(storage: Storage, guild_id: int | None, seats: Sequence[SeatRow],
                   now: float) -> dict[int, Absence]:
    """The seats whose member (playing it in person) is away now."""
    rows = await storage.away([s.user_id for s in seats if s.human])
    if not rows:
        return {}
    pause = (await storage.server_settings(guild_id)).away_mode == "pause"
    return {s.seat: Absence(row.back_at, None if pause else Controller.computer(row.level))
            for s in seats if s.human and (row := rows.get(s.user_id)) and row.back_at > now}


def table_lines(seats: Sequence[SeatRow], absent: Mapping[int, Absence]) -> tuple[str, ...]:
    """The table's and ``/ttr status``'s lines for the seats whose member is away, by seat."""
    return tuple(table_line(safe_name(seats[seat].name), absence)
                 for seat, absence in sorted(absent.items()))


def table_line(name: str, absence: Absence) -> str:
    """The table message's line for a seat whose member is away (public: a time and a
    level only)."""
    if absence.computer is not None:
        return _("💤 {name} is away until {when}: a computer player ({level}) plays for them.",
                 name=name, when=when(absence.back_at), level=_(str(absence.computer.level)))
    return _("💤 {name} is away until {when}: their turns wait for them.", name=name,
             when=when(absence.back_at))


def back_button() -> discord.ui.Button[Any]:
    return discord.ui.Button(label=_("I'm back"), emoji="👋", custom_id=BACK_ID,
                             style=discord.ButtonStyle.success)


async def offer_back(storage: Storage, user_id: int, now: float,
                     view: discord.ui.View | None) -> discord.ui.View | None:
    """``view``, with "I'm back" if ``user_id`` is away (under their hand)."""
    mine = (await storage.away([user_id])).get(user_id)
    return view if mine is None or mine.back_at <= now else with_back_button(view)


def with_back_button(view: discord.ui.View | None) -> discord.ui.View:
    """``view``'s controls and the "I'm back" button (where there is room), for sending
    only: ``BackButton`` answers the click, so discord.py need not track the view."""
    sent = discord.ui.View(timeout=None)
    for item in view.children if view is not None else []:
        sent.add_item(item)
    with contextlib.suppress(ValueError):  # no row has room left: the command still works
        sent.add_item(back_button())
    sent.stop()
    return sent


class Games(Protocol):
    """What an absence needs of the game service (``bot.game.service.GameService``)."""

    storage: Storage
    clock: Clock

    async def info(self, game_id: int) -> GameInfo: ...

    async def replan_game(self, game_id: int) -> None: ...

    async def refresh_table(self, game_id: int) -> None: ...

    async def tell_member(self, row: GameRow, user_id: int, text: Callable[..., str],
                          *args: object) -> None: ...


async def go_away(games: Games, user_id: int, seconds: float, level: str) -> list[GameInfo]:
    """Store the absence, then plan each of the member's games anew (a computer's turn
    where it is theirs) and show it on their tables; returns those games."""
    await games.storage.set_away(user_id, games.clock.now() + seconds, level)
    return await _each_game(games, user_id)


async def come_back(games: Games, user_id: int, *, due_by: float | None = None
                    ) -> list[GameInfo] | None:
    """End the member's absence (``due_by``: only one over by then): their reminders and
    timers start afresh and their tables drop the line; None if they were not away."""
    if not await games.storage.end_away(user_id, due_by=due_by):
        return None
    return await _each_game(games, user_id, restart_clocks=True)


async def _each_game(games: Games, user_id: int, *, restart_clocks: bool = False
                     ) -> list[GameInfo]:
    """Plan each of the member's games anew and refresh its table; with
    ``restart_clocks`` their reminders and turn timers first start again in full."""
    storage, now = games.storage, games.clock.now()
    found = []
    for game_id in await storage.member_games(user_id):
        if restart_clocks:
            info = await games.info(game_id)
            timing = await storage.timing(info.row.guild_id, game_id)
            for seat in info.seats:
                if seat.user_id == user_id:
                    await storage.reset_jobs(game_id, seat.seat, "remind",
                                             now + timing.reminder_hours * HOUR)
                    if timing.turn_timer_hours is not None:
                        await storage.reset_jobs(game_id, seat.seat, "timeout",
                                                 now + timing.turn_timer_hours * HOUR)
        await games.replan_game(game_id)
        await games.refresh_table(game_id)
        found.append(await games.info(game_id))
    return found


async def returns_due(games: Games) -> int:
    """End every absence whose time ran out (the scheduler asks at each pass); how many."""
    ended = 0
    for user_id in await games.storage.aways_over(games.clock.now()):
        back = await come_back(games, user_id, due_by=games.clock.now())
        if back is None:
            continue
        ended += 1
        if back:  # they chose the absence: say when it ends, and where a turn waits
            await games.tell_member(back[0].row, user_id, back_text, user_id, back)
    return ended


def back_text(user_id: int, infos: Sequence[GameInfo]) -> str:
    """The DM when a member's absence ran out: the games that wait for them."""
    waiting = [info for info in infos
               if info.state is not None and (seat := info.seat_of(user_id)) is not None
               and seat in waiting_for(info.state)]
    lines = [_("👋 Your absence is over: you play your games yourself again.")]
    lines += [_("• Game #{game} in <#{channel}> waits for you.", game=info.row.id,
                channel=info.row.channel_id) for info in waiting[:LISTED]]
    if len(waiting) > LISTED:
        lines.append(_("• … and {count} more.", count=len(waiting) - LISTED))
    return "\n".join(lines)
