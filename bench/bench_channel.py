"""What a whole game posts to its channel: ``python bench/bench_channel.py [--maps usa]``.

Per map, one seeded 3-player game is played to the end by
``engine.agents.random_action`` through the game service, with the real
publisher, the real renderer and the fake Discord of ``bot.edge.testing``. Printed
per map: the turns played; new channel messages (posts, not edits); how many of
them the channel still shows at the end (a turn line is deleted when the next
one comes, its text moving into the table message); channel edits (the table
message edited in place); channel images (files uploaded with new posts or
edits) and their size in MB; private messages (DMs) and their edits.
``--fast`` replaces the renderer by a stub (counts only, sizes meaningless).

Then the REST requests of each game by kind, and the peak requests per minute in the
game's channel, with every seat acting as fast as a computer player does (after the
bot's shortest pause, ``scheduler.COMPUTER_DELAY``, on a fake clock), against Discord's
limits: 5 messages per 5 s in a channel (60 a minute) and 50 requests a second overall.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.calibration import calibration_line
from bot.edge.client import TTRBot
from bot.edge.testing import FakeClock, FakeDiscord
from bot.game.images import Renderer
from bot.game.scheduler import COMPUTER_DELAY
from bot.ops.config import Settings
from engine.agents import random_action

MAPS = ("usa", "europe", "nordic", "pennsylvania", "iberia", "world")


def stub_renderer() -> Renderer:
    return Renderer(board=lambda v, last=None: b"BOARD",
                    hand=lambda v, m, public=None, plans=None: b"HAND",
                    final=lambda v: b"FINAL")


def kind(fake: FakeDiscord, method: str, path: str, channel: int | None) -> str:
    """A request's kind, as the table below names it."""
    where = "dm" if fake.is_dm(channel) else "channel"
    return {("POST", "/channels/{channel_id}/messages"): f"{where} post",
            ("PATCH", "/channels/{channel_id}/messages/{message_id}"): f"{where} edit",
            ("DELETE", "/channels/{channel_id}/messages/{message_id}"): "delete",
            ("GET", "/channels/{channel_id}/messages"): "history",
            ("POST", "/users/@me/channels"): "dm open"}.get((method, path), "other")


KINDS = ("channel post", "channel edit", "delete", "history", "dm post", "dm edit", "dm open",
         "other")


def peak_per_minute(times: list[float]) -> int:
    """The most requests within any 60 seconds."""
    times = sorted(times)
    start, best = 0, 0
    for end, at in enumerate(times):
        while at - times[start] >= 60:
            start += 1
        best = max(best, end - start + 1)
    return best


async def play(map_id: str, players: int, seed: int, tmp: Path, fast: bool) -> dict[str, int]:
    clock = FakeClock()
    fake = FakeDiscord(clock)
    bot = TTRBot(Settings(token="bench", db_path=str(tmp / f"{map_id}.sqlite3")),
                 renderer=stub_renderer() if fast else None, sync_commands=False, clock=clock)
    await fake.connect(bot)
    users = [fake.add_user(n) for n in ("Ana", "Ben", "Cy", "Di", "Eli")[:players]]
    try:
        service = bot.service
        service.seeds = random.Random(seed)
        row = await service.create(guild_id=fake.GUILD_ID, channel_id=fake.CHANNEL_ID,
                                   user_id=users[0], name="Ana", map_id=map_id,
                                   max_players=players)
        for uid in users[1:]:
            await service.join(row.id, uid, fake.users[uid])
        start = len(fake.sent)
        first = len(fake.requests)
        await service.start(row.id, users[0])
        rng = random.Random(seed)
        while True:
            clock.advance(rng.uniform(*COMPUTER_DELAY))
            info = await service.info(row.id)
            state = info.state
            assert state is not None
            if state.phase == "game_over":
                break
            seat = rng.choice(engine.waiting_for(state))
            await service.act(row.id, info.seats[seat].user_id, random_action(state, seat, rng))
        sent = fake.sent[start:]
        public = [s for s in sent if s.public]
        private = [s for s in sent if not s.public]
        return {
            "turns": state.turn,
            "posts": sum(not s.edit for s in public),
            "kept": len([s for s in fake.channel_now() if s.id >= public[0].id]),
            "edits": sum(s.edit for s in public),
            "images": sum(len(s.uploaded) for s in public),
            "bytes": sum(len(d) for s in public for _, d in s.uploaded),
            "private": sum(not s.edit for s in private),
            "private_edits": sum(s.edit for s in private),
            "requests": len(fake.requests) - first,
            "refused": len(fake.refused),
            **collections.Counter(kind(fake, m, p, c) for (m, p), (_, c) in zip(
                fake.requests[first:], fake.request_log[first:], strict=True)),
            "peak": peak_per_minute([at for at, c in fake.request_log[first:]
                                     if c == fake.CHANNEL_ID]),
            "peak_posts": peak_per_minute([at for (m, p), (at, c) in zip(
                fake.requests[first:], fake.request_log[first:], strict=True)
                if c == fake.CHANNEL_ID and m == "POST"]),
        }
    finally:
        await bot.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", nargs="*", default=list(MAPS))
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--fast", action="store_true", help="stub renderer: counts only")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    print(calibration_line(), flush=True)
    print(f"{'map':13} {'turns':>5} {'posts':>6} {'kept':>5} {'edits':>6} {'images':>6} {'MB':>7} "
          f"{'private':>8} {'p.edits':>8} {'secs':>6}")
    games = {}
    with tempfile.TemporaryDirectory() as tmp:
        for map_id in args.maps:
            t0 = time.perf_counter()
            n = min(args.players, 3) if map_id == "nordic" else args.players
            c = games[map_id] = asyncio.run(play(map_id, n, args.seed, Path(tmp), args.fast))
            print(f"{map_id:13} {c['turns']:5} {c['posts']:6} {c['kept']:5} {c['edits']:6} "
                  f"{c['images']:6} "
                  f"{c['bytes'] / 1e6:7.1f} {c['private']:8} {c['private_edits']:8} "
                  f"{time.perf_counter() - t0:6.1f}")
    print(f"\nREST requests per game by kind; peak a minute in the channel (all, posts) "
          f"at a computer player's pace\n{'map':13} {'all':>5} "
          + " ".join(f"{k:>12}" for k in KINDS) + f" {'refused':>7} {'peak':>5} {'posts':>5}")
    for map_id, c in games.items():
        print(f"{map_id:13} {c['requests']:5} " + " ".join(f"{c.get(k, 0):12}" for k in KINDS)
              + f" {c['refused']:7} {c['peak']:5} {c['peak_posts']:5}")
    worst = max(c["peak_posts"] for c in games.values())
    print(f"Discord allows 60 messages a minute in a channel (5 per 5 s): the busiest game "
          f"posts {worst} at most ({worst / 60:.0%} of it); all requests stay far below its "
          f"global 3000 a minute (50/s).")


if __name__ == "__main__":
    main()
