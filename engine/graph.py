"""Graph algorithms for final scoring: longest trail, connectivity, stations, tour tickets.

Plain Python on ints, tuples and bitmasks (no project imports): these run at
the end of every simulated game. Cities are small non-negative ints; graphs
are multigraphs given as edge lists, so parallel routes are separate edges.

A *trail* is a walk that uses no edge twice (cities may repeat); this is
the "longest continuous path" of the rules.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from itertools import pairwise, product

__all__ = [
    "best_station_assignment",
    "components",
    "longest_trail",
    "trail_in_order",
]


# --------------------------------------------------------------------------- union-find


def _find(parent: list[int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving
        x = parent[x]
    return x


def components(n_cities: int, edges: Iterable[tuple[int, int]]) -> list[int]:
    """Component label per city: two cities are connected iff their labels are equal.

    The label is the smallest city id in the component (deterministic).
    """
    parent = list(range(n_cities))
    for a, b in edges:
        ra, rb = _find(parent, a), _find(parent, b)
        if ra != rb:
            # The smaller id becomes the root, so labels are component minima.
            if ra < rb:
                parent[rb] = ra
            else:
                parent[ra] = rb
    return [_find(parent, x) for x in range(n_cities)]


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

    Exact. Per connected component:

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
    4. In a block, an upper bound from the cheapest pairing of odd cities (a
       minimum T-join: the edges a trail must leave unused) is almost always
       exact; leaving unused exactly those shortest paths and checking that the
       rest is connected proves it without search. Otherwise a depth-first branch
       and bound over (city, bitmask of used edges) states, most promising edge
       first, never visiting a state twice.

    Complexity: steps 1-3 and the tree are linear; the pairing bound is
    O(2^k * k) for the k <= 16 odd cities and ports of a block (a weaker bound
    beyond). The search in step 4 is exponential in the worst case (the problem is
    NP-hard), but it runs only when the bound is not met, on one block. Measured
    (``bench/bench_graph.py``): about 0.2 ms for a 20-route network, under 1 ms
    median for 40 routes (p90 a few ms), with rare hard 40-route cases of a few
    hundred ms.
    """
    if not edges:
        return 0
    ids: dict[int, int] = {}
    for a, b, _ in edges:
        ids.setdefault(a, len(ids))
        ids.setdefault(b, len(ids))
    label = components(len(ids), ((ids[a], ids[b]) for a, b, _ in edges))
    groups: dict[int, list[Edge]] = {}
    for e in edges:
        groups.setdefault(label[ids[e[0]]], []).append(e)
    return max(_longest_in_component(g) for g in groups.values())


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

    Each search first bounds the value from every start city s with a T-join: a
    trail from s to t leaves unused a set of edges in which exactly the odd cities
    other than s and t (and s and t if they are even) have odd degree, and the
    cheapest such set costs at least the cheapest pairing of those cities by
    shortest paths. That bound is nearly always exact, so a depth-first search that
    tries the most promising edge first usually meets it soon and stops; otherwise
    it prunes with the cheaper bound of ``reach`` and runs to the end.
    """

    EXACT_PAIRING_MAX = 16  # key cities; with more, the pairing cost is bounded from below

    def __init__(
        self, edges: list[Edge], first: dict[int, int], second: dict[int, int], pp: int | None
    ) -> None:
        extra = set(first) | ({pp} if pp is not None else set())
        names = sorted({v for a, b, _ in edges for v in (a, b)} | extra)
        at = {v: i for i, v in enumerate(names)}
        n = len(names)
        # Edge bits in order of length: a city's shortest unused edge is its lowest bit.
        edges = sorted(edges, key=lambda e: e[2])
        self.edges = edges
        self.lengths = [length for _, _, length in edges]
        self.at = at
        self.first = [first.get(v, 0) for v in names]
        self.second = [second.get(v, 0) for v in names]
        self.total = sum(length for _, _, length in edges)
        # Per city: (other end, edge bit, length), a loop once; and the non-loop edges as
        # (other end, its city bit, edge bit).
        self.nbrs: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        self.plain: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        self.inc = [0] * n  # bitmask of non-loop edges at each city
        self.loops = [0] * n
        for i, (a, b, length) in enumerate(edges):
            bit, x, y = 1 << i, at[a], at[b]
            self.nbrs[x].append((y, bit, length))
            if x != y:
                self.nbrs[y].append((x, bit, length))
                self.plain[x].append((y, 1 << y, bit))
                self.plain[y].append((x, 1 << x, bit))
                self.inc[x] |= bit
                self.inc[y] |= bit
            else:
                self.loops[x] |= bit
        # Sum of edge lengths of a bitmask, eight edges per table lookup.
        self.tables: list[list[int]] = []
        for base in range(0, len(edges), 8):
            lengths = [length for _, _, length in edges[base : base + 8]]
            table = [0] * (1 << len(lengths))
            for m in range(1, len(table)):
                low = m & -m
                table[m] = table[m ^ low] + lengths[low.bit_length() - 1]
            self.tables.append(table)
        # Key cities: odd ones and ports, indexed for the pairing bound.
        odd = [x for x in range(n) if self.inc[x].bit_count() & 1]
        self.keys = sorted(set(odd) | {at[v] for v in extra})
        self.key_bit = {x: 1 << k for k, x in enumerate(self.keys)}
        self.odd_mask = sum(self.key_bit[x] for x in odd)
        self.dist, self.trees = self._shortest_paths()
        self.memo: dict[int, int] = {0: 0}
        self.partner: dict[int, int] = {}  # mask -> bit of the key paired with its lowest

    def _shortest_paths(self) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
        """Dijkstra from every key city: key-to-key distances, and each key's tree of
        shortest paths as (previous city, edge bit) per city."""
        n = len(self.nbrs)
        inf = 1 << 40
        dist: list[list[int]] = []
        trees: list[list[tuple[int, int]]] = []
        for src in self.keys:
            d = [inf] * n
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
            dist.append([d[k] for k in self.keys])
            trees.append(prev)
        return dist, trees

    def _pairing(self, mask: int) -> int:
        """Cost of the cheapest pairing of the key cities in ``mask`` (or a lower bound)."""
        cost = self.memo.get(mask)
        if cost is not None:
            return cost
        d = self.dist
        if len(self.keys) > self.EXACT_PAIRING_MAX:
            # Each city pays at least half the way to its nearest partner.
            idx = [i for i in range(len(self.keys)) if mask >> i & 1]
            near = sum(min(d[i][j] for j in idx if j != i) for i in idx)
            cost = (near + 1) // 2
        else:
            low = mask & -mask
            i = low.bit_length() - 1
            rest = mask ^ low
            cost = 1 << 40
            m = rest
            while m:
                b = m & -m
                c = d[i][b.bit_length() - 1] + self._pairing(rest ^ b)
                if c < cost:
                    cost = c
                    self.partner[mask] = b
                m ^= b
        self.memo[mask] = cost
        return cost

    def _build(self, s: int, t: int) -> bool:
        """Can a trail from ``s`` to ``t`` (equal: closed) reach its bound?

        Leave unused exactly the shortest paths of the cheapest pairing: the rest
        has odd degree just at s and t, so if its edges are connected (and reach s)
        an Euler trail through them is a trail worth exactly the bound.
        """
        if len(self.keys) > self.EXACT_PAIRING_MAX:
            return False
        mask = self.odd_mask ^ self.key_bit[s] ^ self.key_bit[t]
        unused = 0
        while mask:
            self._pairing(mask)
            low = mask & -mask
            b = self.partner[mask]
            i, j = low.bit_length() - 1, b.bit_length() - 1
            prev, x = self.trees[i], self.keys[j]
            while x != self.keys[i]:
                x, bit = prev[x]
                unused ^= bit
            mask ^= low | b
        rest = ((1 << len(self.edges)) - 1) & ~unused
        # Walk the remaining edges from s: all of them must be reachable.
        reached, todo, seen = 0, [s], 1 << s
        while todo:
            x = todo.pop()
            for y, bit, _ in self.nbrs[x]:
                if bit & rest:
                    reached |= bit
                    if not seen >> y & 1:
                        seen |= 1 << y
                        todo.append(y)
        return reached == rest

    def _ends(self, s: int, start_bonus: int, same_bonus: int) -> list[tuple[int, int, int]]:
        """(bound, s, t) for trails from ``s`` to each end t that an optimum may use."""
        total = self.total + start_bonus
        out = [(total + same_bonus - self._pairing(self.odd_mask), s, s)]
        for t in self.keys:
            if t != s:
                mask = self.odd_mask ^ self.key_bit[s] ^ self.key_bit[t]
                out.append((total + self.first[t] - self._pairing(mask), s, t))
        return out

    def _best(self, starts: list[tuple[int, int, int]], best: int) -> int:
        """Max of ``best`` and the value of the trails from (city, start bonus, same bonus)."""
        ends = {s: self._ends(s, sb, same) for s, sb, same in starts}
        # Cheap first: realise the best bounds directly; a bound met is the answer.
        goal = max(b for e in ends.values() for b, _, _ in e)
        for bound, s, t in sorted((e for es in ends.values() for e in es), reverse=True)[:8]:
            if bound <= best:
                break
            if self._build(s, t):
                best = bound
                break
        if best >= goal:
            return best
        # With several starts (``top``), a trail and its reverse are worth the same; so
        # once a start is done, no better trail ends there either. Longest start tails
        # first (then highest bound): once done, their tails are out of the later
        # searches' reach, which lowers those bounds most (World's slowest known
        # network: 3 times faster than highest bound first).
        bounds = sorted(
            ((max(b for b, _, _ in ends[s]), s, sb, same) for s, sb, same in starts),
            key=lambda start: (start[2], start[0]),
            reverse=True,
        )
        done = 0
        for _, s, sb, same in bounds:
            bound = max(b for b, _, t in ends[s] if t == s or not done & self.key_bit[t])
            if bound > best:
                best = self._search(s, sb, same, bound, best, done)
            done |= self.key_bit[s]
        return best

    def top(self, best: int) -> int:
        """Max of ``best`` and start tail + trail + end tail over trails in the block."""
        if not self.edges:  # a lone city: the two longest tails meet there
            return max(best, self.first[0] + self.second[0])
        return self._best([(s, self.first[s], self.second[s]) for s in self.keys], best)

    def down(self, pp: int) -> int:
        """Longest trail from the parent port ``pp`` into the block, plus the end tail."""
        s = self.at[pp]
        same = self.first[s]
        if not self.edges:
            return same
        return self._best([(s, 0, same)], same)

    def _search(
        self, s: int, start_bonus: int, same_bonus: int, bound: int, best: int, done: int
    ) -> int:
        """Depth-first branch and bound from city ``s``; stops once ``bound`` is met.

        Trails may not gain by ending at the key cities in ``done``.
        """
        nbrs, plain, inc, loops = self.nbrs, self.plain, self.inc, self.loops
        lengths, tables = self.lengths, self.tables
        bonus = list(self.first)
        top = list(bonus)  # the best end bonus each city can give
        top[s] = max(top[s], same_bonus)
        seen: set[tuple[int, int]] = set()

        key_bit = [self.key_bit.get(x, 0) for x in range(len(nbrs))]
        key_top = [top[x] for x in self.keys]
        odd_s = self.odd_mask ^ self.key_bit[s]
        pairing = self._pairing
        ends_memo: dict[tuple[int, int], int] = {}

        def ends(odd: int, keys: int) -> int:
            """Max over end cities t in ``keys`` of bonus(t) - cheapest pairing of odd ^ t."""
            value = ends_memo.get((odd, keys))
            if value is None:
                value = -(1 << 40)
                m = keys
                while m:
                    b = m & -m
                    m ^= b
                    left = odd ^ b
                    cost = pairing(left) if not left.bit_count() & 1 else 0
                    value = max(value, key_top[b.bit_length() - 1] - cost)
                ends_memo[(odd, keys)] = value
            return value

        def reach(v: int, used: int) -> int:
            """Bound on what a trail from ``v`` over unused edges can still add.

            Over the unused edges of v's component C, a trail from ``v`` to some t
            leaves unused edges in which exactly the cities of (odd cities of the
            block ^ {s}) in C, ^ {t}, have odd degree: so it gets at most the length
            of C less the cheapest pairing of those cities, plus t's bonus. A
            cheaper, independent bound: each such city keeps an unused edge of its
            own (at least its shortest), one edge serving two cities.
            """
            free = ~used
            reached = 1 << v
            todo = [v]
            mask = keys = 0
            penalty = worst = best_bonus = 0
            for x in todo:  # grows while it runs: a breadth-first walk
                keys |= key_bit[x]
                if top[x] > best_bonus:
                    best_bonus = top[x]
                own = inc[x] & free
                if own.bit_count() & 1 and x != v:
                    length = lengths[(own & -own).bit_length() - 1]
                    penalty += length
                    if length > worst:
                        worst = length
                mask |= own | (loops[x] & free)
                for y, y_bit, bit in plain[x]:
                    if bit & free and not reached & y_bit:
                        reached |= y_bit
                        todo.append(y)
            total = 0
            k = 0
            while mask:
                total += tables[k][mask & 255]
                mask >>= 8
                k += 1
            cheap = best_bonus - (penalty - worst + 1) // 2
            if keys:
                cheap = min(cheap, ends(odd_s & keys, keys & ~done))
            return total + cheap

        def dfs(v: int, used: int, run: int) -> bool:
            """True once ``bound`` is met (stop)."""
            nonlocal best
            here = start_bonus + run + (same_bonus if v == s else bonus[v])
            if here > best:
                best = here
                if best >= bound:
                    return True
            # Visit the most promising edge first: good trails early prune the rest.
            steps = []
            for w, bit, length in nbrs[v]:
                if not used & bit:
                    state = (w, used | bit)
                    if state in seen:
                        continue
                    seen.add(state)
                    value = start_bonus + run + length + reach(w, used | bit)
                    if value > best:
                        steps.append((value, w, used | bit, run + length))
            steps.sort(reverse=True)
            for value, w, after, total in steps:
                if value <= best:
                    break
                if dfs(w, after, total):
                    return True
            return False

        dfs(s, 0, 0)
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
    (exhaustively over the product of their pruned candidates). Ties prefer more
    completed tickets, then fewer borrowed routes, then the lowest route ids (sorted),
    then the lowest ids in station order. Returns ``(score, route id or None per station)``.
    """
    base = components(n_cities, own_edges)

    # Per station: candidates that join two different base components, one per
    # (unordered) pair of components, keeping the lowest route id.
    options: list[list[tuple[int, int, int] | None]] = []
    for cands in station_choices:
        by_pair: dict[tuple[int, int], int] = {}
        for a, b, rid in cands:
            ca, cb = base[a], base[b]
            if ca == cb:
                continue
            pair = (ca, cb) if ca < cb else (cb, ca)
            if pair not in by_pair or rid < by_pair[pair]:
                by_pair[pair] = rid
        opts: list[tuple[int, int, int] | None] = [None]
        opts.extend((ca, cb, rid) for (ca, cb), rid in sorted(by_pair.items(), key=lambda x: x[1]))
        options.append(opts)

    ticket_comps = [(base[a], base[b], pts) for a, b, pts in tickets]
    big = 1 << 62  # sorts None after every route id in the last tie-break

    best_key: tuple[int, int, int, tuple[int, ...], tuple[int, ...]] | None = None
    best: tuple[int, tuple[int | None, ...]] = (0, ())
    for combo in product(*options):
        parent: dict[int, int] = {}
        chosen: list[int | None] = []
        for opt in combo:
            if opt is None:
                chosen.append(None)
                continue
            ca, cb, rid = opt
            chosen.append(rid)
            ra, rb = _root(parent, ca), _root(parent, cb)
            if ra != rb:
                parent[ra] = rb
        score = completed = 0
        for ca, cb, pts in ticket_comps:
            if ca == cb or _root(parent, ca) == _root(parent, cb):
                score += pts
                completed += 1
            else:
                score -= pts
        ids = [r for r in chosen if r is not None]
        key = (
            -score,
            -completed,
            len(ids),
            tuple(sorted(ids)),
            tuple(big if r is None else r for r in chosen),
        )
        if best_key is None or key < best_key:
            best_key = key
            best = (score, tuple(chosen))
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
