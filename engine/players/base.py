"""What a computer player sees and the interface every player implements.

A player gets an ``Observation``: the static board, the public view, its own
private view, the public history of events, its own legal actions and a seed.
Nothing else: never another seat's hand or tickets, never the deck order.
``observe`` is the only place that reads a ``GameState`` on a player's behalf.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.actions import Action
from engine.board import Board
from engine.errors import IllegalAction
from engine.events import Event
from engine.game import legal_actions
from engine.state import GameState
from engine.turns import waiting_for
from engine.views import PrivateView, PublicView, private_view, public_view


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything a seat may know when it must decide."""

    seat: int
    board: Board  # the static map: cities, routes, tickets, rules
    public: PublicView
    private: PrivateView
    # The seat's own legal actions as the engine lists them: they depend only on its own
    # hand and pieces and on public facts (market, deck sizes, claims), which it may see.
    options: tuple[Action, ...]
    history: tuple[Event, ...]  # public events so far (the caller's log; may be empty)
    seed: int  # the player's own randomness, so a choice is reproducible


class Player(Protocol):
    """A computer player: returns the action it takes for the observed seat."""

    def choose(self, observation: Observation) -> Action: ...


PlayerFactory = Callable[[int], Player]
"""Makes the player for a seat (``package.module:factory`` on the tournament's command line)."""


def observe(
    state: GameState, seat: int, *, history: Sequence[Event] = (), seed: int = 0
) -> Observation:
    """What ``seat`` may see now; raises ``IllegalAction`` if it has nothing to decide."""
    if seat not in waiting_for(state):
        raise IllegalAction("There is nothing for this seat to decide now.")
    return Observation(
        seat=seat,
        board=state.board,
        public=public_view(state),
        private=private_view(state, seat),
        options=tuple(legal_actions(state, seat)),
        history=tuple(history),
        seed=seed,
    )
