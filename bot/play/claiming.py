"""Claiming by clicks: what a player can build now, the most useful first, and how to pay.

A **Claim a route** button (and **Build a station** / **Build a harbor** where the map has
them) opens a private list of the routes (cities) this player can pay for now, taken from
``engine.legal_actions``. The routes that serve the player's open tickets come first (the
computer players' planner picks them), then the ones worth most points; cities named on
the player's tickets come first. A list longer than Discord's 25 options is paged. The
engine offers one cheapest payment per colour, so a second step asks only when more than
one colour can pay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import engine
from bot.i18n import _
from bot.play import presenters
from engine import Action, BuildHarbor, BuildStation, Claim, GameState
from engine.cards import card_suit
from engine.players.base import observe
from engine.players.situation import Situation
from maps import load_map

# What each picker builds: its button opens it (``components.build_buttons``).
KINDS: dict[str, type[Claim] | type[BuildStation] | type[BuildHarbor]] = {
    "claim": Claim, "station": BuildStation, "harbor": BuildHarbor}
PAGE = 25  # Discord's most options in one select
# A payment as a select's value: 'red:3,locomotive:1' (at most 100 characters).
PAYMENT = re.compile(r"[a-z_]{1,24}:[0-9]{1,2}(?:,[a-z_]{1,24}:[0-9]{1,2}){0,7}")


@dataclass(frozen=True, slots=True)
class Target:
    """One route or city the player can build on now, and every way to pay for it."""

    key: str  # the route id or city id (a select option's value)
    number: int  # the route id, or the city's index on the map (fits a custom_id)
    label: str
    useful: bool  # serves one of the player's open tickets
    payments: tuple[Action, ...]  # one per colour, cheapest first


def kind_of(action: Action) -> str | None:
    return next((k for k, t in KINDS.items() if isinstance(action, t)), None)


def payment_value(cards: dict[str, int]) -> str:
    return ",".join(f"{c}:{n}" for c, n in sorted(cards.items()) if n)


def payment_cards(value: str) -> dict[str, int] | None:
    """The cards a select's value names, or None if it is not a payment this bot made."""
    if not PAYMENT.fullmatch(value):
        return None
    return {card: int(n) for card, n in (part.split(":") for part in value.split(","))}


def claim_colour(cards: dict[str, int]) -> str:
    """The colour a payment is named by: its first colour ('red' for red ships and harbor
    trains too), 'locomotive' for wild cards only. One payment per colour is offered."""
    return next((card_suit(c) for c, n in cards.items() if n and c != "locomotive"),
                "locomotive")


def _cheapest_first(payments: Sequence[Action], hand: dict[str, int]) -> tuple[Action, ...]:
    """Fewest locomotives first, then the colour the hand holds most of (least missed)."""
    def key(a: Action) -> tuple[int, int, str]:
        cards: dict[str, int] = getattr(a, "cards", {})
        colour = claim_colour(cards)
        held = sum(n for c, n in hand.items() if card_suit(c) == colour)
        return cards.get("locomotive", 0), -held, colour
    return tuple(sorted(payments, key=key))


def _grouped(state: GameState, seat: int, kind: str) -> dict[str, list[Action]]:
    """The legal actions of ``kind``, by route id or city id (as a select's value)."""
    out: dict[str, list[Action]] = {}
    for a in engine.legal_actions(state, seat):
        if isinstance(a, KINDS[kind]):
            out.setdefault(str(a.route) if isinstance(a, Claim) else getattr(a, "city", ""),
                           []).append(a)
    return out


def _target(state: GameState, seat: int, kind: str, key: str, ways: list[Action],
            useful: bool) -> Target:
    map_id = state.config.map_id
    payments = _cheapest_first(ways, engine.private_view(state, seat).hand)
    if kind == "claim":
        return Target(key, int(key), presenters.route_label(map_id, int(key)), useful, payments)
    index = next(i for i, c in enumerate(load_map(map_id).cities) if c.id == key)
    return Target(key, index, presenters.city_name(map_id, key), useful, payments)


def targets(state: GameState, seat: int, kind: str) -> list[Target]:
    """What ``seat`` can build of ``kind`` now, the most useful first."""
    grouped = _grouped(state, seat, kind)
    if not grouped:
        return []
    situation = Situation(observe(state, seat))
    board = state.board
    if kind == "claim":
        plan = situation.plan(situation.open_tickets, situation.route_costs())
        wanted = {str(board.route_ids[r]) for r in plan.routes}
        points = board.rules.route_points
        length = {str(r.id): r.length for r in board.map.routes}
        found = [_target(state, seat, kind, k, ways, k in wanted) for k, ways in grouped.items()]
        return sorted(found, key=lambda t: (not t.useful, -points.get(length[t.key], 0),
                                            t.label))
    named = {c for t in situation.open_tickets for c in board.map.tickets[t].cities}
    found = [_target(state, seat, kind, k, ways, k in named) for k, ways in grouped.items()]
    return sorted(found, key=lambda t: (not t.useful, t.label))


def target(state: GameState, seat: int, kind: str, key: str) -> Target | None:
    """One of ``targets``, found without ranking them all (its ``useful`` is not known)."""
    ways = _grouped(state, seat, kind).get(key)
    return None if ways is None else _target(state, seat, kind, key, ways, False)


def pages(found: Sequence[Target]) -> int:
    return max(1, -(-len(found) // PAGE))


def page_of(found: Sequence[Target], page: int) -> list[Target]:
    return list(found[page * PAGE:(page + 1) * PAGE])


def option_text(map_id: str, target: Target) -> str:
    """An option's second line: what it pays, how it serves the player."""
    ways = [presenters.cards_text(map_id, getattr(a, "cards", {})) for a in target.payments]
    pay = (_("pay {cards}", cards=ways[0]) if len(ways) == 1
           else _("{n} ways to pay", n=len(ways)))
    return _("🎫 for your tickets · {pay}", pay=pay) if target.useful else pay


def payment_label(map_id: str, action: Action) -> str:
    cards: dict[str, int] = getattr(action, "cards", {})
    colour = claim_colour(cards)
    name = presenters.card_label(map_id, colour) if colour == "locomotive" else _(colour)
    return _("{colour} (pay {cards})", colour=name, cards=presenters.cards_text(map_id, cards))
