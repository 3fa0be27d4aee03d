"""Text for players about past play: history pages, replays, the games list, statistics and
the leaderboard. All of it is public (built from the public log and final scores)."""

from __future__ import annotations

from collections.abc import Sequence

from bot import presenters
from bot.stats import Rated, Summary
from bot.storage import ResultRow
from maps import load_map

# Refusals (the reply a player gets; nothing changes).
NO_GAME_HERE = "There is no game in this channel: name one (`/ttr games` lists this server's)."
NOT_STARTED = "Game #{game} has not started, so it has no history yet."
NOTHING_YET = "Nothing has happened in game #{game} yet."
UNKNOWN_GAME = "There is no game #{game} on this server (`/ttr games` lists them)."
NO_TURNS = "Game #{game} has no turns to replay yet: the first turn has not begun."
BAD_TURN = "Game #{game} has turns 1 to {last}: choose one of those."
NO_GAMES = "No games on this server yet: start one with `/ttr new`."

STATUS = {
    "lobby": "lobby", "running": "running", "finished": "finished", "cancelled": "cancelled",
    "ended": "ended early", "abandoned": "abandoned",
}


def turn_heading(turn: int, who: Sequence[str], continued: bool = False) -> str:
    """'**Turn 12** · Ana', '**Setup** · Ana, Ben' (a history page's heading of a turn)."""
    head = f"**Turn {turn}**" if turn else "**Setup**"
    names = f" · {', '.join(who)}" if who else ""
    return f"{head}{names}{' (continued)' if continued else ''}"


def log_line(line: str) -> str:
    """One channel line in a history page, as the channel saw it."""
    return f"• {line}"


def history_page(game: int, map_id: str, page: int, pages: int, lines: Sequence[str]) -> str:
    head = f"📜 **Game #{game} — {load_map(map_id).name}**: history, page {page} of {pages}"
    return "\n".join([head, *lines])


def replay_caption(game: int, map_id: str, turn: int, last: int, who: Sequence[str],
                   lines: Sequence[str]) -> str:
    """The words with a replayed board: whose turn began and what they did in it."""
    head = (f"⏪ **Game #{game} — {load_map(map_id).name}** as turn {turn} of {last} began"
            f"{' (' + ', '.join(who) + ')' if who else ''}.")
    if not lines:
        return head
    return "\n".join([head, f"In turn {turn}:", *(log_line(x) for x in lines)])


def won_by(names: Sequence[str]) -> str:
    return f"won by {', '.join(names)}"


def games_list(entries: Sequence[tuple[int, str, str, int, float, Sequence[str], str]]) -> str:
    """This server's games: (id, map, status, channel, last change, players, result)."""
    if not entries:
        return NO_GAMES
    lines = ["🚂 **Games on this server**"]
    for game, map_id, status, channel, when, players, result in entries:
        who = ", ".join(players) or "nobody"
        tail = f" — {result}" if result else ""
        lines.append(f"**#{game}** {load_map(map_id).name} · {STATUS.get(status, status)} · "
                     f"<#{channel}> · <t:{int(when)}:R> · {who}{tail}")
    return "\n".join(lines)


# -- statistics and the leaderboard ---------------------------------------------------------

NO_RESULTS = "No finished games on this server{where} yet."
NO_RESULTS_FOR = "{name} has no finished games on this server{where} yet."
LEADERS_SHOWN = 15


def where(map_id: str | None) -> str:
    """' on USA', or nothing for every map."""
    return f" on {load_map(map_id).name}" if map_id else ""


def player_label(name: str, computer: bool, player: str) -> str:
    """A member's name, or 'Computer (hard) 🤖': a computer level is one rated player."""
    if computer:
        return f"Computer ({player.partition(':')[2]}) 🤖"
    return name


def _route_text(map_id: str, route: int, several_maps: bool) -> str:
    label = presenters.route_label(map_id, route)
    return f"{label} [{load_map(map_id).name}]" if several_maps else label


def stats_text(title: str, summary: Summary, *, player: bool) -> str:
    """A player's (``player``) or a server's statistics."""
    maps = " · ".join(
        f"{load_map(m).name} {games}" + (f"/{won} won" if player else "")
        for m, (games, won) in summary.per_map.items())
    played = (f"{summary.games} played, {summary.wins} won" if player
              else f"{summary.games} finished")
    best, longest = summary.best, summary.longest

    def by(r: ResultRow) -> str:
        return f" (game #{r.game_id})" if player else f" by {r.name} (game #{r.game_id})"

    several = len(summary.per_map) > 1
    routes = " · ".join(f"{_route_text(m, r, several)} ×{n}" for m, r, n in summary.routes)
    return "\n".join([
        f"📊 **{title}**",
        f"Games: {played} — {maps}",
        f"Score: average {summary.average:.1f}, best {best.score}{by(best)}",
        f"Tickets: {summary.tickets_completed} completed, {summary.tickets_failed} failed",
        f"Longest path: {longest.longest_path}{by(longest)}",
        f"Most claimed routes: {routes or 'none'}",
    ])


def leaderboard_text(map_id: str | None, rated: Sequence[Rated]) -> str:
    lines = [f"🏆 **Leaderboard{where(map_id)}** — rating = μ − 3σ (openskill)"]
    for i, r in enumerate(rated[:LEADERS_SHOWN], start=1):
        lines.append(
            f"{i}. **{player_label(r.name, r.computer, r.player)}** {r.ordinal:.1f} "
            f"(μ {r.mu:.1f} ± {r.sigma:.1f}) · {r.games} game{'s' * (r.games != 1)}, "
            f"{r.wins} won")
    return "\n".join(lines)
