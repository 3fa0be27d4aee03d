"""``python -m engine.play``: a full game of computer players on a chosen map, then its scores.

The quickest way to see the engine play without Discord: the bot's computer players
(``--level``, default normal) play every seat, and every action goes through ``apply``
with all its checks. ``--level random`` plays uniformly random legal actions instead (the
engine's stress test: scores go negative, tickets fail).
"""

from __future__ import annotations

import argparse
import random
import sys

from engine import GameConfig, apply, new_game, public_view, waiting_for
from engine.agents import random_action
from engine.events import Event, GameEnded, LastRound, RouteClaimed, StationBuilt
from engine.modules import playable_maps
from engine.phases import Phase
from engine.players import LEVELS, choose_action

NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--map", default="usa", choices=playable_maps())
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="normal", choices=[*LEVELS, "random"],
                        help="the computer players' level (random: random legal actions)")
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
    history: list[Event] = []
    while state.phase != Phase.GAME_OVER:
        seat = waiting_for(state)[0]
        action = (random_action(state, seat, rng) if args.level == "random" else
                  choose_action(args.level, state, seat, history=history, seed=args.seed))
        events = apply(state, seat, action)
        history += events
        for event in events:
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
    stations = board.map.rules.stations is not None  # the column only where there are any
    print(f"{'':6}{'routes':>7}{'tickets':>9}{'done':>6}{'path':>6}{'bonus':>7}"
          + (f"{'stations':>10}" if stations else "") + f"{'total':>7}")
    for p in sorted(final.players, key=lambda p: p.rank):
        tickets = sum(t.points for t in p.tickets)
        bonus = p.longest_path_bonus + p.most_tickets_bonus
        print(f"{p.rank}. {p.name:<4}{p.routes:7}{tickets:9}{p.tickets_completed:6}"
              f"{p.longest_path:6}{bonus:7}"
              + (f"{p.unused_stations_bonus:10}" if stations else "") + f"{p.total:7}")
    for p in final.players:
        if p.extras:
            print(f"   {p.name}: " + ", ".join(f"{e} {e.points:+}" for e in p.extras))
    print("winner: " + ", ".join(state.config.players[s] for s in final.winners))
    return 0


if __name__ == "__main__":
    sys.exit(main())
