"""``python -m bot doctor`` against the fake Discord."""

from __future__ import annotations

import discord
import pytest

from bot.__main__ import parse_args
from bot.edge.testing import ATTACH_FILES, CREATE_PRIVATE_THREADS, FakeDiscord
from bot.ops.doctor import examine, print_report


@pytest.fixture
async def client():
    fake = FakeDiscord()
    bot = discord.Client(intents=discord.Intents.none())
    await fake.connect(bot)
    bot.fake = fake  # type: ignore[attr-defined]
    yield bot
    await bot.close()


async def test_a_channel_with_every_permission_passes(client, capsys):
    fake = client.fake
    report = await examine(client, fake.CHANNEL_ID)
    assert report.problems == []
    assert any("1 server(s): Trains" in line for line in report.lines), report.lines
    (posted,) = [s for s in fake.sent if not s.edit]
    assert posted.id in fake.deleted and fake.message(posted.id).content.endswith("edited")
    assert ("DELETE", "/channels/{channel_id}") in fake.requests  # the test thread
    assert print_report(report) == 0
    assert "could post a message, edit it, delete it" in capsys.readouterr().out


async def test_missing_permissions_are_named_one_line_each_and_fail(client, capsys):
    fake = client.fake
    fake.revoke(fake.CHANNEL_ID, ATTACH_FILES | CREATE_PRIVATE_THREADS)
    report = await examine(client, fake.CHANNEL_ID)
    assert len(report.problems) == 2, report.problems
    assert "missing permission(s): Attach Files, Create Private Threads" in report.problems[0]
    assert "cannot open a private thread" in report.problems[1]
    assert print_report(report) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("ttr-bot doctor: ") for line in err)


async def test_an_unknown_channel_is_one_problem(client):
    report = await examine(client, 42)
    assert len(report.problems) == 1 and "10003" in report.problems[0], report.problems


async def test_without_a_channel_it_lists_the_servers_only(client):
    report = await examine(client, None)
    assert report.problems == [] and len(report.lines) == 2
    assert not client.fake.sent


def test_the_command_line():
    args = parse_args(["doctor", "--channel", "123"])
    assert (args.command, args.channel) == ("doctor", 123)
