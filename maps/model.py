"""Typed, validated board data: the schema of the files in ``maps/data``.

A map file holds the board (cities, routes, tickets, coordinates for the
renderer) and the numbers that make its rules differ from the common core.
Mechanics of their own (stations, shares, festivals, ships) are switched on
by ``rules.modules`` and configured in their own optional sections.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

TRAIN_COLORS: tuple[str, ...] = (
    "purple", "white", "blue", "yellow", "orange", "black", "red", "green",
)
ROUTE_COLORS: tuple[str, ...] = (*TRAIN_COLORS, "gray")

Color = Literal["purple", "white", "blue", "yellow", "orange", "black", "red", "green"]
RouteColor = Literal["purple", "white", "blue", "yellow", "orange", "black", "red", "green", "gray"]
Module = Literal["stations", "shares", "festivals", "rails_and_sails"]
# "longest_path" compares path lengths (Nordic); "longest_path_bonus" asks who holds the
# bonus (USA, Europe): all tied players or none holding it share the place.
TieBreaker = Literal["most_tickets", "fewest_stations_used", "longest_path", "longest_path_bonus"]


MARKET_SLOTS = 10  # the most face-up slots a map's market may have


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
    # False: routes meeting here are not joined to one another, so no chain of routes
    # passes through; the city still completes tickets that name it (Pennsylvania's
    # Ontario, whose two ferries "are not connected", seed 003).
    connects_through: bool = True


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
    # Geo maps that wrap: the longitude of the board's west edge; cities west of it are
    # drawn at the east end (Rails & Sails: Anchorage and Honolulu sit at the east edge).
    west_edge_lon: float | None = Field(default=None, ge=-180, le=180)
    note: str = ""


class TicketDeal(_Strict):
    deal: int = Field(ge=1)
    deal_long: int = Field(default=0, ge=0)
    keep_min: int = Field(ge=1)
    # Iberia's drafts keep exactly 4: keep_min == keep_max. None: no upper limit.
    keep_max: int | None = Field(default=None, ge=1)
    # Where the tickets turned down from this deal go (None: ``Rules.returned_tickets``);
    # Europe's setup tickets leave the game.
    returned: Literal["bottom", "removed"] | None = None

    @model_validator(mode="after")
    def _check(self) -> TicketDeal:
        if self.keep_max is not None and self.keep_max < self.keep_min:
            raise ValueError("keep_max is below keep_min")
        return self


class Deck(_Strict):
    colors: list[Color] = list(get_args(Color))  # = TRAIN_COLORS, typed
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


HEX_COLOR = r"^#[0-9a-f]{6}$"


class Company(_Strict):
    """A Pennsylvania railroad company and its stack of share cards."""

    id: str = Field(pattern=r"^[A-Z&]+$")
    name: str
    # Colour of the company's tag when drawn on the board (from its logo).
    color: str = Field(pattern=HEX_COLOR)
    shares: int = Field(ge=1)
    # Points by rank (index 0 = most shares), as printed on the share cards.
    scores: list[int] = Field(min_length=1)


class Shares(_Strict):
    companies: list[Company] = Field(min_length=1)
    # Player counts that add the neutral third investor (seed 003: 2 players).
    neutral_investor_players: list[int] = [2]
    # Neutral pile: shuffle and reveal this share of it (rounded up) before scoring.
    neutral_reveal_fraction: float = Field(default=0.5, gt=0, le=1)

    @model_validator(mode="after")
    def _check(self) -> Shares:
        if dup := _duplicates([c.id for c in self.companies]):
            raise ValueError(f"company {sorted(map(str, dup))} defined twice")
        return self


class FestivalPile(_Strict):
    """One pile of Iberia festival cards (Porto and Coimbra share one pile)."""

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name: str
    cards: int = Field(ge=1)
    # This pile's own table where it differs from Festivals.scores.
    scores: list[int] | None = None
    estimated: bool = False


class TicketDraft(_Strict):
    """Iberia's ticket draft: deal, pick one and pass, then keep exactly ``keep``."""

    deal: int = Field(ge=1)
    keep: int = Field(ge=1)
    first_pass: Literal["left", "right"] = "left"
    second_pass: Literal["left", "right"] = "right"
    # Where each player's unkept tickets go after the first and the second draft.
    first_unkept: Literal["shuffle_in", "bottom", "removed"] = "shuffle_in"
    second_unkept: Literal["shuffle_in", "bottom", "removed"] = "bottom"


class Festivals(_Strict):
    piles: list[FestivalPile] = Field(min_length=1)
    # Points for holding 1, 2, ... cards of one pile (index 0 = one card).
    scores: list[int] = Field(min_length=1)
    # Each card beyond the table adds this much to its last value.
    extra_card_points: int = 0
    # The ticket-draft card goes this far down the deck (fraction from the top), by players.
    draft_card_depth: dict[int, float]
    draft: TicketDraft
    # The draw-tickets action is closed until the second draft has run.
    tickets_locked_until_second_draft: bool = True
    # Train-deck reshuffles put back only train cards.
    reshuffle_train_cards_only: bool = True
    estimated: bool = False

    @property
    def total_cards(self) -> int:
        return sum(p.cards for p in self.piles)

    def points(self, pile: str, count: int) -> int:
        """Points for ``count`` cards of ``pile`` (0 for none)."""
        table = next((p.scores for p in self.piles if p.id == pile and p.scores), self.scores)
        if count <= 0:
            return 0
        if count <= len(table):
            return table[count - 1]
        return table[-1] + (count - len(table)) * self.extra_card_points

    @model_validator(mode="after")
    def _check(self) -> Festivals:
        if dup := _duplicates([p.id for p in self.piles]):
            raise ValueError(f"festival pile {sorted(map(str, dup))} defined twice")
        if any(not 0 < f < 1 for f in self.draft_card_depth.values()):
            raise ValueError("draft_card_depth fractions lie strictly between 0 and 1")
        return self


class ShipDeck(_Strict):
    colors: list[Color]
    singles_per_color: int = Field(ge=0)
    doubles_per_color: int = Field(ge=0)

    @property
    def total(self) -> int:
        return len(self.colors) * (self.singles_per_color + self.doubles_per_color)


class RailsAndSails(_Strict):
    """Rails & Sails: two decks, trains and ships, harbors, piece exchange.

    ``rules.deck`` is the train deck (its locomotives are the jokers) and
    ``rules.trains`` the most trains a player may hold; the piece supply is here.
    """

    ship_deck: ShipDeck
    # Cards with the harbor symbol: per colour, train cards and single-ship cards.
    harbor_train_cards_per_color: int = Field(ge=0)
    harbor_ship_cards_per_color: int = Field(ge=0)
    deal_train_cards: int = Field(ge=0)
    deal_ship_cards: int = Field(ge=0)
    market_train_cards: int = Field(ge=0)
    market_ship_cards: int = Field(ge=0)
    pieces: int = Field(ge=1)
    max_trains: int = Field(ge=0)
    max_ships: int = Field(ge=0)
    suggested_trains: int = Field(ge=0)
    suggested_ships: int = Field(ge=0)
    harbors_per_player: int = Field(ge=0)
    # Cost of a harbor: this many train and ship cards, one colour, all with the symbol.
    harbor_train_cards: int = Field(ge=0)
    harbor_ship_cards: int = Field(ge=0)
    # Points of a built harbor for 1, 2, 3+ completed tickets naming it (0 tickets: 0).
    harbor_points: list[int] = Field(min_length=1)
    unbuilt_harbor_points: int = Field(le=0)
    exchange_points_per_piece: int = Field(le=0)
    rough_terrain_cards_per_space: int = Field(ge=1)

    @model_validator(mode="after")
    def _check(self) -> RailsAndSails:
        if self.suggested_trains + self.suggested_ships != self.pieces:
            raise ValueError("the suggested split does not add up to the pieces")
        if self.max_trains + self.max_ships < self.pieces:
            raise ValueError("max_trains + max_ships is below the pieces")
        return self


class Rules(_Strict):
    players_min: int = Field(ge=1)
    players_max: int = Field(le=5)
    trains: int = Field(ge=1)
    route_points: dict[int, int]
    deck: Deck = Deck()
    market_size: int = Field(default=5, ge=1, le=MARKET_SLOTS)
    # Train cards dealt to each player at setup (Rails & Sails deals from two decks instead).
    starting_cards: int = Field(default=4, ge=0)
    # Base rule: a face-up locomotive is a whole draw, and never a second card.
    face_up_locomotive_counts_two: bool = True
    # Market reset when this many locomotives lie face up (None: never).
    market_reset_locomotives: int | None = 3
    # Nordic: locomotives only pay for tunnels and ferries.
    locomotives_only_tunnels_ferries: bool = False
    # Nordic (seed 000): with the deck and the discards empty no card may be taken, face-up
    # ones included (the base rule lets the face-up cards be taken).
    empty_deck_closes_market: bool = False
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
    shares: Shares | None = None
    festivals: Festivals | None = None
    rails_and_sails: RailsAndSails | None = None

    @model_validator(mode="after")
    def _check(self) -> Rules:
        if self.players_min > self.players_max:
            raise ValueError("players_min is above players_max")
        for module in ("stations", "shares", "festivals", "rails_and_sails"):
            if (module in self.modules) != (getattr(self, module) is not None):
                raise ValueError(f"the {module} module and the {module} section go together")
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
            label = f"route {r.id} ({r.a}-{r.b})"
            if twin is None:
                out.append(f"{label}: double_of names unknown route {r.double_of}")
            elif twin.double_of != r.id:
                out.append(f"{label}: double_of {r.double_of} is not symmetric")
            elif {twin.a, twin.b} != {r.a, r.b}:
                out.append(f"{label}: its double {twin.id} joins other cities")
    for t in m.tickets:
        for c in t.cities:
            if c not in cities:
                out.append(f"ticket {t.id} ({'-'.join(t.cities)}): unknown city {c!r}")
    out += _module_problems(m)
    if m.board.coordinates == "board":
        for city in m.cities:
            if city.x is None or city.y is None:
                out.append(f"city {city.id}: no board position on a board-coordinate map")
    return out


def _module_problems(m: MapData) -> list[str]:
    """References into the optional rule sections, and fields only some maps may use."""
    out: list[str] = []
    rules = m.rules
    by_id = {c.id: c for c in m.cities}
    routes = {r.id: r for r in m.routes}
    companies = {c.id for c in rules.shares.companies} if rules.shares else set()
    ship_colors = (
        {*rules.rails_and_sails.ship_deck.colors, "gray"} if rules.rails_and_sails else set()
    )
    for r in m.routes:
        label = f"route {r.id} ({r.a}-{r.b})"
        for company in r.shares:
            if company not in companies:
                out.append(f"{label}: unknown company {company!r}")
        if r.kind == "ship":
            if rules.rails_and_sails is None:
                out.append(f"{label}: ship route without the rails_and_sails module")
            elif r.color not in ship_colors:
                out.append(f"{label}: colour {r.color!r} is not in the ship deck")
            if r.tunnel or r.ferry_locomotives or r.rough_terrain:
                out.append(f"{label}: a ship route cannot be a tunnel, ferry or rough terrain")
        if r.crosses_antimeridian and not m.board.wraps_east_west:
            out.append(f"{label}: crosses the board edge on a board that does not wrap")
        twin = routes.get(r.double_of) if r.double_of is not None else None
        if twin is not None and twin.kind != r.kind:
            out.append(f"{label}: its double {twin.id} is a {twin.kind} route")
    piles = {p.id for p in rules.festivals.piles} if rules.festivals else set()
    used_piles: set[str] = set()
    for c in m.cities:
        if c.festival_pile is not None:
            used_piles.add(c.festival_pile)
            if c.festival_pile not in piles:
                out.append(f"city {c.id}: unknown festival pile {c.festival_pile!r}")
        if c.harbor and rules.rails_and_sails is None:
            out.append(f"city {c.id}: harbor without the rails_and_sails module")
        for spot in c.board_spots:
            if not any({r.a, r.b} == {c.id, spot.routes_to} for r in m.routes):
                out.append(f"city {c.id}: board spot for {spot.routes_to!r}, which no route joins")
    for pile in sorted(piles - used_piles):
        out.append(f"festival pile {pile!r}: no city uses it")
    if rules.festivals:
        for n in rules.festivals.draft_card_depth:
            if not rules.players_min <= n <= rules.players_max:
                out.append(f"festivals.draft_card_depth: {n} players is outside the map's range")
    for t in m.tickets:
        label = f"ticket {t.id} ({'-'.join(t.cities)})"
        for cid in t.cities:
            if cid in by_id and by_id[cid].transit_point:
                out.append(f"{label}: {cid!r} is a transit point, not a destination")
        if t.points_any_order is not None and not 0 < t.points_any_order < t.points:
            out.append(f"{label}: the any-order value must lie between 0 and the full value")
    return out
