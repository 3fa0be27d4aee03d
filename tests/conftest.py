"""The fast loop: a plain ``pytest`` leaves out the tests marked ``slow`` (whole bot games,
PostgreSQL, subprocess lifecycles, the wheel build), so an edit is checked in well under a
minute. ``pytest --all`` (the README's test command, which CI runs) runs every test."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--all", action="store_true", dest="run_all",
                     help="also run the tests marked slow (the README's test command does)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: a test left out of the fast loop; `pytest --all` runs it")


def _slow(item: pytest.Item) -> bool:
    """Marked slow, or run on the real PostgreSQL server (starting it takes seconds)."""
    callspec = getattr(item, "callspec", None)
    on_postgres = callspec is not None and callspec.params.get("backend") == "postgresql"
    return (item.get_closest_marker("slow") is not None or on_postgres
            or "postgres_server" in getattr(item, "fixturenames", ()))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("run_all"):
        return
    slow = [item for item in items if _slow(item)]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not _slow(item)]
