"""Map mechanics of their own, switched on by a map's ``rules.modules``.

Each module plugs into the common rules through the hooks of ``RuleModule``;
adding a map is a data file plus, at most, one module here. Importing this
package registers the modules with ``engine.hooks``, where the turn machinery
looks them up.
"""

from __future__ import annotations

from engine.hooks import MODULES, UnsupportedMap, modules_for, register
from engine.modules.festivals import Festivals
from engine.modules.rails_and_sails import RailsAndSails
from engine.modules.shares import Shares
from engine.modules.stations import Stations
from maps import load_map, map_ids

register("stations", Stations())
register("shares", Shares())
register("festivals", Festivals())
register("rails_and_sails", RailsAndSails())

__all__ = ["MODULES", "UnsupportedMap", "modules_for", "playable_maps"]


def playable_maps() -> list[str]:
    """Maps whose every mechanic this engine implements."""
    return [m for m in map_ids() if all(n in MODULES for n in load_map(m).rules.modules)]
