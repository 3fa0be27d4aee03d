"""The full game state: plain mutable Python data, with a JSON snapshot round trip.

A game is (config, seed, log); the state is what replaying the log gives (see
``engine.game.replay``), and the snapshot is a cache of it. Everything random comes from
``rng``, which is part of the snapshot.

Snapshots carry a format version (``SNAPSHOT_VERSION``); ``from_snapshot`` brings an
older one up to date through ``migrate_snapshot``, one step per version, so a stored
game's snapshot stays loadable when the format changes.

A config carries the rules version the game started under (``GameConfig.rules``). A rule
fix that would change how a logged game plays on bumps ``RULES_VERSION`` and keeps the
old behaviour behind ``state.config.rules``: a game replays, and plays on, with the rules
it started with, so a fix never silently changes an old game's log (issue 25 changed a
World deal). A config of a newer rules version than this engine's is refused.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.board import Board, board_for
from engine.phases import Phase

SNAPSHOT_VERSION = 3
# The rules new games play by; 1: the rules when games first recorded their version (every
# game stored before then is of rules 1). See the module's docstring.
RULES_VERSION = 1


class GameConfig(BaseModel):
    """What a game is started with: the map, the seated players in seat order, the seed,
    and the version of the rules it plays by."""

    model_config = ConfigDict(frozen=True)

    map_id: str
    players: list[str] = Field(min_length=1, max_length=5)
    seed: int
    rules: int = Field(RULES_VERSION, ge=1, le=RULES_VERSION)


class TunnelPending(BaseModel):
    """A tunnel claim waiting for its player: cards played, cards revealed, extra asked."""

    model_config = ConfigDict(frozen=True)

    seat: int
    route: int  # route index
    paid: list[int]
    color: int  # card index the tunnel was played in (LOCO: locomotives only)
    revealed: list[int]
    extra: int


class GameState:
    __slots__ = (
        "_rng",
        "_rng_state",
        "board",
        "closed",
        "config",
        "current",
        "deck",
        "discards",
        "ext",
        "final_cache",
        "first_player",
        "hands",
        "keep_min",
        "market",
        "n_players",
        "offered",
        "owner",
        "phase",
        "plan",
        "reason",
        "returned",
        "scores",
        "skips",
        "stations",
        "stations_left",
        "ticket_deck",
        "tickets",
        "trains",
        "tunnel",
        "turn",
        "turns_left",
        "version",
    )

    def __init__(self, config: GameConfig) -> None:
        board = board_for(config.map_id)
        n = len(config.players)
        self.n_players = n
        self.config = config
        self.board: Board = board
        self._rng: random.Random | None = random.Random(config.seed)
        self._rng_state: Any = None  # the RNG's state when it was last saved (see ``rng``)
        self.version = 0
        self.phase: Phase = Phase.CHOOSE_INITIAL_TICKETS
        self.turn = 0
        self.first_player = 0
        self.current = 0
        self.deck: list[int] = []  # top of the deck is the end of the list
        self.discards: list[int] = []
        self.market: list[int] = [-1] * board.rules.market_size  # -1: empty slot
        self.hands: list[list[int]] = [[0] * board.hand_kinds for _ in range(n)]
        self.trains = [board.rules.trains] * n
        self.scores = [0] * n  # public route points
        self.owner = [-1] * len(board.route_ids)  # seat per route index
        self.ticket_deck: list[int] = []  # ticket indexes; top is the end, bottom index 0
        self.tickets: list[list[int]] = [[] for _ in range(n)]
        self.offered: list[list[int]] = [[] for _ in range(n)]
        # Tickets each seat turned down, in order: its own knowledge (they left the game or
        # lie under the ticket deck, by the map's rules), shown only in its private view.
        self.returned: list[list[int]] = [[] for _ in range(n)]
        self.keep_min = [0] * n
        stations = board.rules.stations
        self.stations_left = [stations.per_player if stations else 0] * n
        self.stations: dict[int, int] = {}  # city index -> seat
        self.tunnel: TunnelPending | None = None
        # Turns still to play once the end is triggered; -1 until then.
        self.turns_left = -1
        self.skips = 0  # consecutive turns passed for want of any legal action
        self.reason: str | None = None  # why the game ended
        self.ext: dict[str, Any] = {}  # state of map rule modules (JSON-able)
        self.final_cache: Any = None
        self.closed: Any = None  # engine.claims.closed_routes' cache (derived from owner)
        self.plan: Any = None  # engine.hooks.plan_of's answer (one per map), once asked

    def copy(self) -> GameState:
        """An independent copy (RNG included) for search: applying actions to it leaves this
        state alone. Much cheaper than a snapshot round trip; board and config are shared
        (both immutable)."""
        new = GameState.__new__(GameState)
        for name in _SHARED:
            setattr(new, name, getattr(self, name))
        new.deck = self.deck.copy()
        new.discards = self.discards.copy()
        new.market = self.market.copy()
        new.hands = [hand.copy() for hand in self.hands]
        new.trains = self.trains.copy()
        new.scores = self.scores.copy()
        new.owner = self.owner.copy()
        new.ticket_deck = self.ticket_deck.copy()
        new.tickets = [t.copy() for t in self.tickets]
        new.offered = [t.copy() for t in self.offered]
        new.returned = [t.copy() for t in self.returned]
        new.keep_min = self.keep_min.copy()
        new.stations_left = self.stations_left.copy()
        new.stations = self.stations.copy()
        new.ext = _copy(self.ext)
        new._rng = None  # made from the saved state on first use: many copies never draw
        new._rng_state = self._saved_rng_state()
        return new

    @property
    def rng(self) -> random.Random:
        """The game's random number generator (every random event draws from it)."""
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random(0)
            rng.setstate(self._rng_state)
        self._rng_state = None  # the caller may draw: a saved state would go stale
        return rng

    def _saved_rng_state(self) -> Any:
        if self._rng_state is None:
            assert self._rng is not None
            self._rng_state = self._rng.getstate()
        return self._rng_state

    # Snapshot -----------------------------------------------------------------------------

    _PLAIN = (
        "version",
        "phase",
        "turn",
        "first_player",
        "current",
        "deck",
        "discards",
        "market",
        "n_players",
        "hands",
        "trains",
        "scores",
        "owner",
        "ticket_deck",
        "tickets",
        "offered",
        "returned",
        "keep_min",
        "stations_left",
        "turns_left",
        "skips",
        "reason",
        "ext",
    )

    def to_snapshot(self, *, shared: bool = False) -> dict[str, Any]:
        """The state as JSON-like data; ``shared``: its lists are the live state's own (for
        a caller that serialises it at once, as the bot does after every action)."""
        snap: dict[str, Any] = {"snapshot": SNAPSHOT_VERSION, "config": self.config.model_dump()}
        for name in self._PLAIN:
            value = getattr(self, name)
            snap[name] = value if shared else _copy(value)
        snap["phase"] = self.phase.value  # plain text, for any JSON writer
        snap["stations"] = [[c, s] for c, s in sorted(self.stations.items())]
        snap["tunnel"] = self.tunnel.model_dump() if self.tunnel else None
        version, internal, gauss = self._saved_rng_state()
        snap["rng"] = [version, list(internal), gauss]
        return snap

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any]) -> GameState:
        snap = migrate_snapshot(snap)
        state = cls(GameConfig.model_validate(snap["config"]))
        for name in cls._PLAIN:
            setattr(state, name, _copy(snap[name]))
        state.phase = Phase(snap["phase"])
        state.stations = {int(c): int(s) for c, s in snap["stations"]}
        state.tunnel = TunnelPending.model_validate(snap["tunnel"]) if snap["tunnel"] else None
        version, internal, gauss = snap["rng"]
        state._rng, state._rng_state = None, (version, tuple(internal), gauss)
        return state


# Immutable or plain values a copy may share with its original.
_SHARED = (
    "board",
    "closed",  # replaced, never changed in place
    "config",
    "current",
    "final_cache",
    "first_player",
    "n_players",
    "phase",
    "plan",
    "reason",
    "skips",
    "tunnel",
    "turn",
    "turns_left",
    "version",
)


def _copy(value: Any) -> Any:
    """A copy of JSON-like data, so a snapshot never shares lists with a live state."""
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def migrate_snapshot(snap: dict[str, Any]) -> dict[str, Any]:
    """``snap`` in today's format (``SNAPSHOT_VERSION``): each step of ``_MIGRATIONS`` takes
    one version to the next. ValueError for a version no step starts from (a newer bot's)."""
    while (version := snap.get("snapshot")) != SNAPSHOT_VERSION:
        step = _MIGRATIONS.get(version) if isinstance(version, int) else None
        if step is None:
            raise ValueError(f"unsupported snapshot version {version!r}")
        snap = step(snap)
    return snap


def _config_names_rules(snap: dict[str, Any]) -> dict[str, Any]:
    """1 → 2: the config names its rules version; every game before it played rules 1."""
    return {**snap, "snapshot": 2, "config": {**snap["config"], "rules": 1}}


def _returned_tickets(snap: dict[str, Any]) -> dict[str, Any]:
    """2 → 3: each seat's returned tickets are kept; a game stored before did not keep them
    (they start empty: a computer player then knows less of them, nothing else changes)."""
    return {**snap, "snapshot": 3, "returned": [[] for _ in range(snap["n_players"])]}


# Snapshot version -> the step to the next version.
_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _config_names_rules,
    2: _returned_tickets,
}
