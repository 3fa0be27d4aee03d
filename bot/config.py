"""Settings from environment variables (see ``.env.example``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


class ConfigError(ValueError):
    """A required setting is missing or malformed; the message says which."""


@dataclass(frozen=True)
class Settings:
    token: str
    db_path: str = "./ttr.sqlite3"
    dev_guild_id: int | None = None
    log_level: str = "INFO"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        token = env.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise ConfigError("DISCORD_TOKEN is not set (see .env.example)")
        guild = env.get("TTR_DEV_GUILD_ID", "").strip()
        if guild and not guild.isdigit():
            raise ConfigError(f"TTR_DEV_GUILD_ID must be a numeric server id, not {guild!r}")
        return cls(
            token=token,
            db_path=env.get("TTR_DB_PATH", "").strip() or "./ttr.sqlite3",
            dev_guild_id=int(guild) if guild else None,
            log_level=env.get("TTR_LOG_LEVEL", "").strip().upper() or "INFO",
        )
