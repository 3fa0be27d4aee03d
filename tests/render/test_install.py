"""A plain (non-editable) install renders with the bundled fonts, from any directory.

The wheel is built from a copy of the sources (offline, no build isolation),
installed into a fresh virtual environment without the source tree anywhere on
its path, and run from an unrelated directory: the fonts must come from the
installed packages (the top-level ``assets`` package holds them), never from the sources
or the system.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys
import bot.render, bot.render.fonts as fonts
from bot.render import render_board
from bot.render.demo import mid_view
where = bot.render.__file__
assert where.startswith(sys.prefix), where  # the installed copy, not the sources
assert fonts.font(20, "bold").getname() == ("DejaVu Sans", "Bold"), fonts.font(20).getname()
assert fonts.font(20, "title").getname() == ("DejaVu Serif", "Bold")
# The fallback chain's fonts come from the installed assets package too.
assert [fonts.font_file(n, 20).getname()[0] for n in fonts.FALLBACKS] == [
    "WenQuanYi Micro Hei", "Noto Emoji"], fonts.FALLBACKS
assert fonts.has_glyph(fonts.font_file(fonts.FALLBACKS[0], 20), "王")
png = render_board(mid_view("usa", seed=3, players=3, claims=10))
assert png.startswith(b"\\x89PNG") and len(png) > 50_000, len(png)
print("rendered", len(png), "bytes from", where)
"""


def _run(*args: str | Path, cwd: Path | None = None, **env: str) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PIP_NO_INPUT": "1", **env})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_renders_with_its_own_fonts(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in ("bot", "engine", "maps", "assets"):
        shutil.copytree(ROOT / package, src / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "-w", dist, src)
    (wheel,) = dist.glob("ttr_bot-*.whl")

    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
         "--no-index", wheel)
    # The third-party dependencies come from this environment (no network in tests); the
    # project itself only from the wheel: this path holds no copy of it.
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                .strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = _run(python, "-c", PROBE, cwd=elsewhere)
    assert "rendered" in out and str(env) in out
    # The entry point: settings, database and one image drawn, from that directory too
    # (`check` makes no database: an empty file is a new one to SQLite).
    (elsewhere / "ttr.sqlite3").touch()
    out = _run(env / "bin" / "ttr-bot", "check", cwd=elsewhere,
               TTR_DB_PATH=str(elsewhere / "ttr.sqlite3"))
    assert out.startswith("ok: database") and "renderer ok" in out, out


def test_the_repositorys_install_files_agree_with_it() -> None:
    """From a fresh clone: every test file pyproject names exists, building leaves nothing
    git would pick up (build/, dist/), and the pins cover Python 3.13 too (where discord.py
    needs audioop-lts)."""
    named = re.findall(r"tests/[\w/]+\.py", (ROOT / "pyproject.toml").read_text())
    assert named and [n for n in named if not (ROOT / n).is_file()] == []
    ignored = subprocess.run(["git", "check-ignore", "build/lib/x.py", "dist/x.whl"],
                             cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout.split() == ["build/lib/x.py", "dist/x.whl"], ignored.stderr
    pins = (ROOT / "constraints.txt").read_text()
    assert re.search(r'^audioop-lts==[\d.]+ ; python_version >= "3\.13"$', pins, re.M)
