"""``python -m bot``: run the Discord bot with settings from the environment."""

from __future__ import annotations

import logging
import sys

from bot.config import ConfigError, Settings


def main() -> None:
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"ttr-bot: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )
    from bot.client import TTRBot  # imported late so a config error needs no discord import

    bot = TTRBot(settings)
    bot.run(settings.token, log_handler=None)


if __name__ == "__main__":
    main()
