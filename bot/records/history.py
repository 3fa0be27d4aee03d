"""A game's public log, turn by turn and page by page, and its board at any turn.

Everything here is read from the stored action log: each action's events go
through the same presenter that wrote the channel's lines
(``presenters.event_lines``), grouped by turn (a ``TurnStarted`` event opens
the next one). Only the actions the channel has been told about are shown
(``version <= posted_version``), so the history never runs ahead of the
channel: a half-played turn (one card drawn, tickets still to keep) appears
once the channel has heard of it. No Discord types here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import engine
from bot.game.telling import last_move
from bot.play import presenters
from bot.records import record_texts
from bot.render.highlight import LastMove
from bot.storage.api import ActionRow, in_effect
from bot.storage.codec import event_from_json
from engine import ACTION_ADAPTER, GameConfig, PublicView
from engine.events import Event, TurnStarted

# Room for a page's lines under Discord's 2000 characters (with the heading around them).
PAGE_CHARS = 1700


@dataclass(frozen=True, slots=True)
class TurnLog:
    """What the channel was told about one turn (turn 0: the setup)."""

    turn: int
    seats: tuple[int, ...]  # who acted, in the order they first did
    lines: tuple[str, ...]
    start: int  # the log version the turn began at: replaying that many actions shows its board


def turn_logs(map_id: str, names: Sequence[str], rows: Sequence[ActionRow],
              opening: Sequence[str] = ()) -> list[TurnLog]:
    """The log's actions grouped by turn, each turn's events told as the channel told them;
    ``opening`` (``service.opening_lines``) begins the setup."""
    blocks: list[tuple[int, int, list[int], list[Event]]] = [(0, 0, [], [])]
    for row in rows:
        for data in json.loads(row.events):
            event = event_from_json(data)
            if isinstance(event, TurnStarted):  # its player's turn begins, events or not
                blocks.append((event.turn, row.version, [event.seat], []))
                continue
            _, _, seats, events = blocks[-1]
            events.append(event)
            if event.seat not in seats:  # every event names the seat whose act caused it
                seats.append(event.seat)
    out = []
    for turn, start, seats, events in blocks:
        lines = presenters.event_lines(map_id, names, events)
        if turn == 0:
            lines = [*opening, *lines]
        if lines or seats:
            out.append(TurnLog(turn, tuple(seats), tuple(lines), start))
    return out


def pages(logs: Sequence[TurnLog], names: Sequence[str],
          limit: int = PAGE_CHARS) -> list[list[str]]:
    """The turns' lines packed into pages of at most ``limit`` characters, in order.

    Packing runs from the first turn, so a page, once full, never changes as the game
    goes on; a turn cut by a page break repeats its heading on the next page.
    """
    result: list[list[str]] = []
    page: list[str] = []
    size = 0
    for log in logs:
        who = [names[s] if 0 <= s < len(names) else "?" for s in log.seats]
        heading = record_texts.turn_heading(log.turn, who)
        for i, line in enumerate((heading, *(record_texts.log_line(x) for x in log.lines))):
            if page and size + len(line) + 1 > limit:
                result.append(page)
                page, size = [], 0
                if i:  # the turn goes on: say whose it is again
                    cont = record_texts.turn_heading(log.turn, who, continued=True)
                    page, size = [cont], len(cont) + 1
            page.append(line[:limit])
            size += len(line) + 1
    if page:
        result.append(page)
    return result


def building_turns(map_id: str, names: Sequence[str], events: Iterable[Event]
                   ) -> list[LastMove]:
    """What each turn built (claims, stations, harbors), in order, from a game's public
    events: the steps of its timelapse. Turns that built nothing are left out."""
    moves: list[LastMove] = []
    turn: list[Event] = []
    for event in (*events, None):
        if event is None or isinstance(event, TurnStarted):
            move = last_move(map_id, names, turn)
            if move is not None:
                moves.append(move)
            turn = []
        else:
            turn.append(event)
    return moves


def logged_events(rows: Sequence[ActionRow]) -> Iterator[Event]:
    """The public events of a stored action log's actions in effect (an undone action's
    are not), in order."""
    for row in in_effect(rows):
        for data in json.loads(row.events):
            yield event_from_json(data)


def turn_at(logs: Sequence[TurnLog], turn: int) -> TurnLog | None:
    return next((log for log in logs if log.turn == turn), None)


def board_at(config: GameConfig, rows: Sequence[ActionRow], version: int) -> PublicView:
    """The public view after the first ``version`` versions of the log (CPU work: call it
    from a worker thread)."""
    actions = [(r.seat, ACTION_ADAPTER.validate_json(r.action)) for r in rows
               if r.version <= version]
    return engine.public_view(engine.replay(config, actions))
