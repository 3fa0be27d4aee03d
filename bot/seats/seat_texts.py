"""Texts about seats and absences: reminders, timers, kick votes, who plays a seat,
leaving, replacing, ending, undo."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from bot.i18n import N_, _, _n
from bot.play.presenters import (
    action_label,
    hours_text,
    safe_name,
)
from engine.actions import Action
from engine.players import Controller
from engine.views import PublicView

# -- reminders, timers, absent players -----------------------------------------------------


def reminder_dm(channel_id: int, game_id: int) -> str:
    return _("⏰ Reminder: <#{channel}> (game #{game}) is waiting for you. Press **My hand** "
             "there to see what to do. (`/ttr settings` sets your quiet hours.)",
             channel=channel_id, game=game_id)


def reminder_mention(user_id: int, game_id: int) -> str:
    return _("⏰ <@{user}>, game #{game} is waiting for you: press **My hand** to see what to "
             "do.", user=user_id, game=game_id)


def timeout_line(name: str, hours: float) -> str:
    return _("⏰ {name}'s {time} ran out: the bot played the least committal move for them.",
             name=safe_name(name), time=hours_text(hours))


def timeout_waits(name: str, hours: float) -> str:
    """A timed-out turn the bot does not play: drawing tickets is all that is left."""
    return _("⏰ {name}'s turn ran out after {time}, but the only move left is drawing "
             "destination tickets, which the bot never does for an absent player: {name}, "
             "take your turn.", name=safe_name(name), time=hours_text(hours))


def idle_abandoned(game_id: int, hours: float, names: Sequence[str]) -> str:
    return _("🛑 Game #{game} was abandoned: no player has made a move for {time} (the bot "
             "played the timed-out turns). It counts in no statistics. {names}: the channel "
             "is free for a new game.", game=game_id,
             time=_n("{n} day", "{n} days", round(hours / 24)),
             names=", ".join(safe_name(n) for n in names) or _("nobody"))


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
