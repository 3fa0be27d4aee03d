"""Whole games consistent with what one seat has seen: the worlds a search plays out.

``Sampler(observation)`` prepares once per decision what the seat knows: the public view,
its own hand and tickets, and from the public history the cards each rival took face up
(and still holds, as far as its claims show). ``sample(rng)`` deals one world: the cards
nobody has seen go to the rivals' hands, the discards and the deck (in a random order), the
rivals' tickets are drawn from those the seat has not seen, likelier the more of their
cities a rival's network already touches, and the rest of the ticket deck is shuffled.
Nothing is read but the ``Observation``: the real deck order and the rivals' secrets
never enter a world.

A world is a fresh ``new_game`` of the same map and seats set up through
``engine.setup_position``; ``Sampler.ok`` says whether the world shows the seat exactly
what it saw (its public view and its own private view), which is checked on the first
world; a map part it cannot rebuild (a draft in progress) leaves it False and the player
decides without searching.

The first tickets are chosen by every seat at once, in private: in a world of that phase a
rival still choosing gets an offer dealt from the tickets the seat has not seen (as the
map's setup deals it: long and short tickets apart), and a rival that has chosen keeps as
many of such an offer as the public view counts; who plays first is the world's own draw
(hidden until the first turn).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine.cards import CARD_INDEX, SHIP, SPECIAL
from engine.events import CardDrawn, LastRound, RouteClaimed, ShareTaken, TurnStarted
from engine.game import new_game
from engine.phases import Phase
from engine.players.base import Observation
from engine.position import Position, card_codes, setup_position
from engine.state import GameConfig, GameState
from engine.views import private_view, public_view

NO_SEARCH_PHASES = (Phase.DRAFT, Phase.DRAFT_KEEP, Phase.CHOOSE_PIECES)
"""Phases whose hidden parts (draft packets, piece splits) a world does not rebuild; the
player decides them by its heuristic. (So are Rails & Sails' first tickets: its piece
splits follow them at once.)"""


class Sampler:
    """Deals worlds consistent with ``obs``; see the module documentation."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        pub, priv = obs.public, obs.private
        board = obs.board
        self.n = n = len(pub.players)
        self.seat = obs.seat
        self.config = GameConfig(map_id=board.map.id, players=[p.name for p in pub.players],
                                 seed=obs.seed)
        fresh = new_game(self.config)
        codes = card_codes(fresh)
        self.names = {c: name for name, c in codes.items()}
        # Every card of the map: a fresh game holds them all (deck, hands, market, ships).
        total: Counter[int] = Counter(fresh.deck)
        for hand in fresh.hands:
            total.update({c: k for c, k in enumerate(hand) if k})
        total.update(c for c in fresh.market if c >= 0)
        rs = fresh.ext.get("rs")
        if rs is not None:
            total.update(rs["ship_deck"])
        specials = [c for c in total.elements() if c >= SPECIAL]
        unseen = total.copy()
        mine = {CARD_INDEX[k]: v for k, v in priv.hand.items()}
        unseen.subtract(mine)
        unseen.subtract(codes[c] for c in pub.market if c is not None)
        for c in list(unseen):
            if c >= SPECIAL:
                del unseen[c]
        self.unseen = +unseen
        self.specials = specials
        self.known = self._known_cards(board)
        self.hand_sizes = [p.hand_size for p in pub.players]
        self.turns_left = self._turns_left()
        # Tickets the seat has not seen in hand. The ones it turned down are with no rival:
        # they left the game or lie under the ticket deck (top first in the order returned;
        # Europe's turned down at setup left the game but are put under it too, a
        # difference only a world that draws the whole deck could show).
        own = {t.id for t in priv.tickets} | {t.id for t in priv.offered}
        returned = [t.id for t in priv.returned]
        self.free_tickets = [t for t in board.t_ids if t not in own and t not in returned]
        self.under_deck = [
            t for t in returned if t not in own and not board.t_long[board.t_index[t]]
        ] if board.rules.returned_tickets == "bottom" else []
        self.networks = [
            {c for rid, s in pub.claimed.items() if s == p
             for c in (board.map.routes[board.route_index[rid]].a,
                       board.map.routes[board.route_index[rid]].b)}
            for p in range(n)
        ]
        self.share_counts = self._share_counts()
        self.initial = pub.phase == Phase.CHOOSE_INITIAL_TICKETS
        self.ok = pub.phase not in NO_SEARCH_PHASES and not (
            self.initial and board.rules.rails_and_sails is not None
        )
        self.checked = False

    # What the history tells -----------------------------------------------------------------

    def _known_cards(self, board: Any) -> list[Counter[int]]:
        """Per seat, cards it took face up and has not shown since (a claim that spends more
        of a kind than this uses up the known ones first)."""
        known: list[Counter[int]] = [Counter() for _ in range(self.n)]
        for e in self.obs.history:
            if isinstance(e, CardDrawn) and e.card is not None and e.slot is not None:
                known[e.seat][CARD_INDEX.get(e.card, -1)] += 1
            elif isinstance(e, RouteClaimed):
                for name, spent in e.cards.items():
                    c = CARD_INDEX.get(name, -1)
                    known[e.seat][c] = max(0, known[e.seat][c] - spent)
        for held in known:
            held.pop(-1, None)
        return known

    def _turns_left(self) -> int:
        if not self.obs.public.last_round:
            return -1
        last: int | None = None
        started = 0
        for e in self.obs.history:
            if isinstance(e, LastRound):
                last, started = e.turns_left, 0
            elif isinstance(e, TurnStarted) and last is not None:
                started += 1
        if last is None:
            return self.n  # no history: assume a whole round is left
        return max(1, last - max(0, started - 1))

    def _share_counts(self) -> list[int]:
        counts = [0] * self.n
        for e in self.obs.history:
            if isinstance(e, ShareTaken) and not e.neutral:
                counts[e.seat] += 1
        return counts

    # A world ------------------------------------------------------------------------------

    def sample(self, rng: random.Random) -> GameState | None:
        """One world, or None when this position cannot be rebuilt (then ``ok`` is False)."""
        if not self.ok:
            return None
        pub, priv = self.obs.public, self.obs.private
        state = new_game(self.config.model_copy(update={"seed": rng.getrandbits(32)}))
        hands, deck, discards, ships, ship_discards = self._deal(rng)
        tickets, offered, ticket_deck = self._tickets(rng)
        names = self.names
        fields: dict[str, Any] = {
            "phase": pub.phase,
            # The first tickets: who starts is still hidden (the fresh game drew it).
            "current": None if self.initial else pub.current if pub.current is not None
            else self.seat,
            "turn": pub.turn,
            "turns_left": self.turns_left,
            "hands": {s: {names[c]: k for c, k in h.items() if k} for s, h in enumerate(hands)},
            "deck": [names[c] for c in deck],
            "discards": [names[c] for c in discards],
            "market": pub.market,
            "tickets": tickets,
            "offered": offered,
            "keep_min": {self.seat: priv.keep_min},
            "returned": {self.seat: [t.id for t in priv.returned]},
            "ticket_deck": ticket_deck,
            "owners": dict(pub.claimed),
            "stations": dict(pub.stations),
            "trains": {p.seat: p.trains for p in pub.players},
            "scores": {p.seat: p.score for p in pub.players},
            "stations_left": {p.seat: p.stations for p in pub.players},
        }
        if pub.tunnel is not None:
            return None  # a tunnel's cards played are not in any view: not searched
        fields.update(self._module_fields(rng, ships, ship_discards))
        try:
            setup_position(state, Position(**fields))
        except ValueError:
            self.ok = False
            return None
        if not self.checked:
            self.checked = True
            self.ok = (
                public_view(state) == pub and private_view(state, self.seat) == priv
            )
            if not self.ok:
                return None
        return state

    def _deal(
        self, rng: random.Random
    ) -> tuple[list[Counter[int]], list[int], list[int], list[int], list[int]]:
        """Rivals' hands (their known cards first), discards and deck from the unseen cards;
        Rails & Sails: train and ship cards apart (the rivals hold what the decks lack)."""
        pub = self.obs.public
        pool = self.unseen.copy()
        hands: list[Counter[int]] = [Counter() for _ in range(self.n)]
        hands[self.seat] = Counter({CARD_INDEX[k]: v for k, v in self.obs.private.hand.items()})
        room = list(self.hand_sizes)
        for s in range(self.n):
            if s == self.seat:
                continue
            for c, k in self.known[s].items():
                take = min(k, pool[c], room[s])
                if take > 0:
                    hands[s][c] += take
                    pool[c] -= take
                    room[s] -= take
        trains = [c for c in (+pool).elements() if c < SHIP]
        ship_cards = [c for c in (+pool).elements() if c >= SHIP]
        rng.shuffle(trains)
        rng.shuffle(ship_cards)
        # The decks' sizes are public: what they do not hold, the rivals do.
        train_in_hands = max(0, len(trains) - pub.deck + pub.deck_special - pub.discards)
        ship_in_hands = max(0, len(ship_cards) - pub.ship_deck - pub.ship_discards)
        kinds = ["t"] * train_in_hands + ["s"] * ship_in_hands
        rng.shuffle(kinds)
        for s in range(self.n):
            if s == self.seat:
                continue
            for _ in range(room[s]):
                kind = kinds.pop() if kinds else "t"
                source = trains if (kind == "t" and trains) or not ship_cards else ship_cards
                hands[s][source.pop()] += 1
        discards = trains[: pub.discards]
        deck = trains[pub.discards:]
        specials = list(self.specials)
        rng.shuffle(specials)
        deck += specials[: pub.deck_special]
        rng.shuffle(deck)
        ship_discards = ship_cards[: pub.ship_discards]
        ships = ship_cards[pub.ship_discards:]
        return hands, deck, discards, ships, ship_discards

    def _tickets(
        self, rng: random.Random
    ) -> tuple[dict[int, list[int]], dict[int, list[int]], list[int]]:
        """Rivals' tickets, likelier where their networks reach, and their offers; the rest
        is the deck (top first), above the tickets the seat returned under it."""
        board, pub = self.obs.board, self.obs.public
        pool = list(self.free_tickets)
        rng.shuffle(pool)
        tickets: dict[int, list[int]] = {self.seat: [t.id for t in self.obs.private.tickets]}
        offered: dict[int, list[int]] = {s: [] for s in range(self.n)}
        offered[self.seat] = [t.id for t in self.obs.private.offered]
        under = self.under_deck
        if self.initial:
            pool, under = self._first_offers(rng, pool, tickets, offered)
        cities = {t.id: t.cities for t in board.map.tickets}
        for p in pub.players:
            if p.seat in tickets:
                continue
            network = self.networks[p.seat]
            held: list[int] = []
            for _ in range(p.tickets):
                if not pool:
                    break
                weights = [
                    1.0 + 3.0 * sum(c in network for c in cities[t]) for t in pool
                ]
                pick = rng.choices(range(len(pool)), weights)[0]
                held.append(pool.pop(pick))
            tickets[p.seat] = held
        under = under[-pub.tickets_left:] if pub.tickets_left else []
        return tickets, offered, pool[: pub.tickets_left - len(under)] + under

    def _first_offers(
        self,
        rng: random.Random,
        pool: list[int],
        tickets: dict[int, list[int]],
        offered: dict[int, list[int]],
    ) -> tuple[list[int], list[int]]:
        """The first tickets: each rival dealt an offer as the setup deals it (long tickets
        apart), kept whole while it is choosing, else as many of it as it holds; the
        short tickets left for the deck, and the ones a rival turned down that lie under
        it (where the map returns them there)."""
        board = self.obs.board
        deal = board.rules.setup_tickets
        longs = [t for t in pool if board.t_long[board.t_index[t]]]
        short = [t for t in pool if not board.t_long[board.t_index[t]]]
        bottom = (deal.returned or board.rules.returned_tickets) == "bottom"
        under: list[int] = []
        for p in self.obs.public.players:
            if p.seat == self.seat:
                continue
            offer = [longs.pop() for _ in range(min(deal.deal_long, len(longs)))]
            offer += [short.pop() for _ in range(min(deal.deal, len(short)))]
            if p.deciding:
                offered[p.seat] = offer
                continue
            kept = rng.sample(offer, min(p.tickets, len(offer)))
            tickets[p.seat] = kept
            if bottom:
                under += [t for t in offer if t not in kept and not board.t_long[board.t_index[t]]]
        return short, under

    def _module_fields(
        self, rng: random.Random, ships: list[int], ship_discards: list[int]
    ) -> dict[str, Any]:
        obs, pub, priv = self.obs, self.obs.public, self.obs.private
        rules = obs.board.rules
        names = self.names
        fields: dict[str, Any] = {}
        if rules.shares is not None:
            mine = {c: list(v) for c, v in priv.shares.items()}
            unseen = [
                (c.id, k)
                for c in rules.shares.companies
                for k in range(1, c.shares - pub.share_stacks.get(c.id, c.shares) + 1)
                if k not in mine.get(c.id, [])
            ]
            rng.shuffle(unseen)
            neutral: dict[str, list[int]] = {}
            for c, k in unseen[: pub.neutral_shares]:
                neutral.setdefault(c, []).append(k)
            rest = unseen[pub.neutral_shares:]
            shares: dict[int, dict[str, list[int]]] = {self.seat: mine}
            others = [s for s in range(self.n) if s != self.seat]
            for i, s in enumerate(others):
                k = self.share_counts[s] if i < len(others) - 1 else len(rest)
                held: dict[str, list[int]] = {}
                for c, number in rest[:k]:
                    held.setdefault(c, []).append(number)
                rest = rest[k:]
                shares[s] = held
            fields["shares"] = shares
            fields["neutral_shares"] = neutral
            if pub.phase in (Phase.CHOOSE_SHARE, Phase.CHOOSE_NEUTRAL_SHARE):
                fields["share_choice"] = self._share_choice()
        if rules.festivals is not None:
            fields["festival_piles"] = dict(pub.festival_piles)
            fields["festival_cards"] = {self.seat: dict(priv.festival_cards)}
            # Tickets may be drawn again once the second draft is over.
            fields["second_draft_done"] = pub.can_draw_tickets and pub.tickets_left > 0
            if pub.phase == Phase.CHOOSE_FESTIVAL:
                fields["festival_choice"] = list(priv.festival_options)
        if rules.rails_and_sails is not None:
            fields["ship_deck"] = [names[c] for c in ships]
            fields["ship_discards"] = [names[c] for c in ship_discards]
            fields["harbors"] = dict(pub.harbors)
            pieces = {s: dict(split) for s, split in enumerate(pub.piece_split) if split}
            pieces[self.seat] = dict(priv.pieces)
            fields["pieces"] = pieces
        return fields

    def _share_choice(self) -> dict[str, Any] | None:
        """The share decision pending: the route just claimed (the last claim in the
        history) and the options this seat sees."""
        board = self.obs.board
        for e in reversed(self.obs.history):
            if isinstance(e, RouteClaimed):
                return {"route": e.route, "options": list(self.obs.private.share_options)}
        del board
        return None
