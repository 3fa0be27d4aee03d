"""Europe's stations: build one in a free city; at the end it lends one route into that city.

The lent routes are chosen jointly over all of a player's stations to
complete the most ticket points; they never count for the longest path.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import ClassVar

from engine import payment
from engine.actions import Action, BuildStation, stations_of
from engine.cards import clip_bytes, counts_from_names, names_from_counts
from engine.errors import IllegalAction, Plural, Text
from engine.events import Event, StationBuilt
from engine.graph import best_station_assignment
from engine.hooks import Handler, RuleModule
from engine.memo import MEMO_LIMIT, new_memo
from engine.phases import TURN
from engine.state import GameState
from engine.turns import end_turn, player_name, require_turn, spend

ORDINALS = (Text("first"), Text("second"), Text("third"), Text("fourth"), Text("fifth"))
# See Stations.turn_actions: (cost, clipped hand) -> payments; (board, built, payments) -> options.
_PAYMENTS: dict[object, tuple[tuple[int, ...], ...]] = new_memo()
_OPTIONS: dict[tuple[object, ...], tuple[Action, ...]] = new_memo()


def station_cost(state: GameState, seat: int) -> int:
    stations = state.board.rules.stations
    assert stations is not None
    return stations.costs[stations.per_player - state.stations_left[seat]]


def build_station(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, BuildStation)
    board = state.board
    stations = board.rules.stations
    assert stations is not None
    require_turn(state, seat, TURN)
    if state.stations_left[seat] == 0:
        raise IllegalAction("You have built all {n} of your stations.", n=stations.per_player)
    city = board.city_index.get(action.city)
    if city is None:
        raise IllegalAction("There is no city {city!r} on this map.", city=action.city)
    if city in state.stations:
        raise IllegalAction("{city} already has a station ({player}'s).",
                            city=board.city_names[city],
                            player=player_name(state, state.stations[city]))
    cost = station_cost(state, seat)
    nth = ORDINALS[stations.per_player - state.stations_left[seat]]
    pay = counts_from_names(action.cards)
    if pay is None or not payment.station_ok(pay, cost):
        raise IllegalAction(Plural(
            "Your {nth} station costs {n} card of one colour (locomotives count as any colour).",
            "Your {nth} station costs {n} cards of one colour (locomotives count as any "
            "colour).", cost, nth=nth))
    spend(state, seat, pay)
    for c, n in enumerate(pay):
        state.discards.extend([c] * n)
    state.stations[city] = seat
    state.stations_left[seat] -= 1
    return end_turn(state, [StationBuilt(seat, board.city_ids[city], names_from_counts(pay))])


class Stations(RuleModule):
    handlers: ClassVar[dict[type, Handler]] = {BuildStation: build_station}

    def turn_actions(self, state: GameState, seat: int) -> Sequence[Action]:
        left = state.stations_left[seat]
        if not left:
            return ()
        # The payments depend on the cost and the hand's counts up to it, the options on
        # them and the cities built: two memos, so the hand's key (a bytes clipped in C)
        # is hashed alone and the built cities (which change a dozen times a game) are
        # read only when the hand can pay (about half the hands a station is open to).
        rules = state.board.rules.stations
        assert rules is not None
        cost = rules.costs[rules.per_player - left]
        hand = state.hands[seat]
        try:
            key: object = (cost, bytes(hand).translate(clip_bytes(cost)))
        except ValueError:  # a count beyond a byte (set by tests)
            key = (cost, *map(min, hand, repeat(cost)))
        pays = _PAYMENTS.get(key)
        if pays is None:
            if len(_PAYMENTS) >= MEMO_LIMIT:
                _PAYMENTS.clear()
            pays = _PAYMENTS[key] = tuple(map(tuple, payment.cheapest_stations(hand, cost)))
        if not pays:
            return ()
        board = state.board
        built = tuple(sorted(state.stations))
        options = (board, built, pays)
        out = _OPTIONS.get(options)
        if out is None:  # a shared tuple: hundreds of actions, not copied for each caller
            if len(_OPTIONS) >= MEMO_LIMIT:
                _OPTIONS.clear()
            out = _OPTIONS[options] = tuple(
                action for p in pays for action in stations_of(board, built, p)
            )
        return out

    def can_act(self, state: GameState, seat: int) -> bool:
        return (
            state.stations_left[seat] > 0
            and len(state.stations) < len(state.board.city_ids)
            and bool(payment.cheapest_stations(state.hands[seat], station_cost(state, seat)))
        )

    def borrowed_routes(self, state: GameState, seat: int) -> list[int]:
        problem = station_problem(state, seat)
        if problem is None:
            return []
        _, chosen = best_station_assignment(*problem)
        return [r for r in chosen if r is not None]


StationProblem = tuple[
    int, list[tuple[int, int]], list[list[tuple[int, int, int]]], list[tuple[int, int, int]]
]


def station_problem(state: GameState, seat: int) -> StationProblem | None:
    """``best_station_assignment``'s arguments for ``seat`` at the end: the graph's size,
    its own routes, the other players' routes into each of its stations' cities, its
    tickets (None: no station or no ticket, nothing to choose)."""
    board, owner = state.board, state.owner
    own_stations = sorted(c for c, s in state.stations.items() if s == seat)
    if not own_stations or not state.tickets[seat]:
        return None
    na, nb = board.r_na, board.r_nb
    edges = [(na[r], nb[r]) for r, s in enumerate(owner) if s == seat]
    choices = [
        [(na[r], nb[r], r) for r in board.routes_at[city] if owner[r] >= 0 and owner[r] != seat]
        for city in own_stations
    ]
    tickets = [(board.t_a[t], board.t_b[t], board.t_points[t]) for t in state.tickets[seat]]
    return board.n_nodes, edges, choices, tickets
