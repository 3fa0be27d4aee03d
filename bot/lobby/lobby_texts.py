"""The lobby message and the lobby's other lines."""

from __future__ import annotations

from bot.game.games import GameInfo
from bot.i18n import _
from bot.play import presenters
from bot.play.estimates import estimate_note
from maps import load_map


def lobby_text(info: GameInfo) -> str:
    row = info.row
    m = load_map(row.map_id)
    players = ", ".join(presenters.safe_name(s.name) for s in info.seats) or _("nobody")
    host = next((presenters.safe_name(s.name) for s in info.seats
                 if s.user_id == row.host_id), "?")
    if row.status == "cancelled":
        return _("Game #{game} ({map}) was cancelled: everyone left.", game=row.id,
                 map=_(m.name))
    if row.status != "lobby":
        return _("🚂 **Ticket to Ride: {map}** — game #{game} has started. Players: {players}.",
                 map=_(m.name), game=row.id, players=players)
    head = _("🚂 **Ticket to Ride: {map}** — game #{game}\nPlayers ({n}/{most}): {players}",
             map=_(m.name), game=row.id, n=len(info.seats), most=row.max_players,
             players=players)
    low, high = m.rules.players_min, min(m.rules.players_max, row.max_players)
    note = estimate_note(m)  # Iberia: what its data only estimates
    tail = "" if note is None else f"\n⚠️ {note}"
    if len(info.seats) >= row.max_players:
        return head + "\n" + _("Host: {host}. The lobby is full: the host presses **Start**.",
                               host=host) + tail
    join = _("Host: {host}. Press **Join** to take a seat; the host presses **Start** "
             "({low}–{high} players).", host=host, low=low, high=high)
    return head + "\n" + join + tail


def lobby_expired(game_id: int, hours: float) -> str:
    return _("⌛ The lobby of game #{game} closed after {time} without a change. `/ttr new` "
             "opens a new one.", game=game_id, time=presenters.hours_text(hours))


def added_computer_line(name: str) -> str:
    return _("🤖 {name} takes a seat.", name=name)
