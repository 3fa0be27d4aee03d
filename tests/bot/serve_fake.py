"""A bot process for tests/bot/test_lifecycle.py: the real ``bot.ops.lifecycle.serve`` (signal
handling, start-up checks, shutdown) on the fake Discord, with a hand renderer slow
enough that an interaction is still in flight when the test sends a signal.

Prints "in flight" once a game start (which sends every player a DM with a hand image)
is being handled, and after ``serve`` returns, the DMs the fake recorded and the garbage
collector's settings.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time

from bot.edge.testing import FakeDiscord
from bot.game.images import Renderer
from bot.ops.config import Settings
from bot.ops.lifecycle import serve


def slow_hand(view: object, map_id: str, public: object = None,
              plans: object = None) -> bytes:
    time.sleep(1.0)
    return b"HAND"


async def main() -> None:
    fake = FakeDiscord()

    async def connect(bot, stop: asyncio.Event) -> None:  # type: ignore[no-untyped-def]
        await fake.connect(bot)
        ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
        lobby = (await fake.slash(bot, ana, "new", map="usa")).reply
        await fake.click(bot, ben, lobby, label="Join")
        starting = asyncio.create_task(fake.click(bot, ana, lobby, label="Start"))
        while not bot._in_flight:
            await asyncio.sleep(0.01)
        print("in flight", flush=True)
        await stop.wait()
        await starting

    renderer = Renderer(board=lambda v, last: b"BOARD", hand=slow_hand, final=lambda v: b"FINAL")
    await serve(Settings.from_env(env_file=None), connect=connect, renderer=renderer)
    hands = [s for s in fake.sent if s.kind == "dm" and any(n == "hand.png" for n, _ in s.files)]
    print(f"hands sent: {len(hands)}", flush=True)
    # What start-up built was frozen out of the collector, whose young generation is large.
    print(f"gc: frozen {gc.get_freeze_count() > 0}, young {gc.get_threshold()[0]}", flush=True)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    asyncio.run(main())
