"""Final scoring: routes, tickets, stations, bonuses, tie-breakers."""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from engine.board import Board
from engine.extras import ExtraPoints
from engine.graph import longest_trail, roots, trail_in_order
from engine.hooks import rule_modules
from engine.phases import GAME_OVER
from engine.state import GameState


class _Scores(BaseModel):
    model_config = ConfigDict(frozen=True)


class TicketResult(_Scores):
    id: int
    cities: list[str]
    points: int  # signed: + completed, - failed


class PlayerScore(_Scores):
    seat: int
    name: str
    routes: int
    tickets: list[TicketResult]
    tickets_completed: int
    longest_path: int
    longest_path_bonus: int
    most_tickets_bonus: int
    stations_used: int
    unused_stations_bonus: int
    extras: list[ExtraPoints] = []  # the map's own points (e.g. "PRR shares (1st)")
    total: int
    rank: int  # 1 = winner; equal ranks share the place


class FinalScores(_Scores):
    players: list[PlayerScore]
    winners: list[int]  # seats
    reason: Literal["trains", "stalled"]


def _owned(state: GameState) -> list[list[int]]:
    """Per seat, the routes it owns (one pass over the owners)."""
    owned: list[list[int]] = [[] for _ in range(state.n_players)]
    for r, s in enumerate(state.owner):
        if s >= 0:
            owned[s].append(r)
    return owned


def _network(
    state: GameState, seat: int, own: list[int] | None = None
) -> list[tuple[int, int]]:
    """Graph edges of ``seat``'s network for tickets: own routes (``own`` if known) plus any
    routes the map's modules lend (Europe's stations)."""
    board = state.board
    routes = [r for r, s in enumerate(state.owner) if s == seat] if own is None else [*own]
    for module in rule_modules(state):
        routes += module.borrowed_routes(state, seat)
    return [(board.r_na[r], board.r_nb[r]) for r in routes]


@cache  # per board (one per map, kept; it hashes by identity)
def _plain_tickets(board: Board) -> tuple[tuple[int, int, int, int] | None, ...]:
    """Per ticket of ``board``: (node, node, points, fail points) where it joins two
    cities of one graph node each (most tickets: scored by their roots alone), else None."""
    out: list[tuple[int, int, int, int] | None] = []
    for ticket in board.map.tickets:
        nodes = [board.city_nodes[board.city_index[c]] for c in ticket.cities]
        plain = len(nodes) == 2 and len(nodes[0]) == 1 and len(nodes[1]) == 1
        out.append(
            (nodes[0][0], nodes[1][0], ticket.points, ticket.fail_points) if plain else None
        )
    return tuple(out)


def ticket_points(
    state: GameState, seat: int, own: list[int] | None = None
) -> dict[int, int]:
    """Signed points of each of ``seat``'s tickets as things stand (ticket index -> points).

    A tour ticket (3+ cities) scores its full value when one trail visits its cities in
    the printed order, its any-order value when they are merely all joined.
    """
    board = state.board
    edges = _network(state, seat, own)
    root = roots(board.n_nodes, edges)
    plain = _plain_tickets(board)
    out: dict[int, int] = {}
    for t in state.tickets[seat]:
        ends = plain[t]
        if ends is not None:
            a, b, points, fail = ends
            out[t] = points if root(a) == root(b) else -fail
            continue
        ticket = board.map.tickets[t]
        cities = [board.city_index[c] for c in ticket.cities]
        joined = set.intersection(*({*map(root, board.city_nodes[c])} for c in cities))
        if not joined:
            out[t] = -ticket.fail_points
        elif len(cities) == 2:
            out[t] = ticket.points
        else:
            stops = [board.city_nodes[c][0] for c in cities]
            in_order = trail_in_order(edges, stops)
            out[t] = ticket.points if in_order else (ticket.points_any_order or 0)
    return out


def connected_tickets(state: GameState, seat: int) -> set[int]:
    """Indexes of ``seat``'s tickets that are completed now."""
    return {t for t, points in ticket_points(state, seat).items() if points > 0}


def longest_path(state: GameState, seat: int, own: list[int] | None = None) -> int:
    """The longest trail of ``seat``'s routes (``own``: its routes, if known)."""
    board = state.board
    if own is None:
        own = [r for r, s in enumerate(state.owner) if s == seat]
    return longest_trail([(board.r_na[r], board.r_nb[r], board.r_len[r]) for r in own])


def final_scores(state: GameState) -> FinalScores:
    cached = state.final_cache
    if isinstance(cached, FinalScores):
        return cached
    board, rules = state.board, state.board.rules
    n = state.n_players
    owned = _owned(state)
    per_ticket = [ticket_points(state, seat, owned[seat]) for seat in range(n)]
    longest = [longest_path(state, seat, owned[seat]) for seat in range(n)]
    completed = [sum(1 for p in pts.values() if p > 0) for pts in per_ticket]
    best_path, most_done = max(longest), max(completed)
    stations_per = rules.stations.per_player if rules.stations else 0
    unused_points = rules.stations.unused_points if rules.stations else 0
    extras: list[list[ExtraPoints]] = [[] for _ in range(n)]
    for module in rule_modules(state):
        for seat, points in enumerate(module.final_points(state)):
            extras[seat] += points
    rows: list[PlayerScore] = []
    for seat in range(n):
        tickets = [
            TicketResult(
                id=board.t_ids[t],
                cities=list(board.map.tickets[t].cities),
                points=per_ticket[seat][t],
            )
            for t in state.tickets[seat]
        ]
        route_points = sum(board.r_points[r] for r in owned[seat])
        path_bonus = rules.longest_path_bonus if best_path and longest[seat] == best_path else 0
        tickets_bonus = (
            rules.most_tickets_bonus if most_done and completed[seat] == most_done else 0
        )
        unused = state.stations_left[seat]
        total = (
            route_points
            + sum(t.points for t in tickets)
            + path_bonus
            + tickets_bonus
            + unused * unused_points
            + sum(e.points for e in extras[seat])
        )
        rows.append(
            PlayerScore(
                seat=seat,
                name=state.config.players[seat],
                routes=route_points,
                tickets=tickets,
                tickets_completed=completed[seat],
                longest_path=longest[seat],
                longest_path_bonus=path_bonus,
                most_tickets_bonus=tickets_bonus,
                stations_used=stations_per - unused,
                unused_stations_bonus=unused * unused_points,
                extras=extras[seat],
                total=total,
                rank=0,
            )
        )

    def key(row: PlayerScore) -> tuple[int, ...]:
        tie = {
            "most_tickets": row.tickets_completed,
            "fewest_stations_used": -row.stations_used,
            "longest_path": row.longest_path,
            # The holder of the bonus wins; all holding it or none: a shared place.
            "longest_path_bonus": int(row.longest_path_bonus > 0),
        }
        return (row.total, *(tie[name] for name in rules.tie_breakers))

    keys = [key(row) for row in rows]
    players = [
        row.model_copy(update={"rank": 1 + sum(k > keys[i] for k in keys)})
        for i, row in enumerate(rows)
    ]
    final = FinalScores(
        players=players,
        winners=[p.seat for p in players if p.rank == 1],
        reason="stalled" if state.reason == "stalled" else "trains",
    )
    state.final_cache = final
    return final


def score_position(state: GameState) -> FinalScores:
    """The final scores (with their breakdown) if the game ended in this position now,
    without playing it out; ``state`` is left as it is. At the end of a game: its result.

    The map's last changes run on a copy first (Pennsylvania reveals part of the neutral
    investor's pile, at random from the state's RNG), so the same position always scores
    the same.
    """
    if state.phase == GAME_OVER:
        return final_scores(state)
    end = state.copy()
    end.final_cache = None
    for module in rule_modules(end):
        module.on_game_over(end)
    return final_scores(end)
