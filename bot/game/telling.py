"""Who is told what after a change, and the texts they get.

Two pure decisions, testable without storage or Discord: ``after_action`` (does the
channel hear of an action now, whose reminders go on, who has a new decision) and
``audience`` (who gets a DM, whose private thread is refreshed, who is mentioned for want
of DMs, whose standing order speaks for them). The facts they decide from are read under
the game's lock (``bot.game.posting``); ``compose`` builds the texts from a ``Scene``
after the lock is released: nothing in a scene changes any more (a cached state is never
changed in place).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import engine
from bot import i18n
from bot.play import presenters
from bot.play.decisions import draft_round
from bot.render.highlight import LastMove
from bot.seats import away, seat_texts
from bot.storage.api import SeatRow
from engine import Action, GameState, PrivateView, PublicView, TicketPlan
from engine.events import Event, HarborBuilt, RouteClaimed, StationBuilt, TicketDraftStarted
from engine.phases import Phase

# Phases in which the player whose turn it is still owes the rest of that turn.
MID_TURN = (Phase.SECOND_DRAW, Phase.CHOOSE_TICKETS)


@dataclass(frozen=True)
class DirectMessage:
    """A private note to one player: their hand, tickets and what they must decide."""

    game_id: int
    map_id: str
    version: int
    user_id: int
    seat: int
    text: str
    private: PrivateView
    public: PublicView
    choose_tickets: bool  # attach the keep-tickets select
    choices: tuple[Action, ...] = ()  # a module decision's options, as buttons
    news: str = ""  # see ``Update.news``
    language: i18n.Language = i18n.DEFAULT  # of ``text`` and the controls: the player's
    away: bool = False  # its player is away (``/ttr away``): the DM offers "I'm back"
    # The planner's answer its text shows, for its hand's picture (worked out once; None:
    # the renderer works it out).
    plans: tuple[TicketPlan, ...] | None = None


@dataclass(frozen=True)
class Update:
    """What to show in a game's channel (and by DM) after a change. Public except ``dms``
    and ``threads``."""

    game_id: int
    channel_id: int
    version: int
    lines: list[str]
    view: PublicView
    mentions: list[str]  # '<@id>' per seat
    dms: list[DirectMessage]
    dm_closed: list[int]  # user ids known to refuse DMs who must act now
    waiting: tuple[int, ...] = ()  # seats that must act now (several in a simultaneous phase)
    fresh: tuple[int, ...] = ()  # seats whose decision is new (they are mentioned)
    draft: presenters.DraftRound | None = None
    board: bool = True  # the board changed (claims, stations, harbors): a new image is due
    guild_id: int | None = None
    last: LastMove | None = None  # what the last turn built, highlighted on the image
    # Only the table message's status and buttons change (a step in the middle of a turn):
    # nothing is posted, and the events wait for the turn's end.
    refresh: bool = False
    repost: bool = False  # post the table message again at the bottom (``/ttr board``)
    # Private: hands to bring up to date in the players' private threads (a server setting).
    threads: list[DirectMessage] = field(default_factory=list)
    # An undo's update: the version the game was at when the undo was decided (an undo
    # vote's subject), so that vote's messages say it passed.
    undo_at: int | None = None
    # News that comes without a new version (a seat changing hands): its own key
    # for the idempotent posts, so it is told although the version was told already.
    news: str = ""
    language: i18n.Language = i18n.DEFAULT  # of the channel posts: the game's (``lines`` too)
    away: tuple[str, ...] = ()  # a line per seat whose player is away (``bot.seats.away``)

    @property
    def finished(self) -> bool:
        return self.view.phase == Phase.GAME_OVER

    def prompt(self, dm_closed: Sequence[int] = ()) -> str:
        """The channel's prompt; ``dm_closed``: who to tell that they get no DMs."""
        closed = [f"<@{u}>" for u in dm_closed]
        return "\n".join([presenters.prompt_text(
            self.view, self.mentions, closed, waiting=self.waiting, fresh=self.fresh,
            draft=self.draft), *self.away])


# -- the decisions --------------------------------------------------------------------------


@dataclass(frozen=True)
class AfterAction:
    """What follows an accepted action: ``publish``, whether the channel hears of it now
    (else only the table's buttons follow, and the events wait for the turn's end);
    ``carry``, seats still deciding what they decided before, whose reminders and timer
    go on; ``fresh``, seats with a new decision (mentioned, told by DM); ``hands``, seats
    whose private thread is brought up to date."""

    publish: bool
    carry: tuple[int, ...]
    fresh: tuple[int, ...]
    hands: tuple[int, ...]


def after_action(seat: int, *, phase_before: Phase, phase: Phase, current: int,
                 waiting_before: Sequence[int], waiting_after: Sequence[int],
                 decision: bool, new_offer: bool, answered_in_dm: bool = False) -> AfterAction:
    """Decide what follows ``seat``'s action. ``decision``: a module's decision of the
    actor is open now (it has options); ``new_offer``: tickets are offered to the actor
    that were not before; ``answered_in_dm``: the actor acted in their DM, whose answer
    shows their next decision."""
    # Mid-turn (second card, ticket choice, the next step of a module decision of the actor
    # alone) only the actor hears back; a tunnel reveal, a new module decision, each pick
    # of a simultaneous decision and everything that ends a turn is published.
    still_deciding = decision and phase_before.map_decision and list(waiting_after) == [seat]
    publish = not ((phase in MID_TURN and current == seat) or still_deciding)
    carry = [s for s in waiting_after if s in waiting_before and s != seat]
    if not publish:
        if seat in waiting_after:
            carry.append(seat)
        return AfterAction(False, tuple(carry), (), (seat,))
    fresh = [s for s in waiting_after if s not in waiting_before and s != seat]
    if not answered_in_dm and (decision or (new_offer and phase != Phase.CHOOSE_TICKETS)):
        # The actor's new decision (a module's, or the drafted tickets to keep) also goes
        # by DM, with its controls (unless the answer is in the DM: Rails & Sails asked
        # for the pieces twice there).
        fresh.append(seat)
    return AfterAction(True, tuple(carry), tuple(fresh), (seat, *fresh))


@dataclass(frozen=True)
class SeatFacts:
    """What decides whether one seat is told privately, read under the game's lock."""

    seat: int
    user_id: int
    human: bool  # a member plays it (not a computer, nor the safe automatic move)
    ready: bool = False  # its standing order plays now: no ping, no DM
    refused: bool = False  # its member refused a DM lately: mentioned in the channel instead
    decision: bool = False  # tickets offered, or a module's decision with options
    every_turn: bool = False  # its member asked for a DM every turn (/ttr settings)
    language: i18n.Language | None = None  # its member's own choice, if any


@dataclass(frozen=True)
class Audience:
    """Who is told what privately: ``dms`` and ``threads`` are seats, ``closed`` user ids
    mentioned in the channel for want of DMs, ``quiet`` seats named without a ping."""

    dms: tuple[int, ...]
    threads: tuple[int, ...]
    closed: tuple[int, ...]
    quiet: frozenset[int]


def audience(facts: Sequence[SeatFacts], *, told: Sequence[int], hands: Sequence[int],
             threads_on: bool) -> Audience:
    """Decide who hears privately of a change: the seats in ``told`` (whose decision is
    new) by DM, the seats in ``hands`` in their private thread when the server keeps one
    per player (``threads_on``)."""
    dms, closed = [], []
    for seat in told:
        f = facts[seat]
        if not f.human or f.ready:
            continue  # a computer plays this seat, or its order: nobody to tell
        if f.refused:
            closed.append(f.user_id)
        elif f.decision or (f.every_turn and not threads_on):
            # Else a plain turn, and they asked for no DM each turn, or their private
            # thread shows the hand.
            dms.append(seat)
    threads = sorted({s for s in hands if facts[s].human}) if threads_on else []
    return Audience(tuple(dms), tuple(threads), tuple(closed),
                    frozenset(f.seat for f in facts if f.ready))


# -- the texts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scene:
    """A game at one version, everything an update's texts are built from."""

    game_id: int
    channel_id: int
    guild_id: int | None
    map_id: str
    seats: tuple[SeatRow, ...]
    state: GameState  # never changed in place once stored
    view: PublicView  # the public view with the seats' names as they are now
    privates: Mapping[int, PrivateView]  # of the seats told privately
    choices: Mapping[int, tuple[Action, ...]]
    language: i18n.Language  # the game's
    away: Mapping[int, away.Absence] = field(default_factory=dict)  # seats whose player is away

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]


def compose(scene: Scene, facts: Sequence[SeatFacts], told: Audience, *,
            lines: Callable[[], list[str]], fresh: Sequence[int], events: Sequence[Event] = (),
            board: bool = False, refresh: bool = False, news: str = "", repost: bool = False,
            undo_at: int | None = None) -> Update:
    """The update ``told`` decided, its texts built (in the game's language, a DM in its
    player's): ``lines`` gives the channel's lines; ``events`` (public) say whether the
    board changed and what to highlight on it."""
    state, view = scene.state, scene.view
    draft = draft_round(state)
    waiting = engine.waiting_for(state)
    with i18n.language(scene.language):
        said = lines()
        absent = away.table_lines(scene.seats, scene.away)

    def note(seat: int, *, thread: bool) -> DirectMessage:
        private = scene.privates[seat]
        plans = presenters.ticket_plans(view, private)
        with i18n.language(facts[seat].language or scene.language) as own:
            if not thread or seat in waiting:
                text = dm_text(scene, private, draft, acting=thread or seat in waiting,
                               plans=plans)
            else:
                text = (i18n._("Game #{game} — {hand}", game=scene.game_id,
                               hand=presenters.hand_text(view.map_id, private))
                        + plan_lines(view, private, plans))
        return DirectMessage(
            game_id=scene.game_id, map_id=scene.map_id, version=state.version,
            user_id=scene.seats[seat].user_id, seat=seat, private=private, public=view,
            choose_tickets=bool(private.offered), choices=scene.choices[seat],
            news="" if thread else news, text=text, language=own, away=seat in scene.away,
            plans=plans)

    last = last_move(scene.map_id, scene.names, events)
    return Update(
        game_id=scene.game_id, channel_id=scene.channel_id, version=state.version,
        lines=said, view=view,
        threads=[note(seat, thread=True) for seat in told.threads],
        mentions=[presenters.safe_name(s.name) if s.seat in told.quiet
                  else presenters.seat_mention(s.user_id, s.name, s.human)
                  for s in scene.seats],
        dms=[note(seat, thread=False) for seat in told.dms], dm_closed=list(told.closed),
        waiting=tuple(waiting), fresh=tuple(fresh), draft=draft, guild_id=scene.guild_id,
        board=(board or last is not None) and view.phase != Phase.GAME_OVER,
        last=last, refresh=refresh, repost=repost, undo_at=undo_at, news=news,
        language=scene.language, away=absent if view.phase != Phase.GAME_OVER else ())


def dm_text(scene: Scene, private: PrivateView, draft: presenters.DraftRound | None = None,
            *, acting: bool = True, plans: Sequence[TicketPlan] | None = None) -> str:
    """A seat's private note: what it must do now, where, and its hand (``plans``: the
    planner's answer for it, if known)."""
    view = scene.view
    where = i18n._("<#{channel}> (game #{game})", channel=scene.channel_id, game=scene.game_id)
    if not acting:  # a seat just taken over, say
        head = seat_texts.seat_taken_text(where)
    elif private.offered:
        head = i18n._("Choose your destination tickets in {where}: {rule}.", where=where,
                      rule=presenters.keep_rule(private))
    elif view.phase.map_decision:
        head = i18n._("In {where}: {what}.", where=where,
                      what=presenters.decision_text(view, private, draft))
    else:
        head = i18n._("Your turn in {where}: {what}.", where=where,
                      what=presenters.turn_help(view.map_id, view.phase))
        if view.phase == Phase.TURN:
            head += "\n" + presenters.turn_controls(view.map_id)
    return (f"{head}\n{presenters.hand_text(view.map_id, private)}"
            f"{plan_lines(view, private, plans)}")


def plan_lines(view: PublicView, private: PrivateView,
               plans: Sequence[TicketPlan] | None = None) -> str:
    """The planner's text under a hand (private messages only), or nothing."""
    if plans is None:
        plans = presenters.ticket_plans(view, private)
    text = presenters.planner_text(view.map_id, plans)
    return f"\n{text}" if text else ""


def opening_lines(map_id: str, names: Sequence[str], state: GameState) -> list[str]:
    """What the channel hears as a game begins (``state``: the new game)."""
    order = ", ".join(f"{i + 1}. {presenters.safe_name(name)}" for i, name in enumerate(names))
    lines = [i18n._("🚂 **{map}** begins! Seat order: {order}.", map=presenters.map_name(map_id),
                    order=order)]
    if state.phase == Phase.DRAFT:  # the first draft is dealt at setup, without an event
        lines += presenters.event_lines(map_id, names, [TicketDraftStarted(
            state.current, False, len(engine.private_view(state, 0).draft_packet))])
    return lines


def last_move(map_id: str, names: Sequence[str], events: Sequence[Event]) -> LastMove | None:
    """What the last of these (public) events built, or None if nothing on the board
    changed: the routes claimed and the cities built in by the last player who built."""
    built = [e for e in events if isinstance(e, RouteClaimed | StationBuilt | HarborBuilt)]
    if not built:
        return None
    seat = built[-1].seat
    mine = [e for e in built if e.seat == seat]
    routes = tuple(e.route for e in mine if isinstance(e, RouteClaimed))
    cities = tuple(e.city for e in mine if isinstance(e, StationBuilt | HarborBuilt))
    what = ([presenters.route_ends(map_id, r) for r in routes]
            + [presenters.city_name(map_id, c) for c in cities])
    who = names[seat] if 0 <= seat < len(names) else "?"
    return LastMove(seat=seat, routes=routes, cities=cities,
                    caption=f"{who}: {', '.join(what)}")

