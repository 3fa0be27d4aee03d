"""The engine's payment search against an exhaustive one, on random hands (RULES.md §1, §4).

``valid_by_the_rules`` restates the payment rules independently of ``engine.payment``:
a route's spaces are filled one by one, each by a card of the route's colour (gray: one
colour for the whole route), by a locomotive, or, where the map allows, by a group of
substitute cards; ferry spaces take a locomotive or a substitute group; every card paid
fills exactly one space or belongs to exactly one group. Every sub-hand of a random hand
is checked against ``claim_colour`` (what ``apply`` accepts), and whether any exists
against ``cheapest_claims`` (what ``legal_actions`` offers).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import product

import pytest

from engine import Claim, GameConfig, legal_actions, new_game
from engine.board import Board, board_for
from engine.cards import GRAY, LOCO, N_CARDS
from engine.payment import NO, cheapest_claims, claim_colour


def valid_by_the_rules(board: Board, r: int, pay: Sequence[int]) -> bool:
    rules = board.rules
    length, ferry, any_sub = board.r_len[r], board.r_ferry[r], board.r_any_sub[r]
    colours = range(LOCO) if board.r_color[r] == GRAY else (board.r_color[r],)
    total, locos = sum(pay), pay[LOCO]
    if any_sub:  # Murmansk–Lieksa: singles of the colour, groups of `any_sub` of anything
        return any(
            total == length - groups + any_sub * groups and pay[c] >= length - groups
            for c in colours
            for groups in range(length + 1)
        )
    locos_allowed = not rules.locomotives_only_tunnels_ferries or board.r_tunnel[r] or ferry
    if locos and not locos_allowed:
        return False
    group = rules.ferry_cards_per_locomotive if ferry else None
    for c in colours:
        for groups in range(length + 1 if group else 1):
            for on_symbols in range(min(groups, ferry) + 1):
                on_colour = groups - on_symbols
                colour_spaces = length - ferry - on_colour
                if colour_spaces < 0:
                    continue
                for colour_cards in range(min(pay[c], colour_spaces) + 1):
                    single_locos = (ferry - on_symbols) + (colour_spaces - colour_cards)
                    if single_locos > locos:
                        continue
                    rest = total - colour_cards - single_locos
                    if rest == (group or 0) * groups:
                        return True
    return False


def sub_hands(hand: Sequence[int]) -> Iterator[list[int]]:
    for pay in product(*(range(n + 1) for n in hand)):
        yield list(pay)


def random_hand(rng: random.Random, board: Board, r: int) -> list[int]:
    """A hand of a few kinds (so every sub-hand can be tried), sized around the route."""
    hand = [0] * N_CARDS
    kinds = rng.sample(range(N_CARDS), rng.randint(1, 4))
    if board.r_color[r] != GRAY and rng.random() < 0.5:
        kinds.append(board.r_color[r])
    size = rng.randint(0, board.r_len[r] * (4 if board.r_any_sub[r] else 3) + 1)
    for _ in range(size):
        hand[rng.choice(kinds)] += 1
    return hand


def disagreements(map_id: str, samples: int, seed: int) -> list[str]:
    board = board_for(map_id)
    rng = random.Random(seed)
    special = [
        r for r in range(len(board.route_ids)) if board.r_ferry[r] or board.r_any_sub[r]
    ]
    out: list[str] = []
    for _ in range(samples):
        if special and rng.random() < 0.7:
            r = rng.choice(special)
        else:
            r = rng.randrange(len(board.route_ids))
        hand = random_hand(rng, board, r)
        if board.r_any_sub[r] and sum(hand) > 24:
            continue  # Murmansk–Lieksa's largest hands: too many sub-hands to list
        valid = [p for p in sub_hands(hand) if valid_by_the_rules(board, r, p)]
        for pay in sub_hands(hand):
            accepted = claim_colour(board, r, pay) != NO
            if accepted != valid_by_the_rules(board, r, pay):
                out.append(f"{board.route_label(r)}: claim_colour {accepted} for {pay}")
        offered = cheapest_claims(board, r, hand)
        if bool(offered) != bool(valid):
            out.append(f"{board.route_label(r)}: offers {offered} from {hand}")
        for pay in offered:
            if pay not in valid:
                out.append(f"{board.route_label(r)}: offers invalid {pay} from {hand}")
        if offered and valid and min(map(sum, offered)) != min(map(sum, valid)):
            out.append(f"{board.route_label(r)}: cheapest {offered} from {hand} is not")
    return out


@pytest.mark.parametrize(
    ("map_id", "samples"),
    [("nordic", 1500), ("usa", 150), ("europe", 300), ("pennsylvania", 150), ("iberia", 150)],
)
@pytest.mark.slow
def test_payment_search_agrees_with_an_exhaustive_search(map_id: str, samples: int) -> None:
    assert disagreements(map_id, samples, seed=9) == []


def test_legal_actions_offer_a_claim_exactly_when_a_payment_exists() -> None:
    """On Nordic, where the substitutes make payments hard to find."""
    state = new_game(GameConfig(map_id="nordic", players=["A", "B"], seed=1))
    state.phase, state.offered, state.keep_min = "turn", [[], []], [0, 0]
    board = state.board
    rng = random.Random(4)
    seat = state.current
    for _ in range(60):
        r = rng.randrange(len(board.route_ids))
        state.hands[seat] = hand = random_hand(rng, board, r)
        offered = {a.route for a in legal_actions(state, seat) if isinstance(a, Claim)}
        exists = any(valid_by_the_rules(board, r, p) for p in sub_hands(hand))
        assert (board.route_ids[r] in offered) == exists, (board.route_label(r), hand)
