"""Cards as small ints: the eight suits by index, then the locomotive.

A hand is a list of counts indexed by card (nine on the classic maps), which
keeps the hot path on plain ints; names appear only at the edges (actions,
views, events). Rails & Sails adds card kinds after the nine: train cards
with the harbor symbol, single ships (all with the symbol) and double ships,
each by suit; its jokers are the locomotive index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from itertools import compress

from engine.errors import Listing, Plural, Text
from engine.memo import MEMO_LIMIT, new_memo
from maps.model import TRAIN_COLORS

LOCO = len(TRAIN_COLORS)  # index of the locomotive in a hand
N_CARDS = LOCO + 1
# More cards of one kind than any deck has: tables of card counts indexed up to here (a
# hand beyond, only in a position set up so, takes the computed way).
MOST_OF_A_KIND = 64
GRAY = -1  # route colour index of a gray route
HARBOR_TRAIN = N_CARDS  # + suit: a train card with the harbor symbol
SHIP = HARBOR_TRAIN + LOCO  # + suit: a single ship card (it has the harbor symbol)
DOUBLE_SHIP = SHIP + LOCO  # + suit: a double ship card
ALL_CARD_KINDS = DOUBLE_SHIP + LOCO
SPECIAL = 100  # deck codes from here are a map's special cards (Iberia), never in a hand
CARD_NAMES: tuple[str, ...] = (
    *TRAIN_COLORS,
    "locomotive",
    *(f"{c}_harbor" for c in TRAIN_COLORS),
    *(f"{c}_ship" for c in TRAIN_COLORS),
    *(f"{c}_double_ship" for c in TRAIN_COLORS),
)
CARD_INDEX: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}


@cache
def clipped(most: int) -> tuple[int, ...]:
    """Each count of cards up to ``MOST_OF_A_KIND``, clipped to ``most``: a memo key's
    counts read from it in C (a count beyond it raises ``IndexError``: take ``min``)."""
    return tuple(n if n < most else most for n in range(MOST_OF_A_KIND))


@cache
def clip_bytes(most: int) -> bytes:
    """The table with which ``bytes.translate`` clips each count (a byte) to ``most`` (a
    memo key of counts made in C; a count beyond a byte raises ``ValueError``)."""
    return bytes(n if n < most else most for n in range(256))


def color_index(name: str) -> int:
    return GRAY if name == "gray" else CARD_INDEX[name]


def counts_from_names(cards: Mapping[str, int], kinds: int = N_CARDS) -> list[int] | None:
    """Counts of ``kinds`` card kinds from a {name: count} payment, or None if a name or
    count is invalid (or names a kind this map does not have)."""
    key = (kinds, *cards.items())
    try:
        known = _COUNTS[key]
    except KeyError:  # (kept: a game plays the same few payments again and again)
        if len(_COUNTS) >= MEMO_LIMIT:
            _COUNTS.clear()
        known = _COUNTS[key] = _counts(cards, kinds)
    except TypeError:  # a count that is no number (unhashable): refused below, not kept
        known = _counts(cards, kinds)
    return None if known is None else list(known)


def _counts(cards: Mapping[str, int], kinds: int) -> tuple[int, ...] | None:
    out = [0] * kinds
    for name, n in cards.items():
        i = CARD_INDEX.get(name, kinds)
        if i >= kinds or n < 0:
            return None
        out[i] += n
    return tuple(out)


_COUNTS: dict[tuple[object, ...], tuple[int, ...] | None] = new_memo()  # ``counts_from_names``'


def card_suit(card: str) -> str:
    """A card's suit by name: 'red' for 'red', 'red_harbor', 'red_ship' and
    'red_double_ship' alike; 'locomotive' (Rails & Sails' joker) stays 'locomotive'."""
    return card.split("_", 1)[0]


def names_from_counts(counts: Sequence[int]) -> dict[str, int]:
    key = tuple(counts)
    names = _NAMES.get(key)
    if names is None:  # (kept: a game pays the same few payments again and again)
        if len(_NAMES) >= MEMO_LIMIT:
            _NAMES.clear()
        # The kinds held, picked in C (a hand counts fewer kinds than there are names).
        names = _NAMES[key] = dict(compress(zip(CARD_NAMES, counts, strict=False), counts))
    return names.copy()  # the caller's own: events and actions keep theirs


_NAMES: dict[tuple[int, ...], dict[str, int]] = new_memo()  # ``names_from_counts``'


# The suits as players read them, in ``TRAIN_COLORS`` order (message ids of a front end).
SUIT_WORDS: tuple[Text, ...] = (
    Text("purple"), Text("white"), Text("blue"), Text("yellow"),
    Text("orange"), Text("black"), Text("red"), Text("green"),
)
assert [w.template for w in SUIT_WORDS] == list(TRAIN_COLORS)


def suit_word(color: int) -> Text:
    """A route's or card's colour in words; gray: 'one colour'."""
    return Text("one colour") if color == GRAY else SUIT_WORDS[color]


def card_text(card: int, n: int) -> Text:
    """'2 green', '1 locomotive', '2 red double ships' — for messages to players."""
    if card == LOCO:
        return Plural("{n} locomotive", "{n} locomotives", n)
    if card < LOCO:
        return Text("{n} {colour}", n=n, colour=SUIT_WORDS[card])
    kind, suit = divmod(card - N_CARDS, LOCO)
    colour = SUIT_WORDS[suit]
    if kind == 0:
        return Plural("{n} {colour} harbor train", "{n} {colour} harbor trains", n,
                      colour=colour)
    if kind == 1:
        return Plural("{n} {colour} ship", "{n} {colour} ships", n, colour=colour)
    return Plural("{n} {colour} double ship", "{n} {colour} double ships", n, colour=colour)


def describe_cards(counts: Sequence[int]) -> Text:
    """'2 green, 1 locomotive' — for messages to players."""
    parts = [card_text(i, n) for i, n in enumerate(counts) if n]
    return Listing(parts) if parts else Text("no cards")
