"""The game service: load, lock, apply, persist, notify. No Discord types here.

Every change to a game runs under that game's lock: load (from a cache, else
the snapshot, else a replay of the log), check who may act, apply through the
engine, commit the log row and snapshot in one transaction, and only then
answer. Publishing (channel post, DMs) runs after the lock is released but
under a second per-game lock taken *before* the first is released, so boards
are posted in the order the actions happened while the next action may
already be applied. With a shared database that second lock is also the
database's (``Storage.hold_publishing``): one process publishes a game at a
time. A publish that fails is kept and tried again, in order, before the
game's next one (``_publish_unsent``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import time
import zlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import orjson

import engine
import engine.events as engine_events
from bot import i18n
from bot.clock import Clock, SystemClock
from bot.ops import metrics
from bot.ops.diskspace import log_failure
from bot.play import presenters
from bot.records.standings import results_of
from bot.render.highlight import LastMove
from bot.seats import orders
from bot.settings.preferences import GameSettings
from bot.storage.api import (
    ACTIVE,
    UNDO_JSON,
    ActionRow,
    GameRow,
    GameStatus,
    Job,
    JobPlan,
    SeatRow,
    Storage,
    StorageError,
    in_effect,
)
from engine import (
    ACTION_ADAPTER,
    LOG_ADAPTER,
    Action,
    GameConfig,
    GameState,
    IllegalAction,
    KeepTickets,
    PayTunnel,
    PrivateView,
    PublicView,
)
from engine.cards import CARD_NAMES
from engine.events import (
    Event,
    HarborBuilt,
    RouteClaimed,
    StationBuilt,
    TicketDraftStarted,
)
from engine.phases import Phase
from engine.players import HUMAN, LEVELS, Controller
from engine.scoring import FinalScores
from maps import load_map, map_ids

log = logging.getLogger(__name__)
T = TypeVar("T")

# A refused DM is not retried for this long (the player may open DMs later).
DM_RETRY_SECONDS = 6 * 3600
# Phases in which the player whose turn it is still owes the rest of that turn.
MID_TURN = (Phase.SECOND_DRAW, Phase.CHOOSE_TICKETS)
# Games kept in memory; older idle ones are dropped and reloaded from the database on demand.
CACHE_SIZE = 512
# Actions the bot plays in a row for one seat's turn (draw, draw; claim, tunnel; ...).
MAX_AUTO_STEPS = 8
# Failed publishes a game keeps for a retry; older ones are dropped (a restart still posts
# what was never marked posted, from the stored log).
MAX_UNSENT = 50


async def _safe_choice(state: GameState, seat: int) -> Action:
    return engine.safe_action(state, seat)


class Refusal(Exception):
    """Something a user may not do now; ``str(exc)`` is the short reply they get, and
    ``kind`` its class in the log and the metrics."""

    def __init__(self, message: str, kind: str = "other"):
        # A catalog id (a ``presenters`` constant) is shown in the current language; a text
        # built with ``_`` already is, and passes unchanged.
        super().__init__(i18n._(message))
        self.kind = kind


@dataclass(frozen=True)
class Pick:
    """Option ``index`` of the decision waiting for the player (a choice button's action).

    It names an entry of ``decisions(state, seat)``; ``tag`` is the ``choice_tag`` of
    the options the button was drawn with, so the bot needs no encoding of each module's
    actions in custom_ids. A tag, not the game's version: in a simultaneous decision
    (Iberia's draft) other players' picks change the version but not your options.
    """

    index: int
    tag: int


def decisions(state: GameState, seat: int) -> list[Action]:
    """The options of a map module's decision ``seat`` must make now (e.g. which share to
    take, or at setup the pieces to play with once the tickets are kept), one button each;
    empty in the common phases, which have their own controls."""
    setup = state.phase == Phase.CHOOSE_INITIAL_TICKETS
    if not (setup or state.phase.map_decision) or seat not in engine.waiting_for(state):
        return []
    # A ticket keep is a select, never a button per combination.
    return [a for a in engine.legal_actions(state, seat) if not isinstance(a, KeepTickets)]


def choice_tag(seat: int, phase: str, options: Sequence[Action]) -> int:
    """A short fingerprint of one player's options (up to 9 digits, for a custom_id): a
    choice button is valid while the options it was drawn with are still the options."""
    text = json.dumps([seat, phase, [a.model_dump(mode="json") for a in options]],
                      sort_keys=True)
    return zlib.crc32(text.encode()) % 1_000_000_000


def draft_round(state: GameState) -> presenters.DraftRound | None:
    """(round, rounds, second draft?) while a ticket draft is on, else None."""
    if state.phase != Phase.DRAFT:
        return None
    draft = engine.public_view(state).draft
    return None if draft is None else (draft.round, draft.rounds, draft.second)


def replay_log(config: str, log: Sequence[ActionRow]) -> GameState:
    """The state a game's stored config and log (undo rows included) replay to: the source
    of truth."""
    return engine.replay(GameConfig.model_validate_json(config),
                         [(a.seat, LOG_ADAPTER.validate_json(a.action)) for a in log])


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
class DirectMessage:
    """A private note to one player: their hand, tickets and what they must decide."""

    game_id: int
    map_id: str
    version: int
    user_id: int
    seat: int
    text: str
    private: PrivateView
    public: PublicView
    choose_tickets: bool  # attach the keep-tickets select
    choices: tuple[Action, ...] = ()  # a module decision's options, as buttons
    news: str = ""  # see ``Update.news``
    language: i18n.Language = i18n.DEFAULT  # of ``text`` and the controls: the player's


@dataclass(frozen=True)
class Update:
    """What to show in a game's channel (and by DM) after a change. Public except ``dms``
    and ``threads``."""

    game_id: int
    channel_id: int
    version: int
    lines: list[str]
    view: PublicView
    mentions: list[str]  # '<@id>' per seat
    dms: list[DirectMessage]
    dm_closed: list[int]  # user ids known to refuse DMs who must act now
    waiting: tuple[int, ...] = ()  # seats that must act now (several in a simultaneous phase)
    fresh: tuple[int, ...] = ()  # seats whose decision is new (they are mentioned)
    draft: presenters.DraftRound | None = None
    board: bool = True  # the board changed (claims, stations, harbors): a new image is due
    guild_id: int | None = None
    last: LastMove | None = None  # what the last turn built, highlighted on the image
    # Only the table message's status and buttons change (a step in the middle of a turn):
    # nothing is posted, and the events wait for the turn's end.
    refresh: bool = False
    repost: bool = False  # post the table message again at the bottom (``/ttr board``)
    # Private: hands to bring up to date in the players' private threads (a server setting).
    threads: list[DirectMessage] = field(default_factory=list)
    # An undo's update: the version the game was at when the undo was decided (an undo
    # vote's subject), so that vote's messages say it passed.
    undo_at: int | None = None
    # News that comes without a new version (a seat changing hands): its own key
    # for the idempotent posts, so it is told although the version was told already.
    news: str = ""
    language: i18n.Language = i18n.DEFAULT  # of the channel posts: the game's (``lines`` too)

    @property
    def finished(self) -> bool:
        return self.view.phase == Phase.GAME_OVER

    def prompt(self, dm_closed: Sequence[int] = ()) -> str:
        """The channel's prompt; ``dm_closed``: who to tell that they get no DMs."""
        closed = [f"<@{u}>" for u in dm_closed]
        return presenters.prompt_text(self.view, self.mentions, closed, waiting=self.waiting,
                                      fresh=self.fresh, draft=self.draft)


@dataclass(frozen=True)
class Outcome:
    """What an accepted action did, for the actor's own (ephemeral) answer."""

    game_id: int
    version: int
    seat: int
    action: Action
    events: list[Event]
    before: PrivateView
    after: PrivateView
    view: PublicView
    published: bool  # a channel post follows (the turn ended or a tunnel was revealed)
    choices: tuple[Action, ...] = ()  # a module decision the actor must make now
    phase_before: Phase = Phase.TURN
    draft: presenters.DraftRound | None = None  # where a ticket draft stands now
    tunnel: TunnelHand | None = None  # the actor's tunnel waiting: what is left to pay with


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


@dataclass(frozen=True)
class Vote:
    """Where a vote stands (abandon; undo of ``version``): the members for it so far."""

    game_id: int
    version: int
    names: tuple[str, ...]
    voters: tuple[int, ...]
    needed: int
    ended: Ended | None = None
    undone: bool = False
    subject: str = ""  # what an undo vote would take back ('Ana's claim of …')

    @property
    def passed(self) -> bool:
        return len(self.voters) >= self.needed


# Events that show something nobody knew (a card off a deck, tickets, a reveal): an action
# that caused one is undone only with the table's consent.
REVEALING_EVENTS = frozenset({
    "CardDrawn", "TicketsDrawn", "TunnelRevealed", "MarketReset", "DeckReshuffled",
    "FestivalCardPlaced", "TicketDraftStarted", "DraftPicked", "GameEnded"})
# Actions that draw nothing by themselves (the events say whether they revealed anything).
QUIET_ACTIONS = frozenset({
    "claim", "build_station", "build_harbor", "exchange_pieces", "keep_tickets", "pay_tunnel",
    "decline_tunnel", "take_share", "give_neutral_share", "take_festival", "choose_pieces"})


def reveals_nothing(row: ActionRow) -> bool:
    """Whether a logged action showed nothing hidden and drew nothing at random."""
    kind = json.loads(row.action).get("type")
    return kind in QUIET_ACTIONS and not any(
        e.get("type") in REVEALING_EVENTS for e in json.loads(row.events))


@dataclass(frozen=True)
class TunnelHand:
    """A tunnel's player's hand without the cards already paid into the tunnel (the private
    view still counts them), and whether the extra cards can be paid from it."""

    hand: dict[str, int]
    payable: bool


def _plan_lines(view: PublicView, private: PrivateView) -> str:
    """The planner's text under a hand (private messages only), or nothing."""
    text = presenters.planner_text(view.map_id, presenters.ticket_plans(view, private))
    return f"\n{text}" if text else ""


def tunnel_hand(state: GameState, seat: int) -> TunnelHand | None:
    tunnel = state.tunnel
    if tunnel is None or tunnel.seat != seat:
        return None
    left = {CARD_NAMES[c]: n for c, n in enumerate(state.hands[seat]) if n}
    payable = any(isinstance(a, PayTunnel) for a in engine.legal_actions(state, seat))
    return TunnelHand(left, payable)


def default_computer() -> Controller:
    """Who takes a seat its member left (resigned, kicked by vote, on autopilot)."""
    return Controller.computer("normal")


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


class Publisher(Protocol):
    async def publish(self, update: Update) -> None:
        """Post an update; raise ``ChannelLost`` if its channel is gone or unreachable."""
        ...

    async def tell(self, user_id: int, text: str) -> None:
        """One line to a player by DM (a refusal is logged, never raised)."""
        ...


class ChannelLost(Exception):
    """The game's channel was deleted, or the bot can no longer see it."""


class Planner(Protocol):
    """Plans a game's time-based work (``bot.game.scheduler``) whenever the game changes."""

    async def jobs(self, game: GameInfo) -> list[Job]:
        """The reminders, timers and computer turns ``game`` needs at its version (at a new
        one, or loaded after a restart), for the seats it waits for."""
        ...

    def wake(self, due_at: float | None = None) -> None:
        """Jobs were planned, the earliest due at ``due_at``: look at what is due again
        (if that is before the next look planned already)."""
        ...


def snapshot_json(state: GameState) -> str:
    """``state``'s snapshot as JSON text, serialised by orjson (~5x the standard library's
    speed; it is stored after every action)."""
    return orjson.dumps(state.to_snapshot(shared=True), option=orjson.OPT_NON_STR_KEYS).decode()


def event_to_json(e: Event) -> dict[str, Any]:
    return {"type": type(e).__name__, **dataclasses.asdict(e)}


def event_from_json(d: dict[str, Any]) -> Event:
    fields = dict(d)
    cls = getattr(engine_events, fields.pop("type"))
    return cls(**fields)  # type: ignore[no-any-return]


def opening_lines(map_id: str, names: Sequence[str], state: GameState) -> list[str]:
    """What the channel hears as a game begins (``state``: the new game)."""
    order = ", ".join(f"{i + 1}. {presenters.safe_name(name)}" for i, name in enumerate(names))
    lines = [i18n._("🚂 **{map}** begins! Seat order: {order}.", map=presenters.map_name(map_id),
                    order=order)]
    if state.phase == Phase.DRAFT:  # the first draft is dealt at setup, without an event
        lines += presenters.event_lines(map_id, names, [TicketDraftStarted(
            state.current, False, len(engine.private_view(state, 0).draft_packet))])
    return lines


def last_move(map_id: str, names: Sequence[str], events: Sequence[Event]) -> LastMove | None:
    """What the last of these (public) events built, or None if nothing on the board
    changed: the routes claimed and the cities built in by the last player who built."""
    built = [e for e in events if isinstance(e, RouteClaimed | StationBuilt | HarborBuilt)]
    if not built:
        return None
    seat = built[-1].seat
    mine = [e for e in built if e.seat == seat]
    routes = tuple(e.route for e in mine if isinstance(e, RouteClaimed))
    cities = tuple(e.city for e in mine if isinstance(e, StationBuilt | HarborBuilt))
    what = ([presenters.route_ends(map_id, r) for r in routes]
            + [presenters.city_name(map_id, c) for c in cities])
    who = names[seat] if 0 <= seat < len(names) else "?"
    return LastMove(seat=seat, routes=routes, cities=cities,
                    caption=f"{who}: {', '.join(what)}")


# Maps whose every decision has its command or component here; the engine may know more.
BOT_MAPS = ("usa", "europe", "nordic", "pennsylvania", "iberia", "world")


def supported_maps() -> list[str]:
    """Maps the engine can start (a map whose module is missing fails ``new_game``)."""
    ok = []
    for map_id in map_ids():
        if map_id not in BOT_MAPS:
            continue
        try:
            n = load_map(map_id).rules.players_min
            engine.new_game(GameConfig(map_id=map_id, players=[f"p{i}" for i in range(n)], seed=0))
        except Exception as exc:  # any failure means "not playable"
            log.info("map %s is not playable: %s", map_id, exc)
            continue
        ok.append(map_id)
    return ok


def _log_accepted(game: Game, seat: int, action: Action, seconds: float) -> None:
    """One line and the metrics per stored action: from taking the lock to the commit."""
    log.info("game %s (%s) seat %s: %s in %.1f ms", game.id, game.row.map_id, seat,
             action.type, seconds * 1000)
    metrics.ACTIONS.inc(map=game.row.map_id, action=action.type)
    metrics.ACTION_SECONDS.observe(seconds)


@dataclass
class Telling:
    """What a change tells once it is stored (``GameService._changing``): the update to
    publish, and first the actor's own answer."""

    update: Update | None = None
    answer: Callable[[], Awaitable[None]] | None = None


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


class GameService:
    def __init__(self, storage: Storage, publisher: Publisher | None = None, *,
                 clock: Clock | None = None):
        self.storage = storage
        self.publisher = publisher
        self.clock: Clock = clock or SystemClock()
        storage.clock = self.clock  # rows are stamped with the same time the games read
        self.planner: Planner | None = None  # set by the scheduler that runs the game's jobs
        self.maps = supported_maps()
        self.seeds: random.Random = random.SystemRandom()  # tests set a seeded one
        self._games: OrderedDict[int, Game] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}
        self._post_locks: dict[int, asyncio.Lock] = {}
        # Per game, the updates whose publishing failed, oldest first: each is published
        # again (the same keys: nothing twice) before anything newer of that game.
        self._unsent: dict[int, list[Update]] = {}

    # -- locks and loading ------------------------------------------------------------

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

    @asynccontextmanager
    async def _changing(self, game_id: int) -> AsyncIterator[Telling]:
        """Hold the game for a change; what the change sets on the ``Telling`` is told
        once the game's lock is released: the one way a change reaches the channel. The
        post lock is taken before the game lock is released (versions are told in the
        order they were applied), then the actor is answered, the update published and
        the post lock released, whatever fails."""
        telling = Telling()
        async with self._locked(game_id):
            yield telling
            if telling.update is None:
                return
            post_lock = await self._take_post_lock(game_id)
        try:
            if telling.answer is not None:
                try:
                    await telling.answer()
                except Exception:
                    log.exception("game %s: answering the actor failed", game_id)
        finally:
            await self._publish(telling.update, post_lock)

    @asynccontextmanager
    async def _posting(self, game_id: int) -> AsyncIterator[None]:
        """Hold the game's post lock alone (a retry of what failed to publish)."""
        post_lock = await self._take_post_lock(game_id)
        try:
            yield
        finally:
            await post_lock.release()

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

    # -- lobby --------------------------------------------------------------------------

    async def create(
        self, *, guild_id: int | None, channel_id: int, user_id: int, name: str, map_id: str,
        max_players: int | None, settings: GameSettings | None = None,
    ) -> GameRow:
        """Open a lobby; ``settings``: what the host chose for this game (reminders, timer)."""
        if map_id not in self.maps:
            raise Refusal(i18n._("Unknown map {map}; choose one of: {maps}.",
                                 map=presenters.echo(map_id), maps=", ".join(self.maps)))
        rules = load_map(map_id).rules
        limit = rules.players_max if max_players is None else max_players
        if not rules.players_min <= limit <= rules.players_max:
            raise Refusal(i18n._("{map} is for {low}–{high} players.",
                                 map=presenters.map_name(map_id), low=rules.players_min,
                                 high=rules.players_max))
        try:
            row = await self.storage.create_game(
                guild_id=guild_id, channel_id=channel_id, map_id=map_id, max_players=limit,
                host_id=user_id, host_name=name)
        except StorageError:
            raise Refusal(i18n._("This channel already has a game: finish it first, or start "
                                 "one in a thread (`/ttr new thread:True`).")) from None
        if settings is not None and settings != GameSettings():
            await self.storage.save_game_settings(row.id, settings)
        return row

    async def join(self, game_id: int, user_id: int, name: str) -> GameInfo:
        async with self._locked(game_id):
            await self._rewrite(game_id, self.storage.add_seat(game_id, user_id, name),
                                lambda why: i18n._("You cannot join: {why}.", why=why))
            return (await self._load(game_id)).info()

    async def leave(self, game_id: int, user_id: int) -> GameInfo:
        async with self._locked(game_id):
            await self._rewrite(game_id, self.storage.remove_seat(game_id, user_id),
                                lambda why: i18n._("You cannot leave: {why}.", why=why))
            return (await self._load(game_id)).info()

    async def start(self, game_id: int, user_id: int, *, seed: int | None = None) -> Update:
        async with self._changing(game_id) as telling:
            game = await self._load(game_id)
            if game.row.status != "lobby":
                raise Refusal(i18n._("This game has already started."))
            if user_id != game.row.host_id:
                host = next((presenters.safe_name(s.name) for s in game.seats
                             if s.user_id == game.row.host_id), "?")
                raise Refusal(i18n._("Only the host ({host}) can start the game.", host=host))
            rules = load_map(game.row.map_id).rules
            if len(game.seats) < rules.players_min:
                raise Refusal(i18n._("At least {n} players are needed to start.",
                                     n=rules.players_min))
            if not any(s.person for s in game.seats):
                raise Refusal(presenters.ONLY_COMPUTERS)
            seed = self.seeds.randrange(2**62) if seed is None else seed
            order = list(game.seats)
            random.Random(seed).shuffle(order)  # seat order is random (rules, setup)
            seats = [SeatRow(i, s.user_id, s.name, s.controller) for i, s in enumerate(order)]
            config = GameConfig(map_id=game.row.map_id, players=[s.name for s in seats], seed=seed)
            state = engine.new_game(config)
            await self._rewrite(game_id, self.storage.start_game(
                game_id, config=config.model_dump_json(), seats=seats, version=state.version,
                state=snapshot_json(state)), lambda why: i18n._("Cannot start: {why}.", why=why))
            game = await self._load(game_id)
            log.info("game %s (%s) started with %d players", game_id, game.row.map_id, len(seats))
            metrics.GAMES_STARTED.inc(map=game.row.map_id)
            with i18n.language(await self.storage.game_language(game.row)):
                lines = opening_lines(game.row.map_id, game.names, state)
            update = telling.update = await self._update(game, lines, dm_seats=range(len(seats)),
                                                         board=True)
            await self._plan(game)
        return update

    # -- actions --------------------------------------------------------------------------

    async def act(
        self, game_id: int, user_id: int | None, action: Action | Pick, *,
        expect_version: int | None = None,
        reply: Callable[[Outcome], Awaitable[None]] | None = None,
        seat: int | None = None, note: str | None = None, timed_out: bool = False,
        in_dm: bool = False,
    ) -> Outcome:
        """Apply ``action`` for ``user_id``; raise ``Refusal`` (nothing changed) if not allowed.

        ``expect_version`` comes from a button: a click on an older board is refused,
        so a double click cannot draw twice. ``reply`` answers the actor once the
        action is stored, before the channel hears of it. A ``Pick`` always needs
        its version: its index means something only in the state it was drawn for.
        The bot plays for a seat (timer, computer player) with ``seat`` instead of a
        user; ``note`` then heads the channel post that follows, and ``timed_out`` says
        the turn timer played it (turns timed out count in the statistics). ``in_dm``: the
        actor acted in their DM, where ``reply`` shows their next decision already.
        """
        by_person = seat is None
        async with self._changing(game_id) as telling:
            locked_at = time.perf_counter()
            game = await self._load(game_id)
            state = game.state
            if state is None:
                raise Refusal(i18n._("The game has not started yet."), "not started")
            if seat is None:
                seat = None if user_id is None else game.seat_of(user_id)
            if seat is None:
                raise Refusal(i18n._("You are not playing in this game."), "not a player")
            if game.row.status != "running":
                raise Refusal(i18n._("The game is over."), "game over")
            if by_person and not game.controller(seat).human:
                raise Refusal(presenters.NOT_YOURS_NOW, "not yours now")
            waiting_before = engine.waiting_for(state)
            if (expect_version is not None and expect_version != state.version
                    and seat in waiting_before):
                raise Refusal(i18n._("Those buttons are out of date: use the newest ones (or "
                                     "the slash commands)."), "out of date")
            if isinstance(action, Pick):
                action = self._picked(state, seat, action)
            phase_before = state.phase
            before = game.private_view(seat)
            version = state.version
            # The action plays on a copy: the cached state stays the last one committed, which
            # readers see without the lock (``info``), until the new one is stored.
            state = state.copy()
            try:
                if state.turns_left >= 0:
                    # The last round: this action may end the game, and final scoring
                    # (longest trails, ticket paths) is CPU work the event loop should
                    # not wait on. The game's lock keeps everyone else off the state.
                    events = await asyncio.to_thread(engine.apply, state, seat, action)
                else:
                    events = engine.apply(state, seat, action)
            except IllegalAction as exc:
                raise Refusal(i18n.text(exc.text), "illegal") from None
            waiting_after = engine.waiting_for(state)
            choices = decisions(state, seat)
            # Mid-turn (second card, ticket choice, the next step of a module decision of the
            # actor alone) only the actor hears back; a tunnel reveal, a new module decision,
            # each pick of a simultaneous decision and everything that ends a turn is
            # published.
            still_deciding = (bool(choices) and phase_before.map_decision
                              and waiting_after == [seat])
            publish = not ((state.phase in MID_TURN and state.current == seat) or still_deciding)
            # Seats still deciding what they decided before keep their reminders and timer:
            # the others in a simultaneous phase, the actor in the middle of their turn.
            carry = [s for s in waiting_after if s in waiting_before and s != seat]
            if not publish and seat in waiting_after:
                carry.append(seat)
            try:
                # The new version's jobs are stored with the action, in its transaction.
                plan = await self._job_plan(game, state, carry=carry,
                                            acted=seat if by_person else None)
                await self.storage.record_action(
                    game_id, seat=seat, action=ACTION_ADAPTER.dump_json(action).decode(),
                    events=json.dumps([event_to_json(e) for e in events]), before=version,
                    after=state.version, state=snapshot_json(state),
                    finished=state.phase == Phase.GAME_OVER, user_id=user_id, plan=plan,
                    timed_out=timed_out, results=results_of(
                        game_id, game.seats, engine.public_view(state))
                    if state.phase == Phase.GAME_OVER else ())
            except BaseException:
                self._forget(game_id)  # the commit's outcome is unknown: reload from the database
                raise
            # Stored: the new version is what everyone sees from now on (row and state
            # together, with no await between).
            game.state = state
            game.row = dataclasses.replace(
                game.row, version=state.version,
                status="finished" if state.phase == Phase.GAME_OVER else game.row.status)
            if plan is not None and plan.jobs and self.planner is not None:
                self.planner.wake(min(job.due_at for job in plan.jobs))
            _log_accepted(game, seat, action, time.perf_counter() - locked_at)
            if state.phase == Phase.GAME_OVER:
                log.info("game %s (%s) ended after %d actions", game_id, game.row.map_id,
                         state.version)
                metrics.GAMES_ENDED.inc(map=game.row.map_id)
            game.unposted.extend(events)
            after = game.private_view(seat)
            update = None
            if publish:
                with i18n.language(await self.storage.game_language(game.row)):
                    lines = presenters.event_lines(game.row.map_id, game.names, game.unposted)
                if note is not None:
                    lines.insert(0, note)
                fresh = [s for s in waiting_after if s not in waiting_before and s != seat]
                if not in_dm and (choices or (after.offered and not before.offered
                                              and state.phase != Phase.CHOOSE_TICKETS)):
                    # The actor's new decision (a module's, or the drafted tickets to keep)
                    # also goes by DM, with its controls (unless the answer is in the DM:
                    # Rails & Sails asked for the pieces twice there).
                    fresh.append(seat)
                update = await self._update(game, lines, dm_seats=fresh,
                                            events=game.unposted, hands=[seat, *fresh])
                game.unposted = []
            else:  # the table's buttons follow each step (e.g. the second card)
                update = await self._update(game, [], dm_seats=[], refresh=True,
                                            hands=[seat])
            outcome = Outcome(
                game_id=game_id, version=state.version, seat=seat, action=action, events=events,
                before=before, after=after, view=game.public_view(), published=publish,
                choices=tuple(choices), phase_before=phase_before, draft=draft_round(state),
                tunnel=tunnel_hand(state, seat))
            telling.update = update
            if reply is not None:
                telling.answer = lambda: reply(outcome)
        return outcome

    @staticmethod
    def _picked(state: GameState, seat: int, pick: Pick) -> Action:
        options = decisions(state, seat)
        if not options:
            if state.phase.simultaneous and seat not in engine.waiting_for(state):
                raise Refusal(i18n._("You have chosen already: waiting for the others."))
            raise Refusal(i18n._("You have nothing to choose now."))
        if pick.tag != choice_tag(seat, state.phase, options):
            raise Refusal(i18n._("Those buttons are out of date: use the newest ones."),
                          "out of date")
        if not 0 <= pick.index < len(options):
            raise Refusal(i18n._("That choice is not valid (any more)."))
        return options[pick.index]

    async def resume(self) -> int:
        """After a restart, publish what a crash left unposted (a last turn, the final scores).

        Returns how many games were published.
        """
        done = 0
        for row in await self.storage.unposted_games():
            async with self._changing(row.id) as telling:
                game = await self._load(row.id)
                state = game.state
                if state is None or state.phase in MID_TURN:
                    continue  # mid-turn: the turn's end publishes it
                with i18n.language(await self.storage.game_language(row)):
                    lines = presenters.event_lines(row.map_id, game.names, game.unposted)
                telling.update = await self._update(
                    game, lines, dm_seats=engine.waiting_for(state), events=game.unposted)
                game.unposted = []
            done += 1
        return done

    # -- time-based work: reminders, timers, computer players (bot.scheduler) -----------------

    async def _plan(self, game: Game, *, carry: Sequence[int] = (),
                    acted: int | None = None) -> None:
        """Plan the game's jobs at its version (with the game's lock held). A failure is
        only logged: the game's change is stored, and the next start-up plans it again."""
        plan = await self._job_plan(game, game.state, carry=carry, acted=acted)
        if plan is None or self.planner is None or game.state is None:
            return
        try:
            await self.storage.plan_jobs(game.id, game.state.version, carry=plan.carry,
                                         jobs=plan.jobs, acted=plan.acted)
        except Exception:
            log.exception("game %s: planning its reminders and timers failed", game.id)
            return
        if plan.jobs:
            self.planner.wake(min(job.due_at for job in plan.jobs))

    async def _job_plan(self, game: Game, state: GameState | None, *,
                        carry: Sequence[int] = (), acted: int | None = None) -> JobPlan | None:
        """The jobs the game needs at its version: reminders, timers and computer turns of
        the seats it waits for; ``carry``: seats still deciding the same thing as before,
        whose jobs go on; ``acted``: the seat whose player just acted in person. None if
        there is nothing to plan (no planner, the game is over) or planning failed (only
        logged: the next start-up plans the game again). ``state``: the game's new state
        (an action's, before it is stored)."""
        if (self.planner is None or state is None or game.row.status != "running"
                or state.phase == Phase.GAME_OVER):
            return None
        try:
            jobs = await self.planner.jobs(GameInfo(game.row, list(game.seats), state))
        except Exception:
            log.exception("game %s: planning its reminders and timers failed", game.id)
            return None
        return JobPlan(tuple(carry), tuple(jobs), acted)

    async def replan(self) -> int:
        """At start-up: plan every running game's jobs, keeping those planned already (a job
        the database holds is neither lost nor repeated). Returns how many games."""
        rows = await self.storage.games_with_status("running")
        for row in rows:
            async with self._locked(row.id):
                try:
                    game = await self._load(row.id)
                except Exception:  # one broken game must not keep the bot from starting
                    log.exception("game %s: cannot be loaded to plan its jobs", row.id)
                    continue
                if game.state is not None:
                    await self._plan(game, carry=engine.waiting_for(game.state))
        return len(rows)

    async def play_for(
        self, game_id: int, seat: int, version: int,
        choose: Callable[[GameState, int], Awaitable[Action]], *, note: str | None = None,
        timed_out: bool = False,
    ) -> Outcome | None:
        """Take ``seat``'s decision for them (a timer ran out: ``timed_out``, a computer
        plays the seat): the rest of their turn, each action through ``act`` like a
        player's. ``choose`` gets a copy of the state. Nothing happens (None) if the game
        is no longer at ``version`` waiting for ``seat``: the job that called was stale."""
        last: Outcome | None = None
        for _ in range(MAX_AUTO_STEPS):
            async with self._locked(game_id):
                game = await self._load(game_id)
                state = game.state
                if (state is None or game.row.status != "running" or state.version != version
                        or seat not in engine.waiting_for(state)):
                    return last
                copy = GameState.from_snapshot(state.to_snapshot())
            action = await choose(copy, seat)
            try:
                last = await self.act(game_id, None, action, seat=seat, expect_version=version,
                                      note=note, timed_out=timed_out and last is None)
            except Refusal as exc:
                # The game moved on meanwhile (stale), or the chooser erred: the safe move.
                log.warning("game %s: seat %s could not play %s: %s", game_id, seat, action, exc)
                choose = _safe_choice
                continue
            if last.published:
                return last
            version = last.version
        return last

    async def repost_table(self, game_id: int) -> None:
        """Post the table message again at the bottom of the channel (``/ttr board``)."""
        async with self._changing(game_id) as telling:
            game = await self._load(game_id)
            if game.state is None:
                raise Refusal(i18n._("The game has not started yet."))
            telling.update = dataclasses.replace(
                await self._update(game, [], dm_seats=[], board=True, refresh=True),
                repost=True)

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

    async def _update(self, game: Game, lines: list[str], *, dm_seats: Sequence[int],
                      events: Sequence[Event] = (), board: bool = False,
                      refresh: bool = False, hands: Sequence[int] | None = None,
                      news: str = "") -> Update:
        """What to publish now; ``events`` (public) say whether the board changed and
        what to highlight on it; ``hands``: seats whose private thread (a server setting)
        is brought up to date (default: ``dm_seats``); ``news``: see ``Update.news``."""
        state = game.state
        assert state is not None
        view = seated_view(state, game.names, view=game.public_view())
        draft = draft_round(state)
        last = last_move(game.row.map_id, game.names, events)
        dms, closed = [], []
        now = self.clock.now()
        language = await self.storage.game_language(game.row)
        # Seats whose standing order plays this turn at once: no ping, no DM (bot.orders).
        ready = await orders.ready(self.storage, game.id, game.seats, state)
        threads_on = (await self.storage.server_settings(game.row.guild_id)).player_threads
        for seat in dm_seats:
            if not game.seats[seat].human or seat in ready:
                continue  # a computer plays this seat, or its order: nobody to tell
            user = game.user_of(seat)
            refused = await self.storage.dm_refused_at(user)
            if refused is not None and now - refused < DM_RETRY_SECONDS:
                closed.append(user)
                continue
            private = game.private_view(seat)
            choices = tuple(decisions(state, seat))
            player = await self.storage.player_settings(user)
            if not (private.offered or choices) and (threads_on or not player.dm_every_turn):
                continue  # a plain turn, and they asked for no DM each turn (/ttr settings),
                # or their private thread shows the hand (a server setting)
            # A DM is in the player's chosen language, else the game's (no Discord locale
            # is known outside an interaction).
            with i18n.language(player.language or language) as own:
                text = self._dm_text(game, view, private, draft,
                                     acting=seat in engine.waiting_for(state))
            dms.append(DirectMessage(
                game_id=game.id, map_id=game.row.map_id, version=state.version, user_id=user,
                seat=seat, private=private, public=view, choose_tickets=bool(private.offered),
                choices=choices, news=news, text=text, language=own))
        threads = []
        if threads_on:
            for seat in sorted(set(dm_seats if hands is None else hands)):
                if not game.seats[seat].human:
                    continue
                private = game.private_view(seat)
                choices = tuple(decisions(state, seat))
                player = await self.storage.player_settings(game.user_of(seat))
                with i18n.language(player.language or language) as own:
                    text = (self._dm_text(game, view, private, draft, acting=True)
                            if seat in engine.waiting_for(state)
                            else i18n._("Game #{game} — {hand}", game=game.id,
                                        hand=presenters.hand_text(view.map_id, private))
                            + _plan_lines(view, private))
                threads.append(DirectMessage(
                    game_id=game.id, map_id=game.row.map_id, version=state.version,
                    user_id=game.user_of(seat), seat=seat, private=private, public=view,
                    choose_tickets=bool(private.offered), choices=choices, text=text,
                    language=own))
        return Update(
            game_id=game.id, channel_id=game.row.channel_id, version=state.version,
            lines=lines, view=view, threads=threads,
            mentions=[presenters.safe_name(s.name) if s.seat in ready
                      else presenters.seat_mention(s.user_id, s.name, s.human)
                      for s in game.seats],
            dms=dms, dm_closed=closed, waiting=tuple(engine.waiting_for(state)),
            fresh=tuple(dm_seats), draft=draft, guild_id=game.row.guild_id,
            board=(board or last is not None) and view.phase != Phase.GAME_OVER,
            last=last, refresh=refresh, news=news, language=language)

    @staticmethod
    def _dm_text(game: Game, view: PublicView, private: PrivateView,
                 draft: presenters.DraftRound | None = None, *, acting: bool = True) -> str:
        where = i18n._("<#{channel}> (game #{game})", channel=game.row.channel_id, game=game.id)
        if not acting:  # a seat just taken over, say
            head = presenters.seat_taken_text(where)
        elif private.offered:
            head = i18n._("Choose your destination tickets in {where}: {rule}.", where=where,
                          rule=presenters.keep_rule(private))
        elif view.phase.map_decision:
            head = i18n._("In {where}: {what}.", where=where,
                          what=presenters.decision_text(view, private, draft))
        else:
            head = i18n._("Your turn in {where}: {what}.", where=where,
                          what=presenters.turn_help(view.map_id, view.phase))
            if view.phase == Phase.TURN:
                head += "\n" + presenters.turn_controls(view.map_id)
        return f"{head}\n{presenters.hand_text(view.map_id, private)}{_plan_lines(view, private)}"

    # -- who plays a seat ----------------------------------------------------------------

    async def set_controller(self, game_id: int, seat: int, controller: str, *, reason: str,
                             by_user: int | None = None) -> GameInfo:
        """Hand ``seat`` to ``controller`` (a member's own play, the safe automatic move or a
        computer player; ValueError for another text); the history records who
        (``by_user``) and why (``reason``)."""
        controller = Controller(controller)
        async with self._locked(game_id):
            game = await self._load(game_id)
            if not 0 <= seat < len(game.seats):
                raise Refusal(i18n._("There is no seat {n}.", n=seat + 1))
            current = game.seats[seat]
            if controller.human and not current.person:
                raise Refusal(i18n._("Nobody sits there: `/ttr seat replace` gives the seat to a "
                                     "member."))
            game, _ = await self._change_seat(
                game, seat, user_id=current.user_id, name=current.name, controller=controller,
                kind="controller", by_user=by_user, detail={"reason": reason})
            return game.info()

    async def _change_seat(self, game: Game, seat: int, *, user_id: int, name: str,
                           controller: Controller, kind: str, by_user: int | None,
                           detail: dict[str, object]) -> tuple[Game, str]:
        """Every change of who plays a seat goes through here (call with the game's lock):
        stored with its history row, then the game is reloaded. Returns it and the key
        of this news (``Update.news``)."""
        old = game.seats[seat]
        history_id = await self._rewrite(game.id, self.storage.change_seat(
            game.id, seat, user_id=user_id, name=name, controller=controller, kind=kind,
            by_user=by_user, detail={**detail, "was": str(old.controller),
                                     "from_user": old.user_id, "from_name": old.name}),
            lambda why: i18n._("Cannot change the seat: {why}.", why=why))
        game = await self._load(game.id)
        if game.state is not None:  # a computer's turn, or a person's reminders, from now on
            await self._plan(game, carry=engine.waiting_for(game.state))
        return game, f"history:{history_id}"

    async def add_computer(self, game_id: int, user_id: int, level: str) -> GameInfo:
        """The host seats a computer player in the lobby."""
        if level not in LEVELS:
            raise Refusal(i18n._("Choose a level: {levels}.", levels=", ".join(LEVELS)))
        async with self._locked(game_id):
            game = self._hosting(await self._load(game_id), user_id, "add computer players")
            number = sum(1 for s in game.seats if not s.person) + 1
            with i18n.language(await self.storage.game_language(game.row)):  # all read it
                name = presenters.computer_name(level, number)
            await self._rewrite(game_id, self.storage.add_seat(
                game_id, self._nobody(game), name, controller=Controller.computer(level)),
                lambda why: i18n._("Cannot add a computer player: {why}.", why=why))
            return (await self._load(game_id)).info()

    def _hosting(self, game: Game, user_id: int, deed: str) -> Game:
        """``game``, if it is a lobby and ``user_id`` hosts it (``deed``: what they do, one
        of ``presenters.HOST_DEEDS``); else the refusal that says why not."""
        if game.row.status != "lobby":
            raise Refusal(presenters.LOBBY_ONLY)
        if user_id != game.row.host_id:
            raise Refusal(presenters.only_host(self._host_name(game), deed))
        return game

    async def remove_computer(self, game_id: int, user_id: int, seat: int
                              ) -> tuple[GameInfo, str]:
        """The host takes the computer player in ``seat`` out of the lobby; returns the
        lobby and the computer's name."""
        async with self._locked(game_id):
            game = self._hosting(await self._load(game_id), user_id, "remove computer players")
            gone = next((s for s in game.seats if s.seat == seat and not s.person), None)
            if gone is None:
                raise Refusal(i18n._("Choose the computer player to remove from the list."))
            await self._rewrite(game_id, self.storage.remove_seat(game_id, gone.user_id),
                                lambda why: i18n._("Cannot remove a computer player: {why}.",
                                                   why=why))
            return (await self._load(game_id)).info(), gone.name

    async def vote_kick(self, game_id: int, user_id: int, seat: int) -> tuple[bool, str]:
        """``user_id`` votes to hand ``seat``, whose timer ran out turn after turn, to a
        computer player; a majority of the other seated players decides. Returns whether
        the vote decided it, and the text to answer."""
        async with self._locked(game_id):
            game = await self._load(game_id)
            if game.state is None or game.row.status != "running":
                raise Refusal(i18n._("The game is over."))
            if not 0 <= seat < len(game.seats):
                raise Refusal(i18n._("That control is not valid (any more)."))
            target = game.seats[seat]
            voter = game.seat_of(user_id)
            if voter is None or not game.seats[voter].human or voter == seat:
                raise Refusal(i18n._("Only the other players at the table vote on this seat."))
            if not target.human:
                raise Refusal(presenters.kick_closed(target.name))
            timing = await self.storage.timing(game.row.guild_id, game_id)
            if (await self.storage.expiries(game_id)).get(seat, 0) < timing.kick_after_expiries:
                raise Refusal(presenters.kick_closed(target.name))
            voters = set(await self.storage.vote(game_id, "kick", seat, user_id))
            electors = {s.user_id for s in game.seats if s.human and s.seat != seat}
            votes, needed = len(voters & electors), len(electors) // 2 + 1
        if votes != needed:  # short of a majority (or decided by an earlier vote)
            return False, presenters.kick_counted(target.name, votes, needed)
        # The kicked member leaves the seat (``/ttr seat replace`` can seat them again).
        await self.vacate(game_id, seat, kind="kick")
        await self.storage.clear_absence(game_id, seat)
        await self._tell(game, target.user_id, presenters.kicked_you, game_id)
        return True, presenters.kicked_line(target.name)

    async def autopilot(self, game_id: int, user_id: int, on: bool) -> GameInfo:
        """A player hands their seat to a computer player, or takes it back."""
        async with self._locked(game_id):
            game = self._running(await self._load(game_id))
            seat = self._seat(game, user_id)
            controller = default_computer() if on else HUMAN
            if game.controller(seat).human != on:
                raise Refusal(presenters.autopilot_already(on))
            game, _ = await self._change_seat(
                game, seat, user_id=user_id, name=game.seats[seat].name, controller=controller,
                kind="autopilot", by_user=user_id, detail={"on": on})
            return game.info()

    async def resign(self, game_id: int, user_id: int) -> Ended | GameInfo:
        """A player leaves a running game: a computer player takes the seat, the routes stay.
        When no member would be left the game is abandoned instead."""
        async with self._locked(game_id):
            game = self._running(await self._load(game_id))
            return await self._vacate(game, self._seat(game, user_id), kind="resign",
                                      by_user=user_id)

    async def vacate(self, game_id: int, seat: int, *, kind: str,
                     by_user: int | None = None) -> Ended | GameInfo:
        """The member leaves ``seat`` (a kick, say: ``kind`` names why in the history); a
        computer player takes it. When no member would be left the game is abandoned."""
        async with self._locked(game_id):
            return await self._vacate(self._running(await self._load(game_id)), seat,
                                      kind=kind, by_user=by_user)

    async def _vacate(self, game: Game, seat: int, *, kind: str,
                      by_user: int | None) -> Ended | GameInfo:
        if not any(s.person for s in game.seats if s.seat != seat):
            return await self._end(game, "abandoned", by_user=by_user,
                                   detail={"reason": f"{kind}: no member left"})
        game, _ = await self._change_seat(
            game, seat, user_id=self._nobody(game), name=game.seats[seat].name,
            controller=default_computer(), kind=kind, by_user=by_user, detail={})
        return game.info()

    async def replace(self, game_id: int, by_user: int, *, admin: bool, seat: int | None,
                      user_id: int, name: str) -> tuple[GameInfo, int]:
        """The host or an admin hands a seat (by default the one nobody sits in) to a member
        who is not seated; the new player gets the hand privately. Returns the seat."""
        async with self._changing(game_id) as telling:
            game = self._running(await self._load(game_id))
            if by_user != game.row.host_id and not admin:
                raise Refusal(presenters.only_host(self._host_name(game), "replace players",
                                                   admins=True))
            if user_id <= 0 or game.seat_of(user_id) is not None:
                raise Refusal(presenters.ALREADY_SEATED)
            if seat is None:
                empty = [s.seat for s in game.seats if not s.person]
                if len(empty) != 1:
                    raise Refusal(presenters.WHICH_SEAT)
                seat = empty[0]
            if not 0 <= seat < len(game.seats):
                raise Refusal(presenters.WHICH_SEAT)
            old = game.seats[seat]
            game, news = await self._change_seat(
                game, seat, user_id=user_id, name=name, controller=HUMAN, kind="replace",
                by_user=by_user, detail={})
            with i18n.language(await self.storage.game_language(game.row)):
                lines = [presenters.replaced_line(old.name, name)]
            telling.update = await self._update(game, lines, dm_seats=[seat], board=False,
                                                news=news)
        if old.person:  # the member who sat there learns it from the bot, not by chance
            await self._tell(game, old.user_id, presenters.replaced_you, game_id, name)
        return game.info(), seat

    async def _tell(self, game: Game, user_id: int, text: Callable[..., str],
                    *args: object) -> None:
        """One private line to a member about ``game``, in their language (else the
        game's)."""
        if self.publisher is None:
            return
        chosen = (await self.storage.player_settings(user_id)).language
        with i18n.language(chosen or await self.storage.game_language(game.row)):
            line = text(*args)
        await self.publisher.tell(user_id, line)

    # -- ending ---------------------------------------------------------------------------

    async def end(self, game_id: int, user_id: int, *, admin: bool) -> Ended:
        """The host or an admin (Manage Server or Manage Channels) ends a lobby or a game."""
        async with self._locked(game_id):
            game = await self._load(game_id)
            if game.row.status not in ACTIVE:
                raise Refusal(presenters.ALREADY_OVER)
            if user_id != game.row.host_id and not admin:
                raise Refusal(presenters.only_host(self._host_name(game), "end the game",
                                                   admins=True))
            status: GameStatus = "ended" if game.state is not None else "cancelled"
            return await self._end(game, status, by_user=user_id, detail={"reason": "end"})

    async def vote_abandon(self, game_id: int, user_id: int) -> Vote:
        """One seated member's vote to abandon; a majority of the members seated ends it."""
        async with self._locked(game_id):
            game = self._running(await self._load(game_id))
            self._seat(game, user_id)
            voters = await self.storage.vote(game_id, "abandon", 0, user_id)
            vote = self._count(game, voters)
            if vote.passed:
                ended = await self._end(game, "abandoned", by_user=user_id,
                                        detail={"voters": list(vote.voters)})
                return dataclasses.replace(vote, ended=ended)
            return vote

    async def abandon_idle(self, game_id: int, idle_hours: float) -> Ended | None:
        """End a running game nobody has moved in for ``idle_hours`` (the bot played every
        turn meanwhile) as abandoned: it counts in no statistics. None if it is over."""
        async with self._locked(game_id):
            game = await self._load(game_id)
            if game.row.status != "running":
                return None
            return await self._end(game, "abandoned", by_user=None,
                                   detail={"reason": "idle", "hours": idle_hours})

    async def _end(self, game: Game, status: GameStatus, *, by_user: int | None,
                   detail: dict[str, object]) -> Ended:
        """Store the early end (call with the game's lock); the standings as they stand."""
        await self._rewrite(game.id, self.storage.end_game(
            game.id, status, by_user=by_user, detail=detail),
            lambda why: i18n._("Cannot end the game: {why}.", why=why))
        view = standings(game.state, game.names)
        reason = "vote" if "voters" in detail else str(detail.get("reason", ""))
        return Ended(game.id, game.row.channel_id, status, view, reason)

    # -- undo -------------------------------------------------------------------------------

    async def undo_needs_vote(self, game_id: int, user_id: int) -> tuple[bool, str, int]:
        """Whether undoing the last action needs the table's vote (it is someone else's, or
        it revealed something), what it would undo, and the version it is at."""
        game = self._running(await self._load(game_id))
        self._seat(game, user_id)
        row, _log = await self._last_in_effect(game_id)
        subject = presenters.undo_subject(game.row.map_id, game.seats[row.seat].name,
                                          ACTION_ADAPTER.validate_json(row.action))
        return not (row.user_id == user_id and reveals_nothing(row)), subject, game.row.version

    async def _last_in_effect(self, game_id: int) -> tuple[ActionRow, list[ActionRow]]:
        """The last action still in effect (what an undo takes back), and the whole log."""
        log = await self.storage.actions(game_id)
        rows = in_effect(log)
        if not rows:
            raise Refusal(presenters.NOTHING_TO_UNDO)
        return rows[-1], log

    async def undo(self, game_id: int, user_id: int, *, expect_version: int | None = None
                   ) -> Vote:
        """Take back the last action still in effect. Its player may, while it revealed
        nothing hidden (nobody acted since, or what they did was undone); anyone else asks
        the table, and a majority of the seated members undoes it. The undo is appended to
        the log (a new version: versions only grow), and the state is the log's replay."""
        async with self._changing(game_id) as telling:
            game = self._running(await self._load(game_id))
            self._seat(game, user_id)
            version = game.row.version
            if expect_version is not None and expect_version != version:
                raise Refusal(presenters.VOTE_STALE)
            row, log = await self._last_in_effect(game_id)
            free = row.user_id == user_id and reveals_nothing(row)
            vote = self._count(game, [user_id] if free else await self.storage.vote(
                game_id, "undo", version, user_id), version=version)
            action = ACTION_ADAPTER.validate_json(row.action)
            vote = dataclasses.replace(vote, subject=presenters.undo_subject(
                game.row.map_id, game.seats[row.seat].name, action))
            if not (free or vote.passed):
                return vote
            assert game.row.config is not None
            undo = ActionRow(version + 1, row.seat, UNDO_JSON, "[]", user_id, row.version)
            state = replay_log(game.row.config, [*log, undo])
            await self._rewrite(game_id, self.storage.record_undo(
                game_id, version=version, undoes=row, state=snapshot_json(state),
                user_id=user_id, detail={"voters": None if free else list(vote.voters)}),
                lambda why: i18n._("Cannot undo: {why}.", why=why))
            game = await self._load(game_id)
            game.unposted = []  # what the undone action caused is no longer news
            await self._plan(game)  # the undone version's reminders and timers are stale
            with i18n.language(await self.storage.game_language(game.row)):
                lines = [presenters.undone_line(game.row.map_id, game.seats[row.seat].name,
                                                action)]
            # The undone turn may have built something: the board is drawn again.
            telling.update = dataclasses.replace(await self._update(
                game, lines, dm_seats=engine.waiting_for(state), board=True), undo_at=version)
        return dataclasses.replace(vote, undone=True)

    # -- seats: small helpers --------------------------------------------------------------

    @staticmethod
    def _running(game: Game) -> Game:
        if game.row.status == "lobby":
            raise Refusal(presenters.NOT_STARTED)
        if game.row.status != "running":
            raise Refusal(presenters.ALREADY_OVER)
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

    @staticmethod
    def _count(game: Game, voters: Sequence[int], version: int = 0) -> Vote:
        members = {s.user_id: s.name for s in game.seats if s.person}
        yes = tuple(v for v in voters if v in members)
        return Vote(game.id, version, tuple(members[v] for v in yes), yes,
                    needed=len(members) // 2 + 1)

    async def first_delivery(self, interaction_id: int) -> bool:
        """False if this interaction was handled already (Discord delivered it twice)."""
        return await self.storage.first_delivery(interaction_id)

    # -- DMs ----------------------------------------------------------------------------

    async def dms_refused(self, user_id: int) -> bool:
        """Whether ``user_id`` refused a DM lately (then the channel mentions them instead)."""
        refused = await self.storage.dm_refused_at(user_id)
        return refused is not None and self.clock.now() - refused < DM_RETRY_SECONDS

    async def dm_refused(self, user_id: int) -> None:
        await self.storage.set_dm_refused(user_id, self.clock.now())

    async def dm_delivered(self, user_id: int) -> None:
        if await self.storage.dm_refused_at(user_id) is not None:
            await self.storage.set_dm_refused(user_id, None)
