"""Votes and endings: kicking a seat whose timer keeps running out, abandoning, ending,
and undo (free for its own player while it revealed nothing, else by the table's vote).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import engine
from bot import i18n
from bot.game.games import Ended, Game, Refusal
from bot.game.seats import Seats
from bot.seats import seat_texts
from bot.storage.api import ACTIVE, UNDO_JSON, ActionRow, GameStatus, in_effect
from bot.storage.codec import replay_log, snapshot_json
from engine import ACTION_ADAPTER

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Vote:
    """Where a vote stands (abandon; undo of ``version``): the members for it so far."""

    game_id: int
    version: int
    names: tuple[str, ...]
    voters: tuple[int, ...]
    needed: int
    ended: Ended | None = None
    undone: bool = False
    subject: str = ""  # what an undo vote would take back ('Ana's claim of …')

    @property
    def passed(self) -> bool:
        return len(self.voters) >= self.needed


# Events that show something nobody knew (a card off a deck, tickets, a reveal): an action
# that caused one is undone only with the table's consent.
REVEALING_EVENTS = frozenset({
    "CardDrawn", "TicketsDrawn", "TunnelRevealed", "MarketReset", "DeckReshuffled",
    "FestivalCardPlaced", "TicketDraftStarted", "DraftPicked", "GameEnded"})
# Actions that draw nothing by themselves (the events say whether they revealed anything).
QUIET_ACTIONS = frozenset({
    "claim", "build_station", "build_harbor", "exchange_pieces", "keep_tickets", "pay_tunnel",
    "decline_tunnel", "take_share", "give_neutral_share", "take_festival", "choose_pieces"})


def reveals_nothing(row: ActionRow) -> bool:
    """Whether a logged action showed nothing hidden and drew nothing at random."""
    kind = json.loads(row.action).get("type")
    return kind in QUIET_ACTIONS and not any(
        e.get("type") in REVEALING_EVENTS for e in json.loads(row.events))


class Votes(Seats):

    async def vote_kick(self, game_id: int, user_id: int, seat: int) -> tuple[bool, str]:
        """``user_id`` votes to hand ``seat``, whose timer ran out turn after turn, to a
        computer player; a majority of the other seated players decides. Returns whether
        the vote decided it, and the text to answer."""
        async with self._locked(game_id):
            game = await self._load(game_id)
            if game.state is None or game.row.status != "running":
                raise Refusal(i18n._("The game is over."))
            if not 0 <= seat < len(game.seats):
                raise Refusal(i18n._("That control is not valid (any more)."))
            target = game.seats[seat]
            voter = game.seat_of(user_id)
            if voter is None or not game.seats[voter].human or voter == seat:
                raise Refusal(i18n._("Only the other players at the table vote on this seat."))
            if not target.human:
                raise Refusal(seat_texts.kick_closed(target.name))
            timing = await self.storage.timing(game.row.guild_id, game_id)
            if (await self.storage.expiries(game_id)).get(seat, 0) < timing.kick_after_expiries:
                raise Refusal(seat_texts.kick_closed(target.name))
            voters = set(await self.storage.vote(game_id, "kick", seat, user_id))
            electors = {s.user_id for s in game.seats if s.human and s.seat != seat}
            votes, needed = len(voters & electors), len(electors) // 2 + 1
        if votes != needed:  # short of a majority (or decided by an earlier vote)
            return False, seat_texts.kick_counted(target.name, votes, needed)
        # The kicked member leaves the seat (``/ttr seat replace`` can seat them again).
        await self.vacate(game_id, seat, kind="kick")
        await self.storage.clear_absence(game_id, seat)
        await self.tell_member(game.row, target.user_id, seat_texts.kicked_you, game_id)
        return True, seat_texts.kicked_line(target.name)

    async def end(self, game_id: int, user_id: int, *, admin: bool) -> Ended:
        """The host or an admin (Manage Server or Manage Channels) ends a lobby or a game."""
        async with self._locked(game_id):
            game = await self._load(game_id)
            if game.row.status not in ACTIVE:
                raise Refusal(seat_texts.ALREADY_OVER)
            if user_id != game.row.host_id and not admin:
                raise Refusal(seat_texts.only_host(self._host_name(game), "end the game",
                                                   admins=True))
            status: GameStatus = "ended" if game.state is not None else "cancelled"
            return await self._end(game, status, by_user=user_id, detail={"reason": "end"})

    async def vote_abandon(self, game_id: int, user_id: int) -> Vote:
        """One seated member's vote to abandon; a majority of the members seated ends it."""
        async with self._locked(game_id):
            game = self._running(await self._load(game_id))
            self._seat(game, user_id)
            voters = await self.storage.vote(game_id, "abandon", 0, user_id)
            vote = self._count(game, voters)
            if vote.passed:
                ended = await self._end(game, "abandoned", by_user=user_id,
                                        detail={"voters": list(vote.voters)})
                return dataclasses.replace(vote, ended=ended)
            return vote

    async def abandon_idle(self, game_id: int, idle_hours: float) -> Ended | None:
        """End a running game nobody has moved in for ``idle_hours`` (the bot played every
        turn meanwhile) as abandoned: it counts in no statistics. None if it is over."""
        async with self._locked(game_id):
            game = await self._load(game_id)
            if game.row.status != "running":
                return None
            return await self._end(game, "abandoned", by_user=None,
                                   detail={"reason": "idle", "hours": idle_hours})

    async def undo_needs_vote(self, game_id: int, user_id: int) -> tuple[bool, str, int]:
        """Whether undoing the last action needs the table's vote (it is someone else's, or
        it revealed something), what it would undo, and the version it is at."""
        game = self._running(await self._load(game_id))
        self._seat(game, user_id)
        row, _log = await self._last_in_effect(game_id)
        subject = seat_texts.undo_subject(game.row.map_id, game.seats[row.seat].name,
                                          ACTION_ADAPTER.validate_json(row.action))
        return not (row.user_id == user_id and reveals_nothing(row)), subject, game.row.version

    async def _last_in_effect(self, game_id: int) -> tuple[ActionRow, list[ActionRow]]:
        """The last action still in effect (what an undo takes back), and the whole log."""
        log = await self.storage.actions(game_id)
        rows = in_effect(log)
        if not rows:
            raise Refusal(seat_texts.NOTHING_TO_UNDO)
        return rows[-1], log

    async def undo(self, game_id: int, user_id: int, *, expect_version: int | None = None
                   ) -> Vote:
        """Take back the last action still in effect. Its player may, while it revealed
        nothing hidden (nobody acted since, or what they did was undone); anyone else asks
        the table, and a majority of the seated members undoes it. The undo is appended to
        the log (a new version: versions only grow), and the state is the log's replay."""
        async with self._changing(game_id) as telling:
            game = self._running(await self._load(game_id))
            self._seat(game, user_id)
            version = game.row.version
            if expect_version is not None and expect_version != version:
                raise Refusal(seat_texts.VOTE_STALE)
            row, log = await self._last_in_effect(game_id)
            free = row.user_id == user_id and reveals_nothing(row)
            vote = self._count(game, [user_id] if free else await self.storage.vote(
                game_id, "undo", version, user_id), version=version)
            action = ACTION_ADAPTER.validate_json(row.action)
            vote = dataclasses.replace(vote, subject=seat_texts.undo_subject(
                game.row.map_id, game.seats[row.seat].name, action))
            if not (free or vote.passed):
                return vote
            assert game.row.config is not None
            undo = ActionRow(version + 1, row.seat, UNDO_JSON, "[]", user_id, row.version)
            state = replay_log(game.row.config, [*log, undo])
            await self._rewrite(game_id, self.storage.record_undo(
                game_id, version=version, undoes=row, state=snapshot_json(state),
                user_id=user_id, detail={"voters": None if free else list(vote.voters)}),
                lambda why: i18n._("Cannot undo: {why}.", why=why))
            game = await self._load(game_id)
            game.unposted = []  # what the undone action caused is no longer news
            await self._plan(game)  # the undone version's reminders and timers are stale
            map_id, undone_by = game.row.map_id, game.seats[row.seat].name
            # The undone turn may have built something: the board is drawn again.
            telling.build = await self._telling(
                game, lambda: [seat_texts.undone_line(map_id, undone_by, action)],
                dm_seats=engine.waiting_for(state), board=True, undo_at=version)
        return dataclasses.replace(vote, undone=True)

    @staticmethod
    def _count(game: Game, voters: Sequence[int], version: int = 0) -> Vote:
        members = {s.user_id: s.name for s in game.seats if s.person}
        yes = tuple(v for v in voters if v in members)
        return Vote(game.id, version, tuple(members[v] for v in yes), yes,
                    needed=len(members) // 2 + 1)
