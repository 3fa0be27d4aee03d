"""Loading and caching games, and their locks.

A game is loaded under its lock (from the cache, else the snapshot, else a replay of
the log) and cached; reads (``info``) take no lock: a cached state is never changed in
place (an action plays on a copy, stored before it replaces the cached one), so a read
sees the game as last committed. ``_forget`` is the one place a game leaves the cache,
``_rewrite`` the one way a change other than an action is stored.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TypeVar

import engine
from bot import i18n
from bot.clock import Clock, SystemClock
from bot.seats import seat_texts
from bot.storage.api import GameRow, GameStatus, SeatRow, Storage, StorageError, in_effect
from bot.storage.codec import event_from_json, replay_log, snapshot_json
from engine import GameState, PrivateView, PublicView
from engine.events import Event
from engine.players import Controller
from engine.scoring import FinalScores

log = logging.getLogger(__name__)

T = TypeVar("T")
# Games kept in memory; older idle ones are dropped and reloaded from the database on demand.
CACHE_SIZE = 512


class Refusal(Exception):
    """Something a user may not do now; ``str(exc)`` is the short reply they get, and
    ``kind`` its class in the log and the metrics."""

    def __init__(self, message: str, kind: str = "other"):
        # A catalog id (a ``presenters`` constant) is shown in the current language; a text
        # built with ``_`` already is, and passes unchanged.
        super().__init__(i18n._(message))
        self.kind = kind


@dataclass
class Game:
    """One game in memory: its row, seats, engine state and the two locks."""

    row: GameRow
    seats: list[SeatRow]
    state: GameState | None = None  # None while in the lobby
    unposted: list[Event] = field(default_factory=list)  # events not yet published
    # The views of ``state`` at one version, and which version (see ``public_view``).
    _public: PublicView | None = field(default=None, repr=False, compare=False)
    _private: dict[int, PrivateView] = field(default_factory=dict, repr=False, compare=False)
    _viewed: int | None = field(default=None, repr=False, compare=False)

    @property
    def id(self) -> int:
        return self.row.id

    def public_view(self) -> PublicView:
        """``engine.public_view`` of the state as it is now, computed once per version
        (an action's answer and its post both show it)."""
        state = self._views_now()
        if self._public is None:
            self._public = engine.public_view(state)
        return self._public

    def private_view(self, seat: int) -> PrivateView:
        """``engine.private_view`` of ``seat`` now, once per version: an action reads its
        actor's before and after, and the before is often the DM of the version before."""
        state = self._views_now()
        view = self._private.get(seat)
        if view is None:
            view = self._private[seat] = engine.private_view(state, seat)
        return view

    def _views_now(self) -> GameState:
        """The state, with the views kept of it dropped if they are of another version."""
        state = self.state
        assert state is not None
        if self._viewed != state.version:  # versions only grow: one version, one state
            self._public, self._private = None, {}  # frozen views, of an older version
            self._viewed = state.version
        return state

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def info(self) -> GameInfo:
        """A read-only look at the game as last committed: a state in the cache is never
        changed in place (an action plays on a copy, stored before it replaces it)."""
        return GameInfo(self.row, list(self.seats), self.state)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    def user_of(self, seat: int) -> int:
        return self.seats[seat].user_id

    def controller(self, seat: int) -> Controller:
        return self.seats[seat].controller


@dataclass(frozen=True)
class GameInfo:
    """A read-only look at a game for commands (status, hand, autocomplete)."""

    row: GameRow
    seats: list[SeatRow]
    state: GameState | None

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    def controller(self, seat: int) -> Controller:
        """Who plays ``seat`` now."""
        return self.seats[seat].controller


@dataclass(frozen=True)
class Ended:
    """A game that ended early: ``view`` carries the standings as they stood (its
    ``final`` filled in), or is None when scores make no sense yet (setup, a lobby)."""

    game_id: int
    channel_id: int
    status: GameStatus
    view: PublicView | None
    reason: str = ""  # why: 'end', 'vote', 'idle', or '<kind>: no member left'


def seated_view(state: GameState, names: Sequence[str], *,
                final: FinalScores | None = None, view: PublicView | None = None) -> PublicView:
    """The public view with each seat's name as it is now: the engine keeps the names the
    game started with, and a seat handed to another member shows its new player.
    ``final``: scores to show in place of the view's own (an ended game's standings);
    ``view``: ``state``'s public view, if it was computed already."""
    view = view or engine.public_view(state)
    final = final or view.final
    update: dict[str, object] = {"players": [
        p.model_copy(update={"name": names[p.seat]}) for p in view.players]}
    if final is not None:
        update["final"] = final.model_copy(update={"players": [
            p.model_copy(update={"name": names[p.seat]}) for p in final.players]})
    return view.model_copy(update=update)


def standings(state: GameState | None, names: Sequence[str]) -> PublicView | None:
    """The public view with the public scores as they stand, once the game is past its
    setup (an early end reveals no ticket and crowns nobody)."""
    if state is None or (state.turn == 0 and state.phase.simultaneous):
        return None
    return seated_view(state, names)


@dataclass
class PostLock:
    """A game's right to publish, held: this process's lock and the database's."""

    local: asyncio.Lock
    shared: Callable[[], Awaitable[None]]

    async def release(self) -> None:
        try:
            await self.shared()
        finally:
            self.local.release()


class Games:
    """The games in memory and their locks (the base of ``GameService``)."""

    def __init__(self, storage: Storage, clock: Clock | None = None):
        self.storage = storage
        self.clock: Clock = clock or SystemClock()
        storage.clock = self.clock  # rows are stamped with the same time the games read
        self._games: OrderedDict[int, Game] = OrderedDict()
        # The two locks of each game (see ``bot.game.posting``).
        self._locks: dict[int, asyncio.Lock] = {}
        self._post_locks: dict[int, asyncio.Lock] = {}


    def _lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    @asynccontextmanager
    async def _locked(self, game_id: int) -> AsyncIterator[None]:
        """Hold the game: this process's lock, then the database's (several processes may
        share a PostgreSQL database; with SQLite the second costs nothing)."""
        async with self._lock(game_id), self.storage.game_lock(game_id):
            yield

    def busy(self, game_id: int) -> bool:
        return self._lock(game_id).locked()

    async def info(self, game_id: int) -> GameInfo:
        """The game as last committed, for reads (status, hand, boards, each autocomplete
        keystroke): from the cache without the game's lock, so a read never waits for a
        change in progress. Only a game not cached (or, with a shared database, changed by
        another process) is loaded, under the lock."""
        game = self._cached(game_id)
        if game is not None and (self.busy(game_id) or not self.storage.shared
                                 or await self._current(game)):
            return game.info()
        async with self._locked(game_id):
            return (await self._load(game_id)).info()

    async def channel_game(self, channel_id: int, *, active_only: bool = True) -> GameInfo | None:
        game_id = await self.storage.active_game_id(channel_id)
        if game_id is None and not active_only:
            latest = await self.storage.latest_game(channel_id)
            game_id = None if latest is None else latest.id
        return None if game_id is None else await self.info(game_id)

    async def _load(self, game_id: int) -> Game:
        """The game, from the cache or the database; call with the game's lock held."""
        game = self._cached(game_id)
        if game is not None and self.storage.shared and not await self._current(game):
            self._forget(game_id)  # another process changed it: load it afresh
            game = None
        if game is None:
            game = self._games[game_id] = await self._read(game_id)
            self._evict()
        return game

    def _cached(self, game_id: int) -> Game | None:
        """The cached game, now the most recently used, or None."""
        game = self._games.get(game_id)
        if game is not None:
            self._games.move_to_end(game_id)
            self._evict()
        return game

    async def _read(self, game_id: int) -> Game:
        """The game as the database holds it."""
        if self.storage.shared:
            # What is unposted is read below: a publish of this game still going on, here
            # or in another process, must have marked what it posted first (else its
            # lines would be told again with the next update).
            async with self._posting(game_id):
                pass
        row = await self.storage.game(game_id)
        if row is None:
            raise Refusal(i18n._("That game does not exist (any more)."))
        game = Game(row=row, seats=await self.storage.seats(game_id))
        if row.config is not None:
            game.state = await self._load_state(row)
            rows = in_effect(await self.storage.actions(game_id, after=row.posted_version))
            game.unposted = [event_from_json(e) for a in rows for e in json.loads(a.events)]
        return game

    async def _current(self, game: Game) -> bool:
        """Whether the cached ``game`` is still what the database holds (its row apart from
        what was posted, and its seats)."""
        row = await self.storage.game(game.id)
        return (row is not None and dataclasses.replace(row, posted_version=0)
                == dataclasses.replace(game.row, posted_version=0)
                and await self.storage.seats(game.id) == game.seats)

    def _evict(self) -> None:
        """Drop the least recently used idle games beyond ``CACHE_SIZE``."""
        extra = len(self._games) - CACHE_SIZE
        for gid in list(self._games)[:max(0, extra)]:
            post = self._post_locks.get(gid)
            if not self._lock(gid).locked() and not (post and post.locked()):
                self._forget(gid)

    async def _load_state(self, row: GameRow) -> GameState:
        """Trust the snapshot if it is at the game's version; otherwise replay the log."""
        snap = await self.storage.snapshot(row.id)
        if snap is not None and snap[0] == row.version:
            try:
                state = GameState.from_snapshot(json.loads(snap[1]))
                if state.version == row.version:
                    return state
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("game %s: unreadable snapshot (%s); replaying the log", row.id, exc)
        return await self.rebuild(row)

    async def rebuild(self, row: GameRow) -> GameState:
        assert row.config is not None
        log_rows = await self.storage.actions(row.id)
        state = replay_log(row.config, log_rows)
        if state.version != row.version:
            raise RuntimeError(f"game {row.id}: the log replays to version {state.version}, "
                               f"the game is at {row.version}")
        await self.storage.save_snapshot(row.id, state.version, snapshot_json(state))
        log.info("game %s: rebuilt from %d logged actions", row.id, len(log_rows))
        return state

    def _forget(self, game_id: int) -> None:
        """Drop the cached game (the database is the truth): the one place a game leaves
        the cache."""
        self._games.pop(game_id, None)

    async def _rewrite(self, game_id: int, write: Awaitable[T],
                       refuse: Callable[[str], str]) -> T:
        """Run ``write``, a change of the game's stored rows other than an action (call with
        the game's lock): the cached game is dropped whether it succeeds or fails, and a
        ``StorageError`` becomes the ``Refusal`` ``refuse(why)``."""
        try:
            return await write
        except StorageError as exc:
            raise Refusal(refuse(i18n.text(exc.text))) from None
        finally:
            self._forget(game_id)

    async def _end(self, game: Game, status: GameStatus, *, by_user: int | None,
                   detail: dict[str, object]) -> Ended:
        """Store the early end (call with the game's lock); the standings as they stand."""
        await self._rewrite(game.id, self.storage.end_game(
            game.id, status, by_user=by_user, detail=detail),
            lambda why: i18n._("Cannot end the game: {why}.", why=why))
        view = standings(game.state, game.names)
        reason = "vote" if "voters" in detail else str(detail.get("reason", ""))
        return Ended(game.id, game.row.channel_id, status, view, reason)

    @staticmethod
    def _running(game: Game) -> Game:
        if game.row.status == "lobby":
            raise Refusal(seat_texts.NOT_STARTED)
        if game.row.status != "running":
            raise Refusal(seat_texts.ALREADY_OVER)
        return game

    @staticmethod
    def _seat(game: Game, user_id: int) -> int:
        seat = game.seat_of(user_id)
        if seat is None:
            raise Refusal(i18n._("You are not playing in this game."))
        return seat

    @staticmethod
    def _host_name(game: Game) -> str:
        return next((s.name for s in game.seats if s.user_id == game.row.host_id), "?")

    @staticmethod
    def _nobody(game: Game) -> int:
        """A user id for a seat without a member: negative, unique in the game."""
        return min(0, *(s.user_id for s in game.seats)) - 1

    async def _take_post_lock(self, game_id: int) -> PostLock:
        """The game's right to publish (taken with the game's lock held, so versions go out
        in the order they were applied): this process's, then among processes."""
        lock = self._post_locks.setdefault(game_id, asyncio.Lock())
        await lock.acquire()
        try:
            shared = await self.storage.hold_publishing(game_id)
        except BaseException:
            lock.release()
            raise
        return PostLock(lock, shared)

    @asynccontextmanager
    async def _posting(self, game_id: int) -> AsyncIterator[None]:
        """Hold the game's post lock alone (a retry of what failed to publish)."""
        post_lock = await self._take_post_lock(game_id)
        try:
            yield
        finally:
            await post_lock.release()
