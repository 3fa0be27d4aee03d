"""The controls' side of a game's decisions: a module decision's options as buttons (a
``Pick`` names one by its place and a fingerprint of the options), where a ticket draft
stands, and what a tunnel's player has left to pay with."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import engine
from bot.play import presenters
from engine import Action, GameState, KeepTickets, PayTunnel
from engine.cards import CARD_NAMES
from engine.phases import Phase


@dataclass(frozen=True)
class Pick:
    """Option ``index`` of the decision waiting for the player (a choice button's action).

    It names an entry of ``decisions(state, seat)``; ``tag`` is the ``choice_tag`` of
    the options the button was drawn with, so the bot needs no encoding of each module's
    actions in custom_ids. A tag, not the game's version: in a simultaneous decision
    (Iberia's draft) other players' picks change the version but not your options.
    """

    index: int
    tag: int


def decisions(state: GameState, seat: int) -> list[Action]:
    """The options of a map module's decision ``seat`` must make now (e.g. which share to
    take, or at setup the pieces to play with once the tickets are kept), one button each;
    empty in the common phases, which have their own controls."""
    setup = state.phase == Phase.CHOOSE_INITIAL_TICKETS
    if not (setup or state.phase.map_decision) or seat not in engine.waiting_for(state):
        return []
    # A ticket keep is a select, never a button per combination.
    return [a for a in engine.legal_actions(state, seat) if not isinstance(a, KeepTickets)]


def choice_tag(seat: int, phase: str, options: Sequence[Action]) -> int:
    """A short fingerprint of one player's options (up to 9 digits, for a custom_id): a
    choice button is valid while the options it was drawn with are still the options."""
    text = json.dumps([seat, phase, [a.model_dump(mode="json") for a in options]],
                      sort_keys=True)
    return zlib.crc32(text.encode()) % 1_000_000_000


def draft_round(state: GameState) -> presenters.DraftRound | None:
    """(round, rounds, second draft?) while a ticket draft is on, else None."""
    if state.phase != Phase.DRAFT:
        return None
    draft = engine.public_view(state).draft
    return None if draft is None else (draft.round, draft.rounds, draft.second)


@dataclass(frozen=True)
class TunnelHand:
    """A tunnel's player's hand without the cards already paid into the tunnel (the private
    view still counts them), and whether the extra cards can be paid from it."""

    hand: dict[str, int]
    payable: bool


def tunnel_hand(state: GameState, seat: int) -> TunnelHand | None:
    tunnel = state.tunnel
    if tunnel is None or tunnel.seat != seat:
        return None
    left = {CARD_NAMES[c]: n for c, n in enumerate(state.hands[seat]) if n}
    payable = any(isinstance(a, PayTunnel) for a in engine.legal_actions(state, seat))
    return TunnelHand(left, payable)
