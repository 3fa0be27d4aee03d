"""The Ticket to Ride rules engine: pure, synchronous, deterministic.

A game is (config, seed, log). ``new_game`` starts one, ``apply`` plays an
action for a seat (or raises ``IllegalAction`` leaving the state untouched), ``replay``
plays a log (whose ``Undo`` entries take back the action before),
``legal_actions`` lists what a seat may do, and the views say what each
audience may see.
"""

from engine.actions import (
    ACTION_ADAPTER,
    LOG_ADAPTER,
    Action,
    BuildHarbor,
    BuildStation,
    ChoosePieces,
    Claim,
    DeclineShare,
    DeclineTunnel,
    DraftPick,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    ExchangePieces,
    GiveNeutralShare,
    KeepTickets,
    PayTunnel,
    TakeFestival,
    TakeShare,
    Undo,
)
from engine.agents import safe_action
from engine.board import Board, board_for
from engine.cards import CARD_INDEX, CARD_NAMES
from engine.errors import IllegalAction
from engine.game import (
    apply,
    in_effect,
    legal_actions,
    new_game,
    payment_with,
    replay,
    ticket_keeps,
)
from engine.phases import Decision, Phase
from engine.planner import TicketPlan, plan_tickets
from engine.position import (
    PendingDraft,
    Position,
    ShareChoice,
    TunnelChoice,
    position_of,
    setup_position,
)
from engine.scoring import FinalScores, score_position
from engine.state import RULES_VERSION, GameConfig, GameState
from engine.turns import waiting_for
from engine.views import PrivateView, PublicView, private_view, public_view

__all__ = [
    "ACTION_ADAPTER",
    "CARD_INDEX",
    "CARD_NAMES",
    "LOG_ADAPTER",
    "RULES_VERSION",
    "Action",
    "Board",
    "BuildHarbor",
    "BuildStation",
    "ChoosePieces",
    "Claim",
    "Decision",
    "DeclineShare",
    "DeclineTunnel",
    "DraftPick",
    "DrawBlind",
    "DrawFaceUp",
    "DrawTickets",
    "ExchangePieces",
    "FinalScores",
    "GameConfig",
    "GameState",
    "GiveNeutralShare",
    "IllegalAction",
    "KeepTickets",
    "PayTunnel",
    "PendingDraft",
    "Phase",
    "Position",
    "PrivateView",
    "PublicView",
    "ShareChoice",
    "TakeFestival",
    "TakeShare",
    "TicketPlan",
    "TunnelChoice",
    "Undo",
    "apply",
    "board_for",
    "in_effect",
    "legal_actions",
    "new_game",
    "payment_with",
    "plan_tickets",
    "position_of",
    "private_view",
    "public_view",
    "replay",
    "safe_action",
    "score_position",
    "setup_position",
    "ticket_keeps",
    "waiting_for",
]
