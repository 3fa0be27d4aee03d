"""Standings kept as games finish: ratings, per-member tallies and turn speed, so that
``/ttr leaderboard`` and ``/ttr stats`` read only the rows they show, whatever the
server's history.

A ``Standings`` holds some rows of the standings tables (``bot.storage.api`` loads and saves
them) and folds finished games into them. A game's end folds that game into the rows it
touches (loaded first); a rebuild (``bot.stats.rebuild``) folds every finished game, in
the order they ended, into empty standings. Both run ``Standings.add``, so both give the
same tables. Counters (routes claimed, turn times) hold what was added: saving adds them
to the stored counts.

Rows are per server and scope: every map (``EVERY_MAP``) or one map, so a leaderboard or
statistics of one map are their own. Ratings are openskill's Plackett-Luce model
(free-for-all, 2-5 players, ties allowed). A seat a member holds is rated as that member;
a seat without a member as its computer player's level ('computer:hard'); if one level
plays several seats of a game, only its best-placed seat is rated there, and a game with
fewer than two rated players changes no rating. Tallies are kept for members and for the
whole server (``SERVER``).

Turn speed: a member's time to act is the time from the action that started their turn
(the engine's ``TurnStarted`` event) to their first action of that turn, when they played
it themselves (a turn the timer or a computer player played has no time; one the timer
played counts as timed out). Set-up choices, made by everyone at once, have no time. The
median is read from a histogram with four buckets per doubling (within 9 %), so what is
kept does not grow with the number of turns.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from openskill.models import PlackettLuce

from engine import PublicView
from engine.players import Controller

EVERY_MAP = ""  # the scope of all maps together
SERVER = ""  # the player whose tallies are the whole server's
BUCKETS_PER_DOUBLING = 4

# (server, map or EVERY_MAP, player or SERVER)
Key = tuple[int, str, str]

_MODEL = PlackettLuce()


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One seat's result in a finished game (the derived ``game_results`` table)."""

    game_id: int
    seat: int
    player: str  # 'user:<id>' or 'computer:<level>'
    user_id: int | None
    name: str
    score: int
    rank: int
    tickets_completed: int
    tickets_failed: int
    longest_path: int
    routes: tuple[int, ...]
    map_id: str = ""
    finished_at: float = 0.0


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """A seat's turns in one game: seconds to act in each turn played in person, and the
    turns the timer played."""

    waits: tuple[float, ...] = ()
    timeouts: int = 0


@dataclass(frozen=True, slots=True)
class FinishedGame:
    game_id: int
    guild_id: int
    map_id: str
    results: tuple[ResultRow, ...]
    turns: Mapping[int, TurnRecord] = field(default_factory=dict)  # by seat


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating after their rated games (``name``: that of their latest)."""

    name: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0

    @property
    def ordinal(self) -> float:
        """The shown rating: a cautious estimate of skill (mu - 3 sigma), as openskill's."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class Record:
    """A best figure and where it was set (the earliest game, on a tie)."""

    value: int
    game_id: int
    name: str

    def beaten_by(self, value: int, game_id: int) -> bool:
        return (value, -game_id) > (self.value, -self.game_id)


@dataclass(frozen=True, slots=True)
class Tally:
    """Totals over a member's (or the server's) finished games."""

    games: int
    wins: int  # results ranked first
    seats: int  # results (the server's: every seat of every game)
    score_sum: int
    best: Record
    tickets_completed: int
    tickets_failed: int
    longest: Record  # the longest continuous path
    timeouts: int  # turns the timer played

    @property
    def average(self) -> float:
        return self.score_sum / self.seats


class Seat(Protocol):
    """Who held a seat (``bot.storage.api.SeatRow``)."""

    @property
    def user_id(self) -> int: ...  # negative: nobody's (a computer player)

    @property
    def name(self) -> str: ...

    @property
    def controller(self) -> Controller: ...


def player_key(seat: Seat) -> tuple[str, int | None]:
    """Who a seat's result belongs to: ('user:<id>', id), or for a seat without a member
    ('computer:<level>', None), 'computer:auto' if only the automatic move played it."""
    if seat.user_id > 0:
        return f"user:{seat.user_id}", seat.user_id
    return f"computer:{seat.controller.level or seat.controller}", None


def is_computer(player: str) -> bool:
    return player.startswith("computer:")


def results_of(game_id: int, seats: Sequence[Seat], view: PublicView) -> list[ResultRow]:
    """One row per seat of a finished game, from its public view."""
    final = view.final
    if final is None:
        raise ValueError(f"game {game_id} has no final scores")
    routes: dict[int, list[int]] = {}
    for route, seat in sorted(view.claimed.items()):
        routes.setdefault(seat, []).append(route)
    out = []
    for p in final.players:
        player, user_id = player_key(seats[p.seat])
        out.append(ResultRow(
            game_id=game_id, seat=p.seat, player=player, user_id=user_id,
            name=seats[p.seat].name, score=p.total, rank=p.rank,
            tickets_completed=p.tickets_completed,
            tickets_failed=len(p.tickets) - p.tickets_completed,
            longest_path=p.longest_path, routes=tuple(routes.get(p.seat, ())),
            map_id=view.map_id))
    return out


def turn_bucket(seconds: float) -> int:
    return math.floor(BUCKETS_PER_DOUBLING * math.log2(max(seconds, 1.0)))


def median_seconds(counts: Mapping[int, int]) -> float | None:
    """The median of a turn-time histogram (its bucket's middle, geometrically)."""
    total = sum(counts.values())
    if not total:
        return None
    seen = 0
    for bucket in sorted(counts):
        seen += counts[bucket]
        if 2 * seen >= total:
            return float(2 ** ((bucket + 0.5) / BUCKETS_PER_DOUBLING))
    raise AssertionError("unreachable")


def turn_records(actions: Iterable[tuple[int, int | None, float, str | None]],
                 timed_out: Iterable[int]) -> dict[int, TurnRecord]:
    """Each seat's turns from a game's log, in order: (seat, who played it, when, its
    events as stored; None if they start nobody's turn), and the seats of the turns the
    timer played (a 'timeout' history row each)."""
    started: dict[int, float] = {}  # seat -> when their turn started, until they act
    waits: dict[int, list[float]] = {}
    for seat, user_id, when, events in actions:
        since = started.pop(seat, None)
        if since is not None and user_id is not None:
            waits.setdefault(seat, []).append(when - since)
        if events is not None:
            for event in json.loads(events):
                if event.get("type") == "TurnStarted":
                    started[int(event["seat"])] = when
    timeouts = Counter(timed_out)
    return {seat: TurnRecord(tuple(waits.get(seat, ())), timeouts[seat])
            for seat in sorted(waits.keys() | timeouts.keys())}


def _best_seats(results: Sequence[ResultRow]) -> list[ResultRow]:
    """One seat per player, the best placed, in seat order."""
    best: dict[str, ResultRow] = {}
    for r in sorted(results, key=lambda r: (r.rank, r.seat)):
        best.setdefault(r.player, r)
    return sorted(best.values(), key=lambda r: r.seat)


def _members(results: Sequence[ResultRow]) -> list[ResultRow]:
    return [r for r in results if r.user_id is not None]


class Standings:
    """Rows of the standings tables, and the games folded into them."""

    def __init__(self) -> None:
        self.ratings: dict[Key, Rating] = {}
        self.tallies: dict[Key, Tally] = {}
        # Added counts: (server, scope, player, map, route) -> times claimed, and
        # (server, scope, player, bucket) -> turns.
        self.routes: Counter[tuple[int, str, str, str, int]] = Counter()
        self.turn_times: Counter[tuple[int, str, str, int]] = Counter()

    @staticmethod
    def keys(game: FinishedGame) -> tuple[list[Key], list[Key]]:
        """The rating rows and tally rows that folding ``game`` reads and changes."""
        scopes = (EVERY_MAP, game.map_id)
        rated = _best_seats(game.results)
        ratings = [(game.guild_id, s, r.player) for s in scopes for r in rated] if len(
            rated) > 1 else []
        tallies = [(game.guild_id, s, p) for s in scopes
                   for p in (SERVER, *(r.player for r in _members(game.results)))]
        return ratings, tallies

    def add(self, game: FinishedGame) -> None:
        for scope in (EVERY_MAP, game.map_id):
            self._rate(game, scope)
            self._tally(game, scope, SERVER, game.results)
            for r in _members(game.results):
                self._tally(game, scope, r.player, [r])
            for r in game.results:
                for who in (SERVER, r.player) if r.user_id is not None else (SERVER,):
                    self.routes.update((game.guild_id, scope, who, game.map_id, route)
                                       for route in r.routes)
                turns = game.turns.get(r.seat)
                if turns is not None and r.user_id is not None:
                    self.turn_times.update((game.guild_id, scope, r.player, turn_bucket(w))
                                           for w in turns.waits)

    def _rate(self, game: FinishedGame, scope: str) -> None:
        players = _best_seats(game.results)
        if len(players) < 2:
            return
        keys = [(game.guild_id, scope, r.player) for r in players]
        now = [self.ratings.get(k) for k in keys]
        teams = [[_MODEL.rating() if r is None else _MODEL.rating(mu=r.mu, sigma=r.sigma)]
                 for r in now]
        rated = _MODEL.rate(teams, ranks=[float(r.rank) for r in players])
        for key, old, r, (new,) in zip(keys, now, players, rated, strict=True):
            self.ratings[key] = Rating(r.name, new.mu, new.sigma,
                                       (old.games if old else 0) + 1,
                                       (old.wins if old else 0) + (r.rank == 1))

    def _tally(self, game: FinishedGame, scope: str, player: str,
               results: Sequence[ResultRow]) -> None:
        key = (game.guild_id, scope, player)
        old = self.tallies.get(key)
        best = max(results, key=lambda r: (r.score, -r.seat))
        longest = max(results, key=lambda r: (r.longest_path, -r.seat))
        timeouts = sum(t.timeouts for r in results
                       if r.user_id is not None and (t := game.turns.get(r.seat)))
        new = Tally(
            games=1, wins=sum(r.rank == 1 for r in results), seats=len(results),
            score_sum=sum(r.score for r in results),
            best=Record(best.score, game.game_id, best.name),
            tickets_completed=sum(r.tickets_completed for r in results),
            tickets_failed=sum(r.tickets_failed for r in results),
            longest=Record(longest.longest_path, game.game_id, longest.name),
            timeouts=timeouts)
        if old is not None:
            new = replace(
                new, games=old.games + 1, wins=old.wins + new.wins, seats=old.seats + new.seats,
                score_sum=old.score_sum + new.score_sum,
                best=new.best if old.best.beaten_by(new.best.value, game.game_id) else old.best,
                tickets_completed=old.tickets_completed + new.tickets_completed,
                tickets_failed=old.tickets_failed + new.tickets_failed,
                longest=(new.longest if old.longest.beaten_by(new.longest.value, game.game_id)
                         else old.longest),
                timeouts=old.timeouts + new.timeouts)
        self.tallies[key] = new
