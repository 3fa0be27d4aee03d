"""A fork server preload for tests/bot/serve_warming.py: records its pid, then takes far
longer than any stop may (the real one builds every map's base layer for ~20 s)."""

import os
import sys
import time

with open(os.environ["TTR_TEST_PRELOAD_PID"], "w") as out:
    out.write(str(os.getpid()))
print("preload started", file=sys.stderr, flush=True)
time.sleep(120)
