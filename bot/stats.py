"""Statistics and ratings, derived from finished games only.

A finished game's final scores (``PublicView.final``) and claimed routes become one
``game_results`` row per seat (``bot.storage.api``), stored with the game's last action and
folded in the same transaction into the standings (``bot.records.standings``: ratings, tallies,
routes claimed, turn times), which is all that ``/ttr leaderboard`` and ``/ttr stats``
read. Games ended early or abandoned are not finished, so they count neither in
statistics nor in ratings.

Both are derived, never the source of truth: ``rebuild`` empties them and derives them
again from the games' snapshots (or their logs), in the order the games ended, giving
the same tables as the games' ends did. A database from before the standings existed
gets them at the next start (``build_if_stale``), from its stored results.

``python -m bot.stats [--db PATH]`` rebuilds them in a database (by default
``TTR_DB_PATH``), with the bot running or stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass

import engine
from bot.game.service import GameService
from bot.ops.database import open_storage
from bot.records.standings import (
    EVERY_MAP,
    SERVER,
    Rating,
    Record,
    Standings,
    is_computer,
    median_seconds,
    results_of,
)
from bot.storage.api import Storage
from engine.phases import Phase

log = logging.getLogger(__name__)

TOP_ROUTES = 3
LEADERS = 15
# ``bot_state`` key: 'built' once the standings were built from the stored results (a
# database from before the standings has no such row).
BUILT_KEY = "standings"
REBUILD_TRIES = 5


async def sync(service: GameService) -> int:
    """Derive the results of finished games not in ``game_results`` yet, in the order they
    ended, and fold them into the standings; how many."""
    done = 0
    for game_id in await service.storage.unscored_games():
        info = await service.info(game_id)
        if info.state is None or info.state.phase != Phase.GAME_OVER:
            log.warning("game %s is finished but its state is not: no statistics", game_id)
            continue
        view = engine.public_view(info.state)
        await service.storage.save_results(game_id, results_of(game_id, info.seats, view))
        done += 1
    return done


async def rebuild(service: GameService) -> int:
    """Throw the results and standings away and derive them again from every finished
    game."""
    await service.storage.clear_results()
    return await sync(service)


async def build_standings(storage: Storage) -> int:
    """The standings built afresh from the stored results (every finished game folded in
    the order they ended); how many games. Built outside any transaction, they replace
    the stored ones only if no game ended meanwhile (else built again)."""
    for _ in range(REBUILD_TRIES):
        games = await storage.finished_games()
        standings = Standings()
        for game in games:
            standings.add(game)
        if await storage.replace_standings(
                standings, results=sum(len(g.results) for g in games)):
            return len(games)
    raise RuntimeError(f"games kept ending while the standings were built ({REBUILD_TRIES} "
                       "tries): try again")


async def build_if_stale(service: GameService) -> None:
    """At start-up: a database from before the standings gets them, once, from its stored
    results and any finished game not derived yet (a new database: at once, from none)."""
    storage = service.storage
    if await storage.bot_state(BUILT_KEY) == "built":
        return
    derived = await sync(service)
    built = await build_standings(storage)
    await storage.set_bot_state(BUILT_KEY, "built")
    log.info("standings built from %d finished games (%d derived from their snapshots)",
             built, derived)


# -- what the commands show ---------------------------------------------------------------


@dataclass(frozen=True)
class TurnSpeed:
    """A member's time to act (median, in seconds; None before any turn) and the turns
    the timer played for them."""

    median: float | None
    timeouts: int


@dataclass(frozen=True)
class Summary:
    """Statistics of a member's (or a whole server's) finished games."""

    games: int
    wins: int  # results ranked first
    per_map: dict[str, tuple[int, int]]  # map id -> (games, wins)
    average: float
    best: Record
    tickets_completed: int
    tickets_failed: int
    longest: Record  # the longest continuous path
    routes: list[tuple[str, int, int]]  # (map id, route id, times claimed), most claimed first
    turns: TurnSpeed | None  # a member's; None for the server


@dataclass(frozen=True)
class Rated:
    """A player's rating after all their rated games."""

    player: str
    rating: Rating
    turns: TurnSpeed | None  # None for a computer player

    @property
    def computer(self) -> bool:
        return is_computer(self.player)


def _scope(map_id: str | None) -> str:
    return EVERY_MAP if map_id is None else map_id


async def summary(storage: Storage, guild_id: int, map_id: str | None,
                  user_id: int | None = None) -> Summary | None:
    """A member's statistics on a server (of one map), or the server's (no member)."""
    player = SERVER if user_id is None else f"user:{user_id}"
    scope = _scope(map_id)
    tallies = await storage.tallies(guild_id, player, map_id)
    tally = tallies.get(scope)
    if tally is None:
        return None
    turns = None
    if user_id is not None:
        times = await storage.turn_times(guild_id, scope, [player])
        turns = TurnSpeed(median_seconds(times.get(player, {})), tally.timeouts)
    return Summary(
        games=tally.games, wins=tally.wins,
        per_map={m: (t.games, t.wins) for m, t in tallies.items() if m != EVERY_MAP},
        average=tally.average, best=tally.best, tickets_completed=tally.tickets_completed,
        tickets_failed=tally.tickets_failed, longest=tally.longest,
        routes=await storage.top_routes(guild_id, scope, player, TOP_ROUTES), turns=turns)


async def leaderboard(storage: Storage, guild_id: int, map_id: str | None,
                      limit: int = LEADERS) -> list[Rated]:
    """The best rated players of a server (of one map), best first."""
    scope = _scope(map_id)
    leaders = await storage.leaders(guild_id, scope, limit)
    members = [p for p, _r, _t in leaders if not is_computer(p)]
    times = await storage.turn_times(guild_id, scope, members)
    return [Rated(p, rating, None if is_computer(p) else
                  TurnSpeed(median_seconds(times.get(p, {})), timeouts))
            for p, rating, timeouts in leaders]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.stats",
        description="Derive the statistics of every finished game again.")
    parser.add_argument("--db", default=os.environ.get("TTR_DB_PATH") or "./ttr.sqlite3",
                        help="the bot's database: an SQLite file or a PostgreSQL URL "
                             "(default: TTR_DB_PATH or ./ttr.sqlite3)")
    args = parser.parse_args(argv)

    async def run() -> int:
        storage = await open_storage(args.db)
        try:
            return await rebuild(GameService(storage))
        finally:
            await storage.close()

    print(f"derived the results of {asyncio.run(run())} finished games in {args.db}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
