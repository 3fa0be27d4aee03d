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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("run_all"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
