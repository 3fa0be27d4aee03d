"""Fixtures for the rule tests: start a game, arrange cards, find routes, check refusals.

A test builds a position by names through ``engine.setup_position`` (hands, deck
top, market, owners), then acts only through ``engine.apply``. The helpers are
fixtures returning plain functions, so test modules need no imports from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pytest

from engine import (
    CARD_INDEX,
    ChoosePieces,
    GameConfig,
    GameState,
    IllegalAction,
    KeepTickets,
    Position,
    apply,
    new_game,
    position_of,
    setup_position,
)
from engine.actions import Action, DrawBlind

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve")


def card(name: str) -> int:
    """Card int of a name; 'loco' is short for 'locomotive'."""
    return CARD_INDEX["locomotive" if name == "loco" else name]


def _started(map_id: str = "usa", players: int = 2, seed: int = 7) -> GameState:
    """A game past the initial ticket choice (everyone keeps all offered), phase 'turn'."""
    state = new_game(GameConfig(map_id=map_id, players=list(NAMES[:players]), seed=seed))
    for seat in range(players):
        offered = [state.board.t_ids[t] for t in state.offered[seat]]
        apply(state, seat, KeepTickets(tickets=offered))
    if state.phase == "choose_pieces":  # Rails & Sails: the suggested split for everyone
        for seat in range(players):
            apply(state, seat, ChoosePieces(trains=20, ships=40))
    assert state.phase == "turn"
    return state


def _name(name: str) -> str:
    return "locomotive" if name == "loco" else name


def _set_hand(state: GameState, seat: int, cards: Mapping[str, int]) -> None:
    """Replace ``seat``'s hand with exactly ``cards``."""
    hand: dict[str, int] = {}
    for name, n in cards.items():
        hand[_name(name)] = hand.get(_name(name), 0) + n
    setup_position(state, Position(hands={seat: hand}))


def _give(state: GameState, seat: int, cards: Mapping[str, int]) -> None:
    """Add ``cards`` to ``seat``'s hand."""
    hand = (position_of(state).hands or {})[seat]
    for name, n in cards.items():
        hand[_name(name)] = hand.get(_name(name), 0) + n
    setup_position(state, Position(hands={seat: hand}))


def _set_deck_top(state: GameState, names: Iterable[str]) -> None:
    """Put ``names`` on top of the deck; the first name is drawn first."""
    setup_position(state, Position(deck_top=[_name(n) for n in names]))


def _set_market(state: GameState, names: Iterable[str | None]) -> None:
    setup_position(state, Position(market=[None if n is None else _name(n) for n in names]))


def _route(state: GameState, a: str, b: str, color: str | None = None) -> int:
    """Route id between cities ``a`` and ``b`` (``color`` picks one track of a double)."""
    found = [
        r.id
        for r in state.board.map.routes
        if {r.a, r.b} == {a, b} and (color is None or r.color == color)
    ]
    assert len(found) == 1, f"expected one route {a}-{b} {color or ''}, found {found}"
    return found[0]


def _ticket(state: GameState, a: str, b: str) -> int:
    """Ticket index (position in the board's tuples) of the ticket between ``a`` and ``b``."""
    found = [
        i for i, t in enumerate(state.board.map.tickets) if {t.cities[0], t.cities[-1]} == {a, b}
    ]
    assert len(found) == 1, f"expected one ticket {a}-{b}, found {found}"
    return found[0]


def _hold(state: GameState, seat: int, *tickets: tuple[str, str]) -> None:
    """Give ``seat`` exactly these destination tickets, each by its two end cities."""
    ids = [state.board.t_ids[_ticket(state, a, b)] for a, b in tickets]
    setup_position(state, Position(tickets={seat: ids}))


def _own(state: GameState, seat: int, *routes: tuple[str, str] | tuple[str, str, str]) -> None:
    """Give ``seat`` these routes (with their pieces and points): (a, b) or (a, b, colour)."""
    owners: dict[int, int | None] = {_route(state, *spec): seat for spec in routes}
    setup_position(state, Position(owners=owners))


def _illegal(state: GameState, seat: int, action: Action, *fragments: str) -> str:
    """Assert ``action`` is refused with a message containing ``fragments``, state untouched."""
    before = state.to_snapshot()
    with pytest.raises(IllegalAction) as info:
        apply(state, seat, action)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert state.to_snapshot() == before, "a refused action changed the state"
    return message


def _pass_turn(state: GameState) -> int:
    """The current player draws two blind cards (a plain turn); returns that seat."""
    seat = state.current
    if len(state.deck) < 2:
        _set_deck_top(state, ["white", "white"])
    apply(state, seat, DrawBlind())
    apply(state, seat, DrawBlind())
    return seat


@pytest.fixture
def started() -> Callable[..., GameState]:
    return _started


@pytest.fixture
def set_hand() -> Callable[[GameState, int, Mapping[str, int]], None]:
    return _set_hand


@pytest.fixture
def give() -> Callable[[GameState, int, Mapping[str, int]], None]:
    return _give


@pytest.fixture
def set_deck_top() -> Callable[[GameState, Iterable[str]], None]:
    return _set_deck_top


@pytest.fixture
def set_market() -> Callable[[GameState, Iterable[str | None]], None]:
    return _set_market


@pytest.fixture
def route() -> Callable[..., int]:
    return _route


@pytest.fixture
def ticket() -> Callable[[GameState, str, str], int]:
    return _ticket


@pytest.fixture
def hold() -> Callable[..., None]:
    return _hold


@pytest.fixture
def own() -> Callable[..., None]:
    return _own


@pytest.fixture
def illegal() -> Callable[..., str]:
    return _illegal


@pytest.fixture
def pass_turn() -> Callable[[GameState], int]:
    return _pass_turn


@pytest.fixture
def cards() -> Callable[[str], int]:
    return card


def event_types(events: Iterable[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


@pytest.fixture
def kinds() -> Callable[[Iterable[Any]], list[str]]:
    """Event class names, to assert what an action caused in order."""
    return event_types
