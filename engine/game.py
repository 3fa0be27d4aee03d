"""The rules: start a game, apply an action, list what a player may do.

``apply`` checks an action completely before it changes anything: it
either raises ``IllegalAction`` with a message for the player and leaves the
state as it was, or mutates the state and returns the public events.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from engine import payment
from engine.actions import (
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    PayTunnel,
)
from engine.board import board_for
from engine.cards import (
    CARD_NAMES,
    LOCO,
    N_CARDS,
    SPECIAL,
    counts_from_names,
    describe_cards,
    names_from_counts,
)
from engine.errors import IllegalAction
from engine.events import (
    CardDrawn,
    DeckReshuffled,
    Event,
    GameEnded,
    LastRound,
    MarketReset,
    RouteClaimed,
    TicketsDrawn,
    TicketsKept,
    TunnelDeclined,
    TunnelRevealed,
    TurnSkipped,
    TurnStarted,
)
from engine.hooks import Handler, RuleModule
from engine.state import GameConfig, GameState, TunnelPending

TUNNEL_REVEAL = 3


# Setup ------------------------------------------------------------------------------------


def new_game(config: GameConfig) -> GameState:
    state = GameState(config)
    rule_modules(state)  # refuses a map whose mechanics are not built yet
    rules, n = state.board.rules, state.n_players
    if not rules.players_min <= n <= rules.players_max:
        raise ValueError(
            f"{state.board.map.name} is for {rules.players_min}-{rules.players_max} "
            f"players, not {n}"
        )
    rng = state.rng
    deck = [
        c
        for c in range(LOCO)
        if CARD_NAMES[c] in rules.deck.colors
        for _ in range(rules.deck.per_color)
    ]
    deck += [LOCO] * rules.deck.locomotives
    rng.shuffle(deck)
    state.deck = deck
    for hand in state.hands:
        for _ in range(rules.starting_cards):
            hand[deck.pop()] += 1
    _refill_market(state, 0, [])
    board = state.board
    regular = [t for t in range(len(board.t_ids)) if not board.t_long[t]]
    longs = [t for t in range(len(board.t_ids)) if board.t_long[t]]
    rng.shuffle(regular)
    rng.shuffle(longs)
    deal = rules.setup_tickets
    for seat in range(n):
        offer = [longs.pop() for _ in range(min(deal.deal_long, len(longs)))]
        offer += [regular.pop() for _ in range(min(deal.deal, len(regular)))]
        state.offered[seat] = offer
        state.keep_min[seat] = min(deal.keep_min, len(offer))
    state.ticket_deck = regular  # undealt long tickets leave the game unseen
    state.first_player = state.current = rng.randrange(n)
    for module in rule_modules(state):
        module.setup(state)
    return state


# Dispatch ---------------------------------------------------------------------------------


def apply(state: GameState, seat: int, action: Action) -> list[Event]:
    """Apply ``action`` for ``seat``; raise IllegalAction (state untouched) if not allowed now."""
    if state.phase == "game_over":
        raise IllegalAction("The game is over.")
    if not 0 <= seat < state.n_players:
        raise IllegalAction("You are not seated in this game.")
    handler = _handlers_for(state.board.map.id).get(type(action))
    for module in rule_modules(state):
        if state.phase in module.phases:
            handler = module.phase_handlers.get(type(action), handler)
    if handler is None:
        raise IllegalAction(f"This map has no action {action.type!r}.")
    events = handler(state, seat, action)
    state.version += 1
    return events


def waiting_for(state: GameState) -> list[int]:
    """Seats that must act now."""
    if state.phase == "game_over":
        return []
    if state.phase == "choose_initial_tickets":
        return [s for s in range(state.n_players) if state.offered[s]]
    for module in rule_modules(state):
        if state.phase in module.phases:
            return module.waiting_for(state)
    return [state.current]


def simultaneous(state: GameState) -> bool:
    """Whether the phase is a decision everyone takes at once (so nobody is 'current')."""
    if state.phase == "choose_initial_tickets":
        return True
    return any(state.phase in m.simultaneous_phases for m in rule_modules(state))


def spend(state: GameState, seat: int, pay: Sequence[int]) -> None:
    """Take ``pay`` out of ``seat``'s hand, or refuse naming the cards that are missing."""
    hand = state.hands[seat]
    missing = payment.missing_cards(pay, hand)
    if missing:
        raise IllegalAction(f"You do not hold those cards: you are missing {missing}.")
    for c, n in enumerate(pay):
        hand[c] -= n


def player_name(state: GameState, seat: int) -> str:
    return state.config.players[seat]


def require_turn(state: GameState, seat: int, *phases: str) -> None:
    """Raise unless it is ``seat``'s turn and the game is in one of ``phases``."""
    phase = state.phase
    if phase == "choose_initial_tickets":
        raise IllegalAction("Everyone is still choosing their first destination tickets.")
    if seat != state.current:
        raise IllegalAction(f"It is {player_name(state, seat=state.current)}'s turn, not yours.")
    if phase in phases:
        return
    for module in rule_modules(state):
        if phase in module.phases:
            raise IllegalAction(module.phases[phase])
    raise IllegalAction(
        {
            "second_draw": "Finish your draw first: take a second card from the market "
            "or the deck.",
            "choose_tickets": "Choose which of your new destination tickets to keep first.",
            "tunnel": "Pay the tunnel's extra cards or decline it first.",
            "turn": "You cannot do that now: choose an action for your turn.",
        }.get(phase, "You cannot do that now.")
    )


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


def _draw_card(state: GameState, seat: int, events: list[Event]) -> int:
    """Top card of the train deck; a map's special card is placed and replaced."""
    card = draw_top(state, state.deck, state.discards, seat, events)
    if card >= SPECIAL:  # a map's special card (Iberia's festivals): its module places it
        for module in rule_modules(state):
            module.on_special_card(state, seat, card, events)
        return _draw_card(state, seat, events)
    return card


def _refill_market(state: GameState, seat: int, events: list[Event]) -> None:
    for module in rule_modules(state):
        if module.refill_market(state, seat, events):
            return
    market = state.market
    for i, card in enumerate(market):
        if card == -1:
            market[i] = _draw_card(state, seat, events)
    limit = state.board.rules.market_reset_locomotives
    if limit is None:
        return
    while market.count(LOCO) >= limit:
        available = len(state.deck) + len(state.discards) + len(market)
        non_locos = (
            available - state.deck.count(LOCO) - state.discards.count(LOCO) - market.count(LOCO)
        )
        if non_locos < len(market) - limit + 1 or available < len(market):
            return  # no deal could ever show fewer locomotives: leave the market as it is
        state.discards.extend(c for c in market if c != -1)
        for i in range(len(market)):
            market[i] = _draw_card(state, seat, events)
        events.append(MarketReset(seat))


def _cards_left(state: GameState) -> bool:
    return bool(state.deck or state.discards)


def _second_draw_possible(state: GameState) -> bool:
    if _cards_left(state):
        return True
    counts_two = state.board.rules.face_up_locomotive_counts_two
    return any(c != -1 and not (counts_two and c == LOCO) for c in state.market)


def _after_first_card(state: GameState, events: list[Event]) -> list[Event]:
    if _second_draw_possible(state):
        state.phase = "second_draw"
        return events
    return end_turn(state, events)


def _draw_blind(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, DrawBlind)
    require_turn(state, seat, "turn", "second_draw")
    if action.deck != "train":
        raise IllegalAction("This map has only the train deck.")
    if not _cards_left(state):
        raise IllegalAction(
            "The deck and the discard pile are empty: take a face-up card or do something else."
        )
    events: list[Event] = []
    card = _draw_card(state, seat, events)
    state.hands[seat][card] += 1
    events.append(CardDrawn(seat, None, None))
    if state.phase == "turn":
        return _after_first_card(state, events)
    return end_turn(state, events)


def _draw_face_up(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, DrawFaceUp)
    require_turn(state, seat, "turn", "second_draw")
    if action.refill not in (None, "train"):
        raise IllegalAction("This map has only the train deck.")
    slot = action.slot
    if slot >= len(state.market) or state.market[slot] == -1:
        raise IllegalAction(f"There is no face-up card in slot {slot + 1}.")
    card = state.market[slot]
    counts_two = state.board.rules.face_up_locomotive_counts_two and card == LOCO
    if counts_two and state.phase == "second_draw":
        raise IllegalAction(
            "A face-up locomotive cannot be your second card: take another "
            "face-up card or draw from the deck."
        )
    events: list[Event] = []
    state.hands[seat][card] += 1
    events.append(CardDrawn(seat, CARD_NAMES[card], slot))
    state.market[slot] = -1
    _refill_market(state, seat, events)
    if state.phase == "turn" and not counts_two:
        return _after_first_card(state, events)
    return end_turn(state, events)


# Tickets ----------------------------------------------------------------------------------


def tickets_closed(state: GameState) -> str | None:
    """Why drawing tickets is not possible now (empty deck, a map's rule), or None."""
    if not state.ticket_deck:
        return "There are no destination tickets left to draw."
    for module in rule_modules(state):
        why = module.tickets_closed(state)
        if why:
            return why
    return None


def _draw_tickets(state: GameState, seat: int, action: Action) -> list[Event]:
    require_turn(state, seat, "turn")
    closed = tickets_closed(state)
    if closed:
        raise IllegalAction(closed)
    rules = state.board.rules.draw_tickets
    deck = state.ticket_deck
    offer = [deck.pop() for _ in range(min(rules.deal, len(deck)))]
    state.offered[seat] = offer
    state.keep_min[seat] = min(rules.keep_min, len(offer))
    state.phase = "choose_tickets"
    return [TicketsDrawn(seat, len(offer))]


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
            raise IllegalAction(f"Ticket {ticket_id} is not one of the tickets offered to you.")
        if t in keep:
            raise IllegalAction(f"You chose ticket {board.ticket_name(t)} twice.")
        keep.append(t)
    need = state.keep_min[seat]
    if keep_max is not None and not need <= len(keep) <= keep_max:
        exactly = f"exactly {need}" if need == keep_max else f"{need} to {keep_max}"
        raise IllegalAction(f"Keep {exactly} of your {len(offer)} tickets; you chose {len(keep)}.")
    if len(keep) < need:
        raise IllegalAction(
            f"Keep at least {need} of your {len(offer)} tickets; you chose {len(keep)}."
        )
    state.tickets[seat].extend(t for t in offer if t in keep)
    state.offered[seat] = []
    state.keep_min[seat] = 0
    return keep, [t for t in offer if t not in keep]


def _keep_tickets(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, KeepTickets)
    setup = state.phase == "choose_initial_tickets"
    if not setup:
        require_turn(state, seat, "choose_tickets")
    board = state.board
    keep, returned = chosen_tickets(state, seat, action)
    for t in returned:
        # Unkept long tickets leave the game; others follow the map's rule.
        if not board.t_long[t] and board.rules.returned_tickets == "bottom":
            state.ticket_deck.insert(0, t)
    events: list[Event] = [TicketsKept(seat, len(keep), len(returned))]
    if not setup:
        return end_turn(state, events)
    if not any(state.offered):
        for module in rule_modules(state):
            if module.interrupts_turn_order(state, events):
                return events  # e.g. a setup step of the map's own; it calls first_turn
        first_turn(state, events)
    return events


def first_turn(state: GameState, events: list[Event]) -> list[Event]:
    """Setup is over: the first player starts."""
    state.phase = "turn"
    state.turn = 1
    events.append(TurnStarted(state.current, state.turn))
    skip_stuck(state, events)
    return events


# Routes -----------------------------------------------------------------------------------


def _route_index(state: GameState, route_id: int) -> int:
    r = state.board.route_index.get(route_id)
    if r is None:
        raise IllegalAction(f"There is no route {route_id} on this map.")
    return r


def _double_closed(state: GameState, seat: int, r: int) -> str | None:
    """Why the double-route rule forbids ``seat`` to claim ``r``, or None."""
    twin = state.board.r_twin[r]
    if twin < 0 or state.owner[twin] < 0:
        return None
    name = state.board.route_name(r)
    if state.owner[twin] == seat:
        return f"You already own the other track of {name}; nobody may claim both."
    need = state.board.rules.double_routes_min_players
    if state.n_players < need:
        return (
            f"The other track of {name} is taken, and with fewer than {need} players "
            f"only one track of a double route is used."
        )
    return None


def route_taken(state: GameState, seat: int, r: int) -> str | None:
    """Why route ``r`` is not open to ``seat``: claimed, or the other track of a double."""
    owner = state.owner[r]
    if owner >= 0:
        who = "you" if owner == seat else player_name(state, owner)
        return f"{state.board.route_name(r)} is already claimed by {who}."
    return _double_closed(state, seat, r)


def claim_problem(state: GameState, seat: int, r: int) -> str | None:
    """Why ``seat`` cannot claim route ``r`` at all now (cards aside), or None."""
    board = state.board
    taken = route_taken(state, seat, r)
    if taken:
        return taken
    if state.trains[seat] < board.r_len[r]:
        return (
            f"{board.route_name(r)} needs {board.r_len[r]} trains; "
            f"you have {state.trains[seat]} left."
        )
    return None


def _claim(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, Claim)
    require_turn(state, seat, "turn")
    board = state.board
    r = _route_index(state, action.route)
    problem = claim_problem(state, seat, r)
    if problem:
        raise IllegalAction(problem)
    hand = state.hands[seat]
    if not payment.cheapest_claims(board, r, hand):
        raise IllegalAction(
            f"{payment.route_requirement(board, r)}; {payment.hand_summary(board, r, hand)}."
        )
    pay = counts_from_names(action.cards)
    if pay is None:
        raise IllegalAction("Unknown card name: use " + ", ".join(CARD_NAMES[:N_CARDS]) + ".")
    colour = payment.claim_colour(board, r, pay)
    if colour == payment.NO:
        raise IllegalAction(
            f"{payment.route_requirement(board, r)}; you offered {describe_cards(pay)}."
        )
    spend(state, seat, pay)
    events: list[Event] = []
    if not board.r_tunnel[r]:
        state.discards.extend(c for c, n in enumerate(pay) for _ in range(n))
        return _complete_claim(state, seat, r, pay, events)
    revealed = [c for _ in range(TUNNEL_REVEAL) if (c := _draw_card(state, seat, events)) != -1]
    extra = sum(1 for c in revealed if c == LOCO or (c == colour and colour != LOCO))
    events.append(
        TunnelRevealed(seat, board.route_ids[r], tuple(CARD_NAMES[c] for c in revealed), extra)
    )
    tunnel = TunnelPending(
        seat=seat, route=r, paid=pay, color=colour, revealed=revealed, extra=extra
    )
    if extra == 0:
        return _finish_tunnel(state, tunnel, [0] * len(pay), events)
    # Even a player who cannot pay gets the decision: skipping it would tell the table so.
    state.tunnel = tunnel
    state.phase = "tunnel"
    return events


def _complete_claim(
    state: GameState, seat: int, r: int, pay: Sequence[int], events: list[Event]
) -> list[Event]:
    board = state.board
    state.owner[r] = seat
    state.trains[seat] -= board.r_len[r]
    state.scores[seat] += board.r_points[r]
    events.append(RouteClaimed(seat, board.route_ids[r], names_from_counts(pay), board.r_points[r]))
    for module in rule_modules(state):
        if module.on_claim(state, seat, r, events):
            return events  # a decision of the module's is pending; it ends the turn
    return end_turn(state, events)


def _finish_tunnel(
    state: GameState, tunnel: TunnelPending, extra: Sequence[int], events: list[Event]
) -> list[Event]:
    total = [p + e for p, e in zip(tunnel.paid, extra, strict=True)]
    state.discards.extend(c for c, n in enumerate(total) for _ in range(n))
    state.discards.extend(tunnel.revealed)
    state.tunnel = None
    state.phase = "turn"
    return _complete_claim(state, tunnel.seat, tunnel.route, total, events)


def _decline_tunnel_now(
    state: GameState, tunnel: TunnelPending, events: list[Event]
) -> list[Event]:
    hand = state.hands[tunnel.seat]
    for c, n in enumerate(tunnel.paid):
        hand[c] += n
    state.discards.extend(tunnel.revealed)
    state.tunnel = None
    state.phase = "turn"
    events.append(TunnelDeclined(tunnel.seat, state.board.route_ids[tunnel.route]))
    return end_turn(state, events)


def _pay_tunnel(state: GameState, seat: int, action: Action) -> list[Event]:
    require_turn(state, seat, "tunnel")
    tunnel = state.tunnel
    assert tunnel is not None and isinstance(action, PayTunnel)
    hand = state.hands[seat]
    played = (
        "locomotives"
        if tunnel.color == LOCO
        else f"{CARD_NAMES[tunnel.color]} cards or locomotives"
    )
    if action.cards is None:
        extra = payment.cheapest_tunnel_extra(hand, tunnel.extra, tunnel.color)
        if extra is None:
            raise IllegalAction(
                f"The tunnel needs {tunnel.extra} more {played}; you cannot pay, so decline it."
            )
    else:
        chosen = counts_from_names(action.cards)
        if chosen is None or not payment.tunnel_extra_ok(chosen, tunnel.extra, tunnel.color):
            raise IllegalAction(f"The tunnel needs exactly {tunnel.extra} more {played}.")
        extra = chosen
    spend(state, seat, extra)
    return _finish_tunnel(state, tunnel, extra, [])


def _decline_tunnel(state: GameState, seat: int, action: Action) -> list[Event]:
    require_turn(state, seat, "tunnel")
    assert state.tunnel is not None
    return _decline_tunnel_now(state, state.tunnel, [])


# Turn order and the end -------------------------------------------------------------------


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
        _game_over(state, "trains", events)
        return events
    if -1 in state.market and _cards_left(state):
        # Cards spent since the market ran short fill its empty slots again.
        _refill_market(state, seat, events)
    for module in rule_modules(state):
        if module.interrupts_turn_order(state, events):
            return events  # the module calls next_turn when its interlude is over
    return next_turn(state, events)


def next_turn(state: GameState, events: list[Event]) -> list[Event]:
    """Hand the turn to the next seat (passing those who cannot act)."""
    state.current = (state.current + 1) % state.n_players
    state.turn += 1
    state.phase = "turn"
    events.append(TurnStarted(state.current, state.turn))
    skip_stuck(state, events)
    return events


def skip_stuck(state: GameState, events: list[Event]) -> None:
    """Pass the turn of a player with no legal action; a full round of passes ends the game."""
    if can_act(state, state.current):
        return
    state.skips += 1
    events.append(TurnSkipped(state.current))
    if state.skips >= state.n_players:
        _game_over(state, "stalled", events)
        return
    end_turn(state, events, skipped=True)


def _game_over(state: GameState, reason: str, events: list[Event]) -> None:
    from engine.scoring import final_scores  # scoring imports views, which import this module

    state.phase = "game_over"
    state.reason = reason
    for module in rule_modules(state):
        module.on_game_over(state)
    final = final_scores(state)
    events.append(GameEnded(state.current, reason, tuple(final.winners)))


def can_act(state: GameState, seat: int) -> bool:
    """Whether ``seat`` has any legal action at the start of a turn."""
    if _cards_left(state) or any(c != -1 for c in state.market):
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


# Legal actions ----------------------------------------------------------------------------


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Everything ``seat`` may do now, payments summarised: one cheapest payment per colour."""
    phase = state.phase
    if phase == "game_over" or seat not in waiting_for(state):
        return []
    if phase in ("choose_initial_tickets", "choose_tickets"):
        # Every subset is legal; offer the minimal keeps and keeping all.
        offer = [state.board.t_ids[t] for t in state.offered[seat]]
        return [KeepTickets(tickets=list(k)) for k in _keep_choices(offer, state.keep_min[seat])]
    for module in rule_modules(state):
        if phase in module.phases:
            return module.phase_actions(state, seat)
    hand = state.hands[seat]
    if phase == "tunnel":
        assert state.tunnel is not None
        out: list[Action] = [DeclineTunnel()]
        extra = payment.cheapest_tunnel_extra(hand, state.tunnel.extra, state.tunnel.color)
        if extra is not None:
            out.insert(0, PayTunnel(cards=names_from_counts(extra)))
        return out
    modules = rule_modules(state)
    own_turn = next((m for m in modules if m.replaces_turn_actions), None)
    if own_turn:
        actions = own_turn.draw_actions(state, seat)
    else:
        counts_two = state.board.rules.face_up_locomotive_counts_two
        actions = [
            DrawFaceUp(slot=i)
            for i, c in enumerate(state.market)
            if c != -1 and not (phase == "second_draw" and counts_two and c == LOCO)
        ]
        if _cards_left(state):
            actions.append(DrawBlind())
    if phase == "second_draw":
        return actions
    if tickets_closed(state) is None:
        actions.append(DrawTickets())
    for module in modules:
        actions.extend(module.turn_actions(state, seat))
    if own_turn:
        return actions
    board = state.board
    for r in range(len(state.owner)):
        if claim_problem(state, seat, r) is None:
            actions.extend(
                Claim(route=board.route_ids[r], cards=names_from_counts(p))
                for p in payment.cheapest_claims(board, r, hand)
            )
    return actions


def _keep_choices(offer: list[int], keep_min: int) -> Iterable[tuple[int, ...]]:
    from itertools import combinations

    yield from combinations(offer, keep_min)
    if len(offer) > keep_min:
        yield tuple(offer)


# Replay -----------------------------------------------------------------------------------


def replay(config: GameConfig, actions: Iterable[tuple[int, Action]]) -> GameState:
    """The state after playing ``actions`` from the start: the log is the source of truth."""
    state = new_game(config)
    for seat, action in actions:
        apply(state, seat, action)
    return state


_HANDLERS: dict[type[Any], Handler] = {
    KeepTickets: _keep_tickets,
    DrawFaceUp: _draw_face_up,
    DrawBlind: _draw_blind,
    DrawTickets: _draw_tickets,
    Claim: _claim,
    PayTunnel: _pay_tunnel,
    DeclineTunnel: _decline_tunnel,
}


_MODULES: dict[str, tuple[RuleModule, ...]] = {}  # map id -> its rule modules


def rule_modules(state: GameState) -> tuple[RuleModule, ...]:
    modules = _MODULES.get(state.board.map.id)
    if modules is None:
        from engine.modules import modules_for  # modules build on this module's primitives

        board = state.board
        modules = _MODULES[board.map.id] = modules_for(board.map.id, tuple(board.rules.modules))
    return modules


@cache
def _handlers_for(map_id: str) -> dict[type[Any], Handler]:
    from engine.modules import modules_for

    rules = board_for(map_id).rules
    handlers = dict(_HANDLERS)
    for module in modules_for(map_id, tuple(rules.modules)):
        handlers.update(module.handlers)
    return handlers
