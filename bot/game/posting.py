"""The lock and posting protocol: a change is stored under the game's lock, then told.

Publishing (channel post, DMs) runs after the game's lock is released but under a
second per-game lock taken *before* the first is released, so boards are posted in the
order the actions happened while the next action may already be applied. With a
shared database that second lock is also the database's (``Storage.hold_publishing``):
one process publishes a game at a time. A publish that fails is kept and tried again,
in order, before the game's next one (``_publish_unsent``). ``Posting._changing`` is the
one way in: a change sets what it tells, and the context manager does the rest.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence, Set
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from bot import i18n
from bot.clock import Clock
from bot.game.games import Game, Games, PostLock, seated_view
from bot.game.telling import Scene, SeatFacts, Update, audience, compose
from bot.ops.diskspace import log_failure
from bot.play.decisions import decisions
from bot.seats import away, orders
from bot.storage.api import ACTIVE, GameRow, Storage
from engine import GameState
from engine.events import Event

log = logging.getLogger(__name__)

# A refused DM is not retried for this long (the player may open DMs later).
DM_RETRY_SECONDS = 6 * 3600
# Failed publishes a game keeps for a retry; older ones are dropped (a restart still posts
# what was never marked posted, from the stored log).
MAX_UNSENT = 50


class Publisher(Protocol):
    async def publish(self, update: Update) -> None:
        """Post an update; raise ``ChannelLost`` if its channel is gone or unreachable."""
        ...

    async def tell(self, user_id: int, text: str) -> None:
        """One line to a player by DM (a refusal is logged, never raised)."""
        ...


class ChannelLost(Exception):
    """The game's channel was deleted, or the bot can no longer see it."""


@dataclass
class Telling:
    """What a change tells once it is stored (``Posting._changing``): first the actor's own
    answer, then the update ``build`` makes (its texts are built outside the game's lock);
    ``update`` is that update, once built."""

    build: Callable[[], Update] | None = None
    answer: Callable[[], Awaitable[None]] | None = None
    update: Update | None = None


class Posting(Games):
    """Telling what changed: the post lock, the updates, their retries."""

    def __init__(self, storage: Storage, publisher: Publisher | None = None,
                 clock: Clock | None = None):
        super().__init__(storage, clock)
        self.publisher = publisher
        # Per game, the updates whose publishing failed, oldest first: each is published
        # again (the same keys: nothing twice) before anything newer of that game.
        self._unsent: dict[int, list[Update]] = {}


    @asynccontextmanager
    async def _changing(self, game_id: int) -> AsyncIterator[Telling]:
        """Hold the game for a change; what the change sets on the ``Telling`` is told
        once the game's lock is released: the one way a change reaches the channel. The
        post lock is taken before the game lock is released (versions are told in the
        order they were applied); then the actor is answered, the update's texts built
        and the update published, and the post lock released, whatever fails."""
        telling = Telling()
        async with self._locked(game_id):
            yield telling
            build = telling.build
            if build is None:
                return
            post_lock = await self._take_post_lock(game_id)
        try:
            if telling.answer is not None:
                try:
                    await telling.answer()
                except Exception:
                    log.exception("game %s: answering the actor failed", game_id)
        finally:
            try:
                update = telling.update = build()
            except BaseException:
                await post_lock.release()
                raise
            await self._publish(update, post_lock)

    async def _publish(self, update: Update, post_lock: PostLock) -> None:
        """Publish ``update`` (with its game's post lock, released here), after the game's
        earlier updates that failed: the channel hears every version, in order."""
        try:
            unsent = self._unsent.setdefault(update.game_id, [])
            unsent.append(update)
            lost = await self._publish_unsent(update.game_id)
        finally:
            await post_lock.release()
        if lost is not None:  # (after the post lock: ending takes the game's lock)
            await self.channel_lost(update.game_id, str(lost))

    async def _publish_unsent(self, game_id: int) -> ChannelLost | None:
        """Publish the game's waiting updates in order (its post lock held), up to the first
        that fails: that one waits for the next publish or ``retry_unsent``. A version is
        marked posted only once it and every one before it went out. A lost channel drops
        them all (and is returned: the game ends)."""
        unsent = self._unsent.get(game_id, [])
        lost: ChannelLost | None = None
        while unsent:
            update = unsent[0]
            try:
                if self.publisher is not None:
                    await self.publisher.publish(update)
                if not update.refresh:
                    await self.storage.mark_posted(update.game_id, update.version)
            except ChannelLost as exc:
                lost = exc
                unsent.clear()
                break
            except Exception as exc:
                log_failure(log, exc, "game %s: publishing version %s failed (kept for a "
                            "retry)", update.game_id, update.version)
                if update.refresh:  # only the buttons of a step: the next update has them
                    unsent.pop(0)
                del unsent[:-MAX_UNSENT]
                break
            unsent.pop(0)
        if not unsent:
            self._unsent.pop(game_id, None)
        return lost

    def has_unsent(self) -> bool:
        return bool(self._unsent)

    async def retry_unsent(self) -> None:
        """Publish again what failed to publish (the scheduler calls it now and then)."""
        for game_id in list(self._unsent):
            async with self._posting(game_id):
                lost = await self._publish_unsent(game_id)
            if lost is not None:
                await self.channel_lost(game_id, str(lost))

    async def channel_lost(self, game_id: int, why: str) -> None:
        """The game's channel is gone or unreachable: the game ends (its jobs with it) and
        its players are told by DM; nothing is posted to the channel any more."""
        async with self._locked(game_id):
            game = await self._load(game_id)
            if game.row.status not in ACTIVE:
                return
            log.warning("game %s: its channel %s is lost (%s): ending it", game_id,
                        game.row.channel_id, why)
            await self._end(game, "ended", by_user=None, detail={"reason": "channel", "why": why})
        if self.publisher is None:
            return
        with i18n.language(await self.storage.game_language(game.row)):
            text = i18n._("Game #{game} has ended: the bot can no longer post in its channel "
                          "(it was deleted, or the bot lost access to it).", game=game_id)
        for seat in game.seats:
            if seat.person:
                await self.publisher.tell(seat.user_id, text)

    async def tell_member(self, row: GameRow, user_id: int, text: Callable[..., str],
                          *args: object) -> None:
        """One private line to a member about the game of ``row``, in their language (else
        the game's)."""
        if self.publisher is None:
            return
        chosen = (await self.storage.player_settings(user_id)).language
        with i18n.language(chosen or await self.storage.game_language(row)):
            line = text(*args)
        await self.publisher.tell(user_id, line)

    async def _telling(self, game: Game, lines: Callable[[], list[str]], *,
                       dm_seats: Sequence[int], events: Sequence[Event] = (),
                       board: bool = False, refresh: bool = False,
                       hands: Sequence[int] | None = None, news: str = "",
                       repost: bool = False, undo_at: int | None = None
                       ) -> Callable[[], Update]:
        """Decide who is told what of the game as it is now (call with the game's lock: the
        facts are read at this version); returns what builds the update's texts, called
        once the lock is released. ``lines``: the channel's lines (built in the game's
        language); ``dm_seats``: seats with a new decision; ``events`` (public) say whether
        the board changed and what to highlight on it; ``hands``: seats whose private
        thread (a server setting) is brought up to date (default: ``dm_seats``); ``news``:
        see ``Update.news``."""
        state = game.state
        assert state is not None
        hands = dm_seats if hands is None else hands
        absent = await away.absences(self.storage, game.row.guild_id, game.seats,
                                     self.clock.now())
        threads_on = (await self.storage.server_settings(game.row.guild_id)).player_threads
        facts = await self._facts(game, state, dm_seats=dm_seats,
                                  hands=hands if threads_on else (),
                                  playing_for={s for s, a in absent.items() if a.computer})
        told = audience(facts, told=dm_seats, hands=hands, threads_on=threads_on)
        private = {*told.dms, *told.threads}
        scene = Scene(
            game_id=game.id, channel_id=game.row.channel_id, guild_id=game.row.guild_id,
            map_id=game.row.map_id, seats=tuple(game.seats), state=state,
            view=seated_view(state, game.names, view=game.public_view()),
            privates={s: game.private_view(s) for s in private},
            choices={s: tuple(decisions(state, s)) for s in private},
            language=await self.storage.game_language(game.row), away=absent)
        fresh, events = tuple(dm_seats), tuple(events)
        return lambda: compose(scene, facts, told, lines=lines, fresh=fresh, events=events,
                               board=board, refresh=refresh, news=news, repost=repost,
                               undo_at=undo_at)

    async def _facts(self, game: Game, state: GameState, *, dm_seats: Sequence[int],
                     hands: Sequence[int], playing_for: Set[int] = frozenset()
                     ) -> list[SeatFacts]:
        """What ``telling.audience`` decides from, per seat, read from the database (for
        the seats it tells: ``dm_seats``, ``hands``); ``playing_for``: seats a computer
        plays while their player is away (``bot.seats.away``)."""
        # Seats whose standing order plays this turn at once: no ping, no DM (bot.seats.orders).
        ready = await orders.ready(self.storage, game.id, game.seats, state) | playing_for
        now = self.clock.now()
        facts = []
        for s in game.seats:
            fact = SeatFacts(s.seat, s.user_id, s.human, ready=s.seat in ready)
            told = s.seat in dm_seats and not fact.ready
            if s.human and (told or s.seat in hands):
                refused = None if not told else await self.storage.dm_refused_at(s.user_id)
                player = await self.storage.player_settings(s.user_id)
                private = game.private_view(s.seat)
                fact = dataclasses.replace(
                    fact, refused=refused is not None and now - refused < DM_RETRY_SECONDS,
                    decision=bool(private.offered or decisions(state, s.seat)),
                    every_turn=player.dm_every_turn, language=player.language)
            facts.append(fact)
        return facts

    async def dms_refused(self, user_id: int) -> bool:
        """Whether ``user_id`` refused a DM lately (then the channel mentions them instead)."""
        refused = await self.storage.dm_refused_at(user_id)
        return refused is not None and self.clock.now() - refused < DM_RETRY_SECONDS

    async def dm_refused(self, user_id: int) -> None:
        await self.storage.set_dm_refused(user_id, self.clock.now())

    async def dm_delivered(self, user_id: int) -> None:
        if await self.storage.dm_refused_at(user_id) is not None:
            await self.storage.set_dm_refused(user_id, None)
