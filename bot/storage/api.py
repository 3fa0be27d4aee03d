"""Persistence: games, seats, the append-only action log and state snapshots.

``Storage`` holds every query; ``bot.storage.sqlite.SqliteStorage`` (one aiosqlite
connection in WAL mode, the single writer) is the default backend,
``bot.storage.postgres.PostgresStorage`` the one several bot processes share; the schema's
migrations are in ``bot.storage.migrations``. Every write is one transaction; an
accepted action (log row + snapshot + game version) commits before the bot
answers, so a restart at any moment loses nothing. The snapshot is a cache: the
log replayed through the engine gives the same state, and ``actions`` is what a
rebuild reads. The log only grows: an undo is a row of its own (``record_undo``, the
version it takes back in ``undoes``), so a version is never used twice; ``in_effect``
reads the actions a stretch of the log leaves standing.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from pydantic import BaseModel

from bot.clock import Clock, SystemClock
from bot.i18n import Language
from bot.records.standings import (
    FinishedGame,
    Key,
    Rating,
    Record,
    ResultRow,
    Standings,
    Tally,
    turn_records,
)
from bot.settings.preferences import GameSettings, PlayerSettings, ServerSettings, Timing
from engine.actions import Undo
from engine.errors import Text
from engine.players import HUMAN, Controller

SettingsT = TypeVar("SettingsT", bound=BaseModel)
K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")
GameStatus = Literal["lobby", "running", "finished", "cancelled", "ended", "abandoned"]
ACTIVE: tuple[GameStatus, ...] = ("lobby", "running")
# A lobby nobody touched for this long no longer holds its channel.
LOBBY_IDLE_SECONDS = 24 * 3600
# Interaction ids are remembered this long (Discord's tokens live 15 minutes).
INTERACTION_MEMORY_SECONDS = 24 * 3600
# ... and the older ones dropped at most this often (each process).
INTERACTION_SWEEP_SECONDS = 600
# A claimed job is its worker's this long; then another process may take it over (the
# worker died). A running job's worker renews its claim a few times per lease
# (``renew_claim``), so a job may take longer; a dead worker's job waits at most this.
JOB_LEASE_SECONDS = 60.0

class StorageError(Exception):
    """A write that would break an invariant (busy channel, stale version, full lobby).

    ``text`` is the reason as a template with fields (a catalog message id, as an
    ``engine.errors.Text``), for the players' language; ``str(exc)`` is the English."""

    def __init__(self, message: str, /, **fields: object) -> None:
        self.text = Text(message, **fields)
        # (an operator's message may hold braces of its own: formatted only with fields)
        super().__init__(message.format(**fields) if fields else message)


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    guild_id: int | None
    channel_id: int
    status: GameStatus
    map_id: str
    max_players: int
    host_id: int
    config: str | None
    version: int
    posted_version: int


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    user_id: int  # negative: nobody's seat (a computer player added or left behind)
    name: str
    controller: Controller = HUMAN  # who plays it (stored as its text)

    def __post_init__(self) -> None:
        # Read from the database (or written by a test) as text: the one parse.
        object.__setattr__(self, "controller", Controller(self.controller))

    @property
    def person(self) -> bool:
        """Whether a member sits here (who may be on autopilot)."""
        return self.user_id > 0

    @property
    def human(self) -> bool:
        """Whether the member plays this seat themselves now."""
        return self.person and self.controller == HUMAN


@dataclass(frozen=True, slots=True)
class HistoryRow:
    version: int
    kind: str
    seat: int | None
    user_id: int | None
    detail: dict[str, object]
    created_at: float


JobKind = Literal["remind", "timeout", "computer", "order"]


@dataclass(frozen=True, slots=True)
class Job:
    """Work due at ``due_at`` for ``seat`` of a game while it is at ``version``."""

    kind: JobKind
    game_id: int
    seat: int
    version: int
    due_at: float
    attempt: int = 0  # reminders: how many were sent before this one
    id: int = 0  # 0 until stored


_JOB_COLUMNS = "kind, game_id, seat, version, due_at, attempt, id"


@dataclass(frozen=True, slots=True)
class JobPlan:
    """The jobs of a game's new version (``Storage.plan_jobs``): the ``carry`` seats still
    decide what they decided before (their jobs go on), ``jobs`` are added, and ``acted``
    (a player who acted in person) is back at the table."""

    carry: Sequence[int]
    jobs: Sequence[Job]
    acted: int | None = None


@dataclass(frozen=True, slots=True)
class OrderRow:
    """A standing order as stored (see the ``orders`` table)."""

    id: int
    seat: int
    user_id: int
    position: int
    spec: str  # an ``engine.orders.Order`` as JSON
    queued_turn: int
    played_turn: int | None
    played_version: int | None


_ORDER_COLUMNS = "id, seat, user_id, position, spec, queued_turn, played_turn, played_version"


@dataclass(frozen=True, slots=True)
class AwayRow:
    """A member away from all their games (see the ``away`` table)."""

    user_id: int
    back_at: float
    level: str  # the computer level that plays for them where their server allows


@dataclass(frozen=True, slots=True)
class WatcherRow:
    """A member following a game without a seat (see the ``watchers`` table)."""

    user_id: int
    thread_id: int | None  # None: by DM


@dataclass(frozen=True, slots=True)
class ActionRow:
    """One entry of a game's log: an action, or an undo (``undoes``: the version it takes
    back; its ``action`` is ``engine.Undo``'s, its seat the undone action's)."""

    version: int
    seat: int
    action: str
    events: str
    user_id: int | None = None  # who played it (None: the bot, for the seat's controller)
    undoes: int | None = None


def in_effect(rows: Sequence[ActionRow]) -> list[ActionRow]:
    """The rows of a stretch of a game's log whose actions are in effect: undo rows, and the
    rows they take back, left out. An undo row comes after the row it takes back, so a
    stretch that ends before an undo keeps what was in effect then. (The engine's
    ``in_effect`` reads a whole log, entry by entry; this reads the stored ``undoes``.)"""
    undone = {r.undoes for r in rows if r.undoes is not None}
    return [r for r in rows if r.undoes is None and r.version not in undone]


UNDO_JSON = Undo().model_dump_json()  # an undo row's ``action``

# SQL: the action rows (``actions a``) still in effect, for queries of whole logs.
_IN_EFFECT = ("a.undoes IS NULL AND NOT EXISTS (SELECT 1 FROM actions u "
              "WHERE u.game_id = a.game_id AND u.undoes = a.version)")


@dataclass(frozen=True, slots=True)
class PostRow:
    channel_id: int
    content: str
    message_id: int | None  # None: the intent is stored, the send was not confirmed


@dataclass(frozen=True, slots=True)
class TableRow:
    """A game's table message (see the ``table_messages`` table)."""

    channel_id: int
    message_id: int
    head: str
    line_id: int | None
    line_text: str
    version: int


_SAVE_SNAPSHOT = (
    "INSERT INTO snapshots (game_id, version, state) VALUES (?, ?, ?) "
    "ON CONFLICT (game_id) DO UPDATE SET version = excluded.version, state = excluded.state")

async def _advance(db: Tx, game_id: int, before: int, after: int, now: float, *,
                   status: str = "running") -> None:
    """Move a running game from version ``before`` to ``after``; if another writer got there
    first (or the game ended), the transaction fails and nothing is stored."""
    changed = await db.execute(
        "UPDATE games SET version = ?, updated_at = ?, status = ? "
        "WHERE id = ? AND version = ? AND status = 'running'",
        (after, now, status, game_id, before))
    if changed != 1:
        raise StorageError("game {game} is not at version {version}", game=game_id,
                           version=before)


_GAME_COLUMNS = (
    "id, guild_id, channel_id, status, map_id, max_players, host_id, config, version, "
    "posted_version"
)


_RESULT_COLUMNS = (
    "r.game_id, r.seat, r.player, r.user_id, r.name, r.score, r.rank, r.tickets_completed, "
    "r.tickets_failed, r.longest_path, r.routes, g.map_id, g.updated_at")


def _result(r: Sequence[Any]) -> ResultRow:
    return ResultRow(
        game_id=r[0], seat=r[1], player=r[2], user_id=r[3], name=r[4], score=r[5], rank=r[6],
        tickets_completed=r[7], tickets_failed=r[8], longest_path=r[9],
        routes=tuple(json.loads(r[10])), map_id=r[11], finished_at=r[12])


# The standings (``bot.records.standings``), emptied by a rebuild.
STANDINGS_TABLES = ("ratings", "tallies", "route_counts", "turn_times")
_RATING_COLUMNS = "name, mu, sigma, games, wins"
_TALLY_COLUMNS = (
    "games, wins, seats, score_sum, best_score, best_game, best_name, tickets_completed, "
    "tickets_failed, longest_path, longest_game, longest_name, timeouts")
# An action's events only where they start someone's turn (``bot.records.standings.turn_records``).
_TURN_EVENTS = "CASE WHEN events LIKE '%TurnStarted%' THEN events END"


def _rating(r: Sequence[Any]) -> Rating:
    return Rating(str(r[0]), float(r[1]), float(r[2]), int(r[3]), int(r[4]))


def _tally(r: Sequence[Any]) -> Tally:
    return Tally(
        games=int(r[0]), wins=int(r[1]), seats=int(r[2]), score_sum=int(r[3]),
        best=Record(int(r[4]), int(r[5]), str(r[6])), tickets_completed=int(r[7]),
        tickets_failed=int(r[8]), longest=Record(int(r[9]), int(r[10]), str(r[11])),
        timeouts=int(r[12]))


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


def _game(row: Sequence[object] | None) -> GameRow | None:
    return None if row is None else GameRow(*row)  # type: ignore[arg-type]


class Tx(Protocol):
    """One connection inside a transaction. Queries are written once, in the SQL both
    backends understand, with ``?`` parameters (the PostgreSQL backend numbers them).

    A transaction's body (``Storage._transact``) awaits nothing but these calls: SQLite's
    runs to its end in one go on the writer, so both backends refuse any other await
    with ``TransactionAwaited``, and the transaction is rolled back."""

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int:
        """Run one statement; how many rows it changed."""

    async def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None: ...

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> tuple[Any, ...] | None: ...

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]: ...


async def _nothing_held() -> None:
    pass


class TransactionAwaited(RuntimeError):
    """A transaction's body awaited something other than its ``Tx`` (see there)."""

    def __init__(self) -> None:
        super().__init__("a transaction's body awaited something other than its database")


class Storage(ABC):
    """What the bot stores and how, whichever database holds it: ``SqliteStorage`` (the
    default, one file, one process) or ``bot.storage.postgres.PostgresStorage`` (a server that
    several bot processes share). The queries live here; a backend supplies connections,
    transactions, migrations and its per-game lock."""

    # Whether several processes may use the database at once (their caches can go stale).
    shared: ClassVar[bool] = False
    # Rows read back from memory when only this process writes them (each action reads
    # them again): table messages by game, when users refused a DM.
    _ROWS_CACHED: ClassVar[int] = 20_000
    _tables: dict[int, TableRow | None]
    _dm_refusals: dict[int, float | None]
    _deliveries: dict[int, None]  # interaction ids lately delivered, oldest first

    def __init__(self) -> None:
        self._tables = {}
        self._dm_refusals = {}
        self._deliveries = {}

    def _remember(self, cache: dict[K, V], key: K, value: V) -> None:
        if self.shared:
            return
        # Kept in the order last written: what goes when it is full is the oldest, long
        # stored (a row still held back for the next transaction is among the newest).
        cache.pop(key, None)
        cache[key] = value
        if len(cache) > self._ROWS_CACHED:
            del cache[next(iter(cache))]
    # Constraint violations the driver raises (a busy channel, a member seated twice).
    _INTEGRITY_ERRORS: ClassVar[tuple[type[Exception], ...]] = ()
    # What stamps rows (created, updated, expired): the bot's clock, so a test's fake
    # clock ages lobbies and interactions as it ages everything else.
    clock: Clock = SystemClock()
    # How ``history`` is read in insertion order.
    _HISTORY_ORDER: ClassVar[str] = "rowid"
    # Appended to the SELECT that claims a job.
    _SKIP_LOCKED: ClassVar[str] = ""
    # Appended to a name in an ORDER BY: names in code point order, as Python sorts them.
    _BY_CODE_POINT: ClassVar[str] = ""

    @abstractmethod
    async def check(self) -> None:
        """At start-up: the database is sound and this process can write to it; raise
        ``StorageError`` saying what is wrong otherwise."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def backup(self, target: str) -> None:
        """A consistent copy of the live database in ``target`` (a new file)."""

    @abstractmethod
    async def schema_version(self) -> int: ...

    @abstractmethod
    async def migrate(self) -> None:
        """Bring the schema to the newest version, one versioned step at a time."""

    @abstractmethod
    def game_lock(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """Held around every change to one game (``GameService`` takes it inside its own
        in-memory lock): no other process changes the game meanwhile."""

    async def hold_publishing(self, game_id: int) -> Callable[[], Awaitable[None]]:
        """Take the right to publish ``game_id`` among the processes sharing the database
        (the service takes it before it lets go of the game's lock and keeps it until the
        update is out, so a game's versions go out one at a time, in order, and no two
        processes send the same post); returns what gives it back. One process per
        database: the service's in-memory lock is enough."""
        return _nothing_held

    @abstractmethod
    async def _transact(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        """Run ``body`` in one transaction: committed if it returns, rolled back if it
        raises. ``body`` awaits nothing but ``db``'s methods: SQLite runs it whole in its
        writer's thread, one trip there for the whole transaction."""

    async def _write(self, sql: str, args: Sequence[object] = ()) -> int:
        """One statement that is a transaction by itself; how many rows it changed."""
        async def body(db: Tx) -> int:
            return await db.execute(sql, args)
        return await self._transact(body)

    async def _write_later(self, sql: str, args: Sequence[object] = ()) -> None:
        """A statement whose loss in a crash is harmless (the bot finds out again what it
        would store): a backend may hold it back and run it in its next transaction."""
        await self._write(sql, args)

    async def _settle(self) -> None:  # noqa: B027 (nothing to do where nothing waits)
        """Run what ``_write_later`` holds back now, before a read that must see it."""

    @abstractmethod
    async def _one(self, sql: str, args: Sequence[object] = ()) -> Sequence[object] | None: ...

    @abstractmethod
    async def _all(self, sql: str, args: Sequence[object] = ()) -> list[Sequence[object]]: ...

    async def _few(self, sql: str, args: Sequence[object] = ()) -> list[Sequence[object]]:
        """A read of a few indexed rows, which a backend may answer on the event loop."""
        return await self._all(sql, args)

    # -- games and seats ----------------------------------------------------------

    async def create_game(
        self, *, guild_id: int | None, channel_id: int, map_id: str, max_players: int,
        host_id: int, host_name: str,
    ) -> GameRow:
        """Open a lobby; a lobby idle for ``LOBBY_IDLE_SECONDS`` in the channel expires first."""
        now = self.clock.now()
        try:
            async def body(db: Tx) -> int:
                await self._expire_lobbies(db, now, channel_id)
                created = await db.fetchone(
                    "INSERT INTO games (guild_id, channel_id, status, map_id, max_players, "
                    "host_id, created_at, updated_at) VALUES (?, ?, 'lobby', ?, ?, ?, ?, ?) "
                    "RETURNING id",
                    (guild_id, channel_id, map_id, max_players, host_id, now, now),
                )
                assert created is not None
                game_id = int(created[0])
                await db.execute(
                    "INSERT INTO seats (game_id, seat, user_id, name) VALUES (?, 0, ?, ?)",
                    (game_id, host_id, host_name),
                )
                return game_id
            game_id = await self._transact(body)
        except self._INTEGRITY_ERRORS:
            raise StorageError("this channel already has a game") from None
        game = await self.game(game_id)
        assert game is not None
        return game

    async def _expire_lobbies(self, db: Tx, now: float,
                              channel_id: int | None = None) -> list[int]:
        where = "status = 'lobby' AND updated_at < ?"
        args: tuple[object, ...] = (now - LOBBY_IDLE_SECONDS,)
        if channel_id is not None:
            where += " AND channel_id = ?"
            args += (channel_id,)
        expired = []
        for row in await db.fetchall(f"SELECT id FROM games WHERE {where}", args):
            game_id = int(row[0])
            # Only one process expires a lobby (another may be sweeping too).
            if await db.execute("UPDATE games SET status = 'cancelled', updated_at = ? "
                                "WHERE id = ? AND status = 'lobby'", (now, game_id)) != 1:
                continue
            await self._history(db, game_id, "expired", detail={"idle": LOBBY_IDLE_SECONDS})
            expired.append(game_id)
        return expired

    async def expire_lobbies(self) -> list[GameRow]:
        """Cancel every lobby idle for ``LOBBY_IDLE_SECONDS``; the games cancelled."""
        async def body(db: Tx) -> list[int]:
            return await self._expire_lobbies(db, self.clock.now())
        expired = await self._transact(body)
        return [game for game_id in expired if (game := await self.game(game_id)) is not None]

    async def next_lobby_expiry(self) -> float | None:
        """When the lobby idle longest will have been idle ``LOBBY_IDLE_SECONDS``."""
        row = await self._one("SELECT min(updated_at) FROM games WHERE status = 'lobby'")
        return None if row is None or row[0] is None else float(row[0]) + LOBBY_IDLE_SECONDS  # type: ignore[arg-type]

    async def game(self, game_id: int) -> GameRow | None:
        return await self._game_row(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?",
                                    (game_id,))

    async def active_game_id(self, channel_id: int) -> int | None:
        """The id of the channel's lobby or running game (each command looks it up)."""
        row = await self._one("SELECT id FROM games WHERE channel_id = ? "
                              "AND status IN ('lobby', 'running')", (channel_id,))
        return None if row is None else int(str(row[0]))

    async def active_game(self, channel_id: int) -> GameRow | None:
        return await self._game_row(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? "
            "AND status IN ('lobby', 'running')", (channel_id,))

    async def latest_game(self, channel_id: int) -> GameRow | None:
        return await self._game_row(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
            (channel_id,))

    async def games_with_status(self, status: GameStatus) -> list[GameRow]:
        rows = await self._game_rows(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = ? ORDER BY id", (status,))
        return [GameRow(*r) for r in rows]  # type: ignore[arg-type]

    async def unposted_games(self) -> list[GameRow]:
        """Started games whose last accepted actions were not (all) announced."""
        rows = await self._game_rows(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ('running', 'finished') "
            "AND posted_version < version ORDER BY id")
        return [GameRow(*r) for r in rows]  # type: ignore[arg-type]

    # Rows of ``games`` as this process wrote them: what it held back is run first (the
    # version posted, ``mark_posted``).

    async def _game_row(self, sql: str, args: Sequence[object]) -> GameRow | None:
        await self._settle()
        return _game(await self._one(sql, args))

    async def _game_rows(self, sql: str, args: Sequence[object] = ()
                         ) -> list[Sequence[object]]:
        await self._settle()
        return await self._all(sql, args)

    async def seats(self, game_id: int) -> list[SeatRow]:
        rows = await self._all(
            "SELECT seat, user_id, name, controller FROM seats WHERE game_id = ? ORDER BY seat",
            (game_id,))
        return [SeatRow(*r) for r in rows]  # type: ignore[arg-type]

    async def add_seat(self, game_id: int, user_id: int, name: str, *,
                       controller: Controller = HUMAN) -> None:
        """Seat a member, or (``user_id`` < 0, with a computer ``controller``) a computer."""
        async def body(db: Tx) -> None:
            row = await db.fetchone(
                "SELECT status, max_players, (SELECT count(*) FROM seats WHERE game_id = g.id), "
                "(SELECT coalesce(max(seat), -1) FROM seats WHERE game_id = g.id), "
                "(SELECT 1 FROM seats WHERE game_id = g.id AND user_id = ?) "
                "FROM games g WHERE id = ?", (user_id, game_id))
            if row is None or row[0] != "lobby":
                raise StorageError("this game is not open for joining")
            if row[4]:
                raise StorageError("you already have a seat in this game")
            if row[2] >= row[1]:
                raise StorageError("the game is full ({n} players)", n=row[1])
            await db.execute(
                "INSERT INTO seats (game_id, seat, user_id, name, controller) "
                "VALUES (?, ?, ?, ?, ?)",
                (game_id, row[3] + 1, user_id, name, str(controller)),
            )
            await db.execute("UPDATE games SET updated_at = ? WHERE id = ?",
                             (self.clock.now(), game_id))
        await self._transact(body)

    async def remove_seat(self, game_id: int, user_id: int) -> GameRow | None:
        """Leave a lobby; the host role passes on to a member, and a lobby without members
        (computer players do not count) is cancelled."""
        async def body(db: Tx) -> None:
            row = await db.fetchone(
                "SELECT status, host_id FROM games WHERE id = ?", (game_id,))
            if row is None or row[0] != "lobby":
                raise StorageError("the game has started; seats are fixed now")
            changed = await db.execute(
                "DELETE FROM seats WHERE game_id = ? AND user_id = ?", (game_id, user_id))
            if changed == 0:
                raise StorageError("you have no seat in this game")
            first = await db.fetchone(
                "SELECT user_id FROM seats WHERE game_id = ? AND user_id > 0 "
                "ORDER BY seat LIMIT 1", (game_id,))
            if first is None:
                await db.execute(
                    "UPDATE games SET status = 'cancelled', updated_at = ? WHERE id = ?",
                    (self.clock.now(), game_id))
            elif row[1] == user_id:
                await db.execute(
                    "UPDATE games SET host_id = ?, updated_at = ? WHERE id = ?",
                    (first[0], self.clock.now(), game_id))
        await self._transact(body)
        return await self.game(game_id)

    async def start_game(
        self, game_id: int, *, config: str, seats: Sequence[SeatRow], version: int, state: str,
    ) -> None:
        """Lobby -> running: fix the seat order, store the config and the first snapshot."""
        async def body(db: Tx) -> None:
            changed = await db.execute(
                "UPDATE games SET status = 'running', config = ?, version = ?, posted_version = ?, "
                "updated_at = ? WHERE id = ? AND status = 'lobby'",
                (config, version, version, self.clock.now(), game_id),
            )
            if changed != 1:
                raise StorageError("this game has already started")
            await db.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            await db.executemany(
                "INSERT INTO seats (game_id, seat, user_id, name, controller) "
                "VALUES (?, ?, ?, ?, ?)",
                [(game_id, s.seat, s.user_id, s.name, str(s.controller)) for s in seats],
            )
            await db.execute(
                _SAVE_SNAPSHOT,
                (game_id, version, state),
            )
        await self._transact(body)

    # -- the action log -----------------------------------------------------------

    async def record_action(
        self, game_id: int, *, seat: int, action: str, events: str, before: int, after: int,
        state: str, finished: bool, user_id: int | None = None, plan: JobPlan | None = None,
        timed_out: bool = False, results: Sequence[ResultRow] = (),
    ) -> None:
        """Append one accepted action and its snapshot atomically, with the jobs ``plan``
        gives the new version (``plan_jobs``). ``timed_out``: the turn timer played it
        (a 'timeout' history row). ``results``: the game's, when the action finished it,
        stored and folded into the standings in the same transaction.

        ``before`` is the version the action was applied to: if another writer got
        there first the transaction fails and nothing is stored.
        """
        now = self.clock.now()
        async def body(db: Tx) -> None:
            await _advance(db, game_id, before, after, now,
                           status="finished" if finished else "running")
            await db.execute(
                "INSERT INTO actions (game_id, version, seat, action, events, created_at, "
                "user_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, after, seat, action, events, now, user_id),
            )
            await db.execute(
                _SAVE_SNAPSHOT,
                (game_id, after, state),
            )
            if plan is not None:
                await self._plan(db, game_id, after, plan)
            if timed_out:
                await self._history(db, game_id, "timeout", seat=seat, detail={})
            if results:
                await self._save_results(db, game_id, results)
        await self._transact(body)

    async def snapshot(self, game_id: int) -> tuple[int, str] | None:
        row = await self._one("SELECT version, state FROM snapshots WHERE game_id = ?", (game_id,))
        return None if row is None else (int(row[0]), str(row[1]))  # type: ignore[call-overload]

    async def save_snapshot(self, game_id: int, version: int, state: str) -> None:
        await self._write(
            _SAVE_SNAPSHOT,
            (game_id, version, state),
        )

    async def actions(self, game_id: int, *, after: int = -1) -> list[ActionRow]:
        rows = await self._all(
            "SELECT version, seat, action, events, user_id, undoes FROM actions "
            "WHERE game_id = ? AND version > ? ORDER BY version", (game_id, after))
        return [ActionRow(*r) for r in rows]  # type: ignore[arg-type]

    async def last_person_action(self, game_id: int) -> float:
        """When a member last played an action of the game themselves (the bot's moves for
        timed-out turns and computer players do not count); the game's opening if never."""
        row = await self._one(
            "SELECT coalesce((SELECT max(created_at) FROM actions WHERE game_id = ? "
            "AND user_id IS NOT NULL), (SELECT created_at FROM games WHERE id = ?))",
            (game_id, game_id))
        assert row is not None and row[0] is not None, game_id
        return float(row[0])  # type: ignore[arg-type]

    async def record_undo(self, game_id: int, *, version: int, undoes: ActionRow,
                          state: str, user_id: int | None, detail: dict[str, object]) -> int:
        """Append an undo of ``undoes`` (the last action in effect) to the log as version
        ``version + 1``, with ``state`` (the replay of the log with it) as the snapshot, in
        one transaction; the game's votes to undo are over. The history keeps what was
        undone and by whom. Returns the history row's id."""
        new_version = version + 1

        async def body(db: Tx) -> int:
            await _advance(db, game_id, version, new_version, self.clock.now())
            await db.execute(
                "INSERT INTO actions (game_id, version, seat, action, events, created_at, "
                "user_id, undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, new_version, undoes.seat, UNDO_JSON, "[]", self.clock.now(), user_id,
                 undoes.version))
            await db.execute(_SAVE_SNAPSHOT, (game_id, new_version, state))
            await db.execute("DELETE FROM votes WHERE game_id = ? AND kind = 'undo'",
                             (game_id,))
            return await self._history(
                db, game_id, "undo", seat=undoes.seat, user_id=user_id,
                detail={**detail, "version": undoes.version, "action": undoes.action,
                        "played_by": undoes.user_id})
        return await self._transact(body)

    # -- seats changing hands, ends, votes, history ------------------------------------------

    async def change_seat(self, game_id: int, seat: int, *, user_id: int, name: str,
                          controller: Controller, kind: str, by_user: int | None,
                          detail: dict[str, object]) -> int:
        """Hand ``seat`` to a member or a controller, and say so in the history, atomically.
        Returns the history row's id."""
        async def body(db: Tx) -> int:
            row = await db.fetchone(
                "SELECT status FROM games WHERE id = ?", (game_id,))
            if row is None or row[0] not in ACTIVE:
                raise StorageError("the game is over")
            try:
                changed = await db.execute(
                    "UPDATE seats SET user_id = ?, name = ?, controller = ? "
                    "WHERE game_id = ? AND seat = ?",
                    (user_id, name, str(controller), game_id, seat))
            except self._INTEGRITY_ERRORS:
                raise StorageError("that member already has a seat in this game") from None
            if changed != 1:
                raise StorageError("there is no seat {n}", n=seat + 1)
            # A host who left the table passes the role on to the first member seated.
            await db.execute(
                "UPDATE games SET updated_at = ?, host_id = CASE WHEN host_id IN "
                "(SELECT user_id FROM seats WHERE game_id = ?) THEN host_id ELSE coalesce("
                "(SELECT user_id FROM seats WHERE game_id = ? AND user_id > 0 ORDER BY seat "
                "LIMIT 1), host_id) END WHERE id = ?",
                (self.clock.now(), game_id, game_id, game_id))
            return await self._history(
                db, game_id, kind, seat=seat, user_id=by_user,
                detail={**detail, "to_user": user_id, "controller": str(controller)})
        return await self._transact(body)

    async def end_game(self, game_id: int, status: GameStatus, *, by_user: int | None,
                       detail: dict[str, object]) -> None:
        """A lobby or running game ends early (``status``): the channel is free again."""
        async def body(db: Tx) -> None:
            changed = await db.execute(
                "UPDATE games SET status = ?, updated_at = ? WHERE id = ? "
                "AND status IN ('lobby', 'running')", (status, self.clock.now(), game_id))
            if changed != 1:
                raise StorageError("the game is over already")
            await db.execute("DELETE FROM votes WHERE game_id = ?", (game_id,))
            await self._history(db, game_id, status, user_id=by_user, detail=detail)
        await self._transact(body)

    async def _history(self, db: Tx, game_id: int, kind: str, *,
                       seat: int | None = None, user_id: int | None = None,
                       detail: dict[str, object]) -> int:
        """Add a history row; returns its number in the game's history (unique for good,
        rows are never deleted: a key for news that comes without a new game version, such
        as a seat changing hands or an undo)."""
        counted = await db.fetchone("SELECT count(*) FROM history WHERE game_id = ?",
                                    (game_id,))
        await db.execute(
            "INSERT INTO history (game_id, version, kind, seat, user_id, detail, created_at) "
            "VALUES (?, (SELECT version FROM games WHERE id = ?), ?, ?, ?, ?, ?)",
            (game_id, game_id, kind, seat, user_id, json.dumps(detail), self.clock.now()))
        return int(counted[0]) if counted else 0


    async def history(self, game_id: int) -> list[HistoryRow]:
        rows = await self._all(
            "SELECT version, kind, seat, user_id, detail, created_at FROM history "
            f"WHERE game_id = ? ORDER BY {self._HISTORY_ORDER}", (game_id,))
        return [HistoryRow(int(str(r[0])), str(r[1]), None if r[2] is None else int(str(r[2])),
                           None if r[3] is None else int(str(r[3])), json.loads(str(r[4])),
                           float(str(r[5]))) for r in rows]

    async def vote(self, game_id: int, kind: str, subject: int, user_id: int) -> list[int]:
        """Record one vote (again is harmless); everyone who voted so far."""
        await self._write(
            "INSERT INTO votes (game_id, kind, subject, user_id, created_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (game_id, kind, subject, user_id, self.clock.now()))
        return await self.votes(game_id, kind, subject)

    async def votes(self, game_id: int, kind: str, subject: int) -> list[int]:
        rows = await self._all(
            "SELECT user_id FROM votes WHERE game_id = ? AND kind = ? AND subject = ? "
            "ORDER BY created_at, user_id", (game_id, kind, subject))
        return [int(str(r[0])) for r in rows]

    async def clear_votes(self, game_id: int, kind: str) -> None:
        await self._write("DELETE FROM votes WHERE game_id = ? AND kind = ?", (game_id, kind))

    # -- interactions -------------------------------------------------------------------

    # When this process last dropped the interaction ids older than the memory.
    _interactions_swept: float = 0.0

    async def first_delivery(self, interaction_id: int) -> bool:
        """Remember an interaction; False if it was handled before (a repeated delivery).
        The old ids are dropped now and then, not each time."""
        now = self.clock.now()
        remember = ("INSERT INTO interactions (id, created_at) VALUES (?, ?) "
                    "ON CONFLICT DO NOTHING", (interaction_id, now))
        if self.shared:  # another process may take the same id: the insert decides
            new = await self._write(*remember) == 1
        else:
            # Only this process writes: the ids it saw lately are in memory, older ones
            # in the table. The row may wait for the next transaction, which is the
            # action's own when the interaction acts: lost in a crash, it goes with an
            # action that was lost too, and a delivery again acts once. The look-up is
            # answered on the loop: no second delivery comes between it and remembering.
            new = (interaction_id not in self._deliveries and await self._one(
                "SELECT 1 FROM interactions WHERE id = ?", (interaction_id,)) is None)
            if new:
                self._remember(self._deliveries, interaction_id, None)
                await self._write_later(*remember)
        if now - self._interactions_swept > INTERACTION_SWEEP_SECONDS:
            self._interactions_swept = now
            await self._write("DELETE FROM interactions WHERE created_at < ?",
                              (now - INTERACTION_MEMORY_SECONDS,))
        return new

    # -- records: listing games (bot.records) ----------------------------------------

    async def guild_games(self, guild_id: int, *, limit: int) -> list[tuple[GameRow, float]]:
        """A server's lobbies and running games first, then its latest other games, each
        with when it last changed."""
        rows = await self._game_rows(
            f"SELECT {_GAME_COLUMNS}, updated_at FROM games WHERE guild_id = ? "
            "ORDER BY status IN ('lobby', 'running') DESC, updated_at DESC, id DESC LIMIT ?",
            (guild_id, limit))
        return [(GameRow(*r[:-1]), float(r[-1])) for r in rows]  # type: ignore[arg-type]

    async def unscored_games(self) -> list[int]:
        """Finished games whose results are not in ``game_results`` yet, in the order they
        ended."""
        rows = await self._all(
            "SELECT id FROM games WHERE status = 'finished' AND NOT EXISTS "
            "(SELECT 1 FROM game_results r WHERE r.game_id = games.id) "
            "ORDER BY updated_at, id")
        return [int(str(r[0])) for r in rows]

    async def save_results(self, game_id: int, results: Sequence[ResultRow]) -> None:
        """Store a finished game's results and fold them into the standings, unless they
        are stored already (``bot.stats.sync``: the game's end stored them meanwhile)."""
        async def body(db: Tx) -> None:
            await self._save_results(db, game_id, results)
        await self._transact(body)

    async def _save_results(self, db: Tx, game_id: int, results: Sequence[ResultRow]) -> None:
        if await db.fetchone("SELECT 1 FROM game_results WHERE game_id = ?", (game_id,)):
            return
        await db.executemany(
            "INSERT INTO game_results (game_id, seat, player, user_id, name, score, rank, "
            "tickets_completed, tickets_failed, longest_path, routes) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(game_id, r.seat, r.player, r.user_id, r.name, r.score, r.rank,
              r.tickets_completed, r.tickets_failed, r.longest_path, json.dumps(r.routes))
             for r in results])
        row = await db.fetchone("SELECT guild_id, map_id FROM games WHERE id = ?", (game_id,))
        if row is None or row[0] is None:
            return  # a game outside a server is in no server's standings
        actions = await db.fetchall(
            f"SELECT seat, user_id, created_at, {_TURN_EVENTS} FROM actions a "
            f"WHERE game_id = ? AND {_IN_EFFECT} ORDER BY version", (game_id,))
        timed_out = await db.fetchall(
            "SELECT seat FROM history WHERE game_id = ? AND kind = 'timeout'", (game_id,))
        game = FinishedGame(game_id, int(row[0]), str(row[1]), tuple(results),
                            turn_records(actions, [int(r[0]) for r in timed_out]))
        await self._lock_standings(db)
        standings = await self._load_standings(db, *Standings.keys(game))
        standings.add(game)
        await self._save_standings(db, standings)

    async def _lock_standings(self, db: Tx) -> None:  # noqa: B027 (SQLite: nothing to do)
        """Held until the transaction ends: one game at a time is folded into the
        standings (SQLite's single writer does that already)."""

    async def _load_standings(self, db: Tx, ratings: Sequence[Key],
                              tallies: Sequence[Key]) -> Standings:
        """Standings holding the stored rows of ``ratings`` and ``tallies`` (all of one
        server), and no counts."""
        loaded = Standings()
        for keys, table, columns, into in (
                (ratings, "ratings", _RATING_COLUMNS, loaded.ratings),
                (tallies, "tallies", _TALLY_COLUMNS, loaded.tallies)):
            if not keys:
                continue
            scopes = sorted({k[1] for k in keys})
            players = sorted({k[2] for k in keys})
            rows = await db.fetchall(
                f"SELECT map_id, player, {columns} FROM {table} WHERE guild_id = ? "
                f"AND map_id IN ({_marks(scopes)}) AND player IN ({_marks(players)})",
                (keys[0][0], *scopes, *players))
            for r in rows:
                key = (keys[0][0], str(r[0]), str(r[1]))
                if key in keys:
                    into[key] = _rating(r[2:]) if table == "ratings" else _tally(r[2:])  # type: ignore[assignment]
        return loaded

    async def _save_standings(self, db: Tx, standings: Standings) -> None:
        """Write ``standings``' rows over the stored ones, and add its counts to theirs."""
        await db.executemany(
            f"INSERT INTO ratings (guild_id, map_id, player, {_RATING_COLUMNS}, ordinal) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, map_id, player) DO "
            "UPDATE SET name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, "
            "games = excluded.games, wins = excluded.wins, ordinal = excluded.ordinal",
            [(*key, r.name, r.mu, r.sigma, r.games, r.wins, r.ordinal)
             for key, r in standings.ratings.items()])
        await db.executemany(
            f"INSERT INTO tallies (guild_id, map_id, player, {_TALLY_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (guild_id, map_id, player) DO UPDATE SET "
            + ", ".join(f"{c} = excluded.{c}" for c in _TALLY_COLUMNS.split(", ")),
            [(*key, t.games, t.wins, t.seats, t.score_sum, t.best.value, t.best.game_id,
              t.best.name, t.tickets_completed, t.tickets_failed, t.longest.value,
              t.longest.game_id, t.longest.name, t.timeouts)
             for key, t in standings.tallies.items()])
        await db.executemany(
            "INSERT INTO route_counts (guild_id, map_id, player, route_map, route, n) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, map_id, player, route_map, route) "
            "DO UPDATE SET n = route_counts.n + excluded.n",
            [(*key, n) for key, n in standings.routes.items()])
        await db.executemany(
            "INSERT INTO turn_times (guild_id, map_id, player, bucket, n) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, map_id, player, bucket) "
            "DO UPDATE SET n = turn_times.n + excluded.n",
            [(*key, n) for key, n in standings.turn_times.items()])

    async def finished_games(self) -> list[FinishedGame]:
        """Every finished game of a server with its stored results and turns, in the
        order they ended (a rebuild of the standings folds them in that order)."""
        games: dict[int, FinishedGame] = {}
        for r in await self._all(
                f"SELECT {_RESULT_COLUMNS}, g.guild_id FROM game_results r "
                "JOIN games g ON g.id = r.game_id WHERE g.status = 'finished' "
                "AND g.guild_id IS NOT NULL ORDER BY g.updated_at, g.id, r.seat"):
            result = _result(r)
            game = games.setdefault(result.game_id, FinishedGame(
                result.game_id, int(str(r[-1])), result.map_id, ()))
            games[result.game_id] = replace(game, results=(*game.results, result))
        actions: dict[int, list[tuple[Any, ...]]] = {}
        for r in await self._all(
                f"SELECT a.game_id, a.seat, a.user_id, a.created_at, {_TURN_EVENTS} "
                "FROM actions a JOIN games g ON g.id = a.game_id WHERE g.status = 'finished' "
                f"AND g.guild_id IS NOT NULL AND {_IN_EFFECT} ORDER BY a.game_id, a.version"):
            actions.setdefault(int(str(r[0])), []).append(tuple(r[1:]))
        timed_out: dict[int, list[int]] = {}
        for game_id, seat in await self._all(
                "SELECT game_id, seat FROM history WHERE kind = 'timeout'"):
            timed_out.setdefault(int(str(game_id)), []).append(int(str(seat)))
        return [replace(g, turns=turn_records(actions.get(i, ()), timed_out.get(i, ())))
                for i, g in games.items()]

    async def replace_standings(self, standings: Standings, *, results: int) -> bool:
        """Put ``standings`` in place of the stored ones, built from ``results`` stored
        results: False (nothing changed) if that is no longer how many there are (a game
        ended meanwhile)."""
        async def body(db: Tx) -> bool:
            counted = await db.fetchone(
                "SELECT count(*) FROM game_results r JOIN games g ON g.id = r.game_id "
                "WHERE g.status = 'finished' AND g.guild_id IS NOT NULL")
            if counted is None or int(counted[0]) != results:
                return False
            await self._lock_standings(db)
            for table in STANDINGS_TABLES:
                await db.execute(f"DELETE FROM {table}")
            await self._save_standings(db, standings)
            return True
        return await self._transact(body)

    async def winners(self, game_ids: Sequence[int]) -> dict[int, list[str]]:
        """The names of the winners of those of ``game_ids`` with derived results."""
        if not game_ids:
            return {}
        rows = await self._all(
            f"SELECT game_id, name FROM game_results WHERE rank = 1 AND game_id IN "
            f"({_marks(game_ids)}) ORDER BY game_id, seat", tuple(game_ids))
        out: dict[int, list[str]] = {}
        for game_id, name in rows:
            out.setdefault(int(str(game_id)), []).append(str(name))
        return out

    async def clear_results(self) -> None:
        """Forget every game's results and the standings built from them."""
        async def body(db: Tx) -> None:
            for table in ("game_results", *STANDINGS_TABLES):
                await db.execute(f"DELETE FROM {table}")
        await self._transact(body)

    async def results(self, guild_id: int, map_id: str | None = None) -> list[ResultRow]:
        """A server's finished games' results (of one map), in the order the games ended."""
        rows = await self._all(
            f"SELECT {_RESULT_COLUMNS} FROM game_results r JOIN games g ON g.id = r.game_id "
            "WHERE g.guild_id = ? AND g.status = 'finished' "
            "AND (CAST(? AS TEXT) IS NULL OR g.map_id = ?) "
            "ORDER BY g.updated_at, g.id, r.seat", (guild_id, map_id, map_id))
        return [_result(r) for r in rows]

    # What ``/ttr leaderboard`` and ``/ttr stats`` read: a few rows each, on the event
    # loop (``_few``), never the server's history.

    async def leaders(self, guild_id: int, map_id: str, limit: int
                      ) -> list[tuple[str, Rating, int]]:
        """The best rated players of a server in a scope, best first: (player, rating,
        turns the timer played)."""
        rows = await self._few(
            f"SELECT r.player, {', '.join(f'r.{c}' for c in _RATING_COLUMNS.split(', '))}, "
            "coalesce(t.timeouts, 0) FROM ratings r LEFT JOIN tallies t ON "
            "t.guild_id = r.guild_id AND t.map_id = r.map_id AND t.player = r.player "
            "WHERE r.guild_id = ? AND r.map_id = ? "
            f"ORDER BY r.ordinal DESC, r.games DESC, r.name{self._BY_CODE_POINT} LIMIT ?",
            (guild_id, map_id, limit))
        return [(str(r[0]), _rating(r[1:6]), int(str(r[6]))) for r in rows]

    async def tallies(self, guild_id: int, player: str, map_id: str | None = None
                      ) -> dict[str, Tally]:
        """A member's (or the server's) tallies by scope: of ``map_id``, else of every
        map together (``EVERY_MAP``) and of each map played."""
        scope = "" if map_id is None else "AND map_id = ?"
        rows = await self._few(
            f"SELECT map_id, {_TALLY_COLUMNS} FROM tallies WHERE guild_id = ? "
            f"AND player = ? {scope} ORDER BY map_id",
            (guild_id, player, *(() if map_id is None else (map_id,))))
        return {str(r[0]): _tally(r[1:]) for r in rows}

    async def top_routes(self, guild_id: int, map_id: str, player: str, limit: int
                         ) -> list[tuple[str, int, int]]:
        """The routes claimed most: (map, route, times), most first."""
        rows = await self._few(
            "SELECT route_map, route, n FROM route_counts WHERE guild_id = ? AND map_id = ? "
            f"AND player = ? ORDER BY n DESC, route_map{self._BY_CODE_POINT}, route LIMIT ?",
            (guild_id, map_id, player, limit))
        return [(str(m), int(str(route)), int(str(n))) for m, route, n in rows]

    async def turn_times(self, guild_id: int, map_id: str, players: Sequence[str]
                         ) -> dict[str, dict[int, int]]:
        """Players' turn-time histograms (bucket -> turns) in a scope."""
        if not players:
            return {}
        rows = await self._few(
            "SELECT player, bucket, n FROM turn_times WHERE guild_id = ? AND map_id = ? "
            f"AND player IN ({_marks(players)})", (guild_id, map_id, *players))
        out: dict[str, dict[int, int]] = {}
        for player, bucket, n in rows:
            out.setdefault(str(player), {})[int(str(bucket))] = int(str(n))
        return out

    async def mark_posted(self, game_id: int, version: int) -> None:
        # Lost in a crash, the version is published again at start-up: what was sent is
        # found again (``post``, the table message's version), nothing is sent twice.
        await self._write_later(
            "UPDATE games SET posted_version = ? WHERE id = ? AND posted_version < ?",
            (version, game_id, version))

    # -- posts: idempotent channel messages, the table message, private threads -----

    async def post(self, game_id: int, version: int, target: str) -> PostRow | None:
        row = await self._one(
            "SELECT channel_id, content, message_id FROM posts "
            "WHERE game_id = ? AND version = ? AND target = ?", (game_id, version, target))
        return None if row is None else PostRow(*row)  # type: ignore[arg-type]

    async def post_intent(self, game_id: int, version: int, target: str, channel_id: int,
                          content: str) -> PostRow | None:
        """Record that a message is about to be sent (before sending it): None if this is
        the first time, else the row recorded before (a publish resumed after a crash)."""
        added = await self._write(
            "INSERT INTO posts (game_id, version, target, channel_id, content) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (game_id, version, target, channel_id, content))
        return None if added == 1 else await self.post(game_id, version, target)

    async def post_sent(self, game_id: int, version: int, target: str, message_id: int) -> None:
        # Lost in a crash, the sent message is found again (the intent's text in the
        # channel's latest messages) before anything is sent twice.
        await self._write_later(
            "UPDATE posts SET message_id = ? WHERE game_id = ? AND version = ? AND target = ?",
            (message_id, game_id, version, target))

    async def table_message(self, game_id: int) -> TableRow | None:
        if not self.shared and game_id in self._tables:
            return self._tables[game_id]
        row = await self._one(
            "SELECT channel_id, message_id, head, line_id, line_text, version "
            "FROM table_messages WHERE game_id = ?", (game_id,))
        table = None if row is None else TableRow(*row)  # type: ignore[arg-type]
        self._remember(self._tables, game_id, table)
        return table

    async def set_table_message(self, game_id: int, table: TableRow) -> None:
        self._tables.pop(game_id, None)  # whatever happens to the write below
        # Lost in a crash, the version is published again (``mark_posted`` is lost with
        # it): its posts are found again, the same table message is worked out and edited.
        await self._write_later(
            "INSERT INTO table_messages (game_id, channel_id, message_id, head, "
            "line_id, line_text, version) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (game_id) DO UPDATE SET channel_id = excluded.channel_id, "
            "message_id = excluded.message_id, head = excluded.head, "
            "line_id = excluded.line_id, line_text = excluded.line_text, "
            "version = excluded.version",
            (game_id, table.channel_id, table.message_id, table.head, table.line_id,
             table.line_text, table.version))
        self._remember(self._tables, game_id, table)

    async def player_thread(self, game_id: int, user_id: int) -> tuple[int, int | None] | None:
        row = await self._one(
            "SELECT thread_id, message_id FROM player_threads WHERE game_id = ? AND user_id = ?",
            (game_id, user_id))
        if row is None:
            return None
        return int(str(row[0])), None if row[1] is None else int(str(row[1]))

    async def set_player_thread(self, game_id: int, user_id: int, thread_id: int,
                                message_id: int | None) -> None:
        await self._write(
            "INSERT INTO player_threads (game_id, user_id, thread_id, message_id) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (game_id, user_id) DO UPDATE SET "
            "thread_id = excluded.thread_id, message_id = excluded.message_id",
            (game_id, user_id, thread_id, message_id))

    # -- users --------------------------------------------------------------------

    async def dm_refused_at(self, user_id: int) -> float | None:
        if not self.shared and user_id in self._dm_refusals:
            return self._dm_refusals[user_id]
        row = await self._one("SELECT dm_refused_at FROM users WHERE user_id = ?", (user_id,))
        when = None if row is None or row[0] is None else float(row[0])  # type: ignore[arg-type]
        self._remember(self._dm_refusals, user_id, when)
        return when

    async def set_dm_refused(self, user_id: int, when: float | None) -> None:
        self._dm_refusals.pop(user_id, None)
        await self._write(
            "INSERT INTO users (user_id, dm_refused_at) VALUES (?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET dm_refused_at = excluded.dm_refused_at",
            (user_id, when))
        self._remember(self._dm_refusals, user_id, when)

    # -- settings -------------------------------------------------------------------

    # Where each kind of settings document lives: (table, key column).
    _SETTINGS_HOMES: ClassVar[dict[type[BaseModel], tuple[str, str]]] = {
        ServerSettings: ("guild_settings", "guild_id"),
        PlayerSettings: ("users", "user_id"),
        GameSettings: ("game_settings", "game_id"),
    }

    # Settings read back from memory (each action reads several): only this process
    # writes them, unless the database is shared. The documents are frozen: callers share
    # them.
    _SETTINGS_CACHED: ClassVar[int] = 20_000
    _settings_cache: OrderedDict[tuple[type[BaseModel], int], BaseModel] | None = None

    async def _settings(self, kind: type[SettingsT], key: int | None) -> SettingsT:
        """The stored document of ``kind`` for ``key``; its defaults when none is stored."""
        if key is None:
            return kind()
        cache = None if self.shared else self._settings_cache
        found = None if cache is None else cache.get((kind, key))
        if found is not None:
            cache.move_to_end((kind, key))  # type: ignore[union-attr]
            return found  # type: ignore[return-value]
        table, column = self._SETTINGS_HOMES[kind]
        row = await self._one(f"SELECT settings FROM {table} WHERE {column} = ?", (key,))
        settings = (kind() if row is None or row[0] is None
                    else kind.model_validate_json(str(row[0])))
        self._remember_settings(key, settings)
        return settings

    def _remember_settings(self, key: int, settings: BaseModel) -> None:
        if self.shared:
            return
        if self._settings_cache is None:
            self._settings_cache = OrderedDict()
        self._settings_cache[(type(settings), key)] = settings
        while len(self._settings_cache) > self._SETTINGS_CACHED:
            self._settings_cache.popitem(last=False)

    async def _save_settings(self, key: int, settings: BaseModel) -> None:
        table, column = self._SETTINGS_HOMES[type(settings)]
        await self._write(
            f"INSERT INTO {table} ({column}, settings) VALUES (?, ?) "
            f"ON CONFLICT ({column}) DO UPDATE SET settings = excluded.settings",
            (key, settings.model_dump_json()))
        self._remember_settings(key, settings)

    async def server_settings(self, guild_id: int | None) -> ServerSettings:
        """A server's settings (the defaults for a server that set none, or a DM game)."""
        return await self._settings(ServerSettings, guild_id)

    async def save_server_settings(self, guild_id: int, settings: ServerSettings) -> None:
        await self._save_settings(guild_id, settings)

    async def player_settings(self, user_id: int) -> PlayerSettings:
        return await self._settings(PlayerSettings, user_id)

    async def save_player_settings(self, user_id: int, settings: PlayerSettings) -> None:
        await self._save_settings(user_id, settings)

    async def game_settings(self, game_id: int) -> GameSettings:
        """What was chosen for one game at ``/ttr new`` (None fields: the server's)."""
        return await self._settings(GameSettings, game_id)

    async def save_game_settings(self, game_id: int, settings: GameSettings) -> None:
        await self._save_settings(game_id, settings)

    async def game_language(self, game: GameRow) -> Language:
        """The language of a game's channel posts: chosen at ``/ttr new``, else its
        server's."""
        chosen = (await self.game_settings(game.id)).language
        return chosen or (await self.server_settings(game.guild_id)).language

    # -- standing orders (bot.orders) --------------------------------------------------

    async def orders(self, game_id: int, seat: int | None = None) -> list[OrderRow]:
        """A game's standing orders (one seat's, with ``seat``), in the order they play."""
        mine = "AND seat = ? " if seat is not None else ""
        # (every change of a game asks: a few indexed rows, read off the writer's thread)
        rows = await self._few(
            f"SELECT {_ORDER_COLUMNS} FROM orders WHERE game_id = ? {mine}"
            "ORDER BY seat, position, id", (game_id,) if seat is None else (game_id, seat))
        return [OrderRow(*r) for r in rows]  # type: ignore[arg-type]

    async def add_order(self, game_id: int, seat: int, user_id: int, spec: str, *,
                        queued_turn: int, most: int) -> bool:
        """Queue an order after the seat's others; False (nothing stored) if it has
        ``most`` of its player's already."""
        async def body(db: Tx) -> bool:
            row = await db.fetchone(
                "SELECT COUNT(*), MAX(position) FROM orders WHERE game_id = ? AND seat = ? "
                "AND user_id = ?", (game_id, seat, user_id))
            count, last = (0, None) if row is None else (int(row[0]), row[1])
            if count >= most:
                return False
            await db.execute(
                "INSERT INTO orders (game_id, seat, user_id, position, spec, queued_turn) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, seat, user_id, 0 if last is None else int(last) + 1, spec,
                 queued_turn))
            return True
        return await self._transact(body)

    async def replace_order(self, order_id: int, user_id: int, spec: str, *,
                            queued_turn: int) -> bool:
        """Put ``spec`` in the place of an order of ``user_id`` not begun yet."""
        return await self._write(
            "UPDATE orders SET spec = ?, queued_turn = ? WHERE id = ? AND user_id = ? "
            "AND played_turn IS NULL", (spec, queued_turn, order_id, user_id)) == 1

    async def cancel_order(self, order_id: int, user_id: int) -> bool:
        return await self._write("DELETE FROM orders WHERE id = ? AND user_id = ?",
                                 (order_id, user_id)) == 1

    async def begin_order(self, order_id: int, turn: int, version: int) -> bool:
        """Mark an order as played from ``version`` of ``turn`` on, before its first action
        is (durable before it is played); False if it is gone or was begun elsewhen."""
        return await self._write(
            "UPDATE orders SET played_turn = ?, played_version = ? WHERE id = ? "
            "AND (played_turn IS NULL OR (played_turn = ? AND played_version = ?))",
            (turn, version, order_id, turn, version)) == 1

    async def forget_orders(self, order_ids: Sequence[int]) -> None:
        """Remove orders played or dropped."""
        if order_ids:
            await self._write(f"DELETE FROM orders WHERE id IN ({_marks(order_ids)})",
                              tuple(order_ids))

    # -- jobs (bot.scheduler) ----------------------------------------------------------

    async def plan_jobs(self, game_id: int, version: int, *, carry: Sequence[int],
                        jobs: Sequence[Job], acted: int | None = None) -> None:
        """The game moved on to ``version``: plan its jobs in one transaction (``_plan``)."""
        async def body(db: Tx) -> None:
            await self._plan(db, game_id, version, JobPlan(carry, jobs, acted))
        await self._transact(body)

    async def _plan(self, db: Tx, game_id: int, version: int, plan: JobPlan) -> None:
        """Move the waiting jobs of the ``carry`` seats (still deciding the same thing) to
        ``version``, drop every job of another (older: versions only grow) version unless a
        worker holds it, add ``jobs`` (where that seat has no job of that
        kind at ``version`` yet) and clear ``acted``'s run of expired turns and the votes to
        kick them."""
        for seat in plan.carry:
            # A job of the same kind and attempt at ``version`` already wins.
            await db.execute(
                "UPDATE jobs SET version = ? WHERE game_id = ? AND seat = ? "
                "AND version <> ? AND done_at IS NULL AND claimed_at IS NULL "
                "AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.game_id = jobs.game_id "
                "AND j.seat = jobs.seat AND j.kind = jobs.kind AND j.attempt = jobs.attempt "
                "AND j.version = ?)",
                (version, game_id, seat, version, version))
        await db.execute(
            "DELETE FROM jobs WHERE game_id = ? AND version <> ? "
            "AND (done_at IS NOT NULL OR claimed_at IS NULL)", (game_id, version))
        # A seat that has a job of this kind at this version already (carried over, or
        # planned before a restart) keeps it: its reminders go on at their own pace.
        await db.executemany(
            "INSERT INTO jobs (kind, game_id, seat, version, due_at, attempt) "
            "SELECT CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS INTEGER), "
            "CAST(? AS INTEGER), CAST(? AS DOUBLE PRECISION), CAST(? AS INTEGER) "
            "WHERE NOT EXISTS (SELECT 1 FROM jobs "
            "WHERE kind = ? AND game_id = ? AND seat = ? AND version = ?)",
            [(j.kind, j.game_id, j.seat, j.version, j.due_at, j.attempt,
              j.kind, j.game_id, j.seat, j.version) for j in plan.jobs])
        if plan.acted is not None:  # back at the table: no run of expired turns, no kick
            await self._clear_absence(db, game_id, plan.acted)

    async def jobs(self, game_id: int, *, pending: bool = True) -> list[Job]:
        rows = await self._all(
            f"SELECT {_JOB_COLUMNS} FROM jobs WHERE game_id = ? "
            f"{'AND done_at IS NULL ' if pending else ''}ORDER BY due_at, id", (game_id,))
        return [Job(*r) for r in rows]  # type: ignore[arg-type]

    async def next_due(self) -> float | None:
        """When the earliest waiting job is due; a claimed one counts when its lease ends
        (its worker may have died)."""
        row = await self._one(
            "SELECT min(CASE WHEN claimed_at IS NULL THEN due_at ELSE claimed_at + ? END) "
            "FROM jobs WHERE done_at IS NULL", (JOB_LEASE_SECONDS,))
        return None if row is None or row[0] is None else float(row[0])  # type: ignore[arg-type]

    async def claim_job(self, now: float, worker: str) -> Job | None:
        """Take the earliest job due by ``now`` for ``worker``; no other worker gets it
        while its lease (``JOB_LEASE_SECONDS``) lasts. A job whose worker died unfinished
        is taken over once the lease ends: a stale job does nothing, so none acts twice.

        SQLite has one writer, so one transaction claims atomically; PostgreSQL does the
        same with ``SELECT ... FOR UPDATE SKIP LOCKED`` in that transaction.
        """
        async def body(db: Tx) -> Job | None:
            row = await db.fetchone(
                f"SELECT {_JOB_COLUMNS} FROM jobs WHERE done_at IS NULL "
                "AND (claimed_at IS NULL OR claimed_at < ?) "
                f"AND due_at <= ? ORDER BY due_at, id LIMIT 1{self._SKIP_LOCKED}",
                (now - JOB_LEASE_SECONDS, now))
            if row is None:
                return None
            job = Job(*row)
            await db.execute("UPDATE jobs SET claimed_at = ?, claimed_by = ? WHERE id = ?",
                             (now, worker, job.id))
            return job
        return await self._transact(body)

    async def finish_job(self, job: Job, now: float, *, then: Job | None = None) -> None:
        """Mark ``job`` done and, in the same transaction, plan the job that follows it."""
        async def body(db: Tx) -> None:
            await db.execute("UPDATE jobs SET done_at = ? WHERE id = ?", (now, job.id))
            if then is not None:
                await db.execute(
                    "INSERT INTO jobs (kind, game_id, seat, version, due_at, attempt) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (then.kind, then.game_id, then.seat, then.version, then.due_at, then.attempt))
        await self._transact(body)

    async def renew_claim(self, job: Job, now: float, worker: str) -> None:
        """``worker`` still runs ``job``: its lease starts again at ``now``."""
        await self._write("UPDATE jobs SET claimed_at = ? WHERE id = ? AND claimed_by = ? "
                          "AND done_at IS NULL", (now, job.id, worker))

    async def postpone_job(self, job: Job, due_at: float) -> None:
        """Give a claimed job back, due later (a reminder in the player's quiet hours)."""
        await self._write(
            "UPDATE jobs SET due_at = ?, claimed_at = NULL, claimed_by = NULL WHERE id = ?",
            (due_at, job.id))

    async def release_claims(self, worker: str) -> int:
        """At start-up: give back the unfinished jobs a stopped process claimed. With one
        process per database (SQLite) that is every claim; a shared database gives back
        only ``worker``'s own (a restart under the same name), the lease frees the rest.
        A job is only ever done once: a stale one does nothing."""
        mine = "AND claimed_by = ?" if self.shared else ""
        changed = await self._write(
            "UPDATE jobs SET claimed_at = NULL, claimed_by = NULL "
            f"WHERE done_at IS NULL AND claimed_at IS NOT NULL {mine}",
            (worker,) if self.shared else ())
        return int(changed)

    # -- absent players ----------------------------------------------------------------

    async def expiries(self, game_id: int) -> dict[int, int]:
        """Turns in a row each seat's timer expired (seats without any are left out)."""
        rows = await self._all("SELECT seat, in_a_row FROM expiries WHERE game_id = ?",
                               (game_id,))
        return {int(str(s)): int(str(n)) for s, n in rows}

    async def count_expiry(self, game_id: int, seat: int) -> int:
        async def body(db: Tx) -> int:
            await db.execute(
                "INSERT INTO expiries (game_id, seat, in_a_row) VALUES (?, ?, 1) "
                "ON CONFLICT (game_id, seat) DO UPDATE SET in_a_row = expiries.in_a_row + 1",
                (game_id, seat))
            row = await db.fetchone(
                "SELECT in_a_row FROM expiries WHERE game_id = ? AND seat = ?", (game_id, seat))
            assert row is not None
            return int(row[0])
        return await self._transact(body)

    async def clear_absence(self, game_id: int, seat: int) -> None:
        """Forget ``seat``'s run of expired turns and the votes to kick it."""
        async def body(db: Tx) -> None:
            await self._clear_absence(db, game_id, seat)
        await self._transact(body)

    @staticmethod
    async def _clear_absence(db: Tx, game_id: int, seat: int) -> None:
        await db.execute("DELETE FROM expiries WHERE game_id = ? AND seat = ?", (game_id, seat))
        await db.execute("DELETE FROM votes WHERE game_id = ? AND kind = 'kick' AND subject = ?",
                         (game_id, seat))

    async def timing(self, guild_id: int | None, game_id: int) -> Timing:
        """A game's reminder delay, turn timer and kick threshold (its own, else its server's)."""
        return Timing.of(await self.server_settings(guild_id), await self.game_settings(game_id))

    # -- away from all games (bot.seats.away) ----------------------------------------------

    async def set_away(self, user_id: int, back_at: float, level: str) -> None:
        """``user_id`` is away until ``back_at`` (a new absence replaces the one before)."""
        async def body(db: Tx) -> None:
            await db.execute("DELETE FROM away WHERE user_id = ?", (user_id,))
            await db.execute("INSERT INTO away (user_id, back_at, level) VALUES (?, ?, ?)",
                             (user_id, back_at, level))
        await self._transact(body)

    async def away(self, user_ids: Sequence[int]) -> dict[int, AwayRow]:
        """The absences of ``user_ids`` (every change of a game asks: a few keyed rows)."""
        people = [u for u in user_ids if u > 0]
        if not people:
            return {}
        rows = await self._few(f"SELECT user_id, back_at, level FROM away WHERE user_id IN "
                               f"({_marks(people)})", tuple(people))
        return {int(r[0]): AwayRow(int(r[0]), float(r[1]), str(r[2])) for r in rows}  # type: ignore[arg-type, call-overload]

    async def end_away(self, user_id: int, *, due_by: float | None = None) -> bool:
        """Remove ``user_id``'s absence (with ``due_by``: only one over by then); False if
        there was none (another process, or an earlier click, ended it)."""
        if due_by is None:
            return await self._write("DELETE FROM away WHERE user_id = ?", (user_id,)) == 1
        return await self._write("DELETE FROM away WHERE user_id = ? AND back_at <= ?",
                                 (user_id, due_by)) == 1

    async def aways_over(self, now: float) -> list[int]:
        """The members whose absence is over by ``now``."""
        rows = await self._all("SELECT user_id FROM away WHERE back_at <= ? ORDER BY back_at",
                               (now,))
        return [int(r[0]) for r in rows]  # type: ignore[call-overload]

    async def next_return(self) -> float | None:
        """When the earliest absence is over."""
        row = await self._one("SELECT min(back_at) FROM away")
        return None if row is None or row[0] is None else float(row[0])  # type: ignore[arg-type]

    async def member_games(self, user_id: int) -> list[int]:
        """The running games where ``user_id`` holds a seat, oldest first."""
        rows = await self._all(
            "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE s.user_id = ? AND g.status = 'running' ORDER BY g.id", (user_id,))
        return [int(r[0]) for r in rows]  # type: ignore[call-overload]

    async def reset_jobs(self, game_id: int, seat: int, kind: str, due_at: float) -> None:
        """Make the seat's waiting jobs of ``kind`` due at ``due_at`` (its player is back:
        their reminders and timer start afresh)."""
        await self._write(
            "UPDATE jobs SET due_at = ? WHERE game_id = ? AND seat = ? AND kind = ? "
            "AND done_at IS NULL AND claimed_at IS NULL", (due_at, game_id, seat, kind))

    # -- watchers (bot.seats.watch) ---------------------------------------------------------

    async def watchers(self, game_id: int) -> list[WatcherRow]:
        rows = await self._few("SELECT user_id, thread_id FROM watchers WHERE game_id = ? "
                               "ORDER BY user_id", (game_id,))
        return [WatcherRow(int(r[0]), None if r[1] is None else int(r[1]))  # type: ignore[call-overload]
                for r in rows]

    async def add_watcher(self, game_id: int, user_id: int, thread_id: int | None, *,
                          most: int) -> bool:
        """Follow the game; False (nothing stored) if it has ``most`` watchers already."""
        async def body(db: Tx) -> bool:
            row = await db.fetchone("SELECT COUNT(*) FROM watchers WHERE game_id = ?",
                                    (game_id,))
            if row is not None and int(row[0]) >= most:
                return False
            await db.execute("INSERT INTO watchers (game_id, user_id, thread_id) "
                             "VALUES (?, ?, ?)", (game_id, user_id, thread_id))
            return True
        return await self._transact(body)

    async def remove_watcher(self, game_id: int, user_id: int) -> bool:
        return await self._write("DELETE FROM watchers WHERE game_id = ? AND user_id = ?",
                                 (game_id, user_id)) == 1

    # -- installation state ---------------------------------------------------------------

    async def bot_state(self, key: str) -> str | None:
        row = await self._one("SELECT value FROM bot_state WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    async def set_bot_state(self, key: str, value: str) -> None:
        await self._write(
            "INSERT INTO bot_state (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
