"""The turn machinery under both the rule modules and the dispatcher.

Whose turn it is and who must decide, spending cards, drawing from a deck,
checking a ticket choice, whether a route is open, and ending a turn (with
the last round, passes and the end of the game). The rule modules build on
these; ``engine.game`` dispatches actions to the core handlers and the modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import le, sub

from engine import payment
from engine.actions import DrawFaceUp, KeepTickets
from engine.cards import LOCO, SPECIAL
from engine.errors import IllegalAction, Text
from engine.events import (
    DeckReshuffled,
    Event,
    GameEnded,
    LastRound,
    MarketReset,
    TurnSkipped,
    TurnStarted,
)
from engine.hooks import plan_of, rule_modules
from engine.phases import (
    CHOOSE_INITIAL_TICKETS,
    CHOOSE_TICKETS,
    GAME_OVER,
    SECOND_DRAW,
    TUNNEL,
    TURN,
    Phase,
)
from engine.scoring import final_scores
from engine.state import GameState

# Whose turn -------------------------------------------------------------------------------


def waiting_for(state: GameState) -> list[int]:
    """Seats that must act now."""
    phase = state.phase
    if phase == GAME_OVER:
        return []
    if phase == CHOOSE_INITIAL_TICKETS:
        early = {s for m in rule_modules(state) if m.early_phase for s in m.waiting_for(state)}
        return [s for s in range(state.n_players) if state.offered[s] or s in early]
    module = (state.plan or plan_of(state)).phases.get(phase)  # one of a map's own phases?
    return [state.current] if module is None else module.waiting_for(state)


def simultaneous(state: GameState) -> bool:
    """Whether the phase is a decision everyone takes at once (so nobody is 'current')."""
    return state.phase.simultaneous


def player_name(state: GameState, seat: int) -> str:
    return state.config.players[seat]


def require_turn(state: GameState, seat: int, *phases: Phase) -> None:
    """Raise unless it is ``seat``'s turn and the game is in one of ``phases``."""
    phase = state.phase
    if phase == CHOOSE_INITIAL_TICKETS:
        raise IllegalAction("Everyone is still choosing their first destination tickets.")
    if seat != state.current:
        raise IllegalAction("It is {player}'s turn, not yours.",
                            player=player_name(state, seat=state.current))
    if phase in phases:
        return
    for module in rule_modules(state):
        if phase in module.phases:
            raise IllegalAction(module.phases[phase])
    raise IllegalAction(_FIRST.get(phase, Text("You cannot do that now.")))


# What a player must finish before anything else, by phase.
_FIRST = {
    SECOND_DRAW: Text(
        "Finish your draw first: take a second card from the market or the deck."),
    CHOOSE_TICKETS: Text("Choose which of your new destination tickets to keep first."),
    TUNNEL: Text("Pay the tunnel's extra cards or decline it first."),
    TURN: Text("You cannot do that now: choose an action for your turn."),
}


def spend(state: GameState, seat: int, pay: Sequence[int]) -> None:
    """Take ``pay`` out of ``seat``'s hand, or refuse naming the cards that are missing."""
    hand = state.hands[seat]
    if len(pay) != len(hand) or not all(map(le, pay, hand)):
        missing = payment.missing_cards(pay, hand)
        raise IllegalAction("You do not hold those cards: you are missing {cards}.",
                            cards=missing)
    hand[:] = map(sub, hand, pay)  # as many counts in a payment as in a hand


# Cards ------------------------------------------------------------------------------------


def draw_top(
    state: GameState, deck: list[int], discards: list[int], seat: int, events: list[Event]
) -> int:
    """Top card of ``deck``, shuffling ``discards`` into it when it is empty; -1 if none."""
    if not deck:
        if not discards:
            return -1
        deck.extend(discards)
        discards.clear()
        state.rng.shuffle(deck)
        events.append(DeckReshuffled(seat, len(deck)))
    return deck.pop()


def draw_card(state: GameState, seat: int, events: list[Event]) -> int:
    """Top card of the train deck; a map's special card is placed and replaced."""
    deck = state.deck
    card = deck.pop() if deck else draw_top(state, deck, state.discards, seat, events)
    if card >= SPECIAL:  # a map's special card (Iberia's festivals): its module places it
        for module in rule_modules(state):
            module.on_special_card(state, seat, card, events)
        return draw_card(state, seat, events)
    return card


def refill_market(state: GameState, seat: int, events: list[Event]) -> None:
    for module in (state.plan or plan_of(state)).refills:
        if module.refill_market(state, seat, events):
            return
    market = state.market
    i = -1
    for _ in range(market.count(-1)):  # the empty slots, in order (usually one)
        i = market.index(-1, i + 1)
        market[i] = draw_card(state, seat, events)
    limit = state.board.rules.market_reset_locomotives
    if limit is None:
        return
    while market.count(LOCO) >= limit:
        in_deck = sum(1 for c in state.deck if c < SPECIAL)
        available = in_deck + len(state.discards) + len(market)
        non_locos = (
            available - state.deck.count(LOCO) - state.discards.count(LOCO) - market.count(LOCO)
        )
        if non_locos < len(market) - limit + 1 or available < len(market):
            return  # no deal could ever show fewer locomotives: leave the market as it is
        state.discards.extend(c for c in market if c != -1)
        for i in range(len(market)):
            market[i] = draw_card(state, seat, events)
        events.append(MarketReset(seat))


def cards_left(state: GameState) -> bool:
    """Whether a train card can be drawn: a deck of only special cards (Iberia's festival
    and draft cards) gives none once the discards are empty."""
    deck = state.deck
    # The top card tells at once but where a special card lies on top.
    return bool(state.discards) or (bool(deck) and (
        deck[-1] < SPECIAL or any(c < SPECIAL for c in deck)))


def market_closed(state: GameState) -> bool:
    """Whether the face-up cards may not be taken either: Nordic (seed 000) closes them
    while the deck and the discards are empty."""
    return state.board.rules.empty_deck_closes_market and not cards_left(state)


def takeable_slots(state: GameState) -> list[int]:
    """The market slots the seat whose turn it is may take a card from now (none outside a
    draw): the map's own draws where a rule module lists them, else any card (Nordic aside,
    not while the market is closed) but a locomotive as a second card where it counts two."""
    phase = state.phase
    if phase not in (TURN, SECOND_DRAW):
        return []
    own = (state.plan or plan_of(state)).own_turn
    if own is not None:
        return sorted({a.slot for a in own.draw_actions(state, state.current)
                       if isinstance(a, DrawFaceUp)})
    return core_slots(state, cards_left(state))


def core_slots(state: GameState, cards: bool) -> list[int]:
    """``takeable_slots`` on a map without its own draws, ``cards``: ``cards_left``."""
    rules, market = state.board.rules, state.market
    if rules.empty_deck_closes_market and not cards:
        return []  # ``market_closed``
    if -1 not in market and (LOCO not in market or state.phase != SECOND_DRAW
                             or not rules.face_up_locomotive_counts_two):
        return list(range(len(market)))  # a full market, every card takeable: mostly
    if state.phase == SECOND_DRAW and rules.face_up_locomotive_counts_two:
        return [i for i, c in enumerate(market) if c != -1 and c != LOCO]
    return [i for i, c in enumerate(market) if c != -1]


# Why no card may be taken on such a map.
MARKET_CLOSED = Text("The deck and the discard pile are empty: on this map no card may be "
                     "taken, face-up ones included, until cards come back to the discards.")


# Tickets ----------------------------------------------------------------------------------


NO_TICKETS_LEFT = Text("There are no destination tickets left to draw.")


def tickets_closed(state: GameState) -> Text | None:
    """Why drawing tickets is not possible now (empty deck, a map's rule), or None."""
    if not state.ticket_deck:
        return NO_TICKETS_LEFT
    for module in (state.plan or plan_of(state)).tickets:
        why = module.tickets_closed(state)
        if why:
            return why
    return None


def chosen_tickets(
    state: GameState, seat: int, action: KeepTickets, keep_max: int | None = None
) -> tuple[list[int], list[int]]:
    """Check a choice among ``seat``'s offered tickets; (kept, returned) ticket indexes."""
    offer = state.offered[seat]
    if not offer:
        raise IllegalAction("You have already chosen your destination tickets.")
    board = state.board
    keep: list[int] = []
    for ticket_id in action.tickets:
        t = board.t_index.get(ticket_id, -1)
        if t not in offer:
            raise IllegalAction("Ticket {ticket} is not one of the tickets offered to you.",
                                ticket=ticket_id)
        if t in keep:
            raise IllegalAction("You chose ticket {ticket} twice.", ticket=board.ticket_name(t))
        keep.append(t)
    need = state.keep_min[seat]
    if keep_max is not None and not need <= len(keep) <= keep_max:
        if need == keep_max:
            raise IllegalAction("Keep exactly {need} of your {offered} tickets; you chose "
                                "{chosen}.", need=need, offered=len(offer), chosen=len(keep))
        raise IllegalAction("Keep {need} to {most} of your {offered} tickets; you chose "
                            "{chosen}.", need=need, most=keep_max, offered=len(offer),
                            chosen=len(keep))
    if len(keep) < need:
        raise IllegalAction("Keep at least {need} of your {offered} tickets; you chose {chosen}.",
                            need=need, offered=len(offer), chosen=len(keep))
    state.tickets[seat].extend(t for t in offer if t in keep)
    state.offered[seat] = []
    state.keep_min[seat] = 0
    return keep, [t for t in offer if t not in keep]


# Routes -----------------------------------------------------------------------------------


def _double_closed(state: GameState, seat: int, r: int) -> Text | None:
    """Why the double-route rule forbids ``seat`` to claim ``r``, or None."""
    twin = state.board.r_twin[r]
    if twin < 0 or state.owner[twin] < 0:
        return None
    name = state.board.route_name(r)
    if state.owner[twin] == seat:
        return Text("You already own the other track of {route}; nobody may claim both.",
                    route=name)
    need = state.board.rules.double_routes_min_players
    if state.n_players < need:
        return Text("The other track of {route} is taken, and with fewer than {n} players "
                    "only one track of a double route is used.", route=name, n=need)
    return None


def route_taken(state: GameState, seat: int, r: int) -> Text | None:
    """Why route ``r`` is not open to ``seat``: claimed, or the other track of a double."""
    owner = state.owner[r]
    if owner == seat:
        return Text("{route} is already claimed by you.", route=state.board.route_name(r))
    if owner >= 0:
        return Text("{route} is already claimed by {player}.", route=state.board.route_name(r),
                    player=player_name(state, owner))
    return _double_closed(state, seat, r)


def claim_problem(state: GameState, seat: int, r: int) -> Text | None:
    """Why ``seat`` cannot claim route ``r`` at all now (cards aside), or None."""
    board = state.board
    taken = route_taken(state, seat, r)
    if taken:
        return taken
    if state.trains[seat] < board.r_len[r]:
        return Text("{route} needs {n} trains; you have {left} left.",
                    route=board.route_name(r), n=board.r_len[r], left=state.trains[seat])
    return None


# Turn order and the end -------------------------------------------------------------------


def first_turn(state: GameState, events: list[Event]) -> list[Event]:
    """Setup is over: the first player starts."""
    state.phase = TURN
    state.turn = 1
    events.append(TurnStarted(state.current, state.turn))
    skip_stuck(state, events)
    return events


def end_turn(state: GameState, events: list[Event], skipped: bool = False) -> list[Event]:
    seat, n = state.current, state.n_players
    rules = state.board.rules
    if not skipped:
        state.skips = 0
    if state.turns_left > 0:
        state.turns_left -= 1
    elif state.turns_left < 0 and state.trains[seat] <= rules.end_trigger_pieces:
        state.turns_left = n * rules.final_turns
        events.append(LastRound(seat, state.turns_left))
    if state.turns_left == 0:
        game_over(state, "trains", events)
        return events
    market, limit = state.market, rules.market_reset_locomotives
    plan = state.plan or plan_of(state)
    if (-1 in market or (limit and market.count(LOCO) >= limit)) and (
        cards_left(state) or plan.own_turn
    ):
        # Cards spent since the market ran short fill its empty slots again, or make the
        # locomotive reset possible that was not before (a map with its own decks looks
        # at all of them: Rails & Sails' ship cards too).
        refill_market(state, seat, events)
    for module in plan.interrupts:
        if module.interrupts_turn_order(state, events):
            return events  # the module calls next_turn when its interlude is over
    return next_turn(state, events)


def next_turn(state: GameState, events: list[Event]) -> list[Event]:
    """Hand the turn to the next seat (passing those who cannot act)."""
    state.current = (state.current + 1) % state.n_players
    state.turn += 1
    state.phase = TURN
    events.append(TurnStarted(state.current, state.turn))
    skip_stuck(state, events)
    return events


def skip_stuck(state: GameState, events: list[Event]) -> None:
    """Pass the turn of a player with no legal action; a full round of passes ends the game."""
    deck = state.deck
    if (deck and deck[-1] < SPECIAL) or can_act(state, state.current):
        return  # (a train card on top of the deck: it can draw, as it nearly always can)
    state.skips += 1
    events.append(TurnSkipped(state.current))
    if state.skips >= state.n_players:
        game_over(state, "stalled", events)
        return
    end_turn(state, events, skipped=True)


def game_over(state: GameState, reason: str, events: list[Event]) -> None:
    state.phase = GAME_OVER
    state.reason = reason
    for module in rule_modules(state):
        module.on_game_over(state)
    final = final_scores(state)
    events.append(GameEnded(state.current, reason, tuple(final.winners)))


def can_act(state: GameState, seat: int) -> bool:
    """Whether ``seat`` has any legal action at the start of a turn."""
    if cards_left(state) or (any(c != -1 for c in state.market) and not market_closed(state)):
        return True
    if tickets_closed(state) is None:
        return True
    modules = rule_modules(state)
    if any(m.can_act(state, seat) for m in modules):
        return True
    if any(m.replaces_turn_actions for m in modules):
        return False
    hand = state.hands[seat]
    return any(
        claim_problem(state, seat, r) is None and payment.cheapest_claims(state.board, r, hand)
        for r in range(len(state.owner))
    )
