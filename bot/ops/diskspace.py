"""A full disk: told apart from damage, logged once (then counted), named to players.

A full disk harms nothing committed (SQLite and PostgreSQL refuse the write whole), and
the bot recovers by itself once there is room: at start-up it must not be taken for a
damaged database (whose advice, restoring a backup, would throw away what was committed
since), and while running it must not bury the log in a traceback per refused write.
"""

from __future__ import annotations

import errno
import logging
import shutil
import sqlite3
import time
from pathlib import Path

import asyncpg

log = logging.getLogger(__name__)

# Less free space than this in the database's folder, and a failed write is taken for a
# full disk (SQLite reports some ENOSPC failures as a plain "disk I/O error").
NEARLY_FULL_BYTES = 1 << 20
# While writes keep failing for lack of space, one line says how many, this often (s).
SUMMARY_EVERY = 60.0


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` is a write refused for lack of space (disk or quota)."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_FULL or (
            "disk is full" in str(exc))
    return isinstance(exc, asyncpg.DiskFullError)


def free_bytes(folder: Path) -> int | None:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def no_space_left(folder: Path, exc: BaseException) -> str | None:
    """At start-up: the line for the admin if ``exc`` came from a full disk under
    ``folder`` (the error says so, or the folder has almost no room left), else None."""
    free = free_bytes(folder)
    io_error = isinstance(exc, sqlite3.Error) and "disk i/o error" in str(exc).lower()
    if not is_disk_full(exc) and not (io_error and free is not None
                                      and free < NEARLY_FULL_BYTES):
        return None
    room = "" if free is None else f", {free // 1024} KiB free"
    return (f"no space left on the disk of {folder} ({exc}{room}): free some space there "
            f"and start again; the database is not damaged (do not restore a backup)")


class FullDisk:
    """Counts the writes a full disk refused: the first is logged with its cause, the
    following ones as a count once every ``SUMMARY_EVERY`` seconds."""

    def __init__(self) -> None:
        self.refused = 0  # since the last line
        self._logged_at: float | None = None

    def struck(self, exc: BaseException, what: str) -> None:
        now = time.monotonic()
        self.refused += 1
        if self._logged_at is None or now - self._logged_at > 10 * SUMMARY_EVERY:
            log.error("cannot save: the disk is full (%s; first seen in %s). Nothing stored "
                      "is lost; players are told the bot cannot save right now. Free some "
                      "space: the bot carries on by itself.", exc, what)
        elif now - self._logged_at >= SUMMARY_EVERY:
            log.error("still cannot save, the disk is full: %d write(s) refused in the last "
                      "%.0f s", self.refused, now - self._logged_at)
        else:
            return
        self._logged_at = now
        self.refused = 0


FULL_DISK = FullDisk()


def log_failure(logger: logging.Logger, exc: BaseException, message: str,
                *args: object) -> None:
    """Log a failure: with its traceback, unless it is a full disk (``FULL_DISK``)."""
    if is_disk_full(exc):
        FULL_DISK.struck(exc, message % args)
    else:
        logger.error(message, *args, exc_info=exc)
