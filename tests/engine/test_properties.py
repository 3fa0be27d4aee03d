"""Random legal games on every engine map and player count, with invariants after every action."""

from __future__ import annotations

import json
import os
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    GameConfig,
    GameState,
    IllegalAction,
    apply,
    legal_actions,
    new_game,
    public_view,
    replay,
    waiting_for,
)
from engine.agents import random_action
from engine.board import board_for
from engine.cards import LOCO, N_CARDS, SHIP
from engine.modules.festivals import DRAFT_CARD, FESTIVAL_BASE

MAPS = ("usa", "europe", "nordic", "pennsylvania", "iberia", "world")
MAX_ACTIONS = 3000


def card_counts(state: GameState) -> Counter[int]:
    """Train cards wherever they are (special cards such as festivals left out)."""
    cards: Counter[int] = Counter(c for c in state.deck if c < N_CARDS)
    cards.update(state.discards)
    cards.update(c for c in state.market if c >= 0)
    for hand in state.hands:
        cards.update({c: n for c, n in enumerate(hand)})
    if state.tunnel:
        cards.update({c: n for c, n in enumerate(state.tunnel.paid)})
        cards.update(state.tunnel.revealed)
    return cards


def check_rails_and_sails(state: GameState) -> None:
    """Both decks' cards and both kinds of pieces are conserved; the score is public."""
    board, config, ext = state.board, state.board.rules.rails_and_sails, state.ext["rs"]
    assert config is not None
    cards: Counter[int] = Counter(
        state.deck
        + state.discards
        + ext["ship_deck"]
        + ext["ship_discards"]
        + [c for c in state.market if c >= 0]
    )
    for hand in state.hands:
        cards.update({c: n for c, n in enumerate(hand)})
    assert sum(n for c, n in cards.items() if c < SHIP) == 80
    assert sum(n for c, n in cards.items() if c >= SHIP) == 60
    assert cards[LOCO] == 14
    for seat in range(state.n_players):
        owned = [board.map.routes[r] for r, s in enumerate(state.owner) if s == seat]
        placed_trains = sum(r.length for r in owned if r.kind == "train")
        placed_ships = sum(r.length for r in owned if r.kind == "ship")
        if ext["chosen"][seat]:
            assert (
                ext["trains"][seat] + placed_trains + ext["box_trains"][seat] == config.max_trains
            )
            assert ext["ships"][seat] + placed_ships + ext["box_ships"][seat] == config.max_ships
            assert state.trains[seat] == ext["trains"][seat] + ext["ships"][seat]
            assert ext["trains"][seat] <= config.max_trains and ext["ships"][seat] <= 50
        route_points = sum(board.r_points[r] for r, s in enumerate(state.owner) if s == seat)
        assert state.scores[seat] == route_points - ext["exchanged"][seat]


def check_invariants(state: GameState) -> None:
    board, rules = state.board, state.board.rules
    if rules.rails_and_sails:
        check_rails_and_sails(state)
        return
    # Every card is somewhere, exactly once.
    counts = card_counts(state)
    assert counts[LOCO] == rules.deck.locomotives
    assert all(counts[c] == rules.deck.per_color for c in range(LOCO))
    assert sum(counts.values()) == rules.deck.total == 110
    assert all(n >= 0 for hand in state.hands for n in hand)
    for seat in range(state.n_players):
        owned = [r for r, s in enumerate(state.owner) if s == seat]
        # Pieces are conserved and the public score is the recount of claimed routes.
        assert state.trains[seat] + sum(board.r_len[r] for r in owned) == rules.trains
        assert state.trains[seat] >= 0
        assert state.scores[seat] == sum(board.r_points[r] for r in owned)
        built = sum(1 for s in state.stations.values() if s == seat)
        per_player = rules.stations.per_player if rules.stations else 0
        assert state.stations_left[seat] + built == per_player
        # Nobody owns both tracks of a double route.
        assert all(state.owner[board.r_twin[r]] != seat for r in owned if board.r_twin[r] >= 0)
    if state.n_players < rules.double_routes_min_players:
        assert all(
            not (s >= 0 and state.owner[board.r_twin[r]] >= 0)
            for r, s in enumerate(state.owner)
            if board.r_twin[r] >= 0
        )
    check_module_items(state)
    # Tickets: no ticket is in two places; regular ones are never lost when returned to the bottom.
    placed = list(state.ticket_deck)
    for seat in range(state.n_players):
        placed += state.tickets[seat] + state.offered[seat]
    draft = state.ext.get("festivals", {}).get("draft")
    if draft and state.phase == "draft":
        placed += [t for packet in draft["packets"] for t in packet]
        placed += [t for picked in draft["picked"] for t in picked]
    elif draft:  # keeping: the picks are offered; the unkept wait to go back
        placed += draft.get("returned", [])
    assert len(placed) == len(set(placed))
    regular = sum(1 for t in placed if not board.t_long[t])
    total_regular = sum(1 for long in board.t_long if not long)
    if rules.returned_tickets == "bottom" and rules.setup_tickets.returned in (None, "bottom"):
        assert regular == total_regular
    else:
        assert regular <= total_regular


def check_module_items(state: GameState) -> None:
    """Shares and festival cards are conserved."""
    rules = state.board.rules
    if rules.shares:
        shares = state.ext["shares"]
        for company in rules.shares.companies:
            held = sum(1 for h in shares["held"] for c, _ in h if c == company.id)
            neutral = sum(1 for c, _ in shares["neutral"] if c == company.id)
            assert held + neutral == shares["taken"][company.id] <= company.shares
    if rules.festivals:
        festivals = state.ext["festivals"]
        for i, pile in enumerate(rules.festivals.piles):
            in_deck = state.deck.count(FESTIVAL_BASE + i)
            held = sum(h.get(pile.id, 0) for h in festivals["held"])
            assert in_deck + festivals["piles"][pile.id] + held == pile.cards
        assert state.deck.count(DRAFT_CARD) == (
            0 if festivals["second_draft_due"] or festivals["second_draft_done"] else 1
        ) or state.phase in ("draft", "draft_keep")


def check_snapshot(state: GameState) -> None:
    snap = state.to_snapshot()
    again = GameState.from_snapshot(json.loads(json.dumps(snap)))
    assert again.to_snapshot() == snap
    assert state.to_snapshot(shared=True) == snap  # what the bot stores: the same, uncopied
    assert public_view(again) == public_view(state)


def check_public_view_hides_secrets(state: GameState) -> None:
    """The public view must not change when only hidden information changes."""
    before = public_view(state)
    disguised = GameState.from_snapshot(state.to_snapshot())
    for seat, hand in enumerate(disguised.hands):
        size = sum(hand)
        disguised.hands[seat] = [0] * len(hand)
        disguised.hands[seat][seat % LOCO] = size
    ext = disguised.ext
    if "rs" in ext and not all(ext["rs"]["chosen"]):  # the split, until everyone has chosen
        ext["rs"]["trains"], ext["rs"]["ships"] = ext["rs"]["ships"], ext["rs"]["trains"]
    if "shares" in ext:  # who holds which share
        ext["shares"]["held"].reverse()
    if "festivals" in ext:  # who holds which festival cards
        ext["festivals"]["held"].reverse()
    board = state.board
    for seat in range(state.n_players):
        disguised.tickets[seat] = list(reversed(disguised.tickets[seat]))
    disguised.ticket_deck.reverse()
    disguised.deck.sort()
    if before.final is None:
        assert public_view(disguised) == before
    assert board is disguised.board


def play_checked(
    map_id: str, players: int, seed: int, *, snapshot_every: int, legal_every: int
) -> tuple[GameState, list[tuple[int, Action]]]:
    config = GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)], seed=seed)
    state = new_game(config)
    rng = random.Random(seed * 7919 + players)
    log: list[tuple[int, Action]] = []
    check_invariants(state)
    while state.phase != "game_over":
        assert len(log) < MAX_ACTIONS, "the game did not end"
        seats = waiting_for(state)
        seat = rng.choice(seats)
        if legal_every and len(log) % legal_every == 0:
            options = legal_actions(state, seat)
            assert options, f"seat {seat} must act but has no legal action"
            action = rng.choice(options)
        else:
            action = random_action(state, seat, rng)
        version = state.version
        apply(state, seat, action)
        assert state.version == version + 1
        log.append((seat, action))
        check_invariants(state)
        if snapshot_every and len(log) % snapshot_every == 0:
            check_snapshot(state)
            check_public_view_hides_secrets(state)
    assert state.reason in ("trains", "stalled")
    view = public_view(state)
    assert view.final is not None
    for player in view.final.players:
        parts = (
            player.routes
            + sum(t.points for t in player.tickets)
            + player.longest_path_bonus
            + player.most_tickets_bonus
            + player.unused_stations_bonus
            + sum(e.points for e in player.extras)
        )
        assert parts == player.total
    return state, log


@settings(
    max_examples=160,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@pytest.mark.slow
@given(data=st.data(), map_id=st.sampled_from(MAPS), seed=st.integers(0, 2**31))
def test_random_games_keep_every_invariant(data: st.DataObject, map_id: str, seed: int) -> None:
    rules = board_for(map_id).rules
    players = data.draw(st.integers(rules.players_min, rules.players_max), label="players")
    state, log = play_checked(map_id, players, seed, snapshot_every=7, legal_every=5)
    # The log is the source of truth: replaying it gives the same state.
    assert replay(state.config, log).to_snapshot() == state.to_snapshot()


# CI (CI=true) plays every game; a developer's run plays a quarter, to keep the edit-test
# loop short (TTR_FULL_PROPERTIES=1 plays them all locally too).
FULL_RUN = bool(os.environ.get("CI") or os.environ.get("TTR_FULL_PROPERTIES"))


@pytest.mark.parametrize(
    ("map_id", "games"),
    [
        ("usa", 1000),
        ("europe", 1000),
        ("nordic", 200),
        ("pennsylvania", 200),
        ("iberia", 200),
        ("world", 60),
    ],
)
@pytest.mark.slow
def test_thousands_of_random_games_end_with_invariants(map_id: str, games: int) -> None:
    rules = board_for(map_id).rules
    counts = range(rules.players_min, rules.players_max + 1)
    games = games if FULL_RUN else games // 4
    ended = 0
    for seed in range(games):
        players = counts[seed % len(counts)]
        state, _ = play_checked(map_id, players, seed, snapshot_every=0, legal_every=0)
        ended += state.phase == "game_over"
    assert ended == games


@pytest.mark.slow
def test_every_legal_action_is_accepted() -> None:
    """legal_actions never lists an action that apply refuses."""
    for seed in range(10):
        state = new_game(
            GameConfig(map_id=MAPS[seed % len(MAPS)], players=["A", "B", "C"], seed=seed)
        )
        rng = random.Random(seed)
        for _ in range(400):
            if state.phase == "game_over":
                break
            seat = waiting_for(state)[0]
            options = legal_actions(state, seat)
            snap = state.to_snapshot()
            for option in options:
                trial = GameState.from_snapshot(snap)
                try:
                    apply(trial, seat, option)
                except IllegalAction as exc:  # pragma: no cover - the assertion explains
                    raise AssertionError(f"listed but refused: {option}: {exc}") from exc
            apply(state, seat, rng.choice(options))


def test_quick_affordability_agrees_with_the_cheapest_payments() -> None:
    """payment.can_afford (the computer player's fast test) never disagrees with the full one."""
    from engine.payment import can_afford, cheapest_claims

    rng = random.Random(5)
    for map_id in ("usa", "europe", "nordic", "pennsylvania", "iberia"):
        board = board_for(map_id)
        for _ in range(3000):
            hand = [rng.choice((0, 0, 1, 2, 3, 5)) for _ in range(N_CARDS)]
            r = rng.randrange(len(board.route_ids))
            assert can_afford(board, r, hand) == bool(cheapest_claims(board, r, hand)), (
                map_id,
                board.route_label(r),
                hand,
            )
