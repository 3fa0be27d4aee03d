from __future__ import annotations


class IllegalAction(Exception):
    """An action the rules do not allow now; ``str(exc)`` is written for the player.

    Raised before anything changes, so the state is exactly as it was.
    """
