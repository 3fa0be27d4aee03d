"""Past play on Discord: ``/ttr records history``, ``replay``, ``games``, ``stats``,
``leaderboard`` and the paging buttons under their answers.

The buttons' custom_ids name the game and the page or turn they show
(``ttr:<game>:hpage:<n>``, ``hfirst``, ``hlast``, ``rturn:<n>``, see
``bot.records.controls``), so they keep working after a restart and need no state.
History, replays and the games list answer only the asker: an old board in the channel
would read like the current one. Statistics and the leaderboard are posted for all.
"""

from __future__ import annotations

import asyncio
import io
from typing import Any

import discord
from discord import app_commands

import engine
from bot import i18n, stats
from bot.edge import components
from bot.edge.interactions import Responder, bot_of, guarded
from bot.edge.options import MAP_CHOICES
from bot.game.games import Refusal
from bot.game.telling import opening_lines
from bot.i18n import _
from bot.records import history, record_texts
from bot.records.history import TurnLog
from bot.storage.api import ActionRow, GameRow, Storage, in_effect
from engine import GameConfig

GAMES_LISTED = 20


def _storage(interaction: discord.Interaction[Any]) -> Storage:
    return bot_of(interaction).service.storage


async def find_game(interaction: discord.Interaction[Any], game: int | None) -> GameRow:
    """Game number ``game`` of this server, or this channel's current (else latest) game."""
    storage = _storage(interaction)
    if game is None:
        channel = interaction.channel_id
        row = None if channel is None else (
            await storage.active_game(channel) or await storage.latest_game(channel))
        if row is None:
            raise Refusal(record_texts.NO_GAME_HERE)
        return row
    row = await storage.game(game) if 0 < game < 2**63 else None
    if row is None or row.guild_id is None or row.guild_id != interaction.guild_id:
        raise Refusal(_(record_texts.UNKNOWN_GAME, game=game))
    return row


async def _told(storage: Storage, row: GameRow) -> tuple[list[str], list[ActionRow],
                                                         list[TurnLog]]:
    """The players' names, the actions the channel has heard of, and those turn by turn
    (their lines in the game's language, as the channel saw them)."""
    if row.config is None:
        raise Refusal(_(record_texts.NOT_STARTED, game=row.id))
    config = GameConfig.model_validate_json(row.config)
    names = config.players
    rows = in_effect([a for a in await storage.actions(row.id) if a.version <= row.posted_version])
    with i18n.language(await storage.game_language(row)):
        opening = opening_lines(row.map_id, names, engine.new_game(config))
        return names, rows, history.turn_logs(row.map_id, names, rows, opening)


async def show_history(interaction: discord.Interaction[Any], game: int | None,
                       page: int | None = None, *, edit: bool = False) -> None:
    """One page of a game's history (the latest page unless ``page`` says otherwise)."""
    row = await find_game(interaction, game)
    names, _told_texts, logs = await _told(_storage(interaction), row)
    book = history.pages(logs, names)
    if not book:
        raise Refusal(_(record_texts.NOTHING_YET, game=row.id))
    page = len(book) if page is None else min(max(page, 1), len(book))
    text = record_texts.history_page(row.id, row.map_id, page, len(book), book[page - 1])
    await Responder(interaction, edit=edit).send(
        text, view=components.history_view(row.id, page, len(book)))


async def show_replay(interaction: discord.Interaction[Any], game: int | None, turn: int, *,
                      edit: bool = False) -> None:
    """The board as turn ``turn`` began, replayed from the log, with what happened in it."""
    row = await find_game(interaction, game)
    names, rows, logs = await _told(_storage(interaction), row)
    last = max((log.turn for log in logs), default=0)
    if last < 1:
        raise Refusal(_(record_texts.NO_TURNS, game=row.id))
    log = history.turn_at(logs, turn) if 1 <= turn <= last else None
    if log is None:
        raise Refusal(_(record_texts.BAD_TURN, game=row.id, last=last))
    responder = Responder(interaction, edit=edit)
    await responder.defer()  # replaying and drawing can take longer than Discord waits
    assert row.config is not None
    config = GameConfig.model_validate_json(row.config)
    renderer = bot_of(interaction).renderer

    view = await asyncio.to_thread(history.board_at, config, rows, log.start)
    png = await renderer.draw_board(view)
    who = [names[s] for s in log.seats if 0 <= s < len(names)]
    text = record_texts.replay_caption(row.id, row.map_id, turn, last, who, log.lines)
    await responder.send(text, view=components.replay_view(row.id, turn, last),
                         files=[discord.File(io.BytesIO(png), filename=f"turn-{turn}.png")])


async def show_games(interaction: discord.Interaction[Any]) -> None:
    """This server's lobbies and running games, then its latest finished ones."""
    storage = _storage(interaction)
    if interaction.guild_id is None:
        raise Refusal(record_texts.NO_GAMES)
    listed = await storage.guild_games(interaction.guild_id, limit=GAMES_LISTED)
    winners = await storage.winners([row.id for row, _channel in listed])
    entries = []
    for row, when in listed:
        players = [s.name for s in await storage.seats(row.id)]
        won = record_texts.won_by(winners[row.id]) if row.id in winners else ""
        entries.append((row.id, row.map_id, row.status, row.channel_id, when, players, won))
    await Responder(interaction).send(record_texts.games_list(entries))


async def show_stats(interaction: discord.Interaction[Any], member: discord.abc.User | None,
                     map_id: str | None) -> None:
    """A member's statistics, or (no member) the whole server's."""
    where = record_texts.where(map_id)
    if interaction.guild_id is None:
        raise Refusal(_(record_texts.NO_RESULTS, where=where))
    summary = await stats.summary(_storage(interaction), interaction.guild_id, map_id,
                                  None if member is None else member.id)
    if summary is None and member is not None:
        raise Refusal(_(record_texts.NO_RESULTS_FOR, name=member.display_name, where=where))
    if summary is None:
        raise Refusal(_(record_texts.NO_RESULTS, where=where))
    title = (f"{member.display_name}{where}" if member is not None
             else _("This server{where}", where=where))
    await Responder(interaction, public=True).send(
        record_texts.stats_text(title, summary, player=member is not None))


async def show_leaderboard(interaction: discord.Interaction[Any], map_id: str | None) -> None:
    rated = [] if interaction.guild_id is None else await stats.leaderboard(
        _storage(interaction), interaction.guild_id, map_id)
    if not rated:
        raise Refusal(_(record_texts.NO_RESULTS, where=record_texts.where(map_id)))
    await Responder(interaction, public=True).send(record_texts.leaderboard_text(map_id, rated))


class Records(app_commands.Group, name="records",
              description="Past play: games, history, replays, statistics, the leaderboard"):
    """``/ttr records history``, ``replay``, ``games``, ``stats`` and ``leaderboard``."""

    @app_commands.command(name="history", description="The public log of a game, page by page")
    @app_commands.describe(
        game="A game number (see /ttr records games); default: this channel's game")
    async def history_command(self, interaction: discord.Interaction[Any],
                              game: int | None = None) -> None:
        await guarded(interaction, show_history(interaction, game))

    @app_commands.command(name="replay", description="The board as it was when a turn began")
    @app_commands.describe(
        turn="The turn number",
        game="A game number (see /ttr records games); default: this channel's game")
    async def replay(self, interaction: discord.Interaction[Any], turn: int,
                     game: int | None = None) -> None:
        await guarded(interaction, show_replay(interaction, game, turn))

    @app_commands.command(name="games", description="This server's running and recent games")
    async def games(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(interaction, show_games(interaction))

    @app_commands.command(name="stats", description="A member's statistics, or this server's")
    @app_commands.describe(member="Whose statistics (default: the whole server's)",
                           map="Only games on this map")
    @app_commands.choices(map=MAP_CHOICES)
    async def stats_command(self, interaction: discord.Interaction[Any],
                            member: discord.User | None = None,
                            map: app_commands.Choice[str] | None = None) -> None:
        await guarded(interaction, show_stats(interaction, member, map.value if map else None))

    @app_commands.command(name="leaderboard",
                          description="Ratings from this server's finished games")
    @app_commands.describe(map="Only games on this map")
    @app_commands.choices(map=MAP_CHOICES)
    async def leaderboard(self, interaction: discord.Interaction[Any],
                          map: app_commands.Choice[str] | None = None) -> None:
        await guarded(interaction, show_leaderboard(interaction, map.value if map else None))
