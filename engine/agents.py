"""A computer player that picks random legal actions, fast enough for thousands of games.

It samples instead of enumerating everything (``legal_actions`` would build
every option each turn); whatever it picks still goes through ``apply``'s
full checks. It prefers claiming a route when one it samples is affordable.
"""

from __future__ import annotations

import random

from engine import payment
from engine.actions import (
    Action,
    BuildStation,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    PayTunnel,
)
from engine.cards import LOCO, names_from_counts
from engine.errors import IllegalAction
from engine.game import legal_actions
from engine.modules.stations import station_cost
from engine.phases import Phase
from engine.state import GameState
from engine.turns import cards_left, claim_problem, market_closed, tickets_closed

ROUTE_SAMPLES = 10


def safe_action(state: GameState, seat: int, *, tickets: bool = False) -> Action:
    """The automatic move for an absent player (timed-out turn, resigned seat): the least
    committal legal choice. Draw blind rather than reveal a plan, else a face-up card;
    keep the fewest, cheapest tickets; decline a tunnel; in a map's own decision, its first
    option. Never new destination tickets (the absent player would pay for failing them):
    with no card to draw, the claim that spends the fewest cards, else any other action.

    Raises ``IllegalAction`` when ``seat`` has nothing to decide now, or when drawing
    tickets is all that is left, unless ``tickets`` allows it (a computer plays the seat
    for good and must move on).
    """
    board = state.board
    if state.offered[seat] and state.phase in (Phase.CHOOSE_INITIAL_TICKETS, Phase.CHOOSE_TICKETS):
        offer = sorted(state.offered[seat], key=lambda t: (board.t_points[t], board.t_ids[t]))
        return KeepTickets(tickets=[board.t_ids[t] for t in offer[: state.keep_min[seat]]])
    options = legal_actions(state, seat)
    if not options:
        raise IllegalAction("There is nothing for this seat to decide now.")
    for preferred in (DeclineTunnel, DrawBlind, DrawFaceUp):
        for option in options:
            if isinstance(option, preferred):
                return option
    claims = [o for o in options if isinstance(o, Claim)]
    if claims:
        return min(claims, key=lambda c: sum(c.cards.values()))
    others = [o for o in options if not isinstance(o, DrawTickets)]
    if others:
        return others[0]
    if tickets:
        return options[0]
    raise IllegalAction("Only new destination tickets could be drawn.")


def random_action(state: GameState, seat: int, rng: random.Random) -> Action:
    phase = state.phase
    board = state.board
    if phase in (Phase.CHOOSE_INITIAL_TICKETS, Phase.CHOOSE_TICKETS) and state.offered[seat]:
        offer = state.offered[seat]
        keep = rng.sample(offer, rng.randint(state.keep_min[seat], len(offer)))
        return KeepTickets(tickets=[board.t_ids[t] for t in keep])
    if phase == Phase.TUNNEL:
        tunnel = state.tunnel
        assert tunnel is not None
        affordable = payment.cheapest_tunnel_extra(state.hands[seat], tunnel.extra, tunnel.color)
        return PayTunnel() if affordable and rng.random() < 0.75 else DeclineTunnel()
    if phase not in (Phase.TURN, Phase.SECOND_DRAW) or board.rules.rails_and_sails:
        # A map module's decision (few options), or Rails & Sails' own cards and routes.
        return rng.choice(legal_actions(state, seat))
    if phase == Phase.TURN:
        hand = state.hands[seat]
        owner, lengths = state.owner, board.r_len
        n_routes = len(owner)
        # No route longer than this can be paid or placed: skip those without further checks.
        reach = min(state.trains[seat], max(hand[:LOCO]) + hand[LOCO])
        for _ in range(ROUTE_SAMPLES):
            r = int(rng.random() * n_routes)
            if (
                owner[r] < 0
                and (lengths[r] <= reach or board.r_ferry[r] or board.r_any_sub[r])
                and payment.can_afford(board, r, hand)
                and claim_problem(state, seat, r) is None
            ):
                options = payment.cheapest_claims(board, r, hand)
                return Claim(route=board.route_ids[r], cards=names_from_counts(rng.choice(options)))
        roll = rng.random()
        if roll < 0.04 and tickets_closed(state) is None:
            return DrawTickets()
        if roll > 0.97 and state.stations_left[seat]:
            costs = payment.cheapest_stations(hand, station_cost(state, seat))
            city = rng.randrange(len(board.city_ids))
            if costs and city not in state.stations:
                return BuildStation(city=board.city_ids[city], cards=names_from_counts(costs[0]))
    counts_two = board.rules.face_up_locomotive_counts_two and phase == Phase.SECOND_DRAW
    market = () if market_closed(state) else state.market
    slots = [i for i, c in enumerate(market) if c >= 0 and not (counts_two and c == LOCO)]
    blind = cards_left(state)
    if slots or blind:
        pick = rng.randrange(len(slots) + blind)
        return DrawFaceUp(slot=slots[pick]) if pick < len(slots) else DrawBlind()
    return rng.choice(legal_actions(state, seat))
