"""What an accepted action caused, as public facts.

Events never carry hidden information: a blind draw has no card, kept
tickets are counted, not named. The bot turns them into channel text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class TicketsKept:
    seat: int
    kept: int
    returned: int


@dataclass(frozen=True, slots=True)
class TicketsDrawn:
    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class CardDrawn:
    seat: int
    card: str | None  # None for a blind draw
    slot: int | None  # market slot for a face-up draw
    deck: str | None = None  # Rails & Sails: the deck a blind card came from


_DRAWN: dict[tuple[int, str | None, int | None, str | None], CardDrawn] = {}


def card_drawn(seat: int, card: str | None, slot: int | None,
               deck: str | None = None) -> CardDrawn:
    """``CardDrawn(seat, card, slot, deck)``, one shared instance of each (events are
    frozen values; a game draws hundreds, and there are only so many)."""
    key = (seat, card, slot, deck)
    event = _DRAWN.get(key)
    if event is None:
        event = _DRAWN[key] = CardDrawn(seat, card, slot, deck)
    return event


@dataclass(frozen=True, slots=True)
class MarketReset:
    """Three or more locomotives lay face up: the market was discarded and dealt again."""

    seat: int


@dataclass(frozen=True, slots=True)
class DeckReshuffled:
    seat: int
    cards: int


@dataclass(frozen=True, slots=True)
class RouteClaimed:
    seat: int
    route: int  # route id
    cards: dict[str, int]
    points: int


@dataclass(frozen=True, slots=True)
class TunnelRevealed:
    seat: int
    route: int
    revealed: tuple[str, ...]
    extra: int


@dataclass(frozen=True, slots=True)
class TunnelDeclined:
    seat: int
    route: int


@dataclass(frozen=True, slots=True)
class StationBuilt:
    seat: int
    city: str
    cards: dict[str, int]


@dataclass(frozen=True, slots=True)
class ShareTaken:
    """``seat`` took a share (for the neutral investor if ``neutral``); which one is secret."""

    seat: int
    neutral: bool


@dataclass(frozen=True, slots=True)
class FestivalCardPlaced:
    """A festival card came off the deck and was laid face up at its city's pile."""

    seat: int
    pile: str


@dataclass(frozen=True, slots=True)
class FestivalCardsTaken:
    """``seat`` took the festival cards lying at one end of its route (which and how many
    is secret, though the board shows the pile gone)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TicketDraftStarted:
    """Every player is dealt tickets to draft (``second``: the draft card came up)."""

    seat: int
    second: bool
    per_player: int


@dataclass(frozen=True, slots=True)
class DraftPicked:
    seat: int


@dataclass(frozen=True, slots=True)
class PiecesChosen:
    """``seat`` chose its piece split (which, is secret)."""

    seat: int


@dataclass(frozen=True, slots=True)
class HarborBuilt:
    seat: int
    city: str
    cards: dict[str, int]


@dataclass(frozen=True, slots=True)
class PiecesExchanged:
    """``seat`` swapped ``count`` pieces with its reserve, taking ``to`` (public once the
    splits are revealed, as every exchange is), which changed its score by ``points`` (the
    map's penalty: negative)."""

    seat: int
    count: int
    to: Literal["trains", "ships"]
    points: int


@dataclass(frozen=True, slots=True)
class LastRound:
    """``seat`` ended a turn with few pieces: everyone gets their final turn(s)."""

    seat: int
    turns_left: int


@dataclass(frozen=True, slots=True)
class TurnSkipped:
    """``seat`` had no legal action and passed."""

    seat: int


@dataclass(frozen=True, slots=True)
class TurnStarted:
    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    seat: int  # the seat whose turn ended the game
    reason: str  # "trains" or "stalled"
    winners: tuple[int, ...]


Event = (
    TicketsKept
    | TicketsDrawn
    | CardDrawn
    | MarketReset
    | DeckReshuffled
    | RouteClaimed
    | TunnelRevealed
    | TunnelDeclined
    | StationBuilt
    | ShareTaken
    | FestivalCardPlaced
    | FestivalCardsTaken
    | TicketDraftStarted
    | DraftPicked
    | PiecesChosen
    | HarborBuilt
    | PiecesExchanged
    | LastRound
    | TurnSkipped
    | TurnStarted
    | GameEnded
)
