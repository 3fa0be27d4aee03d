"""A seat's position as plain numbers, and route planning on the map's graph.

Built from an ``Observation`` only. Cards are grouped into *resources* that pay
for routes: train cards of a suit, ship value of a suit (Rails & Sails: a
double ship counts 2), and jokers (locomotives).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import pairwise

from engine.board import Board, board_for
from engine.cards import CARD_INDEX, DOUBLE_SHIP, GRAY, HARBOR_TRAIN, LOCO, SHIP
from engine.players.base import Observation

INF = float("inf")
JOKER = -1  # resource index of locomotives / jokers; suits are 0..7, ship suits 8..15
SHIP_SUIT = LOCO  # resource of a ship suit s: SHIP_SUIT + s
TRAIN_RATE = 1.2  # pieces a player places per turn, typically (for the end-of-game estimate)


@dataclass(frozen=True, slots=True)
class Graph:
    """A map's graph for planning: per node, (neighbour node, route index)."""

    adj: tuple[tuple[tuple[int, int], ...], ...]
    ship: tuple[bool, ...]  # route index -> a ship route (Rails & Sails)
    rough: tuple[bool, ...]  # route index -> rough terrain (2 cards a space)
    stops: tuple[tuple[tuple[int, ...], ...], ...]  # ticket -> per city on it, its nodes


@cache
def graph_for(map_id: str) -> Graph:
    board = board_for(map_id)
    adj: list[list[tuple[int, int]]] = [[] for _ in range(board.n_nodes)]
    for r in range(len(board.route_ids)):
        a, b = board.r_na[r], board.r_nb[r]
        adj[a].append((b, r))
        adj[b].append((a, r))
    return Graph(
        adj=tuple(tuple(x) for x in adj),
        ship=tuple(r.kind == "ship" for r in board.map.routes),
        rough=tuple(r.rough_terrain for r in board.map.routes),
        stops=tuple(
            tuple(board.city_nodes[board.city_index[c]] for c in t.cities)
            for t in board.map.tickets
        ),
    )


@dataclass(frozen=True, slots=True)
class Plan:
    routes: tuple[int, ...]  # unclaimed routes still to claim, in the order found
    cost: float  # pieces they need
    failed: tuple[int, ...]  # tickets that cannot be completed any more


def shortest_path(
    graph: Graph, costs: Sequence[float], sources: Iterable[int], targets: Iterable[int]
) -> tuple[float, list[int]]:
    """Cheapest route chain from any source node to any target node: (cost, route indexes)."""
    goal = set(targets)
    dist: dict[int, float] = {}
    back: dict[int, tuple[int, int]] = {}
    heap = [(0.0, s) for s in sources]
    for _, s in heap:
        dist[s] = 0.0
    heapq.heapify(heap)
    adj = graph.adj
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        if u in goal:
            path = []
            while u in back:
                u, r = back[u]
                path.append(r)
            return d, path
        for v, r in adj[u]:
            c = costs[r]
            if c == INF:
                continue
            nd = d + c
            if nd < dist.get(v, INF):
                dist[v] = nd
                back[v] = (u, r)
                heapq.heappush(heap, (nd, v))
    return INF, []


class Situation:
    """The observed position in numbers, with planning helpers."""

    def __init__(self, obs: Observation) -> None:
        board = obs.board
        pub, priv = obs.public, obs.private
        self.obs = obs
        self.board: Board = board
        self.graph = graph_for(board.map.id)
        self.seat = seat = obs.seat
        self.n = len(pub.players)
        self.rs = board.rules.rails_and_sails is not None
        n_routes = len(board.route_ids)
        owner = [-1] * n_routes
        for rid, s in pub.claimed.items():
            owner[board.route_index[rid]] = s
        self.owner = owner
        closed = {board.route_index[rid] for rid in pub.closed}
        twin = board.r_twin
        self.hand = [0] * board.hand_kinds
        for name, n in priv.hand.items():
            self.hand[CARD_INDEX[name]] = n
        self.tickets = [board.t_index[t.id] for t in priv.tickets]
        self.done = {board.t_index[t.id] for t in priv.tickets if t.connected}
        self.offered = [board.t_index[t.id] for t in priv.offered]
        self.trains = [p.trains for p in pub.players]
        self.scores = [p.score for p in pub.players]
        self.market = [-1 if c is None else CARD_INDEX[c] for c in pub.market]
        pieces = priv.pieces
        # Pieces this seat may still place per kind, counting what an exchange could bring.
        self.kind_left = {
            False: pieces.get("trains", 0) + pieces.get("reserve_trains", 0)
            if self.rs
            else self.trains[seat],
            True: pieces.get("ships", 0) + pieces.get("reserve_ships", 0),
        }
        self.free = [
            owner[r] < 0
            and r not in closed
            and not (twin[r] >= 0 and owner[twin[r]] == seat)
            and board.r_len[r] <= min(self.trains[seat], self.kind_left[self.graph.ship[r]])
            for r in range(n_routes)
        ]
        self.mine = [s == seat for s in owner]
        self.open_tickets = [t for t in self.tickets if t not in self.done]
        self.resources = self._resources()
        only = board.rules.locomotives_only_tunnels_ferries
        # Route index -> locomotives may pay for it (Nordic: only tunnels and ferries).
        self.jokers_pay = [
            not only or board.r_tunnel[r] or board.r_ferry[r] > 0 for r in range(n_routes)
        ]

    @cached_property
    def festival_gain(self) -> list[int]:
        """Route index -> festival points claiming it would take now (Iberia; else 0): the
        better pile lying at its ends, counted with the cards of that pile already held.
        Worked out only for a player that asks (a festival grab), not every decision."""
        board = self.board
        festivals = board.rules.festivals
        gains = [0] * len(board.route_ids)
        if festivals is None:
            return gains
        lying = self.obs.public.festival_piles
        held = self.obs.private.festival_cards
        for r in range(len(gains)):
            for city in (board.r_a[r], board.r_b[r]):
                pile = board.map.cities[city].festival_pile
                if pile is not None and lying.get(pile, 0):
                    have = held.get(pile, 0)
                    gain = festivals.points(pile, have + lying[pile]) - festivals.points(pile, have)
                    gains[r] = max(gains[r], gain)
        return gains

    # Cards --------------------------------------------------------------------------------

    def _resources(self) -> dict[int, int]:
        """Cards in hand by resource: suit s (train cards), SHIP_SUIT + s (ship value), JOKER."""
        hand = self.hand
        out = {JOKER: hand[LOCO]}
        for s in range(LOCO):
            out[s] = hand[s] + (hand[HARBOR_TRAIN + s] if self.rs else 0)
            if self.rs:
                out[SHIP_SUIT + s] = hand[SHIP + s] + 2 * hand[DOUBLE_SHIP + s]
        return out

    def card_resource(self, card: int) -> tuple[int, int]:
        """(resource, value) of a card kind."""
        if card == LOCO:
            return JOKER, 1
        if card < LOCO:
            return card, 1
        if card < SHIP:
            return card - HARBOR_TRAIN, 1
        if card < DOUBLE_SHIP:
            return SHIP_SUIT + card - SHIP, 1
        return SHIP_SUIT + card - DOUBLE_SHIP, 2

    def demand(self, routes: Iterable[int]) -> dict[int, int]:
        """Cards the routes still need beyond the hand, by resource (JOKER: ferry symbols)."""
        have = self.resources
        need = self.needs(routes)
        return {k: n - have.get(k, 0) for k, n in need.items() if n > have.get(k, 0)}

    def needs(self, routes: Iterable[int]) -> dict[int, int]:
        """Cards the routes need, by resource; a gray route takes the suit best in hand."""
        board, graph = self.board, self.graph
        have = self.resources
        need: dict[int, int] = {}
        for r in sorted(routes, key=lambda r: -board.r_len[r]):
            length, colour = board.r_len[r], board.r_color[r]
            ship = graph.ship[r]
            if graph.rough[r]:
                length *= 2
            ferry = board.r_ferry[r]
            if ferry:
                need[JOKER] = need.get(JOKER, 0) + ferry
                length -= ferry
            if length <= 0:
                continue
            base = SHIP_SUIT if ship else 0
            if colour == GRAY:
                res = max(
                    (base + s for s in range(LOCO)),
                    key=lambda k: have.get(k, 0) - need.get(k, 0),
                )
            else:
                res = base + colour
            need[res] = need.get(res, 0) + length
        return need

    # Planning -----------------------------------------------------------------------------

    def route_costs(
        self, noise: Sequence[float] | None = None, turn_cost: float = 0.0, hand: float = 0.0
    ) -> list[float]:
        """Planning cost per route: 0 if owned, its length (plus a little for ferries and
        tunnels) if this seat may still claim it, else INF. ``turn_cost`` adds the turn a
        claim takes less a fifth of it per point above one a piece, favouring long routes
        a little (more, and 6-length detours plan as nearly free, then fail tickets late);
        ``hand`` adds this much per card the hand still lacks for the route."""
        board = self.board
        res = self.resources
        jokers = res[JOKER]
        best_suit = [
            max(res.get(s, 0) for s in range(LOCO)),
            max(res.get(SHIP_SUIT + s, 0) for s in range(LOCO)),
        ]
        out: list[float] = []
        for r in range(len(board.route_ids)):
            if self.mine[r]:
                out.append(0.0)
            elif not self.free[r]:
                out.append(INF)
            else:
                c = board.r_len[r] + 0.6 * board.r_ferry[r] + 0.5 * board.r_tunnel[r]
                if self.graph.rough[r]:
                    c += 0.5 * board.r_len[r]
                if hand:
                    ship = self.graph.ship[r]
                    colour = board.r_color[r]
                    have = (
                        best_suit[ship] if colour == GRAY else res.get(colour + SHIP_SUIT * ship, 0)
                    )
                    c += hand * max(0, board.r_len[r] - have - jokers * self.jokers_pay[r])
                if turn_cost:
                    c = max(0.5, c + turn_cost * (1 - 0.2 * (board.r_points[r] - board.r_len[r])))
                out.append(c * (noise[r] if noise else 1.0))
        return out

    def plan(self, tickets: Iterable[int], costs: Sequence[float]) -> Plan:
        """Routes to claim for ``tickets``: shortest paths one ticket after another, each
        reusing the routes planned before it (a greedy Steiner tree)."""
        board = self.board
        costs = list(costs)
        chosen: list[int] = []
        total = 0.0
        failed: list[int] = []
        order = sorted(tickets, key=lambda t: -board.t_points[t])
        for t in order:
            stops = self.graph.stops[t]
            extra: list[int] = []
            cost = 0.0
            for a, b in pairwise(stops):
                c, path = shortest_path(self.graph, costs, a, b)
                if c == INF:
                    cost = INF
                    break
                cost += c
                extra += path
                for r in path:
                    costs[r] = 0.0
            if cost == INF:
                failed.append(t)
                continue
            for r in extra:
                if not self.mine[r] and r not in chosen:
                    chosen.append(r)
                    total += board.r_len[r]
        return Plan(tuple(chosen), total, tuple(failed))

    def turns_left(self) -> float:
        """About how many more turns this seat gets: until the player who places pieces
        fastest (at the pace seen so far, blended with a typical pace) reaches the end."""
        if self.obs.public.last_round:
            return 1.0
        rules = self.board.rules
        start = rules.rails_and_sails.pieces if rules.rails_and_sails else rules.trains
        played = max(0, self.obs.public.turn - 1) / self.n
        prior = 8  # turns' worth of the typical pace in the blend
        left = INF
        for pieces in self.trains:
            rate = (start - pieces + TRAIN_RATE * prior) / (played + prior)
            left = min(left, (pieces - rules.end_trigger_pieces) / rate)
        return max(1.0, left + 1)
