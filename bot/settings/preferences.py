"""Per-server and per-player settings, stored as JSON documents in the database.

A new setting is a new field with a default: rows written before it existed
read back with the default, so adding one needs no migration. Unknown keys
(a setting a later version dropped) are ignored.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bot.i18n import N_, Language
from engine.errors import Text
from maps import map_ids

# When the channel gets a new board image: after turns that changed the board (claims,
# stations, harbors), after every turn, or never (the table message's image is replaced).
BoardPosts = Literal["changes", "every_turn", "table_only"]
# While a member is away (``/ttr away``): a computer player of their choice plays their
# seats, or their reminders pause and their turn timers wait for them.
AwayMode = Literal["computer", "pause"]


# A channel's mention or id, as a member types it.
CHANNEL = re.compile(r"<#([0-9]{15,20})>|([0-9]{15,20})")


class Invalid(ValueError):
    """A setting's value a member gave wrong; ``text`` says why, for their language."""

    def __init__(self, message: str, /, **fields: object) -> None:
        self.text = Text(message, **fields)
        super().__init__(str(self.text))


class _Settings(BaseModel):
    # Frozen: a document read from storage is shared (storage keeps it in memory); a
    # change is a new document (``with_value``, ``model_validate``), saved as a whole.
    model_config = ConfigDict(extra="ignore", frozen=True)


class ServerSettings(_Settings):
    """What a server's admins choose for every game in it (issue: absence, history, config).

    A field with a ``description`` is offered by ``/ttr-admin config``: adding a setting
    there is adding a field here.
    """

    language: Language = Field(
        default="en",
        description="Language of new games' channel posts, and of private answers to members "
                    "whose Discord speaks neither: 'en' or 'de'")
    thread_per_game: bool = Field(
        default=False,
        description="Open a thread for every new game ('true' or 'false'; "
                    "`/ttr new thread:` decides for one game)")
    maps_offered: list[str] | None = Field(
        default=None,
        description="The maps `/ttr new` offers, e.g. 'usa, europe' ('all': every map)")
    reminder_hours: float = Field(
        default=12.0, gt=0, le=24 * 14,
        description="Hours before the player to act is reminded (a game may choose its own)")
    turn_timer_hours: float | None = Field(
        default=None, gt=0, le=24 * 14,
        description="Hours for a turn before the bot plays it for the player ('off': no timer)")
    kick_after_expiries: int = Field(
        default=3, ge=1, le=20,
        description="Expired turns in a row after which the others may vote to replace the "
                    "player by a computer")
    board_posts: BoardPosts = Field(
        default="changes",
        description="When a new board image is posted: 'changes' (claims, stations, harbors), "
                    "'every_turn', or 'table_only' (the table message's image is replaced)")
    player_threads: bool = Field(
        default=False,
        description="A private thread per player where their hand and buttons are kept "
                    "up to date ('true' or 'false')")
    away_mode: AwayMode = Field(
        default="computer",
        description="While a member is away (`/ttr away`): 'computer' (a computer player of "
                    "their choice plays their seat) or 'pause' (no reminders; their turn timer "
                    "waits until they are back)")
    chronicle_channel: int | None = Field(
        default=None,
        description="A channel that gets every finished game's summary, final image, "
                    "timelapse and highlights, e.g. #ttr-chronicle ('off': none)")

    @field_validator("maps_offered", mode="before")
    @classmethod
    def _map_list(cls, value: object) -> object:
        """'usa, europe' (as typed in ``/ttr-admin config``) or a list; 'all': every map."""
        if isinstance(value, str):
            words = value.replace(",", " ").lower().split()
            return None if words == ["all"] else words
        return value

    @field_validator("maps_offered")
    @classmethod
    def _known_maps(cls, maps: list[str] | None) -> list[str] | None:
        if maps is None:
            return None
        unknown = [m for m in maps if m not in map_ids()]
        if unknown or not maps:
            raise Invalid(N_("name maps from: {maps}"), maps=", ".join(map_ids()))
        return list(dict.fromkeys(maps))

    @field_validator("chronicle_channel", mode="before")
    @classmethod
    def _channel(cls, value: object) -> object:
        """A channel as typed in ``/ttr-admin config``: its mention ('<#123…>') or id."""
        if not isinstance(value, str):
            return value
        found = CHANNEL.fullmatch(value.strip())
        if found is None:
            raise Invalid(N_("name a channel of this server, like #ttr-chronicle"))
        return int(found.group(1) or found.group(2))

    def offers(self, map_id: str) -> bool:
        return self.maps_offered is None or map_id in self.maps_offered

    @classmethod
    def configurable(cls) -> dict[str, str]:
        """The settings ``/ttr-admin config`` offers, with what each means."""
        return {name: f.description for name, f in cls.model_fields.items() if f.description}

    @classmethod
    def optional(cls, name: str) -> bool:
        """Whether setting ``name`` can be switched off ('off')."""
        field = cls.model_fields.get(name)
        return field is not None and field.default is None and name != "maps_offered"

    def with_value(self, name: str, text: str) -> ServerSettings:
        """A copy with setting ``name`` read from ``text`` ('off' or 'none' clears an optional
        one); ``ValueError`` says what is wrong."""
        if name not in self.configurable():
            raise ValueError(f"there is no setting {name[:40]!r}")
        value: str | None = text.strip()
        if value is not None and value.lower() in ("off", "none", "-"):
            value = None
        return type(self).model_validate({**self.model_dump(), name: value})


class PlayerSettings(_Settings):
    """What one player chooses for themselves (``/ttr settings``)."""

    language: Language | None = None  # None: their Discord client's language
    reminders: bool = True
    dm_every_turn: bool = True
    timezone: str = "UTC"
    # Quiet hours as (start hour, end hour) in their time zone, e.g. (22, 7); None: none.
    quiet_hours: tuple[int, int] | None = None

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, name: str) -> str:
        zone_of(name)  # raises ValueError (a pydantic validation error) if unknown
        return name

    @field_validator("quiet_hours")
    @classmethod
    def _hours(cls, hours: tuple[int, int] | None) -> tuple[int, int] | None:
        if hours is not None and not all(0 <= h <= 23 for h in hours):
            raise Invalid(N_("quiet hours are whole hours from 0 to 23"))
        return hours

    def quiet_until(self, now: float) -> float | None:
        """If ``now`` falls in the quiet hours: when they end (epoch seconds); else None."""
        if self.quiet_hours is None or self.quiet_hours[0] == self.quiet_hours[1]:
            return None
        start, end = self.quiet_hours
        local = dt.datetime.fromtimestamp(now, zone_of(self.timezone))
        quiet = start <= local.hour < end if start < end else (local.hour >= start
                                                               or local.hour < end)
        if not quiet:
            return None
        day = local.date() if local.hour < end else local.date() + dt.timedelta(days=1)
        # Wall-clock end of the quiet hours (a DST gap resolves forward).
        wake = dt.datetime.combine(day, dt.time(end), local.tzinfo)
        return wake.timestamp()


class GameSettings(_Settings):
    """Chosen for one game at ``/ttr new``; None: the server's setting."""

    reminder_hours: float | None = Field(default=None, gt=0, le=24 * 14)
    language: Language | None = None  # of the channel posts
    # 0 switches the timer off for this game even where the server has one.
    turn_timer_hours: float | None = Field(default=None, ge=0, le=24 * 14)


@dataclass(frozen=True)
class Timing:
    """A game's reminder delay and turn timer: its own choice, else its server's."""

    reminder_hours: float
    turn_timer_hours: float | None  # None: no timer
    kick_after_expiries: int

    @classmethod
    def of(cls, server: ServerSettings, game: GameSettings) -> Timing:
        timer = server.turn_timer_hours if game.turn_timer_hours is None \
            else game.turn_timer_hours or None
        return cls(reminder_hours=game.reminder_hours or server.reminder_hours,
                   turn_timer_hours=timer, kick_after_expiries=server.kick_after_expiries)


@functools.lru_cache(maxsize=256)
def zone_of(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` ('Europe/Berlin'); ``ValueError`` if there is none such.
    The ``tzdata`` package provides the zones where the system has none (slim images)."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise Invalid(N_("unknown time zone {name} (use a name like Europe/Berlin)"),
                      name=repr(name[:40])) from None
