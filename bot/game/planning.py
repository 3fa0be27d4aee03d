"""Planning a game's time-based work (reminders, timers, computer turns) at each version;
the jobs themselves run in ``bot.game.scheduler``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

import engine
from bot.game.games import Game, GameInfo
from bot.game.posting import Posting
from bot.storage.api import Job, JobPlan
from engine import GameState
from engine.phases import Phase

log = logging.getLogger(__name__)


class Planner(Protocol):
    """Plans a game's time-based work (``bot.game.scheduler``) whenever the game changes."""

    async def jobs(self, game: GameInfo) -> list[Job]:
        """The reminders, timers and computer turns ``game`` needs at its version (at a new
        one, or loaded after a restart), for the seats it waits for."""
        ...

    def wake(self, due_at: float | None = None) -> None:
        """Jobs were planned, the earliest due at ``due_at``: look at what is due again
        (if that is before the next look planned already)."""
        ...


class Planning(Posting):
    planner: Planner | None = None  # set by the scheduler that runs the game's jobs


    async def _plan(self, game: Game, *, carry: Sequence[int] = (),
                    acted: int | None = None) -> None:
        """Plan the game's jobs at its version (with the game's lock held). A failure is
        only logged: the game's change is stored, and the next start-up plans it again."""
        plan = await self._job_plan(game, game.state, carry=carry, acted=acted)
        if plan is None or self.planner is None or game.state is None:
            return
        try:
            await self.storage.plan_jobs(game.id, game.state.version, carry=plan.carry,
                                         jobs=plan.jobs, acted=plan.acted)
        except Exception:
            log.exception("game %s: planning its reminders and timers failed", game.id)
            return
        if plan.jobs:
            self.planner.wake(min(job.due_at for job in plan.jobs))

    async def _job_plan(self, game: Game, state: GameState | None, *,
                        carry: Sequence[int] = (), acted: int | None = None) -> JobPlan | None:
        """The jobs the game needs at its version: reminders, timers and computer turns of
        the seats it waits for; ``carry``: seats still deciding the same thing as before,
        whose jobs go on; ``acted``: the seat whose player just acted in person. None if
        there is nothing to plan (no planner, the game is over) or planning failed (only
        logged: the next start-up plans the game again). ``state``: the game's new state
        (an action's, before it is stored)."""
        if (self.planner is None or state is None or game.row.status != "running"
                or state.phase == Phase.GAME_OVER):
            return None
        try:
            jobs = await self.planner.jobs(GameInfo(game.row, list(game.seats), state))
        except Exception:
            log.exception("game %s: planning its reminders and timers failed", game.id)
            return None
        return JobPlan(tuple(carry), tuple(jobs), acted)

    async def replan(self) -> int:
        """At start-up: plan every running game's jobs, keeping those planned already (a job
        the database holds is neither lost nor repeated). Returns how many games."""
        rows = await self.storage.games_with_status("running")
        for row in rows:
            try:
                await self.replan_game(row.id)
            except Exception:  # one broken game must not keep the bot from starting
                log.exception("game %s: cannot be loaded to plan its jobs", row.id)
        return len(rows)

    async def replan_game(self, game_id: int) -> None:
        """Plan one game's jobs again, keeping those planned already (a player went away
        or came back: ``bot.seats.away``)."""
        async with self._locked(game_id):
            game = await self._load(game_id)
            if game.state is not None:
                await self._plan(game, carry=engine.waiting_for(game.state))
