"""The rules: start a game, apply an action, list what a player may do.

``apply`` checks an action completely before it changes anything: it
either raises ``IllegalAction`` with a message for the player and leaves the
state as it was, or mutates the state and returns the public events.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import cache
from itertools import chain, combinations, repeat
from operator import le
from typing import Any

from engine import payment
from engine.actions import (
    DECLINE_TUNNEL,
    DRAW_TICKETS,
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    PayTunnel,
    Undo,
    blind,
    face_up,
    keep,
)
from engine.board import Board, board_for
from engine.cards import (
    CARD_NAMES,
    GRAY,
    LOCO,
    MOST_OF_A_KIND,
    N_CARDS,
    SUIT_WORDS,
    counts_from_names,
    describe_cards,
    names_from_counts,
)
from engine.claims import ClaimTable, Plain, claim_route, these_cards
from engine.errors import IllegalAction, Text
from engine.events import (
    Event,
    RouteClaimed,
    TicketsDrawn,
    TicketsKept,
    TunnelDeclined,
    TunnelRevealed,
    card_drawn,
)
from engine.fence import unvalidated
from engine.hooks import Handler, plan_of, rule_modules
from engine.memo import MEMO_LIMIT, new_memo
from engine.modules import modules_for  # importing engine.modules registers the modules
from engine.phases import (
    CHOOSE_INITIAL_TICKETS,
    CHOOSE_TICKETS,
    GAME_OVER,
    SECOND_DRAW,
    TUNNEL,
    TURN,
    Phase,
)
from engine.state import GameConfig, GameState, TunnelPending
from engine.turns import (
    MARKET_CLOSED,
    cards_left,
    chosen_tickets,
    claim_problem,
    core_slots,
    draw_card,
    end_turn,
    first_turn,
    market_closed,
    refill_market,
    require_turn,
    spend,
    tickets_closed,
    waiting_for,
)
from maps.model import MARKET_SLOTS

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
    refill_market(state, 0, [])
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
    phase = state.phase
    if phase == GAME_OVER:
        raise IllegalAction("The game is over.")
    if not 0 <= seat < state.n_players:
        raise IllegalAction("You are not seated in this game.")
    handlers = _DISPATCH.get((state.board, phase))
    if handlers is None:
        handlers = _DISPATCH[state.board, phase] = _handlers_in(state.board.map.id, phase)
    handler = handlers.get(type(action))
    if handler is None:
        raise IllegalAction("This map has no action {action!r}.", action=action.type)
    events = handler(state, seat, action)
    state.version += 1
    return events


# Cards ------------------------------------------------------------------------------------


def _second_draw_possible(state: GameState) -> bool:
    if cards_left(state):
        return True
    if market_closed(state):
        return False
    counts_two = state.board.rules.face_up_locomotive_counts_two
    return any(c != -1 and not (counts_two and c == LOCO) for c in state.market)


def _after_first_card(state: GameState, events: list[Event]) -> list[Event]:
    if _second_draw_possible(state):
        state.phase = SECOND_DRAW
        return events
    return end_turn(state, events)


def _draw_blind(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, DrawBlind)
    require_turn(state, seat, TURN, SECOND_DRAW)
    if action.deck != "train":
        raise IllegalAction("This map has only the train deck.")
    if market_closed(state):
        raise IllegalAction(MARKET_CLOSED)
    if not cards_left(state):
        raise IllegalAction(
            "The deck and the discard pile are empty: take a face-up card or do something else."
        )
    events: list[Event] = []
    card = draw_card(state, seat, events)
    state.hands[seat][card] += 1
    events.append(card_drawn(seat, None, None))
    if state.phase == TURN:
        return _after_first_card(state, events)
    return end_turn(state, events)


def _draw_face_up(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, DrawFaceUp)
    require_turn(state, seat, TURN, SECOND_DRAW)
    if action.refill not in (None, "train"):
        raise IllegalAction("This map has only the train deck.")
    slot = action.slot
    if slot >= len(state.market) or state.market[slot] == -1:
        raise IllegalAction("There is no face-up card in slot {slot}.", slot=slot + 1)
    if market_closed(state):
        raise IllegalAction(MARKET_CLOSED)
    card = state.market[slot]
    counts_two = state.board.rules.face_up_locomotive_counts_two and card == LOCO
    if counts_two and state.phase == SECOND_DRAW:
        raise IllegalAction(
            "A face-up locomotive cannot be your second card: take another "
            "face-up card or draw from the deck."
        )
    events: list[Event] = []
    state.hands[seat][card] += 1
    events.append(card_drawn(seat, CARD_NAMES[card], slot))
    state.market[slot] = -1
    refill_market(state, seat, events)
    if state.phase == TURN and not counts_two:
        return _after_first_card(state, events)
    return end_turn(state, events)


# Tickets ----------------------------------------------------------------------------------


def _draw_tickets(state: GameState, seat: int, action: Action) -> list[Event]:
    require_turn(state, seat, TURN)
    closed = tickets_closed(state)
    if closed:
        raise IllegalAction(closed)
    rules = state.board.rules.draw_tickets
    deck = state.ticket_deck
    offer = [deck.pop() for _ in range(min(rules.deal, len(deck)))]
    state.offered[seat] = offer
    state.keep_min[seat] = min(rules.keep_min, len(offer))
    state.phase = CHOOSE_TICKETS
    return [TicketsDrawn(seat, len(offer))]


def _keep_tickets(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, KeepTickets)
    setup = state.phase == CHOOSE_INITIAL_TICKETS
    if not setup:
        require_turn(state, seat, CHOOSE_TICKETS)
    board = state.board
    keep, returned = chosen_tickets(state, seat, action)
    rules = board.rules
    where = (setup and rules.setup_tickets.returned) or rules.returned_tickets
    state.returned[seat].extend(returned)
    for t in returned:
        # Unkept long tickets leave the game; others follow the map's rule (Europe's
        # setup tickets leave the game too).
        if not board.t_long[t] and where == "bottom":
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


# Routes -----------------------------------------------------------------------------------


def _route_index(state: GameState, route_id: int) -> int:
    r = state.board.route_index.get(route_id)
    if r is None:
        raise IllegalAction("There is no route {route} on this map.", route=route_id)
    return r


def _claim(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, Claim)
    require_turn(state, seat, TURN)
    board = state.board
    r = _route_index(state, action.route)
    problem = claim_problem(state, seat, r)
    if problem:
        raise IllegalAction(problem)
    hand = state.hands[seat]
    pay = counts_from_names(action.cards)
    colour = payment.NO if pay is None else _claim_colour(board, r, pay)
    if pay is None or colour == payment.NO or not all(map(le, pay, hand)):
        # Refused: say why, the hand's reach first. (A hand holding a valid payment can
        # afford the route, so only a refusal needs the search for one.)
        if not payment.cheapest_claims(board, r, hand):
            raise IllegalAction("{need}; {have}.", need=payment.route_requirement(board, r),
                                have=payment.hand_summary(board, r, hand))
        if pay is None:
            raise IllegalAction("Unknown card name: use {names}.",
                                names=", ".join(CARD_NAMES[:N_CARDS]))
        if colour == payment.NO:
            raise IllegalAction("{need}; you offered {cards}.",
                                need=payment.route_requirement(board, r),
                                cards=describe_cards(pay))
    spend(state, seat, pay)
    events: list[Event] = []
    if not board.r_tunnel[r]:
        _discard(state, pay)
        return _complete_claim(state, seat, r, pay, events)
    revealed = [c for _ in range(TUNNEL_REVEAL) if (c := draw_card(state, seat, events)) != -1]
    extra = payment.tunnel_extra_asked(revealed, colour)
    events.append(
        TunnelRevealed(seat, board.route_ids[r], tuple(CARD_NAMES[c] for c in revealed), extra)
    )
    # The engine's own values (``pay`` a fresh list): built unvalidated, as actions are.
    fields = {"seat": seat, "route": r, "paid": pay, "color": colour, "revealed": revealed,
              "extra": extra}
    tunnel = unvalidated(TunnelPending, fields, set(fields))
    if extra == 0:
        return _finish_tunnel(state, tunnel, [0] * len(pay), events)
    # Even a player who cannot pay gets the decision: skipping it would tell the table so.
    state.tunnel = tunnel
    state.phase = TUNNEL
    return events


def _discard(state: GameState, pay: Sequence[int]) -> None:
    """Put the cards of ``pay`` (counts by card) on the discard pile, in card order."""
    state.discards.extend(chain.from_iterable(map(repeat, range(len(pay)), pay)))


# (board, route, payment) -> ``payment.claim_colour``'s answer: a claim's payment is
# checked on every claim, and few payments are played on a route.
_COLOURS: dict[tuple[Board, int, tuple[int, ...]], int] = new_memo()


def _claim_colour(board: Board, r: int, pay: list[int]) -> int:
    key = (board, r, tuple(pay))
    colour = _COLOURS.get(key)
    if colour is None:
        if len(_COLOURS) >= MEMO_LIMIT:
            _COLOURS.clear()
        colour = _COLOURS[key] = payment.claim_colour(board, r, pay)
    return colour


def _complete_claim(
    state: GameState, seat: int, r: int, pay: Sequence[int], events: list[Event]
) -> list[Event]:
    board = state.board
    claim_route(state, r, seat)
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
    _discard(state, total)
    state.discards.extend(tunnel.revealed)
    state.tunnel = None
    state.phase = TURN
    return _complete_claim(state, tunnel.seat, tunnel.route, total, events)


def _decline_tunnel_now(
    state: GameState, tunnel: TunnelPending, events: list[Event]
) -> list[Event]:
    hand = state.hands[tunnel.seat]
    for c, n in enumerate(tunnel.paid):
        hand[c] += n
    state.discards.extend(tunnel.revealed)
    state.tunnel = None
    state.phase = TURN
    events.append(TunnelDeclined(tunnel.seat, state.board.route_ids[tunnel.route]))
    return end_turn(state, events)


def _pay_tunnel(state: GameState, seat: int, action: Action) -> list[Event]:
    require_turn(state, seat, TUNNEL)
    tunnel = state.tunnel
    assert tunnel is not None and isinstance(action, PayTunnel)
    hand = state.hands[seat]
    played = Text("locomotives") if tunnel.color == LOCO else Text(
        "{colour} cards or locomotives", colour=SUIT_WORDS[tunnel.color])
    if action.cards is None:
        extra = payment.cheapest_tunnel_extra(hand, tunnel.extra, tunnel.color)
        if extra is None:
            raise IllegalAction("The tunnel needs {n} more {cards}; you cannot pay, so decline "
                                "it.", n=tunnel.extra, cards=played)
    else:
        chosen = counts_from_names(action.cards)
        if chosen is None or not payment.tunnel_extra_ok(chosen, tunnel.extra, tunnel.color):
            raise IllegalAction("The tunnel needs exactly {n} more {cards}.", n=tunnel.extra,
                                cards=played)
        extra = chosen
    spend(state, seat, extra)
    return _finish_tunnel(state, tunnel, extra, [])


def _decline_tunnel(state: GameState, seat: int, action: Action) -> list[Event]:
    require_turn(state, seat, TUNNEL)
    assert state.tunnel is not None
    return _decline_tunnel_now(state, state.tunnel, [])


# Legal actions ----------------------------------------------------------------------------


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Everything ``seat`` may do now, payments summarised: one cheapest payment per colour."""
    phase = state.phase
    plan = state.plan or plan_of(state)
    if phase in _CORE_DRAWS and phase not in plan.phases:
        # The hot path (a turn's start or its second card): only the current seat acts.
        if seat != state.current:
            return []
    elif phase == GAME_OVER or seat not in waiting_for(state):
        return []
    elif phase == CHOOSE_INITIAL_TICKETS and not state.offered[seat]:
        # Tickets kept: a map's next setup step may start before the others' (waiting_for).
        early = [m for m in plan.modules if m.early_phase]
        return [a for m in early for a in m.phase_actions(state, seat)]
    elif phase in (CHOOSE_INITIAL_TICKETS, CHOOSE_TICKETS):
        offer = [state.board.t_ids[t] for t in state.offered[seat]]
        return [keep(k) for k in ticket_keeps(offer, state.keep_min[seat])]
    elif module := plan.phases.get(phase):
        return module.phase_actions(state, seat)
    hand = state.hands[seat]
    if phase == TUNNEL:
        assert state.tunnel is not None
        out: list[Action] = [DECLINE_TUNNEL]
        extra = payment.cheapest_tunnel_extra(hand, state.tunnel.extra, state.tunnel.color)
        if extra is not None:
            out.insert(0, unvalidated(  # (the engine's own values)
                PayTunnel, {"type": "pay_tunnel", "cards": names_from_counts(extra)}, {"cards"}))
        return out
    own_turn = plan.own_turn
    if own_turn:
        actions = own_turn.draw_actions(state, seat)
    else:
        cards = cards_left(state)
        actions = [*map(_FACE_UP.__getitem__, core_slots(state, cards))]
        if cards:
            actions.append(_BLIND)
    if phase == SECOND_DRAW:
        return actions
    if tickets_closed(state) is None:
        actions.append(DRAW_TICKETS)
    for module in plan.turn_actions:
        actions.extend(module.turn_actions(state, seat))
    if own_turn:
        return actions
    actions += _claim_table(state.board).claims(state, seat, hand, (state.trains[seat],))
    return actions


_CORE_DRAWS = frozenset((TURN, SECOND_DRAW))  # phases where the current seat acts
_FACE_UP = tuple(face_up(slot) for slot in range(MARKET_SLOTS))  # the core's draws, by slot
_BLIND = blind()


@cache
def _claim_table(board: Board) -> ClaimTable:
    """Core routes pay alike when colour, length, ferry symbols, tunnel and substitutes are
    alike. A route without substitutes takes one card of its colour (any one colour on a
    gray route) or a locomotive per space, and its payments depend on those counts alone;
    with substitutes a group of cards can fill a space too, and any card may count."""
    per_loco = board.rules.ferry_cards_per_locomotive or 0

    def substitutes(r: int) -> int:
        """Cards in a group that fills one space of route ``r`` (0: none)."""
        return board.r_any_sub[r] or (per_loco if board.r_ferry[r] else 0)

    def shape(r: int) -> tuple[int, ...]:
        return (
            board.r_color[r],
            board.r_len[r],
            board.r_ferry[r],
            board.r_tunnel[r],
            board.r_any_sub[r],
        )

    def suit(r: int) -> int | tuple[int, ...]:
        """A route's place in ``reach``'s order (a gray one's: every colour's, any one
        will do), where groups of cards fill spaces after the colours."""
        # (A ferry's symbols take locomotives, which the colour's reach counts already.)
        shift = _GROUPS if substitutes(r) else 0
        colour = board.r_color[r]
        return tuple(range(shift, shift + LOCO)) if colour == GRAY else colour + shift

    def counts(r: int) -> Callable[[Sequence[int]], Hashable]:
        if substitutes(r):
            if board.r_ferry[r] and board.r_color[r] != GRAY and not board.r_any_sub[r]:
                return _ferry_counts(board.r_color[r], board.r_len[r], board.r_ferry[r])
            return tuple  # which cards make up a group depends on the whole hand
        colour = board.r_color[r]
        if colour == GRAY:
            return _gray_counts(board.r_len[r], board.r_ferry[r])
        return these_cards(colour, LOCO)

    routes = range(len(board.route_ids))
    group = min((substitutes(r) for r in routes if substitutes(r)), default=0)

    def reach(hand: Sequence[int]) -> Iterable[int]:
        """Per colour, the most spaces ``hand`` could fill; then, where groups of cards
        fill spaces too, the same with groups of ``group`` cards of any kind (the smallest
        group on the map: a bound for larger ones)."""
        locos = hand[LOCO]
        if not group:
            return map(locos.__add__, hand[:LOCO])  # (read once, in C)
        plain = [n + locos for n in hand[:LOCO]]
        total = sum(hand)
        return [*plain, *[n + (total - n) // group for n in plain]]

    def plain(r: int) -> Plain | None:
        """Route ``r`` as a ``Plain`` one (no substitutes, a space besides its symbols)."""
        if substitutes(r) or board.r_len[r] == board.r_ferry[r]:
            return None
        colour = board.r_color[r]
        locos = (not board.rules.locomotives_only_tunnels_ferries or board.r_tunnel[r]
                 or board.r_ferry[r])
        return Plain(tuple(range(LOCO)) if colour == GRAY else (colour,), board.r_len[r],
                     board.r_ferry[r], board.r_tunnel[r], bool(locos))

    return ClaimTable(board, shape, counts, suit, reach, payment.cheapest_claims,
                      plain=plain)


@cache
def _gray_counts(length: int, ferry: int) -> Callable[[Sequence[int]], Hashable]:
    """What a gray route's payments (without substitutes) depend on: the locomotives, up
    to ``length``, and each colour's cards, up to the spaces they may fill (those without
    a locomotive symbol); a colour that cannot fill the route even with the locomotives
    counts as none (``payment.cheapest_claims`` does not try it)."""
    plain = length - ferry
    if not plain:  # every space a ferry's: only locomotives pay it, the colours count for none
        return _locos_up_to(length)
    # Per number of cards still needed beside the locomotives: a colour's count -> what it
    # contributes to the key (looked up in C rather than tested in Python per colour).
    tables = [tuple(min(n, plain) if n >= need else 0 for n in range(MOST_OF_A_KIND))
              for need in range(length + 1)]

    def counts(hand: Sequence[int]) -> Hashable:
        locos = hand[LOCO]  # (no builtin min or max here: a call to one costs more in 3.11)
        if locos >= length:
            locos, need = length, 1  # a colour without a card is not tried either
        else:
            need = length - locos
        colours = hand[:LOCO]
        try:
            return locos, tuple(map(tables[need].__getitem__, colours))
        except IndexError:  # more cards of a colour than the tables cover
            return locos, tuple([min(n, plain) if n >= need else 0 for n in colours])

    return counts


@cache
def _locos_up_to(length: int) -> Callable[[Sequence[int]], Hashable]:
    """A hand's locomotives, up to ``length`` (the key of a route only they pay)."""

    def counts(hand: Sequence[int]) -> Hashable:
        locos = hand[LOCO]
        return locos if locos < length else length

    return counts


@cache
def _ferry_counts(colour: int, length: int, ferry: int) -> Callable[[Sequence[int]], Hashable]:
    """What a coloured ferry's payments depend on where groups of any cards may stand for
    locomotives (Nordic): the whole hand, unless its colour and locomotives pay without
    a group; then only the colour's cards played and the locomotives up to ``length``
    (``payment._cheapest_with_substitutes`` tries no groups first)."""
    plain = length - ferry

    def counts(hand: Sequence[int]) -> Hashable:
        own, locos = hand[colour], hand[LOCO]
        if own > plain:
            own = plain
        if length - own <= locos:
            return own, locos if locos < length else length
        return tuple(hand)

    return counts


_GROUPS = LOCO  # places of ``reach``'s list: where groups of cards fill spaces, after the
# colours


def ticket_keeps(offer: list[int], keep_min: int) -> Iterable[tuple[int, ...]]:
    """Every legal keep of ``offer``: each subset of at least ``keep_min`` tickets, fewest
    first (at most 26, for 5 tickets keeping 2 or more)."""
    for size in range(keep_min, len(offer) + 1):
        yield from combinations(offer, size)


# Replay -----------------------------------------------------------------------------------


def payment_with(state: GameState, seat: int, route_id: int, colour: str,
                 wild: int) -> dict[str, int]:
    """The cards ``seat`` pays to claim route ``route_id`` in ``colour`` with exactly
    ``wild`` wild cards (locomotives; Rails & Sails' jokers), the rest from its hand in the
    map's way. Not checked: ``apply`` judges the claim (and says what is wrong)."""
    r = state.board.route_index[route_id]
    for module in rule_modules(state):
        cards = module.payment_with(state, seat, r, colour, wild)
        if cards is not None:
            return cards
    return {c: n for c, n in ((colour, state.board.r_len[r] - wild), (CARD_NAMES[LOCO], wild))
            if n > 0}


def in_effect(log: Sequence[Action | Undo]) -> list[int]:
    """The indexes of ``log``'s actions still in effect: each ``Undo`` takes back the last
    action still in effect before it (so undos in a row walk back). ValueError for an undo
    with nothing left to take back."""
    kept: list[int] = []
    for i, entry in enumerate(log):
        if isinstance(entry, Undo):
            if not kept:
                raise ValueError(f"log entry {i + 1}: an undo with nothing to take back")
            kept.pop()
        else:
            kept.append(i)
    return kept


def replay(config: GameConfig, log: Iterable[tuple[int, Action | Undo]]) -> GameState:
    """The state after playing a game's log from the start (the log is the source of
    truth): the actions still in effect, in order. Its ``version`` is the log's length,
    undos included, so versions only grow (an undo is a new version)."""
    entries = list(log)
    state = new_game(config)
    for i in in_effect([action for _, action in entries]):
        seat, action = entries[i]
        assert not isinstance(action, Undo)  # in_effect leaves undos out
        apply(state, seat, action)
    state.version = len(entries)
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


# (board, phase) -> ``_handlers_in`` its map and phase: one dict lookup on every action (a
# board hashes by identity; one per map).
_DISPATCH: dict[tuple[Board, Phase], dict[type[Any], Handler]] = {}


@cache
def _handlers_for(map_id: str) -> dict[type[Any], Handler]:
    rules = board_for(map_id).rules
    handlers = dict(_HANDLERS)
    for module in modules_for(map_id, tuple(rules.modules)):
        handlers.update(module.handlers)
    return handlers


@cache
def _handlers_in(map_id: str, phase: Phase) -> dict[type[Any], Handler]:
    """The map's handlers with those its modules put in place while ``phase`` is on."""
    handlers = dict(_handlers_for(map_id))
    for module in modules_for(map_id, tuple(board_for(map_id).rules.modules)):
        if phase in module.phases:
            handlers.update(module.phase_handlers)
    return handlers
