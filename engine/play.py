"""``python -m engine.play``: a full computer-driven game on a chosen map, then its scores.

Until the Discord bot runs a game, this is the quickest way to see the
engine play: every action goes through ``apply`` with all its checks.
"""

from __future__ import annotations

import argparse
import random
import sys

from engine import GameConfig, apply, new_game, public_view, waiting_for
from engine.agents import random_action
from engine.events import GameEnded, LastRound, RouteClaimed, StationBuilt
from engine.modules import playable_maps

NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--map", default="usa", choices=playable_maps())
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true", help="print only the final scores")
    args = parser.parse_args(argv)
    try:
        state = new_game(
            GameConfig(map_id=args.map, players=list(NAMES[: args.players]), seed=args.seed)
        )
    except ValueError as exc:
        parser.error(str(exc))
    board = state.board
    rng = random.Random(args.seed)
    while state.phase != "game_over":
        seat = waiting_for(state)[0]
        for event in apply(state, seat, random_action(state, seat, rng)):
            if args.quiet:
                continue
            who = state.config.players[event.seat]
            if isinstance(event, RouteClaimed):
                route = board.route_index[event.route]
                print(
                    f"turn {state.turn:3}  {who} claims {board.route_label(route)} "
                    f"for {event.points}"
                )
            elif isinstance(event, StationBuilt):
                print(
                    f"turn {state.turn:3}  {who} builds a station in "
                    f"{board.city_names[board.city_index[event.city]]}"
                )
            elif isinstance(event, LastRound):
                print(f"turn {state.turn:3}  {who} has few trains left: last round")
            elif isinstance(event, GameEnded):
                print(f"game over after {state.turn} turns ({event.reason})")
    final = public_view(state).final
    assert final is not None
    print(f"\n{board.map.name}, seed {args.seed}: final scores")
    print(
        f"{'':6}{'routes':>7}{'tickets':>9}{'done':>6}{'path':>6}{'bonus':>7}{'stations':>10}"
        f"{'total':>7}"
    )
    for p in sorted(final.players, key=lambda p: p.rank):
        tickets = sum(t.points for t in p.tickets)
        bonus = p.longest_path_bonus + p.most_tickets_bonus
        print(
            f"{p.rank}. {p.name:<4}{p.routes:7}{tickets:9}{p.tickets_completed:6}"
            f"{p.longest_path:6}{bonus:7}{p.unused_stations_bonus:10}{p.total:7}"
        )
    for p in final.players:
        if p.extras:
            print(f"   {p.name}: " + ", ".join(f"{e} {e.points:+}" for e in p.extras))
    print("winner: " + ", ".join(state.config.players[s] for s in final.winners))
    return 0


if __name__ == "__main__":
    sys.exit(main())
