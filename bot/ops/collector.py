"""The garbage collector's settings, for the bot's process and the render workers.

An action allocates tens of thousands of objects (discord.py's models, pydantic, the
engine's views, an image's parts); at Python's default threshold (700) the young
generation was collected dozens of times an action, and every tenth time the middle one,
each a walk over what survived. A larger young generation is collected less often
for the same garbage. What start-up built (modules, maps, caches, the command tree, the
render workers' layers) lives as long as the process: ``freeze`` takes it out of every
later collection, so a full collection walks only what the games hold, and forked
workers do not touch (copy) the pages they share with their fork server.
"""

from __future__ import annotations

import gc

# Allocations (net of frees) between two collections of the young generation; the older
# generations keep Python's ratios.
YOUNG_THRESHOLD = 20_000


def tune() -> None:
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def freeze() -> None:
    """After start-up: collect once, then keep everything alive now out of every later
    collection (``gc.freeze``)."""
    gc.collect()
    gc.freeze()
