"""Imported once by the render pool's fork server (``bot.game.images``) before it forks the
worker processes: every map's static base layer, palettes, empty map layer (and the
timelapse's) and route pieces (each seat's claimed spaces, closed spaces) are built here,
so each worker starts with them in memory (shared copy-on-write) instead of spending
seconds on its first boards. Then they are frozen out of the garbage collector
(``bot.ops.collector``)."""

from __future__ import annotations

from bot.ops import collector
from maps import map_ids

from . import board_palette, empty_layer, final_palette, hand_palette, render_hand
from .board import warm_pieces
from .demo import hand_view
from .timelapse import empty_map


def warm() -> None:
    for map_id in map_ids():
        board_palette(map_id)  # builds the base layer too
        empty_layer(map_id)
        final_palette(map_id)
        hand_palette(map_id)
        warm_pieces(map_id)
        empty_map(map_id)  # a finished game's timelapse starts from it
        render_hand(hand_view(map_id), map_id)  # the hand's fonts and pieces


collector.tune()  # the workers forked from here inherit it
warm()
collector.freeze()  # the layers built above: shared with every worker, never collected
