"""Buttons and selects: persistent ``custom_id``s and the views that carry them.

Every control's custom_id is ``ttr:<game>:<action>[:<arg>]`` (``ControlId``). The views
here are for sending only; the clicks are taken by the control families of
``bot.edge.controls`` (one ``DynamicItem`` per family, in its feature package), so they
keep working after a restart with nothing to re-register per message. Draw, tunnel and
choice buttons carry the state version they were drawn for: a click on an older board (a
double click) is refused.

A map module's decision (Pennsylvania: which company's share to take, Iberia's
draft picks) needs no control of its own: its options are ``engine.legal_actions``
in that phase, and button ``pick:<i>.<tag>`` chooses the i-th of them, labelled
by ``presenters.CHOICES``; ``tag`` fingerprints the options (``service.choice_tag``).

Rails & Sails: ``shipdeck:<version>`` draws from the ship deck, and a face-up
card asks which deck refills its slot: ``up:<slot>.<version>`` answers with
``upt``/``ups:<slot>.<version>`` (refill from the train or ship deck).

Building by clicks (``bot.play.claiming``), for each kind ``claim``, ``station``, ``harbor``:
the board's ``<kind>`` button opens a private select ``<kind>to:<version>`` of what the
player can build now (its pages: buttons ``<kind>pg:<page>.<version>``); when more than
one colour can pay, a second select ``<kind>pay:<target>.<version>`` (target: the route
id, or the city's index on the map) names the payments.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.i18n import _
from bot.play import claiming, presenters
from bot.play.decisions import choice_tag
from bot.seats import seat_texts
from engine.actions import Action
from engine.phases import Decision, Phase
from engine.players import LEVELS
from engine.views import PrivateView, PublicView

# A control as the bot sends it; a control family (``bot.edge.controls``) takes its clicks.
Item = discord.ui.Item[Any]
# Discord shows at most 25 buttons on a message (5 rows of 5).
MAX_CHOICES = 25


@dataclass(frozen=True, slots=True)
class ControlId:
    game: int
    action: str
    version: int | None = None
    slot: int | None = None
    number: int | None = None  # a page or turn to show (bot.records)

    def __str__(self) -> str:
        arg = ""
        if self.number is not None:
            arg = f":{self.number}"
        elif self.slot is not None:
            arg = f":{self.slot}.{self.version}"
        elif self.version is not None:
            arg = f":{self.version}"
        return f"ttr:{self.game}:{self.action}{arg}"


class SentButton(discord.ui.Item[Any]):
    """A button as the bot sends it: ``discord.ui.Button``'s payload, built without its
    component objects (a board has up to 12 buttons, drawn anew at each step; a control
    family, ``bot.edge.controls``, answers every click, whatever sent the button)."""

    def __init__(self, *, custom_id: str, label: str, style: discord.ButtonStyle,
                 disabled: bool, emoji: str | None, row: int | None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.custom_id = custom_id
        self.label = label
        self.style = style
        self.disabled = disabled
        self.emoji = emoji
        self.row = row

    @property
    def type(self) -> discord.ComponentType:
        return discord.ComponentType.button

    def is_dispatchable(self) -> bool:
        return True

    def to_component_dict(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"type": 2, "style": self.style.value,
                                   "disabled": self.disabled}
        if self.label:
            payload["label"] = self.label
        payload["custom_id"] = self.custom_id
        if self.emoji:
            payload["emoji"] = dict(_emoji(self.emoji))
        return payload


@functools.cache
def _emoji(text: str) -> dict[str, Any]:
    """An emoji's payload, as ``discord.ui.Button`` sends it (a handful of distinct ones)."""
    return dict(discord.PartialEmoji.from_str(text).to_dict())


def _button(control: ControlId, label: str, *, style: discord.ButtonStyle,
            disabled: bool = False, emoji: str | None = None, row: int | None = None) -> Item:
    return SentButton(custom_id=str(control), label=label, style=style, disabled=disabled,
                      emoji=emoji, row=row)


def _frozen(*items: discord.ui.Item[Any]) -> discord.ui.View | None:
    """A view for sending only: the control families handle every click, so discord.py
    need not track this view (stopped views are not stored and never time out)."""
    if not items:
        return None
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    view.stop()
    return view


def lobby_view(game_id: int, *, full: bool = False,
               computers: Sequence[tuple[int, str]] = ()) -> discord.ui.View | None:
    """Join (not when ``full``), Leave, Start; the host's computer players: add one of a
    level, or remove one of ``computers`` (seat, name)."""
    items = [
        _button(ControlId(game_id, "join"), _("Join"), style=discord.ButtonStyle.success,
                disabled=full),
        _button(ControlId(game_id, "leave"), _("Leave"), style=discord.ButtonStyle.secondary),
        _button(ControlId(game_id, "start"), _("Start"), style=discord.ButtonStyle.primary),
    ]
    if not full:
        items.append(computer_select(game_id))
    if computers:
        items.append(discord.ui.Select(
            custom_id=str(ControlId(game_id, "rmbot")), row=2,
            placeholder=_("Remove a computer player (host)"), options=[
                discord.SelectOption(label=name[:100], value=str(seat))
                for seat, name in computers[:25]]))
    return _frozen(*items)


def computer_select(game_id: int) -> Item:
    """The host seats a computer player of the level chosen (``addbot``)."""
    return discord.ui.Select(
        custom_id=str(ControlId(game_id, "addbot")), row=1,
        placeholder=_(seat_texts.ADD_COMPUTER), options=[
            discord.SelectOption(label=seat_texts.computer_level_label(level), value=level)
            for level in LEVELS])


def seat_buttons(game_id: int, version: int, *, autopilot: bool) -> list[Item]:
    """A seated member's own controls under their hand: undo the last action (alone, or by
    asking the table), and hand the seat to a computer player or take it back."""
    grey = discord.ButtonStyle.secondary
    pilot = (_button(ControlId(game_id, "pilotoff"), _(seat_texts.AUTOPILOT_OFF), style=grey,
                     emoji="🙋", row=4) if autopilot else
             _button(ControlId(game_id, "piloton"), _(seat_texts.AUTOPILOT_ON), style=grey,
                     emoji="🤖", row=4))
    return [_button(ControlId(game_id, "undo", version), _(seat_texts.UNDO), style=grey,
                    emoji="↩️", row=4), pilot]


def with_row(view: discord.ui.View | None, items: Sequence[Item]) -> discord.ui.View | None:
    """``view`` with ``items`` added in its last row, if that row is free."""
    if view is None:
        return _frozen(*items)
    try:
        for item in items:
            view.add_item(item)
    except ValueError:  # 25 choice buttons fill every row: the decision comes first
        for item in items:
            if item in view.children:
                view.remove_item(item)
    return view


def hand_button(game_id: int, row: int | None = None) -> Item:
    return _button(ControlId(game_id, "hand"), _("My hand"), style=discord.ButtonStyle.secondary,
                   emoji="🃏", row=row)


def build_buttons(game_id: int, map_id: str, row: int | None = None) -> list[Item]:
    """**Claim a route**, and **Build a station** or **Build a harbor** where the map has
    them: each opens a private list of what the player can pay for now."""
    return [_button(ControlId(game_id, kind), _(presenters.BUILD_BUTTONS[kind]),
                    style=discord.ButtonStyle.success, emoji=presenters.BUILD_EMOJI[kind],
                    row=row) for kind in presenters.build_kinds(map_id)]


def picker_view(game_id: int, map_id: str, kind: str, version: int,
                found: Sequence[claiming.Target], page: int) -> discord.ui.View | None:
    """A private select of one page of ``found``, with buttons to the pages around it."""
    options = [discord.SelectOption(label=t.label[:100], value=t.key,
                                    description=claiming.option_text(map_id, t)[:100])
               for t in claiming.page_of(found, page)]
    items: list[Item] = [discord.ui.Select(
        custom_id=str(ControlId(game_id, f"{kind}to", version)), options=options, row=0,
        placeholder=_(presenters.PICKER_PLACEHOLDERS[kind])[:150])]
    grey = discord.ButtonStyle.secondary
    if page > 0:
        items.append(_button(ControlId(game_id, f"{kind}pg", version, page - 1),
                             _("Page {n}", n=page), style=grey, emoji="◀", row=1))
    if page + 1 < claiming.pages(found):
        items.append(_button(ControlId(game_id, f"{kind}pg", version, page + 1),
                             _("Page {n}", n=page + 2), style=grey, emoji="▶", row=1))
    return _frozen(*items)


def payment_view(game_id: int, map_id: str, kind: str, version: int,
                 target: claiming.Target) -> discord.ui.View | None:
    """A private select of the ways to pay for ``target`` (one per colour)."""
    options = [discord.SelectOption(label=claiming.payment_label(map_id, a)[:100],
                                    value=claiming.payment_value(getattr(a, "cards", {})),
                                    emoji=presenters.card_emoji(
                                        claiming.claim_colour(getattr(a, "cards", {}))))
               for a in target.payments[:claiming.PAGE]]
    return _frozen(discord.ui.Select(
        custom_id=str(ControlId(game_id, f"{kind}pay", version, target.number)),
        options=options, placeholder=_("Choose how to pay")))


def market_rows(view: PublicView) -> int:
    """Rows the market buttons take: one, or two for Rails & Sails' 3 + 3 cards."""
    return 1 if len(view.market) <= 5 else 2


def draw_buttons(game_id: int, view: PublicView, version: int, *, second: bool) -> list[Item]:
    """One button per market slot, then the deck(s) (and the tickets on a fresh turn)."""
    out = []
    per_row = -(-len(view.market) // market_rows(view))
    for slot, card in enumerate(view.market):  # the engine says which may be taken now
        name = presenters.card_label(view.map_id, card) if card else _("empty")
        out.append(_button(
            ControlId(game_id, "up", version, slot), f"{slot + 1}: {name}",
            style=discord.ButtonStyle.primary, emoji=presenters.card_emoji(card),
            disabled=slot not in view.takeable_slots, row=slot // per_row))
    row = market_rows(view)
    if presenters.two_decks(view.map_id):
        out.append(_button(ControlId(game_id, "blind", version), _("Train deck"),
                           style=discord.ButtonStyle.primary, emoji="🚂",
                           disabled=view.deck + view.discards == 0, row=row))
        out.append(_button(ControlId(game_id, "shipdeck", version), _("Ship deck"),
                           style=discord.ButtonStyle.primary, emoji="🚢",
                           disabled=view.ship_deck + view.ship_discards == 0, row=row))
    else:
        out.append(_button(ControlId(game_id, "blind", version), _("Draw from deck"),
                           style=discord.ButtonStyle.primary,
                           disabled=view.deck + view.discards == 0, row=row))
    if not second:
        out.append(_button(ControlId(game_id, "tickets", version), _("Draw tickets"),
                           style=discord.ButtonStyle.secondary, disabled=not view.can_draw_tickets,
                           row=row))
    return out


def refill_buttons(game_id: int, view: PublicView, version: int, slot: int) -> list[Item]:
    """Rails & Sails: the second step of taking face-up card ``slot``: which deck refills it."""
    return [
        _button(ControlId(game_id, "upt", version, slot), _("Train deck ({n} left)", n=view.deck),
                style=discord.ButtonStyle.primary, emoji="🚂",
                disabled=view.deck + view.discards == 0),
        _button(ControlId(game_id, "ups", version, slot),
                _("Ship deck ({n} left)", n=view.ship_deck),
                style=discord.ButtonStyle.primary, emoji="🚢",
                disabled=view.ship_deck + view.ship_discards == 0),
    ]


def tunnel_buttons(game_id: int, version: int, *, payable: bool = True) -> list[Item]:
    # On the board Pay is always enabled: disabling it would tell everyone the hand cannot
    # pay. Only the tunnel's player's private controls say so (``payable``).
    return [
        _button(ControlId(game_id, "pay", version), _("Pay the extra cards"),
                style=discord.ButtonStyle.success, disabled=not payable, row=1),
        _button(ControlId(game_id, "decline", version), _("Decline"),
                style=discord.ButtonStyle.danger, row=1),
    ]


def choice_buttons(game_id: int, map_id: str, tag: int, choices: Sequence[Action]
                   ) -> list[Item]:
    """One button per option of a module decision, in the engine's order."""
    return [
        _button(ControlId(game_id, "pick", tag, i), presenters.choice_label(map_id, a),
                style=discord.ButtonStyle.primary if i else discord.ButtonStyle.success,
                row=i // 5)
        for i, a in enumerate(choices[:MAX_CHOICES])
    ]


def board_view(game_id: int, view: PublicView, version: int) -> discord.ui.View | None:
    """The controls under a board post, from public facts only."""
    if view.phase == Phase.GAME_OVER:
        return None
    if view.phase.decision in (Decision.TICKETS, Decision.CHOICE):
        # The options of a decision (and a ticket offer) go to the chooser privately (DM,
        # "My hand"): no draw button invites a click that can only be refused.
        return _frozen(hand_button(game_id))
    if view.tunnel is not None:
        return _frozen(*tunnel_buttons(game_id, version), hand_button(game_id, row=1))
    second = view.phase == Phase.SECOND_DRAW
    # Building is a turn's whole action: its buttons (with My hand) get a row of their own.
    row = market_rows(view) + 1
    builds = [] if second else build_buttons(game_id, view.map_id, row=row)
    return _frozen(*draw_buttons(game_id, view, version, second=second), *builds,
                   hand_button(game_id, row=row))


def keep_select(game_id: int, map_id: str, private: PrivateView) -> Item:
    options = [
        discord.SelectOption(
            label=presenters.ticket_pair(map_id, t.cities)[:90],
            description=presenters.ticket_value(map_id, t)[:100],
            value=str(t.id))
        for t in private.offered[:25]
    ]
    most = len(options) if private.keep_max is None else min(private.keep_max, len(options))
    return discord.ui.Select(
        custom_id=str(ControlId(game_id, "keep")), options=options,
        placeholder=presenters.upper_first(_("{rule} ticket(s)",
                                             rule=presenters.keep_rule(private))),
        min_values=max(1, min(private.keep_min, most)), max_values=max(1, most))


def private_view_controls(
    game_id: int, map_id: str, private: PrivateView, public: PublicView, version: int,
    choices: Sequence[Action] = (), *, tunnel_payable: bool = True,
) -> discord.ui.View | None:
    """Controls for one player's private message: what they must decide now
    (``choices``: the options of a module decision, from ``service.decisions``)."""
    if private.offered:
        return _frozen(keep_select(game_id, map_id, private))
    if choices:
        tag = choice_tag(private.seat, public.phase, choices)
        return _frozen(*choice_buttons(game_id, map_id, tag, choices))
    if public.tunnel is not None and public.tunnel.seat == private.seat:
        return _frozen(*tunnel_buttons(game_id, version, payable=tunnel_payable))
    if public.phase == Phase.SECOND_DRAW and public.current == private.seat:
        return _frozen(*draw_buttons(game_id, public, version, second=True))
    return None


def with_controls(controls: Sequence[Item]) -> discord.ui.View | None:
    return _frozen(*controls)


def history_view(game_id: int, page: int, pages: int) -> discord.ui.View | None:
    """Paging under a history page (1-based): first, previous, where, next, latest.
    Each button names its page, so no two share a custom_id and a restart changes nothing."""
    grey = discord.ButtonStyle.secondary
    return _frozen(
        _button(ControlId(game_id, "hfirst"), _("First"), style=grey, emoji="⏮",
                disabled=page <= 1),
        _button(ControlId(game_id, "hpage", number=page - 1), _("Back"), style=grey, emoji="◀",
                disabled=page <= 1),
        _button(ControlId(game_id, "hpage", number=page), f"{page} / {pages}", style=grey,
                disabled=True),
        _button(ControlId(game_id, "hpage", number=page + 1), _("Next"), style=grey, emoji="▶",
                disabled=page >= pages),
        _button(ControlId(game_id, "hlast"), _("Latest"), style=grey, emoji="⏭"),
    )


def replay_view(game_id: int, turn: int, last: int) -> discord.ui.View | None:
    """The turns before and after a replayed board."""
    grey = discord.ButtonStyle.secondary
    return _frozen(
        _button(ControlId(game_id, "rturn", number=turn - 1), _("Turn {n}", n=turn - 1), style=grey,
                emoji="◀", disabled=turn <= 1),
        _button(ControlId(game_id, "rturn", number=turn + 1), _("Turn {n}", n=turn + 1), style=grey,
                emoji="▶", disabled=turn >= last),
    )


def kick_view(game_id: int, seat: int) -> discord.ui.View | None:
    """Under a notice that a seat's timer kept running out: the others' vote."""
    return _frozen(_button(ControlId(game_id, "kick", number=seat),
                           _("Vote: a computer takes this seat"), style=discord.ButtonStyle.danger))


def confirm_view(game_id: int, action: str, label: str, version: int | None = None
                 ) -> discord.ui.View | None:
    """One button that confirms a grave step (``endok``, ``resign``, ``undovote`` of one
    version): re-checked on click."""
    return _frozen(_button(ControlId(game_id, action, version), label,
                           style=discord.ButtonStyle.danger))


def vote_view(game_id: int, action: str, version: int | None = None) -> discord.ui.View | None:
    """The Agree button of a vote (``abandon``; ``undo`` of one version)."""
    return _frozen(_button(ControlId(game_id, action, version), _("Agree"),
                           style=discord.ButtonStyle.primary, emoji="🗳️"))
