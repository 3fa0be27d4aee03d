"""Every benchmark prints the host's calibration figure and measures this checkout's code."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _calibration():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("calibration", BENCH / "calibration.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_benchmark_prints_the_calibration_line_and_imports_its_checkout() -> None:
    benchmarks = sorted(BENCH.glob("bench_*.py"))
    assert len(benchmarks) >= 7
    for path in benchmarks:
        tree = ast.parse(path.read_text())
        calls = {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert "calibration_line" in calls, f"{path.name} does not print the calibration line"
        # Run as a script, the editable install would otherwise import another checkout's code.
        inserts = [
            node for node in tree.body
            if isinstance(node, ast.Expr) and "sys.path.insert(0" in ast.unparse(node)
        ]
        assert inserts, f"{path.name} does not put its own checkout first on sys.path"


@pytest.mark.slow
def test_the_workload_is_fixed_and_its_figure_a_cpu_time() -> None:
    calibration = _calibration()
    # The figure compares runs only while the work stays the same: this checksum changes
    # if anyone edits the workload (then old calibration figures no longer compare).
    assert calibration.workload() == 2176595
    line = calibration.calibration_line()
    assert line.startswith("calibration: ") and " ms CPU " in line
    assert calibration.calibration_ms() > 0
