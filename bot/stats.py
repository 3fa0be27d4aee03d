"""Statistics and ratings, derived from finished games only.

A finished game's final scores (``PublicView.final``) and claimed routes become
one ``game_results`` row per seat (``bot.storage``). That table is a cache: it
is filled on demand for games not in it yet (``sync``), and ``rebuild``
empties and refills it from the games' snapshots (or their logs). Games ended
early or abandoned are not finished, so they count neither in statistics nor
in ratings.

Ratings are openskill's Plackett-Luce model (free-for-all, 2-5 players, ties
allowed), played through the games in the order they ended. A seat a member
holds is rated as that member; a seat without a member as its computer player's
level ('computer:hard'). If one computer level plays several seats of a game,
only its best-placed seat is rated in that game.

``python -m bot.stats [--db PATH]`` rebuilds the derived table of a database (by default
``TTR_DB_PATH``), with the bot running or stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

import engine
from bot.service import GameService
from bot.storage import ResultRow, SeatRow, SqliteStorage
from engine import PublicView

log = logging.getLogger(__name__)

TOP_ROUTES = 3


def player_key(seat: SeatRow) -> tuple[str, int | None]:
    """Who a seat's result belongs to: ('user:<id>', id), or for a seat without a member
    ('computer:<level>', None), 'computer:auto' if only the automatic move played it."""
    if seat.user_id > 0:
        return f"user:{seat.user_id}", seat.user_id
    level = seat.controller.partition(":")[2] or seat.controller
    return f"computer:{level}", None


def is_computer(player: str) -> bool:
    return player.startswith("computer:")


def results_of(game_id: int, seats: Sequence[SeatRow], view: PublicView) -> list[ResultRow]:
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


async def sync(service: GameService) -> int:
    """Derive the results of finished games not in ``game_results`` yet; how many."""
    done = 0
    for game_id in await service.storage.unscored_games():
        info = await service.info(game_id)
        if info.state is None or info.state.phase != "game_over":
            log.warning("game %s is finished but its state is not: no statistics", game_id)
            continue
        view = engine.public_view(info.state)
        await service.storage.save_results(game_id, results_of(game_id, info.seats, view))
        done += 1
    return done


async def rebuild(service: GameService) -> int:
    """Throw the derived results away and derive them again from every finished game."""
    await service.storage.clear_results()
    return await sync(service)


@dataclass(frozen=True)
class Summary:
    """Statistics over some results (one player's, or a whole server's)."""

    games: int
    wins: int  # results ranked first
    per_map: dict[str, tuple[int, int]]  # map id -> (games, wins)
    average: float
    best: ResultRow
    tickets_completed: int
    tickets_failed: int
    longest: ResultRow  # the longest continuous path
    routes: list[tuple[str, int, int]]  # (map id, route id, times claimed), most claimed first


def summarize(results: Sequence[ResultRow]) -> Summary | None:
    if not results:
        return None
    per_map: dict[str, tuple[int, int]] = {}
    for map_id in sorted({r.map_id for r in results}):
        rows = [r for r in results if r.map_id == map_id]
        per_map[map_id] = (len({r.game_id for r in rows}), sum(r.rank == 1 for r in rows))
    claimed = Counter((r.map_id, route) for r in results for route in r.routes)
    routes = sorted(claimed.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_ROUTES]
    return Summary(
        games=len({r.game_id for r in results}),
        wins=sum(r.rank == 1 for r in results),
        per_map=per_map,
        average=sum(r.score for r in results) / len(results),
        best=max(results, key=lambda r: (r.score, -r.game_id)),
        tickets_completed=sum(r.tickets_completed for r in results),
        tickets_failed=sum(r.tickets_failed for r in results),
        longest=max(results, key=lambda r: (r.longest_path, -r.game_id)),
        routes=[(m, route, n) for (m, route), n in routes],
    )


@dataclass(frozen=True)
class Rated:
    """A player's rating after all their rated games."""

    player: str
    name: str  # the name of their latest game
    mu: float
    sigma: float
    games: int
    wins: int

    @property
    def ordinal(self) -> float:
        """The shown rating: a cautious estimate of skill (mu - 3 sigma), as openskill's."""
        return self.mu - 3 * self.sigma

    @property
    def computer(self) -> bool:
        return is_computer(self.player)


def ratings(results: Sequence[ResultRow]) -> list[Rated]:
    """Everyone's rating, best first, from results in the order the games ended."""
    model = PlackettLuce()
    current: dict[str, PlackettLuceRating] = {}
    names: dict[str, str] = {}
    games: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    by_game: dict[int, list[ResultRow]] = {}
    for r in results:
        by_game.setdefault(r.game_id, []).append(r)
    for rows in by_game.values():
        best: dict[str, ResultRow] = {}
        for r in sorted(rows, key=lambda r: (r.rank, r.seat)):
            best.setdefault(r.player, r)  # one seat per player: the best placed
        if len(best) < 2:
            continue
        players = sorted(best.values(), key=lambda r: r.seat)
        teams = [[current.get(r.player) or model.rating()] for r in players]
        rated = model.rate(teams, ranks=[float(r.rank) for r in players])
        for r, (new,) in zip(players, rated, strict=True):
            current[r.player] = new
            names[r.player] = r.name
            games[r.player] += 1
            wins[r.player] += r.rank == 1
    out = [Rated(p, names[p], rating.mu, rating.sigma, games[p], wins[p])
           for p, rating in current.items()]
    return sorted(out, key=lambda x: (-x.ordinal, -x.games, x.name))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.stats",
        description="Derive the statistics of every finished game again.")
    parser.add_argument("--db", default=os.environ.get("TTR_DB_PATH") or "./ttr.sqlite3",
                        help="the bot's SQLite database (default: TTR_DB_PATH or ./ttr.sqlite3)")
    args = parser.parse_args(argv)

    async def run() -> int:
        storage = await SqliteStorage.open(args.db)
        try:
            return await rebuild(GameService(storage))
        finally:
            await storage.close()

    print(f"derived the results of {asyncio.run(run())} finished games in {args.db}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
