"""Who plays a seat: a member, the safe automatic move or a computer player; seats taken
over, handed on, left. Every change goes through ``_change_seat``.
"""

from __future__ import annotations

import logging

import engine
from bot import i18n
from bot.game.games import Ended, Game, GameInfo, Refusal
from bot.game.planning import Planning
from bot.seats import seat_texts
from engine.players import HUMAN, LEVELS, Controller

log = logging.getLogger(__name__)


def default_computer() -> Controller:
    """Who takes a seat its member left (resigned, kicked by vote, on autopilot)."""
    return Controller.computer("normal")


class Seats(Planning):

    async def set_controller(self, game_id: int, seat: int, controller: str, *, reason: str,
                             by_user: int | None = None) -> GameInfo:
        """Hand ``seat`` to ``controller`` (a member's own play, the safe automatic move or a
        computer player; ValueError for another text); the history records who
        (``by_user``) and why (``reason``)."""
        controller = Controller(controller)
        async with self._locked(game_id):
            game = await self._load(game_id)
            if not 0 <= seat < len(game.seats):
                raise Refusal(i18n._("There is no seat {n}.", n=seat + 1))
            current = game.seats[seat]
            if controller.human and not current.person:
                raise Refusal(i18n._("Nobody sits there: `/ttr seat replace` gives the seat to a "
                                     "member."))
            game, _ = await self._change_seat(
                game, seat, user_id=current.user_id, name=current.name, controller=controller,
                kind="controller", by_user=by_user, detail={"reason": reason})
            return game.info()

    async def _change_seat(self, game: Game, seat: int, *, user_id: int, name: str,
                           controller: Controller, kind: str, by_user: int | None,
                           detail: dict[str, object]) -> tuple[Game, str]:
        """Every change of who plays a seat goes through here (call with the game's lock):
        stored with its history row, then the game is reloaded. Returns it and the key
        of this news (``Update.news``)."""
        old = game.seats[seat]
        history_id = await self._rewrite(game.id, self.storage.change_seat(
            game.id, seat, user_id=user_id, name=name, controller=controller, kind=kind,
            by_user=by_user, detail={**detail, "was": str(old.controller),
                                     "from_user": old.user_id, "from_name": old.name}),
            lambda why: i18n._("Cannot change the seat: {why}.", why=why))
        game = await self._load(game.id)
        if game.state is not None:  # a computer's turn, or a person's reminders, from now on
            await self._plan(game, carry=engine.waiting_for(game.state))
        return game, f"history:{history_id}"

    async def add_computer(self, game_id: int, user_id: int, level: str) -> GameInfo:
        """The host seats a computer player in the lobby."""
        if level not in LEVELS:
            raise Refusal(i18n._("Choose a level: {levels}.", levels=", ".join(LEVELS)))
        async with self._locked(game_id):
            game = self._hosting(await self._load(game_id), user_id, "add computer players")
            number = sum(1 for s in game.seats if not s.person) + 1
            with i18n.language(await self.storage.game_language(game.row)):  # all read it
                name = seat_texts.computer_name(level, number)
            await self._rewrite(game_id, self.storage.add_seat(
                game_id, self._nobody(game), name, controller=Controller.computer(level)),
                lambda why: i18n._("Cannot add a computer player: {why}.", why=why))
            return (await self._load(game_id)).info()

    def _hosting(self, game: Game, user_id: int, deed: str) -> Game:
        """``game``, if it is a lobby and ``user_id`` hosts it (``deed``: what they do, one
        of ``seat_texts.HOST_DEEDS``); else the refusal that says why not."""
        if game.row.status != "lobby":
            raise Refusal(seat_texts.LOBBY_ONLY)
        if user_id != game.row.host_id:
            raise Refusal(seat_texts.only_host(self._host_name(game), deed))
        return game

    async def remove_computer(self, game_id: int, user_id: int, seat: int
                              ) -> tuple[GameInfo, str]:
        """The host takes the computer player in ``seat`` out of the lobby; returns the
        lobby and the computer's name."""
        async with self._locked(game_id):
            game = self._hosting(await self._load(game_id), user_id, "remove computer players")
            gone = next((s for s in game.seats if s.seat == seat and not s.person), None)
            if gone is None:
                raise Refusal(i18n._("Choose the computer player to remove from the list."))
            await self._rewrite(game_id, self.storage.remove_seat(game_id, gone.user_id),
                                lambda why: i18n._("Cannot remove a computer player: {why}.",
                                                   why=why))
            return (await self._load(game_id)).info(), gone.name

    async def autopilot(self, game_id: int, user_id: int, on: bool) -> GameInfo:
        """A player hands their seat to a computer player, or takes it back."""
        async with self._locked(game_id):
            game = self._running(await self._load(game_id))
            seat = self._seat(game, user_id)
            controller = default_computer() if on else HUMAN
            if game.controller(seat).human != on:
                raise Refusal(seat_texts.autopilot_already(on))
            game, _ = await self._change_seat(
                game, seat, user_id=user_id, name=game.seats[seat].name, controller=controller,
                kind="autopilot", by_user=user_id, detail={"on": on})
            return game.info()

    async def resign(self, game_id: int, user_id: int) -> Ended | GameInfo:
        """A player leaves a running game: a computer player takes the seat, the routes stay.
        When no member would be left the game is abandoned instead."""
        async with self._locked(game_id):
            game = self._running(await self._load(game_id))
            return await self._vacate(game, self._seat(game, user_id), kind="resign",
                                      by_user=user_id)

    async def vacate(self, game_id: int, seat: int, *, kind: str,
                     by_user: int | None = None) -> Ended | GameInfo:
        """The member leaves ``seat`` (a kick, say: ``kind`` names why in the history); a
        computer player takes it. When no member would be left the game is abandoned."""
        async with self._locked(game_id):
            return await self._vacate(self._running(await self._load(game_id)), seat,
                                      kind=kind, by_user=by_user)

    async def _vacate(self, game: Game, seat: int, *, kind: str,
                      by_user: int | None) -> Ended | GameInfo:
        if not any(s.person for s in game.seats if s.seat != seat):
            return await self._end(game, "abandoned", by_user=by_user,
                                   detail={"reason": f"{kind}: no member left"})
        game, _ = await self._change_seat(
            game, seat, user_id=self._nobody(game), name=game.seats[seat].name,
            controller=default_computer(), kind=kind, by_user=by_user, detail={})
        return game.info()

    async def replace(self, game_id: int, by_user: int, *, admin: bool, seat: int | None,
                      user_id: int, name: str) -> tuple[GameInfo, int]:
        """The host or an admin hands a seat (by default the one nobody sits in) to a member
        who is not seated; the new player gets the hand privately. Returns the seat."""
        async with self._changing(game_id) as telling:
            game = self._running(await self._load(game_id))
            if by_user != game.row.host_id and not admin:
                raise Refusal(seat_texts.only_host(self._host_name(game), "replace players",
                                                   admins=True))
            if user_id <= 0 or game.seat_of(user_id) is not None:
                raise Refusal(seat_texts.ALREADY_SEATED)
            if seat is None:
                empty = [s.seat for s in game.seats if not s.person]
                if len(empty) != 1:
                    raise Refusal(seat_texts.WHICH_SEAT)
                seat = empty[0]
            if not 0 <= seat < len(game.seats):
                raise Refusal(seat_texts.WHICH_SEAT)
            old = game.seats[seat]
            game, news = await self._change_seat(
                game, seat, user_id=user_id, name=name, controller=HUMAN, kind="replace",
                by_user=by_user, detail={})
            telling.build = await self._telling(
                game, lambda: [seat_texts.replaced_line(old.name, name)], dm_seats=[seat],
                board=False, news=news)
        if old.person:  # the member who sat there learns it from the bot, not by chance
            await self.tell_member(game.row, old.user_id, seat_texts.replaced_you, game_id, name)
        return game.info(), seat
