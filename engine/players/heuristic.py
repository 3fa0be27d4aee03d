"""Planning players: shortest-path ticket plans, card economy, and a style per level.

One engine of decisions, tuned by a ``Style``: which tickets to keep (by the
estimated chance to complete them), whether to go for more tickets, which
route of the plan to claim first (the one whose loss would hurt most), when to
block a leader, how to spend the last turns. The levels differ in these
choices, not only in noise.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise

from engine.actions import (
    Action,
    BuildHarbor,
    BuildStation,
    ChoosePieces,
    Claim,
    DeclineShare,
    DeclineTunnel,
    DraftPick,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    ExchangePieces,
    GiveNeutralShare,
    KeepTickets,
    PayTunnel,
    TakeFestival,
    TakeShare,
)
from engine.cards import CARD_INDEX, LOCO, names_from_counts
from engine.graph import components
from engine.phases import Phase
from engine.players.base import Observation
from engine.players.situation import INF, JOKER, SHIP_SUIT, Plan, Situation, shortest_path


@dataclass(frozen=True, slots=True)
class Style:
    """How a player plays; see the level definitions at the end of this module."""

    name: str
    keep: str = "value"  # "value": by expected points; "cheap": the fewest, shortest tickets
    caution: float = 0.0  # > 0 weighs a failed ticket heavier than a completed one
    more_tickets: bool = True  # draw tickets again once the plan is done
    more_tickets_trains: int = 12  # ... if at least this many pieces are left
    careless: float = 0.0  # chance of drawing a card without looking at the plan
    critical_first: bool = False  # claim first the route whose loss would cost most
    plan_noise: float = 0.0  # per-game noise on route costs: plans differ between games
    endgame: bool = False  # spend the last turns on the points at hand
    block: bool = False  # take a route a leader clearly needs
    # ... with 3+ players, one leading this seat by at least this much per player beyond
    # two (a block also helps every other player)
    block_lead: int = 0
    stations: bool = False  # Europe: a station to bridge a blocked ticket
    long_routes: bool = False  # a racer: long routes first, tickets second
    # ... and only those touching its own network (once it has one): a long path, fast end
    network_racer: bool = False
    # With the tickets done: "points" aims at the most valuable routes, "network" claims
    # whatever it can afford next to its own network, "any" whatever it can afford.
    fill: str = "points"
    early_tickets: int = 0  # draw more tickets while the plan lacks at most this many pieces
    turn_cost: float = 0.0  # > 0: plans count turns and points, so they prefer long routes
    hand_aware: float = 0.0  # plans prefer routes the hand can already pay (cost per card short)
    weigh_shares: bool = False  # Pennsylvania, 2 players: decline a share that feeds the neutral
    draft_together: bool = False  # Iberia: weigh a draft pick with the tickets picked before
    festival_grab: int = 0  # Iberia: claim a route off the plan taking this many festival points
    triage: float = 0.0  # below this chance to complete the plan, give up some of its tickets
    # With its tickets done, the last pieces wait for the most valuable routes they fit,
    # not a short route that spare cards pay (which also hastens the end for everyone).
    long_last: bool = False
    # Europe: claim a tunnel only with this many matching cards left after paying for it
    # (the reveal asks for one more per match; a tunnel declined wastes the turn).
    tunnel_reserve: int = 0
    # Caution for the initial tickets (None: as ``caution``): high, the player keeps few
    # and takes more once its network shows which ones come cheap.
    first_caution: float | None = None
    # A face-up locomotive the plan wants is taken (the whole draw) rather than two blind
    # cards only while those are worth less than this (each: the chance it is of a suit
    # the plan lacks); ``crowded_loco_blind`` instead at tables of ``CROWDED`` or more.
    loco_blind: float = 0.9
    crowded_loco_blind: float | None = None


CROWDED = 4
"""Players at a table from which a style's ``crowded_`` settings apply."""


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


def _counts(names: dict[str, int], kinds: int) -> list[int]:
    out = [0] * kinds
    for name, n in names.items():
        out[CARD_INDEX[name]] += n
    return out


class HeuristicPlayer:
    def __init__(self, style: Style) -> None:
        self.style = style

    def ranked_keeps(self, obs: Observation) -> list[KeepTickets]:
        """The ways to keep tickets offered now, the best by this player's reckoning
        (expected ticket points) first."""
        ids = obs.board.t_ids
        values = _Decision(obs, self.style).keep_values()
        values.sort(key=lambda v: (-v[0], v[1]))
        return [KeepTickets(tickets=[ids[t] for t in keep]) for _, keep in values]

    # Entry --------------------------------------------------------------------------------

    def choose(self, obs: Observation) -> Action:
        phase = obs.public.phase
        decide = _Decision(obs, self.style)
        if phase == Phase.CHOOSE_INITIAL_TICKETS and not obs.private.offered:
            return decide.pieces()  # Rails & Sails: tickets kept, the pieces follow at once
        if phase in (Phase.CHOOSE_INITIAL_TICKETS, Phase.CHOOSE_TICKETS, Phase.DRAFT_KEEP):
            return decide.keep_tickets()
        if phase == Phase.DRAFT:
            return decide.draft_pick()
        if phase == Phase.TUNNEL:
            return decide.tunnel()
        if phase in (Phase.CHOOSE_SHARE, Phase.CHOOSE_NEUTRAL_SHARE):
            return decide.share(neutral=phase == Phase.CHOOSE_NEUTRAL_SHARE)
        if phase == Phase.CHOOSE_FESTIVAL:
            return decide.festival()
        if phase == Phase.CHOOSE_PIECES:
            return decide.pieces()
        if phase == Phase.SECOND_DRAW:
            return decide.draw(second=True)
        if phase == Phase.TURN:
            return decide.turn()
        return obs.options[0]


class _Decision:
    """One decision: the situation, the plan and the options, computed once."""

    def __init__(self, obs: Observation, style: Style) -> None:
        self.obs = obs
        self.style = style
        self.sit = sit = Situation(obs)
        self.board = obs.board
        self.rng = random.Random(f"{obs.seed}:{obs.seat}:{obs.public.turn}:{obs.public.phase}")
        noise = None
        if style.plan_noise:
            game_rng = random.Random(f"{obs.seed}:{obs.seat}:plan")
            noise = [
                1.0 + style.plan_noise * (2 * game_rng.random() - 1)
                for _ in range(len(self.board.route_ids))
            ]
        self.costs = sit.route_costs(noise, style.turn_cost, style.hand_aware)
        self._plan: Plan | None = None
        self._pursued = list(sit.open_tickets)

    @property
    def plan(self) -> Plan:
        """The routes to claim for the tickets pursued (``pursued``)."""
        if self._plan is None:
            self._plan = self.sit.plan(self.sit.open_tickets, self.costs)
            if self.style.triage:
                self._triage()
        return self._plan

    @property
    def pursued(self) -> list[int]:
        """The open tickets the plan goes for: all of them unless the player gave some up."""
        if self._plan is None:
            _ = self.plan
        return self._pursued

    def _triage(self) -> None:
        """Give up tickets one at a time while that raises the chance-weighted points of
        the rest: an overloaded plan spreads its claims over every ticket and may complete
        none."""
        assert self._plan is not None
        points = self.board.t_points

        def worth(plan: Plan, tickets: list[int]) -> float:
            return self.completion(plan) * sum(points[t] for t in tickets if t not in plan.failed)

        plan, kept = self._plan, list(self._pursued)
        if self.completion(plan) >= self.style.triage:
            return
        best = worth(plan, kept)
        while len(kept) > 1:
            trials = []
            for t in kept:
                rest = [x for x in kept if x != t]
                p = self.sit.plan(rest, self.costs)
                trials.append((worth(p, rest), rest, p))
            value, rest, p = max(trials, key=lambda x: x[0])
            if value <= best:
                break
            best, kept, plan = value, rest, p
        self._plan, self._pursued = plan, kept

    def options_of(self, kind: type) -> list[Action]:
        return [a for a in self.obs.options if isinstance(a, kind)]

    # Tickets ------------------------------------------------------------------------------

    def completion(self, plan: Plan) -> float:
        """Estimated chance to claim every route of ``plan`` before the game ends."""
        sit = self.sit
        if not plan.routes:
            return 1.0
        turns = sit.turns_left()
        hand = sum(sit.resources.values())
        cards = max(0.0, plan.cost - 0.5 * hand)
        needed = cards / 1.5 + len(plan.routes)
        pieces = sit.trains[sit.seat]
        return _logistic((turns - needed - 2) / 2) * _logistic((pieces - plan.cost - 2) / 1.5)

    def expected(self, tickets: Sequence[int]) -> float:
        """Expected ticket points of holding ``tickets`` (with the open ones) to the end."""
        board = self.board
        plan = self.sit.plan(tickets, self.costs)
        p = self.completion(plan)
        value = 0.0
        caution = self.style.caution
        if self.style.first_caution is not None and (
                self.obs.public.phase == Phase.CHOOSE_INITIAL_TICKETS):
            caution = self.style.first_caution
        for t in tickets:
            points = board.t_points[t]
            if t in plan.failed:
                value -= points * (1 + caution)
            else:
                value += points * (p - (1 - p) * (1 + caution))
        return value

    def keep_tickets(self) -> Action:
        sit, board = self.sit, self.board
        offer = sit.offered
        low = self.obs.private.keep_min
        ids = board.t_ids
        if self.style.keep == "cheap":
            ranked = sorted(offer, key=lambda t: (self._distance(t), ids[t]))
            return KeepTickets(tickets=[ids[t] for t in ranked[:low]])
        best: tuple[float, tuple[int, ...]] | None = None
        for value, keep in self.keep_values():
            value += 0.01 * self.rng.random()
            if best is None or value > best[0]:
                best = (value, keep)
        assert best is not None
        return KeepTickets(tickets=[ids[t] for t in best[1]])

    def keep_values(self) -> list[tuple[float, tuple[int, ...]]]:
        """Every way to keep tickets of the offer (ticket indexes) with the expected ticket
        points of holding it beside the open tickets."""
        offer = self.sit.offered
        low = self.obs.private.keep_min
        high = self.obs.private.keep_max or len(offer)
        base = [t for t in self.sit.open_tickets if t not in offer]
        return [
            (self.expected([*base, *keep]), keep)
            for k in range(low, high + 1)
            for keep in combinations(offer, k)
        ]

    def _distance(self, t: int) -> float:
        plan = self.sit.plan([t], self.costs)
        return INF if plan.failed else plan.cost / max(1, self.board.t_points[t])

    def draft_pick(self) -> Action:
        board = self.board
        packet = [board.t_index[t.id] for t in self.obs.private.draft_packet]
        base = self.sit.open_tickets
        value = self._draft_value if self.style.draft_together else (
            lambda t: self.expected([*base, t])
        )
        best = max(packet, key=lambda t: (value(t), -board.t_ids[t]))
        return DraftPick(ticket=board.t_ids[best])

    def _draft_value(self, t: int) -> float:
        """A draft pick's worth with the tickets picked before it: the best set it could end
        up in (as many as will be kept, ``t`` among them) beside the tickets held."""
        festivals = self.board.rules.festivals
        assert festivals is not None
        board = self.board
        picked = [board.t_index[x.id] for x in self.obs.private.draft_picked]
        base = self.sit.open_tickets
        others = min(len(picked), festivals.draft.keep - 1)
        return max(self.expected([*base, *kept, t]) for kept in combinations(picked, others))

    # Module decisions ---------------------------------------------------------------------

    def tunnel(self) -> Action:
        pay = self.options_of(PayTunnel)
        return pay[0] if pay else DeclineTunnel()

    def share(self, neutral: bool) -> Action:
        shares = self.board.rules.shares
        assert shares is not None
        options = self.obs.private.share_options or [
            a.company for a in self.obs.options if isinstance(a, TakeShare | GiveNeutralShare)
        ]
        held = self.obs.private.shares
        companies = {c.id: c for c in shares.companies}

        def stake(company: str) -> float:
            c = companies[company]
            return c.scores[0] * (len(held.get(company, [])) + 1) / c.shares

        weigh = self.style.weigh_shares and self.sit.n in shares.neutral_investor_players
        if neutral:  # the neutral investor competes where this seat has the least at stake
            if weigh:
                value = self._share_margins([(None, g) for g in options])
                return GiveNeutralShare(company=max(options, key=lambda g: (value[(None, g)], g)))
            return GiveNeutralShare(company=min(options, key=lambda c: (stake(c), c)))
        take = TakeShare(company=max(options, key=lambda c: (stake(c), c)))
        if weigh:
            return self._take_or_decline(options, take)
        return take

    def _take_or_decline(self, options: Sequence[str], take: TakeShare) -> Action:
        """Two players and a neutral investor: a share taken also feeds the neutral pile,
        half of which is revealed at the end and takes places, and a bigger pile reveals
        each of its shares less surely. Take the company that leaves the best share
        margin (the neutral's share then going where it hurts least), or decline when
        declining is clearly better."""
        shares = self.board.rules.shares
        assert shares is not None
        pub = self.obs.public
        stacks = {c.id: pub.share_stacks.get(c.id, c.shares) for c in shares.companies}
        choices: list[tuple[str | None, str | None]] = [(None, None)]
        for company in options:
            left = [x for x in options if stacks[x] - (x == company) > 0]
            choices += [(company, g) for g in left] or [(company, None)]
        margins = self._share_margins(choices)
        # Taking is worth its best neutral share: this seat chooses where that one goes.
        value = {c: max(m for (mine, _), m in margins.items() if mine == c) for c in options}
        best = max(options, key=lambda c: (value[c], c == take.company))
        if margins[(None, None)] > value[best] + 1.0:  # clearly: shares to come favour taking
            return DeclineShare()
        return TakeShare(company=best)

    def _share_margins(
        self, choices: Sequence[tuple[str | None, str | None]]
    ) -> dict[tuple[str | None, str | None], float]:
        """Expected share points, this seat's minus the opponent's, after this seat takes
        the share of the first company of each choice and the neutral investor that of the
        second (None: no share). The shares this seat has not seen are split between the
        opponent and the neutral pile at random (only the pile's size is public), and
        the pile's revealed half is sampled."""
        shares = self.board.rules.shares
        assert shares is not None
        pub = self.obs.public
        companies = {c.id: c for c in shares.companies}
        mine = {c: list(n) for c, n in self.obs.private.shares.items()}
        taken = {c.id: c.shares - pub.share_stacks.get(c.id, c.shares) for c in shares.companies}
        unseen = [
            (c, n) for c, count in taken.items() for n in range(1, count + 1)
            if n not in mine.get(c, [])
        ]
        pile = min(pub.neutral_shares, len(unseen))
        rng = random.Random(f"{self.obs.seed}:{self.obs.seat}:{pub.turn}:shares")

        def margin(me: dict[str, list[int]], opp: list[tuple[str, int]],
                   revealed: list[tuple[str, int]]) -> float:
            total = 0.0
            for c in companies.values():
                investors = []
                for who, numbers in (
                    (1, me.get(c.id, [])),
                    (-1, [n for x, n in opp if x == c.id]),
                    (0, [n for x, n in revealed if x == c.id]),
                ):
                    if numbers:
                        investors.append((-len(numbers), min(numbers), who))
                for place, (_, _, who) in enumerate(sorted(investors)):
                    if place < len(c.scores):
                        total += who * c.scores[place]
            return total

        def outcome(extra_mine: str | None, extra_neutral: str | None,
                    opp: list[tuple[str, int]], neutral: list[tuple[str, int]]) -> float:
            me = {c: list(n) for c, n in mine.items()}
            pile_now = list(neutral)
            next_number = dict(taken)
            if extra_mine is not None:
                next_number[extra_mine] += 1
                me.setdefault(extra_mine, []).append(next_number[extra_mine])
            if extra_neutral is not None:
                next_number[extra_neutral] += 1
                pile_now.append((extra_neutral, next_number[extra_neutral]))
            shown = rng.sample(pile_now, math.ceil(len(pile_now) * shares.neutral_reveal_fraction))
            return margin(me, opp, shown)

        samples = 60
        totals = dict.fromkeys(choices, 0.0)
        for _ in range(samples):
            rng.shuffle(unseen)
            neutral, opp = unseen[:pile], unseen[pile:]
            for mine_company, neutral_company in choices:
                totals[(mine_company, neutral_company)] += (
                    outcome(mine_company, neutral_company, opp, neutral) / samples
                )
        return totals

    def festival(self) -> Action:
        festivals = self.board.rules.festivals
        assert festivals is not None
        held = self.obs.private.festival_cards
        lying = self.obs.public.festival_piles

        def gain(pile: str) -> int:
            have = held.get(pile, 0)
            return festivals.points(pile, have + lying.get(pile, 0)) - (
                festivals.points(pile, have) if have else 0
            )

        options = self.obs.private.festival_options or [
            a.pile for a in self.obs.options if isinstance(a, TakeFestival)
        ]
        return TakeFestival(pile=max(options, key=lambda p: (gain(p), p)))

    def pieces(self) -> Action:
        config = self.board.rules.rails_and_sails
        assert config is not None
        sit = self.sit
        tickets = sit.tickets or sit.offered
        plan = sit.plan(tickets, self.costs)
        trains = sum(self.board.r_len[r] for r in plan.routes if not sit.graph.ship[r])
        low, high = config.pieces - config.max_ships, config.max_trains
        want = max(low, min(high, trains + 6, config.pieces))
        return ChoosePieces(trains=want, ships=config.pieces - want)

    # A turn -------------------------------------------------------------------------------

    def claims(self) -> dict[int, list[list[int]]]:
        """Affordable claims now: route index -> payments (card counts). Tunnels only with
        the reserve the style asks for, except on the last turn."""
        board = self.board
        reserve = self.style.tunnel_reserve if self.sit.turns_left() > 1.5 else 0
        out: dict[int, list[list[int]]] = {}
        for a in self.obs.options:
            if isinstance(a, Claim):
                r = board.route_index[a.route]
                pay = _counts(a.cards, board.hand_kinds)
                if board.r_tunnel[r] and self._tunnel_reserve(pay) < reserve:
                    continue
                out.setdefault(r, []).append(pay)
        return out

    def _tunnel_reserve(self, pay: list[int]) -> int:
        """Cards left after paying ``pay`` for a tunnel that could pay the extra its reveal
        asks: of the colour played and locomotives (only locomotives if all were)."""
        hand = self.sit.hand
        colour = next((c for c in range(LOCO) if pay[c]), LOCO)
        left = hand[LOCO] - pay[LOCO]
        return left if colour == LOCO else left + hand[colour] - pay[colour]

    def claim(self, r: int, payments: list[list[int]], keep_for: Iterable[int]) -> Claim:
        """Claim ``r`` with the payment that spares the cards the other routes need."""
        sit = self.sit
        need = sit.needs(x for x in keep_for if x != r)

        def cost(pay: list[int]) -> float:
            total = 3.0 * pay[LOCO]
            for card, n in enumerate(pay):
                if n and card != LOCO:
                    res, _ = sit.card_resource(card)
                    total += n * (1.0 + (1.0 if need.get(res, 0) else 0.0))
            return total

        best = min(payments, key=cost)
        return Claim(route=self.board.route_ids[r], cards=names_from_counts(best))

    def turn(self) -> Action:
        sit, style, board = self.sit, self.style, self.board
        claims = self.claims()
        plan = self.plan
        turns = sit.turns_left()
        if style.endgame and turns <= 1.5 and claims:
            return self._best_points(claims, plan)
        targets = list(plan.routes)
        if style.long_routes:
            return self._racer_turn(claims, targets)
        in_plan = [r for r in targets if r in claims]
        if in_plan:
            if style.critical_first and len(in_plan) > 1:
                r = max(in_plan, key=lambda r: (self._criticality(r), board.r_len[r], -r))
            else:
                r = max(in_plan, key=lambda r: (board.r_len[r], -r))
            return self.claim(r, claims[r], targets)
        if style.endgame and turns <= 3 and claims and (targets or not style.long_last):
            spend = self._spare_claim(claims, plan)
            if spend:
                return spend
        if style.endgame and targets and turns < 6 and self.completion(plan) < 0.05 and claims:
            # The plan cannot be finished in time: points on the board instead.
            return self._best_points(claims, plan)
        if style.festival_grab and claims:
            grab = self._festival_grab(claims, plan)
            if grab:
                return grab
        draw_tickets = self.options_of(DrawTickets)
        if draw_tickets and self._wants_tickets(plan, turns):
            return draw_tickets[0]
        block = self._block(claims, plan) if style.block else None
        if block:
            return block
        harbor = self._harbor(bool(targets))
        if harbor:
            return harbor
        exchange = self._exchange(targets)
        if exchange:
            return exchange
        if style.stations and targets == [] and plan.failed:
            station = self._station(plan)
            if station:
                return station
        if not targets:
            targets = self._fill_targets()
            if style.fill != "points" and claims:
                r = self._casual_fill(claims)
                return self.claim(r, claims[r], targets)
            fill = [r for r in targets if r in claims]
            if fill:
                r = max(fill, key=lambda r: (board.r_points[r], -r))
                if board.r_len[r] >= 3 or turns < 4:
                    return self.claim(r, claims[r], targets)
        return self.draw(second=False, targets=targets)

    def _casual_fill(self, claims: dict[int, list[list[int]]]) -> int:
        """A casual habit, with the tickets done: claim whatever it can afford now, at random
        ("any") or the longest route touching its own network ("network")."""
        if self.style.fill == "any":
            return self.rng.choice(sorted(claims))
        board, mine = self.board, self.sit.mine
        nodes = {n for r, m in enumerate(mine) if m for n in (board.r_na[r], board.r_nb[r])}
        return max(
            claims,
            key=lambda r: (board.r_na[r] in nodes or board.r_nb[r] in nodes, board.r_len[r], -r),
        )

    def _spare_claim(
        self,
        claims: dict[int, list[list[int]]],
        plan: Plan,
        worth: Callable[[int], float] | None = None,
        keep: int = 0,
    ) -> Action | None:
        """A route off the plan paid only with cards the plan does not need, leaving ``keep``
        pieces to spare beyond the plan, worth most by ``worth`` (default: its points): in
        the last turns, so that idle cards become points."""
        sit, board = self.sit, self.board
        spare = sit.trains[sit.seat] - plan.cost - keep
        need = sit.needs(plan.routes)
        extra = {k: n - need.get(k, 0) for k, n in sit.resources.items()}
        if sit.demand(plan.routes):
            extra[JOKER] = 0  # locomotives are never spare while the plan lacks cards
        best: tuple[float, int, list[int]] | None = None
        for r, payments in claims.items():
            if r in plan.routes or board.r_len[r] > spare:
                continue
            for pay in payments:
                used: dict[int, int] = {}
                for card, n in enumerate(pay):
                    if n:
                        res, count = sit.card_resource(card)
                        used[res] = used.get(res, 0) + n * count
                if all(extra.get(k, 0) >= n for k, n in used.items()):
                    value = (worth(r) if worth else board.r_points[r]) - 0.1 * pay[LOCO]
                    if best is None or value > best[0]:
                        best = (value, r, pay)
        if best is None:
            return None
        return Claim(route=board.route_ids[best[1]], cards=names_from_counts(best[2]))

    def _festival_grab(self, claims: dict[int, list[list[int]]], plan: Plan) -> Action | None:
        """Iberia: a route off the plan that takes a rich festival pile, paid with cards the
        plan does not need and with pieces to spare."""
        gain, points = self.sit.festival_gain, self.board.r_points
        rich = {r: v for r, v in claims.items() if gain[r] >= self.style.festival_grab}
        if not rich:
            return None
        return self._spare_claim(rich, plan, worth=lambda r: gain[r] + points[r], keep=2)

    def _wants_tickets(self, plan: Plan, turns: float) -> bool:
        """Draw more tickets: the plan is done (or nearly, for an early planner) and there
        are pieces and turns left to complete new ones."""
        style, sit = self.style, self.sit
        if not style.more_tickets or turns < 5:
            return False
        if sit.trains[sit.seat] < style.more_tickets_trains:
            return False
        if not plan.routes:
            return True
        return (
            plan.cost <= style.early_tickets
            and turns >= 8 + plan.cost
            and not sit.demand(plan.routes)  # the hand already pays for the rest
        )

    def _block(self, claims: dict[int, list[list[int]]], plan: Plan) -> Action | None:
        """Claim a short route that a leading player clearly needs to join two parts of its
        network, when the detour it forces is long and this seat has pieces to spare."""
        sit, board = self.sit, self.board
        spare = sit.trains[sit.seat] - plan.cost
        if not claims or spare < 4 or sit.turns_left() < 3:
            return None
        mine = sit.scores[sit.seat]
        best: tuple[float, int] | None = None
        for other in range(sit.n):
            if other == sit.seat:
                continue
            # Two players: any gap hurts the only rival; more: only a clear leader's.
            if sit.n > 2 and sit.scores[other] < mine + self.style.block_lead * (sit.n - 2):
                continue
            routes = [r for r, s in enumerate(sit.owner) if s == other]
            labels = components(board.n_nodes, [(board.r_na[r], board.r_nb[r]) for r in routes])
            parts: dict[int, set[int]] = {}
            for r in routes:
                for node in (board.r_na[r], board.r_nb[r]):
                    parts.setdefault(labels[node], set()).add(node)
            if len(parts) < 2:
                continue
            costs = [
                0.0 if s == other else float(board.r_len[r]) if s < 0 else INF
                for r, s in enumerate(sit.owner)
            ]
            groups = sorted(parts.values(), key=len, reverse=True)[:3]
            for a, b in combinations(groups, 2):
                gap, path = shortest_path(sit.graph, costs, a, b)
                if gap > min(8, sit.trains[other]):
                    continue
                for r in path:
                    if r not in claims or board.r_len[r] > min(3, spare - 2):
                        continue
                    costs[r] = INF
                    detour, _ = shortest_path(sit.graph, costs, a, b)
                    costs[r] = float(board.r_len[r])
                    hurt = min(20.0, detour - gap)
                    if hurt >= 4 and (best is None or hurt - board.r_len[r] > best[0]):
                        best = (hurt - board.r_len[r], r)
        if best is None:
            return None
        return self.claim(best[1], claims[best[1]], plan.routes)

    def _best_points(self, claims: dict[int, list[list[int]]], plan: Plan) -> Action:
        board = self.board

        def value(r: int) -> float:
            bonus = 0.0
            if r in plan.routes and len(plan.routes) == 1:
                bonus = sum(board.t_points[t] for t in self.sit.open_tickets) * 2
            elif r in plan.routes:
                bonus = 3
            return board.r_points[r] + bonus

        r = max(claims, key=lambda r: (value(r), -r))
        return self.claim(r, claims[r], plan.routes)

    def _criticality(self, r: int) -> float:
        """How much the plan would cost more if ``r`` were taken by someone else."""
        costs = list(self.costs)
        costs[r] = INF
        alt = self.sit.plan(self.pursued, costs)
        if alt.failed:
            return 100.0 + sum(self.board.t_points[t] for t in alt.failed)
        return alt.cost - self.plan.cost

    def _racer_turn(self, claims: dict[int, list[list[int]]], plan: Sequence[int]) -> Action:
        """Long routes first whenever one is affordable, then the tickets' routes; cards are
        drawn for both."""
        board = self.board
        long = [r for r in claims if board.r_len[r] >= 5]
        if self.style.network_racer:
            long = self._touching_network(long) or [r for r in long if r in plan]
        if long:
            r = max(long, key=lambda r: (board.r_len[r], r in plan, -r))
            return self.claim(r, claims[r], plan)
        in_plan = [r for r in plan if r in claims]
        if in_plan:
            r = max(in_plan, key=lambda r: (board.r_len[r], -r))
            return self.claim(r, claims[r], plan)
        fill = self._fill_targets()
        if not plan:
            short = [r for r in claims if board.r_len[r] >= 3]
            if short:
                r = max(short, key=lambda r: (board.r_len[r], -r))
                return self.claim(r, claims[r], fill)
        return self.draw(second=False, targets=[*plan, *fill[:2]])

    def _touching_network(self, routes: Iterable[int]) -> list[int]:
        """The routes of ``routes`` next to this seat's own network (all if it has none)."""
        board, mine = self.board, self.sit.mine
        nodes = {n for r, m in enumerate(mine) if m for n in (board.r_na[r], board.r_nb[r])}
        routes = list(routes)
        if not nodes:
            return routes
        return [r for r in routes if board.r_na[r] in nodes or board.r_nb[r] in nodes]

    def _fill_targets(self) -> list[int]:
        """Routes worth points to aim at when no ticket needs anything: the longest free ones
        this seat could still place, next to its network first (for the longest path)."""
        sit, board = self.sit, self.board
        mine_nodes = {
            n for r, m in enumerate(sit.mine) if m for n in (board.r_na[r], board.r_nb[r])
        }
        pieces = sit.trains[sit.seat]
        candidates = [r for r, free in enumerate(sit.free) if free and board.r_len[r] <= pieces]
        candidates.sort(
            key=lambda r: (
                -board.r_points[r]
                - 2 * (board.r_na[r] in mine_nodes or board.r_nb[r] in mine_nodes),
                r,
            )
        )
        return candidates[:3]

    def _harbor(self, busy: bool) -> Action | None:
        config = self.board.rules.rails_and_sails
        options = self.options_of(BuildHarbor)
        if config is None or not options:
            return None
        board, sit = self.board, self.sit
        planned = set(self.plan.routes)
        reached = {t for t in sit.tickets if t in sit.done or t not in self.plan.failed}

        def value(a: Action) -> float:
            assert isinstance(a, BuildHarbor)
            named = sum(1 for t in reached if a.city in board.map.tickets[t].cities)
            if not named:
                return -config.unbuilt_harbor_points
            return config.harbor_points[min(named, len(config.harbor_points)) - 1] - (
                config.unbuilt_harbor_points
            )

        best = max(
            options,
            key=lambda a: (
                value(a),
                -a.cards.get("locomotive", 0) if isinstance(a, BuildHarbor) else 0,
            ),
        )
        worth = value(best)
        late = sit.turns_left() < 6
        if (worth >= 24 and (not busy or late)) or (late and worth > 0 and not planned):
            return best
        return None

    def _exchange(self, targets: Sequence[int]) -> Action | None:
        """Rails & Sails: swap pieces when the plan needs more of one kind than is left."""
        config = self.board.rules.rails_and_sails
        if config is None:
            return None
        pieces = self.obs.private.pieces
        board, graph = self.board, self.sit.graph
        ships_needed = sum(board.r_len[r] for r in targets if graph.ship[r])
        trains_needed = sum(board.r_len[r] for r in targets if not graph.ship[r])
        short_ships = ships_needed - pieces.get("ships", 0)
        short_trains = trains_needed - pieces.get("trains", 0)
        if short_ships > 0 and pieces.get("trains", 0) - trains_needed > 0:
            n = min(short_ships, pieces["trains"] - trains_needed, pieces["reserve_ships"])
            n = min(n, config.max_ships - pieces["ships"])
            if n > 0:
                return ExchangePieces(trains=-n)
        if short_trains > 0 and pieces.get("ships", 0) - ships_needed > 0:
            n = min(short_trains, pieces["ships"] - ships_needed, pieces["reserve_trains"])
            n = min(n, config.max_trains - pieces["trains"])
            if n > 0:
                return ExchangePieces(trains=n)
        return None

    def _station(self, plan: Plan) -> Action | None:
        """Europe: a station where another player's route would complete a failed ticket."""
        options = self.options_of(BuildStation)
        if not options:
            return None
        sit, board = self.sit, self.board
        costs = list(self.costs)
        for r, s in enumerate(sit.owner):
            if s >= 0 and s != sit.seat:
                costs[r] = 0.5
        for t in plan.failed:
            stops = sit.graph.stops[t]
            c, path = 0.0, list[int]()
            for a, b in pairwise(stops):
                step, p = shortest_path(sit.graph, costs, a, b)
                c, path = c + step, path + p
            borrowed = [r for r in path if sit.owner[r] >= 0 and sit.owner[r] != sit.seat]
            if c == INF or len(borrowed) != 1 or c > sit.trains[sit.seat]:
                continue
            r = borrowed[0]
            for city in (board.r_a[r], board.r_b[r]):
                for option in options:
                    assert isinstance(option, BuildStation)
                    if option.city == board.city_ids[city]:
                        return option
        return None

    # Drawing cards ------------------------------------------------------------------------

    def draw(self, second: bool, targets: Sequence[int] | None = None) -> Action:
        sit = self.sit
        if targets is None:
            targets = list(self.plan.routes) or self._fill_targets()
        face_up = self.options_of(DrawFaceUp)
        blind = self.options_of(DrawBlind)
        if self.style.careless and self.rng.random() < self.style.careless:
            return self.rng.choice(face_up + blind) if face_up or blind else self.obs.options[0]
        deficit = sit.demand(targets)
        jokers_spare = sit.resources[JOKER] - sum(self.board.r_ferry[r] for r in targets)
        # Cards a locomotive could stand in for: only on the routes it may pay (Nordic).
        wild = sit.demand(r for r in targets if sit.jokers_pay[r])
        short = sum(v for k, v in wild.items() if k != JOKER) - max(0, jokers_spare)
        wants_joker = deficit.get(JOKER, 0) > 0 or short >= 2

        def value(a: DrawFaceUp) -> float:
            card = sit.market[a.slot]
            res, worth = sit.card_resource(card)
            if res == JOKER:
                return 1.05 if wants_joker else 0.3
            return min(worth, deficit.get(res, 0)) + 0.01 * worth

        best_face: DrawFaceUp | None = None
        if face_up:
            best_face = max(
                (a for a in face_up if isinstance(a, DrawFaceUp)),
                key=lambda a: (value(a), self._refill_pref(a), -a.slot),
            )
        blind_value = self._blind_value(deficit)
        best_blind = max(blind, key=lambda a: self._deck_value(a, deficit)) if blind else None
        if best_face is not None:
            is_joker = sit.market[best_face.slot] == LOCO
            if (value(best_face) >= 1 and not is_joker) or best_blind is None:
                return best_face
            loco_blind = self.style.loco_blind
            if self.style.crowded_loco_blind is not None and sit.n >= CROWDED:
                loco_blind = self.style.crowded_loco_blind
            if is_joker and value(best_face) > 1 and (second or 2 * blind_value < loco_blind):
                return best_face
        if best_blind is not None:
            return best_blind
        return best_face if best_face is not None else self.obs.options[0]

    def _blind_value(self, deficit: dict[int, int]) -> float:
        wanted = sum(1 for k, v in deficit.items() if v > 0 and k != JOKER)
        return min(1.0, (wanted * 12 + 14) / 110)

    def _deck_value(self, a: Action, deficit: dict[int, int]) -> float:
        assert isinstance(a, DrawBlind)
        ships = sum(v for k, v in deficit.items() if k >= SHIP_SUIT)
        trains = sum(v for k, v in deficit.items() if 0 <= k < SHIP_SUIT)
        return (ships if a.deck == "ship" else trains) + (0.5 if a.deck == "train" else 0)

    def _refill_pref(self, a: DrawFaceUp) -> int:
        return 1 if a.refill in (None, "train") else 0


# The levels and the reference opponents ---------------------------------------------------

EASY = Style(
    name="easy",
    keep="cheap",
    more_tickets=False,
    careless=0.35,
    fill="any",
)
NORMAL = Style(
    name="normal",
    caution=0.6,
    more_tickets=True,
    more_tickets_trains=22,
    endgame=True,
    fill="network",
)
HARD = Style(
    name="hard",
    caution=0.8,
    more_tickets=True,
    more_tickets_trains=7,
    early_tickets=8,
    turn_cost=2.0,
    hand_aware=0.3,
    critical_first=True,
    plan_noise=0.15,
    endgame=True,
    block=True,
    block_lead=20,
    stations=True,
    weigh_shares=True,
    draft_together=True,
    festival_grab=8,
    triage=0.5,
    long_last=True,
    tunnel_reserve=1,
    first_caution=8.0,
    crowded_loco_blind=0.5,
)
RACER = Style(name="racer", keep="cheap", more_tickets=False, long_routes=True, endgame=True)
TICKET_GREEDY = Style(name="greedy", more_tickets=True, more_tickets_trains=12)
# Stronger references, written to measure *hard* against (docs/computer-players.md).
PLANNER = Style(
    name="planner",
    caution=1.0,
    more_tickets=True,
    more_tickets_trains=10,
    early_tickets=4,
    turn_cost=1.0,
    hand_aware=0.3,
    critical_first=True,
    endgame=True,
    block=True,
    block_lead=15,
    stations=True,
    weigh_shares=True,
    draft_together=True,
    festival_grab=6,
    triage=0.4,
    long_last=True,
    tunnel_reserve=1,
)
RUSHER = Style(
    name="rusher",
    keep="cheap",
    more_tickets=False,
    long_routes=True,
    network_racer=True,
    endgame=True,
    block=True,
    block_lead=15,
    tunnel_reserve=1,
)


def easy(seat: int) -> HeuristicPlayer:
    """Keeps the fewest, shortest tickets, plays them out, draws somewhat at random."""
    return HeuristicPlayer(EASY)


def normal(seat: int) -> HeuristicPlayer:
    """Keeps tickets it is confident about, plans shortest paths, draws for its plan; with
    its tickets done, extends its network with whatever it can afford."""
    return HeuristicPlayer(NORMAL)


def hard(seat: int) -> HeuristicPlayer:
    """Weighs tickets by completion chance, claims critical routes first, takes more tickets,
    varies its plans between games, blocks leaders and spends its last turns on points (with
    its tickets done, on the most valuable routes its last pieces fit)."""
    return HeuristicPlayer(HARD)


def racer(seat: int) -> HeuristicPlayer:
    """Reference opponent (FDG 2017 'Long Route'): claims the longest routes it can afford."""
    return HeuristicPlayer(RACER)


def planner(seat: int) -> HeuristicPlayer:
    """Reference opponent (FDG 2017 'shortest path' grown up): re-plans every turn on turns
    and points, keeps the tickets it can finish (a failed one weighs double), claims the
    route whose loss would hurt most first, blocks, takes more tickets late when its plan is
    nearly paid for, gives up tickets it would fail."""
    return HeuristicPlayer(PLANNER)


def rusher(seat: int) -> HeuristicPlayer:
    """Reference opponent (a racer that ends the game fast): keeps the fewest, cheapest
    tickets, claims the longest routes that extend its network, blocks its rival."""
    return HeuristicPlayer(RUSHER)


def expert(seat: int) -> HeuristicPlayer:
    """Reference opponent: the heuristic *hard* searches with, playing alone (every habit
    of *hard* without the look-ahead)."""
    return HeuristicPlayer(HARD)


def ticket_greedy(seat: int) -> HeuristicPlayer:
    """Reference opponent: shortest-path plans, greedy ticket choice, more tickets when done."""
    return HeuristicPlayer(TICKET_GREEDY)
