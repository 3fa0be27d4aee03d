"""Graph algorithms for final scoring: longest trail, connectivity, stations, tour tickets.

Plain Python on ints, tuples and bitmasks (no project imports): these run at
the end of every simulated game. Cities are small non-negative ints; graphs
are multigraphs given as edge lists, so parallel routes are separate edges.

A *trail* is a walk that uses no edge twice (cities may repeat); this is
the "longest continuous path" of the rules.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, pairwise, product
from operator import itemgetter

__all__ = [
    "best_station_assignment",
    "components",
    "longest_trail",
    "roots",
    "trail_in_order",
]


# --------------------------------------------------------------------------- union-find


def components(n_cities: int, edges: Iterable[tuple[int, int]]) -> list[int]:
    """Component label per city: two cities are connected iff their labels are equal.

    The label is the smallest city id in the component (deterministic).
    """
    label = list(range(n_cities))
    for a, b in edges:
        while label[a] != a:
            label[a] = label[label[a]]  # path halving
            a = label[a]
        while label[b] != b:
            label[b] = label[label[b]]  # path halving
            b = label[b]
        # The smaller id becomes the root: every city's parent is then at most itself.
        if a < b:
            label[b] = a
        elif b < a:
            label[a] = b
    for x in range(n_cities):  # so in increasing order, each parent's label is final
        label[x] = label[label[x]]
    return label


def roots(n_cities: int, edges: Iterable[tuple[int, int]]) -> Callable[[int], int]:
    """A city -> its component's root, the smallest city id in it: two cities are
    connected iff their roots are equal (``components``' labels, read in C)."""
    return components(n_cities, edges).__getitem__


# --------------------------------------------------------------------------- reductions


def _contract_series(
    edges: list[tuple[int, int, int]], keep: frozenset[int] | set[int]
) -> list[tuple[int, int, int]]:
    """Replace every city of degree 2 not in ``keep`` by one edge of the summed length.

    A trail that neither starts nor ends at such a city must leave it by its other
    edge right after entering, so the two edges behave as one. Contraction keeps the
    degree of every other city, so one pass over the cities finds all of them.
    May create loops (a, a, length) and parallel edges.
    """
    live = list(edges)
    alive = [True] * len(live)
    inc: dict[int, list[int]] = {}
    for i, (a, b, _) in enumerate(live):
        inc.setdefault(a, []).append(i)
        inc.setdefault(b, []).append(i)
    for w in list(inc):
        ends = inc[w]
        if len(ends) != 2 or w in keep:
            continue
        i, j = ends
        if i == j:  # a lone loop: nothing to join
            continue
        a1, b1, l1 = live[i]
        a2, b2, l2 = live[j]
        x = b1 if a1 == w else a1
        y = b2 if a2 == w else a2
        if x == w or y == w:  # cannot happen for distinct edges at degree 2; be safe
            continue
        k = len(live)
        live.append((x, y, l1 + l2))
        alive.append(True)
        alive[i] = alive[j] = False
        inc[x][inc[x].index(i)] = k
        inc[y][inc[y].index(j)] = k
        inc[w] = []
    return [e for e, ok in zip(live, alive, strict=True) if ok]


# --------------------------------------------------------------------------- longest trail


Edge = tuple[int, int, int]


def longest_trail(edges: Sequence[tuple[int, int, int]]) -> int:
    """Total length of the longest trail through the edges ``(city_a, city_b, length)``.

    Exact. Per connected component, longest first by total length, until no component
    left could beat the best trail found (a trail is at most its component's length):

    0. A tree (no cycle, as most of a player's components are): its longest path,
       found from the city farthest from any city.
    1. At most 2 odd-degree cities: an Euler trail uses every edge; the answer is
       the component's total length, no search.
    2. Cities of degree 2 are contracted (a chain becomes one edge): a trail that
       neither starts nor ends there passes straight through, and an optimal trail
       ends at odd cities only (it can be extended until stuck at both ends, and a
       stuck end of an open trail has odd degree).
    3. The component splits at its bridges into 2-edge-connected blocks, which form
       a tree. A trail crosses a bridge at most once, so it runs along a path of
       that tree and lies in one piece inside each block it meets. Dynamic
       programming over the tree gives every port (city on a bridge) the longest
       "tail" beyond it, so each block is solved once as a trail problem with end
       bonuses (``_BlockSearch``), only from its ports and odd cities.
    4. In a block, a trail between two ends uses every edge but a T-join (its
       unused edges have odd degree just where the ends and the odd cities leave
       them odd). The cheapest pairing of those cities by shortest paths bounds the
       value, and leaving unused exactly those paths almost always meets it, without
       search. Otherwise the unused edges are enumerated, cheapest first, under that
       bound (``_BlockSearch``).

    Complexity: steps 1-3 and the tree are linear; the pairing bound is
    O(2^k * k) for the k <= 16 cities to pair (a weaker bound beyond). The
    enumeration in step 4 is exponential in the worst case (the problem is NP-hard),
    but it runs only when the bound is not met, on one block, and only over T-joins
    within the bound's reach. Measured (``bench/bench_graph.py``): the slowest
    networks its own search finds within a player's pieces take about 5 ms on World
    and 1.5 ms or less on the other maps, most of it the pairing bounds; random
    50-route networks a few ms (max some tens of ms).
    """
    if not edges:
        return 0
    # Per city, its neighbours with the lengths between (a loop twice, at its city).
    adj: dict[int, list[tuple[int, int]]] = {}
    for a, b, length in edges:
        adj.setdefault(a, []).append((b, length))
        adj.setdefault(b, []).append((a, length))
    comp: dict[int, int] = {}  # city -> its component's first city
    parts: list[tuple[int, int, list[int]]] = []  # (total length, first city, cities)
    for start in adj:  # walk each component once: its cities and total length
        if start in comp:
            continue
        comp[start] = start
        here = adj[start]
        if len(here) == 1 and len(adj[here[0][0]]) == 1:  # one route alone (most parts)
            comp[here[0][0]] = start
            parts.append((here[0][1], start, []))
            continue
        cities = [start]
        for v in cities:
            for w, _ in adj[v]:
                if w not in comp:
                    comp[w] = start
                    cities.append(w)
        ends = chain.from_iterable(map(adj.__getitem__, cities))  # (in C: every game's end)
        parts.append((sum(map(_LENGTH, ends)) // 2, start, cities))
    # A trail is at most its part's total length: parts longest first, until none can beat
    # the best found.
    parts.sort(reverse=True)
    best = 0
    for total, start, cities in parts:
        if total <= best:
            break
        if not cities:  # one route
            best = total
            continue
        degrees = [*map(len, map(adj.__getitem__, cities))]
        if sum(map(_ODD, degrees)) <= 2:  # an Euler trail: every edge (step 1)
            best = total
        elif sum(degrees) == 2 * len(cities) - 2:  # a tree: its longest path, from an end of one
            far, _ = _farthest(adj, cities[0])
            best = max(best, _farthest(adj, far)[1])
        else:  # the general search
            best = max(best, _longest_in_component([e for e in edges if comp[e[0]] == start]))
    return best


_ODD = (1).__and__  # a degree -> 1 if odd
_LENGTH = itemgetter(1)  # a neighbour -> the length to it


def _farthest(adj: dict[int, list[tuple[int, int]]], start: int) -> tuple[int, int]:
    """In a tree, the city farthest from ``start`` and its distance."""
    dist = {start: 0}
    far, most = start, 0
    todo = [start]
    for v in todo:
        here = dist[v]
        for w, length in adj[v]:
            if w not in dist:
                d = dist[w] = here + length
                todo.append(w)
                if d > most:
                    far, most = w, d
    return far, most


def _odd_cities(edges: Iterable[Edge]) -> list[int]:
    degree: dict[int, int] = {}
    for a, b, _ in edges:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    return sorted(v for v, d in degree.items() if d & 1)


def _longest_in_component(edges: list[Edge]) -> int:
    if len(_odd_cities(edges)) <= 2:
        return sum(length for _, _, length in edges)
    reduced = _contract_series(edges, frozenset())
    bridge_ids = _bridges(reduced)

    # Blocks: the components once the bridges are removed.
    cities = sorted({v for a, b, _ in reduced for v in (a, b)})
    index = {v: i for i, v in enumerate(cities)}
    inner = [(a, b) for i, (a, b, _) in enumerate(reduced) if i not in bridge_ids]
    block_of = components(len(cities), ((index[a], index[b]) for a, b in inner))
    block_edges: dict[int, list[Edge]] = {block_of[i]: [] for i in range(len(cities))}
    for i, e in enumerate(reduced):
        if i not in bridge_ids:
            block_edges[block_of[index[e[0]]]].append(e)

    # The bridge tree: block -> [(port here, other block, port there, length)].
    links: dict[int, list[tuple[int, int, int, int]]] = {b: [] for b in block_edges}
    for i in bridge_ids:
        a, b, length = reduced[i]
        ba, bb = block_of[index[a]], block_of[index[b]]
        links[ba].append((a, bb, b, length))
        links[bb].append((b, ba, a, length))

    # Root the tree; list the blocks parents first, each with its child bridges.
    root = block_of[0]
    parent_port: dict[int, int] = {}
    children: dict[int, list[tuple[int, int, int]]] = {b: [] for b in block_edges}
    reached = {root}
    order = [root]
    for blk in order:
        for here, other, there, length in links[blk]:
            if other not in reached:
                reached.add(other)
                parent_port[other] = there
                children[blk].append((here, other, length))
                order.append(other)

    down: dict[int, int] = {}  # longest trail from the parent port into the block's subtree
    best = 0
    for blk in reversed(order):
        edges_here = block_edges[blk]
        # Per port, the two longest "tails": over a child bridge and on down its subtree.
        tails: dict[int, list[int]] = {}
        for here, child, length in children[blk]:
            tails.setdefault(here, []).append(length + down[child])
        first = {x: max(t) for x, t in tails.items()}
        second = {x: sorted(t)[-2] if len(t) > 1 else 0 for x, t in tails.items()}
        pp = parent_port.get(blk)
        search = _BlockSearch(edges_here, first, second, pp)
        # Trails whose highest block in the tree is this one: start at a port (plus its
        # tail) or at an odd city, end anywhere (plus the tail there; a closed trail
        # may add two different tails at its city).
        best = search.top(best)
        if pp is not None:
            down[blk] = search.down(pp)
    return best


def _bridges(edges: Sequence[Edge]) -> set[int]:
    """Indices of the bridges of a connected multigraph (Tarjan's low-link, iterative)."""
    adj: dict[int, list[tuple[int, int]]] = {}
    for i, (a, b, _) in enumerate(edges):
        if a != b:
            adj.setdefault(a, []).append((b, i))
            adj.setdefault(b, []).append((a, i))
    out: set[int] = set()
    if not adj:
        return out
    disc: dict[int, int] = {}
    low: dict[int, int] = {}
    start = next(iter(adj))
    disc[start] = low[start] = 0
    # Frames: (city, id of the edge we came by, iterator position).
    stack: list[tuple[int, int, int]] = [(start, -1, 0)]
    while stack:
        v, via, pos = stack[-1]
        nbrs = adj[v]
        if pos < len(nbrs):
            stack[-1] = (v, via, pos + 1)
            w, i = nbrs[pos]
            if i == via:
                continue
            if w in disc:
                low[v] = min(low[v], disc[w])
            else:
                disc[w] = low[w] = len(disc)
                stack.append((w, i, 0))
        else:
            stack.pop()
            if stack:
                u = stack[-1][0]
                low[u] = min(low[u], low[v])
                if low[v] > disc[u]:
                    out.add(via)
    return out


class _BlockSearch:
    """Longest trails with end bonuses inside one 2-edge-connected block.

    An end of the trail at a port earns that port's tail (over a bridge and on
    through the rest of the network). ``top`` lets a trail start and end anywhere;
    ``down`` starts it at the parent port.

    The search is over what a trail leaves *unused*, not over trails. A trail from
    s to t (t = s: closed) is an Euler trail of the edges it uses, so the unused
    edges U have odd degree exactly at the cities of T = (odd cities ^ {s} ^ {t}): U
    is a T-join, and any T-join whose remaining edges are connected (and hold s and
    t) gives a trail worth all the rest. So per pair of ends the value is at most the
    total less the cheapest pairing of T by shortest paths, a bound that is nearly
    always exact: the cheapest pairing's paths as U are tried first. Otherwise
    T-joins are enumerated, cheapest first, under that bound (``_leave_unused``).
    """

    EXACT_PAIRING_MAX = 16  # cities to pair; with more, the pairing cost is bounded from below

    def __init__(
        self, edges: list[Edge], first: dict[int, int], second: dict[int, int], pp: int | None
    ) -> None:
        extra = set(first) | ({pp} if pp is not None else set())
        names = sorted({v for a, b, _ in edges for v in (a, b)} | extra)
        at = {v: i for i, v in enumerate(names)}
        n = len(names)
        self.edges = edges
        self.at = at
        self.first = [first.get(v, 0) for v in names]
        self.second = [second.get(v, 0) for v in names]
        self.lengths = [length for _, _, length in edges]
        self.total = sum(self.lengths)
        # Per city: (other end, edge bit, length), a loop once; the non-loop edges as a
        # bitmask; per edge the bitmask of its two cities (0 for a loop: never unused).
        self.nbrs: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        self.inc = [0] * n
        self.ends: list[int] = []
        for i, (a, b, length) in enumerate(edges):
            bit, x, y = 1 << i, at[a], at[b]
            self.nbrs[x].append((y, bit, length))
            if x != y:
                self.nbrs[y].append((x, bit, length))
                self.inc[x] |= bit
                self.inc[y] |= bit
            self.ends.append(0 if x == y else 1 << x | 1 << y)
        self.odd = sum(1 << x for x in range(n) if self.inc[x].bit_count() & 1)
        # A trail worth the most ends at odd cities or ports (it could be extended
        # elsewhere; a closed one turned to start at one of them).
        self.keys = [x for x in range(n) if self.odd >> x & 1 or names[x] in extra]
        self.trees: dict[int, tuple[list[int], list[tuple[int, int]]]] = {}
        self.memo: dict[int, int] = {0: 0}
        self.partner: dict[int, int] = {}  # mask -> bit of the city paired with its lowest

    def _tree(self, src: int) -> tuple[list[int], list[tuple[int, int]]]:
        """Dijkstra from ``src`` (on demand): distance and (previous city, edge bit) per city."""
        known = self.trees.get(src)
        if known is not None:
            return known
        n = len(self.nbrs)
        d = [1 << 40] * n
        prev = [(-1, 0)] * n
        d[src] = 0
        heap = [(0, src)]
        while heap:
            dx, x = heapq.heappop(heap)
            if dx > d[x]:
                continue
            for y, bit, length in self.nbrs[x]:
                if dx + length < d[y]:
                    d[y] = dx + length
                    prev[y] = (x, bit)
                    heapq.heappush(heap, (dx + length, y))
        self.trees[src] = (d, prev)
        return d, prev

    def _pairing(self, mask: int) -> int:
        """Cost of the cheapest pairing of the cities in ``mask`` (or a lower bound):
        a lower bound on every T-join for T = ``mask``."""
        cost = self.memo.get(mask)
        if cost is not None:
            return cost
        if mask.bit_count() > self.EXACT_PAIRING_MAX:
            # Each city pays at least half the way to its nearest partner.
            idx = [i for i in range(mask.bit_length()) if mask >> i & 1]
            near = sum(min(self._tree(i)[0][j] for j in idx if j != i) for i in idx)
            cost = (near + 1) // 2
        else:
            low = mask & -mask
            d = self._tree(low.bit_length() - 1)[0]
            rest = mask ^ low
            cost = 1 << 40
            memo = self.memo
            m = rest
            while m:
                b = m & -m
                m ^= b
                other = memo.get(rest ^ b)
                if other is None:
                    other = self._pairing(rest ^ b)
                c = d[b.bit_length() - 1] + other
                if c < cost:
                    cost = c
                    self.partner[mask] = b
        self.memo[mask] = cost
        return cost

    def _trail_value(self, s: int, t: int, unused: int) -> int:
        """Length of the trail from ``s`` over all edges not in ``unused`` that it can
        reach (an Euler trail when they have odd degree only at s and t); -1 if it
        cannot end at ``t``."""
        reached, todo, value = 1 << s, [s], 0
        for x in todo:  # grows while it runs: a breadth-first walk
            for y, bit, length in self.nbrs[x]:
                if not bit & unused:
                    if x <= y:  # each edge once (a loop: x == y)
                        value += length
                    if not reached >> y & 1:
                        reached |= 1 << y
                        todo.append(y)
        return value if reached >> t & 1 else -1

    def _cheapest(self, s: int, t: int) -> int:
        """The trail value of leaving unused just the paths of the cheapest pairing of T."""
        mask = self.odd ^ (1 << s) ^ (1 << t)
        if mask.bit_count() > self.EXACT_PAIRING_MAX:
            return -1
        unused = 0
        while mask:
            self._pairing(mask)
            low = mask & -mask
            b = self.partner[mask]
            i = low.bit_length() - 1
            prev = self._tree(i)[1]
            x = b.bit_length() - 1
            while x != i:
                x, bit = prev[x]
                unused ^= bit
            mask ^= low | b
        return self._trail_value(s, t, unused)

    def _best(self, pairs: list[tuple[int, int, int]], best: int) -> int:
        """Max of ``best`` and the values of trails between the ends (s, t, their bonus)."""
        total = self.total
        bounds = sorted(
            (
                (bonus + total - self._pairing(self.odd ^ (1 << s) ^ (1 << t)), s, t, bonus)
                for s, t, bonus in pairs
            ),
            reverse=True,
        )
        # Cheap first: realise the best bounds directly; a bound met is the answer.
        for bound, s, t, bonus in bounds[:8]:
            if bound <= best:
                break
            value = self._cheapest(s, t)
            if value >= 0:
                best = max(best, bonus + value)
            if best >= bounds[0][0]:
                return best
        for bound, s, t, bonus in bounds:
            if bound <= best:
                break
            best = self._leave_unused(s, t, bonus, bound, best)
        return best

    def top(self, best: int) -> int:
        """Max of ``best`` and start tail + trail + end tail over trails in the block."""
        first, second = self.first, self.second
        if not self.edges:  # a lone city: the two longest tails meet there
            return max(best, first[0] + second[0])
        keys = self.keys
        pairs = [(s, s, first[s] + second[s]) for s in keys]
        pairs += [(s, t, first[s] + first[t]) for i, s in enumerate(keys) for t in keys[i + 1 :]]
        return self._best(pairs, best)

    def down(self, pp: int) -> int:
        """Longest trail from the parent port ``pp`` into the block, plus the end tail."""
        s = self.at[pp]
        first = self.first
        if not self.edges:
            return first[s]
        return self._best([(s, t, first[t]) for t in self.keys], first[s])

    def _leave_unused(self, s: int, t: int, bonus: int, bound: int, best: int) -> int:
        """Max of ``best`` and the trails from ``s`` to ``t``, by enumerating T-joins.

        A city of T needs an odd number of its undecided edges unused: branching on
        which (the city of T with the fewest undecided edges first, cheapest choice
        first) decides all its edges and flips the other ends in T. When T is empty
        the undecided edges are used. This misses T-joins that hold an extra cycle,
        but dropping a cycle from the unused edges only lengthens the trail, so the
        best is among those enumerated. Pruned by the cheapest pairing of T; stops
        once ``bound`` is met.
        """
        total, inc, ends, lengths = self.total, self.inc, self.ends, self.lengths
        pairing, trail_value = self._pairing, self._trail_value
        budget = total + bonus - best - 1  # the most the unused edges may cost to gain

        def close(need: int, decided: int, unused: int, cost: int) -> bool:
            """True once ``bound`` is met (stop)."""
            nonlocal best, budget
            if not need:
                value = trail_value(s, t, unused)
                if value >= 0 and bonus + value > best:
                    best = bonus + value
                    budget = total + bonus - best - 1
                return best >= bound
            # The city of T with the fewest undecided edges: the fewest branches.
            free, fewest = 0, 1 << 30
            m = need
            while m:
                low = m & -m
                m ^= low
                here = inc[low.bit_length() - 1] & ~decided
                if here.bit_count() < fewest:
                    free, fewest = here, here.bit_count()
                    if not free:
                        return False  # it can no longer get its odd degree
            options = []
            sub = free
            while sub:
                if sub.bit_count() & 1:
                    c, flip, m = cost, need, sub
                    while m:
                        low = m & -m
                        m ^= low
                        c += lengths[low.bit_length() - 1]
                        flip ^= ends[low.bit_length() - 1]
                    if c <= budget and c + pairing(flip) <= budget:
                        options.append((c, sub, flip))
                sub = (sub - 1) & free
            options.sort()
            decided |= free
            for c, sub, after in options:
                if c + pairing(after) > budget:
                    continue
                if close(after, decided, unused | sub, c):
                    return True
            return False

        close(self.odd ^ (1 << s) ^ (1 << t), 0, 0, 0)
        return best


# --------------------------------------------------------------------------- stations


def best_station_assignment(
    n_cities: int,
    own_edges: Iterable[tuple[int, int]],
    station_choices: Sequence[Sequence[tuple[int, int, int]]],
    tickets: Sequence[tuple[int, int, int]],
) -> tuple[int, tuple[int | None, ...]]:
    """Choose one borrowed route (or none) per station to maximise the ticket score.

    ``station_choices[i]`` holds the candidate routes ``(a, b, route_id)`` for the
    i-th station; ``tickets`` are ``(a, b, points)``. The score is the sum of points
    of completed tickets minus that of failed ones. All stations are chosen jointly
    (exhaustively over the product of their candidates, after leaving out the tickets no
    borrowing can complete and the candidates no other ticket needs). Ties prefer more
    completed tickets, then fewer borrowed routes, then the lowest route ids (sorted),
    then the lowest ids in station order. Returns ``(score, route id or None per station)``.
    """
    base = components(n_cities, own_edges)

    # Tickets the own network completes score alike in every combination: counted once
    # (and not in ``completed``, a tie-break where the same offset everywhere changes nothing).
    # So do the tickets that fail even with every candidate borrowed at once (most of them
    # at the end of a game, often all).
    reach: dict[int, int] = {}  # union-find over components: every candidate borrowed
    for cands in station_choices:
        for a, b, _ in cands:
            ra, rb = _root(reach, base[a]), _root(reach, base[b])
            if ra != rb:
                reach[ra] = rb
    fixed_score = 0
    open_tickets: list[tuple[int, int, int]] = []
    for a, b, pts in tickets:
        ca, cb = base[a], base[b]
        if ca == cb:
            fixed_score += pts
        elif _root(reach, ca) == _root(reach, cb):
            open_tickets.append((ca, cb, pts))
        else:
            fixed_score -= pts
    if not open_tickets:
        return fixed_score, (None,) * len(station_choices)

    # Per station: candidates that join two different base components, one per
    # (unordered) pair of components, keeping the lowest route id. A candidate whose part
    # of the all-borrowed network holds no open ticket changes no ticket (a path only ever
    # joins components within one part), so borrowing nothing there beats it: left out.
    useful = {_root(reach, ca) for ca, _, _ in open_tickets}
    options: list[list[tuple[int, int, int] | None]] = []
    for cands in station_choices:
        by_pair: dict[tuple[int, int], int] = {}
        for a, b, rid in cands:
            ca, cb = base[a], base[b]
            if ca == cb or _root(reach, ca) not in useful:
                continue
            pair = (ca, cb) if ca < cb else (cb, ca)
            if pair not in by_pair or rid < by_pair[pair]:
                by_pair[pair] = rid
        opts: list[tuple[int, int, int] | None] = [None]
        opts.extend((ca, cb, rid) for (ca, cb), rid in sorted(by_pair.items(), key=lambda x: x[1]))
        options.append(opts)
    big = 1 << 62  # sorts None after every route id in the last tie-break

    best_key: tuple[int, int, int, tuple[int, ...], tuple[int, ...]] | None = None
    best: tuple[int, tuple[int | None, ...]] = (0, ())
    for combo in product(*options):
        parent: dict[int, int] = {}
        borrowed = 0
        for opt in combo:
            if opt is not None:
                borrowed += 1
                ra, rb = _root(parent, opt[0]), _root(parent, opt[1])
                if ra != rb:
                    parent[ra] = rb
        score, completed = fixed_score, 0
        for ca, cb, pts in open_tickets:
            while ca in parent:  # (``_root``, inlined: this loop runs most)
                ca = parent[ca]
            while cb in parent:
                cb = parent[cb]
            if ca == cb:
                score += pts
                completed += 1
            else:
                score -= pts
        # The tie-breaks' tuples are built only where the cheap leading keys do not decide.
        lead = (-score, -completed, borrowed)
        if best_key is not None and lead > best_key[:3]:
            continue
        chosen = tuple(None if opt is None else opt[2] for opt in combo)
        ids = [r for r in chosen if r is not None]
        key = (*lead, tuple(sorted(ids)), tuple(big if r is None else r for r in chosen))
        if best_key is None or key < best_key:
            best_key = key
            best = (score, chosen)
    return best


def _root(parent: dict[int, int], x: int) -> int:
    while x in parent:
        x = parent[x]
    return x


# --------------------------------------------------------------------------- tour tickets


def trail_in_order(edges: Sequence[tuple[int, int]], stops: Sequence[int]) -> bool:
    """Does one trail start at ``stops[0]`` and visit every stop in order?

    The trail may pass other cities (and stops, and any city several times) in
    between, but uses no edge twice; it ends at ``stops[-1]``. A trail that visits
    the stops as a subsequence can always be cut to start and end there, so this is
    the "in printed order" test of Rails & Sails tour tickets.

    Equivalently: there are edge-disjoint paths from each stop to the next (a trail
    splits into pieces between consecutive stops, and each piece contains a path).
    A stop repeated right after itself counts once.

    Exact, by recursion on smaller problems (``_tour``): dead ends and chains of
    non-stop cities are removed; a trail crosses a bridge at most once, so it runs
    along the one path of the bridge tree from the first stop's block to the last
    stop's, the stops must lie on that path in order, and every block on it is an
    independent problem (from the port it is entered by, through its stops, to the
    port it is left by). In a block: the cut condition (no split of the stops is
    crossed more often than edges cross it; a max flow), then each simple path to
    the next stop is tried, cutting a path off as soon as what is left cannot work.
    Solved problems (remaining edges, stops) are remembered. Worst case exponential
    in the edges of one block; measured in ``bench/bench_graph.py``: median well
    under a millisecond for 20-40 routes (max a few ms), about 2 ms at 60 routes
    with rare cases up to a second or two.
    """
    memo: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], bool] = {}
    pairs = tuple(sorted((a, b) if a < b else (b, a) for a, b in edges if a != b))
    return _tour(pairs, list(stops), memo)


def _tour(
    edges: tuple[tuple[int, int], ...],
    stops: list[int],
    memo: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], bool],
) -> bool:
    """``trail_in_order`` on loop-free ``edges`` sorted as (low, high) pairs."""
    stops = [s for i, s in enumerate(stops) if i == 0 or s != stops[i - 1]]
    if len(stops) <= 1:
        return True
    key = (edges, tuple(stops))
    known = memo.get(key)
    if known is not None:
        return known

    # Keep only the component of the first stop; every stop must lie in it.
    ids: dict[int, int] = {}
    for a, b in edges:
        ids.setdefault(a, len(ids))
        ids.setdefault(b, len(ids))
    ok = all(s in ids for s in stops)
    if ok:
        label = components(len(ids), ((ids[a], ids[b]) for a, b in edges))
        home = label[ids[stops[0]]]
        ok = all(label[ids[s]] == home for s in stops)
    if not ok:
        memo[key] = False
        return False
    stop_set = set(stops)
    work = [(a, b, 0) for a, b in edges if label[ids[a]] == home]
    work = _contract_series(_prune_leaves(work, stop_set), stop_set)
    # Loops (non-stop cycles after contraction) return to where they began: useless.
    work = [e for e in work if e[0] != e[1]]
    # A stop in the middle is reached by one piece of the trail and left by the next.
    degree: dict[int, int] = {}
    for a, b, _ in work:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    if any(degree.get(s, 0) < 2 for s in stops[1:-1]):
        memo[key] = False
        return False

    # Blocks (2-edge-connected pieces) and the bridge tree between them.
    bridge_ids = _bridges(work)
    cities = sorted({v for a, b, _ in work for v in (a, b)})
    index = {v: i for i, v in enumerate(cities)}
    block_of = components(
        len(cities),
        ((index[a], index[b]) for i, (a, b, _) in enumerate(work) if i not in bridge_ids),
    )
    block_edges: dict[int, list[tuple[int, int]]] = {}
    for i, (a, b, _) in enumerate(work):
        if i not in bridge_ids:
            block_edges.setdefault(block_of[index[a]], []).append((a, b) if a < b else (b, a))
    links: dict[int, list[tuple[int, int, int]]] = {}  # block -> (port here, block, port there)
    for i in bridge_ids:
        a, b, _ = work[i]
        ba, bb = block_of[index[a]], block_of[index[b]]
        links.setdefault(ba, []).append((a, bb, b))
        links.setdefault(bb, []).append((b, ba, a))

    # The tree path from the first stop's block to the last stop's.
    first, last = block_of[index[stops[0]]], block_of[index[stops[-1]]]
    via: dict[int, tuple[int, int, int]] = {first: (-1, -1, -1)}  # block -> (parent, out, in)
    todo = [first]
    while todo:
        blk = todo.pop()
        for here, other, there in links.get(blk, ()):
            if other not in via:
                via[other] = (blk, here, there)
                todo.append(other)
    path = [last]
    ports: list[tuple[int, int]] = []  # (port leaving the block before, port entering this one)
    while path[-1] != first:
        parent, out, into = via[path[-1]]
        ports.append((out, into))
        path.append(parent)
    path.reverse()
    ports.reverse()
    position = {blk: i for i, blk in enumerate(path)}

    # Each stop's place on the path must not go back; then each block on its own.
    places = [position.get(block_of[index[s]], -1) for s in stops]
    ok = min(places) >= 0 and all(x <= y for x, y in pairwise(places))
    for i, blk in enumerate(path):
        if not ok:
            break
        entry = stops[0] if i == 0 else ports[i - 1][1]
        leave = stops[-1] if i == len(path) - 1 else ports[i][0]
        inside = [s for s, p in zip(stops, places, strict=True) if p == i]
        ok = _block_tour(sorted(block_edges.get(blk, [])), [entry, *inside, leave], memo)
    memo[key] = ok
    return ok


def _block_tour(
    edges: list[tuple[int, int]],
    stops: list[int],
    memo: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], bool],
) -> bool:
    """Within one block: grow a simple path to the next stop, step by step.

    A trail through the stops in order splits into edge-disjoint pieces from each
    stop to the next, and each piece contains a simple path between its ends; so
    searching over paths (no city twice) is enough. After each step the rest (from
    the path's end, through the remaining stops, over the unused edges) must still
    be solvable: that is the same problem, smaller, and usually falls apart at new
    bridges; so a hopeless path is dropped at its first bad step.
    """
    stops = [s for i, s in enumerate(stops) if i == 0 or s != stops[i - 1]]
    if len(stops) <= 2:
        return True  # a block is connected
    if not _cuts_suffice(edges, stops):
        return False
    start, goal = stops[0], stops[1]
    adj: dict[int, list[tuple[int, int]]] = {}
    for i, (a, b) in enumerate(edges):
        adj.setdefault(a, []).append((b, i))
        adj.setdefault(b, []).append((a, i))
    # Try short paths first: they leave the most edges for the later stops.
    dist = {goal: 0}
    todo = [goal]
    for x in todo:
        for y, _ in adj[x]:
            if y not in dist:
                dist[y] = dist[x] + 1
                todo.append(y)
    for nbrs in adj.values():
        nbrs.sort(key=lambda e: dist[e[0]])
    # Edges each later stop still needs: two to pass a middle stop, one to end.
    need: dict[int, int] = {goal: 1}
    for k, x in enumerate(stops[2:], start=2):
        need[x] = need.get(x, 0) + (1 if k == len(stops) - 1 else 2)
    left: dict[int, int] = {}
    for a, b in edges:
        left[a] = left.get(a, 0) + 1
        left[b] = left.get(b, 0) + 1
    later = stops[2:]

    def hopeless(v: int, used: int) -> bool:
        """The rest cannot work: a stop lacks edges, or v or a later stop is cut off."""
        if any(left[x] < n for x, n in need.items()):
            return True
        seen = {goal}
        todo = [goal]
        while todo:
            for y, i in adj[todo.pop()]:
                if not used >> i & 1 and y not in seen:
                    seen.add(y)
                    todo.append(y)
        return v not in seen or any(x not in seen for x in later)

    def rest_of(used: int) -> tuple[tuple[int, int], ...]:
        return tuple(e for i, e in enumerate(edges) if not used >> i & 1)

    def walk(v: int, visited: int, used: int) -> bool:
        if v == goal:
            return True  # the step here already found the rest solvable
        for w, i in adj[v]:
            if visited >> w & 1:
                continue
            left[v] -= 1
            left[w] -= 1
            after = used | 1 << i
            # Cheap checks, then the whole rest from w as its own (remembered) problem.
            found = (
                not hopeless(w, after)
                and _tour(rest_of(after), [w, *stops[1:]], memo)
                and walk(w, visited | 1 << w, after)
            )
            left[v] += 1
            left[w] += 1
            if found:
                return True
        return False

    return walk(start, 1 << start, 0)


def _cuts_suffice(edges: list[tuple[int, int]], stops: list[int]) -> bool:
    """The cut condition for edge-disjoint paths from each stop to the next.

    For any split of the stops into two sides, every path between consecutive
    stops on different sides crosses the cut between them, so that many
    edge-disjoint crossings (a max flow) must exist. In a block every cut has at
    least 2 edges, so only splits crossed 3 or more times are checked.
    """
    cities = list(dict.fromkeys(stops))
    for mask in range(1 << (len(cities) - 1)):  # the first stop always on the "out" side
        side = {c for k, c in enumerate(cities[1:]) if mask >> k & 1}
        need = sum(1 for a, b in pairwise(stops) if (a in side) != (b in side))
        if need > 2 and _max_flow(edges, side, set(cities) - side, need) < need:
            return False
    return True


def _max_flow(edges: list[tuple[int, int]], sources: set[int], sinks: set[int], limit: int) -> int:
    """Edge-disjoint paths from ``sources`` to ``sinks`` (unit capacities), up to ``limit``."""
    adj: dict[int, list[tuple[int, int, int]]] = {}  # city -> (other, edge, +1 if a->b)
    for i, (a, b) in enumerate(edges):
        adj.setdefault(a, []).append((b, i, 1))
        adj.setdefault(b, []).append((a, i, -1))
    flow = [0] * len(edges)  # +1: used a->b, -1: used b->a
    total = 0
    while total < limit:
        prev: dict[int, tuple[int, int, int]] = {s: (-1, -1, 0) for s in sources}
        todo = list(sources)
        end = None
        for x in todo:
            if x in sinks:
                end = x
                break
            for y, i, d in adj.get(x, ()):
                if y not in prev and flow[i] != d:  # residual capacity 1 - d * flow
                    prev[y] = (x, i, d)
                    todo.append(y)
        if end is None:
            break
        x = end
        while prev[x][0] != -1:
            x0, i, d = prev[x]
            flow[i] += d
            x = x0
        total += 1
    return total


def _prune_leaves(edges: list[tuple[int, int, int]], keep: set[int]) -> list[tuple[int, int, int]]:
    """Drop edges to cities of degree 1 outside ``keep``, repeatedly (dead ends)."""
    alive = [True] * len(edges)
    inc: dict[int, list[int]] = {}
    for i, (a, b, _) in enumerate(edges):
        inc.setdefault(a, []).append(i)
        inc.setdefault(b, []).append(i)
    degree = {v: len(es) for v, es in inc.items()}
    todo = [v for v, d in degree.items() if d == 1 and v not in keep]
    while todo:
        v = todo.pop()
        if degree[v] != 1:
            continue
        for i in inc[v]:
            if alive[i]:
                alive[i] = False
                a, b, _ = edges[i]
                w = b if a == v else a
                degree[v] -= 1
                degree[w] -= 1
                if degree[w] == 1 and w not in keep:
                    todo.append(w)
                break
    return [e for e, ok in zip(edges, alive, strict=True) if ok]
