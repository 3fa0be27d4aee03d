"""Why a game ended, in the same words in the channel's last line and on the final image."""

from __future__ import annotations

from bot.i18n import N_, _

# The game ends when a player is down to 0-2 pieces (Rails & Sails: 6), not only at 0.
REASONS = {"trains": N_("a player ran low on trains"), "pieces": N_("a player ran low on pieces"),
           "stalled": N_("nobody could move")}


def end_reason(reason: str, pieces: bool) -> str:
    """The engine's ``GameEnded.reason`` in words; ``pieces``: the map counts trains and
    ships together (Rails & Sails)."""
    if reason == "trains" and pieces:
        reason = "pieces"
    return _(REASONS[reason]) if reason in REASONS else reason
