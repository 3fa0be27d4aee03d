"""Iberia: festival cards in the train deck, and ticket drafts.

Setup: after hands and market are dealt, the festival cards are shuffled into
the train deck and the draft card goes in at a depth set by the player count;
the first tickets are drafted (pick one, pass the packet on) and each player
keeps exactly four. A festival card drawn (blind or into the market) is laid
at its city's pile and replaced. The draft card, when drawn, sets off a second
draft once the current turn is over; drawing tickets is closed until then.
Claiming a route takes the festival cards lying at one of its cities (the
player chooses when both ends have some); sets score by the printed table.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, ClassVar, NoReturn

from engine.actions import Action, DraftPick, KeepTickets, TakeFestival, keep, pick_of
from engine.cards import SPECIAL
from engine.errors import IllegalAction, Text
from engine.events import (
    DraftPicked,
    Event,
    FestivalCardPlaced,
    FestivalCardsTaken,
    TicketDraftStarted,
    TicketsKept,
)
from engine.extras import ExtraPoints, festival_points
from engine.hooks import Handler, RuleModule
from engine.phases import CHOOSE_FESTIVAL, DRAFT, DRAFT_KEEP, TURN, Phase
from engine.state import GameState
from engine.turns import chosen_tickets, end_turn, first_turn, next_turn, require_turn
from engine.views import DraftStatus, ticket_view
from maps.model import Festivals as FestivalsConfig

DRAFT_CARD = SPECIAL
FESTIVAL_BASE = SPECIAL + 1  # + pile index


def _config(state: GameState) -> FestivalsConfig:
    festivals = state.board.rules.festivals
    assert festivals is not None
    return festivals


def _ext(state: GameState) -> dict[str, Any]:
    ext: dict[str, Any] = state.ext["festivals"]
    return ext


# Why tickets cannot be drawn yet (one shared text: asked on every turn until the draft).
_LOCKED = Text("Destination tickets can be drawn only after the second ticket draft, "
               "which starts when its card comes up from the deck.")


def _city_piles(state: GameState, route: int) -> list[str]:
    """Festival piles at the ends of ``route`` that have cards lying, in end order."""
    board, piles = state.board, state.ext["festivals"]["piles"]
    out: list[str] = []
    for city in (board.r_a[route], board.r_b[route]):
        pile = board.map.cities[city].festival_pile
        if pile is not None and piles.get(pile, 0) and pile not in out:
            out.append(pile)
    return out


def _take_pile(state: GameState, seat: int, pile: str, events: list[Event]) -> None:
    ext = _ext(state)
    held = ext["held"][seat]
    held[pile] = held.get(pile, 0) + ext["piles"][pile]
    ext["piles"][pile] = 0
    events.append(FestivalCardsTaken(seat))


# Drafts -----------------------------------------------------------------------------------


def _start_draft(state: GameState, second: bool, events: list[Event]) -> bool:
    """Deal the packets; False if there are too few tickets to draft at all."""
    draft = _config(state).draft
    n, deck = state.n_players, state.ticket_deck
    per = min(draft.deal, len(deck) // n)
    if per == 0:
        return False
    packets = [[deck.pop() for _ in range(per)] for _ in range(n)]
    _ext(state)["draft"] = {
        "second": second,
        "keep": min(draft.keep, per),
        "packets": packets,
        "picked": [[] for _ in range(n)],
        "done": [False] * n,
    }
    state.phase = DRAFT
    events.append(TicketDraftStarted(state.current, second, per))
    return True


def _not_now(state: GameState, seat: int, what: Text) -> NoReturn:
    """Refuse a draft action out of its phase, saying what is on instead."""
    if state.phase in (DRAFT, DRAFT_KEEP):
        raise IllegalAction(Festivals.phases[state.phase])
    require_turn(state, seat)  # raises: another player's turn, or what to finish first
    raise IllegalAction(what)  # pragma: no cover - require_turn always raises without phases


def draft_pick(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, DraftPick)
    if state.phase != DRAFT:
        _not_now(state, seat, Text("There is no ticket draft on now."))
    draft = _ext(state)["draft"]
    if draft["done"][seat]:
        raise IllegalAction("You have picked this round; wait for the others.")
    t = state.board.t_index.get(action.ticket, -1)
    if t not in draft["packets"][seat]:
        raise IllegalAction("Ticket {ticket} is not in the packet in front of you.",
                            ticket=action.ticket)
    draft["packets"][seat].remove(t)
    draft["picked"][seat].append(t)
    draft["done"][seat] = True
    events: list[Event] = [DraftPicked(seat)]
    if not all(draft["done"]):
        return events
    n = state.n_players
    if any(draft["packets"]):
        step = _pass_direction(state, draft["second"])
        draft["packets"] = [draft["packets"][(s - step) % n] for s in range(n)]
        draft["done"] = [False] * n
        return events
    for s in range(n):
        state.offered[s] = draft["picked"][s]
        state.keep_min[s] = draft["keep"]
    state.phase = DRAFT_KEEP
    return events


def _pass_direction(state: GameState, second: bool) -> int:
    """+1 when packets go to the next seat (left), -1 when to the previous (right)."""
    draft = _config(state).draft
    return 1 if (draft.second_pass if second else draft.first_pass) == "left" else -1


def draft_keep(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, KeepTickets)
    if state.phase != DRAFT_KEEP:
        _not_now(state, seat, Text("There are no tickets to keep now."))
    ext = _ext(state)
    draft = ext["draft"]
    keep, returned = chosen_tickets(state, seat, action, keep_max=draft["keep"])
    draft.setdefault("returned", []).extend(returned)
    events: list[Event] = [TicketsKept(seat, len(keep), len(returned))]
    if any(state.offered):
        return events
    unkept = draft["returned"]
    state.rng.shuffle(unkept)
    where = (
        _config(state).draft.second_unkept if draft["second"] else _config(state).draft.first_unkept
    )
    if where == "bottom":
        state.ticket_deck[:0] = unkept
    elif where == "shuffle_in":
        state.ticket_deck.extend(unkept)
        state.rng.shuffle(state.ticket_deck)
    ext["draft"] = None
    if draft["second"]:
        ext["second_draft_done"] = True
        return next_turn(state, events)
    return first_turn(state, events)


def take_festival(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, TakeFestival)
    require_turn(state, seat, CHOOSE_FESTIVAL)
    ext = _ext(state)
    options = ext["choice"]
    if action.pile not in options:
        names = [_pile_name(state, p) for p in options]
        raise IllegalAction("Choose the festival cards of one end of your route: {some} or "
                            "{last}.", some=", ".join(names[:-1]), last=names[-1])
    events: list[Event] = []
    _take_pile(state, seat, action.pile, events)
    ext["choice"] = None
    state.phase = TURN
    return end_turn(state, events)


def _pile_name(state: GameState, pile: str) -> str:
    return next(p.name for p in _config(state).piles if p.id == pile)


def _draft(state: GameState, draft: Any) -> dict[str, Any]:
    """The module's draft from a ``engine.position.PendingDraft`` (ticket ids by seat)."""
    board, n = state.board, state.n_players

    def tickets(ids: list[int]) -> list[int]:
        for t in ids:
            if t not in board.t_index:
                raise ValueError(f"no ticket {t} on {board.map.id}")
        return [board.t_index[t] for t in ids]

    out: dict[str, Any] = {
        "second": draft.second,
        "keep": draft.keep,
        "packets": [tickets(draft.packets.get(s, [])) for s in range(n)],
        "picked": [tickets(draft.picked.get(s, [])) for s in range(n)],
        "done": [draft.done.get(s, False) for s in range(n)],
    }
    if draft.returned:
        out["returned"] = tickets(draft.returned)
    return out


class Festivals(RuleModule):
    handlers: ClassVar[dict[type, Handler]] = {DraftPick: draft_pick, TakeFestival: take_festival}
    phase_handlers: ClassVar[dict[type, Handler]] = {KeepTickets: draft_keep}
    phases: ClassVar[dict[Phase, Text]] = {
        DRAFT: Text("The ticket draft is on: pick a ticket from your packet first."),
        DRAFT_KEEP: Text("The ticket draft is on: choose the tickets you keep first."),
        CHOOSE_FESTIVAL: Text("Choose which city's festival cards to take first."),
    }

    def setup(self, state: GameState) -> None:
        config = _config(state)
        rng = state.rng
        # The common setup offered tickets; Iberia drafts them instead.
        for seat in range(state.n_players):
            state.ticket_deck.extend(state.offered[seat])
            state.offered[seat] = []
            state.keep_min[seat] = 0
        rng.shuffle(state.ticket_deck)
        deck = state.deck
        for i, pile in enumerate(config.piles):
            deck.extend([FESTIVAL_BASE + i] * pile.cards)
        rng.shuffle(deck)
        depth = round(config.draft_card_depth[state.n_players] * len(deck))
        deck.insert(len(deck) - depth, DRAFT_CARD)  # the top of the deck is its end
        state.ext["festivals"] = {
            "piles": {p.id: 0 for p in config.piles},
            "held": [{} for _ in range(state.n_players)],
            "draft": None,
            "second_draft_due": False,
            "second_draft_done": False,
            "choice": None,
        }
        _start_draft(state, second=False, events=[])

    def waiting_for(self, state: GameState) -> list[int]:
        if state.phase == DRAFT:
            return [s for s, done in enumerate(state.ext["festivals"]["draft"]["done"]) if not done]
        if state.phase == DRAFT_KEEP:
            return [s for s in range(state.n_players) if state.offered[s]]
        return [state.current]

    def phase_actions(self, state: GameState, seat: int) -> list[Action]:
        ext = _ext(state)
        board = state.board
        if state.phase == DRAFT:
            return [pick_of(board.t_ids[t]) for t in ext["draft"]["packets"][seat]]
        if state.phase == DRAFT_KEEP:
            offer = [board.t_ids[t] for t in state.offered[seat]]
            return [keep(k) for k in combinations(offer, state.keep_min[seat])]
        return [TakeFestival(pile=p) for p in ext["choice"]]

    def on_special_card(self, state: GameState, seat: int, card: int, events: list[Event]) -> None:
        ext = state.ext["festivals"]
        if card == DRAFT_CARD:
            ext["second_draft_due"] = True  # set aside; the draft follows this turn
            return
        pile = _config(state).piles[card - FESTIVAL_BASE].id
        ext["piles"][pile] += 1
        events.append(FestivalCardPlaced(seat, pile))

    def interrupts_turn_order(self, state: GameState, events: list[Event]) -> bool:
        ext = state.ext["festivals"]  # (asked at every turn's end)
        if not ext["second_draft_due"] or ext["second_draft_done"]:
            return False
        ext["second_draft_due"] = False
        if _start_draft(state, second=True, events=events):
            return True
        ext["second_draft_done"] = True
        return False

    def tickets_closed(self, state: GameState) -> Text | None:
        if (
            not state.ext["festivals"]["second_draft_done"]  # (asked on every turn)
            and _config(state).tickets_locked_until_second_draft
        ):
            return _LOCKED
        return None

    def on_claim(self, state: GameState, seat: int, route: int, events: list[Event]) -> bool:
        piles = _city_piles(state, route)
        if len(piles) == 1:
            _take_pile(state, seat, piles[0], events)
        elif len(piles) == 2:
            _ext(state)["choice"] = piles
            state.phase = CHOOSE_FESTIVAL
            return True
        return False

    def final_points(self, state: GameState) -> list[list[ExtraPoints]]:
        config = _config(state)
        return [
            [
                festival_points(_pile_name(state, pile), n, config.points(pile, n))
                for pile, n in held.items()
                if n
            ]
            for held in _ext(state)["held"]
        ]

    def public_fields(self, state: GameState) -> dict[str, Any]:
        ext = _ext(state)
        draft = ext["draft"]
        status = None
        if draft is not None:
            # Every packet shrinks alike, so any seat's counts tell the round.
            picked, left = len(draft["picked"][0]), len(draft["packets"][0])
            done = draft["done"][0] and state.phase == DRAFT
            status = DraftStatus(
                round=min(picked + (not done), picked + left),
                rounds=picked + left,
                second=draft["second"],
            )
        return {
            "festival_piles": dict(ext["piles"]),
            "draft": status,
            "deck_special": sum(1 for c in state.deck if c >= SPECIAL),
        }

    def special_cards(self, state: GameState) -> dict[str, int]:
        piles = _config(state).piles
        return {"draft": DRAFT_CARD} | {
            f"festival_{p.id}": FESTIVAL_BASE + i for i, p in enumerate(piles)
        }

    def position_fields(self, state: GameState) -> dict[str, Any]:
        ext = _ext(state)
        draft, ids = ext["draft"], state.board.t_ids
        return {
            "festival_piles": dict(ext["piles"]),
            "festival_cards": {s: dict(held) for s, held in enumerate(ext["held"])},
            "second_draft_done": ext["second_draft_done"],
            "second_draft_due": ext["second_draft_due"],
            "festival_choice": ext["choice"] and list(ext["choice"]),
            "draft": draft
            and {
                "second": draft["second"],
                "keep": draft["keep"],
                "packets": {s: [ids[t] for t in ts] for s, ts in enumerate(draft["packets"])},
                "picked": {s: [ids[t] for t in ts] for s, ts in enumerate(draft["picked"])},
                "done": dict(enumerate(draft["done"])),
                "returned": [ids[t] for t in draft.get("returned", [])],
            },
        }

    def set_position(self, state: GameState, fields: dict[str, Any]) -> None:
        ext = _ext(state)
        for pile, n in fields.get("festival_piles", {}).items():
            if pile not in ext["piles"]:
                raise ValueError(f"no festival pile {pile!r}: use {sorted(ext['piles'])}")
            ext["piles"][pile] = n
        for seat, held in fields.get("festival_cards", {}).items():
            unknown = set(held) - set(ext["piles"])
            if unknown:
                raise ValueError(f"no festival piles {sorted(unknown)}")
            ext["held"][seat] = {p: n for p, n in held.items() if n}
        for flag in ("second_draft_done", "second_draft_due"):
            if flag in fields:
                ext[flag] = fields[flag]
        if fields.get("phase") not in (None, DRAFT, DRAFT_KEEP):
            ext["draft"] = None  # a position past the draft (its packets leave play)
        if fields.get("phase") not in (None, CHOOSE_FESTIVAL):
            ext["choice"] = None
        if "festival_choice" in fields:
            unknown = set(fields["festival_choice"]) - set(ext["piles"])
            if unknown:
                raise ValueError(f"no festival piles {sorted(unknown)}")
            ext["choice"] = list(fields["festival_choice"])
        if "draft" in fields:
            ext["draft"] = _draft(state, fields["draft"])
        if state.phase == CHOOSE_FESTIVAL and not ext["choice"]:
            raise ValueError('phase "choose_festival" needs a festival_choice')
        if state.phase in (DRAFT, DRAFT_KEEP) and ext["draft"] is None:
            raise ValueError(f"phase {state.phase!r} needs a draft")

    def private_fields(self, state: GameState, seat: int) -> dict[str, Any]:
        ext = _ext(state)
        draft = ext["draft"]
        drafting = draft is not None and state.phase == DRAFT
        packet = draft["packets"][seat] if drafting else []
        picked = draft["picked"][seat] if drafting else []
        choosing = ext["choice"] is not None and state.current == seat
        return {
            "festival_cards": {p: n for p, n in ext["held"][seat].items() if n},
            "festival_options": list(ext["choice"]) if choosing else [],
            "draft_packet": [ticket_view(state.board, t) for t in packet],
            "draft_picked": [ticket_view(state.board, t) for t in picked],
            "keep_max": draft["keep"] if draft and state.phase == DRAFT_KEEP else None,
        }
