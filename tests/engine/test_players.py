"""Computer players: always legal, blind to other seats' secrets, ordered in strength."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest

from engine import (
    Claim,
    DeclineShare,
    DraftPick,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameConfig,
    GameState,
    IllegalAction,
    KeepTickets,
    PendingDraft,
    Position,
    ShareChoice,
    TakeShare,
    apply,
    new_game,
    setup_position,
    waiting_for,
)
from engine.cards import SHIP, SPECIAL
from engine.events import Event
from engine.modules import playable_maps
from engine.players import FACTORIES, LEVELS, REFERENCES, choose_action, observe
from engine.players.determinize import Sampler
from engine.players.heuristic import HARD, HeuristicPlayer
from engine.players.search import SearchConfig, SearchPlayer, searching
from engine.tournament import load_factory, main, tournament
from engine.views import private_view, public_view
from maps import load_map

ALL_PLAYERS = (*LEVELS, *REFERENCES)


@pytest.fixture(autouse=True)
def _hard_searches_a_fixed_number_of_worlds(monkeypatch: pytest.MonkeyPatch) -> None:
    """*hard* searches against the clock, so how far it gets depends on the machine's load;
    here it searches two worlds per decision, so that the same inputs give the same choice
    and the tests are quick. ``test_hard_stops_at_its_time_budget`` tests the clock."""
    monkeypatch.setitem(FACTORIES, "hard", lambda seat: searching(2))


def _counts(map_id: str) -> range:
    rules = load_map(map_id).rules
    return range(rules.players_min, rules.players_max + 1)


@pytest.mark.slow
@pytest.mark.parametrize("map_id", playable_maps())
def test_computer_players_only_submit_legal_actions(map_id: str) -> None:
    """Whole games at every player count, every player at the table; ``apply`` checks each
    action fully and raises on anything illegal. Every waiting seat of a simultaneous
    decision is asked, in turn."""
    phases: set[str] = set()
    for players in _counts(map_id):
        seats = [ALL_PLAYERS[(players + i) % len(ALL_PLAYERS)] for i in range(players)]
        state = new_game(GameConfig(map_id=map_id, players=seats, seed=players))
        history: list[Event] = []
        while state.phase != "game_over":
            phases.add(state.phase)
            for seat in waiting_for(state):
                if state.phase == "game_over" or seat not in waiting_for(state):
                    break
                player = FACTORIES[seats[seat]](seat)
                action = player.choose(observe(state, seat, history=history, seed=players))
                history.extend(apply(state, seat, action))
        assert state.reason == "trains", f"{players} players: the game stalled"
    assert {"turn", "second_draw"} < phases


# Secrecy ----------------------------------------------------------------------------------


def _reshuffle_secrets(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy of ``state`` whose secrets hidden from ``seat`` differ: the other seats'
    cards, tickets, offers, tickets returned, draft packets, shares and festival cards, the
    deck order and the game's random generator. What ``seat`` may see stays the same."""
    other = GameState.from_snapshot(state.to_snapshot())
    others = [s for s in range(other.n_players) if s != seat]
    ship_deck: list[int] = other.ext["rs"]["ship_deck"] if "rs" in other.ext else []
    # Cards: pool the other hands with the deck (train and ship cards apart) and deal again.
    for deck, is_kind in ((other.deck, lambda c: c < SHIP), (ship_deck, lambda c: c >= SHIP)):
        pool = [c for c in deck if c < SPECIAL]
        sizes = []
        for s in others:
            hand = other.hands[s]
            mine = [c for c, n in enumerate(hand) for _ in range(n) if is_kind(c)]
            sizes.append(len(mine))
            for c in mine:
                hand[c] -= 1
            pool += mine
        rng.shuffle(pool)
        for s, size in zip(others, sizes, strict=True):
            for _ in range(size):
                other.hands[s][pool.pop()] += 1
        specials = [c for c in deck if c >= SPECIAL]
        deck[:] = pool + specials
        rng.shuffle(deck)
    # Tickets: swap the other seats' tickets and offers with tickets still in the deck; the
    # tickets they returned are others.
    tickets = other.ticket_deck
    rng.shuffle(tickets)
    for s in others:
        other.returned[s] = rng.sample(range(len(other.board.t_ids)), len(other.returned[s]) + 1)
        for held in (other.tickets[s], other.offered[s]):
            for i in range(len(held)):
                if tickets:
                    held[i], tickets[0] = tickets[0], held[i]
                    rng.shuffle(tickets)
    festivals = other.ext.get("festivals")
    if festivals:
        draft = festivals["draft"]
        if draft:
            packets = [draft["packets"][s] for s in others] + [draft["picked"][s] for s in others]
            for packet in packets:
                for i in range(len(packet)):
                    if tickets:
                        packet[i], tickets[0] = tickets[0], packet[i]
        held = [festivals["held"][s] for s in others]
        rng.shuffle(held)
        for s, h in zip(others, held, strict=True):
            festivals["held"][s] = h
    shares = other.ext.get("shares")
    if shares:
        items = [x for s in others for x in shares["held"][s]] + shares["neutral"]
        rng.shuffle(items)
        for s in others:
            k = len(shares["held"][s])
            shares["held"][s], items = items[:k], items[k:]
        shares["neutral"] = items
    other.rng.seed(rng.random())
    return other


def _positions(map_id: str, players: int, every: int) -> list[tuple[GameState, int, list[Event]]]:
    """Positions of a game between players of *hard*'s heuristic without its search
    ("expert", quick): (state, a waiting seat, history)."""
    state = new_game(GameConfig(map_id=map_id, players=["A", "B", "C", "D", "E"][:players], seed=3))
    history: list[Event] = []
    out = []
    step = 0
    while state.phase != "game_over":
        seat = waiting_for(state)[0]
        if step % every == 0 or state.phase not in ("turn", "second_draw"):
            out.append((GameState.from_snapshot(state.to_snapshot()), seat, list(history)))
        player = FACTORIES["expert"](seat)
        history.extend(apply(state, seat, player.choose(observe(state, seat, history=history))))
        step += 1
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("map_id", "players"),
    [*((m, 3) for m in playable_maps()), ("usa", 4), ("europe", 4), ("nordic", 2), ("usa", 2),
     ("europe", 2)],
)
def test_choices_never_depend_on_other_seats_secrets(map_id: str, players: int) -> None:
    """At four players *hard* searches the last turns too: checked there on two maps; on
    2-player Nordic, USA and Europe and 4-player USA and Europe it searches which tickets
    to keep at any time (such a keep is among the positions checked), and on 2-player
    Nordic the first tickets' keep too (the positions include both seats' first keeps: the
    rival's offer, still hidden or already kept, is re-dealt)."""
    rng = random.Random(map_id)
    positions = _positions(map_id, players, every=9)
    assert len(positions) > 15
    if (map_id, players) in SearchConfig().early_ticket_tables:
        assert any(st.phase == "choose_tickets" and min(st.trains) > 12 for st, _, _ in positions)
    for state, seat, history in positions:
        changed = _reshuffle_secrets(state, seat, rng)
        # The change is invisible to the seat (so the test is fair) ...
        assert public_view(changed) == public_view(state)
        assert private_view(changed, seat) == private_view(state, seat)
        assert changed.to_snapshot() != state.to_snapshot() or state.n_players == 1
        # ... and so it changes nothing the players at any level choose.
        for level in LEVELS:
            for seed in (0, 5):
                before = choose_action(level, state, seat, history=history, seed=seed)
                after = choose_action(level, changed, seat, history=history, seed=seed)
                assert before == after, (level, state.phase)


def test_choice_is_reproducible_and_refuses_a_seat_with_nothing_to_decide() -> None:
    positions = _positions("usa", 2, every=20)
    state, seat, history = positions[5]
    assert choose_action("hard", state, seat, history=history, seed=4) == choose_action(
        "hard", state, seat, history=history, seed=4
    )
    idle = 1 - seat if state.phase == "turn" else None
    if idle is not None:
        with pytest.raises(IllegalAction):
            choose_action("hard", state, idle)
    with pytest.raises(ValueError, match="unknown level"):
        choose_action("grandmaster", state, seat)


# Search -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("map_id", "players"),
    [*((m, 3) for m in playable_maps()), ("usa", 4), ("europe", 4), ("nordic", 2), ("usa", 2),
     ("europe", 2)],
)
def test_a_searched_world_shows_the_seat_exactly_what_it_saw(map_id: str, players: int) -> None:
    """Every world dealt for a seat's decision (a turn, a ticket keep, the first tickets'
    keep, a share, a festival pile) has the seat's public view and own private view; the
    hidden parts differ between worlds and are rarely the real ones. (Rails & Sails' first
    tickets are not rebuilt: its secret piece splits follow them.)"""
    rng = random.Random(map_id)
    searched = 0
    phases = {"turn", "choose_tickets", "choose_share", "choose_festival"}
    if map_id != "world":
        phases.add("choose_initial_tickets")
    for state, seat, history in _positions(map_id, players, every=7):
        if state.phase not in phases:
            continue
        observation = observe(state, seat, history=history)
        sampler = Sampler(observation)
        worlds = [sampler.sample(random.Random(rng.random())) for _ in range(3)]
        assert sampler.ok, (state.phase, state.turn)
        for world in worlds:
            assert world is not None
            assert public_view(world) == observation.public
            assert private_view(world, seat) == observation.private
        others = [s for s in range(state.n_players) if s != seat]
        hidden = {
            repr(([w.hands[s] for s in others], [w.tickets[s] for s in others],
                  [w.offered[s] for s in others], w.deck))
            for w in worlds if w is not None
        }
        assert len(hidden) > 1 or not state.deck
        searched += 1
    assert searched > 10


@pytest.mark.parametrize("map_id", ["nordic", "usa"])
def test_a_world_never_gives_a_rival_a_ticket_the_seat_returned(map_id: str) -> None:
    """The seat knows the tickets it turned down: on Nordic they left the game, on USA
    they lie under the ticket deck. A world deals none of them to a rival (and on Nordic
    none to the deck either); the seat's private view lists them."""
    state = new_game(GameConfig(map_id=map_id, players=["A", "B"], seed=7))
    history: list[Event] = []
    returned: list[set[int]] = [set(), set()]
    while state.phase != "game_over" and not (
        state.phase == "turn" and min(state.trains) <= 14 and all(returned)
    ):
        seat = waiting_for(state)[0]
        offered = {state.board.t_ids[t] for t in state.offered[seat]}
        action = FACTORIES["expert"](seat).choose(observe(state, seat, history=history))
        if isinstance(action, KeepTickets):
            returned[seat] |= offered - set(action.tickets)
        history.extend(apply(state, seat, action))
    seat = waiting_for(state)[0]
    assert returned[seat] and state.phase == "turn"
    observation = observe(state, seat, history=history)
    assert {t.id for t in observation.private.returned} == returned[seat]
    sampler = Sampler(observation)
    board = state.board
    for i in range(40):
        world = sampler.sample(random.Random(i))
        assert world is not None
        assert not returned[seat] & {board.t_ids[t] for t in world.tickets[1 - seat]}
        deck = {board.t_ids[t] for t in world.ticket_deck}
        if map_id == "nordic":
            assert not returned[seat] & deck
        else:  # under the deck, the one returned last lowest
            bottom = [board.t_ids[t] for t in world.ticket_deck[: len(returned[seat])]]
            assert set(bottom) == returned[seat]


@pytest.mark.slow
@pytest.mark.parametrize(("map_id", "seed", "searched"), [("nordic", 2, True), ("usa", 1, False)])
def test_hard_searches_tickets_near_the_end_only_at_the_tables_it_pays(
    map_id: str, seed: int, searched: bool
) -> None:
    """Near the end of a 2-player Nordic game *hard* weighs drawing tickets among its
    turn's candidates and searches which to keep; on USA the heuristic decides both."""
    state = new_game(GameConfig(map_id=map_id, players=["A", "B"], seed=seed))
    history: list[Event] = []
    turn = None
    while not (state.phase == "choose_tickets" and min(state.trains) <= 10):
        seat = waiting_for(state)[0]
        observation = observe(state, seat, history=history)
        action = FACTORIES["expert"](seat).choose(observation)
        if state.phase == "turn" and action != DrawTickets():
            turn = (observation, action)  # a turn the heuristic draws no tickets
        history.extend(apply(state, seat, action))
    player = SearchPlayer(config=SearchConfig(worlds=2))
    assert turn is not None and DrawTickets() in turn[0].options
    candidates = player._candidates(*turn, player._searches_tickets(turn[0]))
    assert (DrawTickets() in candidates) == searched
    player.choose(observe(state, waiting_for(state)[0], history=history))
    assert player.last_worlds == (2 if searched else 0)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("map_id", "players", "searched"),
    [("nordic", 2, 4), ("usa", 2, 4), ("europe", 2, 4), ("usa", 3, 0), ("pennsylvania", 2, 0),
     ("usa", 4, 2), ("europe", 4, 2), ("world", 4, 0), ("usa", 5, 0)],
)
def test_hard_searches_mid_game_ticket_keeps_at_the_tables_configured(
    map_id: str, players: int, searched: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2-player Nordic, USA and Europe and 4-player USA and Europe are decided by the
    tickets kept mid-game: there *hard* searches which to keep at any time, playing the
    heuristic's best few keeps (4 at two players, 2 at four; its own choice among them) to
    the end in each world; elsewhere the heuristic keeps alone until the end nears."""
    state = new_game(GameConfig(map_id=map_id, players=list("ABCDE")[:players], seed=2))
    history: list[Event] = []
    while not (state.phase == "choose_tickets" and min(state.trains) > 12):
        assert state.phase != "game_over"
        seat = waiting_for(state)[0]
        action = FACTORIES["expert"](seat).choose(observe(state, seat, history=history))
        history.extend(apply(state, seat, action))
    observation = observe(state, waiting_for(state)[0], history=history)
    played: set[str] = set()
    real = SearchPlayer._play_out

    def counting(self: SearchPlayer, world: Any, seat: int, action: Any, *rest: Any) -> float:
        played.add(repr(action))
        return real(self, world, seat, action, *rest)

    monkeypatch.setattr(SearchPlayer, "_play_out", counting)
    player = searching(2)
    player.choose(observation)
    assert player.last_worlds == (2 if searched else 0)
    assert len(played) == searched
    if searched:
        _played_the_heuristics_best_keeps(observation, played, searched)


def _played_the_heuristics_best_keeps(observation: Any, played: set[str], keeps: int) -> None:
    """The keeps searched were ``keeps`` of the heuristic's best few, its own choice among
    them."""
    heuristic = HeuristicPlayer(HARD)
    best = [repr(k) for k in heuristic.ranked_keeps(observation)]
    own = repr(heuristic.choose(observation))
    assert len(observation.options) > keeps
    assert own in played
    assert played <= {*best[:keeps], own}
    assert len(played) == keeps


@pytest.mark.parametrize(("map_id", "players"), [("nordic", 2), ("europe", 2), ("usa", 3)])
def test_a_world_of_the_first_tickets_deals_the_rivals_offers_as_the_setup_does(
    map_id: str, players: int
) -> None:
    """While the first tickets are chosen, a world deals each rival still choosing an offer
    as the map's setup deals one (Europe: a long ticket and three others), from tickets the
    seat has not seen; a rival that has chosen holds as many tickets as it kept; the deck
    holds no long ticket; who plays first varies between worlds (it is not known yet)."""
    state = new_game(GameConfig(map_id=map_id, players=["A", "B", "C"][:players], seed=5))
    board = state.board
    deal = board.rules.setup_tickets
    for chosen in range(players):  # the last seat to choose sees every rival's count
        seat = waiting_for(state)[0]
        observation = observe(state, seat)
        seen = {t.id for t in observation.private.offered}
        sampler = Sampler(observation)
        first = set()
        for i in range(12):
            world = sampler.sample(random.Random(i))
            assert world is not None and sampler.ok
            first.add(world.current)
            for rival in range(players):
                if rival == seat:
                    continue
                offer = [board.t_ids[t] for t in world.offered[rival]]
                assert not seen & set(offer)
                if rival < seat:  # it has chosen
                    assert offer == []
                    assert len(world.tickets[rival]) == len(state.tickets[rival])
                else:
                    assert sum(board.t_long[board.t_index[t]] for t in offer) == deal.deal_long
                    assert len(offer) == deal.deal + deal.deal_long
            assert not any(board.t_long[t] for t in world.ticket_deck)
        assert len(first) > 1
        keep = FACTORIES["expert"](seat).choose(observation)
        apply(state, seat, keep)
        assert chosen < players - 1 or state.phase == "turn"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("map_id", "players", "searched"),
    [("nordic", 2, True), ("usa", 2, False), ("europe", 2, False), ("nordic", 3, False)],
)
def test_hard_searches_the_first_tickets_keep_at_the_tables_configured(
    map_id: str, players: int, searched: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the tables in ``SearchConfig.initial_ticket_tables`` *hard* searches which of its
    first tickets to keep, the heuristic's best few keeps (its own choice among them) each
    played to the end in every world, the rivals still choosing keeping their own offer by
    the heuristic there; elsewhere the heuristic keeps alone. Searched whether the rivals
    have chosen yet or not."""
    assert (map_id, players) in SearchConfig().initial_ticket_tables or not searched
    state = new_game(GameConfig(map_id=map_id, players=["A", "B", "C"][:players], seed=2))
    played: set[str] = set()
    rivals_kept: list[int] = []
    real = SearchPlayer._play_out

    def counting(self: SearchPlayer, world: Any, seat: int, action: Any, *rest: Any) -> float:
        played.add(repr(action))
        rivals_kept.append(sum(1 for s in range(players) if s != seat and world.offered[s]))
        return real(self, world, seat, action, *rest)

    monkeypatch.setattr(SearchPlayer, "_play_out", counting)
    for _ in range(players):
        seat = waiting_for(state)[0]
        observation = observe(state, seat)
        played.clear()
        rivals_kept.clear()
        player = searching(2)
        player.choose(observation)
        assert player.last_worlds == (2 if searched else 0)
        if searched:
            _played_the_heuristics_best_keeps(
                observation, played, player.config.initial_ticket_candidates
            )
            still = sum(1 for p in observation.public.players if p.deciding and p.seat != seat)
            assert set(rivals_kept) == {still}
        apply(state, seat, FACTORIES["expert"](seat).choose(observation))
    assert state.phase == "turn"


@pytest.mark.slow
def test_hard_stops_at_its_time_budget() -> None:
    """Against the clock, *hard* searches as many worlds as its budget allows: none when it
    has no time (it then plays its heuristic's choice), more with time to spare. Before the
    end nears, a turn is the heuristic's alone."""
    positions = _positions("usa", 2, every=3)
    state, seat, history = next(
        (st, s, h) for st, s, h in positions if st.phase == "turn" and 2 < min(st.trains) <= 10
    )
    observation = observe(state, seat, history=history)
    hasty = SearchPlayer(config=SearchConfig(budget=0.0))
    assert hasty.choose(observation) == HeuristicPlayer(HARD).choose(observation)
    assert hasty.last_worlds == 0
    patient = SearchPlayer(config=SearchConfig(budget=30.0, max_worlds=3))
    patient.choose(observation)
    assert patient.last_worlds == 3
    early, seat, history = next(
        (st, s, h) for st, s, h in positions if st.phase == "turn" and min(st.trains) > 30
    )
    patient.choose(observe(early, seat, history=history))
    assert patient.last_worlds == 0


@pytest.mark.slow
@pytest.mark.parametrize(("players", "searched"), [(4, True), (5, False)])
def test_hard_searches_the_last_turns_at_four_players_not_five(
    players: int, searched: bool
) -> None:
    """At a table of four the last turns are searched too (it won more against three
    planners); five is not measured, so the heuristic plays alone there."""
    positions = _positions("usa", players, every=3)
    state, seat, history = next(
        (st, s, h) for st, s, h in positions if st.phase == "turn" and 2 < min(st.trains) <= 6
    )
    player = searching(2)
    player.choose(observe(state, seat, history=history))
    assert (player.last_worlds == 2) is searched


@pytest.mark.slow
@pytest.mark.parametrize(("players", "searched"), [(2, True), (3, True), (4, False)])
def test_hard_searches_fewer_last_turns_at_four_players(players: int, searched: bool) -> None:
    """At tables of four the search starts nearer the end (4 pieces beyond the end's
    trigger, not 8): searching from 8 there, four searching seats ended their games early
    and scored less."""
    positions = _positions("usa", players, every=1)
    state, seat, history = next(
        (st, s, h) for st, s, h in positions if st.phase == "turn" and 7 < min(st.trains) <= 10
    )
    player = searching(2)
    player.choose(observe(state, seat, history=history))
    assert (player.last_worlds == 2) is searched


@pytest.mark.slow
def test_hard_halves_the_candidates_it_plays_on_after_the_first_worlds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Successive halving: after the worlds in ``halve_at`` only the better half of the
    candidates is played on (the heuristic's choice always is), so the worlds left cost
    less and the budget buys more of them."""
    positions = _positions("usa", 2, every=3)
    state, seat, history = next(
        (st, s, h) for st, s, h in positions if st.phase == "turn" and 2 < min(st.trains) <= 10
    )
    observation = observe(state, seat, history=history)
    played: list[Any] = []
    real = SearchPlayer._play_out

    def counting(self: SearchPlayer, world: Any, seat: int, action: Any, *rest: Any) -> float:
        played.append(repr(action))
        return real(self, world, seat, action, *rest)

    monkeypatch.setattr(SearchPlayer, "_play_out", counting)
    player = SearchPlayer(config=SearchConfig(worlds=4, halve_at=(2,)))
    own = HeuristicPlayer(HARD).choose(observation)
    player.choose(observation)
    candidates = player._candidates(observation, own)
    n = len(candidates)
    assert n >= 4 and player.last_worlds == 4
    assert len(played) == 2 * n + 2 * len(set(played[2 * n:]))
    assert len(set(played[2 * n:])) <= (n + 1) // 2 + 1
    assert played[2 * n:].count(repr(own)) == 2


# Strength ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_levels_are_ordered_in_strength() -> None:
    """A small seeded tournament (seats rotate): hard scores above normal above easy."""
    summary = tournament("usa", ["hard", "normal", "easy"], games=24, seed=2)
    levels = summary["levels"]
    assert levels["hard"]["mean_score"] > levels["normal"]["mean_score"]
    assert levels["normal"]["mean_score"] > levels["easy"]["mean_score"]
    assert levels["hard"]["win_rate"] > levels["easy"]["win_rate"]


# The tournament script --------------------------------------------------------------------


class _AlwaysFirst:
    """A player written elsewhere: takes the first legal option (keeps the first keep)."""

    def choose(self, observation: Any) -> Any:
        return observation.options[0]


def first_option(seat: int) -> _AlwaysFirst:
    return _AlwaysFirst()


@pytest.mark.slow
def test_tournament_prints_the_summary_and_seats_players_from_elsewhere(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(
            [
                "--map",
                "usa",
                "--seats",
                f"hard,{__name__}:first_option",
                "--games",
                "2",
                "--seed",
                "1",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 2
    assert sum(summary["endings"].values()) == 2
    assert set(summary["levels"]) == {"hard", f"{__name__}:first_option"}
    for stats in summary["levels"].values():
        assert set(stats) >= {
            "win_rate",
            "mean_score",
            "tickets_completed",
            "tickets_kept",
            "decision_ms_median",
            "decision_ms_max",
        }
    assert summary["winner_mean_score"] >= max(s["mean_score"] for s in summary["levels"].values())
    with pytest.raises(ValueError, match="unknown player"):
        load_factory("grandmaster")


# Decisions in set positions ---------------------------------------------------------------


def _no_more_tickets(state: GameState) -> None:
    state.ticket_deck = []


def test_hard_blocks_the_short_route_a_leader_needs_and_normal_does_not(
    started: Any, own: Any, route: Any, set_hand: Any
) -> None:
    state = started("usa", 2)
    seat = state.current
    other = 1 - seat
    own(state, other, ("duluth", "sault_st_marie"), ("pittsburgh", "toronto"))
    state.scores[other] = 6  # the leader: route points are public
    state.tickets[seat] = []
    _no_more_tickets(state)
    set_hand(state, seat, {"red": 2})
    gap = route(state, "sault_st_marie", "toronto")
    assert choose_action("hard", state, seat) == Claim(route=gap, cards={"red": 2})
    assert choose_action("normal", state, seat) != Claim(route=gap, cards={"red": 2})
    state.scores[seat] = 20  # with two players, the only rival is worth blocking even behind
    assert choose_action("hard", state, seat) == Claim(route=gap, cards={"red": 2})


def test_players_draw_the_face_up_colour_their_plan_lacks(
    started: Any, ticket: Any, set_hand: Any, set_market: Any
) -> None:
    state = started("usa", 2)
    seat = state.current
    state.tickets[seat] = [ticket(state, "denver", "el_paso")]
    set_hand(state, seat, {"blue": 1})
    set_market(state, ["red", "green", "blue", "white", "orange"])
    # Its plan (Denver–Santa Fe–El Paso, two gray routes) lacks one more blue card.
    player = FACTORIES["normal"](seat)
    assert player.choose(observe(state, seat)) == DrawFaceUp(slot=2)


@pytest.mark.parametrize(("players", "draw"), [(2, DrawFaceUp(slot=0)), (4, DrawBlind())])
def test_at_four_players_hard_draws_blind_rather_than_take_a_locomotive_for_two_suits(
    started: Any, ticket: Any, set_hand: Any, set_market: Any, players: int, draw: Any
) -> None:
    """Its plan (Denver–Santa Fe–El Paso, two gray routes of 2) lacks cards of two suits,
    none of them face up. With two players it takes the face-up locomotive; at four it
    draws two blind cards, each likely enough to be one it lacks, rather than give the
    turn to one card."""
    state = started("usa", players)
    seat = state.current
    state.tickets[seat] = [ticket(state, "denver", "el_paso")]
    _no_more_tickets(state)
    set_hand(state, seat, {"blue": 1})
    set_market(state, ["loco", "red", "green", "white", "orange"])
    assert HeuristicPlayer(HARD).choose(observe(state, seat)) == draw
    assert choose_action("hard", state, seat) == draw


def test_every_level_keeps_a_ticket_its_network_already_completes(
    started: Any, own: Any, ticket: Any
) -> None:
    state = started("usa", 2)
    seat = state.current
    own(state, seat, ("denver", "santa_fe"), ("el_paso", "santa_fe"))
    board = state.board
    done, far = ticket(state, "denver", "el_paso"), ticket(state, "boston", "miami")
    apply(state, seat, DrawTickets())
    state.offered[seat] = [far, done]
    for level in LEVELS:
        action = choose_action(level, state, seat)
        assert isinstance(action, KeepTickets)
        assert board.t_ids[done] in action.tickets, level


def _share_choice(players: int) -> tuple[GameState, int]:
    """Pennsylvania: seat 0 claimed a route showing only PRR and chooses its share. It
    already holds PRR's first five shares (first place, whatever comes); the other two
    WM shares lie with an opponent and the neutral investor (seat 0 sees only counts)."""
    state = new_game(GameConfig(map_id="pennsylvania", players=["A", "B", "C"][:players], seed=1))
    route = next(r for r in state.board.map.routes if r.shares == ["PRR"])
    setup_position(
        state,
        Position(
            phase="choose_share",
            current=0,
            offered={s: [] for s in range(players)},
            owners={route.id: 0},
            share_choice=ShareChoice(route=route.id),
            shares={0: {"PRR": [1, 2, 3, 4, 5]}, 1: {"WM": [2]}},
            neutral_shares={"WM": [1]},
        ),
    )
    return state, 0


def test_hard_declines_a_share_that_only_feeds_the_neutral_investor() -> None:
    """With two players, a PRR share gains seat 0 nothing, while the neutral's share it
    brings doubles the neutral pile, so the pile's WM share (which keeps the opponent
    second in WM) is revealed only half the time. Hard declines; normal, which does not
    weigh it, takes; with three players (no neutral investor) hard takes."""
    state, seat = _share_choice(2)
    assert choose_action("hard", state, seat) == DeclineShare()
    assert choose_action("normal", state, seat) == TakeShare(company="PRR")
    state, seat = _share_choice(3)
    assert choose_action("hard", state, seat) == TakeShare(company="PRR")


def test_with_its_tickets_done_normal_extends_its_network_and_hard_saves_for_long_routes(
    started: Any, own: Any, set_hand: Any
) -> None:
    state = started("usa", 2)
    seat = state.current
    own(state, seat, ("denver", "santa_fe"))
    state.tickets[seat] = []
    _no_more_tickets(state)
    set_hand(state, seat, {"blue": 2})
    board = state.board
    network = {board.city_index["denver"], board.city_index["santa_fe"]}
    action = choose_action("normal", state, seat)
    assert isinstance(action, Claim)
    r = board.route_index[action.route]
    assert {board.r_a[r], board.r_b[r]} & network
    assert not isinstance(choose_action("hard", state, seat), Claim)


def test_on_nordic_players_do_not_take_a_locomotive_for_an_ordinary_route(
    started: Any, own: Any, ticket: Any, set_hand: Any, set_market: Any
) -> None:
    """Nordic locomotives pay only for tunnels and ferries: a plan of ordinary routes that
    lacks red cards draws blind rather than take the face-up locomotive (which it would
    take where locomotives are wild)."""
    state = started("nordic", 2)
    seat = state.current
    own(state, seat, ("imatra", "kuopio"), ("kuopio", "lieksa"))
    state.tickets[seat] = [ticket(state, "helsinki", "lieksa")]
    _no_more_tickets(state)
    set_hand(state, seat, {"red": 1})
    set_market(state, ["loco", "purple", "white", "green", "black"])
    for level in ("normal", "hard"):
        assert choose_action(level, state, seat) == DrawBlind(), level


@pytest.mark.parametrize(("players", "ignored_lead", "blocked_lead"), [(3, 15, 30), (4, 30, 45)])
def test_with_three_or_more_players_hard_blocks_only_a_clear_leader(
    started: Any, own: Any, route: Any, set_hand: Any, players: int, ignored_lead: int,
    blocked_lead: int
) -> None:
    """With two players any rival is worth blocking; with more, a block also helps every
    other player, so hard blocks only a player well ahead of it: with four players twice
    the lead it asks with three."""
    state = started("usa", players)
    seat = state.current
    other = (seat + 1) % players
    own(state, other, ("duluth", "sault_st_marie"), ("pittsburgh", "toronto"))
    state.tickets[seat] = []
    _no_more_tickets(state)
    set_hand(state, seat, {"red": 2})
    block = Claim(route=route(state, "sault_st_marie", "toronto"), cards={"red": 2})
    state.scores[other] = state.scores[seat] + ignored_lead
    assert choose_action("hard", state, seat) != block
    state.scores[other] = state.scores[seat] + blocked_lead
    assert choose_action("hard", state, seat) == block


def _iberia_draft(picked: list[int], packet: list[int]) -> GameState:
    """Iberia, 3 players, first draft: seat 0 has picked ``picked`` and holds ``packet``."""
    state = new_game(GameConfig(map_id="iberia", players=["A", "B", "C"], seed=1))
    draft = PendingDraft(
        keep=4, packets={0: packet, 1: [3, 5], 2: [6, 7]}, picked={0: picked, 1: [8], 2: [9]}
    )
    setup_position(state, Position(phase="draft", draft=draft))
    return state


def test_hard_drafts_the_ticket_that_fits_its_earlier_picks() -> None:
    """Seat 0 drafted Cádiz–Lisboa and Lisboa–Málaga. Alone, Palma–Vigo (16 points) is the
    best ticket of the packet and every level takes it; hard, weighing the picks it will
    keep with it, takes Alicante–Badajoz (8), which shares their south-western routes."""
    fresh = _iberia_draft([], [50, 4, 26])
    assert choose_action("hard", fresh, 0) == DraftPick(ticket=50)
    state = _iberia_draft([13, 23], [50, 4, 26])
    assert choose_action("normal", state, 0) == DraftPick(ticket=50)
    assert choose_action("hard", state, 0) == DraftPick(ticket=26)


def test_hard_gives_up_a_ticket_it_cannot_finish_and_plays_for_the_other(
    started: Any, ticket: Any, set_hand: Any, route: Any
) -> None:
    """14 pieces left, mid-game: Denver–El Paso (4 pieces) can be done, Los Angeles–New
    York (some 20 more) cannot. Hard drops the long ticket and claims Denver–Santa Fe;
    the same player pursuing both claims a route towards New York instead."""
    state = started("usa", 2)
    seat = state.current
    state.tickets[seat] = [
        ticket(state, "denver", "el_paso"),
        ticket(state, "los_angeles", "new_york"),
    ]
    _no_more_tickets(state)
    state.trains[seat], state.turn = 14, 60
    set_hand(state, seat, {"blue": 3})
    santa_fe = route(state, "denver", "santa_fe")
    assert choose_action("hard", state, seat) == Claim(route=santa_fe, cards={"blue": 2})
    both = HeuristicPlayer(replace(HARD, triage=0.0)).choose(observe(state, seat))
    assert isinstance(both, Claim) and both.route != santa_fe


def _iberia_turn(hand: dict[str, int], valencia: int) -> GameState:
    """Iberia, 3 players, seat 0 to play, holding Cádiz–Lisboa (its plan: white and red
    routes) and ``hand``; ``valencia`` festival cards lie at Valencia."""
    state = new_game(GameConfig(map_id="iberia", players=["A", "B", "C"], seed=1))
    position = Position(
        phase="turn",
        current=0,
        turn=20,
        hands={0: hand},
        tickets={0: [13], 1: [1, 2, 3, 4], 2: [5, 6, 7, 9]},
        festival_piles={"valencia": valencia},
        market=["red", "red", "green", "green", "white"],
    )
    setup_position(state, position)
    return state


def test_hard_claims_a_short_route_off_its_plan_for_a_rich_festival_pile(route: Any) -> None:
    """A spare black card pays Valencia–Alicante (1 piece): with four festival cards lying at
    Valencia (10 points) hard takes them; with one it keeps drawing for its plan, and
    normal draws either way."""
    rich = _iberia_turn({"black": 1}, valencia=4)
    grab = Claim(route=route(rich, "valencia", "alicante", "black"), cards={"black": 1})
    assert choose_action("hard", rich, 0) == grab
    assert not isinstance(choose_action("normal", rich, 0), Claim)
    assert not isinstance(choose_action("hard", _iberia_turn({"black": 1}, valencia=1), 0), Claim)


def test_with_its_tickets_done_hard_keeps_its_last_pieces_for_valuable_routes(
    started: Any, set_hand: Any
) -> None:
    """The end is near (the rival has 3 pieces left) and this seat's tickets are done, with
    5 pieces left: two spare red cards pay a 2-point route. Hard draws for a route worth
    more of its last pieces instead; the same player without that habit spends the cards."""
    state = started("usa", 2)
    seat = state.current
    state.tickets[seat] = []
    _no_more_tickets(state)
    state.trains[seat], state.trains[1 - seat], state.turn = 5, 3, 150
    set_hand(state, seat, {"red": 2})
    assert not isinstance(choose_action("hard", state, seat), Claim)
    hasty = HeuristicPlayer(replace(HARD, long_last=False)).choose(observe(state, seat))
    assert isinstance(hasty, Claim) and hasty.cards == {"red": 2}



def test_hard_claims_a_tunnel_only_with_a_card_to_spare_for_its_reveal(
    started: Any, own: Any, ticket: Any, set_hand: Any, route: Any
) -> None:
    """Europe: Rostov–Erzurum lacks only the red Sochi–Erzurum tunnel (3). With exactly
    three red cards, any red or locomotive among the three cards revealed asks for one
    more the hand lacks (about every other time), wasting the turn: hard draws instead;
    with a fourth red card it claims. The same player without that care claims at once."""
    state = started("europe", 2)
    seat = state.current
    own(state, seat, ("rostov", "sochi"))
    state.tickets[seat] = [ticket(state, "rostov", "erzurum")]
    _no_more_tickets(state)
    tunnel = route(state, "erzurum", "sochi")
    set_hand(state, seat, {"red": 3})
    assert not isinstance(choose_action("hard", state, seat), Claim)
    careless = HeuristicPlayer(replace(HARD, tunnel_reserve=0)).choose(observe(state, seat))
    assert careless == Claim(route=tunnel, cards={"red": 3})
    set_hand(state, seat, {"red": 4})
    assert choose_action("hard", state, seat) == Claim(route=tunnel, cards={"red": 3})


def test_hard_keeps_few_initial_tickets_to_take_more_later() -> None:
    """USA, seed 1: offered Los Angeles–Chicago (16), Montreal–New Orleans (13) and Kansas
    City–Houston (5), hard keeps the two long ones only (it draws more tickets once they
    are done); the same player as cautious at the start as later keeps all three."""
    state = new_game(GameConfig(map_id="usa", players=["A", "B"], seed=1))
    observation = observe(state, 0)
    keep = HeuristicPlayer(HARD).choose(observation)
    assert isinstance(keep, KeepTickets)
    board = state.board
    cities = {tuple(board.map.tickets[board.t_index[t]].cities) for t in keep.tickets}
    assert cities == {("los_angeles", "chicago"), ("montreal", "new_orleans")}
    same = HeuristicPlayer(replace(HARD, first_caution=None)).choose(observation)
    assert isinstance(same, KeepTickets) and len(same.tickets) == 3


def test_rusher_claims_the_long_route_that_extends_its_network_and_racer_the_longest(
    started: Any, own: Any, route: Any, set_hand: Any
) -> None:
    """Holding Denver–Santa Fe and cards for Denver–Phoenix (5) and Los Angeles–El Paso (6):
    the rusher extends its network; the racer takes the longest route wherever it is."""
    state = started("usa", 2)
    seat = state.current
    own(state, seat, ("denver", "santa_fe"))
    state.tickets[seat] = []
    _no_more_tickets(state)
    set_hand(state, seat, {"white": 5, "black": 6})
    phoenix = route(state, "denver", "phoenix")
    rusher = FACTORIES["rusher"](seat).choose(observe(state, seat))
    assert rusher == Claim(route=phoenix, cards={"white": 5})
    racer = FACTORIES["racer"](seat).choose(observe(state, seat))
    assert racer == Claim(route=route(state, "el_paso", "los_angeles"), cards={"black": 6})
