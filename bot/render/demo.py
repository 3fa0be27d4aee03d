"""Views to render without a live game: hand-made ones for any map, or a random engine game.

Used by the CLI, the tests, the benchmark and the bot's start-up check
(``bot.game.images.check_renderer`` draws one hand). Hand-made views follow the
shapes of the real ones (claims respect double routes, trains and scores add
up) but are not a legal game; ``engine_views`` plays a real one.
"""

from __future__ import annotations

import random

from engine import extras
from engine.extras import ExtraPoints
from engine.phases import Phase
from engine.views import (
    FinalScores,
    PlayerScore,
    PrivateView,
    PublicPlayer,
    PublicView,
    TicketResult,
    TicketView,
)
from maps import load_map
from maps.model import MapData

from .highlight import LastMove

NAMES = ("Ana", "Benedikt", "Cy", "Dagmar", "Eli")
SUITS = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive")


def _claims(m: MapData, rng: random.Random, players: int, count: int) -> dict[int, int]:
    routes = {r.id: r for r in m.routes}
    claimed: dict[int, int] = {}
    for r in rng.sample(m.routes, min(count, len(m.routes))):
        seat = rng.randrange(players)
        twin = claimed.get(r.double_of) if r.double_of is not None else None
        if twin is not None and (twin == seat or players < m.rules.double_routes_min_players):
            continue
        if sum(routes[i].length for i, s in claimed.items() if s == seat) + r.length > _pieces(m):
            continue
        claimed[r.id] = seat
    return claimed


def _pieces(m: MapData) -> int:
    """Pieces each player starts with (Rails & Sails: trains and ships together)."""
    return m.rules.rails_and_sails.pieces if m.rules.rails_and_sails else m.rules.trains


def _players(
    m: MapData, claimed: dict[int, int], players: int, rng: random.Random, stations: dict[str, int]
) -> list[PublicPlayer]:
    routes = {r.id: r for r in m.routes}
    per = m.rules.stations.per_player if m.rules.stations else 0
    out = []
    for seat in range(players):
        mine = [routes[i] for i, s in claimed.items() if s == seat]
        out.append(
            PublicPlayer(
                seat=seat,
                name=NAMES[seat],
                score=sum(m.rules.route_points[r.length] for r in mine),
                trains=_pieces(m) - sum(r.length for r in mine),
                stations=per - sum(1 for s in stations.values() if s == seat),
                hand_size=rng.randrange(2, 14),
                tickets=rng.randrange(2, 6),
            )
        )
    return out


def _closed(m: MapData, claimed: dict[int, int], players: int) -> list[int]:
    if players >= m.rules.double_routes_min_players:
        return []
    return sorted(r.id for r in m.routes if r.double_of in claimed and r.id not in claimed)


def _market(m: MapData, rng: random.Random) -> list[str | None]:
    suits = [*m.rules.deck.colors, "locomotive"]
    rs = m.rules.rails_and_sails
    if rs is None:
        return [rng.choice(suits) for _ in range(m.rules.market_size)]
    trains = [*suits, *(f"{c}_harbor" for c in m.rules.deck.colors)]
    ships = [f"{c}_{k}" for c in rs.ship_deck.colors for k in ("ship", "double_ship")]
    market: list[str | None] = [rng.choice(trains) for _ in range(rs.market_train_cards)]
    return market + [rng.choice(ships) for _ in range(rs.market_ship_cards)]


def _module_public(m: MapData, rng: random.Random | None, players: int) -> dict[str, object]:
    """Share stacks, festival piles, ship deck and harbors: empty at the start (``rng``
    None), partly played otherwise."""
    out = _stacks(m, rng, players)
    if m.rules.festivals is not None:
        out["festival_piles"] = {
            p.id: 0 if rng is None else rng.choice((0, 0, 1, 2, 3)) for p in m.rules.festivals.piles
        }
    rs = m.rules.rails_and_sails
    if rs is not None:
        full = rs.ship_deck.total - players * rs.deal_ship_cards - rs.market_ship_cards
        out["ship_deck"] = full if rng is None else rng.randrange(5, full)
        out["ship_discards"] = 0 if rng is None else rng.randrange(0, 20)
        sites = [c.id for c in m.cities if c.harbor]
        out["harbors"] = (
            {} if rng is None else {c: rng.randrange(players) for c in rng.sample(sites, 5)}
        )
    return out


def empty_view(map_id: str, players: int = 3) -> PublicView:
    m = load_map(map_id)
    rng = random.Random(0)
    return PublicView(
        map_id=map_id,
        turn=1,
        phase=Phase.DRAFT if m.rules.festivals else Phase.CHOOSE_INITIAL_TICKETS,
        current=None,
        players=_players(m, {}, players, rng, {}),
        market=_market(m, rng),
        deck=m.rules.deck.total - 5 - 4 * players,
        discards=0,
        tickets_left=len(m.tickets),
        claimed={},
        closed=[],
        stations={},
        last_round=False,
        **_module_public(m, None, players),
    )


def mid_view(map_id: str, seed: int = 1, players: int = 4, claims: int = 30) -> PublicView:
    m = load_map(map_id)
    rng = random.Random(seed)
    claimed = _claims(m, rng, players, claims)
    stations: dict[str, int] = {}
    if m.rules.stations:
        for c in rng.sample(m.cities, min(3, len(m.cities))):
            stations[c.id] = rng.randrange(players)
    current = rng.randrange(players)
    return PublicView(
        map_id=map_id,
        turn=len(claimed) * 2 + 1,
        phase=Phase.TURN,
        current=current,
        players=_players(m, claimed, players, rng, stations),
        market=_market(m, rng),
        deck=rng.randrange(20, 70),
        discards=rng.randrange(0, 20),
        tickets_left=max(0, len(m.tickets) - 12),
        claimed=claimed,
        closed=_closed(m, claimed, players),
        stations=stations,
        last_round=False,
        **_module_public(m, rng, players),
    )


def _stacks(m: MapData, rng: random.Random | None, players: int) -> dict[str, object]:
    """Share stacks on the table: full at the start (``rng`` None), else partly taken."""
    if m.rules.shares is None:
        return {}
    stacks = {
        c.id: c.shares if rng is None else rng.randrange(0, c.shares + 1)
        for c in m.rules.shares.companies
    }
    neutral = players in m.rules.shares.neutral_investor_players
    pile = rng.randrange(1, 9) if neutral and rng is not None else 0
    return {"share_stacks": stacks, "neutral_shares": pile}


def _share_points(m: MapData, players: int, rng: random.Random) -> list[list[ExtraPoints]]:
    """Per seat, share points ('PRR shares (1st)'), places dealt at random among the
    players."""
    out: list[list[ExtraPoints]] = [[] for _ in range(players)]
    if m.rules.shares is None:
        return out
    for c in m.rules.shares.companies:
        seats = rng.sample(range(players), min(players, len(c.scores)))
        for place, seat in enumerate(seats[: rng.randrange(0, len(seats) + 1)]):
            out[seat].append(extras.share_points(c.id, place + 1, c.scores[place]))
    return out


def _map_points(m: MapData, view: PublicView, rng: random.Random) -> list[list[ExtraPoints]]:
    """Per seat, the map's own final points as the engine labels them: share majorities,
    festival sets ('Valencia festival (3 cards)'), harbors and Rails & Sails penalties."""
    players = len(view.players)
    out = _share_points(m, players, rng)
    fest = m.rules.festivals
    if fest is not None:
        for seat in range(players):
            for pile in rng.sample(fest.piles, rng.randrange(0, 4)):
                n = rng.randrange(1, pile.cards + 1)
                out[seat].append(extras.festival_points(pile.name, n, fest.points(pile.id, n)))
    rs = m.rules.rails_and_sails
    if rs is not None:
        names = {c.id: c.name for c in m.cities}
        for city, seat in sorted(view.harbors.items()):
            named = rng.randrange(0, 4)
            if named:
                value = rs.harbor_points[min(named, len(rs.harbor_points)) - 1]
                out[seat].append(extras.harbor_points(names[city], named, value))
        for seat in range(players):
            unbuilt = rs.harbors_per_player - sum(1 for s in view.harbors.values() if s == seat)
            if unbuilt:
                out[seat].append(extras.unbuilt_harbors(unbuilt,
                                                        unbuilt * rs.unbuilt_harbor_points))
            exchanged = rng.randrange(0, 4)
            if exchanged:
                out[seat].append(extras.exchanged_pieces(
                    exchanged, exchanged * rs.exchange_points_per_piece))
    return out


def final_view(map_id: str, seed: int = 1, players: int = 4) -> PublicView:
    mid = mid_view(map_id, seed, players, claims=len(load_map(map_id).routes) // 2)
    m = load_map(map_id)
    rng = random.Random(seed + 1)
    scores = []
    for p in mid.players:
        tickets = [
            TicketResult(
                id=t.id, cities=t.cities, points=t.points if rng.random() < 0.7 else -t.points
            )
            for t in rng.sample(m.tickets, min(len(m.tickets), rng.randrange(2, 6)))
        ]
        scores.append((p, tickets))
    longest = rng.randrange(players)
    per = m.rules.stations.per_player if m.rules.stations else 0
    unused_pts = m.rules.stations.unused_points if m.rules.stations else 0
    results = []
    points = _map_points(m, mid, rng)
    for p, tickets in scores:
        bonus = m.rules.longest_path_bonus if p.seat == longest else 0
        stations_bonus = p.stations * unused_pts
        total = (
            p.score
            + sum(t.points for t in tickets)
            + bonus
            + stations_bonus
            + sum(e.points for e in points[p.seat])
        )
        results.append(
            PlayerScore(
                seat=p.seat,
                name=p.name,
                routes=p.score,
                tickets=tickets,
                tickets_completed=sum(1 for t in tickets if t.points > 0),
                longest_path=rng.randrange(8, 30),
                longest_path_bonus=bonus,
                most_tickets_bonus=0,
                stations_used=per - p.stations,
                unused_stations_bonus=stations_bonus,
                extras=points[p.seat],
                total=total,
                rank=0,
            )
        )
    ranked = sorted(results, key=lambda r: -r.total)
    final_players = [
        r.model_copy(update={"rank": 1 + sum(1 for o in results if o.total > r.total)})
        for r in results
    ]
    top = ranked[0].total
    final = FinalScores(
        players=final_players, winners=[r.seat for r in results if r.total == top], reason="trains"
    )
    return mid.model_copy(
        update={
            "phase": Phase.GAME_OVER,
            "current": None,
            "last_round": True,
            "final": final,
            "players": [
                p.model_copy(update={"score": r.total})
                for p, r in zip(mid.players, final_players, strict=True)
            ],
        }
    )


def hand_view(map_id: str, seed: int = 1, seat: int = 0, offered: bool = True) -> PrivateView:
    m = load_map(map_id)
    rng = random.Random(seed)
    suits = [*m.rules.deck.colors, "locomotive"]
    rs = m.rules.rails_and_sails
    if rs is not None:  # every kind of card, ships the most
        suits += [f"{c}_harbor" for c in m.rules.deck.colors]
        suits += [f"{c}_{k}" for c in rs.ship_deck.colors for k in ("ship", "double_ship")]
    hand = {
        s: rng.randrange(1, 5) for s in rng.sample(suits, min(len(suits), 6 if rs is None else 11))
    }
    # Tour tickets (3+ cities) first where the map has them, so a sample shows one.
    pool = sorted(m.tickets, key=lambda t: (len(t.cities) < 3, rng.random()))
    picks = pool[:1] + rng.sample(pool[1:], min(len(pool) - 1, 5))

    def ticket(i: int, connected: bool) -> TicketView:
        t = picks[i]
        return TicketView(
            id=t.id, cities=t.cities, points=t.points, long=t.long, connected=connected
        )

    kept = [ticket(i, i % 2 == 1) for i in range(min(3, len(picks)))]
    offer = [ticket(i, False) for i in range(3, len(picks))] if offered else []
    shares: dict[str, list[int]] = {}
    if m.rules.shares is not None:
        for c in rng.sample(m.rules.shares.companies, 3):
            shares[c.id] = sorted(rng.sample(range(1, c.shares + 1), min(c.shares, 2)))
    extra: dict[str, object] = {}
    if m.rules.festivals is not None:
        piles = rng.sample(m.rules.festivals.piles, 4)
        extra["festival_cards"] = {p.id: rng.randrange(1, p.cards + 1) for p in piles}
    if rs is not None:
        trains = rng.randrange(0, rs.suggested_trains)
        ships = rng.randrange(0, rs.suggested_ships)
        extra["pieces"] = {
            "trains": trains,
            "ships": ships,
            "reserve_trains": rs.max_trains - rs.suggested_trains,
            "reserve_ships": rs.max_ships - rs.suggested_ships,
        }
        extra["harbors_left"] = rng.randrange(0, rs.harbors_per_player + 1)
    keep = m.rules.draw_tickets
    return PrivateView(
        seat=seat,
        hand=hand,
        tickets=kept,
        offered=offer,
        keep_min=keep.keep_min if offer else 0,
        keep_max=keep.keep_max if offer else None,
        shares=shares,
        **extra,
    )


def engine_views(
    map_id: str, seed: int, turns: int, players: int = 4
) -> tuple[PublicView, PrivateView, PublicView, LastMove | None]:
    """Play a game of the bot's computer players (normal level): the views after ``turns``
    turns (the first turn from then that follows a claim) and at the end, and that claim.

    Raises whatever the engine raises for a map it cannot play yet.
    """
    from engine import GameConfig, apply, new_game, private_view, public_view, waiting_for
    from engine.events import Event
    from engine.players import choose_action

    state = new_game(GameConfig(map_id=map_id, players=list(NAMES[:players]), seed=seed))
    history: list[Event] = []
    mid: tuple[PublicView, PrivateView] | None = None
    last: LastMove | None = None
    before: dict[int, int] = {}
    turn = -1
    while state.phase != Phase.GAME_OVER:
        if mid is None and state.phase == Phase.TURN and state.turn != turn:
            turn = state.turn
            view = public_view(state)
            claimed = {r: s for r, s in view.claimed.items() if r not in before}
            if turn >= turns and claimed:
                mid = (view, private_view(state, state.current))
                last = _claim(map_id, view, claimed)
            before = dict(view.claimed)
        seat = waiting_for(state)[0]
        history += apply(state, seat, choose_action("normal", state, seat, history=history,
                                                    seed=seed))
    end = public_view(state)
    if mid is None:
        mid = (end, private_view(state, 0))
    return mid[0], mid[1], end, last


def _claim(map_id: str, view: PublicView, claimed: dict[int, int]) -> LastMove:
    """The routes just claimed as the bot highlights them (one player's, in a turn)."""
    m = load_map(map_id)
    names = {c.id: c.name for c in m.cities}
    routes = {r.id: r for r in m.routes}
    seat = next(iter(claimed.values()))
    mine = tuple(r for r, s in claimed.items() if s == seat)
    what = ", ".join("–".join(names[c] for c in (routes[r].a, routes[r].b)) for r in mine)
    return LastMove(seat=seat, routes=mine, caption=f"{view.players[seat].name}: {what}")
