"""Train-car cards as small ints: the eight suits by index, then the locomotive.

A hand is a list of nine counts indexed by card, which keeps the hot path on
plain ints; names appear only at the edges (actions, views, events).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from maps.model import TRAIN_COLORS

LOCO = len(TRAIN_COLORS)  # index of the locomotive in a hand
N_CARDS = LOCO + 1
GRAY = -1  # route colour index of a gray route
CARD_NAMES: tuple[str, ...] = (*TRAIN_COLORS, "locomotive")
CARD_INDEX: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}


def color_index(name: str) -> int:
    return GRAY if name == "gray" else CARD_INDEX[name]


def counts_from_names(cards: Mapping[str, int]) -> list[int] | None:
    """Nine counts from a {name: count} payment, or None if a name or count is invalid."""
    out = [0] * N_CARDS
    for name, n in cards.items():
        i = CARD_INDEX.get(name)
        if i is None or n < 0:
            return None
        out[i] += n
    return out


def names_from_counts(counts: Sequence[int]) -> dict[str, int]:
    return {CARD_NAMES[i]: n for i, n in enumerate(counts) if n}


def describe_cards(counts: Sequence[int]) -> str:
    """'2 green, 1 locomotive' — for messages to players."""
    parts = [
        f"{n} {CARD_NAMES[i]}{'s' if i == LOCO and n != 1 else ''}"
        for i, n in enumerate(counts)
        if n
    ]
    return ", ".join(parts) if parts else "no cards"
