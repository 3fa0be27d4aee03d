"""*hard*: a determinized search on top of the heuristic.

For a decision with real alternatives, the heuristic (``HARD`` style, and the other
styles' views of the same position) proposes a few candidate actions. The search then
deals worlds consistent with what the seat has seen (``engine.players.determinize``),
plays each candidate in each world, lets every seat continue by the heuristic for a few
turns, and scores the end: the points on the board by the final scoring as if the game
ended there, with each unfinished ticket counted by its chance to be completed (the
pieces it still needs against the pieces and turns left), relative to the best rival.
The same worlds serve every candidate (common random numbers), so they are compared on
equal luck; after the first worlds only the better half of the candidates is played on
(successive halving: more worlds for the ones still in the running); the heuristic's own
choice is played in every world and kept unless another is clearly better.

The search stops at a wall-clock budget (``budget`` seconds, checked between worlds), or
after ``worlds`` worlds when a fixed count is asked for (tests and quick screening: the
same inputs give the same choice). It reads nothing but the ``Observation``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from engine.actions import Action, Claim, DrawBlind, DrawFaceUp, DrawTickets, KeepTickets
from engine.game import apply
from engine.phases import Phase
from engine.players.base import Observation, observe
from engine.players.determinize import Sampler
from engine.players.heuristic import CROWDED, HARD, PLANNER, HeuristicPlayer, Style
from engine.players.situation import INF, graph_for, shortest_path
from engine.scoring import TicketResult, score_position
from engine.state import GameState
from engine.turns import waiting_for

SEARCHED_PHASES = (Phase.TURN, Phase.CHOOSE_TICKETS, Phase.CHOOSE_INITIAL_TICKETS,
                   Phase.CHOOSE_SHARE, Phase.CHOOSE_NEUTRAL_SHARE, Phase.CHOOSE_FESTIVAL)
"""Decisions the search may weigh (turns only once the end nears, and tickets only at the
tables ``SearchConfig`` names: a few turns played on tell little about long plans and tickets,
which pay off at the end); the others (a second card, a tunnel's extra cards, drafts, a
piece split) the heuristic takes alone."""
# A ticket the seat can still connect, finished with chance p, counts p*P - (1-p)*CAUTION*P
# (P its points): a likely failure costs only half the final scoring's -P (issue 29: the
# weighting meant was 1.5 times a success; screens in bench/HISTORY.md).
CAUTION = 0.5
CARD_WORTH = 0.4  # points per card in hand at the end of a world's play

ROLLOUT = replace(HARD, name="rollout", plan_noise=0.0, critical_first=False)
"""How every seat plays on in a world: the heuristic, without the per-game noise and the
costliest habit (trying each claim's loss)."""


@dataclass(frozen=True, slots=True)
class SearchConfig:
    # Seconds of wall clock per decision: no world or play-out starts that the longest
    # so far would not finish within it. More worlds won more games on Nordic on one seed
    # (100 games against expert: 46 % at 3 worlds, 57.5 % at 10), not on another (45 % at
    # 6 and at 12); this is the most that keeps the slowest decision well under a second.
    budget: float = 0.6
    worlds: int | None = None  # a fixed number of worlds instead (reproducible)
    max_worlds: int = 48
    candidates: int = 8
    horizon: int = 2  # the seat's own turns played on in a world after the candidate
    keep_margin: float = 1.0  # points a candidate must beat the heuristic's choice by
    # Turns are searched from when the fastest player has this many pieces beyond the
    # end's trigger (the game is then played out to its end in every world); before,
    # the heuristic plays alone (a few turns played on misjudge its long plans).
    endgame_pieces: int = 8
    # ... at tables of ``crowded_players`` or more, from this many: searched from 8 there,
    # every searching seat ended the game early on its terms and the scores fell (four
    # hard@3 on USA: winner mean 135 against 149 for four experts; from 4: 142), and from 4
    # it won more against three planners too (bench/HISTORY.md).
    endgame_pieces_crowded: int = 4
    crowded_players: int = CROWDED  # the heuristic's crowded table too
    win_bonus: float = 10.0  # a world won counts this much beyond the score margin
    # Near the end, also search drawing tickets and which to keep: everywhere if set; by
    # default only at the tables (map, players) in ``ticket_tables``. Elsewhere it lost
    # more tickets than it won (Iberia) or gained nothing (USA); on 2-player Nordic, whose
    # short tickets a network often covers, it completed more (bench/HISTORY.md).
    tickets: bool = False
    ticket_tables: frozenset[tuple[str, int]] = frozenset({("nordic", 2)})
    # Turns are searched only at tables of at most this many players. At four, searching
    # the last turns wins more against three planners than the heuristic alone does
    # (figures in docs/computer-players.md, how they came about in bench/HISTORY.md);
    # five is not measured.
    turn_players: int = 4
    # After this many worlds, the worse half of the candidates is dropped (successive
    # halving): the later worlds are played only for those still in the running.
    halve_at: tuple[int, ...] = (2, 4)
    # At these tables (map, players) which tickets to keep is searched at any time, not
    # only near the end, each world played to its end: 2-player Nordic is decided by the
    # tickets kept mid-game, and on 2-player USA and Europe, and 4-player USA and Europe,
    # it won more too (bench/HISTORY.md). Only the heuristic's best few keeps are weighed:
    # a play-out to the end costs some 40 turns, ...
    early_ticket_tables: frozenset[tuple[str, int]] = frozenset(
        {("nordic", 2), ("usa", 2), ("europe", 2), ("usa", 4), ("europe", 4)}
    )
    early_ticket_candidates: int = 4
    # ... and at tables of ``crowded_players`` or more, where it plays four seats, two.
    early_ticket_candidates_crowded: int = 2
    # At these tables the first tickets' keep is searched the same way (the rivals still
    # choosing are dealt an offer in each world and keep by the heuristic there): on
    # 2-player Nordic it won more against expert, within noise, less against planner
    # (bench/HISTORY.md); its play-outs are whole games, so the clock buys 1-2 worlds.
    initial_ticket_tables: frozenset[tuple[str, int]] = frozenset({("nordic", 2)})
    initial_ticket_candidates: int = 4


class SearchPlayer:
    """Searches the decisions in ``SEARCHED_PHASES``; plays the others by ``style``."""

    def __init__(self, style: Style = HARD, config: SearchConfig | None = None) -> None:
        self.style = style
        self.heuristic = HeuristicPlayer(style)
        self.config = config or SearchConfig()
        self.rollout = HeuristicPlayer(ROLLOUT)
        self.last_worlds = 0  # worlds the last decision searched (for tests and benchmarks)

    def choose(self, obs: Observation) -> Action:
        start = time.perf_counter()
        self.last_worlds = 0
        own = self.heuristic.choose(obs)
        phase = obs.public.phase
        if phase not in SEARCHED_PHASES or len(obs.options) < 2:
            return own
        rules = obs.board.rules
        players = len(obs.public.players)
        table = (obs.board.map.id, players)
        if phase == Phase.CHOOSE_INITIAL_TICKETS and (
            table not in self.config.initial_ticket_tables or not obs.private.offered
        ):
            return own
        near_end = obs.public.last_round or min(p.trains for p in obs.public.players) <= (
            rules.end_trigger_pieces + self._endgame_pieces(players)
        )
        early_keep = phase == Phase.CHOOSE_INITIAL_TICKETS or (
            phase == Phase.CHOOSE_TICKETS and not near_end
            and table in self.config.early_ticket_tables
        )
        if phase in (Phase.TURN, Phase.CHOOSE_TICKETS) and not early_keep and (
            not near_end or players > self.config.turn_players
        ):
            return own
        tickets = self._searches_tickets(obs)
        if phase == Phase.CHOOSE_TICKETS and not tickets and not early_keep:
            return own
        horizon = 1000 if near_end or early_keep else self.config.horizon
        candidates = self._candidates(obs, own, tickets)
        if early_keep:
            candidates = candidates[: self._keeps_searched(phase, players)]
        if len(candidates) < 2:
            return own
        sampler = Sampler(obs)
        rng = random.Random(f"{obs.seed}:{obs.seat}:{obs.public.turn}:{phase}:search")
        totals = [0.0] * len(candidates)
        alive = list(range(len(candidates)))  # the heuristic's choice (0) stays to the end
        worlds = 0
        cfg = self.config
        limit = cfg.worlds if cfg.worlds is not None else cfg.max_worlds
        per_world = per_play = 0.0  # the longest world and play-out so far
        timed = cfg.worlds is None
        while worlds < limit:
            if timed and worlds and time.perf_counter() - start + per_world > cfg.budget:
                break
            t0 = time.perf_counter()
            world = sampler.sample(random.Random(rng.getrandbits(64)))
            if world is None:
                break
            seed = rng.getrandbits(32)
            values = []
            for i in alive:
                t1 = time.perf_counter()
                if timed and t1 - start + per_play > cfg.budget:
                    break  # no time for another play-out: this world does not count
                values.append(self._play_out(world, obs.seat, candidates[i], seed, horizon))
                per_play = max(per_play, time.perf_counter() - t1)
            if len(values) < len(alive):
                break
            for i, v in zip(alive, values, strict=True):
                totals[i] += v
            worlds += 1
            self.last_worlds = worlds
            per_world = max(per_world, time.perf_counter() - t0)
            if worlds in cfg.halve_at and len(alive) > 2:
                alive = self._halve(alive, totals)
                per_world = per_world * len(alive) / len(values)
        if not worlds:
            return own
        best = max(alive, key=lambda i: (totals[i], i == 0))
        if (totals[best] - totals[0]) / worlds < cfg.keep_margin:
            return own
        return candidates[best]

    def _endgame_pieces(self, players: int) -> int:
        cfg = self.config
        return cfg.endgame_pieces_crowded if players >= cfg.crowded_players else cfg.endgame_pieces

    def _keeps_searched(self, phase: Phase, players: int) -> int:
        """How many of the heuristic's best keeps a keep searched at any time weighs."""
        cfg = self.config
        if phase == Phase.CHOOSE_INITIAL_TICKETS:
            return cfg.initial_ticket_candidates
        if players >= cfg.crowded_players:
            return cfg.early_ticket_candidates_crowded
        return cfg.early_ticket_candidates

    def _searches_tickets(self, obs: Observation) -> bool:
        table = (obs.board.map.id, len(obs.public.players))
        return self.config.tickets or table in self.config.ticket_tables

    @staticmethod
    def _halve(alive: list[int], totals: list[float]) -> list[int]:
        """The better half of the candidates still searched (the heuristic's choice always
        stays): the worlds left go to the ones that can still win."""
        ranked = sorted(alive, key=lambda i: (-totals[i], i))
        keep = set(ranked[: (len(alive) + 1) // 2]) | {0}
        return [i for i in alive if i in keep]

    # Candidates ---------------------------------------------------------------------------

    def _candidates(self, obs: Observation, own: Action, tickets: bool = False) -> list[Action]:
        """The heuristic's choice first, then other plausible actions, at most
        ``config.candidates``: another style's choice, the claims worth most points or on
        the plan, more tickets, the best card draw; every option of a small decision."""
        options = obs.options
        out: list[Action] = [own]

        def add(a: Action | None) -> None:
            if a is not None and a not in out and len(out) < self.config.candidates:
                out.append(a)

        if obs.public.phase in (Phase.CHOOSE_TICKETS, Phase.CHOOSE_INITIAL_TICKETS):
            # Tickets to keep: the best by the heuristic's reckoning first.
            by_set = {frozenset(a.tickets): a for a in options if isinstance(a, KeepTickets)}
            for keep in self.heuristic.ranked_keeps(obs):
                add(by_set.get(frozenset(keep.tickets)))
            return out
        if obs.public.phase != Phase.TURN:
            for a in sorted(options, key=repr):
                add(a)
            return out
        add(HeuristicPlayer(PLANNER).choose(obs))
        board = obs.board
        if not isinstance(own, DrawFaceUp | DrawBlind):
            draws: list[Action] = [a for a in options if isinstance(a, DrawBlind)] or [
                a for a in options if isinstance(a, DrawFaceUp)
            ]
            add(draws[0] if draws else None)
        if tickets:
            add(next((a for a in options if isinstance(a, DrawTickets)), None))
        # The claims worth most, one payment each (the fewest locomotives).
        by_route: dict[int, Claim] = {}
        for a in options:
            if isinstance(a, Claim):
                r = board.route_index[a.route]
                held = by_route.get(r)
                if held is None or a.cards.get("locomotive", 0) < held.cards.get("locomotive", 0):
                    by_route[r] = a
        for r in sorted(by_route, key=lambda r: (-board.r_points[r], r)):
            add(by_route[r])
        return out

    # A world ------------------------------------------------------------------------------

    def _play_out(
        self, world: GameState, seat: int, action: Action, seed: int, horizon: int
    ) -> float:
        """The candidate played in a copy of ``world`` and the game continued by the
        heuristic until ``seat`` has played ``horizon`` more turns; the end's value."""
        state = world.copy()
        state.rng.seed(seed)
        apply(state, seat, action)
        turns_to_go = horizon
        last_turn = state.turn
        steps = 0
        while state.phase != Phase.GAME_OVER and steps < 400:
            waiting = waiting_for(state)
            if not waiting:
                break
            who = waiting[0]
            if who == seat and state.phase == Phase.TURN and state.turn != last_turn:
                turns_to_go -= 1
                last_turn = state.turn
                if turns_to_go <= 0:
                    break
            obs = observe(state, who, seed=seed)
            apply(state, who, self.rollout.choose(obs))
            steps += 1
        margin = _value(state, seat)
        return margin + (self.config.win_bonus if margin > 0 else 0.0)


def _value(state: GameState, seat: int) -> float:
    """``seat``'s expected final score less the best rival's: the final scoring as if the
    game ended now, with each unfinished ticket's penalty turned into its expectation."""
    final = score_position(state)
    values = [0.0] * state.n_players
    for p in final.players:
        values[p.seat] = p.total + _ticket_hopes(state, p.seat, p.tickets)
    rivals = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - max(rivals) if rivals else values[seat]


def _ticket_hopes(state: GameState, seat: int, tickets: Sequence[TicketResult]) -> float:
    """What to add to the final scoring's -P for each unfinished ticket (P its points): one
    the seat can still connect, with chance p to finish it (the pieces and card draws the
    tickets still need against the pieces and turns left, as the heuristic reckons), counts
    p*P - (1-p)*CAUTION*P in all; one with no path left stays at -P (below a reachable but
    hopeless one); and a little for the cards in hand, which become points."""
    board = state.board
    graph = graph_for(board.map.id)
    hand = sum(state.hands[seat])
    open_tickets = [t for t in state.tickets[seat] if not _connected(tickets, board.t_ids[t])]
    value = CARD_WORTH * hand
    if not open_tickets:
        return value
    costs = [
        0.0 if o == seat else float(board.r_len[r]) if o < 0 else INF
        for r, o in enumerate(state.owner)
    ]
    pieces = state.trains[seat]
    turns = _turns_left(state)
    need = 0.0
    routes: set[int] = set()
    for t in sorted(open_tickets, key=lambda t: -board.t_points[t]):
        cost = 0.0
        stops = graph.stops[t]
        path_routes: list[int] = []
        for a, b in pairwise(stops):
            c, path = shortest_path(graph, costs, a, b)
            if c == INF:
                cost = INF
                break
            cost += c
            path_routes += path
            for r in path:
                costs[r] = 0.0
        points = board.t_points[t]
        if cost == INF:
            continue  # it stays at minus its value
        need += cost
        routes.update(path_routes)
        draws = max(0.0, need - 0.5 * hand) / 1.5 + len(routes)
        p = _logistic((turns - draws - 2) / 2) * _logistic((pieces - need - 2) / 1.5)
        value += points * (1 + p - (1 - p) * CAUTION)
    return value


def _connected(tickets: Sequence[TicketResult], ticket_id: int) -> bool:
    return any(t.id == ticket_id and t.points > 0 for t in tickets)


def _turns_left(state: GameState) -> float:
    """About how many more turns each seat gets (the fastest placing ~1.5 pieces a turn)."""
    if state.turns_left >= 0:
        return state.turns_left / state.n_players
    rules = state.board.rules
    fastest = min(state.trains)
    return max(1.0, (fastest - rules.end_trigger_pieces) / 1.5 + 1)


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


def hard(seat: int) -> SearchPlayer:
    """*hard*: the ``HARD`` heuristic, its decisions weighed by a determinized search."""
    return SearchPlayer()


def searching(worlds: int) -> SearchPlayer:
    """*hard* with a fixed number of worlds per decision instead of a time budget."""
    return SearchPlayer(config=SearchConfig(worlds=worlds))
