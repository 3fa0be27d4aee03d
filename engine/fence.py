"""The engine's fence: its one use of a library's private internals, behind a named function.

``tests/engine/test_fence.py`` checks it against the installed pydantic, so an upgrade that
changes what an instance holds fails there, loudly and by name, not somewhere in a game.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__


def unvalidated(cls: type[M], fields: dict[str, Any], fields_set: set[str]) -> M:
    """An instance of ``cls`` holding ``fields`` (every field's value, defaults included),
    unvalidated: what ``cls.model_construct(fields_set, **fields)`` builds, without its
    Python-level walk over the fields (the engine builds thousands of actions a game). Its
    state is pydantic's four instance attributes (``__dict__``, ``__pydantic_fields_set__``,
    ``__pydantic_extra__``, ``__pydantic_private__``); for models without private
    attributes, extra values or a ``model_post_init``."""
    m = cls.__new__(cls)
    _set(m, "__dict__", fields)
    _set(m, "__pydantic_fields_set__", fields_set)
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m
