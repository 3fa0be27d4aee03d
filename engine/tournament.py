"""``python -m engine.tournament``: computer players against each other, a JSON summary.

    python -m engine.tournament --map usa --seats hard,hard,hard,hard --games 200 --seed 1

Each seat is a level (easy, normal, hard), a reference opponent (racer, greedy,
planner, rusher, expert: see docs/computer-players.md), ``hard@N`` (*hard* searching N
worlds per decision, not against the clock: quick, reproducible screening) or
``package.module:factory``, a callable returning a ``engine.players.Player`` for a
seat. Seats rotate from game to game so nobody keeps the first turn. Every action goes through
``engine.apply``. Per level (its seats pooled): win rate (a shared win counts
as a fraction), mean score, tickets completed and kept per game, and the CPU
time per decision (building the observation included) in milliseconds.
Games are seeded ``seed * 100003 + game``, so runs with other seeds are other samples.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine import GameConfig, apply, new_game, waiting_for
from engine.events import Event
from engine.modules import playable_maps
from engine.phases import Phase
from engine.players import FACTORIES, PlayerFactory, observe
from engine.players.search import searching
from engine.scoring import final_scores


def load_factory(spec: str) -> PlayerFactory:
    """A seat spec: a name in ``FACTORIES``, ``hard@N`` (*hard* searching N worlds per
    decision instead of against the clock: quick, reproducible screening) or
    ``package.module:factory``."""
    if spec in FACTORIES:
        return FACTORIES[spec]
    name, at, worlds = spec.partition("@")
    if name == "hard" and at:
        if not worlds.isdigit() or int(worlds) < 1:
            raise ValueError(f"hard@N needs a whole number of worlds N >= 1, not {worlds!r}")
        n = int(worlds)
        return lambda seat: searching(n)
    module, sep, name = spec.partition(":")
    if not sep:
        raise ValueError(
            f"unknown player {spec!r}: use {', '.join(FACTORIES)} or package.module:factory"
        )
    factory: PlayerFactory = getattr(importlib.import_module(module), name)
    return factory


def play_game(
    map_id: str, specs: Sequence[str], factories: dict[str, PlayerFactory], seed: int
) -> dict[str, Any]:
    """One game; per seat its spec, score, win share, tickets and decision times."""
    state = new_game(
        GameConfig(map_id=map_id, players=[f"P{i}" for i in range(len(specs))], seed=seed)
    )
    players = [factories[spec](seat) for seat, spec in enumerate(specs)]
    times: list[list[float]] = [[] for _ in specs]
    history: list[Event] = []
    while state.phase != Phase.GAME_OVER:
        seat = waiting_for(state)[0]
        start = time.process_time()
        action = players[seat].choose(observe(state, seat, history=history, seed=seed))
        times[seat].append(time.process_time() - start)
        history.extend(apply(state, seat, action))
    final = final_scores(state)
    return {
        "turns": state.turn,
        "ending": final.reason,
        "seats": [
            {
                "spec": specs[p.seat],
                "score": p.total,
                "win": 1 / len(final.winners) if p.seat in final.winners else 0.0,
                "completed": p.tickets_completed,
                "kept": len(p.tickets),
                "times": times[p.seat],
            }
            for p in final.players
        ],
    }


def tournament(map_id: str, specs: Sequence[str], games: int, seed: int) -> dict[str, Any]:
    factories = {spec: load_factory(spec) for spec in specs}
    n = len(specs)
    rows: dict[str, list[dict[str, Any]]] = {spec: [] for spec in specs}
    winners: list[int] = []
    lengths: list[int] = []
    endings: Counter[str] = Counter()
    for g in range(games):
        rotated = [specs[(seat + g) % n] for seat in range(n)]
        result = play_game(map_id, rotated, factories, seed * 100_003 + g)
        lengths.append(result["turns"])
        endings[result["ending"]] += 1
        winners.append(max(s["score"] for s in result["seats"]))
        for s in result["seats"]:
            rows[s["spec"]].append(s)
    levels = {}
    for spec, seats in rows.items():
        times = [t * 1000 for s in seats for t in s["times"]]
        levels[spec] = {
            "seats": len(seats),
            "win_rate": round(sum(s["win"] for s in seats) / len(seats), 3),
            "mean_score": round(statistics.fmean(s["score"] for s in seats), 1),
            "tickets_completed": round(statistics.fmean(s["completed"] for s in seats), 2),
            "tickets_kept": round(statistics.fmean(s["kept"] for s in seats), 2),
            "decision_ms_median": round(statistics.median(times), 2),
            "decision_ms_p99": round(sorted(times)[int(0.99 * (len(times) - 1))], 1),
            "decision_ms_max": round(max(times), 1),
        }
    return {
        "map": map_id,
        "players": n,
        "games": games,
        "winner_mean_score": round(statistics.fmean(winners), 1),
        "mean_game_length": round(statistics.fmean(lengths), 1),
        "endings": dict(endings),
        "levels": levels,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--map", default="usa", choices=playable_maps())
    parser.add_argument(
        "--seats",
        default="hard,hard,hard,hard",
        help="comma-separated: easy, normal, hard, hard@N, racer, greedy, planner, rusher, "
        "expert or package.module:factory",
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    specs = [s.strip() for s in args.seats.split(",") if s.strip()]
    try:
        summary = tournament(args.map, specs, args.games, args.seed)
    except ValueError as exc:
        parser.error(str(exc))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
