"""Text for players: engine events and views turned into short lines.

Public functions (``event_lines``, ``status_text``, ``prompt_text``, ``final_text``,
``rules_text``, labels) take only public data: events and ``PublicView``. The
private ones (``hand_text``, ``ticket_text``, ``drawn_text``) take a
``PrivateView`` and must only ever be sent ephemerally or by DM.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from engine.actions import Action
from engine.events import (
    CardDrawn,
    DeckReshuffled,
    Event,
    GameEnded,
    LastRound,
    MarketReset,
    RouteClaimed,
    ShareTaken,
    StationBuilt,
    TicketsDrawn,
    TicketsKept,
    TunnelDeclined,
    TunnelRevealed,
    TurnSkipped,
    TurnStarted,
)
from engine.views import PrivateView, PublicView, TicketView
from maps import load_map
from maps.model import MapData, Route, Shares

CARD_ORDER = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive")
EMOJI = {
    "purple": "🟪", "white": "⬜", "blue": "🟦", "yellow": "🟨", "orange": "🟧", "black": "⬛",
    "red": "🟥", "green": "🟩", "locomotive": "🌈", "gray": "◻️",
}
PHASE_HELP = {
    "turn": "draw cards, claim a route or draw destination tickets",
    "second_draw": "take a second card (face-up or from the deck)",
    "choose_tickets": "choose which new destination tickets to keep",
    "tunnel": "pay the tunnel's extra cards or decline it",
    "choose_share": "choose which company's share to take for the route just claimed",
    "choose_neutral_share": "choose which company's share goes to the neutral investor",
}
# Phases of the common rules, each with its own controls. Any other phase is a decision of a
# map's rule module: its legal actions become buttons labelled by ``CHOICES``.
BASE_PHASES = frozenset(
    {"choose_initial_tickets", "turn", "second_draw", "choose_tickets", "tunnel", "game_over"})
# Module decisions by action type: the button's label, and what the chooser reads after
# (both formatted with the action's fields). A new map decision adds a row here.
CHOICES: dict[str, tuple[str, str]] = {
    "take_share": ("Take a {company} share", "Share taken."),
    "give_neutral_share": ("Give {company} to the neutral investor",
                           "The neutral investor got a {company} share."),
}


@cache
def _routes(map_id: str) -> dict[int, Route]:
    return {r.id: r for r in load_map(map_id).routes}


@cache
def _city_names(map_id: str) -> dict[str, str]:
    return {c.id: c.name for c in load_map(map_id).cities}


def route(map_id: str, route_id: int) -> Route:
    return _routes(map_id)[route_id]


def city_name(map_id: str, city_id: str) -> str:
    return _city_names(map_id).get(city_id, city_id)


def route_label(map_id: str, route_id: int) -> str:
    """'Paris–Wien (3, green)', with 'tunnel' or ferry locomotives when the route has them."""
    r = _routes(map_id).get(route_id)
    if r is None:
        return f"route {route_id}"
    extras = [str(r.length), r.color]
    if r.tunnel:
        extras.append("tunnel")
    if r.ferry_locomotives:
        extras.append(f"ferry, {r.ferry_locomotives} loco")
    return f"{city_name(map_id, r.a)}–{city_name(map_id, r.b)} ({', '.join(extras)})"


def cards_text(cards: dict[str, int]) -> str:
    """'2 green + 1 locomotive' in a fixed colour order."""
    parts = [
        f"{cards[c]} {c}{'s' if c == 'locomotive' and cards[c] != 1 else ''}"
        for c in CARD_ORDER if cards.get(c)
    ]
    return " + ".join(parts) if parts else "no cards"


def clip(text: str, limit: int = 1900) -> str:
    """Fit Discord's 2000-character limit, cutting at a line end when possible."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit - 1)
    return text[: cut if cut > limit // 2 else limit - 1] + "\n…"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# -- module decisions ------------------------------------------------------------------


def is_decision(phase: str) -> bool:
    """Whether ``phase`` is a decision of a map's rule module (answered by choice buttons)."""
    return phase not in BASE_PHASES


def _fields(action: Action) -> dict[str, object]:
    return action.model_dump(exclude={"type"})


def choice_label(action: Action) -> str:
    """A button's label for one option of a module decision ('Take a PRR share')."""
    row = CHOICES.get(action.type)
    if row is None:  # a decision without its row yet still gets a readable button
        args = ", ".join(str(v) for v in _fields(action).values() if v is not None)
        return f"{action.type.replace('_', ' ').capitalize()} {args}".strip()[:80]
    return row[0].format(**_fields(action))[:80]


def choice_done(action: Action) -> str | None:
    """What the chooser reads after choosing (private), or None for a plain 'Done'."""
    row = CHOICES.get(action.type)
    return row[1].format(**_fields(action)) if row else None


def decision_help(phase: str) -> str:
    return PHASE_HELP.get(phase, "make your choice")


# -- public: events -------------------------------------------------------------------


def _draw_line(name: str, draws: Sequence[CardDrawn]) -> str:
    shown = [d.card for d in draws if d.card is not None]
    if len(draws) == 1 and shown == ["locomotive"]:
        return f"{name} took a face-up locomotive"
    if not shown:
        return f"{name} drew {_plural(len(draws), 'card')} from the deck"
    if len(shown) == len(draws):
        return f"{name} drew {_plural(len(draws), 'card')} from the market: {', '.join(shown)}"
    return (f"{name} drew {_plural(len(draws), 'card')} "
            f"({len(shown)} from the market: {', '.join(shown)})")


def event_lines(map_id: str, names: Sequence[str], events: Iterable[Event]) -> list[str]:
    """One line per public fact; consecutive card draws of one player become one line."""
    lines: list[str] = []
    draws: list[CardDrawn] = []
    held: list[str] = []  # lines caused during a draw (reshuffles) come after its summary

    def flush() -> None:
        if draws:
            lines.append(_draw_line(names[draws[0].seat], draws))
            draws.clear()
        lines.extend(held)
        held.clear()

    for e in events:
        if isinstance(e, CardDrawn):
            if draws and draws[0].seat != e.seat:
                flush()
            draws.append(e)
            continue
        if isinstance(e, MarketReset | DeckReshuffled) and draws:
            held.append(_side_line(e))
            continue
        if isinstance(e, TurnStarted):
            continue  # turns are announced by the mention, not a line
        flush()
        line = _event_line(map_id, names, e)
        if line:
            lines.append(line)
    flush()
    return lines


def _side_line(e: MarketReset | DeckReshuffled) -> str:
    if isinstance(e, MarketReset):
        return "Three locomotives lay face up: the market was dealt again."
    return f"The discards were shuffled into a new deck ({_plural(e.cards, 'card')})."


def _event_line(map_id: str, names: Sequence[str], e: Event) -> str | None:
    who = names[e.seat] if 0 <= e.seat < len(names) else "?"
    match e:
        case RouteClaimed():
            return (f"{who} claimed {route_label(map_id, e.route)} for "
                    f"{_plural(e.points, 'point')}, paying {cards_text(e.cards)}")
        case TunnelRevealed():
            shown = ", ".join(e.revealed) or "nothing (no cards left)"
            need = ("no extra cards" if e.extra == 0
                    else f"{_plural(e.extra, 'more card')} to pay")
            return (f"{who} tried the tunnel {route_label(map_id, e.route)}: "
                    f"revealed {shown} → {need}")
        case TunnelDeclined():
            return (f"{who} gave up the tunnel {route_label(map_id, e.route)} "
                    "and took the cards back")
        case StationBuilt():
            return (f"{who} built a station in {city_name(map_id, e.city)}, "
                    f"paying {cards_text(e.cards)}")
        case TicketsDrawn():
            return f"{who} drew {_plural(e.count, 'destination ticket')}"
        case TicketsKept():
            total = e.kept + e.returned
            return f"{who} kept {e.kept} of {_plural(total, 'destination ticket')}"
        case LastRound():
            return (f"🚂 Last round! {who} is almost out of trains: "
                    f"{_plural(e.turns_left, 'turn')} left in the game.")
        case ShareTaken():
            # Never which company: shares are secret until the final scoring.
            return (f"{who} gave a share to the neutral investor" if e.neutral
                    else f"{who} took a share")
        case TurnSkipped():
            return f"{who} cannot do anything and passes."
        case GameEnded():
            why = "a player ran out of trains" if e.reason == "trains" else "nobody could move"
            return f"🏁 The game is over ({why})."
        case MarketReset() | DeckReshuffled():
            return _side_line(e)
    return None


# -- public: views --------------------------------------------------------------------


def market_text(view: PublicView) -> str:
    return " ".join(
        f"{i + 1}:{EMOJI.get(c, '?')}{c}" if c else f"{i + 1}:—" for i, c in enumerate(view.market)
    )


def prompt_text(view: PublicView, mentions: Sequence[str], dm_closed: Sequence[str] = ()) -> str:
    """Who must act now and what they must decide (mentions are '<@id>' strings per seat)."""
    if view.phase == "game_over":
        return ""
    if view.phase == "choose_initial_tickets":
        waiting = [mentions[p.seat] for p in view.players if p.deciding]
        text = (f"{', '.join(waiting)}: choose the destination tickets you keep "
                "(check your DMs or press **My hand**).")
    elif is_decision(view.phase) and view.current is not None:
        text = (f"{mentions[view.current]}: {decision_help(view.phase)} "
                "(check your DMs or press **My hand**).")
    else:
        assert view.current is not None
        text = f"{mentions[view.current]}, your turn: {PHASE_HELP.get(view.phase, 'act')}."
        if view.tunnel is not None:
            text = (f"{mentions[view.current]}: the tunnel needs "
                    f"{_plural(view.tunnel.extra, 'more card')} ({view.tunnel.color} or "
                    "locomotive). Pay or decline.")
    if dm_closed:
        text += (f"\n{', '.join(dm_closed)}: I cannot DM you, so press **My hand** "
                 "to see your cards and tickets.")
    return text


def status_text(view: PublicView) -> str:
    lines = []
    if view.phase == "game_over":
        lines.append("The game is over.")
    elif view.phase == "choose_initial_tickets":
        waiting = [p.name for p in view.players if p.deciding]
        lines.append(f"Setup: waiting for {', '.join(waiting)} to choose destination tickets.")
    else:
        assert view.current is not None
        who = view.players[view.current].name
        lines.append(f"Turn {view.turn}: {who} must {PHASE_HELP.get(view.phase, 'act')}.")
        if view.tunnel is not None:
            t = view.tunnel
            lines.append(f"Tunnel {route_label(view.map_id, t.route)}: revealed "
                         f"{', '.join(t.revealed)}; {_plural(t.extra, 'more card')} asked.")
    if view.last_round:
        lines.append("🚂 This is the last round.")
    lines.append(f"Market {market_text(view)} · deck {view.deck} · discards {view.discards} · "
                 f"tickets {view.tickets_left}")
    if view.share_stacks:
        lines.append(stacks_text(view))
    for p in view.players:
        station = f", {_plural(p.stations, 'station')}" if p.stations else ""
        lines.append(f"• {p.name}: {_plural(p.score, 'point')}, {_plural(p.trains, 'train')}"
                     f"{station}, {_plural(p.hand_size, 'card')}, "
                     f"{_plural(p.tickets, 'ticket')}")
    return "\n".join(lines)


def stacks_text(view: PublicView) -> str:
    """The share stacks left on the table (public, like the physical stacks)."""
    stacks = " · ".join(f"{c} {n}" for c, n in view.share_stacks.items())
    neutral = (f" · neutral investor's pile {view.neutral_shares}" if view.neutral_shares
               else "")
    return f"Share stacks: {stacks}{neutral}"


def final_text(view: PublicView) -> str:
    final = view.final
    if final is None:
        return "The game is over."
    lines = ["🏁 **Final scores**"]
    for p in sorted(final.players, key=lambda p: (p.rank, p.seat)):
        done = sum(1 for t in p.tickets if t.points > 0)
        tickets = sum(t.points for t in p.tickets)
        parts = [f"routes {p.routes}", f"tickets {tickets:+d} ({done}/{len(p.tickets)})"]
        if p.longest_path_bonus:
            parts.append(f"longest path +{p.longest_path_bonus}")
        if p.most_tickets_bonus:
            parts.append(f"most tickets +{p.most_tickets_bonus}")
        if p.unused_stations_bonus:
            parts.append(f"stations +{p.unused_stations_bonus}")
        parts.extend(f"{label} {points:+d}" for label, points in p.extras.items())
        crown = " 👑" if p.seat in final.winners else ""
        lines.append(f"{p.rank}. **{p.name}** {p.total}{crown} — {', '.join(parts)}")
    for p in sorted(final.players, key=lambda p: p.seat):
        shown = ", ".join(
            f"{'✅' if t.points > 0 else '❌'} {ticket_pair(view.map_id, t.cities)} ({t.points:+d})"
            for t in p.tickets
        )
        lines.append(f"{p.name}'s tickets: {shown or 'none'}")
    by_seat = {p.seat: p.name for p in final.players}
    winners = [by_seat.get(w, "?") for w in final.winners]
    lines.append(f"Winner{'s' if len(winners) > 1 else ''}: {', '.join(winners)}")
    return "\n".join(lines)


def ticket_pair(map_id: str, cities: Sequence[str]) -> str:
    return " → ".join(city_name(map_id, c) for c in cities)


def rules_text(map_id: str) -> str:
    m: MapData = load_map(map_id)
    r = m.rules
    table = ", ".join(f"{k}→{v}" for k, v in sorted(r.route_points.items()))
    lines = [
        f"**{m.name}** — {r.players_min}–{r.players_max} players, {r.trains} trains each.",
        "On your turn do one thing: draw 2 train cards (a face-up locomotive counts as both "
        "and cannot be the second card), claim a route with cards of its colour "
        "(locomotives are wild, gray takes any one colour), or draw "
        f"{r.draw_tickets.deal} destination tickets and keep at least {r.draw_tickets.keep_min}.",
        f"Start: {r.setup_tickets.deal + r.setup_tickets.deal_long} tickets dealt, keep at least "
        f"{r.setup_tickets.keep_min}.",
        f"Route points by length: {table}.",
        f"Double routes are both usable with {r.double_routes_min_players}+ players.",
        f"The end comes when someone has {r.end_trigger_pieces} or fewer trains: everyone, "
        "including them, plays one more turn. Completed tickets add, failed ones subtract.",
    ]
    if r.longest_path_bonus:
        lines.append(f"Longest continuous path: +{r.longest_path_bonus}.")
    else:
        lines.append("No longest-path bonus.")
    if r.most_tickets_bonus:
        lines.append(f"Globetrotter, most completed tickets: +{r.most_tickets_bonus}.")
    if r.stations is not None:
        s = r.stations
        lines.append(
            f"Stations: build up to {s.per_player} (costs {', '.join(map(str, s.costs))} cards of "
            f"one colour) to borrow one rival route into that city for your tickets; each unbuilt "
            f"station is worth +{s.unused_points}.")
    if any(x.tunnel for x in m.routes):
        lines.append("Tunnels: after paying, 3 cards are revealed; each matching your colour or a "
                     "locomotive costs one more card. Pay or give up.")
    if any(x.ferry_locomotives for x in m.routes):
        lines.append("Ferries need one locomotive per locomotive symbol.")
    if r.shares is not None:
        lines.extend(_shares_rules(r.shares))
    return "\n".join(lines)


def _shares_rules(shares: Shares) -> list[str]:
    tables = ", ".join(f"{c.id} {'/'.join(map(str, c.scores))} ({c.shares} shares)"
                       for c in shares.companies)
    lines = [
        "Shares: claiming a route that shows company logos also gives you the top share of one "
        "of those companies (you choose; an empty stack cannot be chosen). Your shares are "
        "secret until the end.",
        "At the end each company pays the players with the most of its shares, by place "
        "(a tie goes to whoever holds the lower-numbered share): " + tables + ".",
    ]
    if shares.neutral_investor_players:
        counts = "/".join(map(str, shares.neutral_investor_players))
        part = ("half" if shares.neutral_reveal_fraction == 0.5
                else f"{round(shares.neutral_reveal_fraction * 100)}%")
        lines.append(
            f"With {counts} players a neutral investor plays along: each time you take a share, "
            "you also put the top share of one of the route's companies face down in its pile. "
            f"At the end {part} of that pile (rounded "
            "up) is revealed; those shares take places in the majorities but score nothing.")
    return lines


# -- private: only for ephemeral replies and DMs ------------------------------------------


def ticket_text(map_id: str, t: TicketView) -> str:
    mark = "✅ " if t.connected else ""
    long = " (long)" if t.long else ""
    return f"{mark}{ticket_pair(map_id, t.cities)} — {t.points}{long}"


def hand_text(map_id: str, view: PrivateView) -> str:
    hand = ", ".join(
        f"{EMOJI[c]} {view.hand[c]} {c}" for c in CARD_ORDER if view.hand.get(c)
    ) or "no cards"
    lines = [f"**Your hand:** {hand}"]
    if view.tickets:
        lines.append("**Your tickets:**")
        lines.extend(f"• {ticket_text(map_id, t)}" for t in view.tickets)
    if view.offered:
        lines.append(f"**Offered — keep at least {view.keep_min}:**")
        lines.extend(f"• {ticket_text(map_id, t)}" for t in view.offered)
    if view.shares:
        lines.append(f"**Your shares:** {shares_text(view.shares)}")
    return "\n".join(lines)


def shares_text(shares: dict[str, list[int]]) -> str:
    """'PRR ×2 (#1, #4) · B&O ×1 (#3)' (private)."""
    return " · ".join(
        f"{c} ×{len(numbers)} ({', '.join(f'#{n}' for n in sorted(numbers))})"
        for c, numbers in shares.items() if numbers)


def shares_gained(before: PrivateView, after: PrivateView) -> list[str]:
    """'PRR #4' for each share the player got by an action (private)."""
    return [f"{c} #{n}" for c, numbers in after.shares.items()
            for n in sorted(numbers) if n not in before.shares.get(c, [])]


def drawn_text(before: PrivateView, after: PrivateView) -> str:
    """The cards a player just received, named (for that player only)."""
    got = {c: after.hand.get(c, 0) - before.hand.get(c, 0) for c in CARD_ORDER}
    gained = {c: n for c, n in got.items() if n > 0}
    return cards_text(gained) if gained else "nothing"
