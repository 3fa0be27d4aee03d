"""The phases a game passes through, and what each one is.

A phase is a ``StrEnum``: its value is the name stored in snapshots and logs since
before the enum, so stored games load unchanged. What a phase *is* (do several seats
decide at once, what kind of decision it asks for) lives here once, for the engine and
for every reader of the views; nobody else keeps a list of phase names.
"""

from __future__ import annotations

from enum import StrEnum


class Decision(StrEnum):
    """What a phase asks of the seats it waits for."""

    TICKETS = "tickets"  # keep some of the offered destination tickets
    TURN = "turn"  # a whole turn: draw, claim, draw tickets or a map's own turn action
    SECOND_CARD = "second_card"  # the second card of a draw
    TUNNEL = "tunnel"  # pay a tunnel's extra cards or decline
    CHOICE = "choice"  # a map module's decision, answered from a short list of actions
    NONE = "none"  # nothing: the game is over


class Phase(StrEnum):
    # Hash as the text does (Enum's own hash is a Python call on the member's name): the
    # engine looks phases up in sets and dicts on every action.
    __hash__ = str.__hash__

    CHOOSE_INITIAL_TICKETS = "choose_initial_tickets"
    TURN = "turn"
    SECOND_DRAW = "second_draw"
    CHOOSE_TICKETS = "choose_tickets"
    TUNNEL = "tunnel"
    CHOOSE_SHARE = "choose_share"  # Pennsylvania
    CHOOSE_NEUTRAL_SHARE = "choose_neutral_share"  # Pennsylvania, 2 players
    DRAFT = "draft"  # Iberia
    DRAFT_KEEP = "draft_keep"  # Iberia
    CHOOSE_FESTIVAL = "choose_festival"  # Iberia
    CHOOSE_PIECES = "choose_pieces"  # Rails & Sails
    GAME_OVER = "game_over"

    @property
    def simultaneous(self) -> bool:
        """Whether every seat ``waiting_for`` names decides at once, in private (so no
        seat is 'current')."""
        return self in _SIMULTANEOUS

    @property
    def decision(self) -> Decision:
        return _DECISIONS[self]

    @property
    def map_decision(self) -> bool:
        """Whether a map's rule module added this phase (a decision of that map's own,
        which the module's ``phases`` names); the others belong to every map."""
        return self not in _COMMON


# The members as module constants for the hot path: ``Phase.TURN`` finds its member through
# the enum's class machinery, about ten times a global name's cost, on every action.
CHOOSE_INITIAL_TICKETS = Phase.CHOOSE_INITIAL_TICKETS
TURN = Phase.TURN
SECOND_DRAW = Phase.SECOND_DRAW
CHOOSE_TICKETS = Phase.CHOOSE_TICKETS
TUNNEL = Phase.TUNNEL
CHOOSE_SHARE = Phase.CHOOSE_SHARE
CHOOSE_NEUTRAL_SHARE = Phase.CHOOSE_NEUTRAL_SHARE
DRAFT = Phase.DRAFT
DRAFT_KEEP = Phase.DRAFT_KEEP
CHOOSE_FESTIVAL = Phase.CHOOSE_FESTIVAL
CHOOSE_PIECES = Phase.CHOOSE_PIECES
GAME_OVER = Phase.GAME_OVER

_SIMULTANEOUS = frozenset({
    Phase.CHOOSE_INITIAL_TICKETS, Phase.DRAFT, Phase.DRAFT_KEEP, Phase.CHOOSE_PIECES})

_COMMON = frozenset({
    Phase.CHOOSE_INITIAL_TICKETS, Phase.TURN, Phase.SECOND_DRAW, Phase.CHOOSE_TICKETS,
    Phase.TUNNEL, Phase.GAME_OVER})

_DECISIONS: dict[Phase, Decision] = {
    Phase.CHOOSE_INITIAL_TICKETS: Decision.TICKETS,
    Phase.TURN: Decision.TURN,
    Phase.SECOND_DRAW: Decision.SECOND_CARD,
    Phase.CHOOSE_TICKETS: Decision.TICKETS,
    Phase.TUNNEL: Decision.TUNNEL,
    Phase.CHOOSE_SHARE: Decision.CHOICE,
    Phase.CHOOSE_NEUTRAL_SHARE: Decision.CHOICE,
    Phase.DRAFT: Decision.CHOICE,
    Phase.DRAFT_KEEP: Decision.TICKETS,
    Phase.CHOOSE_FESTIVAL: Decision.CHOICE,
    Phase.CHOOSE_PIECES: Decision.CHOICE,
    Phase.GAME_OVER: Decision.NONE,
}
