"""A bot process's render workers, started, for tests/bot/test_lifecycle.py: prints the
workers' and their fork server's pids, then waits to be killed."""

import time
from multiprocessing import forkserver

from bot.game.images import default_renderer
from bot.ops.workers import worker_pids

if __name__ == "__main__":  # a worker imports this file too
    renderer = default_renderer(processes=2, preload="bot.ops.workers")  # a light preload
    assert renderer.pool is not None
    for job in [renderer.pool.submit(int) for _ in range(2)]:
        job.result()
    fork_server = forkserver._forkserver._forkserver_pid  # type: ignore[attr-defined]
    print(*worker_pids(renderer.pool), fork_server, flush=True)
    time.sleep(120)
