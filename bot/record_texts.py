"""Text for players about past play: history pages, replays, the games list, statistics and
the leaderboard. All of it is public (built from the public log and final scores)."""

from __future__ import annotations

from collections.abc import Sequence

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
