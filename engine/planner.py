"""The planner on a player's hand: for each kept ticket, the cheapest way to finish it.

Built only from what the seat may see: its ``PrivateView`` (hand, tickets, pieces), the
``PublicView`` (claims, closed tracks, stations, pieces left) and the static ``Board``;
never the state, so it cannot read another seat's hand or tickets or the deck.

Per ticket not yet done, a cheapest chain of routes from city to city (a tour ticket:
stop to stop in the printed order, each leg reusing the legs before it) where

- the seat's own routes cost nothing, a route it may still claim costs its length in
  pieces (trains or ships); claimed, closed and too long routes are out;
- on maps with stations (Europe) an opponent's route may be borrowed: free at a city
  where the seat has a station, or for one new station at an end city with no station
  yet (at most the seat's stations left). Fewest new stations first (a station costs cards
  and its 4 points, so it is the way out when the tracks are gone), then fewest pieces.
  (A station lends one route; a chain borrowing two routes at the same built station is
  not told apart: rare, and the final scoring decides anyway.)

Then the cards that chain needs by colour (a ferry's locomotives, two cards a space on
rough terrain, ship cards for ships; a gray route in the colour held most), what of that
the hand lacks, and the *contested* routes on it: open routes with an end city where an
opponent already has a route, so that opponent's network reaches them and it could take
them next turn.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from itertools import pairwise

from engine.board import Board
from engine.cards import CARD_NAMES, GRAY, LOCO
from engine.views import PrivateView, PublicView, TicketView

__all__ = ["TicketPlan", "plan_tickets"]

ANY_COLOUR = "gray"  # the cards key of a gray route when the hand holds none of any suit


@dataclass(frozen=True, slots=True)
class TicketPlan:
    ticket: int  # ticket id
    cities: tuple[str, ...]  # city ids, in the printed order
    points: int
    done: bool
    reachable: bool  # False: no chain of open routes is left (the ticket will fail)
    routes: tuple[int, ...] = ()  # route ids still to claim, along the way
    borrowed: tuple[int, ...] = ()  # opponents' route ids used through a station
    new_stations: tuple[str, ...] = ()  # city ids where a station must still be built
    pieces: int = 0  # trains and ships still to place
    stations: int = 0  # new stations the chain uses (Europe)
    cards: dict[str, int] = field(default_factory=dict)  # card name -> cards the routes take
    missing: dict[str, int] = field(default_factory=dict)  # of ``cards``, what the hand lacks
    contested: tuple[int, ...] = ()  # route ids in ``routes`` an opponent could take next


# A step of a chain: (route index, kind) with kind "claim", "own", "borrow" or "station".
_Step = tuple[int, str]


class _Open:
    """Which routes the seat may use, and how, in this position."""

    def __init__(self, board: Board, public: PublicView, private: PrivateView) -> None:
        seat = private.seat
        n = len(board.route_ids)
        self.board = board
        owner = [-1] * n
        for rid, s in public.claimed.items():
            owner[board.route_index[rid]] = s
        self.owner = owner
        shut = {board.route_index[rid] for rid in public.closed}
        shut |= {board.route_index[rid] for rid in public.closed_to.get(seat, [])}
        left = public.players[seat].trains
        pieces = private.pieces
        kind_left = {  # Rails & Sails: pieces of each kind, counting what an exchange brings
            "train": pieces.get("trains", 0) + pieces.get("reserve_trains", 0),
            "ship": pieces.get("ships", 0) + pieces.get("reserve_ships", 0),
        }
        rs = board.rules.rails_and_sails is not None
        self.claimable = [
            owner[r] < 0
            and r not in shut
            and board.r_len[r] <= left
            and (not rs or board.r_len[r] <= kind_left[board.map.routes[r].kind])
            for r in range(n)
        ]
        self.mine = [s == seat for s in owner]
        stations = {board.city_index[c]: s for c, s in public.stations.items()}
        self.my_stations = {c for c, s in stations.items() if s == seat}
        self.free_cities = {c for c in range(len(board.city_ids)) if c not in stations}
        self.stations_left = public.players[seat].stations if board.rules.stations else 0
        self.opponent_cities = {
            c
            for r, s in enumerate(owner)
            if s >= 0 and s != seat
            for c in (board.r_a[r], board.r_b[r])
        }

    def steps(self, r: int, zero: set[int]) -> list[tuple[int, int, str]]:
        """Ways to use route ``r``: (pieces, new stations, kind)."""
        board = self.board
        if self.mine[r] or r in zero:
            return [(0, 0, "own")]
        if self.claimable[r]:
            return [(board.r_len[r], 0, "claim")]
        if self.owner[r] < 0 or not board.rules.stations:
            return []
        ends = (board.r_a[r], board.r_b[r])
        if any(c in self.my_stations for c in ends):
            return [(0, 0, "borrow")]
        if self.stations_left and any(c in self.free_cities for c in ends):
            return [(0, 1, "station")]
        return []


def _cheapest(
    opens: _Open, sources: tuple[int, ...], targets: tuple[int, ...], zero: set[int], budget: int
) -> tuple[int, int, list[_Step]] | None:
    """Dijkstra over (node, new stations used): fewest new stations, then fewest pieces."""
    board = opens.board
    goal = set(targets)
    best: dict[tuple[int, int], tuple[int, int]] = {}  # (node, used) -> (stations, pieces)
    back: dict[tuple[int, int], tuple[tuple[int, int], _Step]] = {}
    heap: list[tuple[int, int, int, int]] = []
    for s in sources:
        best[(s, 0)] = (0, 0)
        heap.append((0, 0, s, 0))
    heapq.heapify(heap)
    adj = _adjacency(board)
    while heap:
        stations, pieces, node, used = heapq.heappop(heap)
        if best.get((node, used)) != (stations, pieces):
            continue
        if node in goal:
            path: list[_Step] = []
            key = (node, used)
            while key in back:
                key, step = back[key]
                path.append(step)
            path.reverse()
            return pieces, stations, path
        for other, r in adj[node]:
            for cost, extra, kind in opens.steps(r, zero):
                if used + extra > budget:
                    continue
                nxt = (other, used + extra)
                value = (stations + extra, pieces + cost)
                if value < best.get(nxt, (1 << 30, 0)):
                    best[nxt] = value
                    back[nxt] = ((node, used), (r, kind))
                    heapq.heappush(heap, (*value, *nxt))
    return None


_ADJ: dict[str, tuple[tuple[tuple[int, int], ...], ...]] = {}


def _adjacency(board: Board) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per graph node: (neighbour node, route index); nodes as in scoring (Ontario split)."""
    found = _ADJ.get(board.map.id)
    if found is None:
        adj: list[list[tuple[int, int]]] = [[] for _ in range(board.n_nodes)]
        for r in range(len(board.route_ids)):
            adj[board.r_na[r]].append((board.r_nb[r], r))
            adj[board.r_nb[r]].append((board.r_na[r], r))
        found = _ADJ[board.map.id] = tuple(tuple(x) for x in adj)
    return found


def _cards(board: Board, routes: list[int], hand: dict[str, int]) -> dict[str, int]:
    """Cards the routes take by card name; a gray route in the suit held most."""
    need: dict[str, int] = {}

    def held(name: str) -> int:
        if name.endswith("_ship"):
            suit = name.removesuffix("_ship")
            return hand.get(name, 0) + 2 * hand.get(f"{suit}_double_ship", 0) - need.get(name, 0)
        return hand.get(name, 0) + hand.get(f"{name}_harbor", 0) - need.get(name, 0)

    for r in sorted(routes, key=lambda r: -board.r_len[r]):
        route = board.map.routes[r]
        n = board.r_len[r] * (2 if route.rough_terrain else 1)
        ferry = board.r_ferry[r]
        if ferry:
            need[CARD_NAMES[LOCO]] = need.get(CARD_NAMES[LOCO], 0) + ferry
            n -= ferry
        if n <= 0:
            continue
        ship = "_ship" if route.kind == "ship" else ""
        if board.r_color[r] == GRAY:
            suits = [f"{CARD_NAMES[s]}{ship}" for s in range(LOCO)]
            top = max(suits, key=held)
            name = top if held(top) > 0 else f"{ANY_COLOUR}{ship}"
        else:
            name = f"{CARD_NAMES[board.r_color[r]]}{ship}"
        need[name] = need.get(name, 0) + n
    return need


def _missing(cards: dict[str, int], hand: dict[str, int]) -> dict[str, int]:
    """What of ``cards`` the hand lacks, colour by colour (locomotives not counted in)."""
    out: dict[str, int] = {}
    for name, n in cards.items():
        if name.endswith("_ship"):
            suit = name.removesuffix("_ship")
            have = hand.get(name, 0) + 2 * hand.get(f"{suit}_double_ship", 0)
        elif name.startswith(ANY_COLOUR):
            have = 0
        else:
            have = hand.get(name, 0) + hand.get(f"{name}_harbor", 0)
        if n > have:
            out[name] = n - have
    return out


def plan_tickets(board: Board, public: PublicView, private: PrivateView) -> list[TicketPlan]:
    """The plan for each of the seat's kept tickets, in the order it holds them."""
    opens = _Open(board, public, private)
    return [_plan(board, opens, private, t) for t in private.tickets]


def _plan(
    board: Board, opens: _Open, private: PrivateView, ticket: TicketView
) -> TicketPlan:
    head = TicketPlan(ticket.id, tuple(ticket.cities), ticket.points, ticket.connected, True)
    if ticket.connected:
        return head
    stops = [board.city_nodes[board.city_index[c]] for c in ticket.cities]
    zero: set[int] = set()
    steps: list[_Step] = []
    pieces = stations = 0
    for a, b in pairwise(stops):
        found = _cheapest(opens, a, b, zero, opens.stations_left - stations)
        if found is None:
            return TicketPlan(ticket.id, tuple(ticket.cities), ticket.points, False, False)
        p, s, leg = found
        pieces += p
        stations += s
        for r, kind in leg:
            if r not in zero:
                zero.add(r)
                steps.append((r, kind))
    claims = [r for r, kind in steps if kind == "claim"]
    builds: list[str] = []
    for r, kind in steps:
        if kind == "station":
            city = next(c for c in (board.r_a[r], board.r_b[r]) if c in opens.free_cities)
            builds.append(board.city_ids[city])
    cards = _cards(board, claims, private.hand)
    return TicketPlan(
        ticket=ticket.id,
        cities=tuple(ticket.cities),
        points=ticket.points,
        done=False,
        reachable=True,
        routes=tuple(board.route_ids[r] for r in claims),
        borrowed=tuple(board.route_ids[r] for r, kind in steps if kind in ("borrow", "station")),
        new_stations=tuple(dict.fromkeys(builds)),
        pieces=pieces,
        stations=stations,
        cards=cards,
        missing=_missing(cards, private.hand),
        contested=tuple(
            board.route_ids[r]
            for r in claims
            if board.r_a[r] in opens.opponent_cities or board.r_b[r] in opens.opponent_cities
        ),
    )
