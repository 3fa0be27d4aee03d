"""A map compiled into flat tuples indexed by small ints, built once per map.

The engine works on route and city *indexes* (positions in these tuples);
ids and names are used only at the edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.cards import ALL_CARD_KINDS, GRAY, N_CARDS, color_index
from maps import load_map
from maps.model import MapData, Rules


@dataclass(frozen=True, slots=True, eq=False)
class Board:
    map: MapData
    rules: Rules
    city_ids: tuple[str, ...]
    city_names: tuple[str, ...]
    city_index: dict[str, int]
    route_ids: tuple[int, ...]
    route_index: dict[int, int]
    r_a: tuple[int, ...]
    r_b: tuple[int, ...]
    r_len: tuple[int, ...]
    r_color: tuple[int, ...]  # card index of the suit, GRAY for gray
    r_tunnel: tuple[bool, ...]
    r_ferry: tuple[int, ...]  # locomotive symbols
    r_any_sub: tuple[int, ...]  # cards that may replace one coloured card (0: none)
    r_twin: tuple[int, ...]  # index of the parallel route, -1 if none
    r_points: tuple[int, ...]
    # Graph nodes of each route's ends. A city that does not connect through (Pennsylvania's
    # Ontario) has one node per neighbour, so no chain of routes passes through it.
    r_na: tuple[int, ...]
    r_nb: tuple[int, ...]
    n_nodes: int
    city_nodes: tuple[tuple[int, ...], ...]
    routes_at: tuple[tuple[int, ...], ...]  # city index -> indexes of routes touching it
    t_ids: tuple[int, ...]
    t_index: dict[int, int]
    t_a: tuple[int, ...]
    t_b: tuple[int, ...]
    t_points: tuple[int, ...]
    t_long: tuple[bool, ...]
    hand_kinds: int  # card kinds a hand counts (Rails & Sails has more)

    def route_name(self, r: int) -> str:
        return f"{self.city_names[self.r_a[r]]}–{self.city_names[self.r_b[r]]}"

    def route_label(self, r: int) -> str:
        """'Paris–Wien (3, green)' as players read it on the board."""
        color = "gray" if self.r_color[r] == GRAY else self.map.routes[r].color
        return f"{self.route_name(r)} ({self.r_len[r]}, {color})"

    def ticket_name(self, t: int) -> str:
        return f"{self.city_names[self.t_a[t]]}–{self.city_names[self.t_b[t]]}"


@cache
def board_for(map_id: str) -> Board:
    m = load_map(map_id)
    cidx = {c.id: i for i, c in enumerate(m.cities)}
    ridx = {r.id: i for i, r in enumerate(m.routes)}
    routes_at: list[list[int]] = [[] for _ in m.cities]
    for i, r in enumerate(m.routes):
        routes_at[cidx[r.a]].append(i)
        routes_at[cidx[r.b]].append(i)
    nodes: dict[tuple[int, int], int] = {}  # (split city, neighbour) -> its extra node

    def node(city: str, other: str) -> int:
        c = cidx[city]
        if m.cities[c].connects_through:
            return c
        return nodes.setdefault((c, cidx[other]), len(m.cities) + len(nodes))

    r_na = tuple(node(r.a, r.b) for r in m.routes)
    r_nb = tuple(node(r.b, r.a) for r in m.routes)
    city_nodes = [[i] for i in range(len(m.cities))]
    for (c, _), extra in nodes.items():
        city_nodes[c] = [*(n for n in city_nodes[c] if n != c), extra]
    return Board(
        map=m,
        rules=m.rules,
        city_ids=tuple(c.id for c in m.cities),
        city_names=tuple(c.name for c in m.cities),
        city_index=cidx,
        route_ids=tuple(r.id for r in m.routes),
        route_index=ridx,
        r_a=tuple(cidx[r.a] for r in m.routes),
        r_b=tuple(cidx[r.b] for r in m.routes),
        r_len=tuple(r.length for r in m.routes),
        r_color=tuple(color_index(r.color) for r in m.routes),
        r_tunnel=tuple(r.tunnel for r in m.routes),
        r_ferry=tuple(r.ferry_locomotives for r in m.routes),
        r_any_sub=tuple(r.any_cards_substitute or 0 for r in m.routes),
        r_twin=tuple(-1 if r.double_of is None else ridx[r.double_of] for r in m.routes),
        r_points=tuple(m.rules.route_points[r.length] for r in m.routes),
        r_na=r_na,
        r_nb=r_nb,
        n_nodes=len(m.cities) + len(nodes),
        city_nodes=tuple(tuple(x) for x in city_nodes),
        routes_at=tuple(tuple(x) for x in routes_at),
        t_ids=tuple(t.id for t in m.tickets),
        t_index={t.id: i for i, t in enumerate(m.tickets)},
        t_a=tuple(cidx[t.cities[0]] for t in m.tickets),
        t_b=tuple(cidx[t.cities[-1]] for t in m.tickets),
        t_points=tuple(t.points for t in m.tickets),
        t_long=tuple(t.long for t in m.tickets),
        hand_kinds=ALL_CARD_KINDS if m.rules.rails_and_sails else N_CARDS,
    )
