"""``python -m bot doctor``: an admin's first run against the real Discord.

With the bot's token it lists the servers the bot is in; with ``--channel ID`` it compares
the permissions the bot has there with the ones it needs (``publisher.NEEDED``), then
posts, edits and deletes a test message and opens and deletes a private thread, as a game
does. Each problem is one line; any problem makes the command fail.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import discord
from discord.http import handle_message_parameters

from bot.game.publisher import NEEDED, permission_names

# Threads' parents hold the permission overwrites; these channel types are threads.
THREADS = (10, 11, 12)
ADMINISTRATOR = discord.Permissions(administrator=True).value


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def channel_permissions(guild: dict[str, Any], member: dict[str, Any],
                        channel: dict[str, Any], user_id: int) -> discord.Permissions:
    """Discord's documented computation: the roles' permissions, then the channel's
    overwrites for @everyone, for the member's roles, for the member."""
    roles = {int(r["id"]): int(r["permissions"]) for r in guild.get("roles", [])}
    everyone = int(guild["id"])
    mine = {int(r) for r in member.get("roles", [])}
    if int(guild.get("owner_id") or 0) == user_id:
        return discord.Permissions.all()
    value = roles.get(everyone, 0)
    for role in mine:
        value |= roles.get(role, 0)
    if value & ADMINISTRATOR:
        return discord.Permissions.all()
    overwrites = {int(o["id"]): o for o in channel.get("permission_overwrites") or []}
    for ids in ([everyone], sorted(mine & overwrites.keys()), [user_id]):
        allow = deny = 0
        for i in ids:
            if i in overwrites:
                allow |= int(overwrites[i]["allow"])
                deny |= int(overwrites[i]["deny"])
        value = (value & ~deny) | allow
    return discord.Permissions(value)


async def examine(client: discord.Client, channel_id: int | None) -> Report:
    """What ``doctor`` prints, for a client logged in with the bot's token."""
    report = Report()
    http = client.http
    me = client.user
    assert me is not None, "log in first"
    report.lines.append(f"logged in as {me.name} ({me.id})")
    guilds = await http.get_guilds(200)
    report.lines.append(f"{len(guilds)} server(s): " + ", ".join(
        f"{g['name']} ({g['id']})" for g in guilds))
    if not guilds:
        report.problems.append("the bot is in no server: invite it first")
    if channel_id is None:
        return report
    try:
        channel: dict[str, Any] = dict(await http.get_channel(channel_id))
    except discord.HTTPException as exc:
        report.problems.append(f"channel {channel_id}: cannot be read ({exc.status} "
                               f"{exc.code}: {exc.text})")
        return report
    parent = channel.get("parent_id") if channel.get("type") in THREADS else None
    where = dict(await http.get_channel(int(parent))) if parent else channel
    guild: dict[str, Any] = dict(await http.get_guild(int(channel.get("guild_id") or 0)))
    member: dict[str, Any] = dict(await http.get_member(int(guild["id"]), me.id))
    has = channel_permissions(guild, member, where, me.id)
    missing = discord.Permissions(NEEDED.value & ~has.value)
    report.lines.append(f"#{channel.get('name', channel_id)}: the bot needs "
                        f"{', '.join(permission_names(NEEDED))}")
    if missing.value:
        report.problems.append(f"#{channel.get('name', channel_id)}: missing permission(s): "
                               f"{', '.join(permission_names(missing))}")
    await _try_posting(client, channel_id, report)
    return report


async def _try_posting(client: discord.Client, channel_id: int, report: Report) -> None:
    """Post, edit and delete a message, open and delete a private thread: a game's steps."""
    http = client.http
    done: list[str] = []
    step = "post a message"
    try:
        message = await http.send_message(channel_id, params=handle_message_parameters(
            content="ttr-bot doctor: a test message (deleted at once)"))
        done.append(step)
        step = "edit it"
        await http.edit_message(channel_id, int(message["id"]), params=handle_message_parameters(
            content="ttr-bot doctor: edited"))
        done.append(step)
        step = "delete it"
        await http.delete_message(channel_id, int(message["id"]))
        done.append(step)
        step = "open a private thread (players' hands then go by DM only)"
        thread = await http.start_thread_without_message(
            channel_id, name="ttr-bot doctor", auto_archive_duration=60,
            type=discord.ChannelType.private_thread.value, invitable=False)
        done.append("open a private thread")
        step = "delete the thread"
        await http.delete_channel(int(thread["id"]))
        done.append(step)
    except discord.HTTPException as exc:
        report.problems.append(f"cannot {step} in channel {channel_id}: {exc.status} "
                               f"{exc.code}: {exc.text}")
    if done:
        report.lines.append(f"channel {channel_id}: could " + ", ".join(done))


async def run(token: str, channel_id: int | None) -> Report:
    """Log in over REST only (no gateway) and examine."""
    client = discord.Client(intents=discord.Intents.none())
    try:
        await client.login(token)
        return await examine(client, channel_id)
    except (discord.LoginFailure, discord.HTTPException) as exc:
        return Report(problems=[f"Discord refused: {exc}"])
    finally:
        await client.close()


def print_report(report: Report) -> int:
    """The findings on stdout, each problem as one line on stderr; 1 if there are any."""
    for line in report.lines:
        print(line)
    for problem in report.problems:
        print(f"ttr-bot doctor: {problem}", file=sys.stderr)
    return 1 if report.problems else 0
