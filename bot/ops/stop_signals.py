"""A stop asked for while the bot is still starting: remembered from the first moment.

Start-up imports and checks take seconds (under load, ~6 s before the event loop's own
handlers are in place); with Python's default a SIGTERM then ends the process at once
(exit 143) without a word. ``remember`` runs first thing in ``python -m bot``: a stop
signal is noted here, and ``bot.ops.lifecycle`` stops cleanly as soon as it can.
"""

from __future__ import annotations

import signal
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
received: list[signal.Signals] = []


def remember() -> None:
    for sig in STOP_SIGNALS:
        signal.signal(sig, _note)


def _note(signum: int, frame: FrameType | None) -> None:
    received.append(signal.Signals(signum))
