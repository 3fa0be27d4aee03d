"""How cards pay for routes, tunnels' extra cards and stations.

Payments are nine-count lists (see ``engine.cards``). ``claim_colour`` says
whether a payment is a valid shape for a route (ignoring what the player
holds); ``cheapest_claims`` lists, per colour, the payment that spends the
fewest cards (and the fewest locomotives among those) from a hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.board import Board
from engine.cards import GRAY, LOCO, N_CARDS, SUIT_WORDS, describe_cards
from engine.errors import Plural, Text

NO = -2  # claim_colour's answer for an invalid payment


def _candidate_colours(board: Board, r: int, pay: Sequence[int]) -> list[int]:
    color = board.r_color[r]
    if color != GRAY:
        return [color]
    return [c for c in range(LOCO) if pay[c]] or [GRAY]


def claim_colour(board: Board, r: int, pay: Sequence[int]) -> int:
    """The colour a valid payment for route ``r`` is played in (LOCO if all locomotives), or NO."""
    rules = board.rules
    length, ferry, any_sub = board.r_len[r], board.r_ferry[r], board.r_any_sub[r]
    total, locos = sum(pay), pay[LOCO]
    colours = [c for c in range(LOCO) if pay[c]]
    if any_sub:
        # Murmansk–Lieksa: each group of `any_sub` cards of any kind replaces one coloured card.
        extra = total - length
        if extra < 0 or extra % (any_sub - 1):
            return NO
        replaced = extra // (any_sub - 1)
        if replaced > length:
            return NO
        if replaced == length:
            return max(colours, key=lambda c: pay[c]) if colours else LOCO
        best = [
            c
            for c in _candidate_colours(board, r, pay)
            if c != GRAY and pay[c] >= length - replaced
        ]
        return best[0] if best else NO
    if not (board.r_tunnel[r] or ferry) and rules.locomotives_only_tunnels_ferries and locos:
        return NO
    per_loco = rules.ferry_cards_per_locomotive if ferry else None
    if per_loco is None:
        if total != length or len(colours) > 1:
            return NO
        for c in _candidate_colours(board, r, pay):
            if locos >= ferry and (pay[c] if c != GRAY else 0) + locos == length:
                return c if c != GRAY and pay[c] else LOCO
        return NO
    # Nordic ferries: each group of `per_loco` cards of any kind stands for a locomotive,
    # on a symbol or in place of a coloured card; every other card fills one space.
    extra = total - length
    if extra < 0 or extra % (per_loco - 1):
        return NO
    groups = extra // (per_loco - 1)
    if groups > length or locos < ferry - groups:
        return NO
    for c in _candidate_colours(board, r, pay):
        own = pay[c] if c != GRAY else 0
        if own + locos >= length - groups:
            return c if c != GRAY and own else LOCO
    return NO


def _take(hand: Sequence[int], n: int, order: Sequence[int], pay: list[int]) -> int:
    """Move up to ``n`` unspent cards of ``hand`` into ``pay`` in ``order``; return shortfall."""
    for c in order:  # (no builtin min here: a call to it costs more in 3.11)
        if n <= 0:
            break
        k = hand[c] - pay[c]
        if k > 0:
            if k > n:
                k = n
            pay[c] += k
            n -= k
    return n


def _spare_order(hand: Sequence[int], keep: int) -> list[int]:
    """Cards to give as 'any card': plentiful other colours first, ``keep`` and locomotives last."""
    # Most first, ties in colour order (a stable sort keeps it, reversed or not).
    others = sorted(_OTHERS[keep], key=hand.__getitem__, reverse=True)
    return [*others, keep, LOCO] if keep != LOCO else [*others, LOCO]


_OTHERS = tuple(tuple(c for c in range(LOCO) if c != keep) for keep in range(LOCO + 1))


def cheapest_for_colour(board: Board, r: int, hand: Sequence[int], c: int) -> list[int] | None:
    """Cheapest payment for route ``r`` in colour ``c`` (LOCO: all locomotives), or None."""
    rules = board.rules
    length, ferry, any_sub = board.r_len[r], board.r_ferry[r], board.r_any_sub[r]
    route_color = board.r_color[r]
    if c != LOCO and route_color not in (GRAY, c):
        return None
    pay = [0] * N_CARDS
    if any_sub:
        if c == LOCO:
            return None
        own = min(hand[c], length)
        pay[c] = own
        if _take(hand, (length - own) * any_sub, _spare_order(hand, c), pay):
            return None
        return pay
    locos_allowed = not rules.locomotives_only_tunnels_ferries or board.r_tunnel[r] or ferry
    if c == LOCO:
        if not locos_allowed or hand[LOCO] < length:
            return None
        pay[LOCO] = length
        return pay
    per_loco = rules.ferry_cards_per_locomotive if ferry else None
    if per_loco is not None:
        return _cheapest_with_substitutes(hand, length, ferry, c, per_loco)
    plain = length - ferry
    if hand[c] == 0 and plain:
        return None
    pay[c] = min(hand[c], plain)
    short = plain - pay[c]
    if short and not locos_allowed:
        return None
    pay[LOCO] = short + ferry
    return pay if pay[LOCO] <= hand[LOCO] else None


def _cheapest_with_substitutes(
    hand: Sequence[int], length: int, ferry: int, c: int, per_loco: int
) -> list[int] | None:
    """Nordic ferry in colour ``c``: the fewest substitute groups, then the fewest locomotives.

    With ``groups`` groups, ``length - groups`` spaces take one card each: the symbols
    left a locomotive, the others the colour first, then locomotives; the groups take
    spare cards, plentiful other colours first.
    """
    spare: list[int] | None = None  # the same for any number of groups: sorted once
    own, locos = hand[c], hand[LOCO]
    for groups in range(length + 1):  # (no builtin min or max: a call costs more in 3.11)
        symbols = ferry - groups if groups < ferry else 0
        coloured = length - groups - symbols
        played = own if own < coloured else coloured
        if symbols + coloured - played > locos:
            continue
        pay = [0] * N_CARDS
        pay[c] = played
        pay[LOCO] = symbols + coloured - played
        if spare is None:
            spare = _spare_order(hand, c)
        if not _take(hand, groups * per_loco, spare, pay):
            return pay
    return None


def cheapest_claims(board: Board, r: int, hand: Sequence[int]) -> list[list[int]]:
    """One cheapest payment per colour the player could play route ``r`` in."""
    color = board.r_color[r]
    if color != GRAY:
        colours: Sequence[int] = (color,)
    elif board.r_len[r] == board.r_ferry[r]:
        colours = (0,)  # only locomotive symbols: the colour does not matter
    elif board.r_any_sub[r] or (board.r_ferry[r] and board.rules.ferry_cards_per_locomotive):
        colours = [c for c in range(LOCO) if hand[c]]
    else:  # each space takes the colour or a locomotive: no use trying colours short of that
        length, locos = board.r_len[r], hand[LOCO]
        colours = [c for c in range(LOCO) if hand[c] and hand[c] + locos >= length]
    out: list[list[int]] = []
    for c in colours:
        p = cheapest_for_colour(board, r, hand, c)
        if p is not None and p not in out:  # a gray ferry of only symbols pays alike in any colour
            out.append(p)
    if not out or board.r_tunnel[r]:
        # All-locomotive payments matter for tunnels (only revealed locomotives count),
        # and elsewhere only when nothing else pays.
        p = cheapest_for_colour(board, r, hand, LOCO)
        if p is not None and p not in out:
            out.append(p)
    return out


def can_afford(board: Board, r: int, hand: Sequence[int]) -> bool:
    """Whether any payment for route ``r`` exists in ``hand`` (a fast test on the base rules)."""
    rules = board.rules
    if board.r_any_sub[r] or rules.locomotives_only_tunnels_ferries:
        return bool(cheapest_claims(board, r, hand))
    color = board.r_color[r]
    best = max(hand[:LOCO]) if color == GRAY else hand[color]
    # A ferry's symbols take locomotives; every other space takes the colour or a locomotive.
    return hand[LOCO] >= board.r_ferry[r] and best + hand[LOCO] >= board.r_len[r]


def route_requirement(board: Board, r: int) -> Text:
    """What route ``r`` needs, in words: 'Paris–Wien needs 3 green cards or locomotives'."""
    rules = board.rules
    length, ferry, any_sub = board.r_len[r], board.r_ferry[r], board.r_any_sub[r]
    color = board.r_color[r]
    suit = Text("cards of one colour") if color == GRAY else Text(
        "{colour} cards", colour=SUIT_WORDS[color])
    locos_ok = not rules.locomotives_only_tunnels_ferries or board.r_tunnel[r] or ferry
    name = board.route_name(r)
    if any_sub:
        return Text("{route} needs {n} {suit}; any {k} cards may replace one of them",
                    route=name, n=length, suit=suit, k=any_sub)
    if ferry:
        need: Text = Plural("{route} is a ferry: it needs {n} locomotive",
                            "{route} is a ferry: it needs {n} locomotives", ferry, route=name)
        if rules.ferry_cards_per_locomotive:
            need = Text("{need} (any {k} cards may replace a locomotive)", need=need,
                        k=rules.ferry_cards_per_locomotive)
        rest = length - ferry
        if rest:
            need = Text("{need} and {n} {suit} or locomotives", need=need, n=rest, suit=suit)
        return need
    need = Text("{route} needs {n} {suit}", route=name, n=length, suit=suit)
    if locos_ok:
        need = Text("{need} or locomotives", need=need)
    if board.r_tunnel[r]:
        need = Text("{need} (a tunnel: up to 3 more cards may be asked)", need=need)
    return need


def hand_summary(board: Board, r: int, hand: Sequence[int]) -> Text:
    color = board.r_color[r]
    if color == GRAY:
        best = max(range(LOCO), key=lambda c: (hand[c], -c))
        cards = Text("at most {n} of one colour ({colour})", n=hand[best],
                     colour=SUIT_WORDS[best])
    else:
        cards = Text("{n} {colour}", n=hand[color], colour=SUIT_WORDS[color])
    return Plural("you have {cards}, {n} locomotive", "you have {cards}, {n} locomotives",
                  hand[LOCO], cards=cards)


def tunnel_extra_asked(revealed: Sequence[int], played: int) -> int:
    """Extra cards a tunnel played in colour ``played`` (LOCO: only locomotives) asks for
    the cards revealed: one per locomotive and per card of that colour."""
    return sum(1 for c in revealed if c == LOCO or (c == played and played != LOCO))


def tunnel_extra_ok(pay: Sequence[int], extra: int, played: int) -> bool:
    """Extra cards for a tunnel played in colour ``played`` (LOCO: only locomotives)."""
    if sum(pay) != extra:
        return False
    return all(n == 0 or c in (played, LOCO) for c, n in enumerate(pay))


def cheapest_tunnel_extra(hand: Sequence[int], extra: int, played: int) -> list[int] | None:
    pay = [0] * N_CARDS
    order = [LOCO] if played == LOCO else [played, LOCO]
    return None if _take(hand, extra, order, pay) else pay


def station_ok(pay: Sequence[int], cost: int) -> bool:
    return sum(pay) == cost and sum(1 for c in range(LOCO) if pay[c]) <= 1


def cheapest_stations(hand: Sequence[int], cost: int) -> list[list[int]]:
    out = []
    for c in range(LOCO):
        if hand[c] and hand[c] + hand[LOCO] >= cost:
            pay = [0] * N_CARDS
            pay[c] = min(hand[c], cost)
            pay[LOCO] = cost - pay[c]
            out.append(pay)
    if not out and hand[LOCO] >= cost:
        pay = [0] * N_CARDS
        pay[LOCO] = cost
        out.append(pay)
    return out


def missing_cards(pay: Sequence[int], hand: Sequence[int]) -> Text | None:
    short = [max(0, p - h) for p, h in zip(pay, hand, strict=True)]
    return describe_cards(short) if any(short) else None
