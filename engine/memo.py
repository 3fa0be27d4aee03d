"""The engine's memos: dicts of what it would otherwise work out again, each bounded by
``MEMO_LIMIT`` (emptied when full: they only ever hold what can be computed again) and
registered here so that ``engine.claims.clear_memos`` can empty them all for a cold start."""

from __future__ import annotations

from typing import Any

MEMO_LIMIT = 20_000  # entries a memo keeps (a few MB) before it starts afresh

_MEMOS: list[dict[Any, Any]] = []  # every ``new_memo``, for ``forget_memos``


def new_memo() -> dict[Any, Any]:
    """A memo dict that ``forget_memos`` empties."""
    memo: dict[Any, Any] = {}
    _MEMOS.append(memo)
    return memo


def forget_memos() -> None:
    """Empty every memo made by ``new_memo``."""
    for memo in _MEMOS:
        memo.clear()
