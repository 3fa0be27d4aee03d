"""What a map's data only estimates (``maps/estimate.py``), in the players' words.

No public source gives Iberia's tickets, festival card counts or festival table, so the
data estimates them; players are told where they choose the map (``/ttr new``, the lobby),
in its rules and under its final scores.
"""

from __future__ import annotations

from bot.i18n import N_, _
from maps.model import MapData

# The estimated parts of a map's data, as players read them.
TICKETS = N_("destination tickets")
FESTIVAL_CARDS = N_("festival card counts")
FESTIVAL_TABLE = N_("festival score table")


def estimated_parts(m: MapData) -> list[str]:
    """The message ids of what the map's data estimates (empty for printed data)."""
    festivals = m.rules.festivals
    parts = [TICKETS] if any(t.estimated for t in m.tickets) else []
    if festivals is not None and any(p.estimated for p in festivals.piles):
        parts.append(FESTIVAL_CARDS)
    if festivals is not None and festivals.estimated:
        parts.append(FESTIVAL_TABLE)
    return parts


def estimate_note(m: MapData) -> str | None:
    """A sentence saying what the map's data estimates, in the current language; None when
    it is all printed data."""
    parts = estimated_parts(m)
    if not parts:
        return None
    return _("Estimated, as no public source gives the printed values: {parts}.",
             parts=", ".join(_(p) for p in parts))
