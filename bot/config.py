"""Settings: environment variables, else a ``.env`` file in the working directory (see
``.env.example``). Validated here and only here; every mistake is one readable line.

``.env`` is read by the bot itself (python-dotenv through pydantic-settings), so no shell
``source`` is needed; a real environment variable wins over the file, and an empty value
means "not set" (``docker run --env-file`` passes empty lines through).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


class ConfigError(ValueError):
    """Settings that cannot work; ``str(exc)`` is one line per mistake."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", env_ignore_empty=True, extra="ignore",
        frozen=True, populate_by_name=True)

    token: str = Field("", validation_alias="DISCORD_TOKEN")
    db_path: str = Field("./ttr.sqlite3", validation_alias="TTR_DB_PATH")
    dev_guild_id: int | None = Field(None, validation_alias="TTR_DEV_GUILD_ID")
    log_level: str = Field("INFO", validation_alias="TTR_LOG_LEVEL")
    # The optional health and metrics endpoint (``/health``, ``/metrics``); off when unset.
    health_port: int | None = Field(None, validation_alias="TTR_HEALTH_PORT")
    health_host: str = Field("127.0.0.1", validation_alias="TTR_HEALTH_HOST")

    ENV_NAMES: ClassVar[dict[str, str]] = {
        "token": "DISCORD_TOKEN", "db_path": "TTR_DB_PATH", "dev_guild_id": "TTR_DEV_GUILD_ID",
        "log_level": "TTR_LOG_LEVEL", "health_port": "TTR_HEALTH_PORT",
        "health_host": "TTR_HEALTH_HOST"}

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

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *,
                 env_file: Path | str | None = ".env", need_token: bool = True) -> Settings:
        """The settings from the environment and ``env_file`` (or from ``env`` alone);
        ``ConfigError`` lists every mistake, one line each, naming the variable."""
        try:
            if env is not None:
                settings = cls.model_validate({k: v for k, v in env.items() if v.strip()})
            else:
                settings = cls(_env_file=env_file)
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
