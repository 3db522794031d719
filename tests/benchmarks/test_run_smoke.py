"""Smoke tests of the benchmarks: each module's `run()` works at tiny sizes and gives positive,
finite numbers (CPU times may be zero) under the names `benchmarks/run.py` reports; scale.py
draws its curves; `run.py --quick --json` writes the headline figures of what it ran. No timing
target is checked here (that is `run.py`'s job on a quiet machine); only that the benchmarks run
and say something sensible."""

from __future__ import annotations

import importlib
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(autouse=True)
def _benchmarks_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmarks are scripts that import each other by name: on the path for each test only."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))


PRODUCES = {
    "roundtrip": ["form_roundtrip_ratio"],
    "validate": ["validate_ratio", "validate_fresh_ratio"],
    "store_flow": ["sqlite_flow_ratio", "redis_flow_ratio"],
    "completion": ["completion_p99_ms_local", "completion_p99_ms_replicas", "redis_pubsub_p99_ms"],
    "pending_memory": ["pending_10k_bytes_each", "pending_with_waiter_bytes_each"],
    "landing": ["landing_rps_ratio"],
    "hostile": ["hostile_loop_lag_ms", "hostile_prompts_shown"],
    "import_time": ["import_ratio"],
    "bridge": [
        "bridge_added_ms_stdio_h11",
        "bridge_added_ms_http_h11",
        "bridge_added_ms_stdio_runner",
        "bridge_added_ms_http_runner",
    ],
    "postgres": ["postgres_flow_ratio", "completion_p99_ms_postgres"],
    "scale": [
        *(f"scale_record_bytes_growth_{b}" for b in ("sqlite", "redis", "postgres")),
        *(f"scale_op_p99_growth_{b}" for b in ("sqlite", "redis", "postgres")),
        "scale_session_kib",
        "scale_replica_p99_growth",
        "scale_sweep_serving_p99_ratio",
    ],
}


def _runner() -> ModuleType:
    return importlib.import_module("run")


def test_every_figure_comes_from_one_benchmark() -> None:
    run = _runner()
    assert set(PRODUCES) == set(run.BENCHMARKS)
    assert sorted(name for names in PRODUCES.values() for name in names) == sorted(run.KEYS)


@pytest.mark.parametrize("module", list(PRODUCES))
def test_run_at_tiny_size(module: str, tmp_path: Path) -> None:
    quick = _runner().BENCHMARKS[module][1]
    benchmark = importlib.import_module(module)
    figures = benchmark.run(**quick)
    for name in PRODUCES[module]:
        assert name in figures, (module, sorted(figures))
    for name, value in figures.items():
        # At this size the kernel may count no CPU tick, and a memory delta or a difference of two
        # measures (elicitkit's share over the SDK's floor, the bridge's added latency) may be zero
        # or below: those need only be finite.
        delta = any(part in name for part in ("_cpu_us_", "_own_", "_added_", "_kib", "bytes_"))
        sensible = delta or value > 0
        assert isinstance(value, float) and math.isfinite(value) and sensible, (name, value)
    if module == "scale":  # its curves, drawn as run.py --plots draws them
        drawn = {path.stem for path in benchmark.plot(figures, tmp_path)}
        assert {
            "store_bytes_per_record",
            "store_flow_p99",
            "sessions_kib",
            "replicas_completion_p99",
        } <= drawn
        assert all(path.read_bytes().startswith(b"\x89PNG") for path in tmp_path.glob("*.png"))


def test_run_py_writes_the_headline_figures_of_what_it_ran(tmp_path: Path) -> None:
    """The table and `--json` (two quick modules: every module's own run is tested above)."""
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "run.py"),
            "--quick",
            "--only",
            "validate",
            "import_time",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert list(figures) == [
        name for name in _runner().KEYS if name in PRODUCES["validate"] + PRODUCES["import_time"]
    ]
    assert all(isinstance(v, float) and math.isfinite(v) and v > 0 for v in figures.values()), figures
    for name in figures:
        assert name in done.stdout  # the table names every figure
