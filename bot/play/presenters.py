"""Text for players: engine events and views turned into short lines.

Public functions (``event_lines``, ``status_text``, ``prompt_text``, ``final_text``,
``rules_text``, labels) take only public data: events, ``PublicView`` and who
must still act. The private ones (``hand_text``, ``ticket_text``, ``drawn_text``,
``festival_gained``) take a ``PrivateView`` and must only ever be sent
ephemerally or by DM.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Literal

from discord.utils import escape_markdown, escape_mentions
from pydantic import BaseModel, ValidationError

from bot import i18n
from bot.i18n import N_, Language, _, _n
from bot.play.endings import end_reason
from bot.play.estimates import estimate_note
from bot.settings.preferences import Invalid
from engine.actions import Action, DraftPick, TakeFestival
from engine.board import board_for
from engine.cards import card_suit
from engine.events import (
    CardDrawn,
    DeckReshuffled,
    DraftPicked,
    Event,
    FestivalCardPlaced,
    FestivalCardsTaken,
    GameEnded,
    HarborBuilt,
    LastRound,
    MarketReset,
    PiecesChosen,
    PiecesExchanged,
    RouteClaimed,
    ShareTaken,
    StationBuilt,
    TicketDraftStarted,
    TicketsDrawn,
    TicketsKept,
    TunnelDeclined,
    TunnelRevealed,
    TurnSkipped,
    TurnStarted,
)
from engine.phases import Phase
from engine.planner import ANY_COLOUR, TicketPlan, plan_tickets
from engine.players import Controller
from engine.views import PendingTunnel, PrivateView, PublicView, TicketView
from maps import load_map
from maps.model import Festivals, MapData, RailsAndSails, Route, Shares

CARD_ORDER = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive")
EMOJI = {
    "purple": "🟪", "white": "⬜", "blue": "🟦", "yellow": "🟨", "orange": "🟧", "black": "⬛",
    "red": "🟥", "green": "🟩", "locomotive": "🌈", "gray": "◻️",
}
# Rails & Sails card kinds by name suffix: what players call them, in hand order.
KINDS = {"": "train", "harbor": "harbor train", "ship": "ship", "double_ship": "double ship"}
# Colour words not among the engine's suits (those are in the catalog from ``engine.cards``).
GRAY = N_("gray")
PHASE_HELP = {
    Phase.TURN: N_("draw cards, claim a route or draw destination tickets"),
    Phase.SECOND_DRAW: N_("take a second card (face-up or from the deck)"),
    Phase.CHOOSE_TICKETS: N_("choose which new destination tickets to keep"),
    Phase.TUNNEL: N_("pay the tunnel's extra cards or decline it"),
    Phase.CHOOSE_SHARE: N_("choose which company's share to take for the route just claimed, or "
                       "none"),
    Phase.CHOOSE_NEUTRAL_SHARE: N_("choose which company's share goes to the neutral investor"),
    Phase.DRAFT: N_("pick one destination ticket from your draft packet"),
    Phase.DRAFT_KEEP: N_("choose which of your drafted tickets to keep"),
    Phase.CHOOSE_FESTIVAL: N_("choose which city's festival cards to take"),
    Phase.CHOOSE_PIECES: N_("choose how many trains and ships you play with (secret)"),
}
# Module decisions (``Phase.map_decision``; the common phases have controls of their own)
# by action type: the button's label, and what the chooser reads after (both formatted
# with the action's fields plus ``ticket_name``/``pile_name``). A new map decision adds a
# row here.
CHOICES: dict[str, tuple[str, str]] = {
    "take_share": (N_("Take a {company} share"), N_("Share taken.")),
    "decline_share": (N_("No share"), N_("No share taken.")),
    "give_neutral_share": (N_("Give {company} to the neutral investor"),
                           N_("The neutral investor got a {company} share.")),
    "draft_pick": ("{ticket_name}", N_("You picked {ticket_name}.")),
    "take_festival": (N_("Take the {pile_name} festival cards"),
                      N_("You took the {pile_name} festival cards.")),
    "choose_pieces": (N_("{trains} trains + {ships} ships"),
                      N_("You play with {trains} trains and {ships} ships (secret).")),
}
# Building by clicks (``bot.play.claiming``): the board's buttons, and their private lists.
BUILD_BUTTONS = {"claim": N_("Claim a route"), "station": N_("Build a station"),
                 "harbor": N_("Build a harbor")}
BUILD_EMOJI = {"claim": "🛤️", "station": "🏠", "harbor": "⚓"}
PICKER_PLACEHOLDERS = {"claim": N_("Choose the route to claim"),
                       "station": N_("Choose the city for your station"),
                       "harbor": N_("Choose the city for your harbor")}
NOTHING_TO_BUILD = {
    "claim": N_("You cannot pay for any route now: draw cards first (the face-up cards or "
                "the deck)."),
    "station": N_("You cannot build a station now: you have none left, or not the cards "
                  "for one."),
    "harbor": N_("You cannot build a harbor now: you need a route into a harbor city, a "
                 "harbor left, and 2 train cards + 2 ship cards of one colour with the "
                 "harbor symbol (jokers replace any)."),
}
LANGUAGE_NAMES: dict[Language, str] = {"en": N_("English"), "de": N_("German")}
# Where a draft stands: (round, rounds, second draft?). Public: everyone sees the packets shrink.
DraftRound = tuple[int, int, bool]


# The maps' names (``maps/``), for the catalog: posts name a map in the game's language.
MAP_NAMES = (N_("USA"), N_("Europe"), N_("Nordic Countries"), N_("Pennsylvania"),
             N_("Iberia"), N_("Rails & Sails: World"))


def map_name(map_id: str) -> str:
    """'Europa' in a German post, 'Europe' in an English one."""
    return _(load_map(map_id).name)


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


def two_decks(map_id: str) -> bool:
    """Rails & Sails: a train and a ship deck, jokers, pieces of two kinds."""
    return load_map(map_id).rules.rails_and_sails is not None


def route_ends(map_id: str, route_id: int) -> str:
    """'Paris–Wien'."""
    r = _routes(map_id).get(route_id)
    if r is None:
        return _("route {n}", n=route_id)
    return f"{city_name(map_id, r.a)}–{city_name(map_id, r.b)}"


def route_label(map_id: str, route_id: int) -> str:
    """'Paris–Wien (3 green)', 'Zürich–München (gray tunnel of 2)', as players say them."""
    r = _routes(map_id).get(route_id)
    if r is None:
        return _("route {n}", n=route_id)
    colour, length = _(r.color), r.length
    if r.tunnel:
        extras = [_("{colour} tunnel of {length}", colour=colour, length=length)]
    elif r.ferry_locomotives:
        extras = [_n("{colour} ferry of {length} with {n} locomotive",
                     "{colour} ferry of {length} with {n} locomotives", r.ferry_locomotives,
                     colour=colour, length=length)]
    elif r.kind == "ship":
        extras = [_("{colour} sea route of {length}", colour=colour, length=length)]
    else:
        extras = [_("{length} {colour}", length=length, colour=colour)]
    if r.rough_terrain:
        extras.append(_("rough terrain"))
    if route_id in _second_of_twins(map_id):  # a double's second route, alike
        extras.append(_("second track"))
    return f"{city_name(map_id, r.a)}–{city_name(map_id, r.b)} ({', '.join(extras)})"


@cache
def _second_of_twins(map_id: str) -> frozenset[int]:
    """The higher id of each pair of parallel routes that are alike (same length, colour
    and kind): without it both would read the same in a list."""
    seen: dict[tuple[object, ...], int] = {}
    second = set()
    for r in sorted(load_map(map_id).routes, key=lambda r: r.id):
        key = (frozenset((r.a, r.b)), r.length, r.color, r.kind, r.tunnel,
               r.ferry_locomotives, r.rough_terrain)
        if key in seen:
            second.add(r.id)
        seen[key] = r.id
    return frozenset(second)


# -- cards ------------------------------------------------------------------------------


def card_label(map_id: str, card: str, n: int = 1) -> str:
    """A card's name for players: 'red', 'locomotives'; on Rails & Sails 'red ship',
    'red double ships', 'jokers' (the engine calls a joker 'locomotive')."""
    rs = two_decks(map_id)
    if card == "locomotive":
        return _n("joker", "jokers", n) if rs else _n("locomotive", "locomotives", n)
    suit, _sep, kind = card.partition("_")
    colour = _(suit)
    if not rs:
        return colour
    if kind == "harbor":
        return _n("{colour} harbor train", "{colour} harbor trains", n, colour=colour)
    if kind == "ship":
        return _n("{colour} ship", "{colour} ships", n, colour=colour)
    if kind == "double_ship":
        return _n("{colour} double ship", "{colour} double ships", n, colour=colour)
    return _n("{colour} train", "{colour} trains", n, colour=colour)


def card_emoji(card: str | None) -> str | None:
    return EMOJI.get(card_suit(card)) if card else None


def _card_key(card: str) -> tuple[int, int, str]:
    suit, _sep, kind = card.partition("_")
    if card == "locomotive":
        return (len(KINDS), 0, card)
    kinds = list(KINDS)
    order = CARD_ORDER.index(suit) if suit in CARD_ORDER else len(CARD_ORDER)
    return (kinds.index(kind) if kind in kinds else len(kinds), order, card)


def sorted_cards(cards: Iterable[str]) -> list[str]:
    """Train cards by colour, then harbor trains, ships, double ships, then wild cards."""
    return sorted(cards, key=_card_key)


def cards_text(map_id: str, cards: dict[str, int]) -> str:
    """'2 green + 1 locomotive' (on Rails & Sails '2 red double ships + 1 joker')."""
    parts = [f"{cards[c]} {card_label(map_id, c, cards[c])}" for c in sorted_cards(cards)
             if cards[c]]
    return " + ".join(parts) if parts else _("no cards")


def seat_mention(user_id: int, name: str, human: bool) -> str:
    """How the prompt names a seat's player: a mention, unless a computer plays the seat."""
    return f"<@{user_id}>" if human else f"{name} (🤖)"


def safe_name(name: str) -> str:
    """A player's name as message text: no mention it could fake, no markdown it could
    start (a nickname shaped like '<@123>' or '**x**' shows as typed)."""
    return escape_markdown(escape_mentions(name))


def chunks(text: str, limit: int = 1900) -> list[str]:
    """A long text as several messages of at most ``limit`` characters, split at line
    ends (a single longer line is split where it must). Nothing is lost."""
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                parts.append(current)
                current = ""
            parts.append(line[:limit])
            line = line[limit:]
        if current and len(current) + 1 + len(line) > limit:
            parts.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current or not parts:
        parts.append(current)
    return parts


def clip(text: str, limit: int = 1900) -> str:
    """Fit Discord's 2000-character limit, cutting at a line end when possible."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit - 1)
    return text[: cut if cut > limit // 2 else limit - 1] + "\n…"


def _minus(points: int) -> str:
    """'−3' with a real minus sign, '+2'."""
    return f"−{-points}" if points < 0 else f"+{points}"


@cache
def _festivals(map_id: str) -> Festivals | None:
    return load_map(map_id).rules.festivals


def pile_name(map_id: str, pile: str) -> str:
    festivals = _festivals(map_id)
    names = {p.id: p.name for p in festivals.piles} if festivals else {}
    return names.get(pile, pile)


@cache
def _tickets(map_id: str) -> dict[int, tuple[list[str], int]]:
    return {t.id: (list(t.cities), t.points) for t in load_map(map_id).tickets}


def ticket_label(map_id: str, ticket_id: int) -> str:
    """'Madrid → Barcelona (8)' for a ticket id (what a draft button shows its picker)."""
    cities, points = _tickets(map_id).get(ticket_id, ([], 0))
    return f"{ticket_pair(map_id, cities)} ({points})" if cities else _("ticket {n}",
                                                                          n=ticket_id)


# -- module decisions ------------------------------------------------------------------


def _fields(map_id: str, action: Action) -> dict[str, object]:
    fields = action.model_dump(exclude={"type"})
    if isinstance(action, DraftPick):
        fields["ticket_name"] = ticket_label(map_id, action.ticket)
    if isinstance(action, TakeFestival):
        fields["pile_name"] = pile_name(map_id, action.pile)
    return fields


def choice_label(map_id: str, action: Action) -> str:
    """A button's label for one option of a module decision ('Take a PRR share')."""
    row = CHOICES.get(action.type)
    if row is None:  # a decision without its row yet still gets a readable button
        args = ", ".join(str(v) for v in _fields(map_id, action).values() if v is not None)
        return f"{action.type.replace('_', ' ').capitalize()} {args}".strip()[:80]
    return _(row[0], **_fields(map_id, action))[:80]


def choice_done(map_id: str, action: Action) -> str | None:
    """What the chooser reads after choosing (private), or None for a plain 'Done'."""
    row = CHOICES.get(action.type)
    return _(row[1], **_fields(map_id, action)) if row else None


def decision_help(phase: Phase) -> str:
    return _(PHASE_HELP[phase]) if phase in PHASE_HELP else _("make your choice")


def decision_text(view: PublicView, private: PrivateView, draft: DraftRound | None) -> str:
    """The decision waiting for one player, for their eyes: 'pick one destination ticket
    from your draft packet (round 2 of 6)', or which festival piles lie at the route's ends
    and how big they are (public, but handy when choosing)."""
    text = decision_help(view.phase)
    if draft is not None and view.phase == Phase.DRAFT:
        text += _(" (round {n} of {rounds})", n=draft[0], rounds=draft[1])
    if view.phase == Phase.CHOOSE_FESTIVAL and private.festival_options:
        text += _(" — lying there: ") + " · ".join(
            f"{pile_name(view.map_id, p)} {view.festival_piles.get(p, 0)}"
            for p in private.festival_options)
    return text


# Rails & Sails turns offer more (and two decks).
_RS_HELP = {
    Phase.TURN: N_("draw cards, claim a route, draw destination tickets, build a harbor or "
               "exchange pieces"),
    Phase.SECOND_DRAW: N_("take a second card (face-up, or from the train or ship deck)"),
}


def build_kinds(map_id: str) -> list[str]:
    """The build buttons a map has: claims everywhere, stations and harbors where its rules
    say (``bot.play.claiming``)."""
    rules = load_map(map_id).rules
    return ["claim", *(["station"] if rules.stations is not None else []),
            *(["harbor"] if rules.rails_and_sails is not None else [])]


def turn_controls(map_id: str) -> str:
    """How to take a turn: the board's buttons by name, and the typed commands."""
    builds = ", ".join("**" + _(BUILD_BUTTONS[k]) + "**" for k in build_kinds(map_id))
    return _("👉 Buttons under the board: a card or the deck to draw, {builds}, or **Draw "
             "tickets** (typed: `/ttr draw`, `/ttr claim`, `/ttr tickets`).", builds=builds)


def picker_text(kind: str, page: int, pages: int, *, useful: bool) -> str:
    """Above a private list of what a player can build now."""
    heads = {"claim": _("Which route do you claim? Only routes you can pay for now are "
                        "listed."),
             "station": _("Where do you build your station?"),
             "harbor": _("Where do you build your harbor?")}
    lines = [heads[kind]]
    if useful:
        lines.append(_("🎫 marks what serves your tickets: those come first."))
    if pages > 1:
        lines.append(_("Page {n} of {pages}.", n=page + 1, pages=pages))
    return "\n".join(lines)


def payment_text(what: str) -> str:
    return _("How do you pay for {what}?", what=what)


def turn_help(map_id: str, phase: Phase) -> str:
    """What the player whose turn it is may do now ('draw cards, claim a route…')."""
    if two_decks(map_id) and phase in _RS_HELP:
        return _(_RS_HELP[phase])
    return _(PHASE_HELP[phase]) if phase in PHASE_HELP else _("act")


# -- public: events -------------------------------------------------------------------


def _draw_line(map_id: str, name: str, draws: Sequence[CardDrawn]) -> str:
    shown = [card_label(map_id, d.card) for d in draws if d.card is not None]
    if len(draws) == 1 and [d.card for d in draws] == ["locomotive"]:
        return _("{name} took a face-up {card}", name=name,
                 card=card_label(map_id, "locomotive"))
    n = len(draws)
    if not shown:
        decks = sorted({d.deck for d in draws if d.deck})
        if len(decks) == 2:
            deck = _("the train and ship decks")
        elif decks == ["ship"]:
            deck = _("the ship deck")
        elif decks == ["train"]:
            deck = _("the train deck")
        else:
            deck = _("the deck")
        return _n("{name} drew {n} card from {deck}", "{name} drew {n} cards from {deck}", n,
                  name=name, deck=deck)
    if len(shown) == n:
        return _n("{name} drew {n} card from the market: {cards}",
                  "{name} drew {n} cards from the market: {cards}", n, name=name,
                  cards=", ".join(shown))
    return _n("{name} drew {n} card ({k} from the market: {cards})",
              "{name} drew {n} cards ({k} from the market: {cards})", n, name=name,
              k=len(shown), cards=", ".join(shown))


# Facts that can happen in the middle of a draw; they are told after the draw's summary.
_SIDE_EVENTS = (MarketReset, DeckReshuffled, FestivalCardPlaced)


def event_lines(map_id: str, names: Sequence[str], events: Iterable[Event]) -> list[str]:
    """One line per public fact; consecutive card draws of one player become one line."""
    names = [safe_name(n) for n in names]
    lines: list[str] = []
    draws: list[CardDrawn] = []
    held: list[str] = []  # lines caused during a draw (reshuffles) come after its summary

    def flush() -> None:
        if draws:
            lines.append(_draw_line(map_id, names[draws[0].seat], draws))
            draws.clear()
        lines.extend(held)
        held.clear()

    for e in events:
        if isinstance(e, CardDrawn):
            if draws and draws[0].seat != e.seat:
                flush()
            draws.append(e)
            continue
        if isinstance(e, _SIDE_EVENTS):  # told after the draw they happened in, if any
            held.append(_side_line(map_id, e))
            continue
        if isinstance(e, TurnStarted):
            continue  # turns are announced by the mention, not a line
        flush()
        line = _event_line(map_id, names, e)
        if line:
            lines.append(line)
    flush()
    return lines


def _side_line(map_id: str, e: MarketReset | DeckReshuffled | FestivalCardPlaced) -> str:
    if isinstance(e, MarketReset):
        wild = card_label(map_id, "locomotive", 3)
        return _("Three {wild} lay face up: the market was dealt again.", wild=wild)
    if isinstance(e, FestivalCardPlaced):
        return _("🎉 A festival card for {pile} was laid out.", pile=pile_name(map_id, e.pile))
    return _n("The discards were shuffled into a new deck ({n} card).",
              "The discards were shuffled into a new deck ({n} cards).", e.cards)


def _draft_line(map_id: str, e: TicketDraftStarted) -> str:
    festivals = _festivals(map_id)
    keep = min(festivals.draft.keep, e.per_player) if festivals else e.per_player
    side = (festivals.draft.second_pass if e.second else festivals.draft.first_pass
            ) if festivals else "left"
    if e.second:
        head = _("🎟️ The draft card came up: the second ticket draft begins")
    else:
        head = _("🎟️ The ticket draft begins")
    return _n("{head}: everyone gets {n} ticket, picks one a round in private and passes the "
              "rest to the {side}; at the end keep exactly {keep}.",
              "{head}: everyone gets {n} tickets, picks one a round in private and passes the "
              "rest to the {side}; at the end keep exactly {keep}.", e.per_player, head=head,
              side=_(_SIDES.get(side, side)), keep=keep)


def _event_line(map_id: str, names: Sequence[str], e: Event) -> str | None:
    who = names[e.seat] if 0 <= e.seat < len(names) else "?"
    match e:
        case RouteClaimed():
            return _n("{who} claimed {route} for {n} point, paying {cards}",
                      "{who} claimed {route} for {n} points, paying {cards}", e.points, who=who,
                      route=route_label(map_id, e.route), cards=cards_text(map_id, e.cards))
        case TunnelRevealed():
            shown = ", ".join(card_label(map_id, c) for c in e.revealed) or _(
                "nothing (no cards left)")
            need = (_("no extra cards") if e.extra == 0
                    else _n("{n} more card to pay", "{n} more cards to pay", e.extra))
            return _("{who} tried the tunnel {route}: revealed {shown} → {need}", who=who,
                     route=route_label(map_id, e.route), shown=shown, need=need)
        case TunnelDeclined():
            return _("{who} gave up the tunnel {route} and took the cards back", who=who,
                     route=route_label(map_id, e.route))
        case StationBuilt():
            return _("{who} built a station in {city}, paying {cards}", who=who,
                     city=city_name(map_id, e.city), cards=cards_text(map_id, e.cards))
        case HarborBuilt():
            return _("⚓ {who} built a harbor in {city}, paying {cards}", who=who,
                     city=city_name(map_id, e.city), cards=cards_text(map_id, e.cards))
        case PiecesExchanged():
            # Public once the splits are revealed: which way, how many, and the penalty.
            if e.to == "trains":
                return _n("{who} exchanged {n} ship for {n} train ({points})",
                          "{who} exchanged {n} ships for {n} trains ({points})", e.count,
                          who=who, points=_minus(e.points))
            return _n("{who} exchanged {n} train for {n} ship ({points})",
                      "{who} exchanged {n} trains for {n} ships ({points})", e.count, who=who,
                      points=_minus(e.points))
        case PiecesChosen():
            return _("{who} has chosen their pieces", who=who)
        case TicketsDrawn():
            return _n("{who} drew {n} destination ticket", "{who} drew {n} destination tickets",
                      e.count, who=who)
        case TicketsKept():
            total = e.kept + e.returned
            return _n("{who} kept {kept} of {n} destination ticket",
                      "{who} kept {kept} of {n} destination tickets", total, who=who,
                      kept=e.kept)
        case TicketDraftStarted():
            return _draft_line(map_id, e)
        case DraftPicked():
            return _("{who} picked a ticket", who=who)
        case FestivalCardsTaken():
            # Never which or how many: festival cards are secret until the final scoring.
            return _("🎉 {who} took festival cards", who=who)
        case LastRound():
            if two_decks(map_id):
                return _n("🚂 Last round! {who} is almost out of pieces: {n} turn left in the "
                          "game.", "🚂 Last round! {who} is almost out of pieces: {n} turns "
                          "left in the game.", e.turns_left, who=who)
            return _n("🚂 Last round! {who} is almost out of trains: {n} turn left in the game.",
                      "🚂 Last round! {who} is almost out of trains: {n} turns left in the "
                      "game.", e.turns_left, who=who)
        case ShareTaken():
            # Never which company: shares are secret until the final scoring.
            return (_("{who} gave a share to the neutral investor", who=who) if e.neutral
                    else _("{who} took a share", who=who))
        case TurnSkipped():
            return _("{who} cannot do anything and passes.", who=who)
        case GameEnded():
            return _("🏁 The game is over ({reason}).", reason=end_reason(e.reason,
                                                                   two_decks(map_id)))
        case MarketReset() | DeckReshuffled() | FestivalCardPlaced():
            return _side_line(map_id, e)
    return None


# -- public: views --------------------------------------------------------------------


def market_text(view: PublicView) -> str:
    return " ".join(
        f"{i + 1}:{card_emoji(c) or '?'}{card_label(view.map_id, c)}" if c else f"{i + 1}:—"
        for i, c in enumerate(view.market)
    )


def _together_head(view: PublicView, draft: DraftRound | None) -> str:
    """What everyone in a simultaneous phase is deciding ('Draft round 2 of 6')."""
    match view.phase:
        case Phase.DRAFT:
            if draft is None:
                return _("Ticket draft")
            number, rounds, second = draft
            if second:
                return _("Second draft, round {n} of {rounds}", n=number, rounds=rounds)
            return _("Draft round {n} of {rounds}", n=number, rounds=rounds)
        case Phase.DRAFT_KEEP:
            festivals = _festivals(view.map_id)
            if festivals:
                return _("Ticket draft: keep exactly {n} of your drafted tickets",
                         n=festivals.draft.keep)
            return _("Ticket draft: keep some of your drafted tickets")
        case Phase.CHOOSE_PIECES:
            rs = load_map(view.map_id).rules.rails_and_sails
            return _("Choose your {n} pieces, trains and ships, in secret",
                     n=rs.pieces if rs else "")
    rs = load_map(view.map_id).rules.rails_and_sails
    if rs is not None:  # each player chooses pieces right after keeping tickets
        return _("Choose the destination tickets you keep, then your {n} pieces (trains and "
                 "ships, in secret)", n=rs.pieces)
    return _("Choose the destination tickets you keep")


def prompt_text(view: PublicView, mentions: Sequence[str], dm_closed: Sequence[str] = (), *,
                waiting: Sequence[int] | None = None, fresh: Sequence[int] = (),
                draft: DraftRound | None = None) -> str:
    """Who must act now and what they must decide (mentions are '<@id>' strings per seat).

    In a simultaneous phase it names everyone still deciding (``waiting``) and mentions
    only those whose decision is new (``fresh``), so each round pings each player once.
    """
    if view.phase == Phase.GAME_OVER:
        return ""
    if view.phase.simultaneous:
        seats = list(waiting) if waiting is not None else [
            p.seat for p in view.players if p.deciding]
        names = ", ".join(safe_name(view.players[s].name) for s in seats) or _("nobody")
        text = _("{head}: waiting for {names}.", head=_together_head(view, draft), names=names)
        ping = [mentions[s] for s in seats if s in fresh]
        if ping:
            pieces = view.phase == Phase.CHOOSE_PIECES or (
                view.phase == Phase.CHOOSE_INITIAL_TICKETS and two_decks(view.map_id))
            how = (_("check your DMs or press **My hand**, or type `/ttr exchange trains:<n>`")
                   if pieces else _("check your DMs or press **My hand**"))
            text += f"\n{', '.join(ping)}: {how}."
    elif ((view.phase.map_decision or view.phase == Phase.CHOOSE_TICKETS)
          and view.current is not None):
        who = mentions[view.current]
        # A computer player has no DMs to check: it just decides.
        text = (_("{who}: {what} (check your DMs or press **My hand**).", who=who,
                  what=decision_help(view.phase)) if who.startswith("<@")
                else _("{who}: {what}.", who=who, what=decision_help(view.phase)))
    else:
        assert view.current is not None
        text = _("{who}, your turn: {what}.", who=mentions[view.current],
                 what=turn_help(view.map_id, view.phase))
        if view.phase == Phase.TURN:  # on the mention's line: the turn line is one line
            text += " " + turn_controls(view.map_id)
        if view.tunnel is not None:
            text = _n("{who}: the tunnel needs {n} more card ({colour} or locomotive). Pay or "
                      "decline.", "{who}: the tunnel needs {n} more cards ({colour} or "
                      "locomotive). Pay or decline.", view.tunnel.extra,
                      who=mentions[view.current],
                      colour=card_label(view.map_id, view.tunnel.color))
    if dm_closed:
        text += "\n" + _("{who}: I cannot DM you, so press **My hand** to see your cards and "
                         "tickets.", who=", ".join(dm_closed))
    return text


# Between a table message's turn text and its live status.
RULE = "────────"


def board_caption(view: PublicView) -> str:
    """The text of a table message posted without a turn's lines ('🚂 Board, turn 12')."""
    return _("🚂 Board, turn {n}", n=view.turn) if view.turn else _("🚂 The board")


def status_text(view: PublicView, *, waiting: Sequence[int] | None = None,
                draft: DraftRound | None = None) -> str:
    lines = []
    rs = two_decks(view.map_id)
    if view.phase == Phase.GAME_OVER:
        lines.append(_("The game is over."))
    elif view.phase.simultaneous:
        seats = waiting if waiting is not None else [p.seat for p in view.players if p.deciding]
        names = ", ".join(safe_name(view.players[s].name) for s in seats) or _("nobody")
        head = _("{head}: waiting for {names}.", head=_together_head(view, draft), names=names)
        lines.append(_("Setup: {what}", what=head) if view.turn == 0 else head)
    else:
        assert view.current is not None
        who = safe_name(view.players[view.current].name)
        lines.append(_("Turn {n}: {who} must {what}.", n=view.turn, who=who,
                       what=turn_help(view.map_id, view.phase)))
        if view.tunnel is not None:
            t = view.tunnel
            lines.append(_n("Tunnel {route}: revealed {shown}; {n} more card asked.",
                            "Tunnel {route}: revealed {shown}; {n} more cards asked.", t.extra,
                            route=route_label(view.map_id, t.route),
                            shown=", ".join(card_label(view.map_id, c) for c in t.revealed)))
    if view.last_round:
        lines.append(_("🚂 This is the last round."))
    if rs:
        lines.append(_("Market {market} · train deck {deck} · ship deck {ship_deck} · discards "
                       "{discards}+{ship_discards} · tickets {tickets}", market=market_text(view),
                       deck=view.deck, ship_deck=view.ship_deck, discards=view.discards,
                       ship_discards=view.ship_discards, tickets=view.tickets_left))
    else:
        lines.append(_("Market {market} · deck {deck} · discards {discards} · tickets "
                       "{tickets}", market=market_text(view), deck=view.deck,
                       discards=view.discards, tickets=view.tickets_left))
    if view.share_stacks:
        lines.append(stacks_text(view))
    lying = {p: n for p, n in view.festival_piles.items() if n}
    if lying:
        lines.append(_("Festival cards lying: {piles}", piles=" · ".join(
            f"{pile_name(view.map_id, p)} {n}" for p, n in lying.items())))
    for p in view.players:
        station = ", " + _n("{n} station", "{n} stations", p.stations) if p.stations else ""
        harbors = [city_name(view.map_id, c) for c, s in view.harbors.items() if s == p.seat]
        harbor = ", " + _("harbors: {cities}", cities=", ".join(harbors)) if harbors else ""
        pieces = _n("{n} piece", "{n} pieces", p.trains) if rs else _n(
            "{n} train", "{n} trains", p.trains)
        if view.piece_split:  # Rails & Sails, once everyone has chosen
            split = view.piece_split[p.seat]
            trains = _n("{n} train", "{n} trains", split["trains"])
            ships = _n("{n} ship", "{n} ships", split["ships"])
            pieces += f" ({trains}, {ships})"
        points = _n("{n} point", "{n} points", p.score)
        cards = _n("{n} card", "{n} cards", p.hand_size)
        tickets = _n("{n} ticket", "{n} tickets", p.tickets)
        lines.append(f"• {safe_name(p.name)}: {points}, {pieces}{station}{harbor}, {cards}, "
                     f"{tickets}")
    return "\n".join(lines)


def stacks_text(view: PublicView) -> str:
    """The share stacks left on the table (public, like the physical stacks)."""
    stacks = " · ".join(f"{c} {n}" for c, n in view.share_stacks.items())
    if view.neutral_shares:
        stacks += " · " + _("neutral investor's pile {n}", n=view.neutral_shares)
    return _("Share stacks: {stacks}", stacks=stacks)


def final_text(view: PublicView) -> str:
    final = view.final
    if final is None:
        return _("The game is over.")
    lines = [_("🏁 **Final scores**")]
    for p in sorted(final.players, key=lambda p: (p.rank, p.seat)):
        done = sum(1 for t in p.tickets if t.points > 0)
        tickets = sum(t.points for t in p.tickets)
        parts = [_("routes {n}", n=p.routes),
                 _("tickets {points} ({done}/{all})", points=f"{tickets:+d}", done=done,
                   all=len(p.tickets))]
        if p.longest_path_bonus:
            parts.append(_("longest path +{n}", n=p.longest_path_bonus))
        if p.most_tickets_bonus:
            parts.append(_("most tickets +{n}", n=p.most_tickets_bonus))
        if p.unused_stations_bonus:
            parts.append(_("stations +{n}", n=p.unused_stations_bonus))
        parts.extend(f"{i18n.text(e.text())} {e.points:+d}" for e in p.extras)
        crown = " 👑" if p.seat in final.winners else ""
        lines.append(f"{p.rank}. **{safe_name(p.name)}** {p.total}{crown} — {', '.join(parts)}")
    for p in sorted(final.players, key=lambda p: p.seat):
        shown = ", ".join(
            f"{'✅' if t.points > 0 else '❌'} {ticket_pair(view.map_id, t.cities)} ({t.points:+d})"
            for t in p.tickets
        )
        lines.append(_("{name}'s tickets: {tickets}", name=safe_name(p.name),
                       tickets=shown or _("none")))
    lines += shares_lines(view)
    by_seat = {p.seat: safe_name(p.name) for p in final.players}
    winners = [by_seat.get(w, "?") for w in final.winners]
    lines.append(_n("Winner: {names}", "Winners: {names}", len(winners),
                    names=", ".join(winners)))
    return "\n".join(lines)


def shares_lines(view: PublicView) -> list[str]:
    """Pennsylvania, at the end: everyone's shares per company (and the neutral investor's
    revealed ones), so the majorities can be checked."""
    if not view.shares_held:
        return []

    def counts(held: dict[str, int]) -> str:
        return ", ".join(f"{c} {n}" for c, n in held.items()) or _("none")

    lines = [_("{name}'s shares: {shares}", name=safe_name(p.name), shares=counts(held))
             for p, held in zip(view.players, view.shares_held, strict=True)]
    if view.neutral_revealed:
        lines.append(_("The neutral investor's revealed shares: {shares}",
                       shares=counts(view.neutral_revealed)))
    return lines


def ticket_pair(map_id: str, cities: Sequence[str]) -> str:
    return " → ".join(city_name(map_id, c) for c in cities)


# -- rules ----------------------------------------------------------------------------------


def rules_text(map_id: str) -> str:
    """The map's rules in short, then how a turn is played here (the buttons' names)."""
    m: MapData = load_map(map_id)
    rs = m.rules.rails_and_sails
    rules = _rails_and_sails_rules(m, rs) if rs is not None else _map_rules(m)
    return f"{rules}\n{turn_controls(map_id)}"


def _map_rules(m: MapData) -> str:
    r = m.rules
    table = ", ".join(f"{k}→{v}" for k, v in sorted(r.route_points.items()))
    draw_tickets = _("draw {deal} destination tickets and keep at least {keep}",
                     deal=r.draw_tickets.deal, keep=r.draw_tickets.keep_min)
    if r.festivals is not None and r.festivals.tickets_locked_until_second_draft:
        draw_tickets += _(" (only after the second ticket draft)")
    if r.locomotives_only_tunnels_ferries:  # Nordic
        turn = _("On your turn do one thing: draw 2 train cards (a face-up locomotive is one "
                 "card like any other), claim a route with cards of its colour (gray takes "
                 "any one colour; locomotives pay only on tunnels and ferries), or "
                 "{draw_tickets}.", draw_tickets=draw_tickets)
    else:
        turn = _("On your turn do one thing: draw 2 train cards (a face-up locomotive counts "
                 "as both and cannot be the second card), claim a route with cards of its "
                 "colour (locomotives are wild, gray takes any one colour), or "
                 "{draw_tickets}.", draw_tickets=draw_tickets)
    lines = [
        _("**{map}** — {low}–{high} players, {trains} trains each.", map=_(m.name),
          low=r.players_min, high=r.players_max, trains=r.trains),
        turn,
    ]
    if r.festivals is None:
        lines.append(_("Start: {deal} tickets dealt, keep at least {keep}.",
                       deal=r.setup_tickets.deal + r.setup_tickets.deal_long,
                       keep=r.setup_tickets.keep_min))
    lines += [
        _("Route points by length: {table}.", table=table),
        _("Double routes are both usable with {n}+ players.", n=r.double_routes_min_players),
        _("The end comes when someone has {n} or fewer trains: everyone, including them, plays "
          "one more turn. Completed tickets add, failed ones subtract.", n=r.end_trigger_pieces),
    ]
    if r.longest_path_bonus:
        lines.append(_("Longest continuous path: +{n}.", n=r.longest_path_bonus))
    else:
        lines.append(_("No longest-path bonus."))
    if r.most_tickets_bonus:
        lines.append(_("Globetrotter, most completed tickets: +{n}.", n=r.most_tickets_bonus))
    if r.stations is not None:
        s = r.stations
        lines.append(_(
            "Stations: build up to {n} (costs {costs} cards of one colour) to borrow one rival "
            "route into that city for your tickets; each unbuilt station is worth +{points}.",
            n=s.per_player, costs=", ".join(map(str, s.costs)), points=s.unused_points))
    if any(x.tunnel for x in m.routes):
        lines.append(_("Tunnels: after paying, 3 cards are revealed; each matching your colour "
                       "or a locomotive costs one more card. Pay or give up."))
    if any(x.ferry_locomotives for x in m.routes):
        lines.append(_("Ferries need one locomotive per locomotive symbol."))
        if r.ferry_cards_per_locomotive:
            lines[-1] += " " + _("Any {n} cards may stand in for one locomotive there.",
                                 n=r.ferry_cards_per_locomotive)
    for x in m.routes:
        if x.any_cards_substitute:  # Nordic's Murmansk–Lieksa
            lines.append(_("{a}–{b}: any {n} cards (locomotives too) may replace one card "
                           "of the colour you pay in.", a=city_name(m.id, x.a),
                           b=city_name(m.id, x.b), n=x.any_cards_substitute))
    if r.shares is not None:
        lines.extend(_shares_rules(r.shares))
    if r.festivals is not None:
        lines.extend(_festival_rules(r.festivals))
    note = estimate_note(m)
    if note is not None:
        lines.append(f"⚠️ {note}")
    return "\n".join(lines)


def _shares_rules(shares: Shares) -> list[str]:
    tables = ", ".join(_("{company} {scores} ({n} shares)", company=c.id,
                         scores="/".join(map(str, c.scores)), n=c.shares)
                       for c in shares.companies)
    lines = [
        _("Shares: claiming a route that shows company logos also lets you take the top share "
          "of one of those companies (you choose, or take none; an empty stack cannot be "
          "chosen). Your shares are secret until the end."),
        _("At the end each company pays the players with the most of its shares, by place "
          "(a tie goes to whoever holds the lower-numbered share): {tables}.", tables=tables),
    ]
    if shares.neutral_investor_players:
        counts = "/".join(map(str, shares.neutral_investor_players))
        part = (_("half") if shares.neutral_reveal_fraction == 0.5
                else f"{round(shares.neutral_reveal_fraction * 100)}%")
        lines.append(_(
            "With {counts} players a neutral investor plays along: each time you take a share, "
            "you also put the top share of one of the route's companies face down in its pile. "
            "At the end {part} of that pile (rounded up) is revealed; those shares take places "
            "in the majorities but score nothing.", counts=counts, part=part))
    return lines


def _festival_rules(f: Festivals) -> list[str]:
    d = f.draft
    table = "/".join(map(str, f.scores))
    extra = _(" and +{n} for each card beyond", n=f.extra_card_points) \
        if f.extra_card_points else ""
    depth = ", ".join(f"{n}p {round(x * 100)}%" for n, x in sorted(f.draft_card_depth.items()))
    return [
        _("Ticket draft: everyone gets {deal} tickets, picks one and passes the rest to the "
          "{side}, until all are drafted; then keep exactly {keep}. Here the rounds run in "
          "parallel: pick with the buttons in your DM (or **My hand**); a round ends when "
          "everyone has picked.", deal=d.deal, side=_(_SIDES.get(d.first_pass, d.first_pass)),
          keep=d.keep),
        _("Festival cards are shuffled into the train deck. One that comes up is laid out at "
          "its city (Porto and Coimbra share one pile) and another card is drawn. Claiming a "
          "route into a festival city takes all the festival cards lying there (if both ends "
          "have some, you choose one). Your festival cards are secret."),
        _("Each city's set scores by its size: {table} for 1, 2, 3… cards{extra}.",
          table=table, extra=extra),
        _("The draft card lies in the deck (from the top: {depth}). When it comes up the turn "
          "is finished, then a second draft runs passing to the {side}; keep exactly {keep}. "
          "Only after it may destination tickets be drawn.", depth=depth,
          side=_(_SIDES.get(d.second_pass, d.second_pass)), keep=d.keep),
        _("No Globetrotter bonus. A tie goes to the most completed tickets."),
    ]


# Where a draft passes its packets.
_SIDES = {"left": N_("left"), "right": N_("right")}


def _rails_and_sails_rules(m: MapData, rs: RailsAndSails) -> str:
    r = m.rules
    table = ", ".join(f"{k}→{v}" for k, v in sorted(r.route_points.items()))
    harbor_points = "/".join(map(str, rs.harbor_points))
    return "\n".join([
        _("**{map}** — {low}–{high} players, {n} pieces each.", map=_(m.name),
          low=r.players_min, high=r.players_max, n=rs.pieces),
        _("Cards: train cards in {colours} colours ({harbor} of each with a harbor ⚓ symbol), "
          "ship cards (single ships with the ⚓ symbol, and double ships that count as 2) and "
          "{jokers} jokers, wild for anything.", colours=len(r.deck.colors),
          harbor=rs.harbor_train_cards_per_color, jokers=r.deck.locomotives),
        _("Start: {trains} train + {ships} ship cards; {deal} tickets, keep at least {keep}. "
          "Then choose your {n} pieces in secret: at most {max_trains} trains and {max_ships} "
          "ships (new players: {suggested_trains} + {suggested_ships}) — buttons in your DM "
          "or `/ttr exchange trains:<n>`. The rest is your reserve. Once everyone has chosen, "
          "every player's trains and ships are public, and so is every exchange.",
          trains=rs.deal_train_cards, ships=rs.deal_ship_cards, deal=r.setup_tickets.deal,
          keep=r.setup_tickets.keep_min, n=rs.pieces, max_trains=rs.max_trains,
          max_ships=rs.max_ships, suggested_trains=rs.suggested_trains,
          suggested_ships=rs.suggested_ships),
        _("On your turn do one thing:"),
        _("• Draw 2 cards: face-up ones or the top of the **Train deck** or **Ship deck**; you "
          "choose which deck refills a face-up card you take. A face-up joker may only be your "
          "first card and ends the draw."),
        _("• Claim a route: train routes with train cards and trains, ship routes with ship "
          "cards and ships, never mixed; gray takes any one colour. Rough terrain needs {n} "
          "train cards of one colour per space.", n=rs.rough_terrain_cards_per_space),
        _("• Draw {deal} destination tickets, keep at least {keep}.", deal=r.draw_tickets.deal,
          keep=r.draw_tickets.keep_min),
        _("• Build a harbor (`/ttr harbor`) in a ⚓ city one of your routes reaches: {trains} "
          "train + {ships} ship cards of one colour, all with the ⚓ symbol; jokers replace any. "
          "You have {n}.", trains=rs.harbor_train_cards, ships=rs.harbor_ship_cards,
          n=rs.harbors_per_player),
        _("• Exchange pieces (`/ttr exchange trains:<+n|-n>`) with your reserve: {points} point "
          "per piece; never more than {max_trains} trains or {max_ships} ships.",
          points=_minus(rs.exchange_points_per_piece), max_trains=rs.max_trains,
          max_ships=rs.max_ships),
        _("Route points by length: {table}.", table=table),
        _("Tour tickets (3+ cities): all joined in the printed order scores the high value, "
          "joined in another order the middle one, otherwise you lose the low one."),
        _("Harbors score {points} for 1/2/3+ completed tickets naming their city; each harbor "
          "not built costs {unbuilt}.", points=harbor_points,
          unbuilt=_minus(rs.unbuilt_harbor_points)),
        _n("The end comes when someone has {pieces} or fewer pieces: everyone, including them, "
           "plays {n} more turn. No longest-path or Globetrotter bonus.",
           "The end comes when someone has {pieces} or fewer pieces: everyone, including them, "
           "plays {n} more turns. No longest-path or Globetrotter bonus.",
           r.final_turns, pieces=r.end_trigger_pieces),
    ])


# -- private: only for ephemeral replies and DMs ------------------------------------------


def ticket_value(map_id: str, t: TicketView) -> str:
    """'8 points', '10 points (long)', or a tour ticket's three values."""
    tour = _tours(map_id).get(t.id)
    if tour is not None:  # Rails & Sails tour tickets score three ways
        any_order, penalty = tour
        return _("{points} in this order, {any_order} in another, −{penalty} if not joined",
                 points=t.points, any_order=any_order, penalty=penalty)
    if t.long:
        return _n("{n} point (long)", "{n} points (long)", t.points)
    return _n("{n} point", "{n} points", t.points)


def ticket_text(map_id: str, t: TicketView) -> str:
    mark = "✅ " if t.connected else ""
    long = _(" (long)") if t.long else ""
    if t.id in _tours(map_id):
        return f"{mark}{ticket_pair(map_id, t.cities)} — {ticket_value(map_id, t)}"
    return f"{mark}{ticket_pair(map_id, t.cities)} — {t.points}{long}"


@cache
def _tours(map_id: str) -> dict[int, tuple[int, int]]:
    """Tour tickets by id: (points in any order, points lost if not joined)."""
    return {t.id: (t.points_any_order or 0, t.penalty or 0) for t in load_map(map_id).tickets
            if len(t.cities) > 2 and t.points_any_order is not None}


def ticket_plans(public: PublicView, private: PrivateView) -> tuple[TicketPlan, ...]:
    """The planner's answer for the seat of ``private`` (its own views only)."""
    return tuple(plan_tickets(board_for(public.map_id), public, private))


def _plan_cards(map_id: str, cards: dict[str, int]) -> str:
    """'3 orange + 1 card of one colour': ``cards_text`` with a gray route's any colour."""
    plain = {c: n for c, n in cards.items() if not c.startswith(ANY_COLOUR)}
    parts = [cards_text(map_id, plain)] if plain else []
    for c, n in cards.items():
        if c == ANY_COLOUR:
            parts.append(_n("{n} card of one colour", "{n} cards of one colour", n))
        elif c.startswith(ANY_COLOUR):
            parts.append(_n("{n} ship of one colour", "{n} ships of one colour", n))
    return " + ".join(parts)


def planner_text(map_id: str, plans: Sequence[TicketPlan]) -> str:
    """The planner for screen readers (private): per kept ticket, done, or the cheapest way
    to finish it, what the hand still lacks, and which of its routes others may take."""
    if not plans:
        return ""
    lines = [_("**Your ticket plan:**")]
    for p in plans:
        name = ticket_pair(map_id, p.cities)
        if p.done:
            lines.append(_("• {ticket}: done ✅", ticket=name))
            continue
        if not p.reachable:
            lines.append(_("• {ticket}: no open way left ⛔", ticket=name))
            continue
        parts = [_n("{n} piece", "{n} pieces", p.pieces)]
        if p.routes:
            parts.append(", ".join(route_label(map_id, r) for r in p.routes))
        if p.stations:
            parts.append(_n("{n} station ({cities})", "{n} stations ({cities})", p.stations,
                            cities=", ".join(city_name(map_id, c) for c in p.new_stations)))
        parts.append(_("still to draw: {cards}", cards=_plan_cards(map_id, p.missing))
                     if p.missing else _("the cards are in your hand"))
        if p.contested:
            parts.append(_("contested: {routes}", routes=", ".join(
                route_ends(map_id, r) for r in p.contested)))
        lines.append(f"• {name}: " + "; ".join(parts))
    return "\n".join(lines)


def keep_rule(view: PrivateView) -> str:
    """'keep at least 1', 'keep exactly 4' or 'keep 2 to 3' of the offered tickets."""
    low, high = view.keep_min, view.keep_max
    if high is None:
        return _("keep at least {n}", n=low)
    if low == high:
        return _("keep exactly {n}", n=low)
    return _("keep {low} to {high}", low=low, high=high)


def hand_text(map_id: str, view: PrivateView) -> str:
    hand = ", ".join(
        f"{card_emoji(c) or ''} {view.hand[c]} {card_label(map_id, c, view.hand[c])}"
        for c in sorted_cards(view.hand) if view.hand[c]
    ) or _("no cards")
    lines = [_("**Your hand:** {cards}", cards=hand)]
    if view.tickets:
        lines.append(_("**Your tickets:**"))
        lines.extend(f"• {ticket_text(map_id, t)}" for t in view.tickets)
    if view.offered:
        lines.append(_("**Offered — {rule}:**", rule=keep_rule(view)))
        lines.extend(f"• {ticket_text(map_id, t)}" for t in view.offered)
    if view.draft_packet:
        lines.append(_("**Your draft packet — pick one:**"))
        lines.extend(f"• {ticket_text(map_id, t)}" for t in view.draft_packet)
    if view.draft_picked:
        lines.append(_("**Picked in this draft so far:**"))
        lines.extend(f"• {ticket_text(map_id, t)}" for t in view.draft_picked)
    if view.festival_cards:
        lines.append(_("**Your festival cards:** {piles}", piles=" · ".join(
            f"{pile_name(map_id, p)} {n}" for p, n in view.festival_cards.items())))
    if view.shares:
        lines.append(_("**Your shares:** {shares}", shares=shares_text(view.shares)))
    if view.pieces:
        lines.append(pieces_text(map_id, view))
    return "\n".join(lines)


def pieces_text(map_id: str, view: PrivateView) -> str:
    """'**Your pieces:** 20 trains, 40 ships (reserve …) · harbors to build: 3' (private)."""
    p = view.pieces
    trains, ships = p.get("trains", 0), p.get("ships", 0)
    rs = load_map(map_id).rules.rails_and_sails
    boxed = p.get("reserve_trains", 0) + p.get("reserve_ships", 0)
    if rs is not None and trains + ships == 0 and boxed == rs.max_trains + rs.max_ships:
        return _("**Your pieces:** not chosen yet.")
    return _("**Your pieces:** {trains}, {ships} (reserve: {reserve_trains}, {reserve_ships}) · "
             "harbors to build: {harbors}", trains=_trains(trains), ships=_ships(ships),
             reserve_trains=_trains(p.get("reserve_trains", 0)),
             reserve_ships=_ships(p.get("reserve_ships", 0)), harbors=view.harbors_left)


def _trains(n: int) -> str:
    return _n("{n} train", "{n} trains", n)


def _ships(n: int) -> str:
    return _n("{n} ship", "{n} ships", n)


def shares_text(shares: dict[str, list[int]]) -> str:
    """'PRR ×2 (#1, #4) · B&O ×1 (#3)' (private)."""
    return " · ".join(
        f"{c} ×{len(numbers)} ({', '.join(f'#{n}' for n in sorted(numbers))})"
        for c, numbers in shares.items() if numbers)


def shares_gained(before: PrivateView, after: PrivateView) -> list[str]:
    """'PRR #4' for each share the player got by an action (private)."""
    return [f"{c} #{n}" for c, numbers in after.shares.items()
            for n in sorted(numbers) if n not in before.shares.get(c, [])]


def festival_gained(map_id: str, before: PrivateView, after: PrivateView) -> list[str]:
    """'3 Sevilla (you hold 4)' for each pile whose cards the player just took (private)."""
    out = []
    for pile, n in after.festival_cards.items():
        got = n - before.festival_cards.get(pile, 0)
        if got > 0:
            out.append(_("{got} {pile} (you hold {n})", got=got, pile=pile_name(map_id, pile),
                         n=n))
    return out


def drawn_text(map_id: str, before: PrivateView, after: PrivateView) -> str:
    """The cards a player just received, named (for that player only)."""
    gained = {c: n - before.hand.get(c, 0) for c, n in after.hand.items()
              if n > before.hand.get(c, 0)}
    return cards_text(map_id, gained) if gained else _("nothing")


# -- reminders, timers, absent players --------------------------------------------------------


def _hours(hours: float) -> str:
    if hours >= 1:
        return _n("{n} hour", "{n} hours", round(hours))
    return _n("{n} minute", "{n} minutes", round(hours * 60))


def reminder_dm(channel_id: int, game_id: int) -> str:
    return _("⏰ Reminder: <#{channel}> (game #{game}) is waiting for you. Press **My hand** "
             "there to see what to do. (`/ttr settings` sets your quiet hours.)",
             channel=channel_id, game=game_id)


def reminder_mention(user_id: int, game_id: int) -> str:
    return _("⏰ <@{user}>, game #{game} is waiting for you: press **My hand** to see what to "
             "do.", user=user_id, game=game_id)


def timeout_line(name: str, hours: float) -> str:
    return _("⏰ {name}'s {time} ran out: the bot played the least committal move for them.",
             name=safe_name(name), time=_hours(hours))


def timeout_waits(name: str, hours: float) -> str:
    """A timed-out turn the bot does not play: drawing tickets is all that is left."""
    return _("⏰ {name}'s turn ran out after {time}, but the only move left is drawing "
             "destination tickets, which the bot never does for an absent player: {name}, "
             "take your turn.", name=safe_name(name), time=_hours(hours))


def idle_abandoned(game_id: int, hours: float, names: Sequence[str]) -> str:
    return _("🛑 Game #{game} was abandoned: no player has made a move for {time} (the bot "
             "played the timed-out turns). It counts in no statistics. {names}: the channel "
             "is free for a new game.", game=game_id,
             time=_n("{n} day", "{n} days", round(hours / 24)),
             names=", ".join(safe_name(n) for n in names) or _("nobody"))


def lobby_expired(game_id: int, hours: float) -> str:
    return _("⌛ The lobby of game #{game} closed after {time} without a change. `/ttr new` "
             "opens a new one.", game=game_id, time=_hours(hours))


def kick_offer(name: str, expiries: int) -> str:
    return _("⏰ {name}'s time ran out {n} turns in a row. The other players may vote to hand "
             "the seat to a computer player (a majority of them decides).", name=safe_name(name),
             n=expiries)


def kick_counted(name: str, votes: int, needed: int) -> str:
    return _("Your vote to replace {name} is counted ({votes} of {needed} needed).",
             name=safe_name(name),
             votes=votes, needed=needed)


def kick_closed(name: str) -> str:
    return _("There is no vote on {name}'s seat now: they are back, or the bot plays it.",
             name=safe_name(name))


def kicked_line(name: str) -> str:
    return _("🤖 The table voted: a computer player takes {name}'s seat from now on.",
             name=safe_name(name))


def player_settings_text(quiet_hours: tuple[int, int] | None, timezone: str, reminders: bool,
                         dm_every_turn: bool, language: Language | None, *,
                         changed: bool) -> str:
    def on(value: bool) -> str:
        return _("on") if value else _("off")

    quiet = (_("none") if quiet_hours is None
             else f"{quiet_hours[0]:02d}:00–{quiet_hours[1]:02d}:00 ({timezone})")
    spoken = _(LANGUAGE_NAMES[language]) if language else _("my Discord's language")
    head = _("Saved. Your settings:") if changed \
        else _("Your settings (change them with the options):")
    return "\n".join([
        head, _("• Reminders: {on}", on=on(reminders)),
        _("• A DM every time it is your turn: {on}", on=on(dm_every_turn)),
        _("• Time zone: {zone}", zone=timezone),
        _("• Quiet hours (no reminders): {hours}", hours=quiet),
        _("• Language of answers and DMs: {language}", language=spoken)])


def server_settings_text(values: Sequence[tuple[str, str, object]], *, changed: str | None
                         ) -> str:
    """``values``: (name, what it means, value) per setting ``/ttr-admin config`` offers."""
    head = (_("Saved `{name}`. This server's settings:", name=changed) if changed
            else _("This server's settings (`/ttr-admin config setting value` changes one):"))
    lines = [f"• `{name}` = **{_setting_value(name, value)}** — {meaning}"
             for name, meaning, value in values]
    return "\n".join([head, *lines])


def _setting_value(name: str, value: object) -> str:
    """A setting's value as it is typed in ``/ttr-admin config`` ('true', 'all', 'off')."""
    if value is None:
        return "all" if name == "maps_offered" else "off"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if name == "chronicle_channel":
        return f"<#{value}>"
    return str(value)


CONFIG_REFUSED = N_("Only members with the Manage Server permission can change the server's "
                    "settings.")


# What pydantic found wrong with a setting's value, by its error type (fields: its context).
SETTING_PROBLEMS = {
    "literal_error": N_("use {expected}"),
    "bool_parsing": N_("use 'true' or 'false'"),
    "int_parsing": N_("give a whole number"),
    "int_from_float": N_("give a whole number"),
    "float_parsing": N_("give a number"),
    "greater_than": N_("give more than {gt}"),
    "greater_than_equal": N_("give at least {ge}"),
    "less_than": N_("give less than {lt}"),
    "less_than_equal": N_("give at most {le}"),
}


def setting_problem(exc: ValidationError) -> str:
    """The first thing pydantic found wrong with a setting, in words a member can read (in
    their language; pydantic's own message only for a case not foreseen here)."""
    errors = exc.errors()
    if not errors:
        return str(exc)
    error = errors[0]
    context = dict(error.get("ctx") or {})
    cause = context.get("error")
    if isinstance(cause, Invalid):
        return i18n.text(cause.text)
    template = SETTING_PROBLEMS.get(error["type"])
    if template is None:
        return str(error["msg"])
    if "expected" in context:  # pydantic's "'en' or 'de'"
        context["expected"] = str(context["expected"]).replace(" or ", _(" or "))
    return _(template, **context)


def setting_off_hint(problem: str) -> str:
    """A refused value of a setting that can be switched off says how."""
    return _("{problem}; 'off' turns it off", problem=problem)


def invalid_setting(name: str, problem: str) -> str:
    return _("That is not a valid value for `{name}`: {problem}.", name=name[:40],
             problem=problem[:200])


# -- seats: who plays them, leaving, replacing, ending, undo --------------------------------

# Refusals and labels by name; ``Refusal`` and the callers translate them where shown.
NOT_YOURS_NOW = N_("A computer player has your seat now: press **My hand**, then **Take my "
                   "seat back**.")
LOBBY_ONLY = N_("Computer players are added in the lobby, before the game starts.")
NOT_STARTED = N_("The game has not started yet: in a lobby use `/ttr seat resign` or `/ttr end`.")
ALREADY_OVER = N_("This game is over already.")
ALREADY_SEATED = N_("That member already has a seat in this game (or is not a member).")
WHICH_SEAT = N_("Say which seat to hand over (`seat`): the player whose place they take.")
NOTHING_TO_UNDO = N_("There is nothing to undo.")
VOTE_STALE = N_("That vote is out of date: the game has moved on.")
ONLY_COMPUTERS = N_("A game needs at least one member playing: computer players alone are "
                    "refused.")
NOT_A_PERSON = N_("Only members can take a seat, not bots.")
RESIGN_CONFIRM = N_("Leave this game for good? A computer player takes over your seat; your "
                    "routes stay on the board.")
END_CONFIRM = N_("End game #{game} for everyone? It is kept, scored as it stands, and the "
                 "channel is free.")
RESIGNED = N_("You left the game.")
ADD_COMPUTER = N_("Add a computer player (host)")
AUTOPILOT_ON = N_("Autopilot")
AUTOPILOT_OFF = N_("Take my seat back")
UNDO = N_("Undo the last action")
CHOOSE_LEVEL = N_("Choose one level from the list.")


# What only a host may do (``only_host``), and who plays a seat (``controller_label``).
HOST_DEEDS = (N_("add computer players"), N_("remove computer players"), N_("replace players"),
              N_("end the game"))
CONTROLLER_WORDS = (N_("auto"), N_("human"), N_("easy"), N_("normal"), N_("hard"))


def only_host(host: str, what: str, *, admins: bool = False) -> str:
    """``what``: one of ``HOST_DEEDS``."""
    if admins:
        return _("Only the host ({host}) or a member with Manage Server or Manage Channels can "
                 "{what}.", host=safe_name(host), what=_(what))
    return _("Only the host ({host}) can {what}.", host=safe_name(host), what=_(what))


def seat_label(seat: int, name: str, controller: Controller) -> str:
    """'2: Ana (computer: normal)' for a seat list."""
    who = "" if controller.human else f" ({controller_label(controller)})"
    return f"{seat + 1}: {name}{who}"


def controller_label(controller: Controller) -> str:
    """'computer: normal', 'auto' in the current language."""
    if controller.level is not None:
        return _("computer: {level}", level=_(controller.level))
    return _(str(controller))


def computer_level_label(level: str) -> str:
    return _("Computer player: {level}", level=_(level))


def computer_name(level: str, number: int) -> str:
    """A computer player's seat name ('Bot 2 (hard)'), kept for the whole game."""
    return _("Bot {number} ({level})", number=number, level=_(level))


def autopilot_already(on: bool) -> str:
    return (_("A computer player plays your seat already.") if on
            else _("You play your seat yourself already."))


def autopilot_line(name: str, on: bool) -> str:
    if on:
        return _("🤖 {name} handed their seat to a computer player (`/ttr seat autopilot off` or "
                 "**Take my seat back** under **My hand** ends that).", name=safe_name(name))
    return _("{name} plays their seat again.", name=safe_name(name))


def resigned_line(name: str) -> str:
    return _("🏳️ {name} resigned: a computer player takes over their seat; their routes stay.",
             name=safe_name(name))


def replaced_line(old: str, new: str) -> str:
    if old == new:  # the member who left it, seated again
        return _("🔁 {name} takes their seat back (cards and tickets came to them privately).",
                 name=safe_name(new))
    return _("🔁 {new} takes over {old}'s seat (cards and tickets came to them privately).",
             new=safe_name(new), old=safe_name(old))


def replaced_you(game_id: int, new: str) -> str:
    """To the member whose seat the host gave to someone else."""
    return _("🔁 You no longer play in game #{game}: the host or an admin gave your seat to "
             "{name}.", game=game_id, name=safe_name(new))


def kicked_you(game_id: int) -> str:
    """To the member the table voted out after their time ran out turn after turn."""
    return _("🤖 Your time ran out turn after turn in game #{game}, so the table voted: a "
             "computer player plays your seat from now on. The host can seat you again with "
             "`/ttr seat replace`.", game=game_id)


def added_computer_line(name: str) -> str:
    return _("🤖 {name} takes a seat.", name=name)


def ended_text(game_id: int, status: str, by: str | None, reason: str = "") -> str:
    if status == "cancelled":
        if by:
            return _("Game #{game} was closed by {name}: the channel is free.", game=game_id,
                     name=by)
        return _("Game #{game} was closed: the channel is free.", game=game_id)
    if status == "abandoned":
        if reason == "vote":
            return _("🛑 Game #{game} was abandoned by a vote. The channel is free for a new "
                     "game.", game=game_id)
        if reason.endswith("no member left"):
            return _("🛑 Game #{game} was abandoned: no member is left playing it. The "
                     "channel is free for a new game.", game=game_id)
        return _("🛑 Game #{game} was abandoned. The channel is free for a new game.",
                 game=game_id)
    if by:
        return _("🛑 Game #{game} was ended by {name}. The channel is free for a new game.",
                 game=game_id, name=by)
    return _("🛑 Game #{game} was ended. The channel is free for a new game.", game=game_id)


def standings_text(view: PublicView) -> str:
    """The public scores when a game ended early: it has no winner, and the tickets stay
    secret."""
    lines = [_("📋 **Scores as they stood** (routes only; a game ended early has no "
               "winner)")]
    lines += [f"• {safe_name(p.name)}: " + _n("{n} point", "{n} points", p.score)
              for p in sorted(view.players, key=lambda p: (-p.score, p.seat))]
    return "\n".join(lines)


def vote_text(kind: str, names: Sequence[str], needed: int, what: str = "", *,
              passed: bool = False) -> str:
    """'Ana and Ben vote to abandon game #3 (2 of 3 needed): press Agree.'"""
    aim = _("abandon the game") if kind == "abandon" else _(
        "undo {what}", what=what or _("the last action"))
    if passed:
        return _("🗳️ {names} voted to {aim}: agreed.", names=", ".join(map(safe_name, names)),
                 aim=aim)
    return _n("🗳️ {names} votes to {aim} ({n} of {needed} needed). Players: press **Agree** "
              "to agree.",
              "🗳️ {names} vote to {aim} ({n} of {needed} needed). Players: press **Agree** to "
              "agree.", len(names), names=", ".join(map(safe_name, names)), aim=aim,
              needed=needed)


class OpenVote(BaseModel):
    """A vote's messages (``where``: channel, message) and what they say once it is decided,
    in the game's language: 'passed'; 'stale' (the game moved on, the absent player is
    back); 'over' (the game ended otherwise). ``subject``: the undone version, the seat."""

    kind: Literal["abandon", "undo", "kick"]
    subject: int
    where: list[tuple[int, int]] = []
    closed: dict[str, str]


def open_vote(kind: Literal["abandon", "undo", "kick"], subject: int, game_id: int,
              what: str) -> OpenVote:
    """``what``: the undo's subject, the kicked player's name (unused for abandon)."""
    over = _("🗳️ This vote is closed: the game is over.")
    if kind == "abandon":
        closed = {"passed": _("🗳️ The players voted to abandon game #{game}: it ended.",
                              game=game_id)}
    elif kind == "undo":
        closed = {"passed": "🗳️ " + undone_text(what),
                  "stale": _("🗳️ The vote to undo {what} is closed: the game moved on.",
                             what=what)}
    else:
        closed = {"stale": "🗳️ " + kick_closed(what)}
    return OpenVote(kind=kind, subject=subject, closed={"over": over, **closed})


def undo_confirm(subject: str) -> str:
    """Before a member asks the table to undo something they cannot undo alone."""
    return _("↩️ You cannot take back {what} alone: it was another player's move, or it "
             "showed something new (a card, a ticket). Ask the table? Everyone sees the "
             "vote, and a majority of the players undoes it.", what=subject)


UNDO_HELP = N_("↩️ **Undo the last action** takes back your own last move at once while it "
               "showed nothing new; anything else needs a majority vote of the players.")


def undo_subject(map_id: str, name: str, action: Action) -> str:
    return _("{name}'s last move ({action})", name=safe_name(name),
             action=action_label(map_id, action))


def undone_text(subject: str) -> str:
    return _("Undone: {what}.", what=subject)


def seat_taken_text(where: str) -> str:
    return _("You play in {where} now; it is not your turn yet. Your cards and tickets:",
             where=where)


def replaced_ack(name: str, seat: int) -> str:
    return _("Done: {name} plays seat {seat} now.", name=safe_name(name), seat=seat + 1)


def undone_line(map_id: str, name: str, action: Action) -> str:
    return _("↩️ {name}'s last move ({action}) was undone.", name=safe_name(name),
             action=action_label(map_id, action))


def action_label(map_id: str, action: Action) -> str:
    """A short public name for an action ('claim Paris–Wien (3, green)')."""
    route_id = getattr(action, "route", None)
    if isinstance(route_id, int):
        return _("claiming {route}", route=route_label(map_id, route_id))
    city = getattr(action, "city", None)
    kind = _(ACTION_NAMES.get(action.type, action.type.replace("_", " ")))
    if isinstance(city, str):
        return _("{action} in {city}", action=kind, city=city_name(map_id, city))
    return kind


# Actions by type, as ``action_label`` names them.
ACTION_NAMES = {
    "draw_face_up": N_("taking a face-up card"), "draw_blind": N_("drawing from the deck"),
    "draw_tickets": N_("drawing destination tickets"),
    "keep_tickets": N_("keeping destination tickets"),
    "pay_tunnel": N_("paying for a tunnel"), "decline_tunnel": N_("giving up a tunnel"),
    "build_station": N_("building a station"), "build_harbor": N_("building a harbor"),
    "take_share": N_("taking a share"), "decline_share": N_("taking no share"),
    "give_neutral_share": N_("giving the neutral investor a share"),
    "draft_pick": N_("picking a draft ticket"), "take_festival": N_("taking festival cards"),
    "choose_pieces": N_("choosing pieces"), "exchange_pieces": N_("exchanging pieces"),
}


def upper_first(text: str) -> str:
    """'Keep exactly 2' from 'keep exactly 2' (``str.capitalize`` would lower German nouns)."""
    return text[:1].upper() + text[1:]


def echo(text: str, limit: int = 60) -> str:
    """User input quoted in a refusal, clipped so the reply always fits."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def tunnel_prompt(map_id: str, tunnel: PendingTunnel, private: PrivateView, left: dict[str, int],
                  payable: bool) -> str:
    """The tunnel's player's prompt (private): the reveal, what it costs, and the hand that
    is left after the cards already paid into the tunnel."""
    colour = card_label(map_id, tunnel.color, tunnel.extra)
    revealed = ", ".join(card_label(map_id, c) for c in tunnel.revealed) or _("nothing")
    route = route_label(map_id, tunnel.route)
    if tunnel.color != "locomotive":
        head = _("Tunnel {route}: revealed {revealed}. It needs {n} more {colour} or {wild}.",
                 route=route, revealed=revealed, n=tunnel.extra, colour=colour,
                 wild=card_label(map_id, "locomotive", 2))
    else:
        head = _("Tunnel {route}: revealed {revealed}. It needs {n} more {colour}.",
                 route=route, revealed=revealed, n=tunnel.extra, colour=colour)
    ask = _(" Pay or decline.") if payable else _(" You cannot pay that: decline.")
    hand = hand_text(map_id, private.model_copy(update={"hand": left}))
    return f"{head}{ask}\n" + hand.replace(_("**Your hand:** {cards}", cards=""),
                                            _("**Left in your hand:** {cards}", cards=""), 1)
