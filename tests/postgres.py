"""A real PostgreSQL server for the tests and benchmarks, from the ``pgserver`` package.

pgserver ships PostgreSQL's own binaries in its wheel, so nothing is installed on the
machine; run as root (CI), it runs the server as a user of its own, since PostgreSQL
refuses to run as root. Each test gets a database copied from a migrated template.
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bot.storage.postgres import PostgresStorage

TEMPLATE = "ttr_template"
_numbers = itertools.count(1)


class PgServer:
    def __init__(self, server: Any):
        self._server = server

    @classmethod
    def start(cls) -> PgServer:
        """Start a server in a new folder of its own, deleted when it stops. Not under
        pytest's temporary folder: pytest makes that readable by root alone, and the
        server may run as another user."""
        import pgserver

        root = Path(tempfile.mkdtemp(prefix="ttr-postgres-"))
        pg = cls(pgserver.get_server(root, cleanup_mode="delete"))
        pg.sql(f"CREATE DATABASE {TEMPLATE}")
        # asyncpg in a thread of its own: the caller may be inside pytest-asyncio's loop.
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, _migrate(pg.url(TEMPLATE))).result()
        return pg

    def url(self, database: str = "postgres") -> str:
        return str(self._server.get_uri(database))

    def sql(self, command: str) -> str:
        return str(self._server.psql(command))

    @contextmanager
    def database(self, template: str = TEMPLATE) -> Iterator[str]:
        """A fresh database for one test, dropped after: a copy of the migrated template
        (or of ``template0``: empty)."""
        name = f"ttr_test_{next(_numbers)}"
        self.sql(f"CREATE DATABASE {name} TEMPLATE {template}")
        try:
            yield self.url(name)
        finally:
            self.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def database_url(self, name: str) -> str:
        """A new empty database ``name`` (kept until the server stops)."""
        self.sql(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        self._server.cleanup()


async def _migrate(url: str) -> None:
    store = await PostgresStorage.open(url)
    await store.close()
