"""The one place the bot calls the renderer (``bot/render``), so it can be swapped in tests.

Rendering is CPU work: callers run these in a worker thread (``asyncio.to_thread``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.views import PrivateView, PublicView


@dataclass(frozen=True)
class Renderer:
    board: Callable[[PublicView], bytes]
    hand: Callable[[PrivateView, str], bytes]
    final: Callable[[PublicView], bytes]


def default_renderer() -> Renderer:
    from bot.render import render_board, render_final, render_hand

    return Renderer(board=render_board, hand=render_hand, final=render_final)
