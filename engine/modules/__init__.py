"""Map mechanics of their own, switched on by a map's ``rules.modules``.

Each module plugs into the common rules through the hooks of ``RuleModule``;
adding a map is a data file plus, at most, one module here.
"""

from __future__ import annotations

from functools import cache

from engine.hooks import RuleModule
from engine.modules.festivals import Festivals
from engine.modules.rails_and_sails import RailsAndSails
from engine.modules.shares import Shares
from engine.modules.stations import Stations
from maps import load_map, map_ids

MODULES: dict[str, RuleModule] = {
    "stations": Stations(),
    "shares": Shares(),
    "festivals": Festivals(),
    "rails_and_sails": RailsAndSails(),
}


class UnsupportedMap(ValueError):
    """The map needs a rule module this engine does not have yet."""


@cache
def modules_for(map_id: str, names: tuple[str, ...]) -> tuple[RuleModule, ...]:
    missing = [n for n in names if n not in MODULES]
    if missing:
        raise UnsupportedMap(f"map {map_id!r} needs rule modules not built yet: {missing}")
    return tuple(MODULES[n] for n in names)


def playable_maps() -> list[str]:
    """Maps whose every mechanic this engine implements."""
    return [m for m in map_ids() if all(n in MODULES for n in load_map(m).rules.modules)]
