"""``python -m maps``: validate every map file and print its counts."""

from __future__ import annotations

import sys

from maps import MapDataError, load_map, map_ids


def main() -> int:
    failed = 0
    for map_id in map_ids():
        try:
            m = load_map(map_id)
        except MapDataError as exc:
            failed += 1
            print(f"FAIL {map_id}\n{exc}")
            continue
        doubles = sum(1 for r in m.routes if r.double_of is not None) // 2
        spaces = sum(r.length for r in m.routes)
        print(
            f"ok   {m.id:<13} {len(m.cities):3} cities {len(m.routes):4} routes "
            f"({doubles} doubles, {spaces} spaces) {len(m.tickets):3} tickets  "
            f"players {m.rules.players_min}-{m.rules.players_max}  [{m.status}]"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
