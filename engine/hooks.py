"""The hooks a map's own mechanic plugs into; each has a do-nothing default."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from engine.actions import Action
from engine.errors import Text
from engine.events import Event
from engine.extras import ExtraPoints
from engine.phases import Phase
from engine.state import GameState

Handler = Callable[[GameState, int, Action], list[Event]]


class RuleModule:
    # Action types this module handles, with their handlers.
    handlers: ClassVar[dict[type[Any], Handler]] = {}
    # Phases this module adds (decisions it leaves pending), with what to tell a player
    # who tries something else meanwhile.
    # (What each phase is, simultaneous or not, is ``engine.phases.Phase``'s to say.)
    phases: ClassVar[dict[Phase, Text]] = {}
    # Handlers that take over an action type while one of this module's phases is on.
    phase_handlers: ClassVar[dict[type[Any], Handler]] = {}
    # True if this module lists a turn's draws and claims itself (its own cards and routes).
    replaces_turn_actions: ClassVar[bool] = False
    # A phase of this module's that each seat may take up as soon as it has kept its first
    # tickets, while others still choose theirs (Rails & Sails' pieces): during the ticket
    # choice its ``waiting_for`` and ``phase_actions`` serve the seats that have kept.
    early_phase: ClassVar[Phase | None] = None

    def waiting_for(self, state: GameState) -> list[int]:
        """Seats that must act in one of this module's phases."""
        return [state.current]

    def setup(self, state: GameState) -> None:
        """Initialise this module's part of ``state.ext`` when a game starts."""

    def turn_actions(self, state: GameState, seat: int) -> Sequence[Action]:
        """Extra actions ``seat`` may take as the main action of a turn (the caller copies
        them: a module may hand out a shared sequence)."""
        return ()

    def phase_actions(self, state: GameState, seat: int) -> list[Action]:
        """What ``seat`` may do in one of this module's phases."""
        return []

    def draw_actions(self, state: GameState, seat: int) -> list[Action]:
        """The card draws ``seat`` may make (only with ``replaces_turn_actions``)."""
        return []

    def refill_market(self, state: GameState, seat: int, events: list[Event]) -> bool:
        """Fill the market's empty slots in this map's way; False to leave it to the core."""
        return False

    def can_act(self, state: GameState, seat: int) -> bool:
        """Whether ``seat`` could take one of this module's turn actions."""
        return False

    def payment_with(self, state: GameState, seat: int, route: int, colour: str,
                     wild: int) -> dict[str, int] | None:
        """This map's way to pay ``route`` in ``colour`` with exactly ``wild`` wild cards
        (``engine.game.payment_with``); None: the core's."""
        return None

    def on_claim(self, state: GameState, seat: int, route: int, events: list[Event]) -> bool:
        """React to a completed claim; True if it left a decision pending (the turn goes on)."""
        return False

    def on_special_card(self, state: GameState, seat: int, card: int, events: list[Event]) -> None:
        """A card beyond the train suits came off the deck; place it (the deck draws again)."""

    def interrupts_turn_order(self, state: GameState, events: list[Event]) -> bool:
        """At a turn's end: True if this module starts an interlude (it calls ``next_turn``)."""
        return False

    def tickets_closed(self, state: GameState) -> Text | None:
        """Why this map forbids drawing tickets now, or None."""
        return None

    def on_game_over(self, state: GameState) -> None:
        """Last changes before the final scoring (e.g. reveal a hidden pile)."""

    def borrowed_routes(self, state: GameState, seat: int) -> list[int]:
        """Route indexes of other players that count for ``seat``'s tickets at the end."""
        return []

    def final_points(self, state: GameState) -> list[list[ExtraPoints]]:
        """Per seat, the map's extra points at the end, each with what it is for."""
        return [[] for _ in range(state.n_players)]

    def public_fields(self, state: GameState) -> dict[str, Any]:
        """Fields of ``PublicView`` this module fills (public facts only)."""
        return {}

    def private_fields(self, state: GameState, seat: int) -> dict[str, Any]:
        """Fields of ``PrivateView`` this module fills for ``seat``."""
        return {}

    # Positions by name (engine.position) ----------------------------------------------------

    def special_cards(self, state: GameState) -> dict[str, int]:
        """Names of this map's special deck cards (beyond the hand's kinds) -> their codes."""
        return {}

    def position_fields(self, state: GameState) -> dict[str, Any]:
        """Fields of ``Position`` this module reads from ``state``."""
        return {}

    def set_position(self, state: GameState, fields: dict[str, Any]) -> None:
        """Write this module's fields of a ``Position`` (those given) into ``state``."""

    def move_pieces(self, state: GameState, seat: int, route: int, n: int) -> None:
        """A position gave (``n < 0``) or took back (``n > 0``) ``route``'s pieces: the
        core has moved ``state.trains``; split them by kind if this map does."""


# The module lookup ------------------------------------------------------------------------
#
# ``engine.modules`` registers its modules here when it is imported (``engine/__init__``
# imports it through ``engine.game``), so the turn machinery below the modules can run
# their hooks without importing them.

MODULES: dict[str, RuleModule] = {}  # module name -> the module
_BY_MAP: dict[str, tuple[RuleModule, ...]] = {}  # map id -> its rule modules


class UnsupportedMap(ValueError):
    """The map needs a rule module this engine does not have yet."""


def register(name: str, module: RuleModule) -> None:
    MODULES[name] = module


def modules_for(map_id: str, names: tuple[str, ...]) -> tuple[RuleModule, ...]:
    """The modules a map turns on, in its order; refuses a map needing one not built."""
    modules = _BY_MAP.get(map_id)
    if modules is None:
        missing = [n for n in names if n not in MODULES]
        if missing:
            raise UnsupportedMap(f"map {map_id!r} needs rule modules not built yet: {missing}")
        modules = _BY_MAP[map_id] = tuple(MODULES[n] for n in names)
    return modules


def rule_modules(state: GameState) -> tuple[RuleModule, ...]:
    """The rule modules of ``state``'s map."""
    return plan_of(state).modules


class ModulePlan:
    """What a map's rule modules take part in, worked out once per map: the hot path
    (``apply``, ``legal_actions``, a turn's end) asks these instead of looping over the
    modules each call to find the few (usually none) that override a hook."""

    __slots__ = ("interrupts", "modules", "own_turn", "phases", "refills", "tickets",
                 "turn_actions")

    def __init__(self, modules: tuple[RuleModule, ...]) -> None:
        self.modules = modules
        # The modules' own phases, each with the (first) module that has it.
        self.phases: dict[Phase, RuleModule] = {}
        for m in reversed(modules):
            self.phases.update(dict.fromkeys(m.phases, m))
        self.own_turn = next((m for m in modules if m.replaces_turn_actions), None)
        self.turn_actions = _overriding(modules, "turn_actions")
        self.tickets = _overriding(modules, "tickets_closed")
        self.interrupts = _overriding(modules, "interrupts_turn_order")
        self.refills = _overriding(modules, "refill_market")


def _overriding(modules: tuple[RuleModule, ...], hook: str) -> tuple[RuleModule, ...]:
    """The modules whose ``hook`` is their own (the others' does nothing), in order."""
    return tuple(m for m in modules if getattr(type(m), hook) is not getattr(RuleModule, hook))


_PLANS: dict[object, ModulePlan] = {}  # board (one per map, hashed by identity) -> its plan


def plan_of(state: GameState) -> ModulePlan:
    """The ``ModulePlan`` of ``state``'s map (kept on the state too: the hot path reads
    ``state.plan or plan_of(state)``, without a call once it is set)."""
    plan: ModulePlan | None = state.plan
    if plan is None:
        board = state.board
        plan = _PLANS.get(board)
        if plan is None:
            modules = modules_for(board.map.id, tuple(board.rules.modules))
            plan = _PLANS[board] = ModulePlan(modules)
        state.plan = plan
    return plan
