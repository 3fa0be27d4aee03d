"""Per-server and per-player settings, stored as JSON documents in the database.

A new setting is a new field with a default: rows written before it existed
read back with the default, so adding one needs no migration. Unknown keys
(a setting a later version dropped) are ignored.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Language = Literal["en", "de"]


class _Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)


class ServerSettings(_Settings):
    """What a server's admins choose for every game in it (issue: absence, history, config)."""

    language: Language = "en"
    # Hours before the player to act is reminded (games may override it).
    reminder_hours: float = Field(default=12.0, gt=0, le=24 * 14)
    # Hours a player has for a turn before the automatic move (None: no timer).
    turn_timer_hours: float | None = Field(default=None, gt=0, le=24 * 14)
    # Expired turns in a row after which the others may vote to kick the player.
    kick_after_expiries: int = Field(default=3, ge=1, le=20)


class PlayerSettings(_Settings):
    """What one player chooses for themselves (``/ttr settings``)."""

    language: Language | None = None  # None: their Discord client's language
    reminders: bool = True
    dm_every_turn: bool = True
    timezone: str = "UTC"
    # Quiet hours as (start hour, end hour) in their time zone; None: none.
    quiet_hours: tuple[int, int] | None = None
