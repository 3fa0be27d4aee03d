"""A bot process for tests/bot/test_lifecycle.py: the real ``bot.ops.lifecycle.serve`` on the
fake Discord with the real renderer in worker processes whose fork server is still
starting (``slow_preload``) when the test sends a signal.

Prints "warming up" once the workers are being started.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from bot.edge.testing import FakeDiscord
from bot.game.images import default_renderer
from bot.ops.config import Settings
from bot.ops.lifecycle import serve


async def main() -> None:
    fake = FakeDiscord()

    async def connect(bot, stop: asyncio.Event) -> None:  # type: ignore[no-untyped-def]
        await fake.connect(bot)
        print("warming up", flush=True)
        await stop.wait()

    renderer = default_renderer(processes=2, preload="slow_preload")
    await serve(Settings.from_env(env_file=None), connect=connect, renderer=renderer)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    asyncio.run(main())
