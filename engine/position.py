"""Positions by name: set up any position from card names, route, ticket and city ids.

The way python-chess sets a board from a FEN, ``setup_position(state, position)``
writes a ``Position`` into a game, and ``position_of(state)`` reads one back,
so rule tests, computer players' search and bug reports all speak the same
names instead of the engine's internal indexes::

    state = new_game(GameConfig(map_id="europe", players=["Ann", "Bob"], seed=1))
    setup_position(state, Position(
        phase="turn", current=0, offered={0: [], 1: []},
        hands={0: {"red": 3, "locomotive": 1}},
        deck_top=["blue", "blue", "locomotive"],  # drawn in this order
        owners={101: 1},                           # route id -> seat
        stations={"paris": 0},                     # city id -> seat
    ))

A decision left pending (a tunnel's extra cards, a Pennsylvania share, an Iberia festival
pile or ticket draft, a Rails & Sails piece split) is set by its phase and its own field
(``tunnel``, ``share_choice``, ``festival_choice``, ``draft``, ``pieces_chosen``); the
seat deciding a tunnel, share or festival is ``current``. A phase given that is not the
decision's ends a decision the game had pending.

Every field left ``None`` keeps what the game has. A field given replaces that part
of the game, except the fields keyed by seat, route or city: they change only the
keys they name (``None`` as a value frees a route or city). Giving a route to a seat
counts as a claim for its pieces and public score (freeing one gives them back);
building a station uses one of the seat's stations (these follow explicit ``trains``,
``scores`` and ``stations_left`` when given too). Decks and ticket lists are top
first: the first name is drawn first. Cards are not conserved for you: a position
names every pile it cares about. Names that are not on the map raise ``ValueError``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from engine import payment
from engine.board import Board
from engine.cards import CARD_INDEX, CARD_NAMES
from engine.hooks import rule_modules
from engine.phases import Phase
from engine.state import GameState, TunnelPending

CardCounts = dict[str, int]


class _Named(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TunnelChoice(_Named):
    """A tunnel claimed by ``current``, waiting for the extra cards (phase "tunnel"): the
    route, the cards played, and the cards revealed (the extra asked follows from them)."""

    route: int
    paid: CardCounts
    revealed: list[str]


class ShareChoice(_Named):
    """Pennsylvania: the share ``current`` chooses for the route just claimed (phase
    "choose_share"), or gives the neutral investor (phase "choose_neutral_share");
    ``options`` default to the route's companies with shares left."""

    route: int
    options: list[str] | None = None


class PendingDraft(_Named):
    """Iberia: a ticket draft in progress. Phase "draft": the packet in front of each seat
    and the tickets each picked so far, and who has picked this round; phase "draft_keep":
    each seat's picks wait in ``offered`` (``keep_min`` of them at least, ``keep`` at
    most) and ``returned`` holds the picks turned down so far."""

    second: bool = False  # the second draft (its card came up), not the one at setup
    keep: int
    packets: dict[int, list[int]] = {}
    picked: dict[int, list[int]] = {}
    done: dict[int, bool] = {}
    returned: list[int] = []


class Position(BaseModel):
    """A game position by names; see the module's documentation for the conventions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # Turn order.
    phase: Phase | None = None
    current: int | None = None  # seat whose turn it is
    turn: int | None = None
    turns_left: int | None = None  # turns still to play once the end is triggered, else -1
    # Cards (card names; decks top first).
    hands: dict[int, CardCounts] | None = None  # seat -> exactly these cards
    deck: list[str] | None = None  # the whole train deck
    deck_top: list[str] | None = None  # put on top of the deck as it is
    discards: list[str] | None = None
    market: list[str | None] | None = None  # None: an empty slot
    # Tickets (ticket ids).
    tickets: dict[int, list[int]] | None = None  # seat -> tickets held
    offered: dict[int, list[int]] | None = None  # seat -> tickets waiting for a keep decision
    keep_min: dict[int, int] | None = None  # seat -> how many of ``offered`` to keep
    returned: dict[int, list[int]] | None = None  # seat -> tickets it turned down, in order
    ticket_deck: list[int] | None = None
    # The board.
    owners: dict[int, int | None] | None = None  # route id -> seat (None: free)
    stations: dict[str, int | None] | None = None  # city id -> seat (None: none)
    trains: dict[int, int] | None = None  # seat -> pieces left (trains and ships)
    scores: dict[int, int] | None = None  # seat -> public score
    stations_left: dict[int, int] | None = None  # seat -> stations not built yet
    # A tunnel waiting for its extra cards (phase "tunnel").
    tunnel: TunnelChoice | None = None
    # Pennsylvania: share numbers per company held by each seat and by the neutral investor,
    # and a share choice pending.
    shares: dict[int, dict[str, list[int]]] | None = None
    neutral_shares: dict[str, list[int]] | None = None
    share_choice: ShareChoice | None = None
    # Iberia: festival cards lying at each pile, and held per seat (pile id -> count).
    festival_piles: dict[str, int] | None = None
    festival_cards: dict[int, dict[str, int]] | None = None
    # Iberia: whether the second ticket draft is over (until then no tickets may be drawn),
    # whether its card came up this turn (the draft starts when the turn ends), a draft in
    # progress (a phase other than a draft's ends one: its packets leave play), and the
    # festival piles (ids) to choose from for the route just claimed (phase "choose_festival").
    second_draft_done: bool | None = None
    second_draft_due: bool | None = None
    draft: PendingDraft | None = None
    festival_choice: list[str] | None = None
    # Rails & Sails: the ship deck and its discards, each seat's trains and ships in supply
    # and in reserve ("trains", "ships", "reserve_trains", "reserve_ships"), harbors built
    # (city id -> seat) and harbors left to build.
    ship_deck: list[str] | None = None
    ship_discards: list[str] | None = None
    pieces: dict[int, dict[str, int]] | None = None
    pieces_chosen: dict[int, bool] | None = None  # seat -> split chosen (phase "choose_pieces")
    harbors: dict[str, int | None] | None = None
    harbors_left: dict[int, int] | None = None


# Names <-> indexes --------------------------------------------------------------------------


def card_codes(state: GameState) -> dict[str, int]:
    """Every card name of ``state``'s map (with its special deck cards) -> its code."""
    codes = {name: i for i, name in enumerate(CARD_NAMES[: state.board.hand_kinds])}
    for module in rule_modules(state):
        codes.update(module.special_cards(state))
    return codes


def _cards(state: GameState, names: list[str]) -> list[int]:
    codes = card_codes(state)
    for name in names:
        if name not in codes:
            raise ValueError(f"no card {name!r} on {state.board.map.id}: use {sorted(codes)}")
    return [codes[n] for n in names]


def _deck(state: GameState, top_first: list[str]) -> list[int]:
    """A deck list from names top first (the engine's top card is the list's end)."""
    return _cards(state, top_first)[::-1]


def _card_names(state: GameState, codes: list[int]) -> list[str]:
    names = {c: n for n, c in card_codes(state).items()}
    return [names[c] for c in codes]


def hand_counts(state: GameState, cards: CardCounts) -> list[int]:
    """A hand's counts from {card name: count}."""
    hand = [0] * state.board.hand_kinds
    for name, n in cards.items():
        i = CARD_INDEX.get(name, len(hand))
        if i >= len(hand) or n < 0:
            raise ValueError(f"no card {name!r} (or a negative count) in a hand on this map")
        hand[i] += n
    return hand


def route_index(board: Board, route_id: int) -> int:
    if route_id not in board.route_index:
        raise ValueError(f"no route {route_id} on {board.map.id}")
    return board.route_index[route_id]


def city_index(board: Board, city_id: str) -> int:
    if city_id not in board.city_index:
        raise ValueError(f"no city {city_id!r} on {board.map.id}")
    return board.city_index[city_id]


def ticket_indexes(board: Board, ticket_ids: list[int]) -> list[int]:
    for t in ticket_ids:
        if t not in board.t_index:
            raise ValueError(f"no ticket {t} on {board.map.id}")
    return [board.t_index[t] for t in ticket_ids]


def _seat(state: GameState, seat: int) -> int:
    if not 0 <= seat < state.n_players:
        raise ValueError(f"no seat {seat} in a {state.n_players}-player game")
    return seat


# Writing and reading ------------------------------------------------------------------------


def setup_position(state: GameState, position: Position) -> None:
    """Write ``position`` into ``state`` (in place); see the module documentation."""
    board = state.board
    p = position
    if p.current is not None:
        state.current = _seat(state, p.current)
    for name in ("phase", "turn", "turns_left"):
        if getattr(p, name) is not None:
            setattr(state, name, getattr(p, name))
    for seat, cards in (p.hands or {}).items():
        state.hands[_seat(state, seat)] = hand_counts(state, cards)
    if p.deck is not None:
        state.deck = _deck(state, p.deck)
    if p.deck_top is not None:
        state.deck.extend(_deck(state, p.deck_top))
    if p.discards is not None:
        state.discards = _cards(state, p.discards)
    if p.market is not None:
        state.market = [-1 if n is None else c for n, c in _market(state, p.market)]
    for seat, ids in (p.tickets or {}).items():
        state.tickets[_seat(state, seat)] = ticket_indexes(board, ids)
    for seat, ids in (p.offered or {}).items():
        state.offered[_seat(state, seat)] = ticket_indexes(board, ids)
        state.keep_min[seat] = min(state.keep_min[seat], len(ids))
    for seat, n in (p.keep_min or {}).items():
        state.keep_min[_seat(state, seat)] = n
    for seat, ids in (p.returned or {}).items():
        state.returned[_seat(state, seat)] = ticket_indexes(board, ids)
    if p.ticket_deck is not None:
        state.ticket_deck = ticket_indexes(board, p.ticket_deck)[::-1]
    modules = rule_modules(state)
    for route_id, owner in (p.owners or {}).items():
        r = route_index(board, route_id)
        new = -1 if owner is None else _seat(state, owner)
        old = state.owner[r]
        if old != new:
            for who, sign in ((old, 1), (new, -1)):
                if who >= 0:  # a claim takes pieces and scores; freeing gives them back
                    state.trains[who] += sign * board.r_len[r]
                    state.scores[who] -= sign * board.r_points[r]
                    for module in modules:
                        module.move_pieces(state, who, r, sign * board.r_len[r])
            state.owner[r] = new
    for city_id, builder in (p.stations or {}).items():
        c = city_index(board, city_id)
        old = state.stations.pop(c, -1)
        if old >= 0:
            state.stations_left[old] += 1
        if builder is not None:
            state.stations[c] = _seat(state, builder)
            state.stations_left[builder] -= 1
    for field in ("trains", "scores", "stations_left"):
        for seat, n in (getattr(p, field) or {}).items():
            getattr(state, field)[_seat(state, seat)] = n
    _set_tunnel(state, p)
    given = {k: v for k, v in p if v is not None}
    for module in modules:
        module.set_position(state, given)
    state.final_cache = None


def _set_tunnel(state: GameState, p: Position) -> None:
    if p.phase is not None and p.phase != Phase.TUNNEL:
        state.tunnel = None
    if p.tunnel is not None:
        board = state.board
        r = route_index(board, p.tunnel.route)
        paid = hand_counts(state, p.tunnel.paid)
        colour = payment.claim_colour(board, r, paid)
        if colour == payment.NO:
            raise ValueError(f"{p.tunnel.paid} is no payment for route {p.tunnel.route}")
        revealed = _cards(state, p.tunnel.revealed)
        state.tunnel = TunnelPending(
            seat=state.current,
            route=r,
            paid=paid,
            color=colour,
            revealed=revealed,
            extra=payment.tunnel_extra_asked(revealed, colour),
        )
    if state.phase == Phase.TUNNEL and state.tunnel is None:
        raise ValueError('phase "tunnel" needs a tunnel')


def _market(state: GameState, names: list[str | None]) -> list[tuple[str | None, int]]:
    cards = _cards(state, [n for n in names if n is not None])
    it = iter(cards)
    return [(n, -1 if n is None else next(it)) for n in names]


def position_of(state: GameState) -> Position:
    """The whole position of ``state`` by names: ``setup_position`` of it on a new game of
    the same config gives the same state (the random generator aside), decisions pending
    included."""
    board, names = state.board, CARD_NAMES
    tunnel = state.tunnel
    fields: dict[str, Any] = {}
    if tunnel is not None:
        fields["tunnel"] = TunnelChoice(
            route=board.route_ids[tunnel.route],
            paid={names[c]: k for c, k in enumerate(tunnel.paid) if k},
            revealed=_card_names(state, tunnel.revealed),
        )
    for module in rule_modules(state):
        fields.update(module.position_fields(state))
    return Position(
        phase=state.phase,
        current=state.current,
        turn=state.turn,
        turns_left=state.turns_left,
        hands={s: {names[c]: k for c, k in enumerate(h) if k} for s, h in enumerate(state.hands)},
        deck=_card_names(state, state.deck[::-1]),
        discards=_card_names(state, state.discards),
        market=[None if c < 0 else _card_names(state, [c])[0] for c in state.market],
        tickets={s: [board.t_ids[t] for t in ts] for s, ts in enumerate(state.tickets)},
        offered={s: [board.t_ids[t] for t in ts] for s, ts in enumerate(state.offered)},
        keep_min=dict(enumerate(state.keep_min)),
        returned={s: [board.t_ids[t] for t in ts] for s, ts in enumerate(state.returned)},
        ticket_deck=[board.t_ids[t] for t in state.ticket_deck[::-1]],
        owners={board.route_ids[r]: s for r, s in enumerate(state.owner) if s >= 0},
        stations={board.city_ids[c]: s for c, s in sorted(state.stations.items())},
        trains=dict(enumerate(state.trains)),
        scores=dict(enumerate(state.scores)),
        stations_left=dict(enumerate(state.stations_left)),
        **fields,
    )
