"""Typed, validated board data: the schema of the files in ``maps/data``.

A map file holds the board (cities, routes, tickets, coordinates for the
renderer) and the numbers that make its rules differ from the common core.
Mechanics of their own (stations, shares, festivals, ships) are switched on
by ``rules.modules`` and configured in their own optional sections.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

TRAIN_COLORS: tuple[str, ...] = (
    "purple", "white", "blue", "yellow", "orange", "black", "red", "green",
)
ROUTE_COLORS: tuple[str, ...] = (*TRAIN_COLORS, "gray")

Color = Literal["purple", "white", "blue", "yellow", "orange", "black", "red", "green"]
RouteColor = Literal["purple", "white", "blue", "yellow", "orange", "black", "red", "green", "gray"]
Module = Literal["stations", "shares", "festivals", "rails_and_sails"]
TieBreaker = Literal["most_tickets", "fewest_stations_used", "longest_path"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BoardSpot(_Strict):
    """A second drawing position of a city (Pennsylvania's Ontario)."""

    x: float
    y: float
    routes_to: str


class City(_Strict):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name: str
    lat: float = Field(ge=-90, le=90)
    lon: float = Field(ge=-180, le=180)
    # Position on the map's board picture (see Board); None where only lat/lon exist.
    x: float | None = None
    y: float | None = None
    board_spots: list[BoardSpot] = []
    harbor: bool = False
    festival_pile: str | None = None
    transit_point: bool = False


class Route(_Strict):
    id: int = Field(ge=1)
    a: str
    b: str
    length: int = Field(ge=1, le=9)
    color: RouteColor
    kind: Literal["train", "ship"] = "train"
    tunnel: bool = False
    # Ferry: this many locomotive symbols must be paid with locomotives.
    ferry_locomotives: int = Field(default=0, ge=0)
    double_of: int | None = None
    # [x, y, angle in degrees] of every space on the board picture.
    spaces: list[tuple[float, float, float]] | None = None
    # Nordic Murmansk-Lieksa: this many cards of any kind replace one card of the colour.
    any_cards_substitute: int | None = Field(default=None, ge=2)
    shares: list[str] = []
    rough_terrain: bool = False
    crosses_antimeridian: bool = False
    note: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Route:
        if self.a == self.b:
            raise ValueError(f"route {self.id} joins {self.a} to itself")
        if self.ferry_locomotives > self.length:
            raise ValueError(f"route {self.id} has more locomotive symbols than spaces")
        if self.spaces is not None and len(self.spaces) != self.length:
            raise ValueError(
                f"route {self.id} has {len(self.spaces)} spaces drawn but length {self.length}"
            )
        return self


class Ticket(_Strict):
    id: int = Field(ge=1)
    # Two cities, or 3-5 in printed order for a Rails & Sails tour ticket.
    cities: list[str] = Field(min_length=2, max_length=5)
    points: int = Field(ge=1)
    long: bool = False
    # Tour tickets only: value when connected but not in printed order, and the penalty.
    points_any_order: int | None = None
    penalty: int | None = None
    estimated: bool = False

    @model_validator(mode="after")
    def _check(self) -> Ticket:
        if len(set(self.cities)) != len(self.cities):
            raise ValueError(f"ticket {self.id} names a city twice")
        is_tour = len(self.cities) > 2
        if is_tour != (self.points_any_order is not None) or is_tour != (self.penalty is not None):
            raise ValueError(f"ticket {self.id}: tour values are set iff it names 3+ cities")
        return self

    @property
    def fail_points(self) -> int:
        return self.penalty if self.penalty is not None else self.points


class Board(_Strict):
    """The picture the x/y coordinates refer to (or 'geo' when there is none)."""

    coordinates: Literal["board", "geo"]
    width: int | None = None
    height: int | None = None
    wraps_east_west: bool = False
    note: str = ""


class TicketDeal(_Strict):
    deal: int = Field(ge=1)
    deal_long: int = Field(default=0, ge=0)
    keep_min: int = Field(ge=1)


class Deck(_Strict):
    colors: list[Color] = list(TRAIN_COLORS)
    per_color: int = 12
    locomotives: int = 14

    @property
    def total(self) -> int:
        return len(self.colors) * self.per_color + self.locomotives


class Stations(_Strict):
    per_player: int = Field(ge=1)
    costs: list[int] = Field(min_length=1)
    unused_points: int = 0

    @model_validator(mode="after")
    def _check(self) -> Stations:
        if len(self.costs) != self.per_player:
            raise ValueError("stations.costs needs one cost per station")
        return self


class Rules(_Strict):
    players_min: int = Field(ge=1)
    players_max: int = Field(le=5)
    trains: int = Field(ge=1)
    route_points: dict[int, int]
    deck: Deck = Deck()
    market_size: int = 5
    # Base rule: a face-up locomotive is a whole draw, and never a second card.
    face_up_locomotive_counts_two: bool = True
    # Market reset when this many locomotives lie face up (None: never).
    market_reset_locomotives: int | None = 3
    # Nordic: locomotives only pay for tunnels and ferries.
    locomotives_only_tunnels_ferries: bool = False
    # Nordic: this many cards of any kind may stand for one ferry locomotive.
    ferry_cards_per_locomotive: int | None = None
    double_routes_min_players: int = 4
    setup_tickets: TicketDeal
    draw_tickets: TicketDeal
    returned_tickets: Literal["bottom", "removed"] = "bottom"
    longest_path_bonus: int = 0
    most_tickets_bonus: int = 0
    end_trigger_pieces: int = 2
    final_turns: int = 1
    tie_breakers: list[TieBreaker] = ["most_tickets", "longest_path"]
    modules: list[Module] = []
    stations: Stations | None = None

    @model_validator(mode="after")
    def _check(self) -> Rules:
        if self.players_min > self.players_max:
            raise ValueError("players_min is above players_max")
        if ("stations" in self.modules) != (self.stations is not None):
            raise ValueError("the stations module and the stations section go together")
        return self


class MapData(_Strict):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name: str
    status: Literal["complete", "estimated"] = "complete"
    notes: list[str] = []
    board: Board
    rules: Rules
    cities: list[City]
    routes: list[Route]
    tickets: list[Ticket]

    @model_validator(mode="after")
    def _check_references(self) -> MapData:
        problems = list(_reference_problems(self))
        if problems:
            raise ValueError("; ".join(problems))
        return self


def _duplicates(values: list[str] | list[int]) -> set[str | int]:
    seen: set[str | int] = set()
    return {v for v in values if v in seen or seen.add(v)}  # type: ignore[func-returns-value]


def _reference_problems(m: MapData) -> list[str]:
    out: list[str] = []
    cities = {c.id for c in m.cities}
    routes = {r.id: r for r in m.routes}
    for dup in _duplicates([c.id for c in m.cities]):
        out.append(f"city {dup!r} is defined twice")
    for dup in _duplicates([r.id for r in m.routes]):
        out.append(f"route id {dup} is used twice")
    for dup in _duplicates([t.id for t in m.tickets]):
        out.append(f"ticket id {dup} is used twice")
    allowed = {*m.rules.deck.colors, "gray"}
    for r in m.routes:
        for end in (r.a, r.b):
            if end not in cities:
                out.append(f"route {r.id} ({r.a}-{r.b}): unknown city {end!r}")
        if r.color not in allowed:
            out.append(f"route {r.id} ({r.a}-{r.b}): colour {r.color!r} is not in the deck")
        if r.length not in m.rules.route_points:
            out.append(f"route {r.id} ({r.a}-{r.b}): no points for length {r.length}")
        if r.double_of is not None:
            twin = routes.get(r.double_of)
            if twin is None:
                out.append(f"route {r.id}: double_of names unknown route {r.double_of}")
            elif twin.double_of != r.id:
                out.append(f"route {r.id}: double_of {r.double_of} is not symmetric")
            elif {twin.a, twin.b} != {r.a, r.b}:
                out.append(f"route {r.id}: its double {twin.id} joins other cities")
    for t in m.tickets:
        for c in t.cities:
            if c not in cities:
                out.append(f"ticket {t.id} ({'-'.join(t.cities)}): unknown city {c!r}")
    if m.board.coordinates == "board":
        for c in m.cities:
            if c.x is None or c.y is None:
                out.append(f"city {c.id}: no board position on a board-coordinate map")
    return out
