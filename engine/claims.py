"""The claims ``legal_actions`` offers, fast.

Every turn lists each open route's cheapest payments, which made building them most of
``legal_actions``' time. A route's payments depend only on its shape (colour, length,
ferry, tunnel, ...) and on the counts of the few cards that can pay it, so a
``ClaimTable`` computes them once per (shape, those counts) with the map's own payment
function and keeps them, and builds each route's ``Claim`` objects once per payment set
(they are frozen and shared: do not mutate one). The memo tables are bounded and
cleared when full; they only ever hold what the payment function would compute again.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import cache
from operator import itemgetter
from typing import Any, cast

from engine.actions import Claim, claim_of, clear_shared_actions
from engine.board import Board

Payments = Callable[[Board, int, Sequence[int]], list[list[int]]]
MEMO_LIMIT = 20_000  # entries a memo keeps (a few MB) before it starts afresh


class _Payable:
    """The payments of one route shape for one set of counts, and its routes' claims."""

    __slots__ = ("by_route", "pays")

    def __init__(self, pays: list[list[int]]) -> None:
        self.pays = pays
        self.by_route: dict[int, tuple[Claim, ...]] = {}


class ClaimTable:
    """One map's routes grouped by shape, with the memo of their payments.

    ``shape(r)`` says what route ``r``'s payments depend on besides the hand, and
    ``counts(r)`` gives the function that picks from a hand what they depend on (as a
    key: the fewer distinct keys, the more the memo serves); ``payments`` is the map's
    function listing a route's cheapest payments for a hand. Most routes are out
    of a hand's reach, which a cheap test tells first: ``reach(hand)`` lists, per suit,
    the most spaces the hand could fill, and ``suit(r)`` which of them route ``r`` needs
    (None: no such test for it).
    """

    def __init__(
        self,
        board: Board,
        shape: Callable[[int], Hashable],
        counts: Callable[[int], Callable[[Sequence[int]], Hashable]],
        suit: Callable[[int], int | None],
        reach: Callable[[Sequence[int]], list[int]],
        payments: Payments,
    ) -> None:
        routes = range(len(board.route_ids))
        shapes: dict[Hashable, int] = {}
        self.kind = tuple(shapes.setdefault(shape(r), len(shapes)) for r in routes)
        first = {k: r for r, k in reversed(list(enumerate(self.kind)))}
        self.example = tuple(first[k] for k in range(len(shapes)))  # a route of each shape
        self.counts = tuple(counts(r) for r in self.example)
        # Per suit, its routes by the spaces they need (those without a test: always).
        suits = [(suit(r), board.r_len[r], r) for r in routes]
        self.untested = [r for s, _, r in suits if s is None]
        self.by_suit: dict[int, tuple[list[int], list[int]]] = {}
        for s, need, r in sorted((s, n, r) for s, n, r in suits if s is not None):
            needs, of_suit = self.by_suit.setdefault(s, ([], []))
            needs.append(need)
            of_suit.append(r)
        self.reach = reach
        self.board = board
        self.payments = payments
        self.memo: dict[tuple[int, Any], _Payable | None] = {}
        self.payables: dict[tuple[tuple[int, ...], ...], _Payable] = {}
        _TABLES.append(self)

    def reachable(self, hand: Sequence[int]) -> list[int]:
        """Indexes of the routes ``hand`` might pay, in route order: the others surely not."""
        reach = self.reach(hand)
        out = self.untested.copy()
        for s, (needs, routes) in self.by_suit.items():
            out += routes[: bisect_right(needs, reach[s])]
        out.sort()
        return out

    def claims(self, hand: Sequence[int], routes: Iterable[int]) -> list[Claim]:
        """The cheapest claims of each of ``routes`` (open to the player) with ``hand``,
        route by route in the order given."""
        out: list[Claim] = []
        seen: list[Any] = [_UNSEEN] * len(self.example)  # per shape: its payments for hand
        counted: dict[Any, Hashable] = {}  # per counts function: what it took from hand
        kind = self.kind
        for r in routes:
            k = kind[r]
            payable = seen[k]
            if payable is _UNSEEN:
                payable = seen[k] = self._payable(k, hand, counted)
            if payable is not None:
                claims = payable.by_route.get(r)
                out += claims if claims is not None else self._claims(payable, r)
        return out

    def _payable(
        self, k: int, hand: Sequence[int], counted: dict[Any, Hashable]
    ) -> _Payable | None:
        counts = self.counts[k]  # shapes alike share one function: taken once per hand
        taken = counted.get(counts, _UNSEEN)
        if taken is _UNSEEN:
            taken = counted[counts] = counts(hand)
        key = (k, taken)
        memo = self.memo
        known = memo.get(key, _UNSEEN)  # one lookup: another thread may clear the memo
        if known is not _UNSEEN:
            return cast(_Payable | None, known)
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
            self.payables.clear()
        pays = self.payments(self.board, self.example[k], hand)
        if not pays:
            memo[key] = None
            return None
        # Many hands pay alike: they share one _Payable, and so its routes' claims.
        same = tuple(tuple(p) for p in pays)
        payable = self.payables.get(same)
        if payable is None:
            payable = self.payables[same] = _Payable(pays)
        memo[key] = payable
        return payable

    def _claims(self, payable: _Payable, r: int) -> tuple[Claim, ...]:
        route_id = self.board.route_ids[r]
        claims = payable.by_route[r] = tuple(claim_of(route_id, p) for p in payable.pays)
        return claims


_UNSEEN: Any = object()  # a marker: not looked up yet


@cache
def these_cards(*cards: int) -> Callable[[Sequence[int]], Hashable]:
    """``counts`` for payments that depend on the counts of ``cards`` alone."""
    return itemgetter(*cards)


@cache
def at_most(cap: int, *cards: int) -> Callable[[Sequence[int]], Hashable]:
    """``counts`` for payments that use at most ``cap`` cards of any kind of ``cards``."""
    pick = itemgetter(*cards)
    return lambda hand: tuple([n if n < cap else cap for n in pick(hand)])


_TABLES: list[ClaimTable] = []  # every table built, for ``clear_memos``
_MEMOS: list[dict[Any, Any]] = []  # the rule modules' memos, for ``clear_memos``


def new_memo() -> dict[Any, Any]:
    """A memo dict that ``clear_memos`` empties (a rule module's own, like a table's)."""
    memo: dict[Any, Any] = {}
    _MEMOS.append(memo)
    return memo


def clear_memos() -> None:
    """Forget every memo of payments and shared actions (benchmarks measure a cold start)."""
    for table in _TABLES:
        table.memo.clear()
        table.payables.clear()
    for memo in _MEMOS:
        memo.clear()
    clear_shared_actions()
