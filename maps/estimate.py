"""Estimates for what no public source gives about Iberia (Map Collection 8).

The public board data has no destination tickets, no festival card counts and
no festival score table. This module fills them in with a small documented,
deterministic generator; every value it makes is marked ``estimated``. When
the printed values turn up, write them into ``maps/data/iberia.json`` (or the
shared source, which the converter prefers): a data change only.

- **Tickets** (50, the published count): pairs of cities not joined by a
  route, drawn in three bands like the other maps (short 3-6 spaces, medium
  7-10, long 11+), preferring cities that have no ticket yet and then the
  least used ones, so every location (France included) appears at least
  once. Ties are broken by one shuffle from a fixed seed. Value = shortest
  path in spaces, plus ``FERRY_PREMIUM`` when the ticket can only be done
  with a ferry (every ticket to Palma).
- **Festival cards** (54, rulebook setup text): ``FESTIVAL_CARDS`` below, by
  hand: more cards where the festival is famous; Valencia 7 so the rulebook
  example (7 Valencia cards) can happen.
- **Festival table**: ``FESTIVAL_SCORES`` fits both rulebook examples
  (3 cards -> 6, 7 cards -> 22). Decision: each card beyond the table adds
  ``FESTIVAL_EXTRA_CARD`` (4, the table's last step); with the counts below no
  pile has more than 7 cards, so this only matters if printed counts differ.

``python -m maps.estimate`` rewrites the estimated parts of iberia.json and
prints a summary.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from collections import Counter
from typing import Any

from maps import DATA_DIR, parse_map

SEED = 8  # Map Collection 8; any fixed value keeps the output stable
TICKET_BANDS: tuple[tuple[str, int, int, int], ...] = (
    # name, min spaces, max spaces, how many tickets
    ("long", 11, 99, 12),
    ("medium", 7, 10, 21),
    ("short", 3, 6, 17),
)
FERRY_PREMIUM = 2
MAX_TICKETS_PER_CITY = 6

# Festival cards per pile (sum 54). Pile id = festival_pile of its cities.
FESTIVAL_CARDS: dict[str, int] = {
    "valencia": 7,  # Las Fallas; the rulebook example needs 7
    "sevilla": 5,  # Feria de Abril; the rulebook example has 3
    "pamplona": 5,  # San Fermín
    "madrid": 4,
    "barcelona": 4,
    "porto": 4,  # shared by Porto and Coimbra
    "lisboa": 3,
    "granada": 3,
    "malaga": 3,
    "cordoba": 3,
    "cadiz": 3,
    "palma": 2,
    "a_coruna": 2,
    "leon": 2,
    "valladolid": 2,
    "almeria": 1,
    "portimao": 1,
}
FESTIVAL_TOTAL = 54
# Points for 1..7 cards of one city: 3 -> 6 and 7 -> 22 are the rulebook's examples.
FESTIVAL_SCORES: list[int] = [1, 3, 6, 10, 14, 18, 22]
FESTIVAL_EXTRA_CARD = 4


def distances(cities: list[str], routes: list[dict[str, Any]], ferries: bool = True
              ) -> dict[str, dict[str, float]]:
    """All-pairs shortest paths in spaces (Floyd-Warshall; the board is small)."""
    inf = float("inf")
    d = {a: {b: 0.0 if a == b else inf for b in cities} for a in cities}
    for r in routes:
        if not ferries and r.get("ferry_locomotives", 0):
            continue
        w = min(d[r["a"]][r["b"]], r["length"])
        d[r["a"]][r["b"]] = d[r["b"]][r["a"]] = w
    for k in cities:
        dk = d[k]
        for i in cities:
            dik = d[i][k]
            if dik == inf:
                continue
            di = d[i]
            for j in cities:
                if dik + dk[j] < di[j]:
                    di[j] = dik + dk[j]
    return d


def generate_tickets(cities: list[str], routes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    dist = distances(cities, routes)
    by_land = distances(cities, routes, ferries=False)
    neighbours = {frozenset((r["a"], r["b"])) for r in routes}
    pairs = [
        (a, b) for a, b in itertools.combinations(sorted(cities), 2)
        if frozenset((a, b)) not in neighbours
    ]
    order = list(range(len(pairs)))
    random.Random(SEED).shuffle(order)
    rank = {p: order[i] for i, p in enumerate(pairs)}
    used: Counter[str] = Counter()
    chosen: list[tuple[str, str]] = []
    for _, low, high, count in TICKET_BANDS:
        band = [p for p in pairs if low <= dist[p[0]][p[1]] <= high]
        for _ in range(count):
            free = [p for p in band if p not in chosen
                    and max(used[p[0]], used[p[1]]) < MAX_TICKETS_PER_CITY]
            if not free:
                raise ValueError(f"no ticket left in the {low}-{high} band")
            best = min(free, key=lambda p: (
                -((used[p[0]] == 0) + (used[p[1]] == 0)), used[p[0]] + used[p[1]], rank[p]))
            chosen.append(best)
            used.update(best)
    missing = sorted(set(cities) - set(used))
    if missing:
        raise ValueError(f"cities without a ticket: {missing}")
    tickets = []
    for i, (a, b) in enumerate(sorted(chosen, key=lambda p: (dist[p[0]][p[1]], p)), start=1):
        points = int(dist[a][b])
        if by_land[a][b] == float("inf"):
            points += FERRY_PREMIUM
        tickets.append({"id": i, "cities": [a, b], "points": points, "estimated": True})
    return tickets


def festival_piles(cities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One pile per festival_pile id, named after its cities, with its estimated count."""
    names: dict[str, list[str]] = {}
    for c in cities:
        if c.get("festival_pile"):
            names.setdefault(c["festival_pile"], []).append(c["name"])
    if set(names) != set(FESTIVAL_CARDS):
        raise ValueError(f"festival piles on the board {sorted(names)} "
                         f"differ from the estimate table {sorted(FESTIVAL_CARDS)}")
    if sum(FESTIVAL_CARDS.values()) != FESTIVAL_TOTAL:
        raise ValueError("the festival card counts do not add up to 54")
    return [
        {"id": pid, "name": " / ".join(names[pid]), "cards": FESTIVAL_CARDS[pid],
         "estimated": True}
        for pid in FESTIVAL_CARDS
    ]


def apply(data: dict[str, Any]) -> dict[str, Any]:
    """Fill Iberia's tickets and festival numbers where they are missing or estimated.

    Printed values (entries without ``estimated``) are never replaced.
    """
    out = dict(data)
    tickets = data["tickets"]
    estimated_parts = []
    if not tickets or all(t.get("estimated") for t in tickets):
        out["tickets"] = generate_tickets([c["id"] for c in data["cities"]], data["routes"])
        estimated_parts.append(
            f"all 50 tickets (shortest path in spaces, +{FERRY_PREMIUM} when only a ferry "
            "reaches the city, i.e. Palma)")
    rules = dict(data["rules"])
    festivals = dict(rules["festivals"])
    if not festivals.get("piles") or festivals.get("estimated"):
        festivals.update(
            piles=festival_piles(data["cities"]), scores=FESTIVAL_SCORES,
            extra_card_points=FESTIVAL_EXTRA_CARD, estimated=True)
        estimated_parts.append(
            f"the festival cards per pile ({FESTIVAL_TOTAL}, Valencia "
            f"{FESTIVAL_CARDS['valencia']}) and the festival table {FESTIVAL_SCORES} for "
            f"1-{len(FESTIVAL_SCORES)} cards (fits the rulebook examples 3 Sevilla -> 6, "
            f"7 Valencia -> 22); each card beyond adds {FESTIVAL_EXTRA_CARD}")
    rules["festivals"] = festivals
    out["rules"] = rules
    notes = [n for n in data.get("notes", []) if not n.startswith("ESTIMATED")]
    if estimated_parts:
        out["status"] = "estimated"
        notes.append(
            "ESTIMATED (maps/estimate.py, no public source): " + "; ".join(estimated_parts)
            + ". Replace with the printed values when known (data change only).")
    out["notes"] = notes
    return out


def summary(data: dict[str, Any]) -> str:
    tickets = data["tickets"]
    bands = Counter(
        next(name for name, low, high, _ in TICKET_BANDS
             if low <= t["points"] - (FERRY_PREMIUM if "palma" in t["cities"] else 0) <= high)
        for t in tickets
    )
    per_city = Counter(c for t in tickets for c in t["cities"])
    piles = data["rules"]["festivals"]["piles"]
    return "\n".join([
        f"{len(tickets)} tickets, points {min(t['points'] for t in tickets)}-"
        f"{max(t['points'] for t in tickets)}, bands {dict(bands)}",
        f"cities on tickets: {len(per_city)} of {len(data['cities'])}, "
        f"most used {per_city.most_common(3)}, least used {per_city.most_common()[-3:]}",
        f"festival cards: {sum(p['cards'] for p in piles)} in {len(piles)} piles",
    ])


def main() -> int:
    path = DATA_DIR / "iberia.json"
    data = apply(json.loads(path.read_text(encoding="utf-8")))
    parse_map(data, str(path))
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(summary(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
