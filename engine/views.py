"""What each audience may see of a game.

Everything shown in a channel is built from ``PublicView`` alone, so hidden
information cannot leak by construction; ``PrivateView`` is one player's
secret part. Both are plain pydantic models: cheap to serialise, easy to
render, and the renderer never needs the full state.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Phase = Literal["choose_initial_tickets", "turn", "second_draw", "choose_tickets", "tunnel",
                "game_over"]


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class PublicPlayer(_View):
    seat: int
    name: str
    score: int  # public score: route points only until the final scoring
    trains: int
    stations: int  # unbuilt stations left (0 on maps without stations)
    hand_size: int
    tickets: int
    # A decision this player must still make (e.g. initial tickets), without its content.
    deciding: bool = False


class PendingTunnel(_View):
    """A tunnel claim waiting for its player to pay or decline; the reveal is public."""

    seat: int
    route: int
    color: str  # the colour the tunnel was played in, or "locomotive"
    revealed: list[str]
    extra: int


class PublicView(_View):
    map_id: str
    turn: int  # 1-based count of turns started
    phase: Phase
    current: int | None  # seat whose turn it is; None during simultaneous setup or at the end
    players: list[PublicPlayer]
    market: list[str | None]  # card names, None for an empty slot
    deck: int
    discards: int
    tickets_left: int
    claimed: dict[int, int]  # route id -> seat
    closed: list[int]  # route ids no longer claimable (twin of a claimed double in small games)
    stations: dict[str, int]  # city id -> seat
    last_round: bool
    tunnel: PendingTunnel | None = None
    final: FinalScores | None = None


class TicketView(_View):
    id: int
    cities: list[str]
    points: int
    long: bool = False
    connected: bool = False


class PrivateView(_View):
    seat: int
    hand: dict[str, int]  # card name -> count, only non-zero
    tickets: list[TicketView]
    offered: list[TicketView]  # tickets drawn and waiting for the keep decision
    keep_min: int  # how many of ``offered`` must be kept (0 when nothing is offered)


class TicketResult(_View):
    id: int
    cities: list[str]
    points: int  # signed: + completed, - failed


class PlayerScore(_View):
    seat: int
    name: str
    routes: int
    tickets: list[TicketResult]
    tickets_completed: int
    longest_path: int
    longest_path_bonus: int
    most_tickets_bonus: int
    stations_used: int
    unused_stations_bonus: int
    total: int
    rank: int  # 1 = winner; equal ranks share the place


class FinalScores(_View):
    players: list[PlayerScore]
    winners: list[int]  # seats
    reason: Literal["trains", "stalled"]


PublicView.model_rebuild()
