"""Computer players: ``choose_action(level, state, seat)`` is the one entry point.

A player sees only what its seat may see (``engine.players.base.observe``) and
returns an action; levels differ in style (see ``engine.players.heuristic``).
Players written elsewhere implement ``Player`` and are made by a ``PlayerFactory``.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import Action
from engine.events import Event
from engine.players.base import Observation, Player, PlayerFactory, observe
from engine.players.heuristic import (
    easy,
    expert,
    normal,
    planner,
    racer,
    rusher,
    ticket_greedy,
)
from engine.players.search import hard
from engine.state import GameState

LEVELS = ("easy", "normal", "hard")
FACTORIES: dict[str, PlayerFactory] = {
    "easy": easy,
    "normal": normal,
    "hard": hard,
    "racer": racer,
    "greedy": ticket_greedy,
    "planner": planner,
    "rusher": rusher,
    "expert": expert,
}
"""Players by name: the three levels and the reference opponents."""
REFERENCES = ("racer", "greedy", "planner", "rusher", "expert")


class Controller(str):
    """Who plays a seat: ``'human'`` (its member, in person), ``'auto'`` (the safe automatic
    move, ``engine.safe_action``) or ``'computer:<level>'`` (a computer player of one of
    ``LEVELS``). A ``str``, so it is stored and compared as that text; this constructor is
    the one place that reads one, and refuses anything else with ValueError."""

    __slots__ = ()

    def __new__(cls, text: str) -> Controller:
        if text not in _CONTROLLER_NAMES:
            raise ValueError(f"unknown controller {text!r}: one of "
                             f"{', '.join(sorted(_CONTROLLER_NAMES))}")
        return super().__new__(cls, text)

    @classmethod
    def computer(cls, level: str) -> Controller:
        return cls(f"computer:{level}")

    @property
    def human(self) -> bool:
        return self == "human"

    @property
    def level(self) -> str | None:
        """A computer player's level; None for a member or the automatic move."""
        kind, _, level = self.partition(":")
        return level if kind == "computer" else None


_CONTROLLER_NAMES = frozenset({"human", "auto", *(f"computer:{level}" for level in LEVELS)})
HUMAN = Controller("human")
AUTO = Controller("auto")
CONTROLLERS = (HUMAN, AUTO, *(Controller.computer(level) for level in LEVELS))


def choose_action(
    level: str, state: GameState, seat: int, *, history: Sequence[Event] = (), seed: int = 0
) -> Action:
    """The action a computer player of ``level`` takes for ``seat`` now.

    It decides from ``seat``'s own view, the public ``history`` and ``seed`` only, so the
    same inputs give the same choice. Raises ``IllegalAction`` if ``seat`` has nothing
    to decide now, ``ValueError`` for an unknown level.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    observation = observe(state, seat, history=history, seed=seed)
    return FACTORIES[level](seat).choose(observation)


__all__ = [
    "AUTO",
    "CONTROLLERS",
    "FACTORIES",
    "HUMAN",
    "LEVELS",
    "REFERENCES",
    "Controller",
    "Observation",
    "Player",
    "PlayerFactory",
    "choose_action",
    "observe",
]
