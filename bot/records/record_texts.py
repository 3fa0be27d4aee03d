"""Text for players about past play: history pages, replays, the games list, statistics and
the leaderboard. All of it is public (built from the public log and final scores), and in
the current language (``bot.i18n``: the asker's); a history's lines are given as the
channel saw them."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import N_, _, _n
from bot.play import presenters
from bot.records.standings import Record
from bot.stats import Rated, Summary, TurnSpeed

# Refusals (the reply a player gets; nothing changes): catalog ids, filled in by the caller
# with ``_``.
NO_GAME_HERE = N_("There is no game in this channel: name one (`/ttr records games` lists this "
                  "server's).")
NOT_STARTED = N_("Game #{game} has not started, so it has no history yet.")
NOTHING_YET = N_("Nothing has happened in game #{game} yet.")
UNKNOWN_GAME = N_("There is no game #{game} on this server (`/ttr records games` lists them).")
NO_TURNS = N_("Game #{game} has no turns to replay yet: the first turn has not begun.")
BAD_TURN = N_("Game #{game} has turns 1 to {last}: choose one of those.")
NO_GAMES = N_("No games on this server yet: start one with `/ttr new`.")

STATUS = {
    "lobby": N_("lobby"), "running": N_("running"), "finished": N_("finished"),
    "cancelled": N_("cancelled"), "ended": N_("ended early"), "abandoned": N_("abandoned"),
}


def turn_heading(turn: int, who: Sequence[str], continued: bool = False) -> str:
    """'**Turn 12** · Ana', '**Setup** · Ana, Ben' (a history page's heading of a turn)."""
    head = _("**Turn {n}**", n=turn) if turn else _("**Setup**")
    names = f" · {', '.join(who)}" if who else ""
    more = _(" (continued)") if continued else ""
    return f"{head}{names}{more}"


def log_line(line: str) -> str:
    """One channel line in a history page, as the channel saw it."""
    return f"• {line}"


def history_page(game: int, map_id: str, page: int, pages: int, lines: Sequence[str]) -> str:
    head = _("📜 **Game #{game} — {map}**: history, page {page} of {pages}", game=game,
             map=presenters.map_name(map_id), page=page, pages=pages)
    return "\n".join([head, *lines])


def replay_caption(game: int, map_id: str, turn: int, last: int, who: Sequence[str],
                   lines: Sequence[str]) -> str:
    """The words with a replayed board: whose turn began and what they did in it."""
    name = presenters.map_name(map_id)
    if who:
        head = _("⏪ **Game #{game} — {map}** as turn {turn} of {last} began ({who}).",
                 game=game, map=name, turn=turn, last=last, who=", ".join(who))
    else:
        head = _("⏪ **Game #{game} — {map}** as turn {turn} of {last} began.", game=game,
                 map=name, turn=turn, last=last)
    if not lines:
        return head
    return "\n".join([head, _("In turn {n}:", n=turn), *(log_line(x) for x in lines)])


def won_by(names: Sequence[str]) -> str:
    return _("won by {names}", names=", ".join(names))


def games_list(entries: Sequence[tuple[int, str, str, int, float, Sequence[str], str]]) -> str:
    """This server's games: (id, map, status, channel, last change, players, result)."""
    if not entries:
        return _(NO_GAMES)
    lines = [_("🚂 **Games on this server**")]
    for game, map_id, status, channel, when, players, result in entries:
        who = ", ".join(players) or _("nobody")
        tail = f" — {result}" if result else ""
        shown = _(STATUS[status]) if status in STATUS else status
        lines.append(f"**#{game}** {presenters.map_name(map_id)} · {shown} · "
                     f"<#{channel}> · <t:{int(when)}:R> · {who}{tail}")
    return "\n".join(lines)


# -- statistics and the leaderboard ---------------------------------------------------------

NO_RESULTS = N_("No finished games on this server{where} yet.")
NO_RESULTS_FOR = N_("{name} has no finished games on this server{where} yet.")


def where(map_id: str | None) -> str:
    """' on USA', or nothing for every map."""
    return _(" on {map}", map=presenters.map_name(map_id)) if map_id else ""


def player_label(name: str, computer: bool, player: str) -> str:
    """A member's name, or 'Computer (hard) 🤖': a computer level is one rated player."""
    if computer:
        return _("Computer ({level}) 🤖", level=_(player.partition(":")[2]))
    return name


def _route_text(map_id: str, route: int, several_maps: bool) -> str:
    label = presenters.route_label(map_id, route)
    return f"{label} [{presenters.map_name(map_id)}]" if several_maps else label


def duration(seconds: float) -> str:
    """A time to act, to the minute: '45 s', '12 min', '3 h 05 min', '2 d 4 h'."""
    if seconds < 60:
        return _("{n} s", n=round(seconds))
    minutes = round(seconds / 60)
    if minutes < 60:
        return _("{n} min", n=minutes)
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return _("{h} h {m:02d} min", h=hours, m=minutes)
    days, hours = divmod(hours, 24)
    return _("{d} d {h} h", d=days, h=hours)


def turn_speed(turns: TurnSpeed) -> str:
    """'⏱ 3 h 05 min · 2 timed out': a member's median time to act and turns timed out."""
    speed = f"⏱ {duration(turns.median)}" if turns.median is not None else ""
    missed = _("{n} timed out", n=turns.timeouts) if turns.timeouts else ""
    return " · ".join(part for part in (speed, missed) if part)


# Claims of a route (in different games) before it shows among the routes claimed most.
FAVOURITE_AFTER = 2


def stats_text(title: str, summary: Summary, *, player: bool) -> str:
    """A player's (``player``) or a server's statistics."""
    maps = " · ".join(
        _("{map}: {games} played, {wins} won", map=presenters.map_name(m), games=games,
          wins=won) if player else f"{presenters.map_name(m)} {games}"
        for m, (games, won) in summary.per_map.items())
    played = (_("{games} played, {wins} won", games=summary.games, wins=summary.wins)
              if player else _("{n} finished", n=summary.games))
    best, longest = summary.best, summary.longest

    def by(r: Record) -> str:
        return (_(" (game #{game})", game=r.game_id) if player
                else _(" by {name} (game #{game})", name=r.name, game=r.game_id))

    several = len(summary.per_map) > 1
    # A route claimed once says nothing about a liking: only those claimed again count.
    routes = " · ".join(_("{route} ({n} times)", route=_route_text(m, r, several), n=n)
                        for m, r, n in summary.routes if n >= FAVOURITE_AFTER)
    lines = [
        f"📊 **{title}**",
        _("Games: {played} — {maps}", played=played, maps=maps),
        _("Score: average {average}, best {best}{by}", average=f"{summary.average:.1f}",
          best=best.value, by=by(best)),
        _("Tickets: {done} completed, {failed} failed", done=summary.tickets_completed,
          failed=summary.tickets_failed),
        _("Longest path: {n}{by}", n=longest.value, by=by(longest)),
    ]
    if routes:
        lines.append(_("Routes claimed most often: {routes}", routes=routes))
    if summary.turns is not None:
        turns = summary.turns
        lines.append(_("Turns: median time to act {time}, {missed}",
                       time=duration(turns.median) if turns.median is not None else _("none yet"),
                       missed=_n("{n} turn timed out", "{n} turns timed out", turns.timeouts)))
    return "\n".join(lines)


def leaderboard_text(map_id: str | None, rated: Sequence[Rated]) -> str:
    lines = [_("🏆 **Leaderboard{where}** — rating = μ − 3σ (openskill) · ⏱ median time to "
               "act", where=where(map_id))]
    for i, r in enumerate(rated, start=1):
        rating = r.rating
        games = _n("{n} game", "{n} games", rating.games)
        speed = turn_speed(r.turns) if r.turns is not None else ""
        lines.append(
            f"{i}. **{player_label(rating.name, r.computer, r.player)}** {rating.ordinal:.1f} "
            f"(μ {rating.mu:.1f} ± {rating.sigma:.1f}) · "
            + _("{games}, {wins} won", games=games, wins=rating.wins)
            + (f" · {speed}" if speed else ""))
    return "\n".join(lines)
