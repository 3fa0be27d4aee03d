"""Settings: environment variables, else a ``.env`` file in the working directory (see
``.env.example``). Validated here and only here; every mistake is one readable line.

``.env`` is read by the bot itself, so no shell ``source`` is needed, and exactly as
``docker run --env-file`` and compose's ``env_file`` read it (``read_env_file``): one file,
one meaning, values taken literally (quotes are part of the value). A real environment
variable wins over the file, and an empty value means "not set" (Docker passes empty lines
through).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


class ConfigError(ValueError):
    """Settings that cannot work; ``str(exc)`` is one line per mistake."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=None, env_ignore_empty=True, extra="ignore",
        frozen=True, populate_by_name=True)

    token: str = Field("", validation_alias="DISCORD_TOKEN")
    db_path: str = Field("./ttr.sqlite3", validation_alias="TTR_DB_PATH")
    dev_guild_id: int | None = Field(None, validation_alias="TTR_DEV_GUILD_ID")
    log_level: str = Field("INFO", validation_alias="TTR_LOG_LEVEL")
    # The optional health and metrics endpoint (``/health``, ``/metrics``); off when unset.
    health_port: int | None = Field(None, validation_alias="TTR_HEALTH_PORT")
    health_host: str = Field("127.0.0.1", validation_alias="TTR_HEALTH_HOST")
    # PostgreSQL instead of the SQLite file (several bot processes share it); unset: SQLite.
    database_url: str | None = Field(None, validation_alias="TTR_DATABASE_URL")
    # Discord gateway sharding: the total number of shards and the ones this process runs
    # (unset: one process, discord.py's automatic shard count).
    shard_count: int | None = Field(None, validation_alias="TTR_SHARD_COUNT")
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = Field(
        None, validation_alias="TTR_SHARD_IDS")

    ENV_NAMES: ClassVar[dict[str, str]] = {
        "token": "DISCORD_TOKEN", "db_path": "TTR_DB_PATH", "dev_guild_id": "TTR_DEV_GUILD_ID",
        "log_level": "TTR_LOG_LEVEL", "health_port": "TTR_HEALTH_PORT",
        "health_host": "TTR_HEALTH_HOST", "database_url": "TTR_DATABASE_URL",
        "shard_count": "TTR_SHARD_COUNT", "shard_ids": "TTR_SHARD_IDS"}

    @property
    def database(self) -> str:
        """Where the games live: the PostgreSQL URL if set, else the SQLite file."""
        return self.database_url or self.db_path

    @field_validator("token", mode="before")
    @classmethod
    def _token(cls, value: Any) -> str:
        token = str(value).strip()
        if token[:1] in "\"'" and token:
            raise ValueError("remove the quotes around the token (values are taken literally)")
        if token.lower().startswith("bot "):
            raise ValueError("give the token alone, without the 'Bot ' prefix")
        if any(c.isspace() for c in token):
            raise ValueError("the token contains spaces: copy it again from the Developer "
                             "Portal (Bot > Reset Token)")
        return token

    @field_validator("db_path", mode="before")
    @classmethod
    def _db_path(cls, value: Any) -> str:
        path = str(value).strip()
        if not path:
            raise ValueError("must name a database file, e.g. ./ttr.sqlite3")
        return path

    @field_validator("dev_guild_id", mode="before")
    @classmethod
    def _guild(cls, value: Any) -> int | None:
        if value is None:
            return None
        text = str(value).strip()
        if not text.isdigit():
            raise ValueError(f"must be a numeric server id, not {text!r}")
        return int(text)

    @field_validator("log_level", mode="before")
    @classmethod
    def _level(cls, value: Any) -> str:
        level = str(value).strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}, not {str(value)!r}")
        return level

    @field_validator("health_port", mode="before")
    @classmethod
    def _port(cls, value: Any) -> int | None:
        if value is None:
            return None
        text = str(value).strip()
        if not text.isdigit() or not 0 < int(text) < 65536:
            raise ValueError(f"must be a TCP port from 1 to 65535, not {text!r}")
        return int(text)

    @field_validator("database_url", mode="before")
    @classmethod
    def _database_url(cls, value: Any) -> str | None:
        if value is None:
            return None
        url = str(value).strip()
        if not url.startswith(("postgresql://", "postgres://")):
            raise ValueError("must be a PostgreSQL URL (postgresql://user:password@host/db); "
                             "leave it unset for the SQLite file TTR_DB_PATH")
        return url

    @field_validator("shard_count", mode="before")
    @classmethod
    def _shard_count(cls, value: Any) -> int | None:
        if value is None:
            return None
        text = str(value).strip()
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"must be a whole number of shards, 1 or more, not {text!r}")
        return int(text)

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _shard_ids(cls, value: Any) -> tuple[int, ...] | None:
        if value is None or isinstance(value, tuple):
            return value
        parts = [p.strip() for p in str(value).split(",") if p.strip()]
        if not parts or not all(p.isdigit() for p in parts):
            raise ValueError(f"must list shard numbers separated by commas, e.g. 0,1, "
                             f"not {str(value)!r}")
        return tuple(int(p) for p in parts)

    @model_validator(mode="after")
    def _shards(self) -> Settings:
        if self.shard_ids is not None:
            if self.shard_count is None:
                raise ValueError("TTR_SHARD_IDS needs TTR_SHARD_COUNT (the total number of "
                                 "shards of all processes)")
            wrong = [i for i in self.shard_ids if i >= self.shard_count]
            if wrong:
                raise ValueError(f"TTR_SHARD_IDS: shard {wrong[0]} does not exist with "
                                 f"TTR_SHARD_COUNT={self.shard_count} (they count from 0)")
        if (self.shard_ids is not None and self.shard_count is not None
                and len(set(self.shard_ids)) < self.shard_count and self.database_url is None):
            raise ValueError("a process running some of the shards shares the games with the "
                             "others: set TTR_DATABASE_URL (PostgreSQL); the SQLite file "
                             "serves one process")
        return self

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *,
                 env_file: Path | str | None = ".env", need_token: bool = True) -> Settings:
        """The settings from the environment and ``env_file`` (or from ``env`` alone);
        ``ConfigError`` lists every mistake, one line each, naming the variable."""
        if env is None:
            found = read_env_file(env_file) if env_file and Path(env_file).is_file() else {}
            env = {**found, **os.environ}  # the environment wins
        try:
            known = set(cls.ENV_NAMES.values())
            settings = cls.model_validate({k: v for k, v in env.items()
                                           if k in known and v.strip()})
        except ValidationError as exc:
            lines = []
            for err in exc.errors():
                name = str(err["loc"][0]) if err["loc"] else "settings"
                name = cls.ENV_NAMES.get(name, name)
                why = err["ctx"]["error"] if err["type"] == "value_error" else err["msg"]
                lines.append(f"{name}: {why}")
            raise ConfigError("\n".join(lines)) from None
        if need_token and not settings.token:
            raise ConfigError("DISCORD_TOKEN is not set: put the bot token in the environment "
                              "or in .env (see .env.example)")
        return settings


def read_env_file(path: Path | str) -> dict[str, str]:
    """``NAME=value`` lines as ``docker run --env-file`` reads them: the value is all after
    the first ``=``, literally (no quotes removed, no comment after it); blank lines,
    ``#`` lines and lines without ``=`` are skipped."""
    values = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.lstrip()
        if line and not line.startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            values[name] = value
    return values
