"""What each audience may see of a game.

Everything shown in a channel is built from ``PublicView`` alone, so hidden
information cannot leak by construction; ``PrivateView`` is one player's
secret part. Both are plain pydantic models: cheap to serialise, easy to
render, and the renderer never needs the full state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from engine.board import Board
from engine.cards import CARD_NAMES
from engine.hooks import RuleModule, rule_modules
from engine.phases import Phase
from engine.scoring import FinalScores as FinalScores  # the score models are views too
from engine.scoring import PlayerScore as PlayerScore
from engine.scoring import TicketResult as TicketResult
from engine.scoring import connected_tickets, final_scores
from engine.state import GameState
from engine.turns import (
    market_closed,
    simultaneous,
    takeable_slots,
    tickets_closed,
    waiting_for,
)


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class PublicPlayer(_View):
    seat: int
    name: str
    score: int  # public score: route points only until the final scoring
    trains: int
    stations: int  # unbuilt stations left (0 on maps without stations)
    hand_size: int
    tickets: int
    # A decision this player must still make (e.g. initial tickets), without its content.
    deciding: bool = False


class PendingTunnel(_View):
    """A tunnel claim waiting for its player to pay or decline; the reveal is public."""

    seat: int
    route: int
    color: str  # the colour the tunnel was played in, or "locomotive"
    revealed: list[str]
    extra: int


class DraftStatus(_View):
    """A ticket draft in progress (Iberia): which pick of how many, and which draft."""

    round: int
    rounds: int
    second: bool


class PublicView(_View):
    map_id: str
    turn: int  # 1-based count of turns started
    phase: Phase
    current: int | None  # seat whose turn it is; None during simultaneous setup or at the end
    players: list[PublicPlayer]
    market: list[str | None]  # card names, None for an empty slot
    deck: int  # cards in the train deck, ``deck_special`` included
    deck_special: int = 0  # Iberia: festival and draft cards among ``deck``
    discards: int
    tickets_left: int
    claimed: dict[int, int]  # route id -> seat
    closed: list[int]  # route ids no longer claimable (twin of a claimed double in small games)
    # Seat -> free route ids closed to that seat alone: it owns the other track of the double
    # (in games big enough to use both tracks; in small ones these are in ``closed``).
    closed_to: dict[int, list[int]] = {}
    stations: dict[str, int]  # city id -> seat
    last_round: bool
    can_draw_tickets: bool = True  # False when the deck is empty or the map forbids it now
    market_closed: bool = False  # Nordic: no face-up card may be taken (deck and discards empty)
    # The market slots the player whose turn it is may take a card from now (a draw's first
    # or second card; empty in any other phase).
    takeable_slots: list[int] = []
    tunnel: PendingTunnel | None = None
    final: FinalScores | None = None
    # Pennsylvania: shares left in each company's stack, and the neutral pile's size.
    share_stacks: dict[str, int] = {}
    neutral_shares: int = 0
    # Pennsylvania, revealed once the game is over: each seat's shares per company, and the
    # neutral investor's revealed shares per company (2 players), to check the majorities.
    shares_held: list[dict[str, int]] = []
    neutral_revealed: dict[str, int] = {}
    # Iberia: festival cards lying at each pile's city (pile id -> count).
    festival_piles: dict[str, int] = {}
    draft: DraftStatus | None = None
    # Rails & Sails: the ship deck and its discards (``deck`` is the train deck), and the
    # harbors built (city id -> seat). ``PublicPlayer.trains`` counts trains and ships.
    ship_deck: int = 0
    ship_discards: int = 0
    harbors: dict[str, int] = {}
    # Rails & Sails, once everyone has chosen: each seat's trains and ships in supply
    # (empty while the splits are still secret).
    piece_split: list[dict[str, int]] = []


class TicketView(_View):
    id: int
    cities: list[str]
    points: int
    long: bool = False
    connected: bool = False


class PrivateView(_View):
    seat: int
    hand: dict[str, int]  # card name -> count, only non-zero
    tickets: list[TicketView]
    offered: list[TicketView]  # tickets drawn and waiting for the keep decision
    keep_min: int  # how many of ``offered`` must be kept (0 when nothing is offered)
    # Tickets this seat turned down, in order (they left the game or lie under the deck).
    returned: list[TicketView] = []
    # Pennsylvania: share numbers held per company, and companies to choose from now.
    shares: dict[str, list[int]] = {}
    share_options: list[str] = []
    # Iberia: festival cards held per pile, piles to choose from, the draft packet in front
    # of the player, the tickets it has picked in this draft so far, and the most tickets
    # that may be kept (None: no limit).
    festival_cards: dict[str, int] = {}
    festival_options: list[str] = []
    draft_packet: list[TicketView] = []
    draft_picked: list[TicketView] = []
    keep_max: int | None = None
    # Rails & Sails: trains and ships in supply and in the reserve (secret), harbors left.
    pieces: dict[str, int] = {}
    harbors_left: int = 0


# Builders ---------------------------------------------------------------------------------


def public_view(state: GameState) -> PublicView:
    board = state.board
    names = CARD_NAMES
    n = state.n_players
    over = state.phase == Phase.GAME_OVER
    small = n < board.rules.double_routes_min_players
    claimed = {board.route_ids[r]: s for r, s in enumerate(state.owner) if s >= 0}
    closed: list[int] = []
    closed_to: dict[int, list[int]] = {}
    for r, s in enumerate(state.owner):
        twin = board.r_twin[r]
        if s < 0 and twin >= 0 and state.owner[twin] >= 0:
            if small:
                closed.append(board.route_ids[r])
            else:
                closed_to.setdefault(state.owner[twin], []).append(board.route_ids[r])
    tunnel = state.tunnel
    # Seats still choosing their first tickets, or (Rails & Sails) their pieces after them.
    setup = set(waiting_for(state)) if state.phase == Phase.CHOOSE_INITIAL_TICKETS else set()
    return PublicView(
        map_id=board.map.id,
        turn=state.turn,
        phase=state.phase,
        current=None if over or simultaneous(state) else state.current,
        players=[
            PublicPlayer(
                seat=s,
                name=state.config.players[s],
                score=state.scores[s],
                trains=state.trains[s],
                stations=state.stations_left[s],
                hand_size=sum(state.hands[s])
                + (sum(tunnel.paid) if tunnel and tunnel.seat == s else 0),
                tickets=len(state.tickets[s]),
                deciding=bool(state.offered[s]) or s in setup,
            )
            for s in range(n)
        ],
        market=[names[c] if c >= 0 else None for c in state.market],
        deck=len(state.deck),
        discards=len(state.discards),
        tickets_left=len(state.ticket_deck),
        claimed=claimed,
        closed=closed,
        closed_to=closed_to,
        stations={board.city_ids[c]: s for c, s in state.stations.items()},
        last_round=state.turns_left >= 0,
        can_draw_tickets=tickets_closed(state) is None,
        market_closed=market_closed(state),
        takeable_slots=takeable_slots(state),
        tunnel=None
        if tunnel is None
        else PendingTunnel(
            seat=tunnel.seat,
            route=board.route_ids[tunnel.route],
            color=names[tunnel.color],
            revealed=[names[c] for c in tunnel.revealed],
            extra=tunnel.extra,
        ),
        final=final_scores(state) if over else None,
        **_module_fields(state, lambda m: m.public_fields(state)),
    )


def ticket_view(board: Board, t: int, connected: bool = False) -> TicketView:
    return TicketView(
        id=board.t_ids[t],
        cities=list(board.map.tickets[t].cities),
        points=board.t_points[t],
        long=board.t_long[t],
        connected=connected,
    )


def private_view(state: GameState, seat: int) -> PrivateView:
    board = state.board
    done = connected_tickets(state, seat)

    def ticket(t: int) -> TicketView:
        return ticket_view(board, t, t in done)

    hand = [
        n + (state.tunnel.paid[c] if state.tunnel and state.tunnel.seat == seat else 0)
        for c, n in enumerate(state.hands[seat])
    ]
    return PrivateView(
        seat=seat,
        hand={CARD_NAMES[c]: n for c, n in enumerate(hand) if n},
        tickets=[ticket(t) for t in state.tickets[seat]],
        offered=[ticket(t) for t in state.offered[seat]],
        keep_min=state.keep_min[seat],
        returned=[ticket_view(board, t) for t in state.returned[seat]],
        **_module_fields(state, lambda m: m.private_fields(state, seat)),
    )


def _module_fields(
    state: GameState, fields: Callable[[RuleModule], dict[str, Any]]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for module in rule_modules(state):
        out.update(fields(module))
    return out
