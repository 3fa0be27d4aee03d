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

from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import cache, reduce
from itertools import chain, compress, count, repeat
from operator import getitem, itemgetter, ne, or_
from typing import Any, NamedTuple

from engine.actions import Action, Claim, claim_of, clear_shared_actions
from engine.board import Board
from engine.cards import LOCO, MOST_OF_A_KIND, N_CARDS
from engine.memo import MEMO_LIMIT, forget_memos
from engine.state import GameState

Payments = Callable[[Board, int, Sequence[int]], list[list[int]]]


class _Payable(dict[int, tuple[Claim, ...]]):
    """The payments of one route shape for one set of counts (``pays``), and per route
    index its claims paying them, built when first asked (``__missing__``), so that its
    ``__getitem__`` gets a route's claims in C once they are built."""

    __slots__ = ("pays", "route_ids")

    def __init__(self, route_ids: tuple[int, ...], pays: list[list[int]]) -> None:
        super().__init__()
        self.route_ids = route_ids
        self.pays = pays

    def __missing__(self, r: int) -> tuple[Claim, ...]:
        route_id = self.route_ids[r]
        claims = self[r] = tuple(map(claim_of, repeat(route_id), self.pays))
        return claims


class Plain(NamedTuple):
    """A route paid the plain way: after ``ferry`` locomotives (its symbols), one card a
    space of one of ``colours`` (the route's colour; any one colour on a gray route) or a
    locomotive; its cheapest payment in a colour plays as many of that colour as fill the
    spaces, and all locomotives pay it where nothing else does (a tunnel: always).
    ``locos``: whether locomotives may fill the plain spaces (and pay it alone)."""

    colours: tuple[int, ...]
    length: int
    ferry: int
    tunnel: bool
    locos: bool


class _PlainShape:
    """A plain route shape's payments as indexes into each of its routes' claims (see
    ``ClaimTable._plain_claims``): per locomotive count (up to the length), per colour
    of ``colours``, per card count of it, the index of the payment with them, 0 for none."""

    __slots__ = ("by_count", "colour", "getters", "index", "length", "locos", "lookup",
                 "plain", "played", "tunnel")

    def __init__(self, plain: Plain) -> None:
        self.length = plain.length
        self.tunnel = plain.tunnel
        self.locos = plain.locos
        spaces = self.plain = plain.length - plain.ferry
        # A coloured shape's getters by locomotive count and count of its colour (filled
        # as met; counts beyond the table are as many as fill the route); -1: gray.
        self.colour = plain.colours[0] if len(plain.colours) == 1 else -1
        self.by_count: list[list[Any]] = [
            [_UNSEEN] * MOST_OF_A_KIND for _ in range(plain.length + 1)]
        # A coloured shape's per locomotive count, per card count of its colour: the index
        # of its payment (a gray shape's are worked out from ``played``).
        self.lookup: tuple[tuple[int, ...], ...] = tuple(
            tuple(_claim_index(0, _played(n, spaces, plain, locos), spaces)
                  for n in range(MOST_OF_A_KIND))
            for locos in range(plain.length + 1)
        ) if self.colour >= 0 else ()
        # A gray shape's key for a hand: per locomotive count (up to the length), the
        # translation of each colour's count (a byte) to the cards of it its payment plays,
        # 0 for none (``bytes.translate``: in C, and one key for hands that pay alike).
        self.played = tuple(
            bytes(_played(n, spaces, plain, locos) for n in range(256))
            for locos in range(plain.length + 1)
        ) if self.colour < 0 else ()
        # A gray shape's per colour j, per cards of it played: the index of that payment.
        self.index = tuple(
            tuple(_claim_index(j, p, spaces) for p in range(spaces + 1))
            for j in range(len(plain.colours))
        ) if self.colour < 0 else ()
        # A gray shape's getters per locomotive count, by key (``played``'s translation of
        # the hand's colours) (``ClaimTable.claims``), None: no payment.
        self.getters: list[dict[bytes, Callable[[Any], Any] | None]] = [
            {} for _ in range(plain.length + 1)]


def _played(n: int, spaces: int, plain: Plain, locos: int) -> int:
    """The cards of a colour that a plain shape's cheapest payment in it plays, from ``n``
    of them and at most ``locos`` locomotives; 0 for no payment in that colour."""
    played = n if n < spaces else spaces
    short = spaces - played
    if not n or (short and not plain.locos) or short + plain.ferry > locos:
        return 0
    return played


def _claim_index(j: int, played: int, spaces: int) -> int:
    """The index in ``_plain_claims``' tuple of the payment playing ``played`` cards of
    colour ``plain.colours[j]`` (the rest in locomotives), 0 for none."""
    return 2 + j * spaces + played - 1 if played else 0


class ClaimTable:
    """One map's routes grouped by shape, with the memo of their payments.

    ``shape(r)`` says what route ``r``'s payments depend on besides the hand, and
    ``counts(r)`` gives the function that picks from a hand what they depend on (as a
    key: the fewer distinct keys, the more the memo serves); ``payments`` is the map's
    function listing a route's cheapest payments for a hand. Most routes are out
    of a hand's reach, which a cheap test tells first: ``reach(hand)`` gives, per suit,
    the most spaces the hand could fill, and ``suit(r)`` which of them route ``r`` needs
    (several: any one of them will do; None: no such test for it). ``pieces(r)`` says
    which of a player's piece counts (``claims``' ``pieces``) a route's length is taken
    from.

    Sets of routes are bitmasks (bit ``r`` for route ``r``): the routes within reach
    are an OR of one precomputed mask per suit, those open to a player an AND with its
    ``closed_routes`` and the routes its pieces can fill, so that only the few routes
    left are visited one by one.

    Routes paid the plain way (``plain(r)``: a ``Plain``, or None for the others) skip
    the payment function and its memo: each has its claims built once, in a tuple
    indexed by (colour, cards of it), and a hand's payments for a shape are a few
    indexes read from precomputed tables (many hands, one claim each per colour).
    """

    def __init__(
        self,
        board: Board,
        shape: Callable[[int], Hashable],
        counts: Callable[[int], Callable[[Sequence[int]], Hashable]],
        suit: Callable[[int], int | tuple[int, ...] | None],
        reach: Callable[[Sequence[int]], Iterable[int]],
        payments: Payments,
        pieces: Callable[[int], int] = lambda r: 0,
        plain: Callable[[int], Plain | None] = lambda r: None,
    ) -> None:
        routes = range(len(board.route_ids))
        shapes: dict[Hashable, int] = {}
        self.kind = tuple(shapes.setdefault(shape(r), len(shapes)) for r in routes)
        first = {k: r for r, k in reversed(list(enumerate(self.kind)))}
        self.example = tuple(first[k] for k in range(len(shapes)))  # a route of each shape
        self.counts = tuple(counts(r) for r in self.example)
        plains = [plain(r) for r in self.example]
        self.plain = tuple(None if p is None else _PlainShape(p) for p in plains)
        # Per route, what its shape's getter picks its claims from: a plain route's
        # claims by index (``_plain_claims``), another's route index.
        held = [
            r if plains[self.kind[r]] is None
            else _plain_claims(board.route_ids[r], plains[self.kind[r]])  # type: ignore[arg-type]
            for r in routes
        ]
        self.routes = tuple(zip(self.kind, held, strict=True))  # per route: (shape, held)
        # Per byte of a bitmask of routes (lowest first), per value of it: its routes'
        # (shape, held), in route order (``claims`` reads a mask's routes a byte at a time).
        self.bytes = (len(routes) + 7) // 8
        self.by_byte = tuple(
            tuple(tuple(self.routes[r] for r in range(8 * i, min(8 * i + 8, len(routes)))
                        if bits >> (r - 8 * i) & 1)
                  for bits in range(256))
            for i in range(self.bytes))
        self.unseen: list[Any] = [_UNSEEN] * len(shapes)
        longest = self.longest = max(board.r_len, default=0)
        # Per suit, per spaces the hand could fill (up to the longest route): its routes
        # that short or shorter; routes without a test are always within reach.
        tests = [(s,) if isinstance(s := suit(r), int) else s for r in routes]
        self.untested = sum(1 << r for r in routes if tests[r] is None)
        self.by_suit = tuple(  # indexed like ``reach``'s list, then by spaces (any up to 63)
            tuple(sum(1 << r for r in routes if s in (tests[r] or ()) and board.r_len[r] <= n)
                  for n in range(max(longest + 1, _REACH_TABLE)))
            for s in range(max((max(s) for s in tests if s is not None), default=-1) + 1)
        )
        self.caps = (longest,) * len(self.by_suit)  # reach beyond the longest route: as far
        # Per kind of pieces, per count left: the routes that short or shorter.
        kinds_of_pieces = [pieces(r) for r in routes]
        self.fits = [
            [sum(1 << r for r in routes if kinds_of_pieces[r] == c and board.r_len[r] <= n)
             for n in range(longest + 1)]
            for c in range(max(kinds_of_pieces, default=0) + 1)
        ]
        self.reach = reach
        self.board = board
        self.payments = payments
        # Per shape, its payments per what ``counts`` took from a hand (None: no payment).
        self.memo: tuple[dict[Hashable, _Payable | None], ...] = tuple(
            {} for _ in range(len(shapes)))
        self.payables: dict[tuple[tuple[int, ...], ...], _Payable] = {}
        self.entries = 0  # in all of ``memo`` (about: threads may add at once)
        _TABLES.append(self)

    def claims(self, state: GameState, seat: int, hand: Sequence[int],
               pieces: Sequence[int]) -> list[Action]:
        """The cheapest claims with ``hand`` of each route open to ``seat`` (cards aside:
        those ``turns.claim_problem`` finds nothing against), route by route in route
        order. ``pieces``: the pieces ``seat`` has left of each kind (``pieces(r)`` of the
        table)."""
        longest = self.longest
        # The routes within reach: per suit, those short enough (one mask per suit).
        try:
            found = reduce(or_, map(getitem, self.by_suit, self.reach(hand)), self.untested)
        except IndexError:  # a reach beyond the tables (more than any hand holds): clip it
            found = reduce(or_, map(getitem, self.by_suit, map(min, self.reach(hand),
                                                                self.caps)), self.untested)
        if len(pieces) == 1:  # one kind of pieces (the core's trains)
            n = pieces[0]
            room = self.fits[0][n if 0 <= n <= longest else 0 if n < 0 else longest]
        else:
            room = 0
            for fits, n in zip(self.fits, pieces, strict=True):  # per kind of pieces
                room |= fits[n if 0 <= n <= longest else 0 if n < 0 else longest]
        found &= room & ~closed_routes(state)[seat]
        # Per shape among them, what picks a route's claims from what it holds (a plain
        # shape's tuple of claims, another's route index): its payments for ``hand``.
        pick: list[Any] = self.unseen.copy()  # per shape: its getter for hand
        counted: dict[Any, Hashable] = {}  # per counts function: what it took from hand
        out: list[Action] = []  # (claims only: typed for the callers that extend it)
        plain, memos, counts_of = self.plain, self.memo, self.counts
        locos = hand[LOCO]
        colours: bytes | None = None  # the hand's colour counts, for gray shapes' keys
        for k, held in chain.from_iterable(  # (read a byte at a time, in C)
                map(getitem, self.by_byte, found.to_bytes(self.bytes, "little"))):
            getter = pick[k]
            if getter is _UNSEEN:
                shape = plain[k]  # read here, not in a call: the common cases first
                if shape is None:  # the memo of payments, for what its counts take
                    counts = counts_of[k]  # (shapes alike share one: taken once per hand)
                    taken = counted.get(counts, _UNSEEN)
                    if taken is _UNSEEN:
                        taken = counted[counts] = counts(hand)
                    payable = memos[k].get(taken, _UNSEEN)
                    if payable is _UNSEEN:
                        payable = self._payable(k, hand, taken)
                    getter = None if payable is None else payable.__getitem__
                elif shape.colour >= 0:
                    if (n := hand[shape.colour]) < MOST_OF_A_KIND:
                        getter = shape.by_count[
                            locos if locos < shape.length else shape.length][n]
                else:  # gray: its getters by the cards each colour would play
                    if colours is None:
                        colours = _colour_counts(hand)
                    level = locos if locos < shape.length else shape.length
                    getter = shape.getters[level].get(
                        colours.translate(shape.played[level]), _UNSEEN)
                if getter is _UNSEEN:
                    getter = self._getter(k, hand)
                pick[k] = getter
            if getter is not None:
                out += getter(held)
        return out

    def pays(self, r: int, hand: Sequence[int]) -> bool:
        """Whether ``hand`` pays route ``r`` at all (``payments`` lists something), from
        the memo where there is one."""
        k = self.kind[r]
        if self.plain[k] is not None:
            return bool(self.payments(self.board, r, hand))
        taken = self.counts[k](hand)
        payable = self.memo[k].get(taken, _UNSEEN)
        if payable is _UNSEEN:
            payable = self._payable(k, hand, taken)
        return payable is not None

    def _getter(self, k: int, hand: Sequence[int]) -> Callable[[Any], Any] | None:
        """What picks the claims of a route of plain shape ``k`` for ``hand`` from what
        the table holds for it (``held``), or None if it has no payment."""
        shape = self.plain[k]
        assert shape is not None  # (``claims`` reads the others' memo itself)
        # A plain shape's payments: per colour, an index read from the tables in C; the
        # getter of those indexes is kept per locomotive count (a coloured shape's, per
        # count of its colour too, in a table).
        getter: Callable[[Any], Any] | None
        locos = hand[LOCO]
        level = locos if locos < shape.length else shape.length
        colour = shape.colour
        if colour >= 0:
            row = shape.by_count[level]
            n = hand[colour]
            if n >= MOST_OF_A_KIND:  # beyond the table: as many as fill the route
                n = MOST_OF_A_KIND - 1
            getter = row[n]
            if getter is _UNSEEN:
                index = shape.lookup[level][n]
                getter = row[n] = _plain_getter(shape, (index,), level == shape.length)
            return getter
        key = _colour_counts(hand).translate(shape.played[level])
        getters = shape.getters[level]
        getter = getters.get(key, _UNSEEN)
        if getter is _UNSEEN:
            if len(getters) >= MEMO_LIMIT:
                getters.clear()
            indexes = tuple(map(getitem, shape.index, key))  # (read in C)
            getter = getters[key] = _plain_getter(shape, indexes, level == shape.length)
        return getter

    def forget(self) -> None:
        """Empty the memo of payments (when full, or for a cold start)."""
        for memo in self.memo:
            memo.clear()
        self.payables.clear()
        self.entries = 0

    def _payable(self, k: int, hand: Sequence[int], taken: Hashable) -> _Payable | None:
        """The payments of shape ``k`` for ``hand`` (``taken``: what its counts took from
        it), worked out with the map's payment function and kept in its memo."""
        memo = self.memo[k]
        self.entries += 1
        if self.entries > MEMO_LIMIT:
            self.forget()
        pays = self.payments(self.board, self.example[k], hand)
        if not pays:
            memo[taken] = None
            return None
        # Many hands pay alike: they share one _Payable, and so its routes' claims.
        same = tuple(map(tuple, pays))
        payable = self.payables.get(same)
        if payable is None:
            payable = self.payables[same] = _Payable(self.board.route_ids, pays)
        memo[taken] = payable
        return payable


def _colour_counts(hand: Sequence[int]) -> bytes:
    """A hand's counts of the colours as bytes (a gray shape's ``played`` translates them)."""
    try:
        return bytes(hand[:LOCO])
    except ValueError:  # a count no byte holds (only in a position set up so): clip it
        return bytes([0 if n < 0 else 255 if n > 255 else n for n in hand[:LOCO]])


def _plain_claims(route_id: int, plain: Plain) -> tuple[Claim | None, ...]:
    """A plain route's claims, by index: 0 none, 1 all locomotives, then per colour of
    ``plain.colours`` (j) and cards of it played (1 to the plain spaces, p), at
    ``_claim_index(j, p, spaces)`` the payment with the rest in locomotives."""
    spaces = plain.length - plain.ferry
    everything = [0] * N_CARDS
    everything[LOCO] = plain.length
    out: list[Claim | None] = [None, claim_of(route_id, everything)]
    for c in plain.colours:
        for played in range(1, spaces + 1):
            pay = [0] * N_CARDS
            pay[c] = played
            pay[LOCO] = plain.length - played
            out.append(claim_of(route_id, pay))
    return tuple(out)


def _plain_getter(
    shape: _PlainShape, indexes: tuple[int, ...], all_locos: bool
) -> Callable[[Any], Any] | None:
    """What picks a plain route's claims (``payment.cheapest_claims``' in its order) from
    its tuple of them: those of ``indexes`` but 0 (per colour: none), and all locomotives
    if ``all_locos`` (the hand holds as many as the length) where nothing else pays or on
    a tunnel (only locomotives stand any card revealed); None if nothing pays."""
    found = [*filter(None, indexes)]
    if (shape.tunnel or not found) and shape.locos and all_locos:
        found.append(1)
    if not found:
        return None
    key = tuple(found)
    getter = _PICKERS.get(key)  # (one per indexes, whatever the shape: fewer objects kept)
    if getter is None:
        if len(_PICKERS) >= MEMO_LIMIT:
            _PICKERS.clear()
        # A tuple of one claim too (``itemgetter`` of one index gives the claim itself).
        getter = _PICKERS[key] = (itemgetter(*key) if len(key) > 1
                                  else itemgetter(slice(key[0], key[0] + 1)))
    return getter


_PICKERS: dict[tuple[int, ...], Callable[[Any], Any]] = {}  # see _plain_getter


class _Closed:
    """Per seat, the routes it may not claim whatever its cards (``closed_routes``) and
    those it owns (``owned_routes``), worked out from the owners in ``owner`` (a copy, to
    tell when they change)."""

    __slots__ = ("owned", "owner", "per_seat")

    def __init__(self, owner: list[int], per_seat: list[int], owned: list[int]) -> None:
        self.owner = owner
        self.per_seat = per_seat
        self.owned = owned


def owned_routes(state: GameState) -> list[int]:
    """Per seat, a bitmask of the routes it owns (kept as ``closed_routes`` is)."""
    closed_routes(state)
    owned: list[int] = state.closed.owned
    return owned


def closed_routes(state: GameState) -> list[int]:
    """Per seat, a bitmask of the routes closed to it: claimed ones, and the other track
    of a double route it owns (any taken double below the map's player count). Kept on
    the state and worked out again only when an owner changed (claims are rare beside
    the calls that ask), which a comparison of the owners tells (anything may set them:
    positions, tests)."""
    closed = state.closed
    owner = state.owner
    if closed is not None:
        known: list[int] = closed.per_seat
        if closed.owner == owner:
            return known
        # Usually a route or two were claimed since: add them; anything else (a route
        # given back or changing hands, in a position) is worked out afresh below.
        changed = list(compress(count(), map(ne, closed.owner, owner)))
        if all(closed.owner[r] < 0 for r in changed):
            return _close(state, known, closed.owned, changed)
    none = [0] * state.n_players
    return _close(state, none, none, [r for r, s in enumerate(owner) if s >= 0])


def claim_route(state: GameState, r: int, seat: int) -> None:
    """Give route ``r`` (unowned) to ``seat``: a claim's write of the owner, which adds the
    route to ``closed_routes``' kept answer at once when that is current (as most are),
    sparing the next call its search for what changed."""
    closed = state.closed
    owner = state.owner
    current = closed is not None and closed.owner == owner
    owner[r] = seat
    if not current:
        return  # worked out afresh when next asked
    bit, other_track = 1 << r, _blocks(state.board)[r]
    if state.n_players < state.board.rules.double_routes_min_players:
        bit |= other_track  # one track of a double only: the other closes to all
        other_track = 0
    per_seat = [*map(bit.__or__, closed.per_seat)]
    per_seat[seat] |= other_track
    owned = closed.owned.copy()
    owned[seat] |= 1 << r
    state.closed = _Closed(owner.copy(), per_seat, owned)


def _close(state: GameState, closed: list[int], owned: list[int], taken: list[int]) -> list[int]:
    """``closed`` and ``owned`` with the routes of ``taken`` (all now owned) added."""
    owner = state.owner
    board = state.board
    blocks = _blocks(board)
    every = sum(1 << r for r in taken)
    small = state.n_players < board.rules.double_routes_min_players
    if small:  # one track of a double only: a taken track closes the other to all
        every |= sum(blocks[r] for r in taken)
    per_seat = [c | every for c in closed]
    owned = owned.copy()
    for r in taken:
        owned[owner[r]] |= 1 << r
        if not small:
            per_seat[owner[r]] |= blocks[r]
    state.closed = _Closed(owner.copy(), per_seat, owned)
    return per_seat


@cache
def _blocks(board: Board) -> tuple[int, ...]:
    """Per route, the routes whose other track it is (``r_twin``), as a bitmask."""
    out = [0] * len(board.r_twin)
    for r, twin in enumerate(board.r_twin):
        if twin >= 0:
            out[twin] |= 1 << r
    return tuple(out)


_REACH_TABLE = 64  # spaces of reach the tables cover without clipping (a hand holds fewer)
_UNSEEN: Any = object()  # a marker: not looked up yet


@cache
def these_cards(*cards: int) -> Callable[[Sequence[int]], Hashable]:
    """``counts`` for payments that depend on the counts of ``cards`` alone."""
    return itemgetter(*cards)


_TABLES: list[ClaimTable] = []  # every table built, for ``clear_memos``


def clear_memos() -> None:
    """Forget every memo of payments and shared actions (benchmarks measure a cold start)."""
    for table in _TABLES:
        table.forget()
        for shape in table.plain:
            if shape is not None:
                for getters in shape.getters:
                    getters.clear()
                for row in shape.by_count:
                    row[:] = [_UNSEEN] * len(row)
    forget_memos()
    clear_shared_actions()
