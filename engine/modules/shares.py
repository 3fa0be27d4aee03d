"""Pennsylvania's railroad shares.

Claiming a route that shows company logos lets the player take the top share of
one shown company that has shares left, or none (taking one is optional). In a
2-player game a player who takes a share also gives the neutral investor one
shown company's top share, face down (chosen when several have shares left);
half of its pile is revealed before scoring and takes places from the players.
Shares are secret: events and the public view only say that one was taken.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any, ClassVar

from engine.actions import Action, DeclineShare, GiveNeutralShare, TakeShare
from engine.errors import IllegalAction, Text
from engine.events import Event, ShareTaken
from engine.extras import ExtraPoints, share_points
from engine.hooks import Handler, RuleModule
from engine.phases import CHOOSE_NEUTRAL_SHARE, CHOOSE_SHARE, GAME_OVER, TURN, Phase
from engine.state import GameState
from engine.turns import end_turn, require_turn
from maps.model import Shares as SharesConfig


def _config(state: GameState) -> SharesConfig:
    shares = state.board.rules.shares
    assert shares is not None
    return shares


def _ext(state: GameState) -> dict[str, Any]:
    ext: dict[str, Any] = state.ext["shares"]
    return ext


def _stack_size(state: GameState, company: str) -> int:
    return next(c.shares for c in _config(state).companies if c.id == company)


def _available(state: GameState, route: int) -> list[str]:
    taken = _ext(state)["taken"]
    return [c for c in state.board.map.routes[route].shares if taken[c] < _stack_size(state, c)]


def _neutral_game(state: GameState) -> bool:
    return state.n_players in _config(state).neutral_investor_players


def _take(state: GameState, seat: int, company: str, neutral: bool, events: list[Event]) -> None:
    ext = _ext(state)
    ext["taken"][company] += 1
    share = [company, ext["taken"][company]]
    (ext["neutral"] if neutral else ext["held"][seat]).append(share)
    events.append(ShareTaken(seat, neutral))


def _offer(state: GameState, seat: int, route: int, neutral: bool, events: list[Event]) -> bool:
    """Offer the route's shares (the player's own, or the neutral investor's); True if a
    choice is left to ``seat``. A single company for the neutral investor goes at once."""
    options = _available(state, route)
    if not options:
        return False
    if neutral and len(options) == 1:
        _take(state, seat, options[0], neutral, events)
        return False
    _ext(state)["pending"] = {"route": route, "neutral": neutral, "options": options}
    state.phase = CHOOSE_NEUTRAL_SHARE if neutral else CHOOSE_SHARE
    return True


def _choose(state: GameState, seat: int, company: str | None, neutral: bool) -> list[Event]:
    require_turn(state, seat, CHOOSE_NEUTRAL_SHARE if neutral else CHOOSE_SHARE)
    ext = _ext(state)
    pending = ext["pending"]
    if company is not None and company not in pending["options"]:
        raise IllegalAction("Choose one of: {companies}.",
                            companies=", ".join(pending["options"]))
    events: list[Event] = []
    ext["pending"] = None
    state.phase = TURN
    if company is None:  # no share, and so none for the neutral investor either
        return end_turn(state, events)
    _take(state, seat, company, neutral, events)
    if (
        not neutral
        and _neutral_game(state)
        and _offer(state, seat, pending["route"], True, events)
    ):
        return events
    return end_turn(state, events)


def take_share(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, TakeShare)
    return _choose(state, seat, action.company, neutral=False)


def decline_share(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, DeclineShare)
    return _choose(state, seat, None, neutral=False)


def give_neutral_share(state: GameState, seat: int, action: Action) -> list[Event]:
    assert isinstance(action, GiveNeutralShare)
    return _choose(state, seat, action.company, neutral=True)


def _by_company(shares: list[list[Any]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for company, number in shares:
        out.setdefault(company, []).append(number)
    return out


def _counts(companies: list[str], shares: list[list[Any]]) -> dict[str, int]:
    """How many of ``shares`` each company has, in the companies' order (none left out)."""
    held = [company for company, _number in shares]
    return {c: n for c in companies if (n := held.count(c))}


def _share_list(state: GameState, by_company: dict[str, list[int]]) -> list[list[Any]]:
    companies = {c.id for c in _config(state).companies}
    for company in by_company:
        if company not in companies:
            raise ValueError(f"no company {company!r}: use {sorted(companies)}")
    return [[c, n] for c, numbers in by_company.items() for n in sorted(numbers)]


@cache
def _take_action(company: str) -> TakeShare:
    """The ``TakeShare`` of ``company``, shared (actions are frozen values)."""
    return TakeShare(company=company)


@cache
def _give_action(company: str) -> GiveNeutralShare:
    """The ``GiveNeutralShare`` of ``company``, shared."""
    return GiveNeutralShare(company=company)


_DECLINE = DeclineShare()


class Shares(RuleModule):
    handlers: ClassVar[dict[type, Handler]] = {
        TakeShare: take_share,
        DeclineShare: decline_share,
        GiveNeutralShare: give_neutral_share,
    }
    phases: ClassVar[dict[Phase, Text]] = {
        CHOOSE_SHARE: Text(
            "Choose which company's share to take for your route (or none) first."),
        CHOOSE_NEUTRAL_SHARE: Text(
            "Choose which company's share goes to the neutral investor first."),
    }

    def setup(self, state: GameState) -> None:
        state.ext["shares"] = {
            "taken": {c.id: 0 for c in _config(state).companies},
            "held": [[] for _ in range(state.n_players)],
            "neutral": [],
            "revealed": [],
            "pending": None,
        }

    def on_claim(self, state: GameState, seat: int, route: int, events: list[Event]) -> bool:
        return _offer(state, seat, route, False, events)

    def phase_actions(self, state: GameState, seat: int) -> list[Action]:
        options = _ext(state)["pending"]["options"]
        if state.phase == CHOOSE_NEUTRAL_SHARE:
            return [*map(_give_action, options)]
        return [*map(_take_action, options), _DECLINE]

    def on_game_over(self, state: GameState) -> None:
        ext = _ext(state)
        pile = list(ext["neutral"])
        state.rng.shuffle(pile)
        ext["revealed"] = pile[: math.ceil(len(pile) * _config(state).neutral_reveal_fraction)]

    def final_points(self, state: GameState) -> list[list[ExtraPoints]]:
        ext = _ext(state)
        out: list[list[ExtraPoints]] = [[] for _ in range(state.n_players)]
        for company in _config(state).companies:
            # (shares held, first share number, seat); the neutral investor is seat -1.
            investors = []
            for seat, held in [*enumerate(ext["held"]), (-1, ext["revealed"])]:
                numbers = [n for c, n in held if c == company.id]
                if numbers:
                    investors.append((-len(numbers), min(numbers), seat))
            for place, (_, _, seat) in enumerate(sorted(investors)):
                if seat >= 0 and place < len(company.scores):
                    out[seat].append(share_points(company.id, place + 1, company.scores[place]))
        return out

    def public_fields(self, state: GameState) -> dict[str, Any]:
        ext = _ext(state)
        companies = [c.id for c in _config(state).companies]
        fields: dict[str, Any] = {
            "share_stacks": {c.id: c.shares - ext["taken"][c.id] for c in _config(state).companies},
            "neutral_shares": len(ext["neutral"]),
        }
        if state.phase == GAME_OVER:  # shares are secret until the end (RULES.md §8)
            fields["shares_held"] = [_counts(companies, held) for held in ext["held"]]
            fields["neutral_revealed"] = _counts(companies, ext["revealed"])
        return fields

    def position_fields(self, state: GameState) -> dict[str, Any]:
        ext = _ext(state)
        pending = ext["pending"]
        return {
            "shares": {s: _by_company(held) for s, held in enumerate(ext["held"])},
            "neutral_shares": _by_company(ext["neutral"]),
            "share_choice": pending
            and {
                "route": state.board.route_ids[pending["route"]],
                "options": list(pending["options"]),
            },
        }

    def set_position(self, state: GameState, fields: dict[str, Any]) -> None:
        ext = _ext(state)
        if fields.get("phase") not in (None, *self.phases):
            ext["pending"] = None
        choice = fields.get("share_choice")
        if choice is not None:
            r = state.board.route_index.get(choice.route)
            if r is None:
                raise ValueError(f"no route {choice.route} on {state.board.map.id}")
            options = _available(state, r) if choice.options is None else list(choice.options)
            unknown = set(options) - set(ext["taken"])
            if unknown:
                raise ValueError(f"no companies {sorted(unknown)}: use {sorted(ext['taken'])}")
            neutral = state.phase == CHOOSE_NEUTRAL_SHARE
            ext["pending"] = {"route": r, "neutral": neutral, "options": options}
        if state.phase in self.phases and ext["pending"] is None:
            raise ValueError(f"phase {state.phase!r} needs a share_choice")
        for seat, held in fields.get("shares", {}).items():
            ext["held"][seat] = _share_list(state, held)
        if "neutral_shares" in fields:
            ext["neutral"] = _share_list(state, fields["neutral_shares"])
        elif "shares" not in fields:
            return
        # Shares leave a stack in number order: its top number is how many are gone.
        everyone = [ext["neutral"], *ext["held"]]
        for company in ext["taken"]:
            numbers = [n for held in everyone for c, n in held if c == company]
            ext["taken"][company] = max(numbers, default=0)

    def private_fields(self, state: GameState, seat: int) -> dict[str, Any]:
        ext = _ext(state)
        held = _by_company(ext["held"][seat])
        pending = ext["pending"]
        mine = pending is not None and state.current == seat
        return {"shares": held, "share_options": list(pending["options"]) if mine else []}
