"""The game service: a game's lobby, its actions, the computer's and the timer's turns.
No Discord types here.

It is built in layers, each a module: ``games`` (loading, caching, the game's lock),
``posting`` (the lock and posting protocol), ``planning`` (jobs), ``seats`` and
``votes``; ``telling`` decides who is told what and builds the texts. An action
(``act``) is checked, applied by the engine to a copy of the state, stored with its
jobs in one transaction, and only then answered and told.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import engine
from bot import i18n
from bot.clock import Clock
from bot.game.games import Game, GameInfo, Refusal
from bot.game.posting import Publisher
from bot.game.telling import MID_TURN, AfterAction, Update, after_action, opening_lines
from bot.game.votes import Votes
from bot.ops import metrics
from bot.play import presenters
from bot.play.decisions import Pick, TunnelHand, choice_tag, decisions, draft_round, tunnel_hand
from bot.play.maps import supported_maps
from bot.records.standings import results_of
from bot.settings.preferences import GameSettings
from bot.storage.api import GameRow, SeatRow, Storage, StorageError
from bot.storage.codec import event_to_json, snapshot_json
from engine import (
    ACTION_ADAPTER,
    Action,
    GameConfig,
    GameState,
    IllegalAction,
    PrivateView,
    PublicView,
)
from engine.events import Event
from engine.phases import Phase
from maps import load_map

log = logging.getLogger(__name__)

# Actions the bot plays in a row for one seat's turn (draw, draw; claim, tunnel; ...).
MAX_AUTO_STEPS = 8


async def _safe_choice(state: GameState, seat: int) -> Action:
    return engine.safe_action(state, seat)


@dataclass(frozen=True)
class Outcome:
    """What an accepted action did, for the actor's own (ephemeral) answer."""

    game_id: int
    version: int
    seat: int
    action: Action
    events: list[Event]
    before: PrivateView
    after: PrivateView
    view: PublicView
    published: bool  # a channel post follows (the turn ended or a tunnel was revealed)
    choices: tuple[Action, ...] = ()  # a module decision the actor must make now
    phase_before: Phase = Phase.TURN
    draft: presenters.DraftRound | None = None  # where a ticket draft stands now
    tunnel: TunnelHand | None = None  # the actor's tunnel waiting: what is left to pay with


def _log_accepted(game: Game, seat: int, action: Action, seconds: float) -> None:
    """One line and the metrics per stored action: from taking the lock to the commit."""
    log.info("game %s (%s) seat %s: %s in %.1f ms", game.id, game.row.map_id, seat,
             action.type, seconds * 1000)
    metrics.ACTIONS.inc(map=game.row.map_id, action=action.type)
    metrics.ACTION_SECONDS.observe(seconds)


class GameService(Votes):
    def __init__(self, storage: Storage, publisher: Publisher | None = None, *,
                 clock: Clock | None = None):
        super().__init__(storage, publisher, clock)
        self.maps = supported_maps()
        self.seeds: random.Random = random.SystemRandom()  # tests set a seeded one


    async def create(
        self, *, guild_id: int | None, channel_id: int, user_id: int, name: str, map_id: str,
        max_players: int | None, settings: GameSettings | None = None,
    ) -> GameRow:
        """Open a lobby; ``settings``: what the host chose for this game (reminders, timer)."""
        if map_id not in self.maps:
            raise Refusal(i18n._("Unknown map {map}; choose one of: {maps}.",
                                 map=presenters.echo(map_id), maps=", ".join(self.maps)))
        rules = load_map(map_id).rules
        limit = rules.players_max if max_players is None else max_players
        if not rules.players_min <= limit <= rules.players_max:
            raise Refusal(i18n._("{map} is for {low}–{high} players.",
                                 map=presenters.map_name(map_id), low=rules.players_min,
                                 high=rules.players_max))
        try:
            row = await self.storage.create_game(
                guild_id=guild_id, channel_id=channel_id, map_id=map_id, max_players=limit,
                host_id=user_id, host_name=name)
        except StorageError:
            raise Refusal(i18n._("This channel already has a game: finish it first, or start "
                                 "one in a thread (`/ttr new thread:True`).")) from None
        if settings is not None and settings != GameSettings():
            await self.storage.save_game_settings(row.id, settings)
        return row

    async def join(self, game_id: int, user_id: int, name: str) -> GameInfo:
        async with self._locked(game_id):
            await self._rewrite(game_id, self.storage.add_seat(game_id, user_id, name),
                                lambda why: i18n._("You cannot join: {why}.", why=why))
            return (await self._load(game_id)).info()

    async def leave(self, game_id: int, user_id: int) -> GameInfo:
        async with self._locked(game_id):
            await self._rewrite(game_id, self.storage.remove_seat(game_id, user_id),
                                lambda why: i18n._("You cannot leave: {why}.", why=why))
            return (await self._load(game_id)).info()

    async def start(self, game_id: int, user_id: int, *, seed: int | None = None) -> Update:
        async with self._changing(game_id) as telling:
            game = await self._load(game_id)
            if game.row.status != "lobby":
                raise Refusal(i18n._("This game has already started."))
            if user_id != game.row.host_id:
                host = next((presenters.safe_name(s.name) for s in game.seats
                             if s.user_id == game.row.host_id), "?")
                raise Refusal(i18n._("Only the host ({host}) can start the game.", host=host))
            rules = load_map(game.row.map_id).rules
            if len(game.seats) < rules.players_min:
                raise Refusal(i18n._("At least {n} players are needed to start.",
                                     n=rules.players_min))
            if not any(s.person for s in game.seats):
                raise Refusal(presenters.ONLY_COMPUTERS)
            seed = self.seeds.randrange(2**62) if seed is None else seed
            order = list(game.seats)
            random.Random(seed).shuffle(order)  # seat order is random (rules, setup)
            seats = [SeatRow(i, s.user_id, s.name, s.controller) for i, s in enumerate(order)]
            config = GameConfig(map_id=game.row.map_id, players=[s.name for s in seats], seed=seed)
            state = engine.new_game(config)
            await self._rewrite(game_id, self.storage.start_game(
                game_id, config=config.model_dump_json(), seats=seats, version=state.version,
                state=snapshot_json(state)), lambda why: i18n._("Cannot start: {why}.", why=why))
            game = await self._load(game_id)
            log.info("game %s (%s) started with %d players", game_id, game.row.map_id, len(seats))
            metrics.GAMES_STARTED.inc(map=game.row.map_id)
            names = game.names
            telling.build = await self._telling(
                game, lambda: opening_lines(game.row.map_id, names, state),
                dm_seats=range(len(seats)), board=True)
            await self._plan(game)
        assert telling.update is not None
        return telling.update

    async def act(
        self, game_id: int, user_id: int | None, action: Action | Pick, *,
        expect_version: int | None = None,
        reply: Callable[[Outcome], Awaitable[None]] | None = None,
        seat: int | None = None, note: str | None = None, timed_out: bool = False,
        in_dm: bool = False,
    ) -> Outcome:
        """Apply ``action`` for ``user_id``; raise ``Refusal`` (nothing changed) if not allowed.

        ``expect_version`` comes from a button: a click on an older board is refused,
        so a double click cannot draw twice. ``reply`` answers the actor once the
        action is stored, before the channel hears of it. A ``Pick`` always needs
        its version: its index means something only in the state it was drawn for.
        The bot plays for a seat (timer, computer player) with ``seat`` instead of a
        user; ``note`` then heads the channel post that follows, and ``timed_out`` says
        the turn timer played it (turns timed out count in the statistics). ``in_dm``: the
        actor acted in their DM, where ``reply`` shows their next decision already.
        """
        by_person = seat is None
        async with self._changing(game_id) as telling:
            locked_at = time.perf_counter()
            game = await self._load(game_id)
            seat = self._actor(game, user_id, seat, expect_version=expect_version)
            assert game.state is not None
            if isinstance(action, Pick):
                action = self._picked(game.state, seat, action)
            outcome, follows = await self._play(
                game, seat, action, user_id=user_id, acted=seat if by_person else None,
                timed_out=timed_out, in_dm=in_dm)
            _log_accepted(game, seat, outcome.action, time.perf_counter() - locked_at)
            if follows.publish:
                names, map_id, told, game.unposted = game.names, game.row.map_id, game.unposted, []
                telling.build = await self._telling(
                    game, lambda: ([] if note is None else [note])
                    + presenters.event_lines(map_id, names, told),
                    dm_seats=follows.fresh, events=told, hands=follows.hands)
            else:  # the table's buttons follow each step (e.g. the second card)
                telling.build = await self._telling(game, list, dm_seats=[], refresh=True,
                                                    hands=follows.hands)
            if reply is not None:
                telling.answer = lambda: reply(outcome)
        return outcome

    @staticmethod
    def _actor(game: Game, user_id: int | None, seat: int | None, *,
               expect_version: int | None) -> int:
        """The seat that acts (``seat`` when the bot plays it, else ``user_id``'s), if it
        may act now; else the ``Refusal`` that says why."""
        state = game.state
        if state is None:
            raise Refusal(i18n._("The game has not started yet."), "not started")
        by_person = seat is None
        if seat is None:
            seat = None if user_id is None else game.seat_of(user_id)
        if seat is None:
            raise Refusal(i18n._("You are not playing in this game."), "not a player")
        if game.row.status != "running":
            raise Refusal(i18n._("The game is over."), "game over")
        if by_person and not game.controller(seat).human:
            raise Refusal(presenters.NOT_YOURS_NOW, "not yours now")
        if (expect_version is not None and expect_version != state.version
                and seat in engine.waiting_for(state)):
            raise Refusal(i18n._("Those buttons are out of date: use the newest ones (or "
                                 "the slash commands)."), "out of date")
        return seat

    async def _play(self, game: Game, seat: int, action: Action, *, user_id: int | None,
                    acted: int | None, timed_out: bool, in_dm: bool
                    ) -> tuple[Outcome, AfterAction]:
        """Apply ``action`` of ``seat`` and store it with the jobs of the new version (call
        with the game's lock): a plain result, and what follows it (``after_action``).
        ``acted``: the seat, if its player acted in person."""
        state = game.state
        assert state is not None
        waiting_before = engine.waiting_for(state)
        phase_before = state.phase
        before = game.private_view(seat)
        version = state.version
        # The action plays on a copy: the cached state stays the last one committed, which
        # readers see without the lock (``info``), until the new one is stored.
        state = state.copy()
        try:
            if state.turns_left >= 0:
                # The last round: this action may end the game, and final scoring
                # (longest trails, ticket paths) is CPU work the event loop should
                # not wait on. The game's lock keeps everyone else off the state.
                events = await asyncio.to_thread(engine.apply, state, seat, action)
            else:
                events = engine.apply(state, seat, action)
        except IllegalAction as exc:
            raise Refusal(i18n.text(exc.text), "illegal") from None
        choices = decisions(state, seat)
        offered = bool(state.offered[seat])  # (``PrivateView.offered``, without the view)
        follows = after_action(
            seat, phase_before=phase_before, phase=state.phase, current=state.current,
            waiting_before=waiting_before, waiting_after=engine.waiting_for(state),
            decision=bool(choices), new_offer=offered and not before.offered,
            answered_in_dm=in_dm)
        finished = state.phase == Phase.GAME_OVER
        try:
            # The new version's jobs are stored with the action, in its transaction.
            plan = await self._job_plan(game, state, carry=follows.carry, acted=acted)
            await self.storage.record_action(
                game.id, seat=seat, action=ACTION_ADAPTER.dump_json(action).decode(),
                events=json.dumps([event_to_json(e) for e in events]), before=version,
                after=state.version, state=snapshot_json(state), finished=finished,
                user_id=user_id, plan=plan, timed_out=timed_out,
                results=results_of(game.id, game.seats, engine.public_view(state))
                if finished else ())
        except BaseException:
            self._forget(game.id)  # the commit's outcome is unknown: reload from the database
            raise
        # Stored: the new version is what everyone sees from now on (row and state
        # together, with no await between).
        game.state = state
        game.row = dataclasses.replace(game.row, version=state.version,
                                       status="finished" if finished else game.row.status)
        game.unposted.extend(events)
        if plan is not None and plan.jobs and self.planner is not None:
            self.planner.wake(min(job.due_at for job in plan.jobs))
        if finished:
            log.info("game %s (%s) ended after %d actions", game.id, game.row.map_id,
                     state.version)
            metrics.GAMES_ENDED.inc(map=game.row.map_id)
        return Outcome(
            game_id=game.id, version=state.version, seat=seat, action=action, events=events,
            before=before, after=game.private_view(seat), view=game.public_view(),
            published=follows.publish, choices=tuple(choices), phase_before=phase_before,
            draft=draft_round(state), tunnel=tunnel_hand(state, seat)), follows

    @staticmethod
    def _picked(state: GameState, seat: int, pick: Pick) -> Action:
        options = decisions(state, seat)
        if not options:
            if state.phase.simultaneous and seat not in engine.waiting_for(state):
                raise Refusal(i18n._("You have chosen already: waiting for the others."))
            raise Refusal(i18n._("You have nothing to choose now."))
        if pick.tag != choice_tag(seat, state.phase, options):
            raise Refusal(i18n._("Those buttons are out of date: use the newest ones."),
                          "out of date")
        if not 0 <= pick.index < len(options):
            raise Refusal(i18n._("That choice is not valid (any more)."))
        return options[pick.index]

    async def resume(self) -> int:
        """After a restart, publish what a crash left unposted (a last turn, the final scores).

        Returns how many games were published.
        """
        done = 0
        for row in await self.storage.unposted_games():
            async with self._changing(row.id) as telling:
                game = await self._load(row.id)
                state = game.state
                if state is None or state.phase in MID_TURN:
                    continue  # mid-turn: the turn's end publishes it
                names, unposted, game.unposted = game.names, game.unposted, []
                telling.build = await self._telling(
                    game, functools.partial(presenters.event_lines, row.map_id, names, unposted),
                    dm_seats=engine.waiting_for(state), events=unposted)
            done += 1
        return done

    async def play_for(
        self, game_id: int, seat: int, version: int,
        choose: Callable[[GameState, int], Awaitable[Action]], *, note: str | None = None,
        timed_out: bool = False,
    ) -> Outcome | None:
        """Take ``seat``'s decision for them (a timer ran out: ``timed_out``, a computer
        plays the seat): the rest of their turn, each action through ``act`` like a
        player's. ``choose`` gets a copy of the state. Nothing happens (None) if the game
        is no longer at ``version`` waiting for ``seat``: the job that called was stale."""
        last: Outcome | None = None
        for _ in range(MAX_AUTO_STEPS):
            async with self._locked(game_id):
                game = await self._load(game_id)
                state = game.state
                if (state is None or game.row.status != "running" or state.version != version
                        or seat not in engine.waiting_for(state)):
                    return last
                copy = GameState.from_snapshot(state.to_snapshot())
            action = await choose(copy, seat)
            try:
                last = await self.act(game_id, None, action, seat=seat, expect_version=version,
                                      note=note, timed_out=timed_out and last is None)
            except Refusal as exc:
                # The game moved on meanwhile (stale), or the chooser erred: the safe move.
                log.warning("game %s: seat %s could not play %s: %s", game_id, seat, action, exc)
                choose = _safe_choice
                continue
            if last.published:
                return last
            version = last.version
        return last

    async def repost_table(self, game_id: int) -> None:
        """Post the table message again at the bottom of the channel (``/ttr board``)."""
        async with self._changing(game_id) as telling:
            game = await self._load(game_id)
            if game.state is None:
                raise Refusal(i18n._("The game has not started yet."))
            telling.build = await self._telling(game, list, dm_seats=[], board=True,
                                                refresh=True, repost=True)

    async def refresh_table(self, game_id: int) -> None:
        """Show the table message's status anew, without a turn line or a ping (a player
        went away or came back: ``bot.seats.away``)."""
        async with self._changing(game_id) as telling:
            game = await self._load(game_id)
            if game.state is None or game.row.status != "running":
                return
            telling.build = await self._telling(game, list, dm_seats=[], refresh=True)

    async def first_delivery(self, interaction_id: int) -> bool:
        """False if this interaction was handled already (Discord delivered it twice)."""
        return await self.storage.first_delivery(interaction_id)
