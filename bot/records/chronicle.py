"""After a game: the timelapse's caption and the server chronicle's summary of a finished
game (``ServerSettings.chronicle_channel``), with its highlights: the winner, the longest
trail, the biggest claim, the tickets completed.

Only games that ended by the rules get them (posted with the final scores, after final
scoring, so the final hidden information is public by then). A game abandoned or ended by
its host gets neither: its tickets are never revealed and it counts in no statistics.
Everything here reads the final public view and the turns' public claims; no Discord types.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import _, _n
from bot.play import presenters
from bot.render.highlight import LastMove
from engine.views import PlayerScore, PublicView
from maps import load_map


def timelapse_caption(game_id: int, turns: int) -> str:
    """The message under the timelapse in the game's channel."""
    return _n("🎞️ Game #{game}, claim by claim ({n} building turn).",
              "🎞️ Game #{game}, claim by claim ({n} building turns).", turns, game=game_id)


def _names(players: Sequence[PlayerScore]) -> str:
    return _(" and ").join(f"**{presenters.safe_name(p.name)}**" for p in players)


def biggest_claim(map_id: str, moves: Sequence[LastMove]) -> tuple[int, int] | None:
    """The longest route claimed (the first one claimed of the longest): (seat, route)."""
    lengths = {r.id: r.length for r in load_map(map_id).routes}
    claims = [(move.seat, route) for move in moves for route in move.routes]
    if not claims:
        return None
    return max(claims, key=lambda claim: lengths.get(claim[1], 0))


def highlights(view: PublicView, moves: Sequence[LastMove]) -> list[str]:
    """The finished game's highlights, a line each."""
    final = view.final
    assert final is not None
    by_seat = {p.seat: p for p in final.players}
    lines = []
    winners = [by_seat[s] for s in final.winners if s in by_seat]
    if len(winners) == 1:  # (the final image's words)
        lines.append("🏆 " + _n("{name} wins with {n} point", "{name} wins with {n} points",
                                winners[0].total, name=_names(winners)))
    elif winners:
        lines.append("🏆 " + _n("{names} share the win with {n} point",
                                "{names} share the win with {n} points", winners[0].total,
                                names=_names(winners)))
    longest = max((p.longest_path for p in final.players), default=0)
    if longest:
        lines.append(_n("🛤️ Longest trail: {names}, {n} space",
                        "🛤️ Longest trail: {names}, {n} spaces", longest,
                        names=_names([p for p in final.players if p.longest_path == longest])))
    biggest = biggest_claim(view.map_id, moves)
    if biggest is not None and biggest[0] in by_seat:
        seat, route = biggest
        length = next(r.length for r in load_map(view.map_id).routes if r.id == route)
        lines.append(_n("🚂 Biggest claim: {name}, {route} ({n} space)",
                        "🚂 Biggest claim: {name}, {route} ({n} spaces)", length,
                        name=_names([by_seat[seat]]),
                        route=presenters.route_ends(view.map_id, route)))
    done = ", ".join(f"{presenters.safe_name(p.name)} {p.tickets_completed}/{len(p.tickets)}"
                     for p in sorted(final.players, key=lambda p: (p.rank, p.seat)))
    lines.append(_("🎫 Tickets completed: {players}", players=done))
    return lines


def summary(game_id: int, view: PublicView, moves: Sequence[LastMove]) -> str:
    """The chronicle's post about a finished game: the map, the ranking, the highlights."""
    final = view.final
    assert final is not None
    ranking = " · ".join(f"{p.rank}. {presenters.safe_name(p.name)} {p.total}"
                         for p in sorted(final.players, key=lambda p: (p.rank, p.seat)))
    return "\n".join([
        _("📜 **Game #{game}** ({map}) is over.", game=game_id,
          map=presenters.map_name(view.map_id)),
        ranking, *highlights(view, moves)])
