"""The hooks a map's own mechanic plugs into; each has a do-nothing default."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from engine.actions import Action
    from engine.events import Event
    from engine.state import GameState

Handler = Callable[["GameState", int, "Action"], "list[Event]"]


class RuleModule:
    # Action types this module handles, with their handlers.
    handlers: ClassVar[dict[type[Any], Handler]] = {}

    def turn_actions(self, state: GameState, seat: int) -> list[Action]:
        """Extra actions ``seat`` may take as the main action of a turn."""
        return []

    def can_act(self, state: GameState, seat: int) -> bool:
        """Whether ``seat`` could take one of this module's turn actions."""
        return False

    def borrowed_routes(self, state: GameState, seat: int) -> list[int]:
        """Route indexes of other players that count for ``seat``'s tickets at the end."""
        return []
