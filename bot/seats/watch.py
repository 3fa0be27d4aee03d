"""Watching a game without a seat (``/ttr watch``): its turn lines and final scores by DM or
in a private thread of its channel.

A watcher is a row of ``watchers``. The publisher sends them what the channel hears, and
only that (``follow_texts``: the update's public lines and, at the end, the final scores),
once per version like every post. A watcher whose DMs or thread stop working is dropped.
"""

from __future__ import annotations

import re

import discord

from bot.game.telling import Update
from bot.i18n import _
from bot.play import presenters

MAX_WATCHERS = 10  # per game: each one is a DM per turn
STOP = re.compile(r"ttr-watch:stop:(?P<game>[1-9][0-9]{0,17})")
NO_PINGS = discord.AllowedMentions.none()


def follow_texts(update: Update) -> list[str]:
    """What a watcher gets of an update: the channel's lines (public by construction), and
    the final scores once the game is over. Nothing for a refresh of the table's buttons."""
    if update.refresh:
        return []
    texts = []
    lines = "\n".join(update.lines).strip()
    if lines:
        texts.append(_("👀 Game #{game}:", game=update.game_id) + "\n" + lines)
    if update.finished:
        texts.extend(presenters.chunks(presenters.final_text(update.view)))
    return texts


def stop_button(game_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label=_("Stop watching"), emoji="🛑",
                                    custom_id=f"ttr-watch:stop:{game_id}",
                                    style=discord.ButtonStyle.secondary))
    view.stop()  # sending only: ``StopButton`` answers the click, also after a restart
    return view
